"""`lotdata annotate push|status|pull`: the annotation loop on a Label Studio server.

The server comes from LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY (the SDK's names); the key is never printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotdata.clikit import console, errors, out_console, progress, summary_table

app = typer.Typer(no_args_is_help=True, help="Annotation jobs on Label Studio: push tasks, follow progress, pull and assemble.")

_JOB = typer.Argument(..., help="story_filter, clozet_write, senpos_refine, cloze_verify, human_eval or human_perf.")
_PROJECT = typer.Option(..., "--project", help="Project title (created on first push, found by title afterwards).")


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
    sample: Optional[int] = typer.Option(None, "--sample", min=1, help="human_eval: push this many inputs; human_perf: this many examples (default 100). Seeded draw."),
    seed: int = typer.Option(0, "--seed", help="Seed of --sample and of human_eval's A/B/C order."),
) -> None:
    """Create or update a project and import tasks with a stable uid; rows already there are not imported again."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import push

    with errors(), progress() as bar:
        handle = bar.add_task(f"push {job}", total=None)
        summary = push(connect(), job, input_path, project, splits=_splits(split), raters=raters, limit=limit,
                       batch_size=batch_size, sample=sample, seed=seed, progress=lambda k: bar.advance(handle, k))
    out_console.print(summary_table(f"lotdata annotate push {job}", summary))


@app.command("status")
def status_cmd(project: str = typer.Argument(..., help="Project title.")) -> None:
    """Progress of a project: tasks, annotated tasks, skipped, and counts per annotator."""
    from lotdata.annotate.client import connect, project_progress

    with errors():
        report = project_progress(connect(), project)
    out_console.print(summary_table(f"lotdata annotate status {project}", report))


@app.command("pull")
def pull_cmd(
    job: str = _JOB,
    project: str = _PROJECT,
    out: Path = typer.Option(..., "--out", help="Folder for annotations.parquet, quarantine.parquet, agreement.json and the assembled dataset(s)."),
    page_size: Optional[int] = typer.Option(None, "--page-size", min=1, help="Read tasks page by page (default: one export request, faster)."),
) -> None:
    """Pull every annotation, validate it against the template, measure agreement and assemble the final tables."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import pull

    with errors():
        summary = pull(connect(), job, project, out, page_size=page_size,
                       on_page=lambda n, k: console.print(f"page {n}: {k} tasks", highlight=False))
    out_console.print(summary_table(f"lotdata annotate pull {job} -> {out}", summary))
