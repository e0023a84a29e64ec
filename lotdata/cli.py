"""The `lotdata` command line: parse, call a stage, print a one-screen summary.

Exit codes: 0 success; 1 a problem lotdata explains (bad parameter, missing file); 2 usage error;
3 bad input data (the message names the file and row); 4 an optional package is missing; 70 a bug
(an exception lotdata did not expect: the message, "this is a bug" and a short trace).
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, List, Optional

import typer
from rich.table import Table

from lotdata import __version__
from lotdata.clikit import BugCatchingGroup, console, option_of, out_console, stage_options
from lotdata.clikit import errors as _errors
from lotdata.clikit import progress as _progress
from lotdata.clikit import summary_table as _summary_table
from lotdata.clikit import warn as _warn
from lotdata.exec import ExecSettings
from lotdata.tasks.outgen import OutgenParams
from lotdata.tasks.plotcom import PlotcomParams
from lotdata.tasks.senpos import SenposParams
from lotdata.tasks.stage import BuildOptions

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


def _command_line() -> str:
    return shlex.join(["lotdata", *sys.argv[1:]])


def _warn_all(notes: List[str]) -> None:
    for note in notes:
        _warn(note)


def _build(
    task: str,
    stories: List[Path],
    out: Path,
    params: dict,
    options: BuildOptions,
    execution: ExecSettings,
    clozet: Optional[Path] = None,
    clozet_split: Optional[str] = None,
) -> None:
    from lotdata.io import output_lock
    from lotdata.tasks.build import build_dataset

    with _errors(), output_lock(out), _progress() as progress:
        bar = progress.add_task(f"build {task}", total=None)
        report = build_dataset(
            task,
            stories,
            out,
            n=options.n,
            train_n=options.train_n,
            seed=options.seed,
            split=options.split,
            params=params,
            lot_jsonl=options.lot_jsonl,
            clozet=clozet,
            clozet_split=clozet_split,
            statuses=_names(options.statuses),
            tokenizer=options.tokenizer,
            command=_command_line(),
            execution=execution,
            progress=lambda k: progress.advance(bar, k),
            on_start=lambda total: progress.update(bar, total=total),
        )
    for note in report.notes:
        console.print(note, markup=False, highlight=False)
    _warn_all(report.warnings)
    out_console.print(_summary_table(f"lotdata build {task} -> {out}", {**report.rows_per_split, **report.stats}))


def _names(text: Optional[str]) -> Optional[List[str]]:
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


_STORIES = typer.Option(..., "--stories", help="stories Parquet file(s): --stories a.parquet b.parquet")
_OUT = typer.Option(..., "--out", help="Dataset folder to write.")


def _build_options(task_params: type) -> Any:
    """A `build TASK` command's options: the builder's parameters, the options every build shares and the
    executor's, each declared once in its record (`SenposParams`, `BuildOptions`, `ExecSettings`)."""
    return stage_options(task=task_params, options=BuildOptions, execution=ExecSettings)


def _no_limit(task: Any) -> dict:
    """A SenPos/PlotCom builder's parameters as `build_dataset` takes them (`--max-words 0`: no limit)."""
    return {**asdict(task), "max_words": task.max_words or None}


@build_app.command("senpos")
@_build_options(SenposParams)
def build_senpos(
    stories: List[Path] = _STORIES,
    out: Path = _OUT,
    *,
    task: SenposParams,
    options: BuildOptions,
    execution: ExecSettings,
) -> None:
    """SenPos: one inner sentence removed; every gap between adjacent sentences is a candidate."""
    _build("senpos", stories, out, _no_limit(task), options, execution)


@build_app.command("plotcom")
@_build_options(PlotcomParams)
def build_plotcom(
    stories: List[Path] = _STORIES,
    out: Path = _OUT,
    clozet: Optional[Path] = typer.Option(
        None,
        "--clozet",
        help="ClozeT dataset folder (or LOT ClozeT jsonl): val/test become its stories with the right candidate as target (LOT 3.3).",
    ),
    clozet_split: Optional[str] = typer.Option(
        None,
        "--clozet-split",
        help="With --clozet: sample val/test of these sizes across all ClozeT examples, whole stories, seeded (LOT: val=465,test=464); default: ClozeT's own val/test.",
    ),
    *,
    task: PlotcomParams,
    options: BuildOptions,
    execution: ExecSettings,
) -> None:
    """PlotCom: automatic training construction (one random sentence -> <MASK>); val/test from ClozeT with --clozet."""
    _build("plotcom", stories, out, _no_limit(task), options, execution, clozet, clozet_split)


