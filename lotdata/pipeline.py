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

from lotdata.errors import InputError, LotdataError, MissingFileError
from lotdata.io import MANIFEST_NAME, check_output_file, sha256_file, write_parquet, write_text
from lotdata.resources import resolve_input
from lotdata.schema import QUARANTINE, STORIES, table_from_rows

DONE_DIR = ".done"
BUILD_KEYS = {"task", "out", "seed", "n", "train_n", "split", "params", "lot_jsonl", "clozet", "stopwords", "clozet_split", "statuses",
              "tokenizer", "cases"}


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
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read recipe: not UTF-8 text ({exc.reason} at byte {exc.start}); a recipe is a TOML file",
                         path=str(path)) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read recipe: {exc}", path=str(path)) from exc
    if "read" not in recipe and "stories" not in recipe:
        raise InputError("a recipe needs a [read] table or a top-level stories = '...' path", path=str(path))
    for i, step in enumerate(recipe.get("build", [])):
        if "task" not in step:
            raise InputError(f"[[build]] step {i + 1} has no task", path=str(path))
        unknown = sorted(set(step) - BUILD_KEYS)
        if unknown:
            raise InputError(f"[[build]] step {i + 1} has unknown key(s) {unknown}; known: {sorted(BUILD_KEYS)}", path=str(path))
    return recipe


