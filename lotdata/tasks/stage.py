"""The `build` stage: a task dataset folder from the stories (SenPos, PlotCom, OutGen) or from written cases
(ClozeT), `lotdata build TASK` and a recipe's `[[build]]` (one table per task)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lotdata.errors import LotdataError
from lotdata.exec import ExecSettings
from lotdata.io import MANIFEST_NAME
from lotdata.stage import Stage, StepContext, files_of, param, register_stage


def _buildable() -> list[str]:
    from lotdata.datasets.registry import builder_tasks, case_tasks

    return [*builder_tasks(), *case_tasks()]


@dataclass(frozen=True)
class BuildOptions:
    """The options every `lotdata build TASK` command shares with a recipe's [[build]] table."""

    n: int | None = param(
        None,
        "At most this many examples in all (whole stories, seeded order; only the stories "
        "needed are built); with --clozet, the automatic (train) examples only.",
        check=">0",
        meaning="cap, as `--n`",
    )
    train_n: int | None = param(
        None,
        "At most this many training examples (whole stories, seeded order).",
        check=">0",
        meaning="cap, as `--train-n`",
    )
    seed: int = param(0, "Seed of the splits and of every random choice.")
    split: str | None = param(
        None,
        "Ratios (train=0.8,val=0.1,test=0.1, the default) or val/test sizes in examples "
        "(val=800,test=863); train takes the rest.",
    )
    lot_jsonl: bool = param(True, "Also write OUT/lot/{split}.jsonl in the official LOT format.")
    statuses: str | list[str] | None = param(
        None,
        "Story statuses to take, e.g. accepted,rewritten (default: all but rejected; OutGen: accepted,rewritten "
        "when the stories carry them).",
    )
    tokenizer: str | None = param(
        None,
        "Chinese tokenizer for word counts (default LOTDATA_TOKENIZER, else rjieba: "
        "jieba's tokens, faster; jieba: LOT's exact setting).",
    )


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


def run(ctx: StepContext, params: BuildParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    from lotdata.datasets.registry import get_task
    from lotdata.tasks.build import build_dataset

    task = params.task
    build_cases = get_task(task).case_builder  # ClozeT: from the written cases, not from stories
    if not ctx.stories and build_cases is None:
        raise LotdataError(
            f"{ctx.path}: [[build]] {task}: no stories table (add [read], [extract], [[sites]] or stories = '...')"
        )
    name = params.out or task
    out = ctx.root / name
    clozet = None
    if (
        params.clozet is not None
    ):  # a ClozeT dataset for PlotCom val/test: an earlier step's out, else beside the recipe
        clozet = ctx.built.get(params.clozet) or ctx.relative(params.clozet)
    cases = ctx.relative(params.cases) if params.cases is not None else None
    ctx.built[name] = out
    fp = ctx.cached(
        f"build-{name}", {"build": table}, [*ctx.stories, *files_of(clozet), *files_of(cases)], [out / MANIFEST_NAME]
    )
    if fp is None:
        return
    task_params = dict(params.params or {})
    if params.stopwords is not None:  # a step-level `stopwords = FILE` (OutGen) joins the builder's params
        task_params["stopwords"] = str(ctx.relative(params.stopwords))
    try:
        if build_cases is not None:
            report = build_cases(
                cases,
                out,
                split=params.split,
                seed=params.seed,
                n=params.n,
                lot_jsonl=params.lot_jsonl,
                tokenizer=params.tokenizer,
                command=ctx.command,
            )
        else:
            on_start, advance = ctx.progress_factory(task) if ctx.progress_factory else (None, None)
            report = build_dataset(
                task,
                ctx.stories,
                out,
                n=params.n,
                train_n=params.train_n,
                seed=params.seed,
                split=params.split,
                params=task_params or None,
                lot_jsonl=params.lot_jsonl,
                clozet=clozet,
                clozet_split=params.clozet_split,
                statuses=params.statuses,
                tokenizer=params.tokenizer,
                execution=execution,
                command=ctx.command,
                progress=advance,
                on_start=on_start,
            )
    except (TypeError, ValueError) as exc:
        raise LotdataError(f"{ctx.path}: step build-{name}: {exc}") from exc
    summary = {**report.stats, "rows": report.rows_per_split, "warnings": report.warnings, "notes": report.notes}
    ctx.done(f"build-{name}", fp, summary, [out / MANIFEST_NAME])


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
