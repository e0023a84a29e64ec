"""What the audit sees of a cloze-style example: its options and what surrounds them.

An item's `shape` is its task's `choice_shape`: a ClozeT item ("candidates") has two candidate sentences
for one masked position; a SenPos item ("gaps") has one removed sentence and a candidate gap between
every two adjacent sentences. Both become an `Item` whose options are numbered from 0; `label_of_option`
turns an option back into the table's own label convention (the task's `label_base`: ClozeT counts
candidates from 0, SenPos gaps from 1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from lotdata.datasets.folder import dataset_task, read_dataset
from lotdata.datasets.inputs import first_jsonl_record, lot_split_files, open_input
from lotdata.datasets.lotformat import read_lot_file, split_of_file
from lotdata.datasets.registry import family_tasks, get_task
from lotdata.errors import InputError
from lotdata.schema import SPLITS, TASK_SCHEMAS, table_from_rows
from lotdata.tasks.storycloze import read_storycloze_splits
from lotdata.text import split_sentences

#: the item shapes (`TaskSpec.choice_shape`)
CANDIDATES, GAPS = "candidates", "gaps"


@dataclass
class Item:
    example_id: str
    split: str
    task: str
    lang: str
    label: int  # the table's convention
    before: list[str] = field(default_factory=list)  # candidates: context sentences before the mask
    after: list[str] = field(default_factory=list)  # candidates: context sentences after the mask
    candidates: list[str] = field(default_factory=list)  # candidates
    sentences: list[str] = field(default_factory=list)  # gaps: the paragraph without `removed`
    removed: str = ""  # gaps

    @property
    def shape(self) -> str:
        """How the item offers its options: CANDIDATES (ClozeT) or GAPS (SenPos), its task's `choice_shape`."""
        return get_task(self.task).choice_shape

    @property
    def n_options(self) -> int:
        return len(self.candidates) if self.shape == CANDIDATES else len(self.sentences) - 1

    @property
    def gold_option(self) -> int:
        return self.label - get_task(self.task).label_base

    def label_of_option(self, option: int) -> int:
        return option + get_task(self.task).label_base

    def neighbours(self, option: int) -> tuple[str, str]:
        """ClozeT: the sentences just before and after the mask; SenPos: the two sides of gap `option`."""
        if self.shape == CANDIDATES:
            return (self.before[-1] if self.before else "", self.after[0] if self.after else "")
        return self.sentences[option], self.sentences[option + 1]

    def option_text(self, option: int) -> str:
        """The text an option adds (ClozeT: the candidate; SenPos: the removed sentence)."""
        return self.candidates[option] if self.shape == CANDIDATES else self.removed

    def context_sentences(self) -> list[str]:
        return self.before + self.after if self.shape == CANDIDATES else self.sentences

    def all_sentences(self) -> list[str]:
        return self.context_sentences() + (self.candidates if self.shape == CANDIDATES else [self.removed])


def items_from_table(table: pa.Table, task: str, source: str = "", quarantine: list[dict] | None = None) -> list[Item]:
    """Items of one split table; a row the audit cannot use goes to `quarantine` (path, row, reason, raw)
    when given, else raises InputError naming the row."""
    audited = family_tasks("understanding")
    if task not in audited:
        raise InputError(f"audit-bias works on {' and '.join(audited)} datasets, not {task!r}")
    spec = get_task(task)
    items = []
    for number, row in enumerate(table.to_pylist(), start=1):
        reason = _row_problem(row, spec.choice_shape, spec.mask_token)
        if reason:
            if quarantine is None:
                raise InputError(reason, path=source, row=number)
            quarantine.append(
                {"path": source, "row": number, "reason": reason, "raw": json.dumps(row, ensure_ascii=False)[:500]}
            )
            continue
        if spec.choice_shape == CANDIDATES:
            before, _, after = row["context"].partition(spec.mask_token)
            items.append(
                Item(
                    example_id=row["example_id"],
                    split=row["split"],
                    task=task,
                    lang=row["lang"],
                    label=int(row["label"]),
                    before=split_sentences(before.strip(), row["lang"]) if before.strip() else [],
                    after=split_sentences(after.strip(), row["lang"]) if after.strip() else [],
                    candidates=list(row["candidates"]),
                )
            )
        else:
            items.append(
                Item(
                    example_id=row["example_id"],
                    split=row["split"],
                    task=task,
                    lang=row["lang"],
                    label=int(row["label"]),
                    sentences=list(row["sentences"]),
                    removed=row["removed"],
                )
            )
    return items


