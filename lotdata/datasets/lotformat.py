"""The official LOT jsonl format: rows <-> records, import and export.

Field names, order and types follow the release (README, "Data formats"): ClozeT `label` is a string, SenPos
`label` an int counting the `[MASK]` gaps from 1; each task keeps its own mask token. Export of an
import gives the input back byte for byte (one `json.dumps(ensure_ascii=False)` a line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

from lotdata.datasets.registry import all_tasks, get_task, task_names
from lotdata.errors import InputError
from lotdata.io import story_id_for
from lotdata.schema import SPLITS
from lotdata.text import detect_lang


def to_lot(task: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """One dataset row as an official LOT record."""
    return get_task(task).to_lot(row)


def _check_fields(task: str, record: Any) -> None:
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    required, optional = get_task(task).lot_fields
    missing = [f for f in required if f not in record]
    if missing:
        raise ValueError(f"missing field(s) {missing} for task {task}")
    unknown = sorted(set(record) - set(required) - set(optional))
    if unknown:
        raise ValueError(f"unknown field(s) {unknown} for task {task}: the round trip would lose them")
    for name in (*required, *optional):
        _check_text_field(name, record.get(name), required=name in required)


#: LOT fields that are not one text: checked by the task's own `from_lot`
_NON_TEXT_FIELDS = ("label", "outline")


def _check_text_field(name: str, value: Any, *, required: bool) -> None:
    """A text field holds a non-empty string (an optional one may be absent or null)."""
    if name in _NON_TEXT_FIELDS or (value is None and not required):
        return
    if not isinstance(value, str):
        raise ValueError(f"field {name!r} is {json.dumps(value)[:40]}, not text")
    if required and not value.strip():
        raise ValueError(f"field {name!r} is empty")


def from_lot(task: str, record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    """One official LOT record as a dataset row (raises ValueError on a malformed record)."""
    from lotdata.datasets.validate import example_problem

    _check_fields(task, record)
    row = get_task(task).from_lot(record, split=split, index=index)
    problem = example_problem(task, row)
    if problem:
        raise ValueError(problem)
    return row


def lot_row_base(task: str, record: Mapping[str, Any], *, split: str, index: int, full_text: str) -> dict[str, Any]:
    """The fields every imported row shares: its id (`TASK-SPLIT-NNNNNN`), the story id of the full story
    text, its split and the language of the record's story."""
    return {
        "example_id": f"{task}-{split}-{index:06d}",
        "story_id": story_id_for(full_text),
        "split": split,
        "lang": detect_lang(record["story"]),
    }


def lot_task_of(record: Any) -> str:
    """The task of a LOT record, from its field names (ValueError when it is no task's record)."""
    if isinstance(record, dict):
        for spec in all_tasks():
            if set(spec.lot_fields[0]) <= set(record):  # unknown extra fields are reported when the record is read
                return spec.name
        raise ValueError(f"not a LOT record (fields {sorted(record)}); tasks: {', '.join(task_names())}")
    raise ValueError("not a JSON object")


def split_of_file(path: Path, default: str) -> str:
    """train/val/test from a file name such as train.jsonl, dev.jsonl or val.jsonl."""
    stem = path.stem.lower()
    aliases = {"train": "train", "val": "val", "valid": "val", "dev": "val", "validation": "val", "test": "test"}
    return aliases.get(stem, default)


def read_lot_file(
    path: Path, task: str, split: str, on_error: Callable[[int, str, str], None] | None = None
) -> list[dict[str, Any]]:
    """Rows of one LOT jsonl file; a bad line raises InputError naming file and line, unless
    `on_error(line_no, reason, raw)` is given, in which case it is reported there and skipped."""
    rows = []
    with open(path, "rb") as handle:
        for line_no, raw_line in enumerate(handle, start=1):
            try:
                line = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:  # a binary or non-UTF-8 file is bad data, not a crash
                raise InputError(
                    f"not UTF-8 text ({exc.reason} at byte {exc.start}); LOT jsonl is UTF-8",
                    path=str(path),
                    row=line_no,
                ) from None
            if not line.strip():
                continue
            try:
                rows.append(from_lot(task, json.loads(line), split=split, index=len(rows)))
            except (ValueError, TypeError) as exc:
                if on_error is None:
                    raise InputError(str(exc), path=str(path), row=line_no) from exc
                on_error(line_no, str(exc), line[:500])
    return rows


def splits_in(rows_by_split: Mapping[str, list]) -> list[str]:
    return [s for s in SPLITS if s in rows_by_split]
