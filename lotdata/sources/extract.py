"""Main-text extraction from HTML pages: decode the bytes, find the title and the story text.

One extractor serves the crawler (raw pages it kept), a folder of saved ``.html`` files and WARC
files (warcio). A page that yields no story becomes a quarantine row with the reason; the rest of
the batch goes on.

Encoding, in this order (Chinese story sites often declare the wrong charset, or none):

1. the recipe's ``encoding`` (a user who knows better), a byte-order mark, the HTTP
   ``Content-Type`` charset, a ``<meta charset>`` / ``<meta http-equiv>`` declaration, then the
   bytes themselves (valid UTF-8, else charset-normalizer);
2. a declaration is believed only if the bytes decode strictly with it, and a declared legacy
   charset (GBK, Big5, ...) loses to UTF-8 when the bytes are valid UTF-8 with multi-byte
   sequences (legacy CJK text is practically never valid UTF-8, while UTF-8 pages mislabelled
   "gb2312" are common);
3. GB2312 and GBK are read as their superset GB18030, Big5 as Big5-HKSCS.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from lotdata.errors import LotdataError, must_exist, require
from lotdata.sources.story import make_story_row
from lotdata.text.langid import language_problem

DEFAULT_MAX_BYTES = 2_000_000
RAW_LIMIT = 500
BOILERPLATE_SHARE = 0.3  # a line on 30% of a site's pages or more is boilerplate ...
BOILERPLATE_MIN_PAGES = 5  # ... when it is on 5 pages at least
BOILERPLATE_MAX_CHARS = 100

_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "cp936": "gb18030",
    "gb18030": "gb18030",
    "big5": "big5hkscs",
    "big5-hkscs": "big5hkscs",
    "cp950": "big5hkscs",
    "utf8": "utf-8",
    "utf-8": "utf-8",
    "us-ascii": "utf-8",
    "ascii": "utf-8",
}
_HEADER_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.I)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-:.]+)""", re.I)
_BLOCK_TAGS = {
    "p",
    "div",
    "br",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "section",
    "article",
    "blockquote",
    "pre",
}
_DROP_TAGS = ("script", "style", "noscript", "iframe", "template")


class PageError(ValueError):
    """A page that cannot become a story; the message is the quarantine reason."""


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str  # Python codec name used
    declared: str | None  # what the page said (header or meta), if anything
    how: str  # recipe | header | meta | bom | bytes | utf-8 (declaration overruled)


@dataclass(frozen=True)
class Extracted:
    title: str | None
    text: str
    rule: str  # css:<selector> | trafilatura | trafilatura-recall


def _codec(name: str | bytes | None) -> str | None:
    if not name:
        return None
    if isinstance(name, bytes):
        name = name.decode("ascii", "ignore")
    name = name.strip().lower()
    import codecs

    name = _SUPERSETS.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _strict(body: bytes, codec: str) -> str | None:
    try:
        return body.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None


def _is_multibyte_utf8(body: bytes) -> bool:
    if body.isascii():
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def looks_binary(body: bytes) -> bool:
    """NUL bytes or many control bytes in the first 8 KiB: an image, an archive, not a page."""
    head = body[:8192]
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 9 or 13 < b < 32)
    return bool(head) and controls / len(head) > 0.05


def decode_html(body: bytes, content_type: str | None = None, encoding: str | None = None) -> Decoded:
    """Decode page bytes; see the module docstring for the order. Raises PageError for binary bytes."""
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
        if body.startswith(bom) and not encoding:  # a BOM outranks any declaration (WHATWG)
            return Decoded(body.decode(codec, "replace"), codec, None, "bom")
    if looks_binary(body):
        raise PageError("binary content, not a text page")
    header = _HEADER_CHARSET.search(content_type.encode("latin-1", "ignore")) if content_type else None
    meta = _META_CHARSET.search(body[:4096])
    declared_by = [
        ("recipe", encoding),
        ("header", header.group(1) if header else None),
        ("meta", meta.group(1) if meta else None),
    ]
    multibyte_utf8 = _is_multibyte_utf8(body)
    for how, name in declared_by:
        codec = _codec(name)
        if codec is None:
            continue
        if how != "recipe" and codec != "utf-8" and multibyte_utf8:
            return Decoded(body.decode("utf-8"), "utf-8", _raw_name(name), "utf-8")
        text = _strict(body, codec)
        if text is not None:
            return Decoded(text, codec, _raw_name(name), how)
    declared = next((_raw_name(n) for _, n in declared_by if n), None)
    if multibyte_utf8 or body.isascii():
        return Decoded(body.decode("utf-8"), "utf-8", declared, "bytes")
    from charset_normalizer import from_bytes

    best = from_bytes(body[:200_000]).best()
    if best is None:
        raise PageError("undecodable bytes (no charset fits)")
    codec = _codec(best.encoding) or best.encoding
    return Decoded(body.decode(codec, "replace"), codec, declared, "bytes")