@build_app.command("outgen")
@_build_options(OutgenParams)
def build_outgen(
    stories: List[Path] = _STORIES,
    out: Path = _OUT,
    *,
    task: OutgenParams,
    options: BuildOptions,
    execution: ExecSettings,
) -> None:
    """OutGen: title + shuffled RAKE outline -> story (LOT: from the filtered stories)."""
    _build("outgen", stories, out, asdict(task), options, execution)


@build_app.command("clozet")
def build_clozet_cmd(
    cases: Path = typer.Option(
        ...,
        "--cases",
        help="Written ClozeT cases: a ClozeT dataset folder (e.g. from annotate pull clozet_write) or LOT ClozeT jsonl, any splits.",
    ),
    out: Path = _OUT,
    n: Optional[int] = option_of(BuildOptions, "n"),
    seed: int = option_of(BuildOptions, "seed"),
    split: str = typer.Option(
        "val=294,test=294", "--split", help="val/test sizes or ratios; train takes the rest (LOT: 644 / 294 / 294)."
    ),
    lot_jsonl: bool = option_of(BuildOptions, "lot_jsonl"),
) -> None:
    """ClozeT: split the written cases again, grouped by story and seeded (LOT 644 / 294 / 294)."""
    from lotdata.tasks.clozet import build_clozet

    with _errors():
        report = build_clozet(cases, out, split=split, seed=seed, n=n, lot_jsonl=lot_jsonl, command=_command_line())
    for note in report.notes:
        console.print(note, markup=False, highlight=False)
    _warn_all(report.warnings)
    out_console.print(_summary_table(f"lotdata build clozet -> {out}", {**report.rows_per_split, **report.stats}))


@build_app.command("segments")
def build_segments(
    stories: List[Path] = _STORIES,
    out: Path = typer.Option(..., "--out", help="segments Parquet file to write."),
    seed: int = option_of(BuildOptions, "seed"),
    min_words: int = typer.Option(
        50, "--min-words", min=1, help="Fewest jieba words in a segment (LOT appendix: about 50)."
    ),
    max_words: int = typer.Option(
        500, "--max-words", min=1, help="Most jieba words in a segment (LOT appendix: about 500)."
    ),
) -> None:
    """Story segments for `annotate push story_filter` (LOT appendix Figure 1): whole sentences, seeded, one per story, with the whole story as the reference."""
    from lotdata.datasets.folder import load_stories
    from lotdata.errors import InputError
    from lotdata.tasks.segments import cut_segments, write_segments

    with _errors():
        rows, dropped = cut_segments(load_stories(stories), min_words=min_words, max_words=max_words, seed=seed)
        if not rows:
            raise InputError(
                f"no story yields a segment of {min_words}-{max_words} words (dropped: {dropped})",
                path=", ".join(map(str, stories)),
            )
        write_segments(rows, out)
    out_console.print(
        _summary_table(
            f"lotdata build segments -> {out}",
            {"segments": len(rows), **{f"dropped {k}": v for k, v in dropped.items()}},
        )
    )


@import_app.command("lot")
def import_lot_cmd(
    files: List[Path] = typer.Argument(..., help="LOT jsonl files (train/val/test by name) or a folder holding them."),
    task: str = typer.Option(..., "--task", help="clozet, senpos, plotcom or outgen."),
    out: Path = _OUT,
    split: Optional[str] = typer.Option(
        None, "--split", help="Split of the file(s) when the name does not tell (default train)."
    ),
) -> None:
    """Import the official LOT jsonl format into a dataset folder."""
    from lotdata.datasets.folder import import_lot

    with _errors():
        report = import_lot(files, task, out, split=split, command=_command_line())
    _warn_all([w for w in report.warnings if "empty" not in w])
    out_console.print(_summary_table(f"lotdata import lot ({task}) -> {out}", report.rows_per_split))


