"""Recipes: a TOML file naming the sources to read and every parameter of every build step.

A recipe runs its steps in order. Each finished step leaves a completion marker holding a fingerprint
of its parameters and the sha256 of its inputs; a re-run skips a step whose fingerprint still matches
and whose outputs are still there, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.io import MANIFEST_NAME, check_output_file, output_lock, quarantine_path_for, sha256_file, write_parquet, write_text
from lotdata.paths import check_inside, check_outputs
from lotdata.resources import resolve_input

DONE_DIR = ".done"
BUILD_KEYS = {"task", "out", "seed", "n", "train_n", "split", "params", "lot_jsonl", "clozet", "stopwords", "clozet_split", "statuses",
              "tokenizer", "cases", "workers", "executor", "ray_address"}
#: the step kinds a recipe may hold, in the order they run (documented in pipelines/README.md)
STEP_KINDS = ("crawl", "extract", "read", "clean", "build", "annotate", "audit")


# ---------------------------------------------------------------------------------------------
# recipe schema: every key of every table is checked before any step runs, naming file, table and key


def _is_str(v: Any) -> bool:
    return isinstance(v, str)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


def _is_str_list(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (_is_str, "a string"),
    "int": (_is_int, "an integer"),
    "int>0": (lambda v: _is_int(v) and v > 0, "an integer > 0"),
    "int>=0": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "num>0": (lambda v: _is_num(v) and v > 0, "a number > 0"),
    "share": (lambda v: _is_num(v) and 0 < v <= 1, "a number in (0, 1]"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "list": (_is_str_list, "a list of strings, e.g. [\"a\", \"b\"]"),
    "str|list": (lambda v: _is_str(v) or _is_str_list(v), "a string or a list of strings"),
    "table": (lambda v: isinstance(v, dict), "a table, e.g. { key = 1 }"),
    "lang": (lambda v: v in ("zh", "en"), "\"zh\" or \"en\""),
}

#: table -> key -> (type, required)
RECIPE_SCHEMA: dict[str, dict[str, tuple[str, bool]]] = {
    "": {"name": ("str", False), "version": ("str", False), "description": ("str", False), "out": ("str", False),
         "stories": ("str|list", False)},
    "crawl": {"out": ("str", False), "max_pages": ("int>=0", False), "extract_only": ("bool", False)},
    "extract": {"inputs": ("list", True), "out": ("str", False), "source": ("str", False), "license": ("str", False),
                "title_selector": ("str", False), "content_selector": ("str", False), "encoding": ("str", False),
                "max_bytes": ("int>0", False), "lang": ("lang", False), "keep_repeated_lines": ("bool", False)},
    "read": {"inputs": ("list", True), "format": ("str", False), "lang": ("lang", False), "source": ("str", False),
             "license": ("str", False), "out": ("str", False)},
    "clean": {"out": ("str", False), "t2s": ("bool", False), "min_chars": ("int>=0", False), "max_chars": ("int>0", False),
              "short_chars": ("int>=0", False), "long_chars": ("int>0", False), "lexicon": ("str", False),
              "near_dup": ("share", False), "cluster": ("share", False), "seed": ("int", False),
              "workers": ("int>0", False), "executor": ("str", False), "ray_address": ("str", False)},
    "build": {"task": ("str", True), "out": ("str", False), "seed": ("int", False), "n": ("int>0", False),
              "train_n": ("int>0", False), "split": ("str", False), "params": ("table", False),
              "lot_jsonl": ("bool", False), "clozet": ("str", False), "stopwords": ("str", False),
              "clozet_split": ("str", False), "statuses": ("str|list", False), "tokenizer": ("str", False),
              "cases": ("str", False), "workers": ("int>0", False), "executor": ("str", False),
              "ray_address": ("str", False)},
    "annotate": {"job": ("str", True), "project": ("str", True), "input": ("str", False), "split": ("str|list", False),
                 "raters": ("int>0", False), "limit": ("int>0", False), "batch_size": ("int>0", False)},
    "audit": {"input": ("str", True), "out": ("str", False), "task": ("str", False), "train_split": ("str", False),
              "seed": ("int", False), "runs": ("int>0", False), "baselines": ("list", False), "workers": ("int>0", False),
              "model_path": ("str", False), "aflite": ("bool", False), "sentiment": ("str", False),
              "executor": ("str", False), "ray_address": ("str", False)},
}
#: tables that may appear once ([read]) or as arrays of tables ([[build]])
_SINGLE = ("crawl", "extract", "read", "clean")
_ARRAYS = ("build", "annotate", "audit")
_CRAWL_TABLES = ("sites", "defaults")


def _check_table(table: dict[str, Any], kind: str, where: str) -> None:
    schema = RECIPE_SCHEMA[kind]
    unknown = sorted(set(table) - set(schema))
    if unknown:
        raise InputError(f"{where} has unknown key(s) {unknown}; known: {sorted(schema)}")
    for key, (type_name, required) in schema.items():
        if key not in table:
            if required:
                raise InputError(f"{where} needs the key '{key}' ({_TYPES[type_name][1]})")
            continue
        check, expected = _TYPES[type_name]
        if not check(table[key]):
            raise InputError(f"{where}: '{key}' must be {expected}, not {table[key]!r}")


def validate_recipe(recipe: dict[str, Any], path: Path) -> None:
    """Check every table and key of a recipe (types, ranges, known names) before anything runs."""
    top = {k: v for k, v in recipe.items() if not isinstance(v, (dict, list)) or k == "stories"}
    extra_top = sorted(set(recipe) - set(top) - set(_SINGLE) - set(_ARRAYS) - set(_CRAWL_TABLES))
    if extra_top:
        raise InputError(f"{path}: unknown table(s) {extra_top}; a recipe holds {sorted((*STEP_KINDS, *_CRAWL_TABLES))}")
    _check_table(top, "", f"{path}")
    for kind in _SINGLE:
        if kind in recipe:
            if not isinstance(recipe[kind], dict):
                raise InputError(f"{path}: [{kind}] must be one table ([{kind}]), not [[{kind}]]")
            _check_table(recipe[kind], kind, f"{path}, [{kind}]")
    for kind in _ARRAYS:
        steps = recipe.get(kind, [])
        if isinstance(steps, dict):
            steps = recipe[kind] = [steps]  # [annotate] written once is one step
        if not isinstance(steps, list):
            raise InputError(f"{path}: '{kind}' must be [[{kind}]] tables")
        for i, step in enumerate(steps, 1):
            _check_table(step, kind, f"{path}, [[{kind}]] step {i}")
    if "crawl" in recipe and "sites" not in recipe:
        raise InputError(f"{path}: [crawl] needs [[sites]] tables in the same recipe (format: pipelines/README.md)")
    if not any(k in recipe for k in ("sites", "extract", "read", "stories")):
        raise InputError(f"{path}: a recipe needs a source: [[sites]] (crawl), [extract], [read] or a top-level stories = '...' path")
    _check_values(recipe, path)


def _check_values(recipe: dict[str, Any], path: Path) -> None:
    """Names that must be one of a list: read format, build task, annotate job, audit sentiment."""
    from lotdata.sources.readers import FORMATS
    from lotdata.datasets.registry import builder_tasks, case_tasks

    from_cases = case_tasks()  # ClozeT: split the written cases (`build clozet`)
    buildable = [*builder_tasks(), *from_cases]

    fmt = recipe.get("read", {}).get("format")
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"{path}, [read]: 'format' must be one of {list(FORMATS)}, not {fmt!r}")
    for i, step in enumerate(recipe.get("build", []), 1):
        if step["task"] not in buildable:
            raise InputError(f"{path}, [[build]] step {i}: 'task' must be one of {buildable}, not {step['task']!r}")
        if (step["task"] in from_cases) != ("cases" in step):
            tasks = " or ".join(f'"{t}"' for t in from_cases)
            raise InputError(f"{path}, [[build]] step {i}: 'cases' (the written cases) goes with task = {tasks} and only there")
    if recipe.get("annotate"):
        from lotdata.annotate.client import KEY_ENV, URL_ENV
        from lotdata.annotate.jobs import JOBS

        for i, step in enumerate(recipe["annotate"], 1):
            if step["job"] not in JOBS:
                raise InputError(f"{path}, [[annotate]] step {i}: 'job' must be one of {list(JOBS)}, not {step['job']!r}")
        missing_env = [name for name in (URL_ENV, KEY_ENV) if not os.environ.get(name)]
        if missing_env:  # the server comes from the environment: say so before the first step runs
            raise LotdataError(f"{path}: [[annotate]] pushes to Label Studio: set {' and '.join(missing_env)}")
    clean = recipe.get("clean", {})
    if clean.get("cluster", 0.5) > clean.get("near_dup", 0.8):
        raise InputError(f"{path}, [clean]: need cluster <= near_dup")
    if clean.get("min_chars", 0) > clean.get("max_chars", 20_000):
        raise InputError(f"{path}, [clean]: min_chars is greater than max_chars: no story could be kept")


@dataclass
class StepResult:
    name: str
    outputs: list[Path]
    skipped: bool
    summary: dict[str, Any] = field(default_factory=dict)


def load_recipe(path: str | Path) -> dict[str, Any]:
    """A recipe read and validated as a whole (see RECIPE_SCHEMA): a bad key fails here, before any work."""
    path = must_exist(path, "recipe file")
    try:
        recipe = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Windows editors) is no TOML error
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read recipe: not UTF-8 text ({exc.reason} at byte {exc.start}); a recipe is a TOML file",
                         path=str(path)) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read recipe: {exc}", path=str(path)) from exc
    validate_recipe(recipe, path)
    if "sites" in recipe:  # the crawl's own keys, checked now rather than when the crawl step starts
        from lotdata.sources.crawl import load_crawl_recipe

        load_crawl_recipe(path)
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
    executor: str = "local",
    workers: int = 1,
    ray_address: str | None = None,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Read corpora into a stories Parquet file; rejected records go to `<out>.quarantine.parquet`.

    A shard per input file on the executor (`executor`, `workers`, `ray_address`); the parts wait in
    `<out>.work/` (a killed run resumes) until the output is written. Nothing read at all (an empty
    file, every record quarantined) is an error, not an empty table.
    """
    from lotdata.sources.readers import FORMATS, check_lang

    out = check_output_file(out)
    if fmt is not None and fmt not in FORMATS:
        raise LotdataError(f"unknown --format {fmt!r}; formats: {', '.join(FORMATS)}")
    check_lang(lang)
    paths = [must_exist(resolve_input(p), "input") for p in inputs]
    check_outputs({"--out": out}, {"input": paths})
    with output_lock(out):
        return _read_into(paths, out, fmt=fmt, lang=lang, source=source, license=license, executor=executor,
                          workers=workers, ray_address=ray_address, progress=progress)


