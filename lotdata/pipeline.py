"""Recipes: a TOML file naming the sources to read and every parameter of every build step.

A recipe runs its steps in order. Each finished step leaves a completion marker holding a fingerprint
of its parameters and the sha256 of its inputs; a re-run skips a step whose fingerprint still matches
and whose outputs are still there, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from lotdata.errors import InputError, LotdataError
from lotdata.io import sha256_file, write_parquet, write_text
from lotdata.resources import resolve_input
from lotdata.schema import QUARANTINE, STORIES, table_from_rows

DONE_DIR = ".done"


@dataclass
class StepResult:
    name: str
    outputs: list[Path]
    skipped: bool
    summary: dict[str, Any] = field(default_factory=dict)


def load_recipe(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        recipe = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read recipe: {exc}", path=str(path)) from exc
    if "read" not in recipe and "stories" not in recipe:
        raise InputError("a recipe needs a [read] table or a top-level stories = '...' path", path=str(path))
    for i, step in enumerate(recipe.get("build", [])):
        if "task" not in step:
            raise InputError(f"[[build]] step {i + 1} has no task", path=str(path))
    return recipe


def _fingerprint(step: dict[str, Any], inputs: list[Path]) -> str:
    payload = json.dumps({"step": step, "inputs": [sha256_file(p) for p in inputs]}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def _is_done(root: Path, name: str, fingerprint: str, outputs: list[Path]) -> bool:
    marker = root / DONE_DIR / f"{name}.json"
    if not marker.exists() or not all(p.exists() for p in outputs):
        return False
    return json.loads(marker.read_text()).get("fingerprint") == fingerprint


def _mark_done(root: Path, name: str, fingerprint: str, summary: dict[str, Any]) -> None:
    write_text(json.dumps({"fingerprint": fingerprint, "summary": summary}, indent=2, default=str), root / DONE_DIR / f"{name}.json")


def read_step(
    inputs: list[str | Path],
    out: str | Path,
    *,
    fmt: str | None = None,
    lang: str | None = None,
    source: str | None = None,
    license: str | None = None,
) -> dict[str, Any]:
    """Read corpora into a stories Parquet file; rejected records go to `<out>.quarantine.parquet`."""
    from lotdata.sources.readers import read_stories

    out = Path(out)
    result = read_stories([resolve_input(p) for p in inputs], fmt=fmt, lang=lang, source=source, license=license)
    write_parquet(table_from_rows(result.stories, STORIES), out)
    quarantine_path = quarantine_path_for(out)
    if result.quarantine:
        write_parquet(table_from_rows(result.quarantine, QUARANTINE), quarantine_path)
    elif quarantine_path.exists():
        quarantine_path.unlink()
    return {**result.counts, "stories": len(result.stories), "quarantine": len(result.quarantine)}


def quarantine_path_for(stories_path: Path) -> Path:
    return stories_path.with_name(stories_path.stem + ".quarantine.parquet")


def run_recipe(
    path: str | Path,
    *,
    out_root: str | Path | None = None,
    force: bool = False,
    on_step: Callable[[StepResult], None] | None = None,
    progress_factory: Callable[[str], tuple[Callable[[int], None], Callable[[int], None]]] | None = None,
) -> list[StepResult]:
    """Run every step of a recipe; returns what each step did (or that it was skipped as done)."""
    from lotdata.tasks.build import build_dataset

    recipe = load_recipe(path)
    root = Path(out_root or recipe.get("out", "out"))
    results: list[StepResult] = []

    def finish(result: StepResult) -> None:
        results.append(result)
        if on_step:
            on_step(result)

    if "read" in recipe:
        read = dict(recipe["read"])
        stories_path = root / read.pop("out", "stories.parquet")
        inputs = [resolve_input(p) for p in read.pop("inputs")]
        missing = [str(p) for p in inputs if not p.exists()]
        if missing:
            raise InputError("input not found", path=", ".join(missing))
        fp = _fingerprint({"read": read}, [p for p in inputs if p.is_file()])
        if not force and _is_done(root, "read", fp, [stories_path]):
            finish(StepResult("read", [stories_path], skipped=True))
        else:
            summary = read_step(inputs, stories_path, fmt=read.get("format"), lang=read.get("lang"),
                                source=read.get("source"), license=read.get("license"))
            _mark_done(root, "read", fp, summary)
            finish(StepResult("read", [stories_path], skipped=False, summary=summary))
    else:
        stories_path = Path(recipe["stories"])

    for step in recipe.get("build", []):
        task = step["task"]
        out = root / step.get("out", task)
        name = f"build-{step.get('out', task)}"
        fp = _fingerprint({"build": step}, [stories_path])
        outputs = [out / "manifest.json"]
        if not force and _is_done(root, name, fp, outputs):
            finish(StepResult(name, [out], skipped=True))
            continue
        on_start, advance = progress_factory(task) if progress_factory else (None, None)
        try:
            report = build_dataset(
                task,
                [stories_path],
                out,
                n=step.get("n"),
                seed=int(step.get("seed", 0)),
                split=step.get("split", "train=0.8,val=0.1,test=0.1"),
                params=step.get("params"),
                lot_jsonl=bool(step.get("lot_jsonl", True)),
                progress=advance,
                on_start=on_start,
            )
        except (TypeError, ValueError) as exc:
            raise LotdataError(f"{path}: step {name}: {exc}") from exc
        summary = {**report.stats, "rows": report.rows_per_split}
        _mark_done(root, name, fp, summary)
        finish(StepResult(name, [out], skipped=False, summary=summary))
    return results
