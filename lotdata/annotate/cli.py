"""`lotdata annotate raters add|push|status|pull`: the annotation loop on a Label Studio server.

The server comes from LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY (the SDK's names); the key is never printed.
What raters must not see (hidden values, gold answers, the team) stays in the state folder (--state-dir).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotdata.annotate.commands import (
    ANNOTATE_CHECK,
    ANNOTATE_PULL,
    ANNOTATE_QUALIFY,
    ANNOTATE_SCT_CSV,
    CHECK_FLAGGED_EXIT,
    PROJECT_HELP,
    STATE_HELP,
    jobs_help,
)
from lotdata.annotate.jobs import all_jobs, get_job
from lotdata.clikit import command_of, console, errors, out_console, progress, summary_table

app = typer.Typer(
    no_args_is_help=True, help="Annotation jobs on Label Studio: push tasks, follow progress, pull and assemble."
)


def _per_job(text: str, value) -> str:
    """`text` followed by each job's own value of something (its input, its raters), from the job records."""
    return f"{text} " + ", ".join(f"{value(job)} ({job.name})" for job in all_jobs() if value(job) is not None) + "."


_JOB = typer.Argument(..., help=jobs_help())
_PROJECT = typer.Option(..., "--project", help=PROJECT_HELP)
_STATE = typer.Option(
    None,
    "--state-dir",
    envvar="LOTDATA_ANNOTATE_STATE",
    help=STATE_HELP,
)

raters_app = typer.Typer(no_args_is_help=True, help="The team of raters: accounts and their own projects.")
app.add_typer(raters_app, name="raters")


def _splits(text: Optional[str]) -> Optional[list[str]]:
    return [s.strip() for s in text.split(",") if s.strip()] if text else None


@app.command("push")
def push_cmd(
    job: str = _JOB,
    input_path: Optional[Path] = typer.Option(
        None, "--input", help=_per_job("What the job reads:", lambda job: job.input_help)
    ),
    project: str = _PROJECT,
    split: Optional[str] = typer.Option(
        None, "--split", help="Splits to push, e.g. val,test (default: the job's own)."
    ),
    raters: Optional[int] = typer.Option(
        None, "--raters", min=1, help=_per_job("Annotators per task; default:", lambda job: job.raters)
    ),
    limit: Optional[int] = typer.Option(
        None,
        "--limit",
        min=1,
        help="Push at most this many rows (or inputs, where a task shows several rows side by side).",
    ),
    batch_size: int = typer.Option(2000, "--batch-size", min=1, help="Tasks per import request."),
    gold: Optional[Path] = typer.Option(
        None, "--gold", help='Known-answer tasks to mix in: JSON lines {"data": {...}, "answer": {question: value}}.'
    ),
    assign: Optional[str] = typer.Option(
        None,
        "--assign",
        help="Raters of the team who get this job (comma-separated; default: the whole team, and raters added later).",
    ),
    state: Optional[Path] = _STATE,
    sample: Optional[int] = typer.Option(
        None,
        "--sample",
        min=1,
        help=_per_job(
            "Push a seeded draw of this many inputs or examples; jobs that allow it:",
            lambda job: job.sample_key and f"default {job.default_sample or 'all'}",
        ),
    ),
    seed: int = typer.Option(
        0, "--seed", help="Seed of --sample and of the jobs' shuffled orders (human_eval's A/B/C)."
    ),
    lang: Optional[str] = typer.Option(
        None,
        "--lang",
        help=_per_job(
            "Language of the raters' screens (a project keeps its first push's); the first is the job's default:",
            lambda job: "/".join(dict.fromkeys([job.lang, *job.langs])),
        ),
    ),
    n: Optional[int] = typer.Option(
        None, "--n", min=1, help="A writing job (story_write): push this many empty writing slots (no --input)."
    ),
    words: Optional[str] = typer.Option(
        None,
        "--words",
        help="clozet_write: the stories' length in words, MIN-MAX (LOT: about 50-500, the default; 0 for no bound).",
    ),
) -> None:
    """Create or update the project(s) and import tasks under opaque ids; rows already there are not imported again.

    With several raters per task and a team, every rater gets a project of their own (TITLE · NAME)."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import job_load_options, push
    from lotdata.errors import must_exist

    with errors(), progress() as bar:
        if input_path is not None:
            must_exist(input_path, "--input")  # before connecting: a wrong path is not a server problem
        elif n is None:
            raise ValueError(f"{job} needs --input (or --n N for a writing job)")
        get_job(job).pick_lang(lang)  # so is an unknown job or a language the job has no screen in
        load_options = job_load_options(job, {"words": _word_range(words)})  # before connecting, as the rest
        handle = bar.add_task(f"push {job}", total=None)
        summary = push(
            connect(),
            job,
            input_path,
            project,
            splits=_splits(split),
            raters=raters,
            limit=limit,
            batch_size=batch_size,
            progress=lambda k: bar.advance(handle, k),
            gold=gold,
            state=state,
            assign=_splits(assign),
            sample=sample,
            seed=seed,
            lang=lang,
            slots=n,
            load_options=load_options,
        )
    if summary["mode"] == "shared" and summary["raters"] > 1:
        console.print(
            "warning: no team of raters (`lotdata annotate raters add`): one shared project, where raters can open each other's answers",
            highlight=False,
        )
    out_console.print(summary_table(f"lotdata annotate push {job}", summary))


def _word_range(text: str | None) -> tuple[int, int] | None:
    """`--words 50-500` as (50, 500); 0 is no bound."""
    if text is None:
        return None
    low, sep, high = text.partition("-")
    if not sep or not low.strip().isdigit() or not high.strip().isdigit():
        raise ValueError(f"--words {text!r}: MIN-MAX in words, e.g. 50-500 (0 for no bound)")
    if int(high) and int(low) > int(high):
        raise ValueError(f"--words {text!r}: the minimum is above the maximum")
    return int(low), int(high)


@app.command("status")
def status_cmd(project: str = typer.Argument(..., help="Project title."), state: Optional[Path] = _STATE) -> None:
    """Progress of a pushed job per rater's project: tasks, done, skipped, quarantined; and per annotator."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import status

    with errors():
        report = status(connect(), project, state=state)
    projects, annotators = report.pop("projects", {}), report.pop("annotators", {})
    qualification = report.pop("qualification", {})
    out_console.print(summary_table(f"lotdata annotate status {project}", report))
    if qualification:
        out_console.print(summary_table(f"{project}: qualification quiz", qualification))
    for title, rows in ((f"{project}: per rater's project", projects), (f"{project}: per annotator", annotators)):
        if rows:
            out_console.print(_count_table(title, rows))


