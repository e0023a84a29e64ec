"""What `lotdata baseline` does: train a run on a dataset folder, predict in LOT format, tabulate, plot."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Sequence

from lotdata.datasets.registry import get_task
from lotdata.errors import InputError, must_exist, require
from lotdata.io import write_jsonl, write_text
from lotdata.models.baseline import GENERATION, UNDERSTANDING, load, make_baseline, subsample
from lotdata.models.config import BaselineConfig

RESULTS_FILE = "results.json"


def _dataset(data: str | Path, task: str | None = None) -> tuple[str, dict]:
    from lotdata.datasets.folder import dataset_task, read_dataset

    found = dataset_task(data)
    if task and found != task:
        raise InputError(f"dataset holds {found}, not {task}", path=str(data))
    return found, {split: table.to_pylist() for split, table in read_dataset(data).items()}


def _read_results(run: Path) -> dict[str, Any]:
    path = run / RESULTS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _write_results(run: Path, results: dict[str, Any]) -> None:
    write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", run / RESULTS_FILE)


def train_run(config: BaselineConfig, data: str | Path, out: str | Path, *, task: str | None = None, variant: str = "full",
              device: str | None = None, train_size: int | None = None, resume: bool = True) -> dict[str, Any]:
    """Fit a baseline on DATA/train.parquet (early stopping on val); understanding runs also score val and test."""
    task, splits = _dataset(data, task)
    if not splits.get("train"):
        raise InputError("no training examples (train.parquet is empty or missing)", path=str(data))
    out = Path(out)
    kwargs = {"variant": variant} if task in UNDERSTANDING else {}
    baseline = make_baseline(config, task, device=device, **kwargs)
    rows = subsample(splits["train"], train_size, config.train.seed)
    started = time.perf_counter()
    baseline.fit(rows, splits.get("val") or None, out=out, resume=resume)
    fit = baseline.fit_result
    results = {
        "model": config.name, "task": task, "variant": variant if task in UNDERSTANDING else None, "data": str(data),
        "device": baseline.device, "parameters": baseline.n_parameters(), "train_examples": len(rows),
        "epochs_run": fit.epochs_run, "best_epoch": fit.best_epoch, "train_examples_per_s": round(fit.train_examples_per_s, 2),
        "seconds": round(time.perf_counter() - started, 1), "resumed_from_epoch": fit.resumed_from,
        "history": fit.history, "scores": {},
    }
    if task in UNDERSTANDING:
        for split in ("val", "test"):
            if splits.get(split):
                preds = baseline.predict(splits[split])
                gold = [row["label"] for row in splits[split]]
                results["scores"][split] = {"accuracy": sum(p == g for p, g in zip(preds, gold)) / len(gold)}
    _write_results(out, results)
    return results


def predict_run(run: str | Path, data: str | Path, out: str | Path, *, split: str = "test", device: str | None = None,
                score: bool = True, definition: str = "official", seed: int | None = None) -> dict[str, Any]:
    """Predict one split in the official LOT format (`out`, jsonl); score it against the split's labels."""
    from lotdata import metrics
    from lotdata.datasets.lotformat import to_lot

    run = Path(run)
    baseline = load(run, device=device)
    task, splits = _dataset(data, baseline.task)
    rows = splits.get(split)
    if not rows:
        raise InputError(f"no {split} examples", path=str(data))
    gold = [to_lot(task, row) for row in rows]
    preds = baseline.predict(rows) if task in UNDERSTANDING else baseline.generate(rows, seed=seed)
    spec = get_task(task)
    records = [{**record, spec.prediction_field: spec.prediction_type(pred)} for record, pred in zip(gold, preds)]
    write_jsonl(records, out)
    summary: dict[str, Any] = {"task": task, "split": split, "rows": len(records), "out": str(out)}
    if score:
        scores = metrics.evaluate(task, records, gold, definition)
        summary["scores"] = scores
        if (run / RESULTS_FILE).exists() or (run / "best").exists():
            results = _read_results(run)
            results.setdefault("scores", {})[split] = scores
            results.setdefault("model", baseline.config.name)
            results.setdefault("task", task)
            results.setdefault("parameters", baseline.n_parameters())
            _write_results(run, results)
    return summary


