"""What `lotdata baseline` does: train a run on a dataset folder, predict in LOT format, tabulate, plot."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Sequence

from lotdata.datasets.registry import get_task
from lotdata.errors import InputError, must_exist, require
from lotdata.io import write_jsonl, write_text
from lotdata.models.baseline import generation_tasks, load, make_baseline, subsample, understanding_tasks
from lotdata.models.config import BaselineConfig

RESULTS_FILE = "results.json"


def _dataset(data: str | Path, task: str | None = None) -> tuple[str, dict]:
    from lotdata.datasets.folder import dataset_task, read_dataset

    found = dataset_task(data)
    if task and found != task:
        raise InputError(f"dataset holds {found}, not {task}", path=str(data))
    return found, {split: table.to_pylist() for split, table in read_dataset(data).items()}


def _round(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 2)


def _read_results(run: Path) -> dict[str, Any]:
    return _load_results(run / RESULTS_FILE)


def _load_results(path: Path, shown: Path | None = None) -> dict[str, Any]:
    """A run's results.json ({} when absent); not JSON or not an object: InputError naming it (`shown`: the
    path the user knows when `path` is a staged copy of it)."""
    if not path.exists():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{RESULTS_FILE} is not valid JSON ({exc})", path=str(shown or path)) from None
    if not isinstance(value, dict):
        raise InputError(f"{RESULTS_FILE} is not a JSON object", path=str(shown or path))
    return value


def _write_results(run: Path, results: dict[str, Any]) -> None:
    write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", run / RESULTS_FILE)


def train_run(
    config: BaselineConfig,
    data: str | Path,
    out: str | Path,
    *,
    task: str | None = None,
    variant: str = "full",
    device: str | None = None,
    train_size: int | None = None,
    resume: bool = True,
    prepared: Any = None,
    loaded: tuple[str, dict] | None = None,
) -> dict[str, Any]:
    """Fit a baseline on DATA/train.parquet (early stopping on val); understanding runs also score val and test.

    `prepared`: a baseline already built (`prepare()`d) to reset and train again, with `loaded`, the
    dataset already read: a learning curve builds its model and tokenises its data once."""
    task, splits = loaded or _dataset(data, task)
    if not splits.get("train"):
        raise InputError("no training examples (train.parquet is empty or missing)", path=str(data))
    out = Path(out)
    kwargs = {"variant": variant} if task in understanding_tasks() else {}
    if prepared is not None:
        prepared.reset()
        baseline = prepared
    else:
        baseline = make_baseline(config, task, device=device, **kwargs)
    rows = subsample(splits["train"], train_size, config.train.seed)
    started = time.perf_counter()
    baseline.fit(rows, splits.get("val") or None, out=out, resume=resume)
    fit = baseline.fit_result
    results = {
        "model": config.name,
        "task": task,
        "variant": variant if task in understanding_tasks() else None,
        "data": str(data),
        "device": baseline.device,
        "parameters": baseline.n_parameters(),
        "train_examples": len(rows),
        "epochs_run": fit.epochs_run,
        "best_epoch": fit.best_epoch,
        "train_examples_per_s": round(fit.train_examples_per_s, 2),
        "seconds": round(time.perf_counter() - started, 1),
        "resumed_from_epoch": fit.resumed_from,
        "history": fit.history,
        "scores": {},
        "timing": {"train_cpu_s_before_first_step": _round(fit.cpu_s_before_first_step)},
    }
    if task in understanding_tasks():
        for split in ("val", "test"):
            if splits.get(split):
                preds = baseline.predict(splits[split])
                gold = [row["label"] for row in splits[split]]
                results["scores"][split] = {"accuracy": sum(p == g for p, g in zip(preds, gold)) / len(gold)}
    _write_results(out, results)
    return results


def predict_run(
    run: str | Path,
    data: str | Path,
    out: str | Path,
    *,
    split: str = "test",
    device: str | None = None,
    score: bool = True,
    definition: str = "lot",
    seed: int | None = None,
    batch_size: int | None = None,
    results_file: str | Path | None = None,
) -> dict[str, Any]:
    """Predict one split in the official LOT format (`out`, jsonl); score it against the split's labels
    (`definition` shown; RUN/results.json keeps the `lot` figures and, for generation, `nlpcc2021` ones).
    `results_file`: where RUN/results.json is read and written instead (`baseline predict` gives its staged copy)."""
    from lotdata import metrics
    from lotdata.datasets.lotformat import to_lot

    run = Path(run)
    must_exist(data, "dataset")
    baseline = load(run, device=device)
    task, splits = _dataset(data, baseline.task)
    rows = splits.get(split)
    if not rows:
        raise InputError(f"no {split} examples", path=str(data))
    gold = [to_lot(task, row) for row in rows]
    preds = (
        baseline.predict(rows, batch_size=batch_size)
        if task in understanding_tasks()
        else baseline.generate(rows, seed=seed, batch_size=batch_size)
    )
    spec = get_task(task)
    records = [{**record, spec.prediction_field: spec.prediction_type(pred)} for record, pred in zip(gold, preds)]
    write_jsonl(records, out)
    summary: dict[str, Any] = {"task": task, "split": split, "rows": len(records), "out": str(out)}
    if score:
        definition = metrics.DEFINITION_ALIASES.get(definition, definition)
        by_definition = {
            d: metrics.evaluate(task, records, gold, d)
            for d in dict.fromkeys([definition, "lot"] + (["nlpcc2021"] if task in generation_tasks() else []))
        }
        summary["scores"] = by_definition[definition]
        if (run / RESULTS_FILE).exists() or (run / "best").exists():
            kept = Path(results_file) if results_file is not None else run / RESULTS_FILE
            results = _load_results(kept, shown=run / RESULTS_FILE)
            results.setdefault("scores", {})[split] = by_definition["lot"]
            if "nlpcc2021" in by_definition:
                results.setdefault("scores_nlpcc2021", {})[split] = by_definition["nlpcc2021"]
            results.setdefault("model", baseline.config.name)
            results.setdefault("task", task)
            results.setdefault("parameters", baseline.n_parameters())
            results.setdefault("timing", {})["predict_cpu_s_before_first_step"] = _round(
                baseline.cpu_s_before_first_step
            )
            write_text(json.dumps(results, ensure_ascii=False, indent=2) + "\n", kept)
    return summary


# --------------------------------------------------------------------------- Tables 10 / 11

_NLPCC = {
    "plotcom": ("bleu-1", "bleu-2", "distinct-1", "distinct-2"),
    "outgen": ("bleu-1", "bleu-2", "distinct-3", "distinct-4", "coverage", "order", "nlpcc2021_overall"),
}
_ABBR = {
    "bleu-1": "B-1",
    "bleu-2": "B-2",
    "distinct-1": "D-1",
    "distinct-2": "D-2",
    "distinct-3": "D-3",
    "distinct-4": "D-4",
    "coverage": "Cover",
    "order": "Order",
    "nlpcc2021_overall": "NLPCC 2021 score",
    "accuracy": "Acc",
}
_TASK_NAMES = {"clozet": "ClozeT", "senpos": "SenPos", "plotcom": "PlotCom", "outgen": "OutGen"}
_TITLES = {"understanding": "LOT Table 10 (accuracy %, understanding)", "generation": "LOT Table 11 (generation, %)"}


def _read_runs(runs: Sequence[str | Path], split: str, definition: str) -> dict[str, dict[Any, Any]]:
    """model -> {"#P": n, (task, metric): fraction} from the runs' results.json."""
    by_model: dict[str, dict[Any, Any]] = {}
    for run in runs:
        results = _read_results(must_exist(run, "run folder"))
        if not results:
            raise InputError(f"no {RESULTS_FILE} in the run folder", path=str(run))
        entry = by_model.setdefault(results["model"], {"#P": results.get("parameters")})
        source = "scores_nlpcc2021" if definition == "nlpcc2021" and results["task"] in generation_tasks() else "scores"
        for metric, value in (results.get(source, {}).get(split) or {}).items():
            entry[(results["task"], metric)] = value
    return by_model


