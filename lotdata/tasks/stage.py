"""The `build` stage: a task dataset folder from the stories (SenPos, PlotCom, OutGen) or from written cases
(ClozeT), `lotdata build TASK` and a recipe's `[[build]]` (one table per task)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from lotdata.errors import LotdataError
from lotdata.exec import ExecSettings
from lotdata.io import MANIFEST_NAME
from lotdata.stage import Stage, StepContext, command_params, param, register_stage, source_words
from lotdata.tasks.options import BuildOptions

__all__ = ["BuildOptions", "BuildParams", "STAGE"]


def _buildable() -> list[str]:
    from lotdata.datasets.registry import builder_tasks, case_tasks

    return [*builder_tasks(), *case_tasks()]


@dataclass(frozen=True)
class BuildParams(BuildOptions):
    task: str = param(
        "",
        "task to build",
        choices=_buildable,
        required=True,
        cli=False,
        meaning="a task with a builder or written cases: `senpos`, `plotcom`, `outgen`, `clozet` (with `cases`)",
    )
    out: str | None = param(None, "dataset folder (default: the task's name)", cli=False)
    params: dict | None = param(
        None, "the builder's options (`min_chars`, `max_words`, `min_candidates`, `max_phrases`, ...)", cli=False
    )
    clozet: str | None = param(
        None, "PlotCom: a ClozeT dataset (an earlier step's out or a path) for val/test", path="step", cli=False
    )
    clozet_split: str | None = param(None, "PlotCom with clozet: val/test sizes sampled across ClozeT", cli=False)
    stopwords: str | None = param(None, "OutGen: a stopword file", path="file", cli=False)
    cases: str | None = param(
        None, "ClozeT: the written cases (a dataset folder or LOT jsonl)", path="input", cli=False
    )

    def check(self) -> None:
        from lotdata.datasets.registry import case_tasks

        from_cases = case_tasks()  # ClozeT: split the written cases (`build clozet`)
        if (self.task in from_cases) != (self.cases is not None):
            tasks = " or ".join(f'"{t}"' for t in from_cases)
            raise ValueError(f"'cases' (the written cases) goes with task = {tasks} and only there")
        self.check_splits()
        self.check_builder_options()

    def check_splits(self) -> None:
        """`split` and `clozet_split` read as the build reads them (`lotdata.tasks.build`), before any step runs."""
        from lotdata.tasks.build import split_spec

        for key in ("split", "clozet_split"):
            value = getattr(self, key)
            if value is not None:
                try:
                    split_spec(value, key)
                except ValueError as exc:
                    raise ValueError(f"'{key}': {exc}") from None

    def check_builder_options(self) -> None:
        """The table `params` against the task's builder's parameter record: known keys, each value's type and
        range (`lotdata.stage.check_value`, as the CLI options of `lotdata build TASK` are checked)."""
        from lotdata.datasets.registry import get_task
        from lotdata.errors import InputError
        from lotdata.stage import check_value, params_of

        builder = get_task(self.task).builder if self.params else None
        if builder is None or getattr(builder, "params", None) is None:
            return  # no table, or ClozeT's written cases ('params' does not apply: said when the step runs)
        try:
            known = {p.name: p for p in params_of(builder.params)}
        except TypeError:  # a plug-in's builder whose parameters are no recipe types: its own checks apply
            return
        unknown = sorted(set(self.params) - set(known))
        if unknown:
            raise ValueError(f"unknown {self.task} parameter(s) in 'params' {unknown}; known: {', '.join(known)}")
        for key, value in self.params.items():
            try:
                check_value(known[key], value, "'params'")
            except InputError as exc:
                raise ValueError(str(exc)) from None


def run(ctx: StepContext, params: BuildParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    """`lotdata build TASK --stories ... --out RUN/OUT` (ClozeT: `--cases`), through its record."""
    from lotdata.datasets.registry import get_task
    from lotdata.tasks.commands import build_command

    task = params.task
    from_cases = get_task(task).case_builder is not None  # ClozeT: from the written cases, not from stories
    if not ctx.stories and not from_cases:
        raise LotdataError(f"{ctx.path}: [[build]] {task}: no stories table (add a source: {source_words()})")
    name = params.out or task
    out = ctx.root / name
    ctx.built[name] = out
    command = build_command(task)
    try:
        given = command_params(
            command, params, execution, given_apart=_APART, **_paths(ctx, params, command, from_cases, out)
        )
    except (TypeError, ValueError) as exc:
        raise LotdataError(f"{ctx.path}: step build-{name}: {exc}") from exc
    hooks = {"progress": ctx.progress_factory}
    try:
        ctx.command_step(f"build-{name}", command, given, [out / MANIFEST_NAME], hooks=hooks, summary=_summary)
    except ValueError as exc:  # a combination the builder refuses (as the command says it: exit 1)
        if isinstance(exc, LotdataError):
            raise
        raise LotdataError(f"{ctx.path}: step build-{name}: {exc}") from exc


#: the step's keys it gives the command itself (`_paths`), or that name the task and its record
_APART = ("task", "params", "stopwords", "cases", "clozet")


def _paths(ctx: StepContext, params: BuildParams, command: Any, from_cases: bool, out: Any) -> dict[str, Any]:
    """The command's parameters the step gives itself: its inputs (beside the recipe, or an earlier step's
    out), its output under the run's folder, and the builder's options (the table `params`) as the command's."""
    if from_cases:
        for key in ("params", "stopwords", "clozet"):
            if getattr(params, key) is not None:
                raise ValueError(f"'{key}' does not apply to `lotdata {command.name}` (built from the written cases)")
        return {"cases": str(ctx.relative(params.cases)), "out": str(out)}
    given: dict[str, Any] = {"stories": [str(s) for s in ctx.stories], "out": str(out)}
    own = {f.name for f in fields(command.params)}
    if (
        params.clozet is not None
    ):  # a ClozeT dataset for PlotCom val/test: an earlier step's out, else beside the recipe
        if "clozet" not in own:
            raise ValueError(f"'clozet' does not apply to `lotdata {command.name}` (its val/test are not ClozeT's)")
        given["clozet"] = str(ctx.built.get(params.clozet) or ctx.relative(params.clozet))
    options = dict(params.params or {})
    if params.stopwords is not None:  # a step-level `stopwords = FILE` (OutGen) joins the builder's options
        options["stopwords"] = str(ctx.relative(params.stopwords))
    if "params" in own:  # a task without a record of its own takes its builder's options as one table
        return {**given, "params": options or None}
    from lotdata.datasets.registry import get_task

    known = [f.name for f in fields(get_task(params.task).builder.params)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"unknown {params.task} parameter(s) {unknown}; known: {', '.join(known)}")
    return {**given, **options}


def _summary(summary: dict[str, Any]) -> dict[str, Any]:
    """What the done marker and `lotdata run` show of a build: its statistics, rows, warnings and notes."""
    return {**summary["stats"], "rows": summary["rows"], "warnings": summary["warnings"], "notes": summary["notes"]}


STAGE = register_stage(
    Stage(
        name="build",
        params=BuildParams,
        run=run,
        order=50,
        many=True,
        executes=True,
        check=BuildParams.check,
        output_name=lambda table: table.get("out", table["task"]),
        table="`[[build]]` (one per task)",
        summary="SenPos / PlotCom / OutGen / ClozeT dataset folders",
        output="`<task>/`",
    )
)
