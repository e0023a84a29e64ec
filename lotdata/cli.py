"""The `lotdata` command line: parse, call a stage, print a one-screen summary.

Exit codes: 0 success; 1 a problem lotdata explains (bad parameter, missing file); 2 usage error;
3 bad input data (the message names the file and row); 4 an optional package is missing; 70 a bug
(an exception lotdata did not expect: the message, "this is a bug" and a short trace).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.table import Table

from lotdata import __version__
from lotdata.clikit import BugCatchingGroup, console, out_console
from lotdata.clikit import errors as _errors
from lotdata.clikit import progress as _progress
from lotdata.clikit import summary_table as _summary_table
from lotdata.clikit import warn as _warn

app = typer.Typer(
    cls=BugCatchingGroup,
    add_completion=False,
    no_args_is_help=True,
    help="Build and audit story benchmarks (LOT, Story Cloze).",
)
build_app = typer.Typer(no_args_is_help=True, help="Build a task dataset from a stories table.")
import_app = typer.Typer(no_args_is_help=True, help="Import datasets in other formats.")
export_app = typer.Typer(no_args_is_help=True, help="Export datasets to other formats.")
app.add_typer(build_app, name="build")
app.add_typer(import_app, name="import")
app.add_typer(export_app, name="export")


def _print_version(value: bool) -> None:
    if value:
        out_console.print(f"lotdata {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", is_eager=True, callback=_print_version
    ),
) -> None:
    pass


from lotdata.clikit import command_of as _command_of  # noqa: E402
from lotdata.sources.commands import READ  # noqa: E402

read_cmd = app.command("read", epilog=READ.epilog())(_command_of(READ))


def _warn_all(notes: List[str]) -> None:
    for note in notes:
        _warn(note)


# ---------------------------------------------------------------------------------------------
# build TASK, import lot, export lot, stats, diff, card: records (lotdata/tasks/commands.py,
# lotdata/datasets/commands.py) run through the one runner; here only how each prints its summary

from lotdata.clikit import command_of  # noqa: E402
from lotdata.datasets.commands import CARD_COMMAND, DIFF, EXPORT_LOT, IMPORT_LOT, STATS  # noqa: E402
from lotdata.tasks.commands import (  # noqa: E402
    BUILD_CLOZET,
    BUILD_OUTGEN,
    BUILD_PLOTCOM,
    BUILD_SEGMENTS,
    BUILD_SENPOS,
)


def _render_build(summary: dict, params: Any) -> None:
    for note in summary.get("notes", []):
        console.print(note, markup=False, highlight=False)
    _warn_all(summary.get("warnings", []))
    out_console.print(
        _summary_table(f"lotdata build {summary['task']} -> {params.out}", {**summary["rows"], **summary["stats"]})
    )


build_senpos = build_app.command("senpos")(command_of(BUILD_SENPOS, _render_build))
build_plotcom = build_app.command("plotcom")(command_of(BUILD_PLOTCOM, _render_build))
build_outgen = build_app.command("outgen")(command_of(BUILD_OUTGEN, _render_build))
build_clozet_cmd = build_app.command("clozet")(command_of(BUILD_CLOZET, _render_build))
build_segments = build_app.command("segments")(
    command_of(
        BUILD_SEGMENTS,
        lambda summary, params: out_console.print(_summary_table(f"lotdata build segments -> {params.out}", summary)),
    )
)


def _render_import_lot(summary: dict, params: Any) -> None:
    _warn_all([w for w in summary["warnings"] if "empty" not in w])
    out_console.print(_summary_table(f"lotdata import lot ({params.task}) -> {params.out}", summary["rows"]))


import_lot_cmd = import_app.command("lot")(command_of(IMPORT_LOT, _render_import_lot))
export_lot_cmd = export_app.command("lot")(
    command_of(
        EXPORT_LOT,
        lambda summary, params: out_console.print(_summary_table(f"lotdata export lot -> {params.out}", summary)),
    )
)


def _render_stats(summary: dict, params: Any) -> None:
    stats = summary["stats"]
    if params.json_out == "-":
        sys.stdout.write(json.dumps(stats, ensure_ascii=False, indent=2) + "\n")
        return
    splits = list(stats["splits"])
    table = Table(title=f"{stats['task']} — {params.folder}")
    table.add_column("statistic")
    for split in splits:
        table.add_column(split, justify="right")
    keys = list(next(iter(stats["splits"].values()), {}).keys())
    for key in keys:
        table.add_row(key, *_cells(stats["splits"][s].get(key) for s in splits))
    out_console.print(table)


stats_cmd = app.command("stats")(command_of(STATS, _render_stats))


def _render_diff(summary: dict, params: Any) -> None:
    """The report as text (or JSON with `--json -`); the exit code is diff's own: 0 equal, 1 different, 5 stories
    moved (3, bad input, comes from the runner's boundary)."""
    from lotdata.datasets.diff import render_markdown

    report = summary["report"]
    if params.json_out == "-":
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render_markdown(report))
    raise typer.Exit(report["exit_code"])


diff_cmd = command_of(DIFF, _render_diff)
# a negative --sample stays a usage error (exit 2): diff's exit 1 means "different"
diff_cmd.__signature__.parameters["sample"].default.min = 0  # type: ignore[attr-defined]
app.command("diff")(diff_cmd)


