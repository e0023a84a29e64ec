"""``txt``: blank-line-separated blocks; a short first line without sentence-final punctuation is the title."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import InputFormat, Record, register_format
from lotdata.text.decoding import read_text

TITLE_MAX_CHARS = 20
_SENTENCE_FINAL = set("。！？!?.…；;：:”’\"'」』）)")


def _has_sentence_final(line: str) -> bool:
    return any(ch in _SENTENCE_FINAL for ch in line)


def parse_txt(path: Path) -> Iterator[Record]:
    lines = read_text(path).split("\n")
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
        yield Record(row=start, raw=raw, text="\n".join(body), title=title)
        block = []


register_format(
    InputFormat(
        name="txt",
        description="a blank-line-separated block (.txt); a short first line without sentence-final punctuation "
        "(<= 20 chars) is the title; row: the line where the block starts",
        detect=lambda probe: probe.suffix == ".txt",
        parse=parse_txt,
    )
)
