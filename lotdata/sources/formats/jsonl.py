"""``jsonl``: an object a line with ``text`` or ``story`` (``id``, ``title`` optional).

A LOT task file is jsonl too (its ``story`` is read); `open_input` calls it ``lot-jsonl`` with its task
(`json_kind`), from its first record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Record, bad, register_format
from lotdata.sources.formats._common import JSON_SUFFIXES, json_kind, json_lines, record_from_obj, sample_lines


def parse_jsonl(path: Path) -> Iterator[Record]:
    for number, line, value in json_lines(path):
        if isinstance(value, Record):
            yield value
        elif not isinstance(value, dict):
            yield bad(number, f"not a JSON object ({type(value).__name__})", line)
        else:
            yield record_from_obj(value, number, line)


def write_jsonl(rows: list[dict], path: Path) -> Path:
    """One object a line: id, title and text of each story."""
    lines = [
        json.dumps({"id": r.get("source_id"), "title": r.get("title"), "text": r["text"]}, ensure_ascii=False)
        for r in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def sample_jsonl(folder: Path) -> FormatSample:
    """Two stories (`text` and `story`) and a line that is not closed."""
    lines = [
        json.dumps({"id": "a", "title": "雪人", "text": "下雪了，孩子们堆了一个雪人。"}, ensure_ascii=False),
        json.dumps({"id": "b", "story": "Ann found a coin. She gave it away."}),
        '{"id": "c", "text": "not closed',
    ]
    return FormatSample(sample_lines(folder / "tales.jsonl", lines), good=2, bad_row=3)


register_format(
    InputFormat(
        name="jsonl",
        description="an object a line (.jsonl, .json) with 'text' or 'story' ('id', 'title' optional); row: the line",
        detect=lambda probe: probe.suffix in JSON_SUFFIXES,
        parse=parse_jsonl,
        kind=json_kind,
        write=write_jsonl,
        sample=sample_jsonl,
    )
)