# --------------------------------------------------------------------------- Tables 10 / 11

_T11 = {"plotcom": ("bleu-1", "bleu-2", "distinct-1", "distinct-2"),
        "outgen": ("bleu-1", "bleu-2", "distinct-3", "distinct-4", "coverage", "order", "overall")}
_ABBR = {"bleu-1": "B-1", "bleu-2": "B-2", "distinct-1": "D-1", "distinct-2": "D-2", "distinct-3": "D-3",
         "distinct-4": "D-4", "coverage": "Cover", "order": "Order", "overall": "Overall", "accuracy": "Acc"}


def results_table(runs: Sequence[str | Path], split: str = "test") -> str:
    """A Markdown table in the style of LOT Table 10 (understanding accuracy) / Table 11 (generation),
    one row per model, figures in percent as the paper prints them."""
    by_model: dict[str, dict[str, Any]] = {}
    for run in runs:
        results = _read_results(must_exist(run, "run folder"))
        if not results:
            raise InputError(f"no {RESULTS_FILE} in the run folder", path=str(run))
        entry = by_model.setdefault(results["model"], {"#P": results.get("parameters")})
        entry[results["task"]] = results.get("scores", {}).get(split, {})
    tasks = [t for t in ("clozet", "senpos", "plotcom", "outgen") if any(t in e for e in by_model.values())]
    header, keys = ["Models", "#P"], []
    for task in tasks:
        for metric in (("accuracy",) if task in UNDERSTANDING else _T11[task]):
            header.append(f"{task} {_ABBR[metric]}")
            keys.append((task, metric))
    lines = [f"Split: {split}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for model, entry in by_model.items():
        cells = [model, _millions(entry.get("#P"))]
        for task, metric in keys:
            value = entry.get(task, {}).get(metric)
            cells.append("–" if value is None else f"{100 * value:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _millions(n: int | None) -> str:
    return "–" if not n else f"{n / 1e6:.0f}M" if n >= 1e6 else f"{n / 1e3:.0f}K"


# --------------------------------------------------------------------------- Figure 2

def learning_curve(config: BaselineConfig, data: str | Path, out: str | Path, *, task: str | None = None,
                   sizes: Sequence[float] = (0.1, 0.25, 0.5, 1.0), device: str | None = None, split: str = "test") -> dict[str, Any]:
    """Accuracy against training-set size (LOT Figure 2): one run per size under OUT/size_N, a PNG and a JSON."""
    task, splits = _dataset(data, task)
    if task not in UNDERSTANDING:
        raise InputError(f"the learning curve is for understanding tasks {UNDERSTANDING}, not {task}")
    n_train = len(splits.get("train", []))
    out = Path(out)
    points = []
    for size in sizes:
        n = max(1, round(size * n_train)) if size <= 1 else int(size)
        results = train_run(config, data, out / f"size_{n}", task=task, device=device, train_size=n)
        scores = results["scores"]
        points.append({"train_examples": n, **{s: scores[s]["accuracy"] for s in scores}})
    curve = {"model": config.name, "task": task, "split": split, "points": points}
    write_text(json.dumps(curve, indent=2) + "\n", out / "curve.json")
    plot_curve(curve, out / "curve.png")
    return curve


def plot_curve(curve: dict[str, Any], path: str | Path) -> Path:
    matplotlib = require("matplotlib", "models")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    for split in ("val", "test"):
        pts = [(p["train_examples"], 100 * p[split]) for p in curve["points"] if split in p]
        if pts:
            ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o", label=split)
    ax.set_xlabel("training examples")
    ax.set_ylabel("accuracy (%)")
    ax.set_title(f"{curve['model']} on {curve['task']}")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
