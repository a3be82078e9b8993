"""``check_ooxml``: an OOXML package (DOCX is a zip) checked before a parser sees it.

Every entry is decompressed as a stream with a cap — the sizes its headers declare are compared,
never trusted — so a file that inflates to gigabytes is refused after reading ``max_unpacked_bytes``
of it, whatever it claims. Also refused: more than ``max_entries`` entries, an archive that
unpacks more than ``max_ratio`` times its size (once over ``ratio_floor_bytes``), and XML parts
that define a document type or entities (OOXML never does; entity expansion and external entities
are the classic XML attacks). Archives inside the package (embedded objects) are never opened, so
nesting depth is one. python-docx then reads the same parts, which are known to be small.
"""

from __future__ import annotations

import io
import zipfile

from devkb.sources.formats.limits import MB, ConversionLimits
from devkb.sources.formats.unreadable import Unreadable

CHUNK = 1 << 16
_FORBIDDEN = (b"<!DOCTYPE", b"<!ENTITY")
_OVERLAP = max(len(f) for f in _FORBIDDEN)


def check_ooxml(data: bytes, limits: ConversionLimits, kind: str = "DOCX") -> None:
    """Raises ``Unreadable`` when ``data`` is not a zip or breaks a limit."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as e:
        raise Unreadable(f"not a valid {kind} file (not a zip archive: {e})") from e
    with archive:
        entries = archive.infolist()
        if len(entries) > limits.max_entries:
            raise Unreadable(f"{len(entries)} entries in the {kind} archive (limit {limits.max_entries})")
        declared = sum(e.file_size for e in entries)
        if declared > limits.max_unpacked_bytes:
            raise Unreadable(_too_large(kind, declared, limits, "declares"))
        total = 0
        for entry in entries:
            if entry.is_dir():
                continue
            xml = entry.filename.endswith((".xml", ".rels"))
            total = _read_entry(archive, entry, total, limits, kind, xml)
        if total > limits.ratio_floor_bytes and total > limits.max_ratio * max(len(data), 1):
            raise Unreadable(
                f"the {kind} archive unpacks to {total / MB:.1f} MB, {total / max(len(data), 1):.0f} times "
                f"its size (limit {limits.max_ratio}×): a compression bomb?"
            )


def _read_entry(
    archive: zipfile.ZipFile,
    entry: zipfile.ZipInfo,
    total: int,
    limits: ConversionLimits,
    kind: str,
    xml: bool,
) -> int:
    tail = b""
    try:
        with archive.open(entry) as stream:
            while chunk := stream.read(CHUNK):
                total += len(chunk)
                if total > limits.max_unpacked_bytes:
                    raise Unreadable(_too_large(kind, total, limits, "unpacks to more than"))
                if xml:
                    window = tail + chunk
                    for marker in _FORBIDDEN:
                        if marker in window:
                            raise Unreadable(
                                f"{entry.filename} in the {kind} defines a document type or entities "
                                f"({marker.decode()}): not allowed (entity expansion, external entities)"
                            )
                    tail = window[-_OVERLAP:]
    except Unreadable:
        raise
    except (zipfile.BadZipFile, NotImplementedError, EOFError, OSError, ValueError) as e:
        raise Unreadable(f"corrupt {kind} archive ({entry.filename}: {type(e).__name__}: {e})") from e
    except RuntimeError as e:  # an encrypted entry
        raise Unreadable(f"encrypted {kind} archive ({entry.filename}: {e})") from e
    return total


def _too_large(kind: str, size: int, limits: ConversionLimits, verb: str) -> str:
    return (
        f"too large after decompression: the {kind} archive {verb} {size / MB:.1f} MB "
        f"(limit {limits.max_unpacked_bytes / MB:.1f} MB, conversion_max_unpacked_bytes)"
    )