def _count_table(title: str, rows: dict[str, dict]):
    """One row per rater (or annotator), one column per count: readable at any terminal width."""
    from rich.table import Table

    columns = list(dict.fromkeys(key for counts in rows.values() for key in counts))
    table = Table(title=title)
    table.add_column("who")
    for column in columns:
        table.add_column(column, justify="left" if column == "url" else "right", overflow="fold")
    for who, counts in rows.items():
        table.add_row(who, *(str(counts.get(column, "")) for column in columns))
    return table


@raters_app.command("add")
def raters_add_cmd(
    names: list[str] = typer.Argument(..., help="Rater names (letters, digits, . _ -)."), state: Optional[Path] = _STATE
) -> None:
    """Create a Label Studio account per rater and their own project of every job pushed per rater.

    Prints each new rater's login (URL, e-mail, password) once on stdout: pass it on, it is stored nowhere."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import add_raters

    with errors():
        report = add_raters(connect(), names, state=state)
    for entry in report:
        out_console.print(summary_table(f"rater {entry.pop('rater')}", entry))


def _state_from_env(command):
    """--state-dir also reads LOTDATA_ANNOTATE_STATE, as `_STATE` does (`command_of` derives options without one)."""
    from lotdata.annotate.state import STATE_ENV

    for parameter in command.__signature__.parameters.values():
        if parameter.name == "state":
            parameter.default.envvar = STATE_ENV
    return command


def _render_check(summary: dict, params) -> None:
    per_rule, examples = summary.pop("per_rule"), summary.pop("examples")
    out_console.print(summary_table(f"lotdata annotate check {params.job} -> {params.out}", summary))
    out_console.print(
        _count_table("flagged submissions per rule", {rule: {"flagged": n} for rule, n in per_rule.items()})
    )
    if summary["flagged"]:  # like a linter: a script can stop on flagged submissions; every flag is in flags.parquet
        for line in examples:
            console.print(line, markup=False, highlight=False)
        raise typer.Exit(CHECK_FLAGGED_EXIT)


app.command("check")(command_of(ANNOTATE_CHECK, _render_check))
app.command("qualify")(
    _state_from_env(
        command_of(
            ANNOTATE_QUALIFY,
            lambda report, params: out_console.print(_count_table(f"lotdata annotate qualify {params.job}", report)),
        )
    )
)
app.command("pull")(
    _state_from_env(
        command_of(
            ANNOTATE_PULL,
            lambda summary, params: out_console.print(
                summary_table(f"lotdata annotate pull {params.job} -> {params.out}", summary)
            ),
        )
    )
)
app.command("sct-csv")(
    command_of(
        ANNOTATE_SCT_CSV,
        lambda written, params: out_console.print(summary_table(f"lotdata annotate sct-csv -> {params.out}", written)),
    )
)


@raters_app.command("list")
def raters_list_cmd(state: Optional[Path] = _STATE) -> None:
    """The team: each rater's login e-mail and own projects (read from the state folder)."""
    import os

    from lotdata.annotate.client import URL_ENV
    from lotdata.annotate.workflow import list_raters

    with errors():
        url = (os.environ.get(URL_ENV) or "").rstrip("/")
        if not url:
            raise ValueError(f"no Label Studio URL: set {URL_ENV}")
        team = list_raters(url, state=state)
    if not team:
        console.print("no raters yet: `lotdata annotate raters add NAME...`", highlight=False)
    for name, entry in team.items():
        out_console.print(summary_table(f"rater {name}", entry))
