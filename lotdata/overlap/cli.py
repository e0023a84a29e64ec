"""`lotdata overlap TEST --reference REF... --out DIR`: share of test n-grams found in references."""

from __future__ import annotations

import functools
import inspect
from pathlib import Path
from typing import Callable, List

import typer

from lotdata.clikit import command_of, console, errors, out_console, summary_table
from lotdata.overlap.commands import INDEX_BUILD, OVERLAP


def _print_summary(splits: List[dict], n: int, threshold: float, title: str) -> None:
    for s in splits:
        out_console.print(
            summary_table(
                f"{title} {s['split']} ({n}-grams)",
                {
                    "examples": s["n_examples"],
                    "percent": f"{100 * s['percent']:.2f}%",
                    f"# {n}-grams": s["ngrams"],
                    "# exam": s["examples"],
                    f"# exam>{threshold:.0%}": s["examples_over"],
                    "max percent": f"{100 * s['max_percent']:.2f}%",
                },
            )
        )


def _render_overlap(summary: dict, params) -> None:
    reports = summary["reports"]
    if params.index is None:
        report = reports[0]
        _print_summary(report["splits"], params.n, params.threshold, "lotdata overlap")
        if params.write_filtered is not None:
            out_console.print(f"w/o overlap -> {params.write_filtered}: {summary['kept']}")
        for line in summary["skipped"]:
            console.print(f"[yellow]skipped:[/] {line}")
        folder = report["folder"]
        out_console.print(f"{folder}/summary.json, {folder}/examples.parquet, {folder}/report.md")
        return
    if params.write_filtered is not None:
        out_console.print(f"w/o overlap -> {params.write_filtered}: {summary['kept']}")
    for line in summary["skipped"]:
        console.print(f"[yellow]trusted although changed (--trust-references):[/] {line}")
    for report in reports:
        _print_summary(report["splits"], params.n, params.threshold, f"lotdata overlap --index {report['test']}")
        folder = report["folder"]
        out_console.print(
            f"{folder}/summary.json, {folder}/examples.parquet, {folder}/report.md "
            f"({report['seconds']:.2f} s for {len(reports)} test set(s))"
        )


def _overlap_command() -> Callable[..., None]:
    """`overlap` from its record, plus what a record cannot say: `-r` for --reference, and --index/--reference
    given both or neither as a usage error (exit 2, as before)."""
    from lotdata.stage import params_of

    derived = command_of(OVERLAP, _render_overlap)

    @functools.wraps(derived)
    def overlap_cmd(**kwargs) -> None:
        if kwargs.get("index") is not None and kwargs.get("reference"):
            raise typer.BadParameter("give --index or --reference, not both", param_hint="--index")
        if kwargs.get("index") is None and not kwargs.get("reference"):
            raise typer.BadParameter(
                "give the references (--reference REF...) or a built index (--index IDX)", param_hint="--reference"
            )
        derived(**kwargs)

    info = next(p for p in params_of(OVERLAP.params) if p.name == "reference")
    signature = inspect.signature(derived)
    overlap_cmd.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[
            p.replace(default=typer.Option(None, info.flag, "-r", help=info.help)) if p.name == "reference" else p
            for p in signature.parameters.values()
        ]
    )
    return overlap_cmd


overlap_cmd = _overlap_command()


index_app = typer.Typer(
    help="A word n-gram index of reference corpora: build once, query with `overlap --index`.", no_args_is_help=True
)

index_app.command("build")(
    command_of(
        INDEX_BUILD,
        lambda summary, params: out_console.print(summary_table(f"lotdata index build -> {params.out}", summary)),
    )
)


@index_app.command("verify")
def index_verify_cmd(
    idx: Path = typer.Argument(..., metavar="IDX", help="An index folder."),
    full: bool = typer.Option(
        False, "--full", help="Also hash every file (token and suffix-array files too) against the manifest's sha256."
    ),
    trust_references: bool = typer.Option(
        False, "--trust-references", help="Do not refuse a reference changed (size or mtime) since the build."
    ),
) -> None:
    """The check every query runs (manifest, version, every file's size, sha256 of the small files, sampled
    sortedness, each reference's size and mtime); --full hashes every file. Exit 3 naming the first bad file."""
    from lotdata.overlap.index import check_references, verify_index

    with errors():
        loaded = verify_index(idx, full=full)
        changed = check_references(loaded.manifest, trust=trust_references)
    for line in changed:
        console.print(f"[yellow]reference changed (trusted):[/] {line}")
    m = loaded.manifest
    out_console.print(
        summary_table(
            f"lotdata index verify {idx}{' --full' if full else ''}: ok",
            {
                "lotdata": m["lotdata_version"],
                "tokens": m["tokens"],
                "checked": "sha256 of every file" if full else "sizes, sha256 of the small files, sampled order",
                "shards": len(m["shards"]),
                "segments": len(m["segments"]),
                "words": m["totals"]["tokens"],
                "vocabulary": m["vocab"]["words"],
                "sources": len(m["sources"]),
            },
        )
    )
