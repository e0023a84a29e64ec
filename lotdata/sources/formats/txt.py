"""``txt``: blank-line-separated blocks; a short first line without sentence-final punctuation is the title."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Record, register_format
from lotdata.sources.formats._common import sample_lines
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


def sample_txt(folder: Path) -> FormatSample:
    """Two stories (one titled) and a block of zero-width spaces only: nothing is left after normalisation."""
    lines = [
        "小熊",
        "夜里，小熊睡不着觉。它看见了月亮船。",
        "",
        "The fox ran home. It was dry inside.",
        "",
        "\u200b\u200b",
    ]
    return FormatSample(sample_lines(folder / "tales.txt", lines), good=2, bad_row=6)


register_format(
    InputFormat(
        name="txt",
        description="a blank-line-separated block (.txt); a short first line without sentence-final punctuation "
        "(<= 20 chars) is the title; row: the line where the block starts",
        detect=lambda probe: probe.suffix == ".txt",
        parse=parse_txt,
        sample=sample_txt,
    )
)
