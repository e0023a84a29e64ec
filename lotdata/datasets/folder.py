"""Dataset folders: write one (Parquet splits, LOT jsonl, card, manifest), read one back, import and export LOT jsonl.

A dataset folder holds `train.parquet`, `val.parquet`, `test.parquet`, `README.md` (dataset card),
`manifest.json` and, when asked, `lot/{train,val,test}.jsonl` in the official LOT format. While it is
written it holds `.incomplete`, which readers refuse.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import pyarrow as pa

from lotdata.datasets.card import write_card
from lotdata.datasets.inputs import Input, open_input
from lotdata.datasets.lotformat import read_lot_file, split_of_file, to_lot
from lotdata.datasets.registry import get_task, task_names
from lotdata.datasets.release import licenses_of_inputs, upstream_of
from lotdata.datasets.splits import SplitSpec
from lotdata.datasets.stats import split_stats
from lotdata.errors import InputError, MissingFileError
from lotdata.io import (
    MANIFEST_NAME,
    check_output_dir,
    manifest_dict,
    mark_complete,
    mark_incomplete,
    read_parquet,
    sha256_file,
    write_jsonl,
    write_manifest,
    write_parquet,
)
from lotdata.schema import SPLITS, STORIES, table_from_rows


@dataclass
class BuildReport:
    task: str
    out: Path
    rows_per_split: dict[str, int]
    stats: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    #: what the build decided for the user that is no problem (e.g. the split a ClozeT file was taken as)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The report as a command's summary (what the CLI prints and a recipe step records)."""
        return {
            "task": self.task,
            "rows": dict(self.rows_per_split),
            "stats": dict(self.stats),
            "warnings": list(self.warnings),
            "notes": list(self.notes),
        }


