"""``ConversionLimits``: the bounds every conversion runs under (settings ``conversion_*``,
docs/security.md). They hold before parsing (sizes, the type the bytes really are, an archive's
entries and their decompressed sizes, read with a cap rather than trusted from its headers) and
during it (pages, characters of text, and, in the worker process, memory and time)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

MB = 1_000_000


@dataclass(frozen=True)
class ConversionLimits:
    max_unpacked_bytes: int = 100 * MB  # an archive's (OOXML's) entries decompressed, all together
    max_ratio: int = 100  # decompressed / compressed size of an archive (when over 1 MB unpacked)
    ratio_floor_bytes: int = 1 * MB  # small archives may compress as well as they like
    max_entries: int = 10_000  # entries of an archive
    max_pages: int = 5_000  # pages of a PDF (declared and found)
    max_text_chars: int = 10_000_000  # text extracted from one file
    seconds: float = 60.0  # wall-clock time of one conversion in the worker
    memory_bytes: int = 1024 * 1024 * 1024  # address space of a worker process (RLIMIT_AS)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ConversionLimits:
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
