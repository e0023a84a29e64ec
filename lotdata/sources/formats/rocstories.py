"""``rocstories``: a ROCStories csv record (storyid, storytitle, sentence1..5).

The sentence boundaries are the source's own columns; ``join_sentences(sentences) == text`` still holds."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Record, bad, register_format
from lotdata.sources.formats._common import csv_names, csv_rows, opt_str, require_columns, sample_csv


def parse_rocstories(path: Path) -> Iterator[Record]:
    header, rows = csv_rows(path)
    lower = {h.lower(): h for h in header}
    needed = ["storyid", "storytitle"] + [f"sentence{i}" for i in range(1, 6)]
    if header:
        require_columns(list(lower), needed, path, "ROCStories")
    for number, row, raw, reason in rows:
        if row is None:
            yield bad(number, reason or "unparsable record", raw)
            continue
        sentences = [row[lower[f"sentence{i}"]].strip() for i in range(1, 6)]
        empty = [f"sentence{i}" for i, s in enumerate(sentences, start=1) if not s]
        if empty:
            yield bad(number, f"empty {', '.join(empty)}", raw)
            continue
        yield Record(
            row=number,
            raw=raw,
            text=" ".join(sentences),
            sentences=sentences,
            title=opt_str(row[lower["storytitle"]]),
            source_id=opt_str(row[lower["storyid"]]),
        )


def sample_rocstories(folder: Path) -> FormatSample:
    """Two stories and one whose fifth sentence is empty."""
    head = ["storyid", "storytitle", *[f"sentence{i}" for i in range(1, 6)]]
    rows = [
        head,
        ["r1", "Kite", "Maya flew a kite.", "It rose.", "The wind fell.", "It dropped.", "She laughed."],
        ["r2", "Soup", "Tom made soup.", "It was hot.", "He waited.", "He ate it.", "It was good."],
        ["r3", "Bad", "A.", "B.", "C.", "D.", ""],
    ]
    return FormatSample(sample_csv(folder / "roc.csv", rows), good=2, bad_row=3)


register_format(
    InputFormat(
        name="rocstories",
        description="a ROCStories csv record (storyid, storytitle, sentence1..5); row: the record number",
        detect=lambda probe: probe.suffix == ".csv" and {"storyid", "sentence1"} <= csv_names(probe),
        parse=parse_rocstories,
        priority=11,  # a header that also names InputSentence1 stays ROCStories, as before
        default_source="rocstories",
        sample=sample_rocstories,
    )
)