def _read_into(paths: list[Path], out: Path, *, fmt: str | None, lang: str | None, source: str | None,
               license: str | None, executor: str, workers: int, ray_address: str | None,
               progress: bool | None) -> dict[str, Any]:
    from lotdata.sources.reading import read_files, remove_work
    from lotdata.sources.readers import common_reasons

    work = out.with_name(out.name + ".work")
    result = read_files(paths, work, fmt=fmt, lang=lang, source=source, license=license, executor=executor,
                        workers=workers, ray_address=ray_address, progress=progress)
    remove_work(work)
    quarantine_path = quarantine_path_for(out)
    if result.quarantine.num_rows:
        write_parquet(result.quarantine, quarantine_path)
    elif quarantine_path.exists():
        quarantine_path.unlink()
    if not result.stories.num_rows:
        where = (f"; {result.quarantine.num_rows} record(s) quarantined in {quarantine_path} "
                 f"({common_reasons(result.quarantine.to_pylist())})" if result.quarantine.num_rows else "")
        raise InputError(f"no story could be read{where}", path=", ".join(map(str, paths)))
    write_parquet(result.stories, out)
    return {**result.counts, "stories": result.stories.num_rows, "quarantine": result.quarantine.num_rows}


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


def _files_of(path: Path | None, any_suffix: bool = False) -> list[Path]:
    if path is None or not path.exists():
        return []
    suffixes = (".parquet", ".jsonl", ".json")
    return [path] if path.is_file() else sorted(
        p for p in path.rglob("*") if p.is_file() and (any_suffix or p.suffix in suffixes))


