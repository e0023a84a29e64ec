"""Bytes of a corpus file to text: byte order mark, strict UTF-8, then charset-normalizer's best guess."""

from __future__ import annotations

import codecs
import re
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
    if damaged_utf8(data):
        # UTF-8 with a few invalid bytes: each kept as a lone surrogate (U+DC80..U+DCFF) so the reader puts the
        # records holding one in the quarantine (`invalid_bytes`) instead of guessing a codec for the whole file
        return data.decode("utf-8", errors="surrogateescape")
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


_INVALID = re.compile("[\udc80-\udcff]")
_MULTIBYTE = re.compile("[^\x00-\x7f\udc80-\udcff]")
_STRAY_BOMS = (b"\xff\xfe", b"\xfe\xff")


def damaged_utf8(data: bytes) -> bool:
    """Whether bytes that are not valid UTF-8 are UTF-8 text with a few invalid bytes rather than a file in another
    encoding: more well-formed multi-byte UTF-8 characters than invalid bytes (a GBK, Big5 or Latin-1 file has
    far more invalid bytes than accidental UTF-8 sequences), or a byte order mark inside the text (FF FE / FE FF,
    bytes of another file spliced in; no legacy-encoded story holds "ÿþ")."""
    if b"\x00" in data:  # binary, or UTF-16/32 without a byte order mark: not damaged UTF-8
        return False
    text = data.decode("utf-8", errors="surrogateescape")
    invalid = len(_INVALID.findall(text))
    valid = len(_MULTIBYTE.findall(text))
    return invalid <= valid or any(bom in data[1:] for bom in _STRAY_BOMS)


def invalid_bytes(text: str) -> str | None:
    """The reason a decoded record holds bytes that are not UTF-8 (see :func:`decode_bytes`), or None."""
    bad = [f"0x{ord(c) - 0xDC00:02x}" for c in _INVALID.findall(text)]
    if not bad:
        return None
    shown = " ".join(bad[:8]) + (" ..." if len(bad) > 8 else "")
    return f"invalid UTF-8 bytes ({shown}) in a UTF-8 file: not stored as guessed characters"


def printable(text: str) -> str:
    """`text` with the invalid bytes kept by :func:`decode_bytes` written as \\xNN (storable as UTF-8)."""
    if not _INVALID.search(text):
        return text
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="backslashreplace")


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
