"""`lotdata evaluate` and `lotdata baseline train|predict|table|curve` (torch is imported only when needed)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from lotdata.clikit import errors, out_console, summary_table
from lotdata.paths import check_outputs

baseline_app = typer.Typer(
    no_args_is_help=True, help="Train and run the LOT model baselines (pip install 'lotdata[models]')."
)

_TASK = typer.Argument(..., help="clozet, senpos, plotcom or outgen.")


def evaluate_cmd(
    task: str = _TASK,
    pred: Path = typer.Option(
        ..., "--pred", help="Predictions: LOT jsonl (same shape as the test file) or our Parquet."
    ),
    gold: Path = typer.Option(..., "--gold", help="Gold: LOT jsonl or our Parquet split."),
    json_out: Optional[Path] = typer.Option(
        None, "--json", help="Also write the scores as JSON here ('-' for stdout only)."
    ),
    definition: str = typer.Option(
        "lot",
        "--definition",
        help="lot (LOT Tables 10/11), nlpcc2021 (the NLPCC 2021 OutGen script; alias official) or paper.",
    ),
    human: Optional[str] = typer.Option(
        None, "--human", help="nlpcc2021_overall: human scores of B-1,B-2,D-3,D-4,Cover,Order (default: the script's)."
    ),
    baseline: Optional[str] = typer.Option(
        None,
        "--baseline",
        help="nlpcc2021_overall: the reference model's scores, same order (default: LongLM-small val).",
    ),
) -> None:
    """Score predictions: accuracy, BLEU-n, Distinct-n, Coverage, Order (LOT Section 5.3; LOT's Overall: `baseline table`)."""
    from lotdata import metrics
    from lotdata.clikit import warn
    from lotdata.datasets.registry import get_task
    from lotdata.io import check_output_file, write_text

    to_stdout = json_out is not None and str(json_out) == "-"
    with errors():
        get_task(task)  # an unknown task: ValueError naming the known ones
        check_outputs({"--json": None if to_stdout else json_out}, {"--pred": pred, "--gold": gold})
        if metrics.DEFINITION_ALIASES.get(definition, definition) not in metrics.DEFINITIONS:
            raise ValueError(f"--definition {definition!r}: choose from {', '.join(metrics.DEFINITIONS)}")
        if json_out is not None and not to_stdout:
            check_output_file(json_out)
        weights = {
            name: _scores_option(f"--{name}", value)
            for name, value in (("human", human), ("baseline", baseline))
            if value
        }
        pred_records = metrics.load_records(pred, task)
        gold_records = metrics.load_records(gold, task, gold=True)
        pred_records = metrics.align_records(task, pred_records, gold_records, str(pred), str(gold))
        scores = metrics.evaluate(task, pred_records, gold_records, definition, **weights)
    for key, reason in metrics.undefined_metrics(scores).items():
        warn(f"{key} could not be computed: {reason} (shown as \u2013, written as null)")
    # NaN is not JSON: an undefined metric is written as null
    text = (
        json.dumps(
            {k: None if k in metrics.undefined_metrics(scores) else v for k, v in scores.items()},
            ensure_ascii=False,
            indent=2,
            allow_nan=False,
        )
        + "\n"
    )
    if to_stdout:
        sys.stdout.write(text)
        return
    table = Table(title=f"lotdata evaluate {task} ({definition})")
    table.add_column("metric")
    table.add_column("score", justify="right")
    table.add_column("%", justify="right")
    for key, value in scores.items():
        if math.isnan(value):
            table.add_row(key, "\u2013", "\u2013")
        else:
            table.add_row(key, f"{value:.4f}", f"{100 * value:.2f}")
    out_console.print(table)
    if json_out is not None:
        with errors():
            write_text(text, json_out)


def _scores_option(option: str, value: str) -> list[float]:
    """--human / --baseline: six comma-separated numbers (B-1,B-2,D-3,D-4,Cover,Order)."""
    from lotdata.errors import LotdataError
    from lotdata.metrics import OVERALL_KEYS

    form = f"{len(OVERALL_KEYS)} comma-separated numbers for {','.join(OVERALL_KEYS)}, e.g. 26.58,16.04,17.90,31.38,83.64,63.15"
    numbers = []
    for part in value.split(","):
        try:
            numbers.append(float(part))
        except ValueError:
            raise LotdataError(f"{option} {value!r}: {part.strip()!r} is not a number; expected {form}") from None
    if len(numbers) != len(OVERALL_KEYS):
        raise LotdataError(f"{option} {value!r}: {len(numbers)} value(s); expected {form}")
    if not all(math.isfinite(x) and x > 0 for x in numbers):
        raise LotdataError(f"{option} {value!r}: every score must be a positive number; expected {form}")
    return numbers


@baseline_app.command("train")
def train_cmd(
    config: str = typer.Option(
        ..., "--config", help="baselines/NAME.toml, or a shipped name (bert, vanilla_transformer, ...)."
    ),
    task: Optional[str] = typer.Option(None, "--task", help="Task (default: the dataset's)."),
    data: Path = typer.Option(..., "--data", help="Dataset folder (train/val/test Parquet)."),
    out: Path = typer.Option(..., "--out", help="Run folder (best/, last/, history.jsonl, results.json)."),
    checkpoint: Optional[str] = typer.Option(
        None, "--checkpoint", help="Local checkpoint folder (overrides the config's)."
    ),
    variant: str = typer.Option("full", "--variant", help="Understanding input: full, wo_context, wo_long (LOT 5.5)."),
    epochs: Optional[int] = typer.Option(None, "--epochs"),
    batch_size: Optional[int] = typer.Option(None, "--batch-size", help="Default 12 (the paper's)."),
    gpu_batch_size: Optional[int] = typer.Option(None, "--gpu-batch-size", help="Batch size when a GPU is used."),
    grad_accum: Optional[int] = typer.Option(None, "--grad-accum", help="Gradient accumulation steps."),
    max_length: Optional[int] = typer.Option(None, "--max-length", help="Default 512."),
    lr: Optional[float] = typer.Option(None, "--lr", help="Default 3e-5."),
    patience: Optional[int] = typer.Option(
        None, "--patience", help="Epochs without a better val score before stopping."
    ),
    seed: Optional[int] = typer.Option(None, "--seed"),
    train_size: Optional[int] = typer.Option(None, "--train-size", help="Use this many training examples (seeded)."),
    device: Optional[str] = typer.Option(None, "--device", help="cpu, cuda, cuda:1 (default: cuda when present)."),
    mixed_precision: bool = typer.Option(True, "--amp/--no-amp", help="Mixed precision on CUDA."),
    resume: bool = typer.Option(True, "--resume/--restart", help="Continue from OUT/last/state.pt when it exists."),
) -> None:
    """Fine-tune a baseline on a dataset folder (early stopping on val; resumable)."""
    from dataclasses import replace

    from lotdata.models.config import load_config
    from lotdata.models.runs import train_run

    with errors():
        check_outputs({"--out": out}, {"--data": data, "--checkpoint": checkpoint})
        cfg = load_config(config).with_train(
            epochs=epochs,
            batch_size=batch_size,
            gpu_batch_size=gpu_batch_size,
            grad_accum=grad_accum,
            max_length=max_length,
            learning_rate=lr,
            patience=patience,
            seed=seed,
            mixed_precision=mixed_precision,
        )
        if checkpoint:
            cfg = replace(cfg, checkpoint=checkpoint)
        results = train_run(
            cfg, data, out, task=task, variant=variant, device=device, train_size=train_size, resume=resume
        )
    shown = {k: v for k, v in results.items() if k != "history"}
    out_console.print(summary_table(f"lotdata baseline train {cfg.name} -> {out}", shown))


@baseline_app.command("predict")
def predict_cmd(
    run: Path = typer.Option(..., "--run", help="Run folder (or its best/ folder)."),
    data: Path = typer.Option(..., "--data", help="Dataset folder."),
    out: Path = typer.Option(..., "--out", help="Predictions, LOT jsonl."),
    split: str = typer.Option("test", "--split"),
    device: Optional[str] = typer.Option(None, "--device"),
    score: bool = typer.Option(
        True, "--score/--no-score", help="Score against the split and store it in RUN/results.json."
    ),
    seed: Optional[int] = typer.Option(None, "--seed", help="Sampling seed (default: the run's)."),
    batch_size: Optional[int] = typer.Option(
        None, "--batch-size", min=1, help="Examples per batch (default: the config's; on a GPU its gpu_batch_size)."
    ),
    definition: str = typer.Option("lot", "--definition", help="Scores shown: lot, nlpcc2021 or paper."),
) -> None:
    """Predict a split in the official LOT format (generation: top-k 40, temperature 0.7)."""
    from lotdata import metrics
    from lotdata.models.runs import predict_run

    with errors():
        # predictions may go inside the run folder (README), never over what it holds
        held = (
            [run / name for name in ("best", "last", "history.jsonl", "results.json")]
            if (run / "best").is_dir()
            else run
        )
        check_outputs({"--out": out}, {"--run": held, "--data": data})
        if metrics.DEFINITION_ALIASES.get(definition, definition) not in metrics.DEFINITIONS:
            raise ValueError(f"--definition {definition!r}: choose from {', '.join(metrics.DEFINITIONS)}")
        summary = predict_run(
            run,
            data,
            out,
            split=split,
            device=device,
            score=score,
            seed=seed,
            batch_size=batch_size,
            definition=definition,
        )
    out_console.print(summary_table(f"lotdata baseline predict -> {out}", summary))


@baseline_app.command("table")
def table_cmd(
    runs: List[Path] = typer.Argument(..., help="Run folders."),
    split: str = typer.Option("test", "--split"),
    out: Optional[Path] = typer.Option(None, "--out", help="Also write the Markdown table here."),
    definition: str = typer.Option(
        "lot",
        "--definition",
        help="lot (LOT Tables 10/11 with Overall, Eq. 1-2) or nlpcc2021 (the NLPCC 2021 OutGen script's metrics and score).",
    ),
    human: Optional[Path] = typer.Option(
        None,
        "--human",
        help="Human-performance JSON (annotate pull human_perf) for H_i (default: the paper's Humans/Truth row).",
    ),
    understanding_baseline: Optional[str] = typer.Option(
        None,
        "--understanding-baseline",
        help="Model name of a run to use as B_i for Table 10 (default: the paper's BERT row).",
    ),
    generation_baseline: Optional[str] = typer.Option(
        None,
        "--generation-baseline",
        help="Model name of a run to use as B_i for Table 11 (default: the paper's GPT2 row).",
    ),
    paper: bool = typer.Option(False, "--paper", help="Add the paper's own rows of the split."),
    allow_partial_human: bool = typer.Option(
        False,
        "--allow-partial-human",
        help="Use a --human file marked partial (fewer items or raters than its job asked for).",
    ),
) -> None:
    """Results as LOT Tables 10/11 (percent) with LOT's Overall (Eq. 1-2)."""
    from lotdata import metrics
    from lotdata.io import write_text
    from lotdata.models.runs import results_table

    with errors():
        check_outputs({"--out": out}, {"RUNS": runs, "--human": human})
        name = metrics.DEFINITION_ALIASES.get(definition, definition)
        if name not in ("lot", "nlpcc2021"):
            raise ValueError(f"--definition {definition!r}: choose from lot, nlpcc2021")
        human_scores, human_source = None, None
        if human is not None:
            human_scores = metrics.load_human_performance(human, allow_partial=allow_partial_human, split=split)
            pooled = [task for task, splits in metrics.human_performance_splits(human).items() if not splits]
            human_source = f"{human.name}, split {split}" + (
                f" ({', '.join(pooled)}: pooled, the file has no per-split figures)" if pooled else ""
            )
        baselines = {
            k: v for k, v in (("understanding", understanding_baseline), ("generation", generation_baseline)) if v
        }
        text = results_table(
            runs, split, name, human=human_scores, baselines=baselines, paper_rows=paper, human_source=human_source
        )
    sys.stdout.write(text)
    if out is not None:
        write_text(text, out)


@baseline_app.command("curve")
def curve_cmd(
    config: str = typer.Option(..., "--config"),
    data: Path = typer.Option(..., "--data"),
    out: Path = typer.Option(..., "--out", help="Folder: one run per size, curve.json, curve.png."),
    sizes: str = typer.Option("0.1,0.25,0.5,1.0", "--sizes", help="Fractions of the training set (or counts > 1)."),
    epochs: Optional[int] = typer.Option(None, "--epochs"),
    device: Optional[str] = typer.Option(None, "--device"),
) -> None:
    """Accuracy against training-set size (LOT Figure 2) as a PNG."""
    from lotdata.models.config import load_config
    from lotdata.models.runs import learning_curve

    with errors():
        check_outputs({"--out": out}, {"--data": data})
        cfg = load_config(config).with_train(epochs=epochs)
        curve = learning_curve(cfg, data, out, sizes=[float(s) for s in sizes.split(",")], device=device)
    out_console.print(summary_table(f"lotdata baseline curve -> {out / 'curve.png'}", {"points": curve["points"]}))


@baseline_app.command("cartography")
def cartography_cmd(
    config: str = typer.Option(..., "--config", help="baselines/NAME.toml or a shipped name."),
    data: Path = typer.Option(..., "--data", help="Dataset folder of an understanding task (clozet, senpos)."),
    out: Path = typer.Option(
        ..., "--out", help="Folder: cartography.parquet, cartography.png, cartography.json, run/."
    ),
    checkpoint: Optional[str] = typer.Option(
        None, "--checkpoint", help="Local checkpoint folder (overrides the config's)."
    ),
    epochs: Optional[int] = typer.Option(
        None, "--epochs", min=2, help="Epochs of training dynamics (default: the config's)."
    ),
    train_size: Optional[int] = typer.Option(
        None, "--train-size", min=1, help="Map this many training examples (seeded)."
    ),
    device: Optional[str] = typer.Option(None, "--device"),
) -> None:
    """Dataset cartography (Swayamdipta et al. 2020): confidence, variability and correctness of each
    training item over epochs; the map as a PNG and easy / ambiguous / hard items as a table."""
    from lotdata.models.cartography import cartography_run
    from lotdata.models.config import load_config

    with errors():
        check_outputs({"--out": out}, {"--data": data, "--checkpoint": checkpoint})
        cfg = load_config(config).with_train(epochs=epochs)
        summary = cartography_run(cfg, data, out, checkpoint=checkpoint, device=device, train_size=train_size)
    out_console.print(summary_table(f"lotdata baseline cartography -> {out}", summary))
