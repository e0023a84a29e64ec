"""`lotdata audit-bias` and `lotdata import storycloze`."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.markup import escape

from lotdata.audit.stage import AuditParams, audit_arguments
from lotdata.clikit import console, errors, out_console, stage_options, summary_table
from lotdata.exec import ExecSettings


@stage_options(params=AuditParams, execution=ExecSettings)
def audit_bias_cmd(
    path: Path = typer.Argument(..., help="Dataset folder, LOT jsonl file/folder, or Story Cloze csv file/folder."),
    out: Path = typer.Option(
        ...,
        "--out",
        help="Report folder: results.json, predictions.parquet, report.md, report.html; a stopped run re-run with the same --out resumes.",
    ),
    bert_epochs: int = typer.Option(1, "--bert-epochs", help="Fine-tuning epochs of the BERT baselines."),
    bert_batch_size: int = typer.Option(
        12, "--bert-batch-size", help="Items per BERT step (LOT 5.2: 12); memory is bounded by it."
    ),
    min_effect: float = typer.Option(
        3.0, "--min-effect", help="Points above chance a significant baseline needs to be called 'leaks'."
    ),
    export_hard: Optional[Path] = typer.Option(
        None,
        "--export-hard",
        help="Write the items a leaking baseline solves as a ClozeT dataset folder (+ stories.parquet for `annotate push clozet_write`).",
    ),
    export_baseline: Optional[List[str]] = typer.Option(
        None, "--export-baseline", help="With --export-hard: only the items these leaking baselines solve (repeatable)."
    ),
    *,
    params: AuditParams,
    execution: ExecSettings,
) -> None:
    """Bias baselines (LOT Table 13, ROCStories Table 6), token-label scan and a report.

    BERT w/o Context / w/o Long are fine-tuned as `baseline train --variant` does (LOT 5.2: dot-product scorer,
    batch 12, length 512, learning rate 3e-5). Not reproduced from ROCStories Table 6: word2vec, skip-thoughts,
    the narrative-chain models and DSSM: each needs a pretrained model or licensed corpus lotdata does not ship
    (word2vec vectors, the BookCorpus skip-thoughts encoder, Gigaword event chains, a DSSM trained on ROCStories);
    their Table 6 accuracies are 47.2-60.4%. README: "Not reproduced from ROCStories Table 6"."""
    from lotdata.audit.bert import BertSettings
    from lotdata.audit.run import audit, write_audit
    from lotdata.io import check_output_dir, mark_incomplete, output_lock
    from lotdata.paths import check_outputs

    with errors():
        check_outputs({"--out": out, "--export-hard": export_hard}, {"PATH": path, "--model-path": params.model_path})
        check_output_dir(out)
        if export_hard is not None:
            check_output_dir(export_hard)
        elif export_baseline:
            raise ValueError("--export-baseline needs --export-hard DIR")
        if bert_epochs < 1 or bert_batch_size < 1:
            raise ValueError(
                f"--bert-epochs and --bert-batch-size must be at least 1, not {bert_epochs} and {bert_batch_size}"
            )
        settings = BertSettings(epochs=bert_epochs, batch_size=bert_batch_size)
        with output_lock(out):  # one run at a time per report folder
            result = audit(
                path,
                **audit_arguments(params, out),
                execution=execution,
                bert=settings,
                min_effect=min_effect,
                on_step=lambda name, resumed: console.print(
                    f"[dim]· {name}{' (done by an earlier run)' if resumed else ''}[/]"
                ),
                on_start=lambda: mark_incomplete(out),
            )
            paths = write_audit(result, out)
            exported = None
            if export_hard is not None:
                from lotdata.audit.export import export_hard as write_hard

                exported = write_hard(result, export_hard, export_baseline)
    for skipped in result.skipped:
        console.print(f"[yellow]skipped {skipped['baseline']}:[/] {escape(skipped['reason'])}")
    if result.quarantine:
        counts = result.quarantine_counts()["by_reason"]
        console.print(
            f"[yellow]quarantined {len(result.quarantine)} row(s)[/] ({escape('; '.join(f'{n} × {r}' for r, n in counts.items()))}): "
            f"{escape(str(out / 'quarantine.parquet'))}"
        )
    rows = {
        r[
            "id"
        ]: f"{100 * r['accuracy']:.1f}% ({100 * r['ci_low']:.1f}–{100 * r['ci_high']:.1f}) {r['verdict']}, p_holm {r['p_holm']:.2g}"
        for r in result.records
    }
    if exported is not None:
        rows["exported hard items"] = f"{exported['items']} -> {export_hard}"
    rows["leaking tokens"] = result.scan.get("significant", 0)
    rows["seconds"] = round(result.timings["total"], 2)
    rows["report"] = str(paths["report_html"])
    out_console.print(summary_table(f"lotdata audit-bias ({result.task}) -> {out}", rows))


def import_storycloze_cmd(
    val: Optional[Path] = typer.Option(None, "--val", help="Labelled Story Cloze Test validation csv."),
    test: Optional[Path] = typer.Option(
        None, "--test", help="Labelled Story Cloze Test test csv (one of --val and --test at least)."
    ),
    out: Path = typer.Option(..., "--out", help="Dataset folder to write (clozet, splits val/test)."),
    train_from: str = typer.Option(
        "none",
        "--train-from",
        help="none, or val: train on the val csv, as published SCT systems do (test stays test).",
    ),
    val_share: float = typer.Option(
        0.1, "--val-share", help="With --train-from val: share of it kept as val (early stopping), seeded."
    ),
    seed: int = typer.Option(0, "--seed", help="With --train-from val: the seed of that split."),
) -> None:
    """Import the Story Cloze Test csv as a two-candidate cloze dataset."""
    from lotdata.tasks.storycloze import import_storycloze

    with errors():
        report = import_storycloze(val, out, test=test, train_from=train_from, val_share=val_share, seed=seed)
    out_console.print(summary_table(f"lotdata import storycloze -> {out}", {**report.rows_per_split, **report.stats}))