def run_recipe(
    path: str | Path,
    *,
    out_root: str | Path | None = None,
    force: bool = False,
    on_step: Callable[[StepResult], None] | None = None,
    progress_factory: Callable[[str], tuple[Callable[[int], None], Callable[[int], None]]] | None = None,
    on_page: Callable[[dict[str, Any]], None] | None = None,
    on_warning: Callable[[str], None] | None = None,
    on_start: Callable[[str], None] | None = None,
) -> list[StepResult]:
    """Run every step of a recipe (crawl -> extract -> read -> clean -> build -> annotate -> audit);
    returns what each step did (or that it was skipped as done); `on_start(step)` as each step starts. The whole recipe is validated and
    every input it names checked before the first step runs; `OUT.lock` is held while it runs."""
    from lotdata.text.tokenize import check_tokenizer_env

    path = Path(path)
    recipe = load_recipe(path)
    root = Path(out_root or recipe.get("out", "out"))
    check_tokenizer_env()
    _check_recipe_extras(recipe)
    _check_recipe_inputs(recipe, path, root)
    with output_lock(root):
        run = _Run(recipe, path, root, force, on_step, progress_factory, on_page, on_warning)
        run.on_start = on_start
        return run.all()


def _check_recipe_extras(recipe: dict[str, Any]) -> None:
    """The optional packages of every step the recipe runs, checked before the first step (exit 4)."""
    from lotdata.errors import require_all

    if "sites" in recipe or "extract" in recipe:
        require_all((("httpx", "sources"), ("trafilatura", "sources")))
    if "clean" in recipe:
        from lotdata.clean.files import CLEAN_NEEDS

        require_all(CLEAN_NEEDS)
    if recipe.get("audit"):
        from lotdata.audit.run import AUDIT_NEEDS

        require_all(AUDIT_NEEDS)


