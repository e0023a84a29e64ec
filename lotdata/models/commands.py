"""`lotdata evaluate` and `lotdata baseline train|predict|table|curve|cartography` as records (`lotdata.command`):
the CLI, the library call and the conformance checks are derived from them, and the one runner gives each its
checks, locks and atomic publication. torch is imported only when a command runs (this module imports without
the `models` extra)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.command import Command, Output, Run, register_command
from lotdata.datasets.registry import task_names
from lotdata.models.config import SETTING_CHECKS
from lotdata.stage import param

#: what a run folder of `baseline train` holds (and `baseline predict` reads)
RUN_ENTRIES = ("best", "last", "history.jsonl", "results.json", "tokenizer")
RESULTS_FILE = "results.json"  # = lotdata.models.runs.RESULTS_FILE (not imported: that module needs the extra)


def _definition(value: str, allowed: tuple[str, ...] | None = None) -> str:
    """--definition: a name of `lotdata.metrics.DEFINITIONS` (or an alias); ValueError naming the choices."""
    from lotdata import metrics

    name = metrics.DEFINITION_ALIASES.get(value, value)
    allowed = allowed or metrics.DEFINITIONS
    if name not in allowed:
        raise ValueError(f"--definition {value!r}: choose from {', '.join(allowed)}")
    return name


def _config_input(config: str) -> str | None:
    """The config file a --config names (a shipped name like `bert` is no file of the user's)."""
    return config if Path(config).is_file() else None


def _has_any(*names: str):
    """An `owned` predicate: a folder holding one of `names` is one this command wrote earlier."""
    return lambda folder: any((folder / name).exists() for name in names)


# ---------------------------------------------------------------------------------------------
# evaluate


@dataclass(frozen=True, kw_only=True)
class EvaluateParams:
    task: str = param(help="The task scored (a registered task: an unknown name lists them).", choices=task_names)
    pred: str = param(help="Predictions: LOT jsonl (same shape as the test file) or our Parquet.", path="input")
    gold: str = param(help="Gold: LOT jsonl or our Parquet split.", path="input")
    json_out: str | None = param(None, help="Also write the scores as JSON here ('-' for stdout only).", flag="--json")
    definition: str = param(
        "lot", help="lot (LOT Tables 10/11), nlpcc2021 (the NLPCC 2021 OutGen script; alias official) or paper."
    )
    human: str | None = param(
        None, help="nlpcc2021_overall: human scores of B-1,B-2,D-3,D-4,Cover,Order (default: the script's)."
    )
    baseline: str | None = param(
        None, help="nlpcc2021_overall: the reference model's scores, same order (default: LongLM-small val)."
    )
    contamination: str | None = param(
        None,
        help="A contamination report (`overlap TEST --index IDX --out REPORT`: the folder or its examples.parquet): "
        "each metric on the clean, suspicious and dirty items, and dirty - clean with its bootstrap interval.",
        path="input",
    )
    resamples: int = param(1000, help="--contamination: bootstrap resamples of the interval (95%).", check=">0")

    @property
    def to_stdout(self) -> bool:
        return self.json_out is not None and str(self.json_out) == "-"


def scores_option(option: str, value: str) -> list[float]:
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


def _weights(p: EvaluateParams) -> dict[str, list[float]]:
    return {
        name: scores_option(f"--{name}", value)
        for name, value in (("human", p.human), ("baseline", p.baseline))
        if value
    }


def _evaluate_check(p: EvaluateParams) -> None:
    from lotdata.datasets.registry import get_task

    get_task(p.task)  # an unknown task: ValueError naming the known ones
    _definition(p.definition)
    _weights(p)


def _evaluate(run: Run) -> dict[str, Any]:
    from lotdata import metrics
    from lotdata.io import write_text

    p: EvaluateParams = run.params
    pred_records = metrics.load_records(Path(p.pred), p.task)
    gold_records = metrics.load_records(Path(p.gold), p.task, gold=True)
    pred_records = metrics.align_records(p.task, pred_records, gold_records, str(p.pred), str(p.gold))
    scores = metrics.evaluate(p.task, pred_records, gold_records, p.definition, **_weights(p))
    undefined = metrics.undefined_metrics(scores)
    written: dict[str, Any] = {k: None if k in undefined else v for k, v in scores.items()}
    contamination = None
    if p.contamination is not None:
        contamination = _contamination(p, pred_records, gold_records)
        written["contamination"] = _json_safe(contamination)
    # NaN is not JSON: an undefined metric is written as null
    text = json.dumps(written, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    if "--json" in run.staged:
        write_text(text, run.out("--json"))
    return {"scores": scores, "undefined": undefined, "json": text, "contamination": contamination}


def _contamination(p: EvaluateParams, pred: list, gold: list) -> dict[str, Any]:
    """evaluate --contamination: the scores per bucket of the report and dirty - clean with its interval."""
    from lotdata import metrics
    from lotdata.overlap.contamination import buckets_of_gold, contamination_scores, read_report

    rows, summary, path = read_report(p.contamination)
    buckets = buckets_of_gold(rows, gold, p.gold, path)
    weights = _weights(p)

    def score(items: list[int]) -> dict[str, float]:
        return metrics.evaluate(p.task, [pred[i] for i in items], [gold[i] for i in items], p.definition, **weights)

    result = contamination_scores(score, buckets, resamples=p.resamples)
    return {"report": str(path), "thresholds": summary.get("thresholds"), **result}


def _json_safe(value: Any) -> Any:
    """NaN (an undefined score or interval) as null, recursively."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def _clozet_lot_lines(n: int, start: int = 0) -> str:
    rows = [
        {
            "story": f"第{i}个故事。他走进了房间。<mask>然后他睡了。",
            "plot0": f"他打开了第{i}盏灯，很好。",
            "plot1": f"他关上了第{i}扇门，不好。",
            "label": str(i % 2),
        }
        for i in range(start, start + n)
    ]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def _evaluate_sample(folder: Path) -> list[str]:
    gold = folder / "gold.jsonl"
    gold.write_text(_clozet_lot_lines(6), encoding="utf-8")
    return ["clozet", "--pred", str(gold), "--gold", str(gold), "--json", str(folder / "scores.json")]


EVALUATE = register_command(
    Command(
        name="evaluate",
        params=EvaluateParams,
        execute=_evaluate,
        inputs=lambda p: {
            "--pred": p.pred,
            "--gold": p.gold,
            **({"--contamination": p.contamination} if p.contamination else {}),
        },
        outputs=lambda p: [] if p.json_out is None or p.to_stdout else [Output("--json", Path(p.json_out))],
        summary="Score predictions: accuracy, BLEU-n, Distinct-n, Coverage, Order (LOT Section 5.3; LOT's Overall: `baseline table`).",
        arguments=("task",),
        check=_evaluate_check,
        sample=_evaluate_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# baseline train


@dataclass(frozen=True, kw_only=True)
class TrainParams:
    config: str = param(help="baselines/NAME.toml, or a shipped name (bert, vanilla_transformer, ...).")
    task: str | None = param(None, help="Task (default: the dataset's).")
    data: str = param(help="Dataset folder (train/val/test Parquet).", path="input")
    out: str = param(help="Run folder (best/, last/, history.jsonl, results.json).")
    checkpoint: str | None = param(None, help="Local checkpoint folder (overrides the config's).")
    variant: str = param("full", help="Understanding input: full, wo_context, wo_long (LOT 5.5).")
    # the config's settings, each with the range a config file is held to (`SETTING_CHECKS`)
    epochs: int | None = param(None, check=SETTING_CHECKS["epochs"])
    batch_size: int | None = param(None, help="Default 12 (the paper's).", check=SETTING_CHECKS["batch_size"])
    gpu_batch_size: int | None = param(
        None, help="Batch size when a GPU is used.", check=SETTING_CHECKS["gpu_batch_size"]
    )
    grad_accum: int | None = param(None, help="Gradient accumulation steps.", check=SETTING_CHECKS["grad_accum"])
    max_length: int | None = param(None, help="Default 512.", check=SETTING_CHECKS["max_length"])
    lr: float | None = param(None, help="Default 3e-5.", check=SETTING_CHECKS["learning_rate"])
    patience: int | None = param(
        None, help="Epochs without a better val score before stopping.", check=SETTING_CHECKS["patience"]
    )
    seed: int | None = param(None)
    train_size: int | None = param(None, help="Use this many training examples (seeded).", check=">0")
    device: str | None = param(None, help="cpu, cuda, cuda:1 (default: cuda when present).")
    mixed_precision: bool = param(True, help="Mixed precision on CUDA.", flag="--amp/--no-amp")
    resume: bool = param(True, help="Continue from OUT/last/state.pt when it exists.", flag="--resume/--restart")


def _train(run: Run) -> dict[str, Any]:
    from dataclasses import replace

    from lotdata.models.config import load_config
    from lotdata.models.runs import train_run

    p: TrainParams = run.params
    cfg = load_config(p.config).with_train(
        epochs=p.epochs,
        batch_size=p.batch_size,
        gpu_batch_size=p.gpu_batch_size,
        grad_accum=p.grad_accum,
        max_length=p.max_length,
        learning_rate=p.lr,
        patience=p.patience,
        seed=p.seed,
        mixed_precision=p.mixed_precision,
    )
    if p.checkpoint:
        cfg = replace(cfg, checkpoint=p.checkpoint)
    return train_run(
        cfg,
        p.data,
        run.out("--out"),
        task=p.task,
        variant=p.variant,
        device=p.device,
        train_size=p.train_size,
        resume=p.resume,
    )


_TINY_CONFIG = """name = "tiny-bert"
architecture = "bert"
vocab_size = 500

[model]
num_hidden_layers = 1
hidden_size = 32
num_attention_heads = 2
intermediate_size = 64
max_position_embeddings = 256

[train]
batch_size = 8
max_length = 96
learning_rate = 0.002
epochs = 2
seed = 0
patience = 5
"""


def _sample_dataset(folder: Path) -> tuple[Path, Path]:
    """A tiny clozet dataset folder and a tiny from-scratch BERT config (no download)."""
    from lotdata.datasets.folder import import_lot

    lot = folder / "lot"
    lot.mkdir(exist_ok=True)
    (lot / "train.jsonl").write_text(_clozet_lot_lines(8), encoding="utf-8")
    (lot / "test.jsonl").write_text(_clozet_lot_lines(4, start=8), encoding="utf-8")
    data = folder / "data"
    if not data.exists():
        import_lot([lot], "clozet", data)
    config = folder / "tiny.toml"
    config.write_text(_TINY_CONFIG, encoding="utf-8")
    return data, config


def _train_sample(folder: Path) -> list[str]:
    data, config = _sample_dataset(folder)
    return ["--config", str(config), "--data", str(data), "--out", str(folder / "run"), "--device", "cpu"]


BASELINE_TRAIN = register_command(
    Command(
        name="baseline train",
        params=TrainParams,
        execute=_train,
        inputs=lambda p: {"--data": p.data, "--checkpoint": p.checkpoint, "--config": _config_input(p.config)},
        # a run folder resumes (--resume): its staging copy starts from the published run
        outputs=lambda p: [Output("--out", Path(p.out), kind="folder", owned=_has_any(*RUN_ENTRIES), update=p.resume)],
        summary="Fine-tune a baseline on a dataset folder (early stopping on val; resumable).",
        sample=_train_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# baseline predict


@dataclass(frozen=True, kw_only=True)
class PredictParams:
    run: str = param(help="Run folder (or its best/ folder).", path="input")
    data: str = param(help="Dataset folder.", path="input")
    out: str = param(help="Predictions, LOT jsonl.")
    split: str = param("test")
    device: str | None = param(None)
    score: bool = param(
        True, help="Score against the split and store it in RUN/results.json.", flag="--score/--no-score"
    )
    seed: int | None = param(None, help="Sampling seed (default: the run's).")
    batch_size: int | None = param(
        None,
        help="Examples per batch (default: the config's; on a GPU its gpu_batch_size).",
        check=SETTING_CHECKS["batch_size"],
    )
    definition: str = param("lot", help="Scores shown: lot, nlpcc2021 or paper.")


def _keeps_results(p: PredictParams) -> bool:
    """Whether the scores go into RUN/results.json (as `predict_run` decides: a run folder of `baseline train`)."""
    run = Path(p.run)
    return p.score and ((run / RESULTS_FILE).exists() or (run / "best").exists())


def _predict_inputs(p: PredictParams) -> dict[str, Any]:
    # predictions may go inside the run folder (README), never over what it holds; RUN/results.json is an output
    run = Path(p.run)
    if (run / "best").is_dir():
        held: Any = [run / name for name in ("best", "last", "history.jsonl")]
    elif _keeps_results(p) and run.is_dir():
        held = [entry for entry in sorted(run.iterdir()) if entry.name != RESULTS_FILE]
    else:
        held = run
    return {"--run": held, "--data": p.data}


def _predict_outputs(p: PredictParams) -> list[Output]:
    outputs = [Output("--out", Path(p.out), format="jsonl")]
    if _keeps_results(p):
        outputs.append(Output("RUN/results.json", Path(p.run) / RESULTS_FILE, side=True, optional=True, update=True))
    return outputs


def _from_published(published: Path, staged: Path) -> None:
    """Start an `update` output from its published version, never from what a failed or killed run left in the
    staging folder (the runner resumes from that copy, which a failure may have left half-written: RUN/results.json
    is read whole and rewritten, there is nothing to resume)."""
    import shutil

    staged.unlink(missing_ok=True)
    if published.exists():
        shutil.copy2(published, staged)


def _predict(run: Run) -> dict[str, Any]:
    from lotdata.models.runs import predict_run

    p: PredictParams = run.params
    kept = "RUN/results.json" in run.staged
    if kept:
        _from_published(run.final("RUN/results.json"), run.out("RUN/results.json"))
    summary = predict_run(
        p.run,
        p.data,
        run.out("--out"),
        split=p.split,
        device=p.device,
        score=p.score,
        seed=p.seed,
        batch_size=p.batch_size,
        definition=p.definition,
        results_file=run.out("RUN/results.json") if kept else None,
    )
    summary["out"] = str(run.final("--out"))
    return summary


def _predict_sample(folder: Path) -> list[str]:
    from lotdata.models.config import load_config
    from lotdata.models.runs import train_run

    data, config = _sample_dataset(folder)
    if not (folder / "run" / "best").exists():
        train_run(load_config(config), data, folder / "run", device="cpu")
        (folder / "run" / RESULTS_FILE).unlink()  # a run folder whose results.json predict writes first
    return ["--run", str(folder / "run"), "--data", str(data), "--out", str(folder / "pred.jsonl"), "--device", "cpu"]


BASELINE_PREDICT = register_command(
    Command(
        name="baseline predict",
        params=PredictParams,
        execute=_predict,
        inputs=_predict_inputs,
        outputs=_predict_outputs,
        summary="Predict a split in the official LOT format (generation: top-k 40, temperature 0.7).",
        check=lambda p: _definition(p.definition) and None,
        sample=_predict_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# baseline table


@dataclass(frozen=True, kw_only=True)
class TableParams:
    runs: list[str] = param(help="Run folders.", path="input")
    split: str = param("test")
    out: str | None = param(None, help="Also write the Markdown table here.")
    definition: str = param(
        "lot",
        help="lot (LOT Tables 10/11 with Overall, Eq. 1-2) or nlpcc2021 (the NLPCC 2021 OutGen script's metrics and score).",
    )
    human: str | None = param(
        None,
        help="Human-performance JSON (annotate pull human_perf) for H_i (default: the paper's Humans/Truth row).",
    )
    understanding_baseline: str | None = param(
        None, help="Model name of a run to use as B_i for Table 10 (default: the paper's BERT row)."
    )
    generation_baseline: str | None = param(
        None, help="Model name of a run to use as B_i for Table 11 (default: the paper's GPT2 row)."
    )
    paper: bool = param(False, help="Add the paper's own rows of the split.")
    allow_partial_human: bool = param(
        False, help="Use a --human file marked partial (fewer items or raters than its job asked for)."
    )


def _table(run: Run) -> dict[str, Any]:
    from lotdata import metrics
    from lotdata.io import write_text
    from lotdata.models.runs import results_table

    p: TableParams = run.params
    name = _definition(p.definition, ("lot", "nlpcc2021"))
    human_scores, human_source = None, None
    if p.human is not None:
        human = Path(p.human)
        human_scores = metrics.load_human_performance(human, allow_partial=p.allow_partial_human, split=p.split)
        pooled = [task for task, splits in metrics.human_performance_splits(human).items() if not splits]
        human_source = f"{human.name}, split {p.split}" + (
            f" ({', '.join(pooled)}: pooled, the file has no per-split figures)" if pooled else ""
        )
    baselines = {
        k: v for k, v in (("understanding", p.understanding_baseline), ("generation", p.generation_baseline)) if v
    }
    text = results_table(
        p.runs, p.split, name, human=human_scores, baselines=baselines, paper_rows=p.paper, human_source=human_source
    )
    if p.out is not None:
        write_text(text, run.out("--out"))
    return {"table": text}


def _table_sample(folder: Path) -> list[str]:
    run = folder / "run"
    run.mkdir(exist_ok=True)
    results = {"model": "tiny", "task": "clozet", "parameters": 1000, "scores": {"test": {"accuracy": 0.5}}}
    (run / RESULTS_FILE).write_text(json.dumps(results), encoding="utf-8")
    return [str(run), "--out", str(folder / "table.md")]


BASELINE_TABLE = register_command(
    Command(
        name="baseline table",
        params=TableParams,
        execute=_table,
        inputs=lambda p: {"RUNS": p.runs, "--human": p.human},
        outputs=lambda p: [] if p.out is None else [Output("--out", Path(p.out))],
        summary="Results as LOT Tables 10/11 (percent) with LOT's Overall (Eq. 1-2).",
        arguments=("runs",),
        check=lambda p: _definition(p.definition, ("lot", "nlpcc2021")) and None,
        sample=_table_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# baseline curve


@dataclass(frozen=True, kw_only=True)
class CurveParams:
    config: str = param()
    data: str = param(path="input")
    out: str = param(help="Folder: one run per size, curve.json, curve.png.")
    sizes: str = param("0.1,0.25,0.5,1.0", help="Fractions of the training set (or counts > 1).")
    epochs: int | None = param(None, check=SETTING_CHECKS["epochs"])
    device: str | None = param(None)


def curve_sizes(text: str) -> list[float]:
    """--sizes: comma-separated fractions (or counts > 1); ValueError naming the bad one."""
    sizes = []
    for part in text.split(","):
        try:
            size = float(part)
        except ValueError:
            raise ValueError(
                f"--sizes {text!r}: {part.strip()!r} is not a number; give fractions or counts, e.g. 0.1,0.5,1.0"
            ) from None
        if not math.isfinite(size) or size <= 0:
            raise ValueError(f"--sizes {text!r}: {part.strip()} is not a positive size")
        if size > 1 and not size.is_integer():
            raise ValueError(
                f"--sizes {text!r}: {part.strip()} is neither a fraction (at most 1) nor a count of examples (a whole number)"
            )
        sizes.append(size)
    return sizes


def _curve(run: Run) -> dict[str, Any]:
    from lotdata.models.config import load_config
    from lotdata.models.runs import learning_curve

    p: CurveParams = run.params
    cfg = load_config(p.config).with_train(epochs=p.epochs)
    return learning_curve(cfg, p.data, run.out("--out"), sizes=curve_sizes(p.sizes), device=p.device)


def _curve_sample(folder: Path) -> list[str]:
    data, config = _sample_dataset(folder)
    return [
        "--config",
        str(config),
        "--data",
        str(data),
        "--out",
        str(folder / "curve"),
        "--sizes",
        "0.5,1.0",
        "--epochs",
        "1",
        "--device",
        "cpu",
    ]


BASELINE_CURVE = register_command(
    Command(
        name="baseline curve",
        params=CurveParams,
        execute=_curve,
        inputs=lambda p: {"--data": p.data, "--config": _config_input(p.config)},
        # every point is a run that resumes (as `baseline train`): the staging copy starts from the published curve
        outputs=lambda p: [
            Output(
                "--out",
                Path(p.out),
                kind="folder",
                owned=lambda f: (f / "curve.json").exists() or any(f.glob("size_*")),
                update=True,
            )
        ],
        summary="Accuracy against training-set size (LOT Figure 2) as a PNG.",
        check=lambda p: curve_sizes(p.sizes) and None,
        sample=_curve_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# baseline cartography


@dataclass(frozen=True, kw_only=True)
class CartographyParams:
    config: str = param(help="baselines/NAME.toml or a shipped name.")
    data: str = param(help="Dataset folder of a task of the understanding family (accuracy).", path="input")
    out: str = param(help="Folder: cartography.parquet, cartography.png, cartography.json, run/.")
    checkpoint: str | None = param(None, help="Local checkpoint folder (overrides the config's).")
    epochs: int | None = param(None, help="Epochs of training dynamics (default: the config's).")
    train_size: int | None = param(None, help="Map this many training examples (seeded).", check=">0")
    device: str | None = param(None)


def _cartography_check(p: CartographyParams) -> None:
    if p.epochs is not None and p.epochs < 2:
        raise ValueError(f"--epochs must be at least 2 (epochs of training dynamics), not {p.epochs}")


def _cartography(run: Run) -> dict[str, Any]:
    from lotdata.models.cartography import cartography_run
    from lotdata.models.config import load_config

    p: CartographyParams = run.params
    cfg = load_config(p.config).with_train(epochs=p.epochs)
    return cartography_run(
        cfg,
        p.data,
        run.out("--out"),
        checkpoint=p.checkpoint,
        device=p.device,
        train_size=p.train_size,
        published=run.final("--out"),
    )


def _cartography_sample(folder: Path) -> list[str]:
    data, config = _sample_dataset(folder)
    return ["--config", str(config), "--data", str(data), "--out", str(folder / "map"), "--device", "cpu"]


BASELINE_CARTOGRAPHY = register_command(
    Command(
        name="baseline cartography",
        params=CartographyParams,
        execute=_cartography,
        inputs=lambda p: {"--data": p.data, "--checkpoint": p.checkpoint, "--config": _config_input(p.config)},
        outputs=lambda p: [
            Output(
                "--out",
                Path(p.out),
                kind="folder",
                owned=_has_any("cartography.json", "cartography.parquet", "cartography.png", "run"),
            )
        ],
        summary="Dataset cartography (Swayamdipta et al. 2020): confidence, variability and correctness of each "
        "training item over epochs; the map as a PNG and easy / ambiguous / hard items as a table.",
        check=_cartography_check,
        sample=_cartography_sample,
    )
)
