"""Recipes: a TOML file naming the sources to read and every parameter of every step.

The steps are the registered stages (`lotdata.stage`): a recipe's tables are checked against their
records, and each step runs its stage's `run`, which runs the step's command through its record
(`lotdata.command.run_command`: outputs checked against inputs, a lock per output, atomic publication, the
exit codes). A recipe runs its steps in the stages' order. Each finished step leaves a completion marker
holding its command's fingerprint (its parameters minus the execution settings, the sha256 of its inputs);
a re-run skips a step whose fingerprint still matches and whose outputs are still there, so an interrupted
run resumes where it stopped. Which steps are sources, and which other tables they read, the stage records
say (`Stage.source`, `Stage.tables`): nothing here names a stage.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Callable

from lotdata.errors import InputError, is_expected, must_exist, require_all
from lotdata.exec import ExecSettings
from lotdata.io import check_output_dir, output_lock
from lotdata.paths import PathClashError, check_inside, check_outputs
from lotdata.stage import (
    DONE_DIR,
    TOP_LEVEL,
    Stage,
    StepContext,
    StepResult,
    check_input,
    params_of,
    source_words,
    stages,
)

__all__ = ["StepResult", "load_recipe", "run_recipe", "validate_recipe", "step_kinds"]


def step_kinds() -> tuple[str, ...]:
    """The step kinds a recipe may hold, in the order they run."""
    return tuple(stage.name for stage in stages())


def _other_tables() -> tuple[str, ...]:
    """The top-level tables a recipe may hold beside the steps: those the stages read (`Stage.tables`)."""
    return tuple(table for stage in stages() for table in stage.tables)


def _tables(recipe: dict[str, Any], stage: Stage, path: Path) -> list[dict[str, Any]]:
    """The stage's tables in the recipe: one ([read]) or an array ([[build]]; one [annotate] is one step)."""
    value = recipe.get(stage.name)
    if value is None:
        return [{}] if stage.present(recipe) else []
    if not stage.many:
        if not isinstance(value, dict):
            raise InputError(f"{path}: [{stage.name}] must be one table ([{stage.name}]), not [[{stage.name}]]")
        return [value]
    if isinstance(value, dict):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise InputError(f"{path}: '{stage.name}' must be [[{stage.name}]] tables")
    return value


def _where(path: Path, stage: Stage, index: int) -> str:
    return f"{path}, [[{stage.name}]] step {index}" if stage.many else f"{path}, [{stage.name}]"


def _check_top(recipe: dict[str, Any], path: Path) -> None:
    kinds, others = step_kinds(), _other_tables()
    extra = sorted(
        k
        for k, v in recipe.items()
        if isinstance(v, (dict, list)) and k != "stories" and k not in kinds and k not in others
    )
    if extra:
        raise InputError(f"{path}: unknown table(s) {extra}; a recipe holds {sorted((*kinds, *others))}")
    top = {k: v for k, v in recipe.items() if k not in kinds and k not in others}
    unknown = sorted(set(top) - set(TOP_LEVEL))
    if unknown:
        raise InputError(f"{path} has unknown key(s) {unknown}; known: {sorted(TOP_LEVEL)}")
    for key, value in top.items():
        ok = isinstance(value, str) or (
            key == "stories" and isinstance(value, list) and all(isinstance(v, str) for v in value)
        )
        if not ok:
            raise InputError(
                f"{path}: '{key}' must be {'a string or a list of strings' if key == 'stories' else 'a string'}, not {value!r}"
            )


def validate_recipe(
    recipe: dict[str, Any], path: Path
) -> list[tuple[Stage, list[tuple[Any, ExecSettings, dict[str, Any]]]]]:
    """Check every table and key of a recipe (types, ranges, known names, combinations) before anything
    runs; returns each present stage with its parsed steps (parameters, executor settings, table as written)."""
    _check_top(recipe, path)
    plan = []
    for stage in stages():
        steps = [
            (*stage.parse(table, _where(path, stage, i)), table)
            for i, table in enumerate(_tables(recipe, stage, path), 1)
        ]
        if steps:
            plan.append((stage, steps))
    for stage, _ in plan:
        if stage.check_recipe is not None:
            stage.check_recipe(recipe, path)
    if "stories" not in recipe and not any(stage.source and stage.present(recipe) for stage, _ in plan):
        raise InputError(f"{path}: a recipe needs a source: {source_words()}")
    return plan


