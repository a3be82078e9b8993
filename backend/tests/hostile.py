"""A corpus of hostile files, built here rather than stored: compression bombs (flat and nested,
with honest and lying headers), XML entity expansion and deep nesting in DOCX, PDFs whose objects
loop or whose page tree is huge, truncated and polyglot files, images under text names, many
tiny files. Each builder returns ``(file name, bytes)``; the tests say what each must answer."""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Iterator

MiB = 1024 * 1024

_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    b'<Default Extension="xml" ContentType="application/xml"/>'
    b'<Override PartName="/word/document.xml" '
    b'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    b"</Types>"
)
_RELS = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    b'<Relationship Id="rId1" '
    b'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    b'Target="word/document.xml"/></Relationships>'
)
_W = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_HEAD = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ' + _W + b"><w:body>"
_TAIL = b"</w:body></w:document>"


def paragraph(text: str) -> bytes:
    return f"<w:p><w:r><w:t>{text}</w:t></w:r></w:p>".encode()


def docx(body: Iterator[bytes] | bytes, head: bytes = _HEAD, extra: dict[str, bytes] | None = None) -> bytes:
    """A minimal DOCX whose ``word/document.xml`` is ``head`` + ``body`` (streamed) + the tail."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(head)
            for part in [body] if isinstance(body, bytes) else body:
                f.write(part)
            f.write(_TAIL)
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return out.getvalue()


def ordinary_docx() -> tuple[str, bytes]:
    return "ordinary.docx", docx(
        paragraph("Restarting the ledger: stop the writer, then run the ledger check.")
    )


def docx_paragraph_bomb(unpacked: int = 200 * MiB) -> tuple[str, bytes]:
    """Ordinary paragraphs, many of them (the 771 KB file that inflated to 500 MiB)."""
    p = paragraph("The quick brown fox jumps over the lazy dog. " * 4)
    block = p * (MiB // len(p))
    return "paragraphs.docx", docx(block for _ in range(unpacked // len(block) + 1))


def docx_one_run_bomb(unpacked: int = 200 * MiB) -> tuple[str, bytes]:
    """One text run of ``unpacked`` bytes (the 3 MB file that inflated to 3 GiB)."""
    chunk = b"A" * MiB
    run = [b"<w:p><w:r><w:t>", *(chunk for _ in range(unpacked // MiB)), b"</w:t></w:r></w:p>"]
    return "one-run.docx", docx(iter(run))


def docx_lying_sizes(unpacked: int = 200 * MiB) -> tuple[str, bytes]:
    """A paragraph bomb whose local and central headers declare ``document.xml`` to be 1 KB."""
    p = paragraph("The quick brown fox jumps over the lazy dog. " * 4)
    block = p * (MiB // len(p))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        info = zipfile.ZipInfo("word/document.xml")
        info.compress_type = zipfile.ZIP_DEFLATED
        with z.open(info, "w") as f:
            f.write(_HEAD)
            for _ in range(unpacked // len(block) + 1):
                f.write(block)
            f.write(_TAIL)
    buf = bytearray(out.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(buf))) as z:
        info = z.getinfo("word/document.xml")
    struct.pack_into("<I", buf, info.header_offset + 22, 1024)  # the local header's size
    central = bytes(buf).index(b"PK\x01\x02", bytes(buf).index(b"PK\x01\x02"))
    while buf[central + 46 : central + 46 + 17] != b"word/document.xml":
        central = bytes(buf).index(b"PK\x01\x02", central + 4)
    struct.pack_into("<I", buf, central + 24, 1024)  # the central directory's size
    return "lying.docx", bytes(buf)


def docx_billion_laughs() -> tuple[str, bytes]:
    entities = [b'<!ENTITY lol0 "lol">']
    for i in range(1, 10):
        entities.append(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">'.encode())
    head = (
        b'<?xml version="1.0"?>\n<!DOCTYPE w:document [' + b"".join(entities) + b"]>\n"
        b"<w:document " + _W + b"><w:body>"
    )
    return "laughs.docx", docx(paragraph("&lol9;"), head=head)


def docx_external_entity() -> tuple[str, bytes]:
    head = (
        b'<?xml version="1.0"?>\n<!DOCTYPE w:document [<!ENTITY a "x"><!ENTITY b "&a;&a;&a;">'
        b'<!ENTITY ext SYSTEM "file:///etc/passwd">]>\n<w:document ' + _W + b"><w:body>"
    )
    return "external.docx", docx(paragraph("&b; &ext;"), head=head)


def docx_deep_nesting(depth: int = 100_000) -> tuple[str, bytes]:
    return "deep.docx", docx(iter([b"<w:p>" * depth, b"</w:p>" * depth]))


def docx_many_entries(entries: int = 20_000) -> tuple[str, bytes]:
    name, data = ordinary_docx()
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_STORED) as z:
        for i in range(entries):
            z.writestr(f"customXml/item{i}.bin", b"")
    return "entries.docx", out.getvalue()


def nested_zip_bomb(levels: int = 2, width: int = 10) -> tuple[str, bytes]:
    """42.zip's shape: zips of zips, each level ``width`` copies of the one below, inside a DOCX."""
    leaf = io.BytesIO()
    with zipfile.ZipFile(leaf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("zeros.bin", b"\0" * (20 * MiB))
    inner = leaf.getvalue()
    for _ in range(levels):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
            for i in range(width):
                z.writestr(f"{i}.zip", inner)
        inner = out.getvalue()
    name, data = ordinary_docx()
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a", zipfile.ZIP_STORED) as z:
        z.writestr("word/embeddings/package.zip", inner)
    return "nested.docx", out.getvalue()


def encrypted_office() -> tuple[str, bytes]:
    """The start of an OLE compound document: what Word writes for a password-protected file."""
    return "protected.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 4096


def _pdf(objects: list[bytes], root: int = 1) -> bytes:
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root {root} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def pdf_page_tree_loop() -> tuple[str, bytes]:
    """A page tree whose node lists itself as its own kid."""
    return "loop.pdf", _pdf(
        [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>"]
    )


def pdf_huge_page_tree(count: int = 10_000_000) -> tuple[str, bytes]:
    """A page tree that declares ten million pages (and holds a few)."""
    return "pages.pdf", _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            f"<< /Type /Pages /Kids [3 0 R 3 0 R 3 0 R] /Count {count} >>".encode(),
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        ]
    )


