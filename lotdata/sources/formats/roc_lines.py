"""``roc_lines``: a JSON list of sentences a line, the story (Diffusion-LM's roc_valid.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Record, bad, register_format
from lotdata.sources.formats._common import JSON_SUFFIXES, json_kind, json_lines, sample_lines


def parse_roc_lines(path: Path) -> Iterator[Record]:
    for number, line, value in json_lines(path):
        if isinstance(value, Record):
            yield value
            continue
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            yield bad(number, "not a JSON list of strings", line)
            continue
        text = " ".join(v.strip() for v in value if v.strip())
        if not text:
            yield bad(number, "empty story", line)
            continue
        yield Record(row=number, raw=line, text=text)


def sample_roc_lines(folder: Path) -> FormatSample:
    """Two stories and a line that is not JSON."""
    lines = ['["Ben lost his keys. They were in his pocket."]', '["Ann sang. Everyone clapped."]', "not json"]
    return FormatSample(sample_lines(folder / "roc.json", lines), good=2, bad_row=3)


register_format(
    InputFormat(
        name="roc_lines",
        description='a line ["s1. s2. ..."] (Diffusion-LM\'s roc_valid.json); row: the line',
        detect=lambda probe: probe.suffix in JSON_SUFFIXES and isinstance(probe.first_value, list),
        parse=parse_roc_lines,
        priority=10,
        default_source="rocstories",
        kind=json_kind,
        sample=sample_roc_lines,
    )
)