def _raw_name(name: str | bytes | None) -> str | None:
    if isinstance(name, bytes):
        return name.decode("ascii", "ignore")
    return name


def _block_text(element: Any) -> str:
    """Text of an element with a line break after every block element (and at <br>)."""
    for dropped in element.xpath(".//" + " | .//".join(_DROP_TAGS)):
        dropped.drop_tree()
    for node in element.iter():
        if isinstance(node.tag, str) and node.tag.lower() in _BLOCK_TAGS:
            node.tail = "\n" + (node.tail or "")
    return element.text_content()


def _clean_lines(text: str) -> str:
    lines = (line.strip() for line in text.replace("\r", "\n").split("\n"))
    return "\n".join(line for line in lines if line)


def _parse(html: str):
    lxml_html = require("lxml.html", "sources")
    try:
        root = lxml_html.document_fromstring(html)
    except Exception as exc:  # lxml raises ParserError / ValueError on hopeless input
        raise PageError(f"unparsable HTML ({exc.__class__.__name__}: {exc})") from None
    return root


def _select(root: Any, selector: str) -> list[Any]:
    require("cssselect", "sources")
    try:
        return root.cssselect(selector)
    except Exception as exc:  # cssselect.SelectorError
        raise ValueError(f"bad CSS selector {selector!r}: {exc}") from None


def extract_text(
    html: str, *, url: str | None = None, title_selector: str | None = None, content_selector: str | None = None
) -> Extracted:
    """Title and main text of a page: the recipe's CSS selectors, else trafilatura's main-text
    extraction. Raises PageError when the page holds no text."""
    if not html.strip():
        raise PageError("empty page")
    title = None
    if title_selector or content_selector:
        root = _parse(html)
        if title_selector:
            found = _select(root, title_selector)
            title = _clean_lines(" ".join(el.text_content() for el in found)) or None
    if content_selector:
        found = _select(root, content_selector)
        if not found:
            raise PageError(f"content selector {content_selector!r} matched nothing")
        text = _clean_lines("\n".join(_block_text(el) for el in found))
        rule = f"css:{content_selector}"
    else:
        text, found_title, rule = _trafilatura(html, url)
        title = title or found_title
        text = _after_title_line(text, title)
    if not text.strip():
        raise PageError("no main text found")
    return Extracted(title=title, text=text, rule=rule)


def _after_title_line(text: str, title: str | None) -> str:
    """On short pages trafilatura keeps navigation lines above the <h1>: the story starts after the
    title line when the title is one of the first lines."""
    if not title:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines[:5]):
        if line.strip() == title.strip() and i + 1 < len(lines):
            return "\n".join(lines[i + 1 :])
    return text


def _trafilatura(html: str, url: str | None) -> tuple[str, str | None, str]:
    trafilatura = require("trafilatura", "sources")
    for rule, recall in (("trafilatura", False), ("trafilatura-recall", True)):
        try:
            doc = trafilatura.bare_extraction(
                html, url=url, with_metadata=True, favor_recall=recall, include_comments=False, include_tables=False
            )
        except Exception as exc:  # trafilatura raises assorted errors on broken trees
            raise PageError(f"extraction failed ({exc.__class__.__name__})") from None
        if doc is not None and (doc.text or "").strip():
            return _clean_lines(doc.text), (doc.title or None), rule
    raise PageError("no main text found")


# ---------------------------------------------------------------------------------------------
# pages -> stories rows


@dataclass
class Page:
    """A fetched or saved page, with the provenance a story row keeps."""

    url: str
    body: bytes
    content_type: str | None = None
    status: int | None = None
    fetched_at: str | None = None
    sha256: str | None = None
    error: str | None = None  # set when the page could not even be read (a broken WARC, say)