def pdf_many_pages(pages: int = 6_000) -> tuple[str, bytes]:
    """A page tree with more real pages than the limit (each a shared empty page)."""
    kids = b" ".join(b"3 0 R" for _ in range(pages))
    return "many-pages.pdf", _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [" + kids + b"] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        ]
    )


def pdf_deflate_bomb(unpacked: int = 256 * MiB) -> tuple[str, bytes]:
    comp = zlib.compressobj(9)
    chunk = b"0 0 m 1 1 l S\n" * (MiB // 14)
    stream = b"".join(comp.compress(chunk) for _ in range(unpacked // len(chunk))) + comp.flush()
    return "deflate.pdf", _pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            f"<< /Length {len(stream)} /Filter /FlateDecode >>\nstream\n".encode() + stream + b"\nendstream",
        ]
    )


def truncated_pdf(real: bytes) -> tuple[str, bytes]:
    return "truncated.pdf", real[: len(real) // 3]


def truncated_docx() -> tuple[str, bytes]:
    _, data = ordinary_docx()
    return "truncated.docx", data[: len(data) // 2]


def png_bytes() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(b"\0\0"))
        + chunk(b"IEND", b"")
    )


def png_named_md() -> tuple[str, bytes]:
    return "notes.md", png_bytes()


def polyglot_pdf_zip() -> tuple[str, bytes]:
    """A zip (a DOCX) with a PDF header in front: what is it?"""
    _, data = ordinary_docx()
    return "polyglot.pdf", b"%PDF-1.7\n%" + data


def html_deep_nesting(depth: int = 200_000) -> tuple[str, bytes]:
    return "deep.html", b"<html><body>" + b"<div>" * depth + b"deep" + b"</div>" * depth + b"</body></html>"


def quadratic_blowup_docx(size: int = 40 * MiB) -> tuple[str, bytes]:
    """One entity defined as a long string, referenced many times (no nesting: the 'quadratic'
    variant that slips past nesting limits)."""
    head = (
        b'<?xml version="1.0"?>\n<!DOCTYPE w:document [<!ENTITY a "' + b"a" * 50_000 + b'">]>\n'
        b"<w:document " + _W + b"><w:body>"
    )
    refs = b"&a;" * (size // 50_000)
    return "quadratic.docx", docx(paragraph(refs.decode()), head=head)


def html_slow(paragraphs: int = 20_000) -> tuple[str, bytes]:
    """Ordinary-looking paragraphs with a link each: trafilatura's time grows faster than the page
    (1.4 MB: 23 s; 7 MB: over 100 s on this project's CI machine) — only a time limit answers it."""
    body = b"".join(
        b'<p>Paragraph %d with <a href="/x%d">a link</a> and some words.</p>' % (i, i)
        for i in range(paragraphs)
    )
    return "links.html", b"<html><body><article>" + body + b"</article></body></html>"


# -- bombs of gigabytes, built in milliseconds ---------------------------------------------------
# A deflate stream flushed with Z_FULL_FLUSH after each block forgets its history, so every
# further copy of the same block compresses to the same bytes: the stream of n copies is the
# first block's bytes n times. The CRC-32 of n copies is combined, not computed over gigabytes.


def _gf2_times(mat: list[int], vec: int) -> int:
    out, i = 0, 0
    while vec:
        if vec & 1:
            out ^= mat[i]
        vec >>= 1
        i += 1
    return out


def _gf2_square(mat: list[int]) -> list[int]:
    return [_gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1: int, crc2: int, len2: int) -> int:
    """zlib's ``crc32_combine``: the CRC-32 of A+B from those of A and B and B's length."""
    if len2 <= 0:
        return crc1
    odd = [0xEDB88320] + [1 << n for n in range(31)]
    even = _gf2_square(odd)
    odd = _gf2_square(even)
    while True:
        even = _gf2_square(odd)
        if len2 & 1:
            crc1 = _gf2_times(even, crc1)
        len2 >>= 1
        if not len2:
            break
        odd = _gf2_square(even)
        if len2 & 1:
            crc1 = _gf2_times(odd, crc1)
        len2 >>= 1
        if not len2:
            break
    return crc1 ^ crc2


def repeated_deflate(head: bytes, block: bytes, copies: int, tail: bytes) -> tuple[bytes, int, int]:
    """(raw deflate of head + block × copies + tail, its CRC-32, its length)."""
    z = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    start = z.compress(head) + z.flush(zlib.Z_FULL_FLUSH)
    one = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    end = z.compress(tail) + z.flush()
    crc_block = zlib.crc32(block)
    crc = zlib.crc32(head)
    # CRC of block × copies by doubling
    rep_crc, rep_len, acc_crc, acc_len, n = crc_block, len(block), None, 0, copies
    while n:
        if n & 1:
            acc_crc = rep_crc if acc_crc is None else crc32_combine(acc_crc, rep_crc, rep_len)
            acc_len += rep_len
        rep_crc, rep_len = crc32_combine(rep_crc, rep_crc, rep_len), rep_len * 2
        n >>= 1
    if acc_crc is not None:
        crc = crc32_combine(crc, acc_crc, acc_len)
    crc = crc32_combine(crc, zlib.crc32(tail), len(tail))
    return start + one * copies + end, crc, len(head) + len(block) * copies + len(tail)


def zip_of(entries: list[tuple[str, bytes]], deflated: tuple[str, bytes, int, int] | None = None) -> bytes:
    """A zip of ``entries`` (stored) and one entry already deflated: (name, raw deflate, crc, size)."""
    out = bytearray()
    central = bytearray()
    items: list[tuple[str, bytes, int, int, int]] = [
        (name, data, zlib.crc32(data), len(data), 0) for name, data in entries
    ]
    if deflated:
        items.append((deflated[0], deflated[1], deflated[2], deflated[3], 8))
    for name, data, crc, size, method in items:
        fn = name.encode()
        offset = len(out)
        out += struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(data), size, len(fn), 0
        )
        out += fn + data
        central += struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            method,
            0,
            0x21,
            crc,
            len(data),
            size,
            len(fn),
            0,
            0,
            0,
            0,
            0,
            offset,
        )
        central += fn
    start = len(out)
    out += central
    out += struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(items), len(items), len(central), start, 0)
    return bytes(out)