def load_stories(paths: Sequence[str | Path], quarantine: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Stories from one or more `stories` Parquet files, in file order; a story id seen twice is kept once.

    Every row is validated (`story_problem`: empty text, unknown status, a language its `lang` does not name);
    a failing row, or one whose story_id an earlier row had with another text, is left out and goes to
    `quarantine` when given, else is counted on stderr. Rows there, none usable: exit 3."""
    from lotdata.datasets.validate import story_problem

    rows: list[dict[str, Any]] = []
    text_of: dict[str, str] = {}
    bad: list[dict[str, Any]] = []
    for path in _stories_files(paths):
        for number, row in enumerate(read_parquet(path, STORIES).to_pylist(), start=1):
            reason = story_problem(row)
            if reason is None and row["story_id"] in text_of:
                if text_of[row["story_id"]] == row["text"]:
                    continue  # the same story twice: kept once
                reason = f"story_id {row['story_id']!r} was read before with another text"
            if reason is not None:
                bad.append(
                    {
                        "path": str(path),
                        "row": number,
                        "reason": reason,
                        "raw": json.dumps(row, ensure_ascii=False, default=str)[:500],
                    }
                )
                continue
            text_of[row["story_id"]] = row["text"]
            rows.append(row)
    if bad:
        _report_bad_rows(Path(", ".join(map(str, paths))), bad, quarantine)
        if not rows:
            raise InputError(
                f"no usable story: all {len(bad)} row(s) fail validation ({_reasons(bad)})",
                path=", ".join(map(str, paths)),
            )
    return rows


def _stories_files(paths: Sequence[str | Path]) -> list[Path]:
    """The stories Parquet files behind each path: a stories table, or the stories a clean/crawl folder kept."""
    files: list[Path] = []
    for path in paths:
        found = open_input(
            path,
            expect=("stories", "clean", "crawl", "stories-splits", "file"),
            what="a stories Parquet table (or a clean/crawl output folder)",
        )
        if found.kind in ("clean", "crawl"):
            files.append(found.path / "stories.parquet")
        elif found.kind == "stories-splits":
            files.extend(found.files)
        else:
            files.append(found.path)
    return files


def split_warnings(by_split: Mapping[str, list], spec: SplitSpec | None, train_n: int | None) -> list[str]:
    """What a user should hear about the sizes they got: an empty split, a split short of its target."""
    notes = []
    for split in SPLITS:
        rows = len(by_split.get(split, []))
        if rows == 0:
            notes.append(f"split {split!r} is empty (datasets.load_dataset skips it; the card leaves it out)")
        elif spec is not None and spec.by_size and split in spec.values and rows < int(spec.values[split]):
            notes.append(f"split {split!r} has {rows} examples, fewer than the {spec.values[split]} asked for")
    if train_n is not None and 0 < len(by_split.get("train", [])) < train_n:
        notes.append(f"split 'train' has {len(by_split['train'])} examples, fewer than --train-n {train_n}")
    return notes


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
    extra: Mapping[str, Any] | None = None,
    card: bool = True,
    tokenizer: str | None = None,
) -> dict[str, int]:
    """Write one Parquet per split (always all three, possibly empty), the LOT jsonl, the card (its
    statistics count words with `tokenizer`) and the manifest.

    While it writes, the folder holds `.incomplete` (readers refuse it); the marker goes last, so a
    killed build leaves a folder that says so instead of a mix of old and new files.
    """
    out = Path(out)
    schema = get_task(task).schema
    mark_incomplete(out)
    files, lot_files = {}, {}
    for split in SPLITS:
        rows = by_split.get(split, [])
        files[split] = write_parquet(table_from_rows(rows, schema), out / f"{split}.parquet")
        if lot_jsonl:
            lot_files[f"lot/{split}.jsonl"] = write_jsonl(
                (to_lot(task, row) for row in rows), out / "lot" / f"{split}.jsonl"
            )
    extra = {**(extra or {}), "lot_files": {name: sha256_file(path) for name, path in lot_files.items()}}
    upstream = upstream_of(inputs)  # the clean/crawl manifests of what was read, for the card's datasheet
    if upstream and "upstream" not in extra:
        extra["upstream"] = upstream
    if not extra.get("licenses") and (inherited := licenses_of_inputs(inputs)):  # a dataset made from datasets
        extra["licenses"] = inherited
    manifest = manifest_dict(
        kind="dataset", task=task, command=command, params=params, inputs=inputs, files=files, stats=stats, extra=extra
    )
    if card:
        write_card(out, manifest=manifest, tokenizer=tokenizer)
    write_manifest(out, manifest)
    mark_complete(out)
    return {split: len(by_split.get(split, [])) for split in SPLITS}


def load_clozet(source: str | Path, notes: list[str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """ClozeT rows by split from a ClozeT dataset folder (with a manifest) or LOT ClozeT jsonl (a file or a folder).

    For jsonl, each file's split comes from its name (train/val/dev/test, else test); `notes` gets one line per file."""
    path = Path(source)
    if not path.exists():
        raise MissingFileError("no such ClozeT dataset", path=str(path))
    found = open_input(path)
    if found.kind == "dataset":
        if found.task != "clozet":
            raise InputError(f"a {found.task} dataset, not a ClozeT one", path=str(path))
        return {s: t.to_pylist() for s, t in read_dataset(path).items()}
    if found.manifest is not None:
        raise InputError(
            f"this is {found.describe()}, expected a ClozeT dataset folder or LOT ClozeT jsonl", path=str(path)
        )
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise InputError("no manifest.json and no LOT ClozeT *.jsonl files", path=str(path))
    by_split: dict[str, list[dict[str, Any]]] = {}
    for file in files:
        split = split_of_file(file, "test")
        if notes is not None:
            how = "from its name" if split_of_file(file, "") else "its name is not train/val/test, so test"
            notes.append(f"ClozeT {file.name} -> {split} ({how}; use a folder with val.jsonl/test.jsonl to set)")
        by_split.setdefault(split, []).extend(read_lot_file(file, "clozet", split))
    return by_split


def _dataset_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".parquet", ".jsonl"))


