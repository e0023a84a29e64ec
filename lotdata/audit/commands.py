"""`audit-bias` and `import storycloze` as records (`lotdata.command`): the CLI, the library call and the
conformance checks are derived from them, and the one runner gives each its checks, locks and atomic publication."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.audit.stage import AuditParams, audit_arguments
from lotdata.command import Command, Output, Run, execution_of, register_command
from lotdata.exec import ExecSettings
from lotdata.stage import param

_SCT_HEADER = (
    "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,"
    "RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
)


def _sct_csv(path: Path, rows: int, name: str = "Tom") -> Path:
    """A small labelled Story Cloze Test csv (the right ending always first: `constant_first` leaks)."""
    path.write_text(
        _SCT_HEADER
        + "".join(
            f"s{i},{name} had a dog {i}.,It was old.,One day it ran.,{name} looked for it.,"
            f"He found it {i}.,He ate a car {i}.,1\n"
            for i in range(rows)
        ),
        encoding="utf-8",
    )
    return path


# ---------------------------------------------------------------------------------------------
# lotdata audit-bias

#: what `audit-bias --out` holds (`write_audit`), the sentiment scores it keeps and the executor's work folder
REPORT_FILES = frozenset(
    {
        "results.json",
        "predictions.parquet",
        "scan.json",
        "quarantine.parquet",
        "aflite_removed.txt",
        "audit.json",
        "report.md",
        "report.html",
        ".incomplete",
    }
)
SENTIMENT_CACHE = "sentiment_cache.parquet"


@dataclass(frozen=True, kw_only=True)
class AuditBiasParams(AuditParams, ExecSettings):
    """The `[[audit]]` stage's parameters (`AuditParams`), the positional input, --out, the BERT settings and the
    export of the hard items."""

    input: str = param(help="Dataset folder, LOT jsonl file/folder, or Story Cloze csv file/folder.")
    out: str = param(
        help="Report folder: results.json, predictions.parquet, report.md, report.html; a stopped run re-run with the same --out resumes.",
    )
    bert_epochs: int = param(1, "Fine-tuning epochs of the BERT baselines.", check=">0")
    bert_batch_size: int = param(12, "Items per BERT step (LOT 5.2: 12); memory is bounded by it.", check=">0")
    min_effect: float = param(
        3.0, "Points above chance a significant baseline needs to be called 'leaks'.", check=">=0"
    )
    export_hard: str | None = param(
        None,
        "Write the items a leaking baseline solves as a ClozeT dataset folder (+ stories.parquet for `annotate push clozet_write`).",
    )
    export_baseline: list[str] | None = param(
        None, "With --export-hard: only the items these leaking baselines solve (repeatable)."
    )


def audit_report_owned(folder: Path) -> bool:
    """A report folder `audit-bias` wrote (or a stopped run left): its files, the sentiment scores, the work folder."""
    from lotdata.audit.work import WORK_DIR

    return {p.name for p in folder.iterdir()} <= REPORT_FILES | {SENTIMENT_CACHE, WORK_DIR}


def _audit_outputs(p: AuditBiasParams) -> list[Output]:
    # update: the report folder's sentiment scores (and a stopped run's work folder) are reused by the next run
    outputs = [Output("--out", Path(p.out), kind="folder", owned=audit_report_owned, update=True)]
    if p.export_hard is not None:
        outputs.append(Output("--export-hard", Path(p.export_hard), kind="dataset", task=_audited_task(p)))
    return outputs


def _audited_task(p: AuditBiasParams) -> str | None:
    """The task of the audited dataset (the hard subset's): --task, else its manifest's (None: not known here)."""
    if p.task:
        return p.task
    try:
        manifest = json.loads((Path(p.input) / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return manifest.get("task") if isinstance(manifest, dict) else None


def _audit_check(p: AuditBiasParams) -> None:
    if p.export_hard is None and p.export_baseline:
        raise ValueError("--export-baseline needs --export-hard DIR")


def _audit_bias(run: Run) -> dict[str, Any]:
    from lotdata.audit.bert import BertSettings
    from lotdata.audit.export import export_hard
    from lotdata.audit.run import audit, write_audit
    from lotdata.audit.work import WORK_DIR
    from lotdata.io import mark_incomplete
    from lotdata.progress import console

    p: AuditBiasParams = run.params
    out = run.out("--out")
    if out.is_dir():  # a report of an earlier run never survives this one; its scores and work folder are reused
        for entry in out.iterdir():
            if entry.name in (SENTIMENT_CACHE, WORK_DIR):
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    result = audit(
        p.input,
        **audit_arguments(p, out),
        execution=execution_of(p),
        bert=BertSettings(epochs=p.bert_epochs, batch_size=p.bert_batch_size),
        min_effect=p.min_effect,
        on_step=lambda name, resumed: console.print(
            f"[dim]· {name}{' (done by an earlier run)' if resumed else ''}[/]"
        ),
        on_start=lambda: mark_incomplete(out),
    )
    write_audit(result, out)
    exported = None
    if p.export_hard is not None:
        exported = export_hard(result, run.out("--export-hard"), p.export_baseline)
    return {
        "task": result.task,
        "skipped": result.skipped,
        "quarantined": len(result.quarantine),
        "quarantine_by_reason": result.quarantine_counts()["by_reason"] if result.quarantine else {},
        "records": result.records,
        "exported": exported,
        "leaking tokens": result.scan.get("significant", 0),
        "seconds": round(result.timings["total"], 2),
        "report": str(run.final("--out") / "report.html"),
    }


def _audit_sample(folder: Path) -> list[str]:
    csvs = folder / "sct"
    csvs.mkdir(exist_ok=True)
    _sct_csv(csvs / "test.csv", 30)
    return [
        str(csvs),
        "--out",
        str(folder / "report"),
        "--baseline",
        "constant_first",
        "--runs",
        "1",
        "--export-hard",
        str(folder / "hard"),
    ]


AUDIT_BIAS = register_command(
    Command(
        name="audit-bias",
        params=AuditBiasParams,
        execute=_audit_bias,
        inputs=lambda p: {"PATH": p.input, "--model-path": p.model_path},
        outputs=_audit_outputs,
        check=_audit_check,
        summary="""Bias baselines (LOT Table 13, ROCStories Table 6), token-label scan and a report.

BERT w/o Context / w/o Long are fine-tuned as `baseline train --variant` does (LOT 5.2: dot-product scorer,
batch 12, length 512, learning rate 3e-5). Not reproduced from ROCStories Table 6: word2vec, skip-thoughts,
the narrative-chain models and DSSM: each needs a pretrained model or licensed corpus lotdata does not ship
(word2vec vectors, the BookCorpus skip-thoughts encoder, Gigaword event chains, a DSSM trained on ROCStories);
their Table 6 accuracies are 47.2-60.4%. README: "Not reproduced from ROCStories Table 6".""",
        arguments=("input",),
        metavars={"input": "PATH"},
        sample=_audit_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# lotdata import storycloze


@dataclass(frozen=True, kw_only=True)
class ImportStoryclozeParams:
    val: str | None = param(None, "Labelled Story Cloze Test validation csv.", path="input")
    test: str | None = param(
        None, "Labelled Story Cloze Test test csv (one of --val and --test at least).", path="input"
    )
    out: str = param(help="Dataset folder to write (clozet, splits val/test).")
    train_from: str = param(
        "none",
        "none, or val: train on the val csv, as published SCT systems do (test stays test).",
        choices=("none", "val"),
    )
    val_share: float = param(0.1, "With --train-from val: share of it kept as val (early stopping), seeded.")
    seed: int = param(0, "With --train-from val: the seed of that split.")


def _import_check(p: ImportStoryclozeParams) -> None:
    from lotdata.tasks.storycloze import check_import

    check_import(p.val, p.test, p.train_from, p.val_share)


def _import_storycloze(run: Run) -> dict[str, Any]:
    from lotdata.tasks.storycloze import import_storycloze

    p: ImportStoryclozeParams = run.params
    report = import_storycloze(
        p.val, run.out("--out"), test=p.test, train_from=p.train_from, val_share=p.val_share, seed=p.seed
    )
    return {**report.rows_per_split, **report.stats}


def _import_sample(folder: Path) -> list[str]:
    val, test = _sct_csv(folder / "val.csv", 6), _sct_csv(folder / "test.csv", 4, name="Ann")
    return ["--val", str(val), "--test", str(test), "--out", str(folder / "sct")]


IMPORT_STORYCLOZE = register_command(
    Command(
        name="import storycloze",
        params=ImportStoryclozeParams,
        execute=_import_storycloze,
        inputs=lambda p: {"--val": p.val, "--test": p.test},
        outputs=lambda p: [Output("--out", Path(p.out), kind="dataset")],
        check=_import_check,
        summary="Import the Story Cloze Test csv as a two-candidate cloze dataset.",
        sample=_import_sample,
    )
)
