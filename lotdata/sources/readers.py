"""Readers of local story corpora into `stories` rows, with a quarantine for bad records.

One entry point, :func:`read_stories`, reads files of these formats (:data:`FORMATS`):

=============  =====================================================================  ==========
format         what a record is                                                       ``row`` is
=============  =====================================================================  ==========
``txt``        a blank-line-separated block; a short first line without sentence-    line where
               final punctuation (<= 20 chars) is the title                           the block
                                                                                      starts
``jsonl``      an object a line with ``text`` or ``story`` (``id``, ``title``        line number
               optional)
``csv``        a record of a csv with a ``text`` or ``story`` column                  record no.
``parquet``    a row of a Parquet file with the csv's columns                         record no.
``rocstories`` a ROCStories csv record (storyid, storytitle, sentence1..5)            record no.
``roc_lines``  a line ``["s1. s2. ..."]`` (Diffusion-LM's roc_valid.json)             line number
``storycloze`` a Story Cloze Test csv record: 4 context sentences + the RIGHT ending  record no.
``cmrc``       a CMRC 2017 / CFT document (``N ||| sentence`` lines closed by a       document
               query line); answer from ``X.answer`` or inline as a third field       number
=============  =====================================================================  ==========

Every story's ``url`` is ``f"{path}#{row}"``; for a member of a zip archive the path is
``f"{zip}!{member}"``. Records that cannot become a story go to the quarantine (path, row, reason,
raw record truncated to 500 characters) and reading goes on. Identical stories (same ``story_id``)
are kept once per call and counted in ``counts["duplicates"]``. A missing file, a directory, an
unknown format, an undecodable file or a file whose header lacks the format's columns raises
:class:`~lotdata.errors.InputError` naming the file. An empty result is not an error here.

For ``rocstories`` and ``storycloze`` the sentence boundaries are the source's own columns (the
Story Cloze Test has context sentences without final punctuation that a splitter would merge);
``join_sentences(sentences) == text`` still holds.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.sources.story import make_story_row
from lotdata.text import join_sentences, normalize_text
from lotdata.text.normalize import language_problem
from lotdata.text.sentences import paragraph_breaks

FORMATS = ("txt", "jsonl", "csv", "parquet", "rocstories", "storycloze", "cmrc", "roc_lines")

RAW_LIMIT = 500
TITLE_MAX_CHARS = 20
_SENTENCE_FINAL = set("。！？!?.…；;：:”’\"'」』）)")

# corpus names used as the default `source` of the known formats
_CORPUS_SOURCE = {"rocstories": "rocstories", "roc_lines": "rocstories", "storycloze": "storycloze"}
CMRC_SOURCE = "cmrc2017"
CFT_SOURCE = "cft"

STORYCLOZE_NO_ANSWER = "no AnswerRightEnding: cannot tell the right ending"


@dataclass
class ReadResult:
    stories: list[dict]
    quarantine: list[dict]
    counts: dict[str, int] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# records: what a format parser yields before it becomes a story row


@dataclass
class _Record:
    """One story candidate: either text (+ metadata) or the reason it was rejected."""

    row: int | None
    raw: str
    text: str | None = None
    title: str | None = None
    source_id: str | None = None
    sentences: list[str] | None = None  # the source's own sentence boundaries, if it has them
    lang: str | None = None  # a format-imposed language (cmrc), used when the caller gave none
    source: str | None = None  # a format-imposed source name (cmrc vs cft)
    path: str | None = None  # overrides the file path (zip members)
    reason: str | None = None


def _bad(row: int | None, reason: str, raw: str, path: str | None = None) -> _Record:
    return _Record(row=row, raw=raw, reason=reason, path=path)


# ---------------------------------------------------------------------------------------------
# decoding


def decode_bytes(data: bytes, path: str) -> str:
    """Decode a file's bytes: BOM first, then strict UTF-8, then charset-normalizer's best guess."""
    for bom, encoding in (
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
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


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file ({exc.strerror or exc})", path=str(path)) from exc
    return decode_bytes(data, str(path)).replace("\r\n", "\n").replace("\r", "\n")


def _first_line(path: Path, limit: int = 1 << 16) -> str:
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


# ---------------------------------------------------------------------------------------------
# format detection


def _sniff_csv_header(path: Path) -> str:
    header = next(csv.reader([_first_line(path)]), [])
    names = {h.strip().lower() for h in header}
    if "storyid" in names and "sentence1" in names:
        return "rocstories"
    if "inputsentence1" in names:
        return "storycloze"
    return "csv"


def detect_format(path: str | Path) -> str:
    """The format of `path` from its extension (and first line for .json/.jsonl/.csv)."""
    path = Path(path)
    _check_file(path)
    suffix = path.suffix.lower()
    if suffix == ".txt":
        return "txt"
    if suffix in (".jsonl", ".json"):
        first = _first_line(path)
        try:
            value = json.loads(first) if first else None
        except json.JSONDecodeError:
            value = None
        return "roc_lines" if isinstance(value, list) else "jsonl"
    if suffix == ".csv":
        return _sniff_csv_header(path)
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix in (".doc_query", ".human", ".auto", ".zip"):
        return "cmrc"
    raise InputError(
        f"cannot tell the format from the extension {suffix or '(none)'!r}; pass one of {', '.join(FORMATS)}",
        path=str(path),
    )


def _check_file(path: Path) -> None:
    must_exist(path, "input")
    if path.is_dir():
        raise InputError("is a directory, not a corpus file", path=str(path))


# ---------------------------------------------------------------------------------------------
# txt


def _has_sentence_final(line: str) -> bool:
    return any(ch in _SENTENCE_FINAL for ch in line)


def _parse_txt(path: Path) -> Iterator[_Record]:
    lines = _read_text(path).split("\n")
    block: list[str] = []
    start = 0
    for number, line in enumerate([*lines, ""], start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
            continue
        if not block:
            continue
        raw = "\n".join(block)
        title = None
        body = block
        first = block[0].strip()
        if len(block) > 1 and len(first) <= TITLE_MAX_CHARS and not _has_sentence_final(first):
            title, body = first, block[1:]
        yield _Record(row=start, raw=raw, text="\n".join(body), title=title)
        block = []


# ---------------------------------------------------------------------------------------------
# jsonl, csv, parquet: records with text/story, id, title


def _text_of(obj: dict[str, Any]) -> tuple[str | None, str | None]:
    """(text, reason if unusable) of a record with a `text` or `story` field."""
    key = "text" if "text" in obj else "story" if "story" in obj else None
    if key is None:
        return None, "no 'text' or 'story' field"
    value = obj[key]
    if not isinstance(value, str):
        return None, f"'{key}' is not a string ({type(value).__name__})"
    if not value.strip():
        return None, f"empty '{key}'"
    return value, None


def _opt_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value != value:  # NaN from pandas-written files
        return None
    value = str(value).strip()
    return value or None


def _record_from_obj(obj: dict[str, Any], row: int, raw: str) -> _Record:
    text, reason = _text_of(obj)
    if reason:
        return _bad(row, reason, raw)
    return _Record(row=row, raw=raw, text=text, title=_opt_str(obj.get("title")), source_id=_opt_str(obj.get("id")))


def _parse_jsonl(path: Path) -> Iterator[_Record]:
    for number, line in enumerate(_read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield _bad(number, f"invalid JSON: {exc.msg} (column {exc.colno})", line)
            continue
        if not isinstance(obj, dict):
            yield _bad(number, f"not a JSON object ({type(obj).__name__})", line)
            continue
        yield _record_from_obj(obj, number, line)


_CsvRow = tuple[int, "dict[str, str] | None", str, "str | None"]


def _csv_rows(path: Path) -> tuple[list[str], Iterator[_CsvRow]]:
    """Header and (record number, row, raw, reason) of a csv file; row is None when unparsable."""
    csv.field_size_limit(1 << 30)
    text = _read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InputError(f"unreadable csv header ({exc})", path=str(path)) from exc
    header = [h.strip() for h in header] if header else []

    def rows() -> Iterator[_CsvRow]:
        number = 0
        while True:
            try:
                values = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                number += 1
                yield number, None, "", f"unparsable csv record ({exc})"
                continue
            if not any(v.strip() for v in values):
                continue
            number += 1
            raw = ",".join(values)
            if len(values) != len(header):
                yield number, None, raw, f"{len(values)} fields, the header has {len(header)}"
                continue
            yield number, dict(zip(header, values)), raw, None

    return header, rows()


def _parse_csv(path: Path) -> Iterator[_Record]:
    header, rows = _csv_rows(path)
    if header and "text" not in header and "story" not in header:
        raise InputError(f"csv header has no 'text' or 'story' column (columns: {header})", path=str(path))
    for number, row, raw, reason in rows:
        if row is None:
            yield _bad(number, reason or "unparsable record", raw)
            continue
        yield _record_from_obj(row, number, raw)


def _parse_parquet(path: Path) -> Iterator[_Record]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
    if "text" not in table.column_names and "story" not in table.column_names:
        message = f"Parquet file has no 'text' or 'story' column (columns: {table.column_names})"
        raise InputError(message, path=str(path))
    keep = [c for c in ("id", "title", "text", "story") if c in table.column_names]
    for number, obj in enumerate(table.select(keep).to_pylist(), start=1):
        if obj.get("text") is None and obj.get("story") is not None:
            obj.pop("text", None)  # a null text column beside a filled story column
        yield _record_from_obj(obj, number, json.dumps(obj, ensure_ascii=False, default=str))


# ---------------------------------------------------------------------------------------------
# ROCStories and the Story Cloze Test


def _require_columns(header: list[str], needed: list[str], path: Path, what: str) -> None:
    missing = [c for c in needed if c not in header]
    if missing:
        raise InputError(f"not a {what} csv: missing columns {missing} (columns: {header})", path=str(path))


def _parse_rocstories(path: Path) -> Iterator[_Record]:
    header, rows = _csv_rows(path)
    lower = {h.lower(): h for h in header}
    needed = ["storyid", "storytitle"] + [f"sentence{i}" for i in range(1, 6)]
    if header:
        _require_columns(list(lower), needed, path, "ROCStories")
    for number, row, raw, reason in rows:
        if row is None:
            yield _bad(number, reason or "unparsable record", raw)
            continue
        sentences = [row[lower[f"sentence{i}"]].strip() for i in range(1, 6)]
        empty = [f"sentence{i}" for i, s in enumerate(sentences, start=1) if not s]
        if empty:
            yield _bad(number, f"empty {', '.join(empty)}", raw)
            continue
        yield _Record(
            row=number, raw=raw, text=" ".join(sentences), sentences=sentences,
            title=_opt_str(row[lower["storytitle"]]), source_id=_opt_str(row[lower["storyid"]]),
        )


def _parse_storycloze(path: Path) -> Iterator[_Record]:
    header, rows = _csv_rows(path)
    context_cols = [f"InputSentence{i}" for i in range(1, 5)]
    ending_cols = ["RandomFifthSentenceQuiz1", "RandomFifthSentenceQuiz2"]
    if header:
        _require_columns(header, context_cols + ending_cols, path, "Story Cloze Test")
    labelled = "AnswerRightEnding" in header
    for number, row, raw, reason in rows:
        if row is None:
            yield _bad(number, reason or "unparsable record", raw)
            continue
        answer = row.get("AnswerRightEnding", "").strip() if labelled else ""
        if not answer:
            yield _bad(number, STORYCLOZE_NO_ANSWER, raw)
            continue
        if answer not in ("1", "2"):
            yield _bad(number, f"AnswerRightEnding is {answer!r}, not 1 or 2", raw)
            continue
        sentences = [row[c].strip() for c in context_cols] + [row[ending_cols[int(answer) - 1]].strip()]
        empty = [c for c, s in zip(context_cols + [ending_cols[int(answer) - 1]], sentences) if not s]
        if empty:
            yield _bad(number, f"empty {', '.join(empty)}", raw)
            continue
        yield _Record(
            row=number, raw=raw, text=" ".join(sentences), sentences=sentences,
            source_id=_opt_str(row.get("InputStoryid")) or f"row{number}",
        )


def _parse_roc_lines(path: Path) -> Iterator[_Record]:
    for number, line in enumerate(_read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            yield _bad(number, f"invalid JSON: {exc.msg} (column {exc.colno})", line)
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            yield _bad(number, "not a JSON list of strings", line)
            continue
        text = " ".join(v.strip() for v in value if v.strip())
        if not text:
            yield _bad(number, "empty story", line)
            continue
        yield _Record(row=number, raw=line, text=text)


# ---------------------------------------------------------------------------------------------
# CMRC 2017 / CFT

_CMRC_SENTENCE = re.compile(r"^\s*(\d+)\s*\|\|\|(.*)$")
_CMRC_QUERY = re.compile(r"^\s*(<qid_\d+>)\s*\|\|\|(.*)$")
BLANK = "XXXXX"


def _read_answers(text: str) -> dict[str, str]:
    answers: dict[str, str] = {}
    for line in text.split("\n"):
        match = _CMRC_QUERY.match(line)
        if match:
            answers[match.group(1)] = match.group(2).strip()
    return answers


# what a CMRC/CFT sentence line ends with; a first line ending otherwise is a title line
_CMRC_LINE_END = set("。！？!?…；;：:，,、”\"’'」』）)—-~～.")
_CMRC_TITLE_MAX = 30


def _cmrc_title(lines: list[str]) -> tuple[str | None, list[str]]:
    """The title of a CMRC/CFT document and its sentence lines.

    Where the format tells a title apart (CFT's `cft.test.auto`: line 1 is the title, a short line without
    final punctuation, e.g. `1 ||| 迎 着 寒风 上学 去`), it is taken out of the text. In CMRC 2017 and
    `cft.test.human` the title is glued to the first sentence on one line, which cannot be told apart
    safely: those keep `title` empty.
    """
    if len(lines) < 2:
        return None, lines
    first = "".join(lines[0].split())
    if not first or len(first) > _CMRC_TITLE_MAX or first[-1] in _CMRC_LINE_END:
        return None, lines
    if not any(ch.isalnum() for ch in first):
        return None, lines
    return first, lines[1:]


def _parse_cmrc_text(text: str, display_path: str, answers: dict[str, str] | None, source: str,
                     answer_note: str) -> Iterator[_Record]:
    """Documents of `N ||| sentence` lines, each closed by a query line.

    The query line is `<qid_N> ||| query` (CMRC 2017; answer in the answer file) or
    `N ||| query ||| answer` (CFT; answer inline). Blank lines between documents are ignored.
    """
    body: list[str] = []
    raw_lines: list[str] = []
    problems: list[str] = []
    doc = 0
    first_line = 0

    def finish(qid: str | None, answer: str | None, has_query: bool) -> _Record:
        raw = "\n".join(raw_lines)
        row = doc
        if problems:
            return _bad(row, "; ".join(problems), raw, display_path)
        if not has_query:
            reason = f"document starting at line {first_line} has no query line (truncated file?)"
            return _bad(row, reason, raw, display_path)
        if not body:
            return _bad(row, "document has no sentence lines", raw, display_path)
        if not answer:
            where = f"{qid} " if qid else ""
            return _bad(row, f"no answer for the document's blank ({where}{answer_note})", raw, display_path)
        title, lines = _cmrc_title(body)
        story = " ".join(lines).replace(BLANK, answer)
        if title is not None:
            title = title.replace(BLANK, answer)
        return _Record(row=row, raw=raw, text=story, title=title, source_id=qid or f"doc{doc}", lang="zh",
                       source=source, path=display_path)

    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        if not raw_lines:
            doc += 1
            first_line = number
        raw_lines.append(line)
        fields = line.split("|||")
        query = _CMRC_QUERY.match(line)
        if query:
            inline = fields[2].strip() if len(fields) >= 3 else None
            qid = query.group(1)
            answer = inline or (answers or {}).get(qid)
            yield finish(qid, answer, True)
        elif _CMRC_SENTENCE.match(line) and len(fields) >= 3:
            yield finish(None, fields[2].strip(), True)
        elif _CMRC_SENTENCE.match(line):
            body.append(fields[1].strip())
            continue
        else:
            problems.append(f"line {number} is not 'N ||| sentence' or a query line")
            continue
        body, raw_lines, problems = [], [], []
    if raw_lines:
        yield finish(None, None, False)


def _answer_path(path: Path) -> Path | None:
    if path.suffix == ".doc_query":
        return path.with_suffix(".answer")
    return None


def _parse_cmrc_file(path: Path) -> Iterator[_Record]:
    text = _read_text(path)
    answers, note = None, "answers are inline as a third '|||' field"
    answer_path = _answer_path(path)
    if answer_path is not None:
        if answer_path.exists():
            answers = _read_answers(_read_text(answer_path))
            note = f"not in {answer_path.name}"
        else:
            note = f"answer file {answer_path.name} not found"
    source = CMRC_SOURCE if path.suffix == ".doc_query" else CFT_SOURCE
    yield from _parse_cmrc_text(text, str(path), answers, source, note)


def _zip_member_wanted(name: str) -> bool:
    base = name.rsplit("/", 1)[-1]
    if not base or base.startswith("."):
        return False
    return "." not in base or base.endswith((".human", ".auto", ".doc_query"))


def _parse_cmrc_zip(path: Path) -> Iterator[_Record]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not a readable zip archive ({exc})", path=str(path)) from exc
    with archive:
        names = archive.namelist()
        yielded = 0
        for name in names:
            if name.endswith("/") or not _zip_member_wanted(name):
                continue
            display = f"{path}!{name}"
            try:
                text = decode_bytes(archive.read(name), display).replace("\r\n", "\n").replace("\r", "\n")
            except (zipfile.BadZipFile, OSError, RuntimeError) as exc:
                raise InputError(f"cannot read zip member ({exc})", path=display) from exc
            first = next((line for line in text.split("\n") if line.strip()), "")
            if not (_CMRC_SENTENCE.match(first) or _CMRC_QUERY.match(first)):
                continue  # a README or other non-corpus member without an extension
            answers, note = None, "answers are inline as a third '|||' field"
            if name.endswith(".doc_query"):
                answer_name = name[: -len(".doc_query")] + ".answer"
                if answer_name in names:
                    answers = _read_answers(decode_bytes(archive.read(answer_name), f"{path}!{answer_name}"))
                    note = f"not in {answer_name}"
                else:
                    note = f"answer member {answer_name} not found"
            source = CMRC_SOURCE if name.endswith(".doc_query") else CFT_SOURCE
            for record in _parse_cmrc_text(text, display, answers, source, note):
                yielded += 1
                yield record
        if not yielded:  # say why, rather than "no story could be read"
            files = [n for n in names if not n.endswith("/")]
            yield _bad(None, _zip_reason(files), ", ".join(files[:10])[:RAW_LIMIT])


def _zip_reason(members: list[str]) -> str:
    """Why a zip archive gave no story: lotdata reads a zip only as a CMRC/CFT archive."""
    others = sorted({Path(n).suffix.lower() for n in members if Path(n).suffix.lower() in _SUFFIX_FORMATS})
    hint = (f"; it holds {', '.join(others)} file(s): unzip it and read those files (a zip of them is not read)"
            if others else "")
    return (f"a .zip is read only as a CMRC/CFT archive (members *.human, *.auto, *.doc_query, or CFT files without "
            f"an extension) and none of its {len(members)} member(s) is one{hint}")


#: extensions lotdata reads as corpus files (a zip holding them must be unzipped first)
_SUFFIX_FORMATS = (".txt", ".jsonl", ".json", ".csv", ".parquet", ".pq")


def _parse_cmrc(path: Path) -> Iterator[_Record]:
    if path.suffix.lower() == ".zip":
        return _parse_cmrc_zip(path)
    return _parse_cmrc_file(path)


_PARSERS: dict[str, Callable[[Path], Iterator[_Record]]] = {
    "txt": _parse_txt,
    "jsonl": _parse_jsonl,
    "csv": _parse_csv,
    "parquet": _parse_parquet,
    "rocstories": _parse_rocstories,
    "storycloze": _parse_storycloze,
    "cmrc": _parse_cmrc,
    "roc_lines": _parse_roc_lines,
}


# ---------------------------------------------------------------------------------------------
# the entry point


def _quarantine_row(path: str, record: _Record) -> dict[str, Any]:
    return {"path": path, "row": record.row, "reason": record.reason, "raw": record.raw[:RAW_LIMIT]}


def _story_row(record: _Record, *, path: str, lang: str | None, source: str | None,
               license: str | None, default_source: str) -> dict[str, Any]:
    lang = lang or record.lang
    row = make_story_row(
        record.text or "",
        source=source or record.source or default_source,
        title=record.title,
        lang=lang,
        source_id=record.source_id,
        url=f"{path}#{record.row}",
        license=license,
        fetched_at=None,
    )
    if record.sentences:
        # keep the source's own sentence boundaries when they rebuild the normalised text exactly
        sentences = [normalize_text(s, row["lang"]) for s in record.sentences]
        if all(sentences) and join_sentences(sentences, row["lang"]) == row["text"]:
            row["sentences"] = sentences
            if row["paragraph_breaks"]:  # the breaks index the sentences
                row["paragraph_breaks"] = paragraph_breaks(record.text or "", row["text"], sentences, row["lang"])
    return row


def common_reasons(quarantine: list[dict], top: int = 3) -> str:
    """The most common quarantine reasons with their counts: "2000 x: no answer ...; 3 x: empty story"."""
    counts: Counter = Counter()
    shown: dict[str, str] = {}
    for row in quarantine:  # reasons that differ only in a number (a qid, a line) count as one: "<qid_N>", "line N"
        reason = row.get("reason") or "unknown"
        key = re.sub(r"\d+", "N", reason)
        counts[key] += 1
        shown[key] = reason if shown.get(key, reason) == reason else key
    parts = [f"{n} x: {shown[key]}" for key, n in counts.most_common(top)]
    if len(counts) > top:
        parts.append(f"{len(counts) - top} other reason(s)")
    return "; ".join(parts)


LANGS = ("zh", "en")


def check_lang(lang: str | None) -> None:
    """A bad --lang is a bad parameter (exit 1) naming the accepted values, not bad data."""
    if lang is not None and lang not in LANGS:
        raise LotdataError(f"--lang: unknown language {lang!r}; accepted: {', '.join(LANGS)}")


def read_stories(
    paths: list[str | Path],
    *,
    fmt: str | None = None,
    lang: str | None = None,
    source: str | None = None,
    license: str | None = None,
) -> ReadResult:
    """Read corpus files into `stories` rows (input order) and `quarantine` rows.

    `fmt` applies to every path (default: :func:`detect_format` per path); `lang` to every story
    (default: detected per story; CMRC/CFT documents are Chinese); `source` defaults to the corpus
    name of the known formats or the file's stem; `license` is stored as given.
    """
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}",
                         path=", ".join(str(p) for p in paths) or None)
    check_lang(lang)
    stories: list[dict] = []
    quarantine: list[dict] = []
    seen: set[str] = set()
    counts = {"read": 0, "kept": 0, "quarantined": 0, "duplicates": 0}
    for raw_path in paths:
        path = Path(raw_path)
        _check_file(path)
        file_fmt = fmt or detect_format(path)
        default_source = _CORPUS_SOURCE.get(file_fmt, path.stem)
        for record in _PARSERS[file_fmt](path):
            counts["read"] += 1
            record_path = record.path or str(path)
            if record.reason is None and not (record.text or "").strip():
                record.reason = "empty story"
            if record.reason is not None:
                quarantine.append(_quarantine_row(record_path, record))
                counts["quarantined"] += 1
                continue
            row = _story_row(record, path=record_path, lang=lang, source=source,
                             license=license, default_source=default_source)
            if not row["text"]:
                record.reason = "empty story after normalisation"
            else:
                record.reason = language_problem(row["text"], row["lang"])
            if record.reason is not None:
                quarantine.append(_quarantine_row(record_path, record))
                counts["quarantined"] += 1
                continue
            if row["story_id"] in seen:
                counts["duplicates"] += 1
                continue
            seen.add(row["story_id"])
            stories.append(row)
            counts["kept"] += 1
    return ReadResult(stories=stories, quarantine=quarantine, counts=counts)