def _fingerprint(step: dict[str, Any], inputs: list[Path]) -> str:
    from lotdata.text.tokenize import tokenizer_name

    # the tokenizer changes the data without changing a parameter: a run with another one is not "done"
    payload = json.dumps(
        {"step": step, "inputs": [sha256_file(p) for p in inputs], "tokenizer": tokenizer_name()}, sort_keys=True, default=str
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def _output_hashes(outputs: list[Path]) -> dict[str, str | None]:
    """sha256 of every output file on disk (None: missing): a file output itself, or each file a dataset
    folder's manifest lists (its splits and LOT files)."""
    files: list[Path] = []
    for output in outputs:
        if output.name == MANIFEST_NAME:
            manifest = json.loads(output.read_text(encoding="utf-8"))
            files += [output.parent / entry["file"] for entry in (manifest.get("splits") or {}).values()]
            files += [output.parent / rel for rel in (manifest.get("lot_files") or {})]
        else:
            files.append(output)
    return {str(f): sha256_file(f) if f.is_file() else None for f in files}


def _is_done(root: Path, name: str, fingerprint: str, outputs: list[Path]) -> bool:
    """Done: the marker's fingerprint matches and every output file is there with the sha256 recorded for it."""
    marker = root / DONE_DIR / f"{name}.json"
    if not marker.exists() or not all(p.exists() for p in outputs):
        return False
    try:
        done = json.loads(marker.read_text())
        if done.get("fingerprint") != fingerprint or not done.get("outputs"):
            return False
        current = _output_hashes(outputs)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    return None not in current.values() and current == done["outputs"]


def _mark_done(root: Path, name: str, fingerprint: str, summary: dict[str, Any], outputs: list[Path]) -> None:
    record = {"fingerprint": fingerprint, "summary": summary, "outputs": _output_hashes(outputs)}
    write_text(json.dumps(record, indent=2, default=str), root / DONE_DIR / f"{name}.json")


def read_step(
    inputs: list[str | Path],
    out: str | Path,
    *,
    fmt: str | None = None,
    lang: str | None = None,
    source: str | None = None,
    license: str | None = None,
) -> dict[str, Any]:
    """Read corpora into a stories Parquet file; rejected records go to `<out>.quarantine.parquet`.

    Nothing read at all (an empty file, every record quarantined) is an error, not an empty table.
    """
    from lotdata.sources.readers import FORMATS, check_lang, common_reasons, read_stories

    out = check_output_file(out)
    if fmt is not None and fmt not in FORMATS:
        raise LotdataError(f"unknown --format {fmt!r}; formats: {', '.join(FORMATS)}")
    check_lang(lang)
    paths = [resolve_input(p) for p in inputs]
    for path in paths:
        if not path.exists():
            raise MissingFileError("file not found", path=str(path))
    result = read_stories(paths, fmt=fmt, lang=lang, source=source, license=license)
    quarantine_path = quarantine_path_for(out)
    if result.quarantine:
        write_parquet(table_from_rows(result.quarantine, QUARANTINE), quarantine_path)
    elif quarantine_path.exists():
        quarantine_path.unlink()
    if not result.stories:
        where = (f"; {len(result.quarantine)} record(s) quarantined in {quarantine_path} ({common_reasons(result.quarantine)})"
                 if result.quarantine else "")
        raise InputError(f"no story could be read{where}", path=", ".join(map(str, paths)))
    write_parquet(table_from_rows(result.stories, STORIES), out)
    return {**result.counts, "stories": len(result.stories), "quarantine": len(result.quarantine)}


def _step_params(step: dict[str, Any], recipe: Path) -> dict[str, Any] | None:
    """The step's params; a step-level `stopwords = FILE` (OutGen) joins them as a parameter."""
    params = dict(step.get("params") or {})
    if "stopwords" in step:
        params["stopwords"] = str(_recipe_relative(recipe, step["stopwords"]))
    return params or None


def _recipe_relative(recipe: Path, value: str) -> Path:
    candidate = Path(value)
    if candidate.is_absolute() or candidate.exists():
        return candidate
    return recipe.parent / candidate


def _files_of(path: Path | None) -> list[Path]:
    if path is None or not path.exists():
        return []
    return [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".parquet", ".jsonl", ".json"))


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
    from lotdata.tasks.clozet import CLOZET_SPLIT, build_clozet

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
            _mark_done(root, "read", fp, summary, [stories_path])
            finish(StepResult("read", [stories_path], skipped=False, summary=summary))
    else:
        stories_path = Path(recipe["stories"])
        if not stories_path.exists():
            raise MissingFileError(f"the stories table named by the recipe {path} does not exist (lotdata read ... --out it)", path=str(stories_path))

    built: dict[str, Path] = {}  # the folders earlier build steps wrote, by their `out` name
    for step in recipe.get("build", []):
        task = step["task"]
        out = root / step.get("out", task)
        name = f"build-{step.get('out', task)}"
        clozet = step.get("clozet")
        if clozet is not None:  # a ClozeT dataset for PlotCom val/test: an earlier step's out, else relative to the recipe's folder
            clozet = built.get(clozet) or _recipe_relative(Path(path), clozet)
        cases = step.get("cases")
        if task == "clozet":
            if cases is None:
                raise InputError(f"[[build]] step {name}: a clozet step needs cases = the written ClozeT cases (a folder or jsonl)", path=str(path))
            cases = _recipe_relative(Path(path), cases)
            if not cases.exists():
                raise MissingFileError(f"the ClozeT cases named by step {name} do not exist", path=str(cases))
        built[step.get("out", task)] = out
        fp = _fingerprint({"build": step}, [stories_path, *_files_of(clozet), *_files_of(cases)])
        outputs = [out / "manifest.json"]
        if not force and _is_done(root, name, fp, outputs):
            finish(StepResult(name, [out], skipped=True))
            continue
        if task == "clozet":
            try:
                report = build_clozet(cases, out, split=step.get("split") or CLOZET_SPLIT, seed=int(step.get("seed", 0)),
                                      n=step.get("n"), lot_jsonl=bool(step.get("lot_jsonl", True)), tokenizer=step.get("tokenizer"),
                                      command=f"lotdata run {path} --out {root}")
            except (TypeError, ValueError) as exc:
                raise LotdataError(f"{path}: step {name}: {exc}") from exc
            summary = {**report.stats, "rows": report.rows_per_split, "warnings": report.warnings, "notes": report.notes}
            _mark_done(root, name, fp, summary, outputs)
            finish(StepResult(name, [out], skipped=False, summary=summary))
            continue
        on_start, advance = progress_factory(task) if progress_factory else (None, None)
        try:
            report = build_dataset(
                task,
                [stories_path],
                out,
                n=step.get("n"),
                train_n=step.get("train_n"),
                seed=int(step.get("seed", 0)),
                split=step.get("split"),
                params=_step_params(step, Path(path)),
                lot_jsonl=bool(step.get("lot_jsonl", True)),
                clozet=clozet,
                clozet_split=step.get("clozet_split"),
                statuses=step.get("statuses"),
                tokenizer=step.get("tokenizer"),
                command=f"lotdata run {path} --out {root}",
                progress=advance,
                on_start=on_start,
            )
        except (TypeError, ValueError) as exc:
            raise LotdataError(f"{path}: step {name}: {exc}") from exc
        summary = {**report.stats, "rows": report.rows_per_split, "warnings": report.warnings, "notes": report.notes}
        _mark_done(root, name, fp, summary, outputs)
        finish(StepResult(name, [out], skipped=False, summary=summary))
    return results
