"""Bytes of a corpus file to text: byte order mark, strict UTF-8, then charset-normalizer's best guess."""

from __future__ import annotations

import codecs
from pathlib import Path

from lotdata.errors import InputError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_bytes(data: bytes, path: str) -> str:
    """Decode a file's bytes: BOM first, then strict UTF-8, then charset-normalizer's best guess."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as exc:
                message = f"cannot decode the file as {encoding} despite its byte order mark ({exc.reason})"
                raise InputError(message, path=path) from exc
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise InputError("cannot detect the text encoding (not UTF-8, GBK/GB18030, UTF-16, ...)", path=path)
    encoding = best.encoding
    # GBK text is also valid GB18030 (a superset): decoding with the superset never loses characters
    if encoding.replace("_", "").lower() in {"gbk", "gb2312", "cp936"}:
        encoding = "gb18030"
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise InputError(f"cannot decode the file (guessed {encoding}: {exc})", path=path) from exc


def unify_line_ends(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(path: Path) -> str:
    """A whole file decoded (see :func:`decode_bytes`), line ends made "\\n"; unreadable: InputError naming it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror or exc})", path=str(path)) from exc
    return unify_line_ends(decode_bytes(data, str(path)))


def first_line(path: Path, limit: int = 1 << 16) -> str:
    """The first non-blank line of a file (stripped), decoded from its first `limit` bytes."""
    with open(path, "rb") as handle:
        head = handle.read(limit)
    try:
        text = decode_bytes(head, str(path))
    except InputError:
        text = head.decode("utf-8", errors="ignore")  # a cut multibyte character at the limit
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""