def import_lot(
    files: Sequence[str | Path],
    task: str,
    out: str | Path,
    *,
    split: str | None = None,
    command: str | None = None,
    license: str | None = None,
) -> BuildReport:
    """Import official LOT jsonl files (a split per file: from `split` or the file name) into a dataset folder;
    `license` (a known corpus's name is recognised: `lot`, ...) goes into the manifest for the card."""
    from lotdata.datasets.licenses import terms_of

    get_task(task)  # an unknown task is a ValueError naming the known ones
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; splits: {', '.join(SPLITS)}")
    check_output_dir(out)
    by_split: dict[str, list[dict[str, Any]]] = {}
    paths: list[Path] = []
    for file in files:
        path = Path(file)
        if path.is_dir():
            paths.extend(p for p in (path / f"{s}.jsonl" for s in SPLITS) if p.exists())
        elif path.exists():
            paths.append(path)
        else:
            raise MissingFileError("file not found", path=str(path))
    if not paths:
        raise InputError("no LOT jsonl files (train/val/test.jsonl) to import", path=", ".join(map(str, files)))
    for path in paths:
        file_split = split or split_of_file(path, "train")
        if file_split in by_split:
            raise InputError(f"a second file for split {file_split!r}; pass --split or rename", path=str(path))
        by_split[file_split] = read_lot_file(path, task, file_split)
    stats = {"examples_imported": sum(len(v) for v in by_split.values())}
    if not stats["examples_imported"]:
        raise InputError("no examples in the file(s)", path=", ".join(map(str, paths)))
    rows = write_dataset(
        out,
        task,
        by_split,
        command=command or "lotdata import lot",
        params={"task": task, "split": split},
        inputs=paths,
        stats=stats,
        lot_jsonl=False,
        extra={
            "languages": sorted({r["lang"] for rows in by_split.values() for r in rows}),
            "source_format": "LOT jsonl",
            "licenses": [terms_of(license).name] if license and terms_of(license) else [],
        },
    )
    return BuildReport(
        task=task, out=Path(out), rows_per_split=rows, stats=stats, warnings=split_warnings(by_split, None, None)
    )


def open_dataset(folder: str | Path) -> Input:
    """A task dataset folder (InputError, exit 3, naming what the folder holds when it is another kind)."""
    found = open_input(folder, expect=("dataset",))
    if found.task not in task_names():
        raise InputError(
            f"the manifest names task {found.task!r}, which lotdata does not know; tasks: {', '.join(task_names())}",
            path=str(folder),
        )
    return found


def dataset_task(folder: str | Path) -> str:
    return open_dataset(folder).task


#: a split file up to this size is checked against the manifest's sha256 on every read (a few ms per MB);
#: larger ones only with `verify=True` or LOTDATA_VERIFY=1 (row counts are always checked)
VERIFY_BELOW_BYTES = 256 << 20


def read_dataset(
    folder: str | Path, *, verify: bool | None = None, quarantine: list[dict[str, Any]] | None = None
) -> dict[str, pa.Table]:
    """The split tables of a dataset folder, checked against the task's schema and the manifest, every row validated.

    Each split file must have the manifest's row count and (see VERIFY_BELOW_BYTES) sha256, else the folder
    was changed after it was written (a `val.parquet` replaced by `test.parquet`): exit 3. A row that fails
    `example_problem` (or repeats an example_id) is left out and goes to `quarantine` when given, else is
    counted on stderr; a dataset with rows, none of them usable, is exit 3.
    """
    folder = Path(folder)
    manifest = open_dataset(folder).manifest
    task = manifest["task"]
    schema = get_task(task).schema
    entries = manifest.get("splits") or {}
    listed = {split: entry.get("file", f"{split}.parquet") for split, entry in entries.items()}
    for split, name in listed.items():
        if not (folder / name).exists():
            raise InputError(
                f"split {split!r} is listed in {MANIFEST_NAME} but its file is missing; build the dataset again",
                path=str(folder / name),
            )
    files = {s: listed.get(s, f"{s}.parquet") for s in SPLITS}
    if verify is None and os.environ.get("LOTDATA_VERIFY", "") not in ("", "0"):
        verify = True
    tables: dict[str, pa.Table] = {}
    bad: list[dict[str, Any]] = []
    seen: set[str] = set()
    for split, name in files.items():
        path = folder / name
        if not path.exists():
            continue
        _check_against_manifest(path, split, entries.get(split) or {}, verify)
        tables[split] = _usable_rows(task, split, read_parquet(path, schema), path, seen, bad)
    if bad:
        _report_bad_rows(folder, bad, quarantine)
        if not any(t.num_rows for t in tables.values()):
            raise InputError(
                f"no usable example: all {len(bad)} row(s) fail validation ({_reasons(bad)})", path=str(folder)
            )
    return tables