def _check_recipe_inputs(recipe: dict[str, Any], path: Path, root: Path) -> None:
    """Every file a recipe names exists (exit 1, naming the key) and the output folders can be made."""
    from lotdata.io import check_output_dir

    check_output_dir(root)
    for kind in ("read", "extract"):
        for value in recipe.get(kind, {}).get("inputs", []):
            must_exist(resolve_input(_recipe_relative(path, value)) if value != "lotdata:sample" else resolve_input(value),
                       "input", hint=f" (recipe {path}, [{kind}] inputs)")
    for value in _as_list(recipe.get("stories")):
        must_exist(_recipe_relative(path, value), "stories table", hint=f" (recipe {path}, stories; lotdata read ... --out it)")
    if "lexicon" in recipe.get("clean", {}):
        must_exist(_recipe_relative(path, recipe["clean"]["lexicon"]), "file", hint=f" (recipe {path}, [clean] lexicon)")
    built: set[str] = set()
    for i, step in enumerate(recipe.get("build", []), 1):
        for key in ("clozet", "stopwords", "cases"):
            if key in step and not (key == "clozet" and step[key] in built):  # clozet may name an earlier step's out
                must_exist(_recipe_relative(path, step[key]), "file" if key == "stopwords" else "input",
                           hint=f" (recipe {path}, [[build]] step {i} {key})")
        built.add(step.get("out", step["task"]))
    for i, step in enumerate(recipe.get("audit", []), 1):
        if step["input"] not in built:
            must_exist(_recipe_relative(path, step["input"]), "input",
                       hint=f" (recipe {path}, [[audit]] step {i} input: neither a [[build]] out nor a path)")
    _check_recipe_paths(recipe, path, root)