def _row_problem(row: dict, shape: str, mask: str | None) -> str | None:
    """Why the audit cannot use this row (of a task of this item shape and mask token), or None."""
    label = row.get("label")
    if shape == CANDIDATES:
        candidates = row.get("candidates") or []
        if len(candidates) < 2 or any(not (c or "").strip() for c in candidates):
            return f"clozet row needs two non-empty candidates, has {candidates!r}"
        if mask not in (row.get("context") or ""):
            return f"context has no {mask} mark"
        if label is None or not 0 <= int(label) < len(candidates):
            return f"label {label!r} is not a candidate index 0..{len(candidates) - 1}"
        return None
    sentences = row.get("sentences") or []
    if len(sentences) < 2 or not (row.get("removed") or "").strip():
        return f"senpos row needs a removed sentence and at least two sentences, has {len(sentences)}"
    if label is None or not 1 <= int(label) <= len(sentences) - 1:
        return f"label {label!r} is not a gap 1..{len(sentences) - 1}"
    return None


def load_audit_input(
    path: str | Path, task: str | None = None, quarantine: list[dict] | None = None
) -> tuple[str, dict[str, pa.Table], str]:
    """(task, split tables, a description of the source) from a dataset folder, LOT jsonl or Story Cloze csv.

    Rows a reader drops (a short Story Cloze row, a label 3, a bad LOT line) are appended to
    `quarantine` with their reason when it is given.

    Accepted: a lotdata dataset folder (manifest.json); a LOT jsonl file, or a folder of
    train/val/test jsonl files (task from `task` or the record fields); a labelled Story Cloze
    csv, or a folder of them (split from the file name: val.csv, test.csv).
    """
    found = open_input(
        path,
        expect=("dataset", "storycloze-csv", "lot-jsonl", "jsonl"),
        what="a task dataset folder, LOT jsonl or a Story Cloze csv",
    )
    if found.kind == "dataset":
        return dataset_task(path), read_dataset(path, quarantine=quarantine), "dataset folder"
    if found.kind == "storycloze-csv":
        files = found.files
        csvs = {split_of_file(p, "test" if not found.path.is_dir() else p.stem): p for p in files}
        by_split, bad = read_storycloze_splits(csvs)
        if quarantine is not None:
            quarantine.extend(bad)
        return "clozet", _tables(by_split, TASK_SCHEMAS["clozet"]), "Story Cloze csv"
    task = task or found.task
    if task is None:
        first = first_jsonl_record(found.files[0])
        raise InputError(
            "not a ClozeT or SenPos LOT record (pass --task)", path=str(found.files[0]), row=first[0] if first else None
        )
    by_split = {
        split: read_lot_file(p, task, split, None if quarantine is None else _quarantine_to(quarantine, p))
        for split, p in lot_split_files(found.files).items()
    }
    return task, _tables(by_split, TASK_SCHEMAS[task]), "LOT jsonl"


def _quarantine_to(quarantine: list[dict], path: Path):
    return lambda line_no, reason, raw: quarantine.append(
        {"path": str(path), "row": line_no, "reason": reason, "raw": raw}
    )


def _tables(by_split: dict[str, list[dict]], schema: pa.Schema) -> dict[str, pa.Table]:
    return {split: table_from_rows(rows, schema) for split, rows in by_split.items()}


def ordered_splits(tables: dict[str, pa.Table]) -> list[str]:
    known = [s for s in SPLITS if s in tables]
    return known + sorted(s for s in tables if s not in SPLITS)