def reported_docx_500mib_paragraphs() -> tuple[str, bytes]:
    """The reported 771 KB DOCX whose document.xml inflates to 500 MiB of ordinary paragraphs."""
    p = paragraph("The quick brown fox jumps over the lazy dog. " * 4)
    block = p * (MiB // len(p))
    raw, crc, size = repeated_deflate(_HEAD, block, 500 * MiB // len(block), _TAIL)
    parts = [("[Content_Types].xml", _CONTENT_TYPES), ("_rels/.rels", _RELS)]
    return "report-500mib.docx", zip_of(parts, ("word/document.xml", raw, crc, size))


def reported_docx_3gib_one_run() -> tuple[str, bytes]:
    """The reported 3 MB DOCX inflating to 3 GiB in one text run."""
    raw, crc, size = repeated_deflate(
        _HEAD + b"<w:p><w:r><w:t>", b"A" * MiB, 3 * 1024, b"</w:t></w:r></w:p>" + _TAIL
    )
    parts = [("[Content_Types].xml", _CONTENT_TYPES), ("_rels/.rels", _RELS)]
    return "report-3gib.docx", zip_of(parts, ("word/document.xml", raw, crc, size))


def reported_docx_entities() -> tuple[str, bytes]:
    """The reported DOCX with nested entity definitions and an external entity."""
    return docx_external_entity()