def _check_against_manifest(path: Path, split: str, entry: Mapping[str, Any], verify: bool | None) -> None:
    import pyarrow.parquet as pq

    rows = pq.ParquetFile(path).metadata.num_rows
    if "rows" in entry and rows != entry["rows"]:
        raise InputError(
            f"split {split!r} has {rows} rows, the manifest says {entry['rows']}: the file was changed or "
            f"replaced after the dataset was written; build it again",
            path=str(path),
        )
    cheap = path.stat().st_size <= VERIFY_BELOW_BYTES
    if entry.get("sha256") and verify is not False and (verify or cheap) and sha256_file(path) != entry["sha256"]:
        raise InputError(
            f"split {split!r}: sha256 differs from the manifest's: the file was changed or replaced after "
            f"the dataset was written (e.g. another split's file copied over it); build it again",
            path=str(path),
        )


def _usable_rows(
    task: str, split: str, table: pa.Table, path: Path, seen: set[str], bad: list[dict[str, Any]]
) -> pa.Table:
    from lotdata.datasets.validate import example_problem

    keep = []
    for number, row in enumerate(table.to_pylist(), start=1):
        reason = example_problem(task, row, split)
        if reason is None and row["example_id"] in seen:
            reason = f"example_id {row['example_id']!r} repeats an earlier row"
        if reason is None:
            seen.add(row["example_id"])
        else:
            bad.append(
                {
                    "path": str(path),
                    "row": number,
                    "reason": reason,
                    "raw": json.dumps(row, ensure_ascii=False, default=str)[:500],
                }
            )
        keep.append(reason is None)
    return table if all(keep) else table.filter(pa.array(keep, type=pa.bool_()))


def _reasons(bad: list[dict[str, Any]], top: int = 3) -> str:
    counts = Counter(b["reason"] for b in bad)
    return "; ".join(f"{n} x {reason}" for reason, n in counts.most_common(top)) + (
        f"; {len(counts) - top} other reason(s)" if len(counts) > top else ""
    )


def _report_bad_rows(folder: Path, bad: list[dict[str, Any]], quarantine: list[dict[str, Any]] | None) -> None:
    if quarantine is not None:
        quarantine.extend(bad)
        return
    from lotdata.progress import console

    console.print(
        f"warning: {folder}: {len(bad)} row(s) left out, they fail validation ({_reasons(bad)})",
        markup=False,
        highlight=False,
    )


def export_lot(folder: str | Path, out: str | Path, *, include_empty: bool = False) -> dict[str, int]:
    """Write `{train,val,test}.jsonl` in the official LOT format; empty splits are skipped unless asked."""
    task = dataset_task(folder)
    check_output_dir(out)
    written = {}
    for split, table in read_dataset(folder).items():
        if table.num_rows == 0 and not include_empty:
            continue
        write_jsonl((to_lot(task, row) for row in table.to_pylist()), Path(out) / f"{split}.jsonl")
        written[split] = table.num_rows
    return written


def dataset_stats(folder: str | Path) -> dict[str, Any]:
    """{"task": ..., "splits": {split: {statistic: value}}} (LOT Table 3) for a dataset folder."""
    from lotdata.datasets.card import saved_stats

    found = open_dataset(folder)
    task = found.task
    quarantine: list[dict[str, Any]] = []
    tables = read_dataset(folder, quarantine=quarantine)  # verified against the manifest, every row checked
    if quarantine:
        _report_bad_rows(Path(folder), quarantine, None)
    saved = None if quarantine else saved_stats(Path(folder), found.manifest)  # what the build computed
    return {
        "task": task,
        "splits": {s: (saved or {}).get(s) or split_stats(task, t.to_pylist()) for s, t in tables.items()},
    }
