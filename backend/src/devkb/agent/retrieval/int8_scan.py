"""The whole-corpus dense scan in 8-bit integers, with an exact result.

Every search question scores all chunk vectors of the snapshot to find the documents whose best
chunk is nearest the question (``RelatedSearch.rank``'s dense scan). In float32 that product
streams the whole matrix from memory — 36 MB for the Fluid corpus's 23,457 chunks, ~5 ms on one
core of the bench machine, memory-bound — on every question. Here the matrix is also kept as
8-bit integers (a quarter of the bytes, per-row scales) inside an ONNX Runtime ``MatMulInteger``
session, which packs it once and multiplies in ~0.3 ms; ``onnxruntime`` is already the default
embedder's engine.

The integer product is only an estimate, so it is used with a bound: for a question ``q`` and a
row ``v`` with quantised ``q̂`` and ``v̂``, ``|q·v − q̂·v̂| ≤ ‖q − q̂‖·‖v‖ + ‖q̂‖·‖v − v̂‖``
(Cauchy–Schwarz, every term computed exactly), plus a margin for float rounding. ``scores``
returns the estimate and the question's two terms; the caller rescores in float32 every document whose upper
bound reaches the k-th best lower bound, so the documents it keeps are the ones the float32 scan
keeps (``CorpusSnapshot.top_dense``).

Matrix values are kept within ±63 and the question's within 1–255 (zero point 128): on x86
without VNNI, ONNX Runtime's u8×s8 kernel adds products pairwise in 16 bits, and 2 × 255 × 63
stays below 2¹⁵, so the integer result is exact. A check at build time compares the session's
result with numpy's for extreme inputs and for a sample of rows; if it ever differs, or
``onnxruntime`` cannot load, ``build`` returns ``None`` and the caller scans in float32.

The model is written here as protobuf bytes (one ``MatMulInteger`` node, the matrix an
initializer) because the ``onnx`` package is only a setup-time dependency.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnxruntime as ort

log = logging.getLogger(__name__)

B_LIMIT = 63  # matrix values: |b| ≤ 63, so 2 × 255 × 63 < 2^15 (no 16-bit saturation)
A_ZERO = 128  # question values 1..255 around this zero point
ROUNDING = 1e-4  # float rounding of the estimate and of the float32 products, with room to spare
_UINT8, _INT8, _INT32 = 2, 3, 6  # ONNX TensorProto data types
_BLOCK = 8192  # rows per step when quantising


# -- a minimal ONNX model, encoded by hand ----------------------------------------------------
def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes | str | int) -> bytes:
    if isinstance(payload, int):  # varint (wire type 0)
        return _varint(number << 3) + _varint(payload)
    data = payload.encode() if isinstance(payload, str) else payload  # length-delimited (2)
    return _varint(number << 3 | 2) + _varint(len(data)) + data


def _value_info(name: str, elem_type: int, dims: list[int | str]) -> bytes:
    shape = b"".join(
        _field(1, _field(1, d) if isinstance(d, int) else _field(2, d)) for d in dims
    )  # TensorShapeProto.dim: Dimension{dim_value = 1 | dim_param = 2}
    tensor_type = _field(1, elem_type) + _field(2, shape)
    return _field(1, name) + _field(2, _field(1, tensor_type))  # ValueInfoProto{name, TypeProto}


def _tensor(name: str, data_type: int, array: np.ndarray) -> bytes:
    dims = b"".join(_field(1, int(d)) for d in array.shape)
    return dims + _field(2, data_type) + _field(8, name) + _field(9, array.tobytes())


def matmul_integer_model(matrix_t: np.ndarray) -> bytes:
    """ONNX model bytes: ``Y[1, n] = (A[1, k] − 128) · B[k, n]`` in int32, ``B = matrix_t``
    (int8) an initializer, ``A`` uint8 an input."""
    k, n = matrix_t.shape
    node = _field(1, "A") + _field(1, "B") + _field(1, "A_zero") + _field(2, "Y") + _field(4, "MatMulInteger")
    graph = (
        _field(1, node)
        + _field(2, "int8_scan")
        + _field(5, _tensor("B", _INT8, np.ascontiguousarray(matrix_t, dtype=np.int8)))
        + _field(5, _tensor("A_zero", _UINT8, np.array(A_ZERO, dtype=np.uint8)))
        + _field(11, _value_info("A", _UINT8, [1, k]))
        + _field(12, _value_info("Y", _INT32, [1, n]))
    )
    opset = _field(2, 17)  # OperatorSetIdProto{version = 17}, the default domain
    return _field(1, 8) + _field(8, opset) + _field(7, graph)  # ir_version 8, opset_import, graph


# -- the scan ---------------------------------------------------------------------------------
class Int8Scan:
    """``vectors`` (rows × dimension, float32) as 8-bit integers in an ONNX Runtime session."""

    def __init__(
        self, vectors: np.ndarray, codes: np.ndarray, scale: np.ndarray, session: ort.InferenceSession
    ) -> None:
        self.scale = scale
        self.norm = np.zeros(len(vectors), dtype=np.float32)
        self.residual = np.zeros(len(vectors), dtype=np.float32)
        for start in range(0, len(vectors), _BLOCK):  # in blocks: no full-size temporaries
            block = slice(start, start + _BLOCK)
            self.norm[block] = np.linalg.norm(vectors[block], axis=1)
            self.residual[block] = np.linalg.norm(vectors[block] - codes[block] * scale[block, None], axis=1)
        self.session = session

    def _quantise(self, query: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
        q = np.asarray(query, dtype=np.float64)
        peak = float(np.abs(q).max()) if q.size else 0.0
        step = peak / 127 if peak > 0 else 1.0
        codes = np.clip(np.rint(q / step), -127, 127)
        return (codes + A_ZERO).astype(np.uint8)[None, :], step, codes * step

    def products(self, a: np.ndarray) -> np.ndarray:
        """The session's int32 products ``(a − 128) · B`` for one uint8 row ``a``."""
        (y,) = self.session.run(["Y"], {"A": a})
        return np.asarray(y[0])

    def scores(self, query: np.ndarray) -> tuple[np.ndarray, float, float]:
        """(an estimate of every row's dot product with ``query``, ``‖q − q̂‖``, ``‖q̂‖``): the
        estimate of row ``i`` is within ``‖q − q̂‖·norm[i] + ‖q̂‖·residual[i] + ROUNDING`` of it."""
        a, step, q_hat = self._quantise(query)
        estimate = self.products(a).astype(np.float32) * (np.float32(step) * self.scale)
        q_error = float(np.linalg.norm(np.asarray(query, dtype=np.float64) - q_hat))
        return estimate, q_error, float(np.linalg.norm(q_hat))


