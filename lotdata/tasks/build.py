"""Assemble a task dataset folder: stories -> examples -> seeded grouped splits -> Parquet + manifest.

A dataset folder holds `train.parquet`, `val.parquet`, `test.parquet`, `manifest.json` and, when asked,
`lot/{train,val,test}.jsonl` in the official LOT format.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import pyarrow as pa

from lotdata.errors import InputError
from lotdata.io import read_manifest, read_parquet, write_jsonl, write_manifest, write_parquet
from lotdata.schema import SPLITS, STORIES, TASK_SCHEMAS, table_from_rows
from lotdata.tasks.common import BuildStats, StoryOutcome
from lotdata.tasks.lotformat import TASKS, read_lot_file, split_of_file, to_lot
from lotdata.tasks.splits import SplitSpec, assign_splits, parse_split_spec, story_order_key

#: stories in these states are never used to build examples
EXCLUDED_STATUSES = ("rejected",)
DEFAULT_SPLIT = "train=0.8,val=0.1,test=0.1"


def _builder(task: str) -> tuple[Callable[..., StoryOutcome], type]:
    if task == "senpos":
        from lotdata.tasks.senpos import SenposParams, senpos_examples

        return senpos_examples, SenposParams
    if task == "plotcom":
        from lotdata.tasks.plotcom import PlotcomParams, plotcom_examples

        return plotcom_examples, PlotcomParams
    if task == "outgen":
        from lotdata.tasks.outgen import OutgenParams, outgen_examples

        return outgen_examples, OutgenParams
    raise ValueError(f"no automatic builder for task {task!r} (builders: senpos, plotcom, outgen)")


BUILD_TASKS = ("senpos", "plotcom", "outgen")


@dataclass
class BuildReport:
    task: str
    out: Path
    rows_per_split: dict[str, int]
    stats: dict[str, Any] = field(default_factory=dict)


def load_stories(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Stories from one or more `stories` Parquet files, in file order; a story id seen twice is kept once."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path in paths:
        for row in read_parquet(path, STORIES).to_pylist():
            if row["story_id"] not in seen:
                seen.add(row["story_id"])
                rows.append(row)
    return rows


def build_examples(
    task: str,
    stories: Iterable[Mapping[str, Any]],
    *,
    seed: int,
    params: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, Any]], BuildStats]:
    """Run a task's per-story builder over every usable story (pure: no files)."""
    make, params_cls = _builder(task)
    task_params = params_cls(**(params or {}))
    stats = BuildStats()
    examples: list[dict[str, Any]] = []
    for story in stories:
        if story["status"] in EXCLUDED_STATUSES:
            outcome = StoryOutcome(dropped=f"status_{story['status']}")
        else:
            outcome = make(story, task_params, seed)
        stats.add(outcome)
        examples.extend(outcome.examples)
        if progress:
            progress(1)
    return examples, stats