def _check_recipe_paths(recipe: dict[str, Any], path: Path, root: Path) -> None:
    """Every step's output lies inside the run's folder, overlaps no other step's output and no input the
    recipe names (exit 1 naming both), checked before the first step runs."""
    outputs: dict[str, Path] = {}
    inputs: dict[str, list[Path]] = {}

    def output(label: str, value: str) -> Path:
        target = check_inside(root, root / value, f"recipe {path}: {label}")
        outputs[label] = target
        return target

    for kind, default in (("crawl", "crawl"), ("extract", "extracted.parquet"), ("read", "stories.parquet"), ("clean", "clean")):
        if kind in recipe or (kind == "crawl" and "sites" in recipe):
            output(f"[{kind}] out", recipe.get(kind, {}).get("out", default))
    for kind in ("read", "extract"):
        inputs[f"[{kind}] inputs"] = [_recipe_relative(path, v) for v in recipe.get(kind, {}).get("inputs", [])
                                      if v != "lotdata:sample"]
    inputs["stories"] = [_recipe_relative(path, v) for v in _as_list(recipe.get("stories"))]
    if "lexicon" in recipe.get("clean", {}):
        inputs["[clean] lexicon"] = [_recipe_relative(path, recipe["clean"]["lexicon"])]
    built: set[str] = set()
    for i, step in enumerate(recipe.get("build", []), 1):
        output(f"[[build]] step {i} out", step.get("out", step["task"]))
        for key in ("clozet", "stopwords", "cases"):
            if key in step and not (key == "clozet" and step[key] in built):
                inputs[f"[[build]] step {i} {key}"] = [_recipe_relative(path, step[key])]
        built.add(step.get("out", step["task"]))
    for i, step in enumerate(recipe.get("audit", []), 1):
        source = step["input"]
        if source not in built:
            inputs[f"[[audit]] step {i} input"] = [_recipe_relative(path, source)]
        output(f"[[audit]] step {i} out", step.get("out", f"audit-{Path(source).name}"))
    check_outputs(outputs, inputs)


def _as_list(value: str | list[str] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)


