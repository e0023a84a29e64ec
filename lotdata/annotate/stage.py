"""The `annotate` stage of a recipe: `annotate push` of a job to a Label Studio project (the server from the
environment). It always runs: a push imports only the tasks the project lacks (they carry a stable uid)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from lotdata.annotate.client import IMPORT_BATCH_SIZE
from lotdata.errors import LotdataError, must_exist
from lotdata.exec import ExecSettings
from lotdata.stage import Stage, StepContext, StepResult, param, register_stage


def _jobs() -> list[str]:
    from lotdata.annotate.jobs import JOBS

    return list(JOBS)


@dataclass(frozen=True)
class PushParams:
    job: str = param(
        "",
        "annotation job",
        choices=_jobs,
        required=True,
        meaning="an annotation job (`lotdata annotate push --help` lists them)",
    )
    project: str = param("", "Label Studio project title", required=True)
    input: str | None = param(None, "a `[[build]]` out or a path (default: the current stories table)")
    split: str | list[str] | None = param(None, "splits to push (default: the job's)")
    raters: int | None = param(None, "raters per task, as `annotate push`", check=">0")
    limit: int | None = param(None, "push at most this many tasks, as `annotate push`", check=">0")
    batch_size: int = param(IMPORT_BATCH_SIZE, "tasks per import request, as `annotate push`", check=">0")


def check_environment(recipe: dict[str, Any], path: Any) -> None:
    """The server comes from the environment: say so before the first step runs."""
    from lotdata.annotate.client import KEY_ENV, URL_ENV

    missing = [name for name in (URL_ENV, KEY_ENV) if not os.environ.get(name)]
    if missing:
        raise LotdataError(f"{path}: [[annotate]] pushes to Label Studio: set {' and '.join(missing)}")


def run(ctx: StepContext, params: PushParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    from lotdata.annotate.commands import ANNOTATE_PUSH

    target = ctx.step_input(params.input) if params.input is not None else (ctx.stories[-1] if ctx.stories else None)
    if target is None:
        raise LotdataError(f"{ctx.path}: [[annotate]] step {index}: no input (give input = a build out or a path)")
    must_exist(target, "input", hint=f" (recipe {ctx.path}, [[annotate]] step {index})")
    splits = [params.split] if isinstance(params.split, str) else params.split
    given = ANNOTATE_PUSH.params(
        job=params.job,
        input_path=str(target),
        project=params.project,
        split=splits or None,
        raters=params.raters,
        limit=params.limit,
        batch_size=params.batch_size,
    )
    summary = ANNOTATE_PUSH.run(given, hooks={"command": ctx.command, "progress": None})
    ctx.finish(StepResult(f"annotate-{params.job}", [target], skipped=False, summary=summary))


STAGE = register_stage(
    Stage(
        name="annotate",
        params=PushParams,
        run=run,
        order=60,
        many=True,
        check_recipe=check_environment,
        summary="`annotate push`: a Label Studio project (server from the environment)",
        output="on the server",
    )
)