def _render_card(summary: dict, params: Any) -> None:
    """What `card` wrote; with --check the report, exit 1 when a required field is missing or invalid."""
    if "check" not in summary:
        out_console.print(f"wrote {summary['card']} and {summary['croissant']}")
        return
    report = summary["check"]
    for title, lines in (("errors", report["errors"]), ("to fill in by the authors", report["to_fill"])):
        out_console.print(f"{title} ({len(lines)}):", markup=False, highlight=False, soft_wrap=True)
        for line in lines:
            out_console.print(f"  - {line}", markup=False, highlight=False, soft_wrap=True)
    for line in report["warnings"]:
        out_console.print(f"  warning: {line}", markup=False, highlight=False, soft_wrap=True)
    rows = ", ".join(f"{split} {n}" for split, n in report["rows"].items())
    out_console.print(f"croissant.json loads: {rows or 'nothing'}", markup=False, highlight=False, soft_wrap=True)
    if report["errors"]:
        raise typer.Exit(1)


card_cmd = app.command("card")(command_of(CARD_COMMAND, _render_card))


def _cells(values) -> list[str]:
    return ["–" if value is None else str(value) for value in values]


@app.command("run")
def run_cmd(
    recipe: str = typer.Argument(..., help="A recipe TOML path, or a shipped recipe's name (demo, senpos, ...)."),
    out_root: Optional[Path] = typer.Option(None, "--out", help="Output folder (default: the recipe's `out`)."),
    force: bool = typer.Option(False, "--force", help="Re-run steps already marked done."),
) -> None:
    """Run a recipe; steps already done with the same inputs and parameters are skipped."""
    from lotdata.pipeline import run_recipe
    from lotdata.resources import resolve_recipe

    table = Table(title=f"lotdata run {recipe}")
    for column in ("step", "status", "output", "summary"):
        table.add_column(column)

    def show(result) -> None:
        status = "skipped (done)" if result.skipped else "done"
        brief = {
            k: v
            for k, v in result.summary.items()
            if k in ("stories", "quarantine", "rows", "stories_dropped", "seconds")
        }
        table.add_row(result.name, status, ", ".join(map(str, result.outputs)), json.dumps(brief, ensure_ascii=False))
        console.print(f"[green]✓[/] {result.name}: {status}")
        for note in result.summary.get("notes", []):
            console.print(f"{result.name}: {note}", markup=False, highlight=False)
        _warn_all([f"{result.name}: {note}" for note in result.summary.get("warnings", [])])

    with _errors(), _progress() as progress:

        def factory(task: str):
            bar = progress.add_task(f"build {task}", total=None)
            return (lambda total: progress.update(bar, total=total)), (lambda k: progress.advance(bar, k))

        run_recipe(
            resolve_recipe(recipe),
            out_root=out_root,
            force=force,
            on_step=show,
            progress_factory=factory,
            on_warning=_warn,
            on_start=lambda step: console.print(f"{time.strftime('%H:%M:%S')} ▶ {step}", markup=False, highlight=False),
        )
    out_console.print(table)


@app.command("demo")
def demo_cmd(
    out_root: Path = typer.Option(Path("out/demo"), "--out", help="Output folder."),
    force: bool = typer.Option(False, "--force", help="Re-run every step, even those already done."),
) -> None:
    """The main job on the embedded sample corpus: read, build SenPos/PlotCom/OutGen, print Table 3."""
    from lotdata.datasets.registry import builder_tasks

    run_cmd("demo", out_root, force)
    for task in builder_tasks():
        folder = out_root / task
        if folder.exists():
            stats_cmd(folder=str(folder), json_out=None)


from lotdata.models.cli import baseline_app, evaluate_cmd  # noqa: E402

app.command("evaluate")(evaluate_cmd)
# the help given here: typer renders Rich markup, so "[models]" must be escaped or it vanishes from --help
app.add_typer(
    baseline_app, name="baseline", help="Train and run the LOT model baselines (pip install 'lotdata\\[models]')."
)

from lotdata.annotate.cli import app as _annotate_app  # noqa: E402

app.add_typer(_annotate_app, name="annotate")

from lotdata.audit.cli import audit_bias_cmd, import_storycloze_cmd  # noqa: E402

app.command("audit-bias")(audit_bias_cmd)
import_app.command("storycloze")(import_storycloze_cmd)

from lotdata.clean.cli import clean_cmd  # noqa: E402
from lotdata.sources.cli import crawl_cmd, extract_cmd  # noqa: E402

app.command("crawl")(crawl_cmd)
app.command("extract")(extract_cmd)
app.command("clean")(clean_cmd)

from lotdata.overlap.cli import index_app as _index_app  # noqa: E402
from lotdata.overlap.cli import overlap_cmd  # noqa: E402

app.command("overlap")(overlap_cmd)
app.add_typer(_index_app, name="index")

from lotdata.quality.cli import quality_app as _quality_app  # noqa: E402

app.add_typer(_quality_app, name="quality")


#: options that take several values: `--stories a.parquet b.parquet` becomes `--stories a.parquet --stories b.parquet`
MULTI_VALUE_OPTIONS = ("--stories",)


def expand_multi_value_options(argv: List[str]) -> List[str]:
    expanded: List[str] = []
    current: Optional[str] = None
    for arg in argv:
        if arg.startswith("-"):
            current = arg if arg in MULTI_VALUE_OPTIONS else None
            if current is None:
                expanded.append(arg)
            continue
        if current is not None:
            expanded += [current, arg]
            continue
        expanded.append(arg)
    return expanded


def main() -> None:  # pragma: no cover - console script entry
    app(args=expand_multi_value_options(sys.argv[1:]), prog_name="lotdata")


if __name__ == "__main__":  # pragma: no cover
    main()