class _Run:
    """One run of a recipe: each step kind a method; `stories` is the stories table(s) the next step reads."""

    def __init__(self, recipe, path, root, force, on_step, progress_factory, on_page, on_warning) -> None:
        self.recipe, self.path, self.root, self.force = recipe, path, root, force
        self.on_step, self.progress_factory, self.on_page, self.on_warning = on_step, progress_factory, on_page, on_warning
        self.on_start: Callable[[str], None] | None = None
        self.results: list[StepResult] = []
        self.built: dict[str, Path] = {}  # the folders earlier build steps wrote, by their `out` name
        self.stories: list[Path] = [_recipe_relative(path, v) for v in _as_list(recipe.get("stories"))]

    def all(self) -> list[StepResult]:
        if "sites" in self.recipe:
            self.named("crawl", self.crawl)
        if "extract" in self.recipe:
            self.named("extract", self.extract)
        if "read" in self.recipe:
            self.named("read", self.read)
        if "clean" in self.recipe:
            self.named("clean", self.clean)
        for i, step in enumerate(self.recipe.get("build", []), 1):
            self.named(f"[[build]] {i} ({step['task']} -> {step.get('out', step['task'])})", self.build, step)
        for i, step in enumerate(self.recipe.get("annotate", []), 1):
            self.named(f"[[annotate]] {i} ({step['job']})", self.annotate, step, i)
        for i, step in enumerate(self.recipe.get("audit", []), 1):
            self.named(f"[[audit]] {i}", self.audit, step, i)
        return self.results

    def named(self, name: str, run: Callable[..., None], *args: Any) -> None:
        """Run one step; an error it raises says which step of which recipe failed."""
        from lotdata.errors import is_expected

        self.announce(name)
        try:
            run(*args)
        except Exception as exc:
            prefix = f"recipe {self.path}, step {name}: "
            if is_expected(exc) and exc.args and isinstance(exc.args[0], str) and not exc.args[0].startswith(prefix):
                exc.args = (prefix + exc.args[0], *exc.args[1:])
            raise

    def announce(self, name: str) -> None:
        """Say which step starts, on stderr with a time stamp (a log without a terminal shows progress too)."""
        if self.on_start is not None:
            self.on_start(name)

    def finish(self, result: StepResult) -> None:
        self.results.append(result)
        if self.on_step:
            self.on_step(result)

    def cached(self, name: str, payload: dict[str, Any], inputs: list[Path], outputs: list[Path]) -> str | None:
        """The step's fingerprint, or None when it is done already (then reported as skipped)."""
        fp = _fingerprint(payload, inputs)
        if not self.force and _is_done(self.root, name, fp, outputs):
            self.finish(StepResult(name, outputs, skipped=True))
            return None
        return fp

    def done(self, name: str, fp: str, summary: dict[str, Any], outputs: list[Path]) -> None:
        _mark_done(self.root, name, fp, summary, outputs)
        self.finish(StepResult(name, outputs, skipped=False, summary=summary))

    # crawl: always run, it resumes itself and fetches nothing its log holds ----------------------
    def crawl(self) -> None:
        from lotdata.sources.crawl import crawl

        options = self.recipe.get("crawl", {})
        out = self.root / options.get("out", "crawl")
        summary = crawl(self.path, out, max_pages=options.get("max_pages"),
                        extract_only=bool(options.get("extract_only", False)), on_page=self.on_page,
                        on_warning=self.on_warning)
        self.stories.append(out / "stories.parquet")
        self.finish(StepResult("crawl", [out / "stories.parquet"], skipped=False, summary=summary))

    def extract(self) -> None:
        from lotdata.sources.extract import extract_files

        options = dict(self.recipe["extract"])
        out = self.root / options.pop("out", "extracted.parquet")
        inputs = [_recipe_relative(self.path, v) for v in options.pop("inputs")]
        fp = self.cached("extract", {"extract": options}, [f for i in inputs for f in _files_of(i, any_suffix=True)], [out])
        if fp is not None:
            summary = extract_files(inputs, out, **options)
            self.done("extract", fp, summary, [out])
        self.stories.append(out)

    def read(self) -> None:
        read = dict(self.recipe["read"])
        out = self.root / read.pop("out", "stories.parquet")
        inputs = [resolve_input(v) if v == "lotdata:sample" else _recipe_relative(self.path, v) for v in read.pop("inputs")]
        fp = self.cached("read", {"read": read}, [p for p in inputs if p.is_file()], [out])
        if fp is not None:
            summary = read_step(inputs, out, fmt=read.get("format"), lang=read.get("lang"),
                                source=read.get("source"), license=read.get("license"))
            self.done("read", fp, summary, [out])
        self.stories.append(out)

    def clean(self) -> None:
        from lotdata.clean.dedup import DedupParams
        from lotdata.clean.files import clean_files
        from lotdata.clean.step import CleanParams, load_lexicon

        options = dict(self.recipe["clean"])
        out = self.root / options.pop("out", "clean")
        run = {key: options.pop(key) for key in ("workers", "executor", "ray_address") if key in options}
        lexicon = options.pop("lexicon", None)
        near_dup, cluster, seed = options.pop("near_dup", 0.8), options.pop("cluster", 0.5), options.pop("seed", 1)
        lexicon_path = _recipe_relative(self.path, lexicon) if lexicon else None
        inputs = [*self.stories, *([lexicon_path] if lexicon_path else [])]
        fp = self.cached("clean", {"clean": {**options, "near_dup": near_dup, "cluster": cluster,
                                             **({"seed": seed} if seed != 1 else {})}}, inputs, [out / "manifest.json"])
        if fp is not None:
            params = CleanParams(**options, lexicon=load_lexicon(lexicon_path),
                                 dedup=DedupParams(cluster_threshold=cluster, reject_threshold=near_dup, seed=seed))
            result = clean_files(self.stories, out, params, **run)
            if not result.kept:
                raise InputError(f"step clean: no story kept ({result.counts}); see {out / 'quarantine.parquet'}",
                                 path=", ".join(map(str, self.stories)))
            self.done("clean", fp, dict(result.counts), [out / "manifest.json"])
        self.stories = [out / "stories.parquet"]

    def build(self, step: dict[str, Any]) -> None:
        from lotdata.datasets.registry import get_task
        from lotdata.tasks.build import build_dataset

        build_cases = get_task(step["task"]).case_builder  # ClozeT: from the written cases, not from stories
        if not self.stories and build_cases is None:
            raise LotdataError(f"{self.path}: [[build]] {step['task']}: no stories table (add [read], [extract], [[sites]] or stories = '...')")
        task = step["task"]
        out = self.root / step.get("out", task)
        name = f"build-{step.get('out', task)}"
        clozet = step.get("clozet")
        if clozet is not None:  # a ClozeT dataset for PlotCom val/test: an earlier step's out, else relative to the recipe's folder
            clozet = self.built.get(clozet) or _recipe_relative(self.path, clozet)
        cases = _recipe_relative(self.path, step["cases"]) if "cases" in step else None
        self.built[step.get("out", task)] = out
        fp = self.cached(name, {"build": step}, [*self.stories, *_files_of(clozet), *_files_of(cases)], [out / MANIFEST_NAME])
        if fp is None:
            return
        try:
            if build_cases is not None:
                report = build_cases(cases, out, split=step.get("split"), seed=step.get("seed", 0),
                                     n=step.get("n"), lot_jsonl=step.get("lot_jsonl", True), tokenizer=step.get("tokenizer"),
                                     command=f"lotdata run {self.path} --out {self.root}")
            else:
                on_start, advance = self.progress_factory(task) if self.progress_factory else (None, None)
                report = build_dataset(
                    task, self.stories, out, n=step.get("n"), train_n=step.get("train_n"), seed=step.get("seed", 0),
                    split=step.get("split"), params=_step_params(step, self.path), lot_jsonl=step.get("lot_jsonl", True),
                    clozet=clozet, clozet_split=step.get("clozet_split"), statuses=step.get("statuses"),
                    tokenizer=step.get("tokenizer"), workers=step.get("workers", 1), executor=step.get("executor", "local"),
                    ray_address=step.get("ray_address"),
                    command=f"lotdata run {self.path} --out {self.root}", progress=advance, on_start=on_start,
                )
        except (TypeError, ValueError) as exc:
            raise LotdataError(f"{self.path}: step {name}: {exc}") from exc
        summary = {**report.stats, "rows": report.rows_per_split, "warnings": report.warnings, "notes": report.notes}
        self.done(name, fp, summary, [out / MANIFEST_NAME])

    # annotate push: idempotent on the server (tasks carry a stable uid), so it always runs ----------
    def annotate(self, step: dict[str, Any], index: int) -> None:
        from lotdata.annotate.client import connect
        from lotdata.annotate.workflow import push

        target = self._step_input(step.get("input")) if "input" in step else (self.stories[-1] if self.stories else None)
        if target is None:
            raise LotdataError(f"{self.path}: [[annotate]] step {index}: no input (give input = a build out or a path)")
        must_exist(target, "input", hint=f" (recipe {self.path}, [[annotate]] step {index})")
        summary = push(connect(), step["job"], target, step["project"], splits=_as_list(step.get("split")) or None,
                       raters=step.get("raters"), limit=step.get("limit"), batch_size=step.get("batch_size", 2000))
        self.finish(StepResult(f"annotate-{step['job']}", [target], skipped=False, summary=summary))

    def audit(self, step: dict[str, Any], index: int) -> None:
        from lotdata.audit.run import audit, write_audit
        from lotdata.audit.work import WORK_DIR

        options = dict(step)
        target = self._step_input(options.pop("input"))
        out = self.root / options.pop("out", f"audit-{target.name}")
        name = f"audit-{out.name}"
        fp = self.cached(name, {"audit": options}, _files_of(target), [out / "results.json"])
        if fp is None:
            return
        result = audit(target, task=options.get("task"), train_split=options.get("train_split"), seed=options.get("seed", 0),
                       runs=options.get("runs", 10), baselines=options.get("baselines"), workers=options.get("workers", 2),
                       executor=options.get("executor", "local"), ray_address=options.get("ray_address"), work=out / WORK_DIR,
                       model_path=options.get("model_path"), aflite=options.get("aflite", False),
                       sentiment=options.get("sentiment", "snownlp"), sentiment_cache=out / "sentiment_cache.parquet")
        write_audit(result, out)
        summary = {r["id"]: round(r["accuracy"], 4) for r in result.records}
        self.done(name, fp, summary, [out / "results.json"])

    def _step_input(self, value: str) -> Path:
        """A [[build]] out name (a folder of this run) or a path relative to the recipe."""
        built = self.root / value
        return built if built.exists() else _recipe_relative(self.path, value)