@dataclass(frozen=True)
class ExtractOptions:
    source: str
    license: str | None = None
    title_selector: str | None = None
    content_selector: str | None = None
    encoding: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    lang: str | None = None
    drop_repeated_lines: bool = True  # boilerplate lines shared by many pages of the batch

    def __post_init__(self) -> None:  # checked before any page is read: -1 would make every page "too large"
        if isinstance(self.max_bytes, bool) or not isinstance(self.max_bytes, int) or self.max_bytes <= 0:
            raise LotdataError(f"max_bytes must be an integer > 0, not {self.max_bytes!r}")
        if self.lang not in (None, "zh", "en"):
            raise LotdataError(f"lang must be zh or en, not {self.lang!r}")
        if self.encoding is not None:
            import codecs

            try:
                codecs.lookup(self.encoding)
            except LookupError:
                raise LotdataError(f"unknown encoding {self.encoding!r}") from None


def page_lines(html: str) -> set[str]:
    """The short lines of a whole page's visible text (for finding a site's boilerplate)."""
    try:
        root = _parse(html)
    except PageError:
        return set()
    body = root.find("body")
    body = body if body is not None else root
    # text nodes one by one (extractors often break a line at a link) and block-level lines
    pieces = [piece for node in body.iter() for piece in (node.text, node.tail) if isinstance(node.tag, str)]
    pieces += _block_text(body).split("\n")
    return {line for line in (p.strip() for p in pieces if p) if line and len(line) <= BOILERPLATE_MAX_CHARS}


def extract_page(page: Page, options: ExtractOptions) -> tuple[Extracted, Decoded]:
    """Decode and extract one page; raises PageError with the quarantine reason."""
    if page.error:
        raise PageError(page.error)
    if not page.body:
        raise PageError("empty file")
    if len(page.body) > options.max_bytes:
        raise PageError(f"larger than max_bytes ({len(page.body)} > {options.max_bytes})")
    media = media_type(page.content_type)
    if media is not None and media.split("/")[0] in ("image", "audio", "video"):
        raise PageError(f"not an HTML or plain-text page (Content-Type {page.content_type})")
    decoded = decode_html(page.body, page.content_type, options.encoding)
    if media == "text/plain":  # a story served as plain text is its own main text
        text = _clean_lines(decoded.text)
        if not text.strip():
            raise PageError("empty text/plain page")
        return Extracted(title=None, text=text, rule="text/plain"), decoded
    found = extract_text(
        decoded.text, url=page.url, title_selector=options.title_selector, content_selector=options.content_selector
    )
    return found, decoded