def split_examples(
    examples: list[dict[str, Any]], spec: SplitSpec, seed: int, n: int | None = None,
    groups: Mapping[str, str] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Cap at `n` examples (whole groups first, in seeded order), assign grouped splits, and order
    each split by a seeded hash so the files are shuffled yet reproducible.

    `groups` maps a story_id to its group (the `cluster_id` that `lotdata clean` gives near-duplicates);
    a story without one is its own group."""
    group = (lambda ex: groups.get(ex["story_id"]) or ex["story_id"]) if groups else (lambda ex: ex["story_id"])
    ordered = sorted(examples, key=lambda ex: (story_order_key(group(ex), seed), ex["story_id"], ex["example_id"]))
    if n is not None:
        ordered = ordered[:n]
    splits = assign_splits([group(ex) for ex in ordered], spec, seed)
    by_split: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for example, split in zip(ordered, splits):
        if split:
            by_split[split].append({**example, "split": split})
    for split, rows in by_split.items():
        rows.sort(key=lambda ex: story_order_key(ex["example_id"], seed))
    return by_split


def write_dataset(
    out: str | Path,
    task: str,
    by_split: Mapping[str, list[dict[str, Any]]],
    *,
    command: str,
    params: Mapping[str, Any],
    inputs: Sequence[str | Path],
    stats: Mapping[str, Any],
    lot_jsonl: bool = True,
) -> dict[str, int]:
    """Write one Parquet per split (always all three, possibly empty), the LOT jsonl and the manifest."""
    out = Path(out)
    schema = TASK_SCHEMAS[task]
    files = {}
    for split in SPLITS:
        files[split] = write_parquet(table_from_rows(by_split.get(split, []), schema), out / f"{split}.parquet")
        if lot_jsonl:
            write_jsonl((to_lot(task, row) for row in by_split.get(split, [])), out / "lot" / f"{split}.jsonl")
    write_manifest(out, task=task, command=command, params=params, inputs=inputs, files=files, stats=stats)
    return {split: len(by_split.get(split, [])) for split in SPLITS}


def build_dataset(
    task: str,
    stories_paths: Sequence[str | Path],
    out: str | Path,
    *,
    n: int | None = None,
    seed: int = 0,
    split: str | SplitSpec = DEFAULT_SPLIT,
    params: Mapping[str, Any] | None = None,
    lot_jsonl: bool = True,
    progress: Callable[[int], None] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> BuildReport:
    """Build `task` from stories Parquet files into the folder `out`."""
    if task not in BUILD_TASKS:
        raise ValueError(f"no automatic builder for task {task!r} (builders: {', '.join(BUILD_TASKS)})")
    spec = split if isinstance(split, SplitSpec) else parse_split_spec(split)
    started = time.perf_counter()
    stories = load_stories(stories_paths)
    if on_start:
        on_start(len(stories))
    examples, stats = build_examples(task, stories, seed=seed, params=params, progress=progress)
    groups = {s["story_id"]: s["cluster_id"] for s in stories if s.get("cluster_id")}
    by_split = split_examples(examples, spec, seed, n, groups)
    seconds = time.perf_counter() - started
    summary = {
        **stats.as_dict(),
        "examples_written": sum(len(v) for v in by_split.values()),
        "seconds": round(seconds, 3),
        "stories_per_second": round(stats.stories_in / seconds, 1) if seconds else None,
    }
    all_params = {"task": task, "n": n, "seed": seed, "split": str(spec), **_params_dict(task, params)}
    rows = write_dataset(
        out,
        task,
        by_split,
        command=f"lotdata build {task}",
        params=all_params,
        inputs=stories_paths,
        stats=summary,
        lot_jsonl=lot_jsonl,
    )
    return BuildReport(task=task, out=Path(out), rows_per_split=rows, stats=summary)


def _params_dict(task: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    _, params_cls = _builder(task)
    return asdict(params_cls(**(params or {})))


def import_lot(
    files: Sequence[str | Path], task: str, out: str | Path, *, split: str | None = None
) -> BuildReport:
    """Import official LOT jsonl files (a split per file: from `split` or the file name) into a dataset folder."""
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; tasks: {', '.join(TASKS)}")
    by_split: dict[str, list[dict[str, Any]]] = {}
    paths: list[Path] = []
    for file in files:
        path = Path(file)
        if path.is_dir():
            paths.extend(p for p in (path / f"{s}.jsonl" for s in SPLITS) if p.exists())
        elif path.exists():
            paths.append(path)
        else:
            raise InputError("file not found", path=str(path))
    for path in paths:
        file_split = split or split_of_file(path, "train")
        if file_split in by_split:
            raise InputError(f"a second file for split {file_split!r}; pass --split or rename", path=str(path))
        by_split[file_split] = read_lot_file(path, task, file_split)
    stats = {"examples_imported": sum(len(v) for v in by_split.values())}
    rows = write_dataset(
        out,
        task,
        by_split,
        command="lotdata import lot",
        params={"task": task, "split": split},
        inputs=paths,
        stats=stats,
        lot_jsonl=False,
    )
    return BuildReport(task=task, out=Path(out), rows_per_split=rows, stats=stats)


def dataset_task(folder: str | Path) -> str:
    return read_manifest(folder)["task"]


def read_dataset(folder: str | Path) -> dict[str, pa.Table]:
    """The split tables of a dataset folder, checked against the task's schema."""
    folder = Path(folder)
    schema = TASK_SCHEMAS[dataset_task(folder)]
    return {s: read_parquet(folder / f"{s}.parquet", schema) for s in SPLITS if (folder / f"{s}.parquet").exists()}


def export_lot(folder: str | Path, out: str | Path, *, include_empty: bool = False) -> dict[str, int]:
    """Write `{train,val,test}.jsonl` in the official LOT format; empty splits are skipped unless asked."""
    task = dataset_task(folder)
    written = {}
    for split, table in read_dataset(folder).items():
        if table.num_rows == 0 and not include_empty:
            continue
        write_jsonl((to_lot(task, row) for row in table.to_pylist()), Path(out) / f"{split}.jsonl")
        written[split] = table.num_rows
    return written
