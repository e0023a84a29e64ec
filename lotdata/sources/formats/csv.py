"""``csv``: a record of a csv with a ``text`` or ``story`` column (``id``, ``title`` optional)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Record, bad, register_format
from lotdata.errors import InputError
from lotdata.sources.formats._common import csv_rows, record_from_obj, sample_csv


def parse_csv(path: Path) -> Iterator[Record]:
    header, rows = csv_rows(path)
    if header and "text" not in header and "story" not in header:
        raise InputError(f"csv header has no 'text' or 'story' column (columns: {header})", path=str(path))
    for number, row, raw, reason in rows:
        if row is None:
            yield bad(number, reason or "unparsable record", raw)
            continue
        yield record_from_obj(row, number, raw)


def sample_csv_file(folder: Path) -> FormatSample:
    """Two stories (one titled) and a record whose story is blank."""
    rows = [
        ["id", "title", "story"],
        ["t1", "小树", "春天来了，小树长出了新叶子。"],
        ["t2", "", "Sam lost his hat. He laughed."],
    ]
    return FormatSample(sample_csv(folder / "tales.csv", [*rows, ["t3", "", "  "]]), good=2, bad_row=3)


register_format(
    InputFormat(
        name="csv",
        description="a record of a csv with a 'text' or 'story' column ('id', 'title' optional); row: the record number",
        detect=lambda probe: probe.suffix == ".csv",
        parse=parse_csv,
        sample=sample_csv_file,
    )
)
