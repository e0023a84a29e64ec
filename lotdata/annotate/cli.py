"""`lotdata annotate raters add|push|status|pull`: the annotation loop on a Label Studio server.

The server comes from LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY (the SDK's names); the key is never printed.
What raters must not see (hidden values, gold answers, the team) stays in the state folder (--state-dir).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotdata.clikit import console, errors, out_console, progress, summary_table
from lotdata.paths import check_outputs

app = typer.Typer(no_args_is_help=True, help="Annotation jobs on Label Studio: push tasks, follow progress, pull and assemble.")

_JOB = typer.Argument(..., help="story_filter, clozet_write, senpos_refine, cloze_verify, human_eval or human_perf.")
_PROJECT = typer.Option(..., "--project", help="Project title (created on first push, found by title afterwards).")
_STATE = typer.Option(None, "--state-dir", envvar="LOTDATA_ANNOTATE_STATE",
                      help="Folder of lotdata's annotation state: team, hidden values, gold answers (default .lotdata-annotate).")

raters_app = typer.Typer(no_args_is_help=True, help="The team of raters: accounts and their own projects.")
app.add_typer(raters_app, name="raters")


def _splits(text: Optional[str]) -> Optional[list[str]]:
    return [s.strip() for s in text.split(",") if s.strip()] if text else None


@app.command("push")
def push_cmd(
    job: str = _JOB,
    input_path: Path = typer.Option(..., "--input", help="stories or segments Parquet (story_filter), stories Parquet (clozet_write), dataset folder (senpos_refine: senpos, cloze_verify: clozet, human_perf: clozet or senpos) or outputs table (human_eval)."),
    project: str = _PROJECT,
    split: Optional[str] = typer.Option(None, "--split", help="Splits to push, e.g. val,test (default: the job's own)."),
    raters: Optional[int] = typer.Option(None, "--raters", min=1, help="Annotators per task (default: 3 for cloze_verify and human_eval, else 1)."),
    limit: Optional[int] = typer.Option(None, "--limit", min=1, help="Push at most this many rows."),
    batch_size: int = typer.Option(2000, "--batch-size", min=1, help="Tasks per import request."),
    gold: Optional[Path] = typer.Option(None, "--gold", help='Known-answer tasks to mix in: JSON lines {"data": {...}, "answer": {question: value}}.'),
    assign: Optional[str] = typer.Option(None, "--assign", help="Raters of the team who get this job (comma-separated; default: the whole team, and raters added later)."),
    state: Optional[Path] = _STATE,
    sample: Optional[int] = typer.Option(None, "--sample", min=1, help="human_eval: push this many inputs; human_perf: this many examples (default 100). Seeded draw."),
    seed: int = typer.Option(0, "--seed", help="Seed of --sample and of human_eval's A/B/C order."),
) -> None:
    """Create or update the project(s) and import tasks under opaque ids; rows already there are not imported again.

    With several raters per task and a team, every rater gets a project of their own (TITLE · NAME)."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import push

    from lotdata.errors import must_exist

    with errors(), progress() as bar:
        must_exist(input_path, "--input")  # before connecting: a wrong path is not a server problem
        handle = bar.add_task(f"push {job}", total=None)
        summary = push(connect(), job, input_path, project, splits=_splits(split), raters=raters, limit=limit,
                       batch_size=batch_size, progress=lambda k: bar.advance(handle, k), gold=gold, state=state,
                       assign=_splits(assign), sample=sample, seed=seed)
    if summary["mode"] == "shared" and summary["raters"] > 1:
        console.print("warning: no team of raters (`lotdata annotate raters add`): one shared project, where raters can open each other's answers",
                      highlight=False)
    out_console.print(summary_table(f"lotdata annotate push {job}", summary))


@app.command("status")
def status_cmd(project: str = typer.Argument(..., help="Project title."), state: Optional[Path] = _STATE) -> None:
    """Progress of a pushed job per rater's project: tasks, done, skipped, quarantined; and per annotator."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import status

    with errors():
        report = status(connect(), project, state=state)
    projects, annotators = report.pop("projects", {}), report.pop("annotators", {})
    out_console.print(summary_table(f"lotdata annotate status {project}", report))
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
def raters_add_cmd(names: list[str] = typer.Argument(..., help="Rater names (letters, digits, . _ -)."), state: Optional[Path] = _STATE) -> None:
    """Create a Label Studio account per rater and their own project of every job pushed per rater.

    Prints each new rater's login (URL, e-mail, password) once on stdout: pass it on, it is stored nowhere."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import add_raters

    with errors():
        report = add_raters(connect(), names, state=state)
    for entry in report:
        out_console.print(summary_table(f"rater {entry.pop('rater')}", entry))


@app.command("pull")
def pull_cmd(
    job: str = _JOB,
    project: str = _PROJECT,
    out: Path = typer.Option(..., "--out", help="Folder for annotations.parquet, quarantine.parquet, agreement.json and the assembled dataset(s)."),
    page_size: Optional[int] = typer.Option(None, "--page-size", min=1, help="Read tasks page by page (default: one export request, faster)."),
    min_gold_accuracy: float = typer.Option(0.8, "--min-gold-accuracy", min=0.0, max=1.0, help="Flag raters whose accuracy on the gold tasks is lower."),
    drop_flagged: bool = typer.Option(False, "--drop-flagged", help="Leave the flagged raters' answers out of agreement and assembly."),
    allow_partial: bool = typer.Option(False, "--allow-partial", help="human_perf: write H even from fewer items or raters than pushed (marked partial)."),
    state: Optional[Path] = _STATE,
) -> None:
    """Pull every annotation of every rater's project, validate it, score the gold tasks, measure agreement, assemble."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import pull

    with errors():
        check_outputs({"--out": out}, {"--state-dir": state})
        summary = pull(connect(), job, project, out, page_size=page_size, state=state, min_gold_accuracy=min_gold_accuracy,
                       drop_flagged=drop_flagged, allow_partial=allow_partial, on_page=lambda n, k: console.print(f"page {n}: {k} tasks", highlight=False))
    out_console.print(summary_table(f"lotdata annotate pull {job} -> {out}", summary))


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