def _scales(peak: np.ndarray) -> np.ndarray:
    return np.where(peak > 0, peak / B_LIMIT, 1.0).astype(np.float32)


def build(vectors: np.ndarray) -> Int8Scan | None:
    """The scan of ``vectors``, or ``None`` where ONNX Runtime is missing or its integer product
    is not exact on this machine (the caller then scans in float32)."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    vectors = np.asarray(vectors, dtype=np.float32)
    scale = _scales(np.abs(vectors).max(axis=1))
    codes = np.empty(vectors.shape, dtype=np.int8)
    for start in range(0, len(vectors), _BLOCK):
        block = slice(start, start + _BLOCK)
        codes[block] = np.clip(np.rint(vectors[block] / scale[block, None]), -B_LIMIT, B_LIMIT)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # the server runs one question per thread
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        session = ort.InferenceSession(
            matmul_integer_model(codes.T), options, providers=["CPUExecutionProvider"]
        )
    except Exception as e:  # an ONNX Runtime without the operator, or out of memory
        log.warning("8-bit dense scan not available (%s); scanning in float32", e)
        return None
    scan = Int8Scan(vectors, codes, scale, session)
    if not _exact(scan, codes):
        log.warning("8-bit dense scan: ONNX Runtime's integer product differs here; scanning in float32")
        return None
    return scan


def _exact(scan: Int8Scan, codes: np.ndarray) -> bool:
    """The session's products equal numpy's for extreme questions, on the rows where 16-bit
    saturation would show first (largest adjacent pairs) and on a sample of the others."""
    k = codes.shape[1]
    even = k - k % 2
    pair_peak = np.zeros(len(codes), dtype=np.int16)  # each row's largest |b_2j| + |b_2j+1|
    for start in range(0, len(codes), _BLOCK):
        block = codes[start : start + _BLOCK].astype(np.int16)
        if even:
            pair_peak[start : start + _BLOCK] = (np.abs(block[:, :even:2]) + np.abs(block[:, 1:even:2])).max(
                axis=1
            )
    worst = np.argsort(-pair_peak, kind="stable")[:64]
    sample = np.random.default_rng(0).choice(len(codes), size=min(len(codes), 448), replace=False)
    rows = np.union1d(worst, sample)
    wide = codes[rows].astype(np.int64)
    probes: list[np.ndarray] = [
        np.full(k, 255, np.uint8),
        np.full(k, 1, np.uint8),
        np.where(np.arange(k) % 2 == 0, 255, 1).astype(np.uint8),
        np.asarray(np.random.default_rng(1).integers(1, 256, k), dtype=np.uint8),
    ]
    for a in probes:
        got = scan.products(a[None, :])[rows]
        want = wide @ (a.astype(np.int64) - A_ZERO)
        if not np.array_equal(got, want):
            return False
    return True