def media_type(content_type: str | None) -> str | None:
    """`text/plain` of `text/plain; charset=utf-8`; None when no (or an empty) Content-Type was sent."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media or None


def story_row(page: Page, found: Extracted, decoded: Decoded, options: ExtractOptions) -> dict[str, Any]:
    """The stories row of an extracted page, with its provenance; PageError when no text is left."""
    import hashlib

    row = make_story_row(
        found.text,
        source=options.source,
        title=found.title,
        lang=options.lang,
        url=page.url,
        license=options.license,
        fetched_at=page.fetched_at,
    )
    if not row["text"]:
        raise PageError("no main text found")
    problem = language_problem(found.text, row["lang"])  # as `read`: the identifier, on the text as extracted
    if problem:
        raise PageError(problem)
    row.update(
        http_status=page.status,
        content_sha256=page.sha256 or hashlib.sha256(page.body).hexdigest(),
        extraction=f"{found.rule};{decoded.encoding}",
    )
    return row


def page_to_story(page: Page, options: ExtractOptions) -> dict[str, Any]:
    """One stories row from one page; raises PageError with the quarantine reason."""
    found, decoded = extract_page(page, options)
    return story_row(page, found, decoded, options)


def repeated_lines(
    pages_lines: list[set[str]], share: float = BOILERPLATE_SHARE, min_pages: int = BOILERPLATE_MIN_PAGES
) -> set[str]:
    """Lines found on at least `share` of a site's pages (and on `min_pages` of them): navigation,
    pagers, ads and footers, whether or not the extractor let them through on a given page."""
    if len(pages_lines) < min_pages:
        return set()
    counts: dict[str, int] = {}
    for lines in pages_lines:
        for line in lines:
            counts[line] = counts.get(line, 0) + 1
    needed = max(min_pages, share * len(pages_lines))
    return {line for line, n in counts.items() if n >= needed}


def quarantine_row(url: str, reason: str, raw: bytes | str | None = None) -> dict[str, Any]:
    if isinstance(raw, bytes):
        raw = raw[:RAW_LIMIT].decode("utf-8", "replace")
    return {"path": url, "row": None, "reason": reason, "raw": (raw or "")[:RAW_LIMIT] or None}


def extract_pages(pages: Iterable[Page], options: ExtractOptions) -> tuple[list[dict], list[dict]]:
    """Stories and quarantine rows from the pages of one site (or one folder).

    Lines repeated on many of the pages (boilerplate the extractor let through) are dropped, and a
    story seen twice (same story_id) is kept once."""
    stories: list[dict] = []
    quarantine: list[dict] = []
    extracted: list[tuple[Page, Extracted, Decoded]] = []
    lines_per_page: list[set[str]] = []
    for page in pages:
        try:
            found, decoded = extract_page(page, options)
        except PageError as exc:
            quarantine.append(quarantine_row(page.url, str(exc), page.body))
            continue
        extracted.append((page, found, decoded))
        if options.drop_repeated_lines:
            lines_per_page.append(page_lines(decoded.text))
    boilerplate = repeated_lines(lines_per_page) if options.drop_repeated_lines else set()
    seen: set[str] = set()
    for page, found, decoded in extracted:
        if boilerplate:
            lines = [line for line in found.text.split("\n") if line.strip() not in boilerplate]
            if len(lines) != found.text.count("\n") + 1:
                found = Extracted(found.title, "\n".join(lines), found.rule + "+boilerplate")
        try:
            row = story_row(page, found, decoded, options)
        except PageError as exc:
            quarantine.append(quarantine_row(page.url, str(exc), page.body))
            continue
        if row["story_id"] in seen:
            quarantine.append(quarantine_row(page.url, f"same text as story {row['story_id']}", row["text"]))
            continue
        seen.add(row["story_id"])
        stories.append(row)
    return stories, quarantine


# ---------------------------------------------------------------------------------------------
# saved pages: a folder of .html files, WARC files


HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz")
WARC_SUFFIXES = (".warc", ".warc.gz")


def _read_limited(path: Path, max_bytes: int) -> bytes:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as handle:
        return handle.read(max_bytes + 1)


def saved_pages(paths: Iterable[str | Path], max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[Page]:
    """Pages from .html files, folders of them (recursively, sorted) and WARC files.

    A file over `max_bytes` is read only up to the limit (so `page_to_story` rejects it cheaply)."""
    for given in paths:
        path = must_exist(given, "input")
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            name = file.name.lower()
            if name.endswith(WARC_SUFFIXES):
                yield from warc_pages(file, max_bytes)
            elif name.endswith(HTML_SUFFIXES) or not path.is_dir():
                yield Page(url=str(file), body=_read_limited(file, max_bytes))


def warc_pages(path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[Page]:
    """HTML responses of a WARC file (gzipped or not), with their URL, status and date."""
    warcio = require("warcio.archiveiterator", "sources")
    yielded = 0
    try:
        with open(path, "rb") as stream:
            for record in warcio.ArchiveIterator(stream):
                if record.rec_type != "response" or record.http_headers is None:
                    continue
                content_type = record.http_headers.get_header("Content-Type") or ""
                if "html" not in content_type.lower():
                    continue
                status = int(record.http_headers.get_statuscode() or 0) or None
                yielded += 1
                yield Page(
                    url=record.rec_headers.get_header("WARC-Target-URI")
                    or f"{path}#{record.rec_headers.get_header('WARC-Record-ID')}",
                    body=record.content_stream().read(max_bytes + 1),
                    content_type=content_type,
                    status=status,
                    fetched_at=record.rec_headers.get_header("WARC-Date"),
                )
    except Exception as exc:  # warcio raises ArchiveLoadFailed and friends on a broken file
        yield Page(url=str(path), body=b"", error=f"not a readable WARC file ({exc.__class__.__name__}: {exc})"[:300])
        return
    if not yielded:
        yield Page(url=str(path), body=b"", error="no HTML response records in this WARC file")
