"""The test side: load a stories table, a dataset folder or LOT jsonl into examples grouped by split."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lotdata.datasets.folder import dataset_task, read_dataset
from lotdata.datasets.inputs import open_input
from lotdata.datasets.lotformat import lot_task_of, read_lot_file, split_of_file
from lotdata.errors import InputError
from lotdata.io import read_parquet
from lotdata.overlap.texts import example_texts
from lotdata.schema import ALL_SCHEMAS, SPLITS, STORIES, TASK_SCHEMAS, table_kind


@dataclass
class Example:
    example_id: str
    texts: list[tuple[str, str]]  # (field, text)
    row: dict[str, Any]  # the original row, for --write-filtered
    lang: str = "zh"


@dataclass
class TestSet:
    kind: str  # stories, clozet, senpos, plotcom, outgen
    splits: dict[str, list[Example]] = field(default_factory=dict)
    inputs: list[Path] = field(default_factory=list)

    def lang(self) -> str:
        counts = Counter(ex.lang for rows in self.splits.values() for ex in rows)
        return counts.most_common(1)[0][0] if counts else "zh"


def _examples(kind: str, rows: list[dict[str, Any]]) -> list[Example]:
    id_field = "story_id" if kind == "stories" else "example_id"
    return [Example(str(row[id_field]), example_texts(kind, row), row, row.get("lang") or "zh") for row in rows]


def load_test_set(path: str | Path) -> TestSet:
    """TEST as examples per split: a dataset folder (each split on its own), a folder of stories split tables,
    a task or stories Parquet table (split column, or the file's name), or LOT jsonl (a file, or a folder of
    train/val/test.jsonl)."""
    found = open_input(
        path,
        expect=("dataset", "stories-splits", "stories", "task-table", "lot-jsonl", "jsonl", "file"),
        what="a stories/task Parquet table, a dataset folder or LOT jsonl",
    )
    path = found.path
    if found.kind == "dataset":
        kind = dataset_task(path)
        tables = read_dataset(path)
        return TestSet(
            kind,
            {s: _examples(kind, t.to_pylist()) for s, t in tables.items()},
            [path / f"{s}.parquet" for s in tables],
        )
    if found.kind == "stories-splits":
        tables = {f.stem: read_parquet(f, STORIES) for f in found.files}
        return TestSet(
            "stories", {s: _examples("stories", t.to_pylist()) for s, t in tables.items()}, list(found.files)
        )
    if found.kind in ("lot-jsonl", "jsonl"):
        return _load_lot(list(found.files))
    if path.suffix == ".parquet":
        return _load_parquet(path)
    raise InputError("TEST must be a stories/task Parquet table, a dataset folder or LOT jsonl", path=str(path))


def _load_parquet(path: Path) -> TestSet:
    import pyarrow.parquet as pq

    try:
        kind = table_kind(pq.read_schema(path))
    except Exception as exc:  # noqa: BLE001
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
    if kind != "stories" and kind not in TASK_SCHEMAS:
        raise InputError("not a lotdata stories or task table (no lotdata.table metadata)", path=str(path))
    rows = read_parquet(path, ALL_SCHEMAS[kind]).to_pylist()
    if kind == "stories":
        return TestSet(kind, {split_of_file(path, path.stem): _examples(kind, rows)}, [path])
    by_split: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_split.setdefault(row["split"], []).append(row)
    ordered = {s: by_split[s] for s in [*SPLITS, *sorted(set(by_split) - set(SPLITS))] if s in by_split}
    return TestSet(kind, {s: _examples(kind, r) for s, r in ordered.items()}, [path])


def _load_lot(files: list[Path]) -> TestSet:
    task = None
    splits: dict[str, list[Example]] = {}
    for file in files:
        first = _first_record(file)
        file_task = lot_task_of(first) if first is not None else (task or "outgen")
        if task is not None and file_task != task:
            raise InputError(f"LOT {file_task} file among {task} files", path=str(file))
        task = file_task
        split = split_of_file(file, file.stem)
        if split in splits:
            raise InputError(f"a second file for split {split!r}", path=str(file))
        splits[split] = _examples(task, read_lot_file(file, task, split))
    return TestSet(task or "outgen", splits, files)


def _first_record(file: Path) -> dict[str, Any] | None:
    with open(file, encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    record = json.loads(line)
                    lot_task_of(record)
                    return record
                except (ValueError, AttributeError, TypeError) as exc:
                    raise InputError(str(exc), path=str(file), row=line_no) from exc
    return None
