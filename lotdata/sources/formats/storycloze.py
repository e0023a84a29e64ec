"""``storycloze``: a Story Cloze Test csv record: the 4 context sentences + the RIGHT ending.

The sentence boundaries are the source's own columns (context sentences without final punctuation
would be merged by a splitter); a record without a usable AnswerRightEnding is quarantined."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Probe, Record, bad, register_format
from lotdata.sources.formats._common import csv_names, csv_rows, opt_str, require_columns, sample_csv

STORYCLOZE_NO_ANSWER = "no AnswerRightEnding: cannot tell the right ending"
CONTEXT_COLUMNS = [f"InputSentence{i}" for i in range(1, 5)]
ENDING_COLUMNS = ["RandomFifthSentenceQuiz1", "RandomFifthSentenceQuiz2"]


def parse_storycloze(path: Path) -> Iterator[Record]:
    header, rows = csv_rows(path)
    if header:
        require_columns(header, CONTEXT_COLUMNS + ENDING_COLUMNS, path, "Story Cloze Test")
    labelled = "AnswerRightEnding" in header
    for number, row, raw, reason in rows:
        if row is None:
            yield bad(number, reason or "unparsable record", raw)
            continue
        answer = row.get("AnswerRightEnding", "").strip() if labelled else ""
        if not answer:
            yield bad(number, STORYCLOZE_NO_ANSWER, raw)
            continue
        if answer not in ("1", "2"):
            yield bad(number, f"AnswerRightEnding is {answer!r}, not 1 or 2", raw)
            continue
        ending = ENDING_COLUMNS[int(answer) - 1]
        sentences = [row[c].strip() for c in CONTEXT_COLUMNS] + [row[ending].strip()]
        empty = [c for c, s in zip(CONTEXT_COLUMNS + [ending], sentences) if not s]
        if empty:
            yield bad(number, f"empty {', '.join(empty)}", raw)
            continue
        yield Record(
            row=number,
            raw=raw,
            text=" ".join(sentences),
            sentences=sentences,
            source_id=opt_str(row.get("InputStoryid")) or f"row{number}",
        )


def _is_storycloze(probe: Probe) -> bool:
    return probe.suffix == ".csv" and "inputsentence1" in csv_names(probe)


def sample_storycloze(folder: Path) -> FormatSample:
    """Two cases and one whose AnswerRightEnding is neither 1 nor 2."""
    head = ["InputStoryid", *CONTEXT_COLUMNS, *ENDING_COLUMNS, "AnswerRightEnding"]
    rows = [
        head,
        [
            "s1",
            "Kim baked a cake.",
            "She left it out",
            "Her dog sniffed it.",
            "It jumped.",
            "The dog ate the cake.",
            "Kim won a prize.",
            "1",
        ],
        ["s2", "Joe ran.", "He trained.", "It rained.", "He kept going.", "He hated it.", "He finished proudly.", "2"],
        ["s3", "A.", "B.", "C.", "D.", "E.", "F.", "3"],
    ]
    return FormatSample(sample_csv(folder / "cloze.csv", rows), good=2, bad_row=3)


register_format(
    InputFormat(
        name="storycloze",
        description="a Story Cloze Test csv record: 4 context sentences + the RIGHT ending; row: the record number",
        detect=_is_storycloze,
        parse=parse_storycloze,
        priority=10,
        default_source="storycloze",
        kind=lambda probe: ("storycloze-csv", "clozet"),
        sample=sample_storycloze,
    )
)