def results_table(
    runs: Sequence[str | Path],
    split: str = "test",
    definition: str = "lot",
    *,
    human: dict | None = None,
    baselines: dict[str, str] | None = None,
    paper_rows: bool = False,
    human_source: str | None = None,
) -> str:
    """Markdown tables of the runs' figures (percent, as the paper prints them).

    lot: LOT Table 10 (ClozeT, SenPos, Overall) and Table 11 (PlotCom and OutGen metrics, Overall), with
    Overall per Eq. 1-2: H_i from `human` ((task, metric) -> fraction; default the paper's Humans/Truth row of
    the split), B_i from the run named in `baselines[family]` (default the paper's BERT / GPT2 row), and rows
    for H_i and w_i. `paper_rows` adds the paper's own rows of the split. nlpcc2021: one table with the NLPCC
    2021 OutGen script's metrics and its score under its own name."""
    from lotdata import metrics

    by_model = _read_runs(runs, split, definition)
    if definition == "nlpcc2021":
        return _nlpcc_table(by_model, split)
    baselines = baselines or {}
    paper_split = split if split in metrics.PAPER_TABLE_10 else None
    blocks = [f"Split: {split} (definition: lot)"]
    for family, keys in metrics.FAMILIES.items():
        models = {m: e for m, e in by_model.items() if any(k in e for k in keys)}
        if not models and not (paper_rows and paper_split):
            continue
        human_row, weights_note = _human_row(
            family, keys, human, paper_split, human_source or "the human-performance file"
        )
        base_name = baselines.get(family)
        if base_name:
            if base_name not in by_model:
                raise ValueError(f"--{family}-baseline {base_name!r} is none of the runs' models {sorted(by_model)}")
            base_row = by_model[base_name]
            base_note = f"run {base_name}"
        else:
            if not paper_split:
                raise ValueError(
                    f"split {split!r}: LOT's tables give val and test; name a baseline run (--{family}-baseline) "
                    "and a human-performance file (--human) for another split"
                )
            base_row = metrics.paper_row(family, paper_split, metrics.PAPER_BASELINE[family])
            base_note = f"LOT Table {10 if family == 'understanding' else 11}, {paper_split}, row {metrics.PAPER_BASELINE[family]}"
        weights = metrics.lot_weights(human_row, base_row, family)
        header = (
            ["Models", "#P"]
            + [f"{_TASK_NAMES[t]} {_ABBR[m]}" if family == "generation" else _TASK_NAMES[t] for t, m in keys]
            + ["Overall"]
        )
        lines = [
            f"### {_TITLES[family]}",
            "",
            f"H_i: {weights_note}; B_i: {base_note}.",
            "",
            "| " + " | ".join(header) + " |",
            "|" + "---|" * len(header),
        ]
        rows = list(models.items())
        if paper_rows and paper_split:
            table = metrics.PAPER_TABLE_10 if family == "understanding" else metrics.PAPER_TABLE_11
            rows += [
                (f"{name} (paper)", metrics.paper_row(family, paper_split, name))
                for name in table[paper_split]
                if name != metrics.PAPER_HUMAN[family]
            ]
        rows.append((metrics.PAPER_HUMAN[family], human_row))
        for model, entry in rows:
            cells = [model, _millions(entry.get("#P"))] + [_pct(entry.get(k)) for k in keys]
            cells.append(_pct(metrics.lot_overall(entry, weights)))
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("| w_i | – | " + " | ".join(f"{weights[k]:.2f}" for k in keys) + " | 1.00 |")
        blocks.append("\n".join(lines))
    if len(blocks) == 1:
        raise InputError("the runs hold no scores for this split", path=str(runs[0]) if runs else None)
    return "\n\n".join(blocks) + "\n"