@export_app.command("lot")
def export_lot_cmd(
    folder: Path = typer.Argument(..., help="Dataset folder."),
    out: Path = typer.Option(..., "--out", help="Folder for train.jsonl, val.jsonl, test.jsonl."),
    include_empty: bool = typer.Option(False, "--include-empty", help="Write empty files for empty splits."),
) -> None:
    """Export a dataset folder in the official LOT jsonl format."""
    from lotdata.datasets.folder import export_lot
    from lotdata.paths import check_outputs

    with _errors():
        check_outputs({"--out": out}, {"FOLDER": folder})
        written = export_lot(folder, out, include_empty=include_empty)
    out_console.print(_summary_table(f"lotdata export lot -> {out}", written))


@app.command("stats")
def stats_cmd(
    folder: Path = typer.Argument(..., help="Dataset folder."),
    json_out: Optional[Path] = typer.Option(
        None, "--json", help="Also write the statistics as JSON here ('-' for stdout only)."
    ),
) -> None:
    """LOT Table 3 statistics of a dataset, per split."""
    from lotdata.datasets.folder import dataset_stats
    from lotdata.io import check_output_file, write_text

    with _errors():
        if json_out is not None and str(json_out) != "-":
            from lotdata.paths import check_outputs

            check_outputs({"--json": json_out}, {"FOLDER": folder})
            check_output_file(json_out)
        stats = dataset_stats(folder)
    if json_out is not None and str(json_out) == "-":
        sys.stdout.write(json.dumps(stats, ensure_ascii=False, indent=2) + "\n")
        return
    splits = list(stats["splits"])
    table = Table(title=f"{stats['task']} — {folder}")
    table.add_column("statistic")
    for split in splits:
        table.add_column(split, justify="right")
    keys = list(next(iter(stats["splits"].values()), {}).keys())
    for key in keys:
        table.add_row(key, *_cells(stats["splits"][s].get(key) for s in splits))
    out_console.print(table)
    if json_out is not None:
        with _errors():
            write_text(json.dumps(stats, ensure_ascii=False, indent=2) + "\n", json_out)


@app.command("diff")
def diff_cmd(
    a: Path = typer.Argument(
        ..., help="Before: a dataset folder, a `clean` output, an annotation pull folder or a Parquet table."
    ),
    b: Path = typer.Argument(..., help="After: the same kind as A."),
    json_out: Optional[Path] = typer.Option(
        None, "--json", help="Write the report as JSON here ('-': stdout, no text report)."
    ),
    sample: int = typer.Option(
        3, "--sample", min=0, help="Rows shown of each kind of change (added, removed, changed), seeded."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample."),
) -> None:
    """What changed from A to B: manifests, then rows by key and story, per split.

    Exit 0 equal, 1 different, 3 bad input (a missing path, two kinds or tasks, a folder and a file, a folder
    without a manifest), 5 stories moved between splits (never allowed by the split rules)."""
    from lotdata.datasets.diff import EXIT_BAD_INPUT, diff_paths, render_markdown
    from lotdata.errors import InputError
    from lotdata.io import check_output_file, write_text

    with _errors():
        if json_out is not None and str(json_out) != "-":
            check_output_file(json_out)
        try:
            report = diff_paths(a, b, sample=sample, seed=seed)
        except InputError as exc:
            console.print("[bold red]error:[/] ", end="")
            console.print(str(exc), markup=False, highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT)
    text = json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    if json_out is not None and str(json_out) == "-":
        sys.stdout.write(text)
    else:
        sys.stdout.write(render_markdown(report))
        if json_out is not None:
            with _errors():
                write_text(text, json_out)
    raise typer.Exit(report["exit_code"])


@app.command("card")
def card_cmd(folder: Path = typer.Argument(..., help="Dataset folder (with manifest.json).")) -> None:
    """Write FOLDER/README.md, a Hugging Face dataset card (datasets.load_dataset(FOLDER) loads the splits)."""
    from lotdata.datasets.card import write_card

    with _errors():
        path = write_card(folder)
    out_console.print(f"wrote {path}")


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
            stats_cmd(folder, None)


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
