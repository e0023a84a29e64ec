"""`lotdata audit-bias` and `lotdata import storycloze`."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.markup import escape

from lotdata.clikit import console, errors, out_console, summary_table


def audit_bias_cmd(
    path: Path = typer.Argument(..., help="Dataset folder, LOT jsonl file/folder, or Story Cloze csv file/folder."),
    out: Path = typer.Option(..., "--out", help="Report folder: results.json, predictions.parquet, report.md, report.html."),
    train_split: Optional[str] = typer.Option(None, "--train-split", help="Split the learning baselines fit on (SCT: val); it must exist. Default: train, where there is one."),
    seed: int = typer.Option(0, "--seed"),
    runs: int = typer.Option(10, "--runs", help="Seeded runs averaged for random choices and ties."),
    baseline: Optional[List[str]] = typer.Option(None, "--baseline", help="Run only these (repeatable); default: all."),
    task: Optional[str] = typer.Option(None, "--task", help="clozet or senpos, for LOT jsonl whose fields do not tell."),
    workers: int = typer.Option(2, "--workers", help="Processes for sentiment scoring."),
    model_path: Optional[str] = typer.Option(None, "--model-path", help="Local checkpoint for the BERT baselines."),
    aflite: bool = typer.Option(False, "--aflite", help="Also run AFLite filtering and list the easiest items."),
    sentiment: str = typer.Option("snownlp", "--sentiment", help="Chinese sentiment: snownlp (exact, LOT's) or snownlp-jieba (same classifier on jieba words, ~20x faster)."),
) -> None:
    """Bias baselines (LOT Table 13, ROCStories Table 6), token-label scan and a report."""
    from lotdata.audit.run import audit, write_audit
    from lotdata.io import check_output_dir

    with errors():
        check_output_dir(out)
        result = audit(path, task=task, train_split=train_split, seed=seed, runs=runs, baselines=baseline,
                       workers=workers, model_path=model_path, aflite=aflite, sentiment=sentiment,
                       sentiment_cache=out / "sentiment_cache.parquet",
                       on_step=lambda name: console.print(f"[dim]· {name}[/]"))
        paths = write_audit(result, out)
    for skipped in result.skipped:
        console.print(f"[yellow]skipped {skipped['baseline']}:[/] {escape(skipped['reason'])}")
    rows = {r["id"]: f"{100 * r['accuracy']:.1f}% ({100 * r['ci_low']:.1f}–{100 * r['ci_high']:.1f}) {r['verdict']}" for r in result.records}
    rows["leaking tokens"] = result.scan.get("significant", 0)
    rows["seconds"] = round(result.timings["total"], 2)
    rows["report"] = str(paths["report_html"])
    out_console.print(summary_table(f"lotdata audit-bias ({result.task}) -> {out}", rows))


def import_storycloze_cmd(
    val: Path = typer.Option(..., "--val", help="Labelled Story Cloze Test validation csv."),
    test: Optional[Path] = typer.Option(None, "--test", help="Labelled Story Cloze Test test csv."),
    out: Path = typer.Option(..., "--out", help="Dataset folder to write (clozet, splits val/test)."),
    train_from: str = typer.Option("none", "--train-from", help="none, or val: train on the val csv, as published SCT systems do (test stays test)."),
    val_share: float = typer.Option(0.1, "--val-share", help="With --train-from val: share of it kept as val (early stopping), seeded."),
    seed: int = typer.Option(0, "--seed", help="With --train-from val: the seed of that split."),
) -> None:
    """Import the Story Cloze Test csv as a two-candidate cloze dataset."""
    from lotdata.tasks.storycloze import import_storycloze

    with errors():
        report = import_storycloze(val, out, test=test, train_from=train_from, val_share=val_share, seed=seed)
    out_console.print(summary_table(f"lotdata import storycloze -> {out}", {**report.rows_per_split, **report.stats}))