def _human_row(
    family: str, keys, human: dict | None, paper_split: str | None, source: str = "the human-performance file"
) -> tuple[dict, str]:
    from lotdata import metrics

    paper = metrics.paper_row(family, paper_split, metrics.PAPER_HUMAN[family]) if paper_split else {}
    given = {k: v for k, v in (human or {}).items() if k in keys}
    row = {**paper, **given}
    missing = [f"{t} {m}" for t, m in keys if (t, m) not in row]
    if missing:
        raise ValueError(f"no human score for {', '.join(missing)}: give them in --human")
    table = 10 if family == "understanding" else 11
    if not given:
        note = f"LOT Table {table}, {paper_split}, row {metrics.PAPER_HUMAN[family]}"
    elif len(given) == len(keys):
        note = source
    else:
        note = f"{source} ({len(given)} metrics), else LOT Table {table}, {paper_split}"
    return row, note


def _nlpcc_table(by_model: dict[str, dict[Any, Any]], split: str) -> str:
    keys = [(t, m) for t in ("clozet", "senpos") for m in ("accuracy",)] + [
        (t, m) for t in ("plotcom", "outgen") for m in _NLPCC[t]
    ]
    keys = [k for k in keys if any(k in e for e in by_model.values())]
    header = ["Models", "#P"] + [f"{_TASK_NAMES[t]} {_ABBR[m]}" for t, m in keys]
    lines = [
        f"Split: {split} (definition: nlpcc2021, the NLPCC 2021 OutGen script; not LOT's Overall)",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
    ]
    for model, entry in by_model.items():
        lines.append("| " + " | ".join([model, _millions(entry.get("#P"))] + [_pct(entry.get(k)) for k in keys]) + " |")
    return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    import math

    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{100 * value:.2f}"


def _millions(n: int | None) -> str:
    return "–" if not n else f"{n / 1e6:.0f}M" if n >= 1e6 else f"{n / 1e3:.0f}K"


# --------------------------------------------------------------------------- Figure 2


def learning_curve(
    config: BaselineConfig,
    data: str | Path,
    out: str | Path,
    *,
    task: str | None = None,
    sizes: Sequence[float] = (0.1, 0.25, 0.5, 1.0),
    device: str | None = None,
    split: str = "test",
) -> dict[str, Any]:
    """Accuracy against training-set size (LOT Figure 2): one run per size under OUT/size_N, a PNG and a JSON."""
    task, splits = _dataset(data, task)
    if task not in understanding_tasks():
        raise InputError(f"the learning curve is for understanding tasks {understanding_tasks()}, not {task}")
    n_train = len(splits.get("train", []))
    if not n_train:
        raise InputError("no training examples (train.parquet is empty or missing)", path=str(data))
    out = Path(out)
    # one model and one vocabulary (from the whole training split) for every point: built once, reset per point
    prepared = make_baseline(config, task, device=device).prepare(splits["train"], out / "shared")
    points = []
    for size in sizes:
        n = max(1, round(size * n_train)) if size <= 1 else int(size)
        results = train_run(
            config,
            data,
            out / f"size_{n}",
            task=task,
            device=device,
            train_size=n,
            prepared=prepared,
            loaded=(task, splits),
        )
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