def load_recipe(path: str | Path) -> dict[str, Any]:
    """A recipe read and validated as a whole (see `validate_recipe`): a bad key fails here, before any work."""
    path = must_exist(path, "recipe file")
    recipe = _read_toml(path)
    validate_recipe(recipe, path)
    return recipe


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        recipe = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Windows editors) is no TOML error
    except UnicodeDecodeError as exc:
        raise InputError(
            f"cannot read recipe: not UTF-8 text ({exc.reason} at byte {exc.start}); a recipe is a TOML file",
            path=str(path),
        ) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read recipe: {exc}", path=str(path)) from exc
    return recipe


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
    """Run every step of a recipe in the stages' order (crawl -> extract -> read -> clean -> build ->
    annotate -> audit); returns what each step did (or that it was skipped as done); `on_start(step)` as each
    step starts. The whole recipe is validated, the optional packages of its steps, every input it names and
    where every step writes checked before the first step runs; `OUT.lock` is held while it runs."""
    from lotdata.text.tokenize import check_tokenizer_env

    path = must_exist(path, "recipe file")
    recipe = _read_toml(path)
    plan = validate_recipe(recipe, path)
    root = Path(out_root or recipe.get("out", "out"))
    check_tokenizer_env()
    for stage, _ in plan:
        require_all(stage.needs)  # exit 4 before the first step, not after the slow ones
    ctx = StepContext(recipe, path, root, force, on_step, progress_factory, on_page, on_warning)
    ctx.stories = [ctx.relative(v) for v in _as_list(recipe.get("stories"))]
    _check_recipe_inputs(ctx, plan)
    _check_recipe_paths(ctx, plan)
    with output_lock(root):
        for stage, steps in plan:
            for index, (params, execution, table) in enumerate(steps, 1):
                name = _step_name(stage, table, index)
                if on_start is not None:
                    on_start(name)
                _run_named(ctx, name, lambda: stage.run(ctx, params, execution, table, index))
    return ctx.results


def _step_name(stage: Stage, table: dict[str, Any], index: int) -> str:
    if not stage.many:
        return stage.name
    what = f" ({stage.output_name(table)})" if stage.output_name is not None else ""
    return f"[[{stage.name}]] {index}{what}"


def _run_named(ctx: StepContext, name: str, run: Callable[[], None]) -> None:
    """Run one step; an error it raises says which step of which recipe failed."""
    try:
        run()
    except Exception as exc:
        prefix = f"recipe {ctx.path}, step {name}: "
        if is_expected(exc) and exc.args and isinstance(exc.args[0], str) and not exc.args[0].startswith(prefix):
            exc.args = (prefix + exc.args[0], *exc.args[1:])
        raise


def _check_recipe_paths(
    ctx: StepContext, plan: list[tuple[Stage, list[tuple[Any, ExecSettings, dict[str, Any]]]]]
) -> None:
    """Every step's output lies inside the run's folder and overlaps no other step's output and no input the
    recipe names (exit 1 naming both), checked before the first step runs."""
    outputs: dict[str, Path] = {}
    inputs: dict[str, list[Path]] = {"stories": [ctx.relative(v) for v in _as_list(ctx.recipe.get("stories"))]}
    earlier: set[str] = set()
    for stage, steps in plan:
        infos = [p for p in params_of(stage.params) if p.path]
        for index, (params, _, table) in enumerate(steps, 1):
            label = f"[[{stage.name}]] step {index}" if stage.many else f"[{stage.name}]"
            for info in infos:
                named = [
                    v
                    for v in _as_list(table.get(info.name))
                    if v != "lotdata:sample" and not (info.path == "step" and v in earlier)
                ]
                if named:
                    inputs[f"{label} {info.name}"] = [ctx.relative(v) for v in named]
            written = stage.writes(params, table)
            if written is not None:
                outputs[f"{label} out"] = check_inside(ctx.root, ctx.root / written, f"recipe {ctx.path}: {label} out")
            if stage.output_name is not None:
                earlier.add(stage.output_name(table))
    check_outputs(outputs, inputs)


def check_run_folder(root: Path) -> None:
    """Refuse (exit 1) a run folder that holds files no recipe run wrote: a run writes its steps' outputs into it,
    so a home folder or a dataset given as `--out` would be written into. A run folder is empty, holds the done
    markers of an earlier run (`.done/`), or only what a run cut short left (staging folders, locks)."""
    if not root.is_dir():
        return
    entries = [p.name for p in root.iterdir()]
    ours = all(
        name == DONE_DIR or (name.startswith(".") and ".lotdata-" in name) or name.endswith(".lock") for name in entries
    )
    if entries and DONE_DIR not in entries and not ours:
        shown = ", ".join(sorted(entries)[:3]) + (", ..." if len(entries) > 3 else "")
        raise PathClashError(
            f"--out {root}: holds files no recipe run wrote ({shown}); a run writes its steps' outputs there, so give "
            "a new or empty folder, or the folder of an earlier run of a recipe"
        )


def _check_recipe_inputs(
    ctx: StepContext, plan: list[tuple[Stage, list[tuple[Any, ExecSettings, dict[str, Any]]]]]
) -> None:
    """Every file a recipe names exists (exit 1, naming the key) and the output folders can be made; a
    `path="step"` key may name what an earlier step wrote."""
    check_output_dir(ctx.root)
    check_run_folder(ctx.root)
    for value in _as_list(ctx.recipe.get("stories")):
        must_exist(
            ctx.relative(value),
            "stories Parquet file",
            hint=f" (recipe {ctx.path}, stories; lotdata read ... --out it)",
        )
    earlier: set[str] = set()
    for stage, steps in plan:
        infos = [p for p in params_of(stage.params) if p.path]
        for index, (_, _, table) in enumerate(steps, 1):
            where = (
                f"(recipe {ctx.path}, [[{stage.name}]] step {index}"
                if stage.many
                else f"(recipe {ctx.path}, [{stage.name}]"
            )
            for info in infos:
                for value in _as_list(table.get(info.name)):
                    check_input(ctx, value, info, where.lstrip("("), earlier)
            if stage.output_name is not None:
                earlier.add(stage.output_name(table))


def _as_list(value: str | list[str] | None) -> list[str]:
    return [] if value is None else [value] if isinstance(value, str) else list(value)
