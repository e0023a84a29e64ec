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
    ANNOTATE_PUSH,
    ANNOTATE_QUALIFY,
    ANNOTATE_RATERS_ADD,
    ANNOTATE_SCT_CSV,
    CHECK_FLAGGED_EXIT,
    STATE_HELP,
)
from lotdata.clikit import command_of, console, errors, out_console, summary_table

app = typer.Typer(
    no_args_is_help=True, help="Annotation jobs on Label Studio: push tasks, follow progress, pull and assemble."
)


_STATE = typer.Option(
    None,
    "--state-dir",
    envvar="LOTDATA_ANNOTATE_STATE",
    help=STATE_HELP,
)

raters_app = typer.Typer(no_args_is_help=True, help="The team of raters: accounts and their own projects.")
app.add_typer(raters_app, name="raters")


def _state_from_env(command):
    """--state-dir also reads LOTDATA_ANNOTATE_STATE, as `_STATE` does (`command_of` derives options without one)."""
    from lotdata.annotate.state import STATE_ENV

    for parameter in command.__signature__.parameters.values():
        if parameter.name == "state":
            parameter.default.envvar = STATE_ENV
    return command


def _render_push(summary: dict, params) -> None:
    if summary["mode"] == "shared" and summary["raters"] > 1:
        console.print(
            "warning: no team of raters (`lotdata annotate raters add`): one shared project, where raters can open each other's answers",
            highlight=False,
        )
    from lotdata.annotate.jobs import get_job

    if summary["mode"] == "shared" and get_job(params.job).own_projects:
        console.print(
            "warning: no team of raters: one shared project that every account can open; a decision made by the "
            "writer of what it reviews is not counted",
            highlight=False,
        )
    if summary.get("unassigned"):
        console.print(
            f"warning: {summary['unassigned']} task(s) given to nobody: only their writer could take them; add a "
            "rater (`lotdata annotate raters add`) or --assign another, and push again",
            highlight=False,
        )
    if summary.get("short_of_raters"):
        console.print(
            f"warning: {summary['short_of_raters']} task(s) given to fewer raters than asked: the team has too few "
            "raters besides their writer; add a rater (`lotdata annotate raters add`) or --assign another, and push "
            "again",
            highlight=False,
        )
    out_console.print(summary_table(f"lotdata annotate push {params.job}", summary))


def _render_raters(report: dict, params) -> None:
    """Each rater's login (a new account's password, shown once) and their own projects."""
    for name, entry in report.items():
        if isinstance(entry, dict):
            out_console.print(summary_table(f"rater {name}", entry))


app.command("push")(_state_from_env(command_of(ANNOTATE_PUSH, _render_push)))


@app.command("status")
def status_cmd(project: str = typer.Argument(..., help="Project title."), state: Optional[Path] = _STATE) -> None:
    """Progress of a pushed job per rater's project: tasks, done, skipped, quarantined; per annotator; and what waits
    for review (or for a rater's revision)."""
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


raters_app.command("add")(_state_from_env(command_of(ANNOTATE_RATERS_ADD, _render_raters)))


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


def _print_rules(value: bool) -> None:
    if value:
        from lotdata.annotate.rule_figures import rules_listing

        console.print(rules_listing(), markup=False, highlight=False)
        raise typer.Exit(0)


def _with_rules_flag(command):
    """`annotate check --rules`: list every check rule with its level and measured figures, and stop (an eager
    flag: JOB, --input and --out are not asked for)."""
    import functools
    import inspect

    option = inspect.Parameter(
        "rules",
        inspect.Parameter.KEYWORD_ONLY,
        default=typer.Option(
            False,
            "--rules",
            is_eager=True,
            callback=_print_rules,
            help="List every check rule with its level (refuse or warn) and its measured false alarms and planted "
            "recall on tuning and held-out data, then stop.",
        ),
        annotation=bool,
    )

    @functools.wraps(command)
    def wrapped(*, rules: bool = False, **kwargs):
        return command(**kwargs)

    signature = inspect.signature(command)
    wrapped.__signature__ = signature.replace(parameters=[*signature.parameters.values(), option])
    wrapped.__annotations__ = {**command.__annotations__, "rules": bool}
    return wrapped


app.command("check")(_with_rules_flag(command_of(ANNOTATE_CHECK, _render_check)))
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
