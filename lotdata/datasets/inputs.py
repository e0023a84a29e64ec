"""What a path holds: one decision, used by every stage (`open_input`).

A file is what the format registry's one detector says (`lotdata.datasets.formats`, as for `lotdata read`):
each format's record names the kind `open_input` gives it.

A folder with a `manifest.json` says its `kind`; folders written before manifests had one are
recognised by their manifest's `task` field and their files. A stage that needs one kind asks for it
(`open_input(path, expect=("dataset",))`) and a path of another kind is bad input (exit 3) whose
message says what the path holds and what was expected.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lotdata.datasets.formats import Probe, detect, find_format
from lotdata.datasets.lotformat import lot_task_of, split_of_file
from lotdata.errors import InputError, must_exist
from lotdata.io import INCOMPLETE_MARKER, MANIFEST_NAME, manifest_kind, read_manifest

#: every kind of input, with the words an error message uses for it
KINDS: dict[str, str] = {
    "dataset": "a task dataset folder",
    "stories": "a stories table (Parquet)",
    "stories-splits": "a folder of stories split tables (overlap-filtered stories)",
    "task-table": "a task table (Parquet)",
    "clean": "a `lotdata clean` output folder",
    "crawl": "a `lotdata crawl` output folder",
    "lot-jsonl": "LOT jsonl (a file, or a folder of train/val/test.jsonl)",
    "storycloze-csv": "a Story Cloze Test csv (a file, or a folder of them)",
    "audit-report": "a `lotdata audit-bias` report folder",
    "overlap-report": "a `lotdata overlap` report folder",
    "jsonl": "a jsonl file that is not LOT jsonl",
    "folder": "a folder of none of the kinds lotdata writes",
    "file": "a file of none of the kinds lotdata reads as a table",
}

_LOT_SPLIT_NAMES = ("train", "val", "dev", "valid", "validation", "test")


@dataclass(frozen=True)
class Input:
    """A recognised input: its kind, the task where it has one, its manifest and the files that hold its rows."""

    path: Path
    kind: str
    task: str | None = None
    manifest: dict[str, Any] | None = None
    files: tuple[Path, ...] = field(default_factory=tuple)

    def describe(self) -> str:
        words = KINDS.get(self.kind, self.kind)
        return (
            f"{words} ({self.task})"
            if self.task and self.kind != "dataset"
            else (f"a {self.task} dataset folder" if self.kind == "dataset" and self.task else words)
        )


def lot_jsonl_files(folder: Path) -> list[Path]:
    """The LOT split files of a folder (train/val/dev/valid/test.jsonl), in split order."""
    return [folder / f"{s}.jsonl" for s in _LOT_SPLIT_NAMES if (folder / f"{s}.jsonl").exists()]


def is_storycloze_csv(path: str | Path) -> bool:
    """A Story Cloze Test csv file, as the format detector decides."""
    path = Path(path)
    if not path.is_file():
        return False
    found = find_format(path)
    return found is not None and found.name == "storycloze"


def first_jsonl_record(path: Path) -> tuple[int, Any] | None:
    """(line number, record) of the first non-blank line of a jsonl file; None when it has none."""
    try:
        with open(path, encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, start=1):
                if line.strip():
                    try:
                        return line_no, json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise InputError(f"not JSON ({exc})", path=str(path), row=line_no) from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=str(path)) from None
    return None


def lot_task_of_file(path: Path) -> str | None:
    """The LOT task of a jsonl file's first record; None when it is no task's record (or the file is empty)."""
    first = first_jsonl_record(path)
    if first is None:
        return None
    try:
        return lot_task_of(first[1])
    except ValueError:
        return None


def _open_folder(path: Path) -> Input:
    if (path / MANIFEST_NAME).exists() or (path / INCOMPLETE_MARKER).exists():
        manifest = read_manifest(path)  # refuses an incomplete folder
        kind = manifest_kind(manifest)
        task = manifest.get("task") if kind == "dataset" else None
        files = tuple(path / e["file"] for e in (manifest.get("splits") or {}).values() if "file" in e)
        return Input(path, kind, task, manifest, files)
    if (path / "audit.json").exists() and (path / "report.md").exists():
        return Input(path, "audit-report", files=(path / "audit.json",))
    if (path / "summary.json").exists() and (path / "examples.parquet").exists():
        return Input(path, "overlap-report", files=(path / "examples.parquet",))
    jsonls = lot_jsonl_files(path)
    if jsonls:
        return Input(path, "lot-jsonl", lot_task_of_file(jsonls[0]), files=tuple(jsonls))
    csvs = tuple(p for p in sorted(path.glob("*.csv")) if is_storycloze_csv(p))
    if csvs:
        return Input(path, "storycloze-csv", "clozet", files=csvs)
    return Input(path, "folder")


def _open_file(path: Path) -> Input:
    """What the format detector says the file is (`InputFormat.kind`); a file of no format is a "file"."""
    probe = Probe(path)
    found = detect(probe)
    kind, task = found.kind(probe) if found is not None else ("file", None)
    return Input(path, kind, task, files=(path,))


def open_input(path: str | Path, expect: Sequence[str] | None = None, *, what: str | None = None) -> Input:
    """Recognise what `path` holds; with `expect`, any other kind is an InputError (exit 3) saying what
    the path holds and what was expected (`what` overrides the expected words)."""
    path = must_exist(path, "input")
    found = _open_folder(path) if path.is_dir() else _open_file(path)
    if expect is not None and found.kind not in expect:
        wanted = what or " or ".join(KINDS.get(k, k) for k in expect)
        raise InputError(f"this is {found.describe()}, expected {wanted}", path=str(path))
    return found


def lot_split_files(files: Sequence[Path], default: str | None = "test") -> dict[str, Path]:
    """Split name -> file for LOT jsonl files, from their names (else `default`, or the file's stem when
    `default` is None); two files for one split are an error."""
    splits: dict[str, Path] = {}
    for file in files:
        split = split_of_file(file, file.stem if default is None else default)
        if split in splits:
            raise InputError(f"a second file for split {split!r}", path=str(file))
        splits[split] = file
    return splits
