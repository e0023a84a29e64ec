"""``cmrc``: a CMRC 2017 / CFT document (``N ||| sentence`` lines closed by a query line), the blank filled.

The answer comes from the `X.answer` file beside `X.doc_query` (CMRC 2017) or inline as a third `|||` field
(CFT). A `.zip` archive is read member by member; a member's path is ``zip!member``.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Record, bad, register_format
from lotdata.errors import InputError
from lotdata.text.decoding import decode_bytes, read_text, unify_line_ends

CMRC_SOURCE = "cmrc2017"
CFT_SOURCE = "cft"
SUFFIXES = (".doc_query", ".human", ".auto", ".zip")

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


def _parse_cmrc_text(
    text: str, display_path: str, answers: dict[str, str] | None, source: str, answer_note: str
) -> Iterator[Record]:
    """Documents of `N ||| sentence` lines, each closed by a query line.

    The query line is `<qid_N> ||| query` (CMRC 2017; answer in the answer file) or
    `N ||| query ||| answer` (CFT; answer inline). Blank lines between documents are ignored.
    """
    body: list[str] = []
    raw_lines: list[str] = []
    problems: list[str] = []
    doc = 0
    first_line = 0

    def finish(qid: str | None, answer: str | None, has_query: bool) -> Record:
        raw = "\n".join(raw_lines)
        row = doc
        if problems:
            return bad(row, "; ".join(problems), raw, display_path)
        if not has_query:
            reason = f"document starting at line {first_line} has no query line (truncated file?)"
            return bad(row, reason, raw, display_path)
        if not body:
            return bad(row, "document has no sentence lines", raw, display_path)
        if not answer:
            where = f"{qid} " if qid else ""
            return bad(row, f"no answer for the document's blank ({where}{answer_note})", raw, display_path)
        title, lines = _cmrc_title(body)
        story = " ".join(lines).replace(BLANK, answer)
        if title is not None:
            title = title.replace(BLANK, answer)
        return Record(
            row=row,
            raw=raw,
            text=story,
            title=title,
            source_id=qid or f"doc{doc}",
            lang="zh",
            source=source,
            path=display_path,
        )

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


def _parse_cmrc_file(path: Path) -> Iterator[Record]:
    text = read_text(path)
    answers, note = None, "answers are inline as a third '|||' field"
    answer_path = _answer_path(path)
    if answer_path is not None:
        if answer_path.exists():
            answers = _read_answers(read_text(answer_path))
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


def _parse_cmrc_zip(path: Path) -> Iterator[Record]:
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
                text = unify_line_ends(decode_bytes(archive.read(name), display))
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
            yield bad(None, _zip_reason(files), ", ".join(files[:10]))


def _zip_reason(members: list[str]) -> str:
    """Why a zip archive gave no story: lotdata reads a zip only as a CMRC/CFT archive."""
    others = sorted({Path(n).suffix.lower() for n in members if Path(n).suffix.lower() in _SUFFIX_FORMATS})
    hint = (
        f"; it holds {', '.join(others)} file(s): unzip it and read those files (a zip of them is not read)"
        if others
        else ""
    )
    return (
        f"a .zip is read only as a CMRC/CFT archive (members *.human, *.auto, *.doc_query, or CFT files without "
        f"an extension) and none of its {len(members)} member(s) is one{hint}"
    )


#: extensions lotdata reads as corpus files (a zip holding them must be unzipped first)
_SUFFIX_FORMATS = (".txt", ".jsonl", ".json", ".csv", ".parquet", ".pq")


def parse_cmrc(path: Path) -> Iterator[Record]:
    if path.suffix.lower() == ".zip":
        return _parse_cmrc_zip(path)
    return _parse_cmrc_file(path)


def sample_cmrc(folder: Path) -> FormatSample:
    """Two documents answered in `tiny.valid.answer` and a third whose query has no answer."""
    (folder / "tiny.valid.answer").write_text("<qid_0> ||| 松鼠\n<qid_1> ||| 海\n", encoding="utf-8")
    lines = [
        "1 ||| 今天 是 小 刺猬 的 生日 ， XXXXX 送 来 了 苹果 。",
        "<qid_0> ||| XXXXX 送 来 了 苹果 。",
        "1 ||| 蜗牛 想 去 看 XXXXX 。",
        "2 ||| 它 爬 了 一 年 。",
        "<qid_1> ||| 蜗牛 想 去 看 XXXXX 。",
        "1 ||| 青蛙 坐 在 井 底 。",
        "<qid_2> ||| 一 只 XXXXX 飞 过来 。",
    ]
    path = folder / "tiny.valid.doc_query"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return FormatSample(path, good=2, bad_row=3)


register_format(
    InputFormat(
        name="cmrc",
        description="a CMRC 2017 / CFT document (.doc_query, .human, .auto, .zip: 'N ||| sentence' lines closed by a "
        "query line); answer from X.answer or inline as a third field; row: the document number",
        detect=lambda probe: probe.suffix in SUFFIXES,
        parse=parse_cmrc,
        sample=sample_cmrc,
    )
)
