"""`lotdata audit-bias`: run every baseline on every split, scan for leaking tokens, write the report.

Baselines that learn fit on the training split and are scored on every other split; the
heuristics are scored on every split. Ties are broken at random with seeded generators, and a
baseline with random choices is averaged over `runs` runs (its predictions table keeps run 0).
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any, Callable, Sequence

import pyarrow as pa

from lotdata.audit.baselines import (
    ALL_BASELINES,
    HEURISTICS,
    MODEL_BASELINES,
    Baseline,
    ModelBaseline,
    Scores,
    load_model_factory,
)
from lotdata.audit.features import FeatureCache
from lotdata.audit.items import Item, items_from_table, load_audit_input, ordered_splits
from lotdata.audit.scan import association_scan
from lotdata.audit.stats import verdict, wilson_interval
from lotdata.errors import MissingExtraError
from lotdata.io import write_parquet, write_text

PREDICTIONS = pa.schema(
    [
        pa.field("baseline", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("choice", pa.int32(), nullable=False),  # the table's label convention
        pa.field("label", pa.int32(), nullable=False),
        pa.field("correct", pa.bool_(), nullable=False),
        pa.field("tie", pa.bool_(), nullable=False),  # the choice was drawn among equally scored options
    ],
    metadata={"lotdata.table": "audit_predictions"},
)


@dataclass
class AuditResult:
    task: str
    lang: str
    source: str
    splits: dict[str, int]
    train_split: str | None
    records: list[dict[str, Any]]
    skipped: list[dict[str, str]]
    scan: dict[str, Any]
    chance: dict[str, float]
    timings: dict[str, float]
    params: dict[str, Any]
    aflite: dict[str, Any] | None = None
    predictions: list[dict[str, Any]] = field(default_factory=list, repr=False)


def choose(scores: Sequence[float], rng: random.Random) -> tuple[int, bool]:
    """The best option, a random one among equals; and whether there was a tie."""
    best = max(scores)
    top = [o for o, s in enumerate(scores) if s >= best - 1e-12]
    return (top[0], False) if len(top) == 1 else (rng.choice(top), True)


def score_record(
    name: str, split: str, items: Sequence[Item], scores: Scores, *, seed: int, runs: int, stochastic: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Accuracy over seeded runs (one when nothing is left to chance) and the run-0 predictions."""
    ties = [sum(1 for s in row if s >= max(row) - 1e-12) > 1 for row in scores]
    n_runs = runs if (stochastic or any(ties)) else 1
    accuracies, predictions = [], []
    for run in range(n_runs):
        rng = random.Random(f"{seed}:{name}:{split}:{run}")
        chosen = [choose(row, rng)[0] for row in scores]
        correct = [c == it.gold_option for c, it in zip(chosen, items)]
        accuracies.append(sum(correct) / len(items) if items else 0.0)
        if run == 0:
            predictions = [
                {"baseline": name, "split": split, "example_id": it.example_id, "choice": it.label_of_option(c),
                 "label": it.label, "correct": ok, "tie": tie}
                for it, c, ok, tie in zip(items, chosen, correct, ties)
            ]
    accuracy = mean(accuracies)
    low, high = wilson_interval(accuracy, len(items))
    record = {
        "id": f"{name}/{split}", "baseline": name, "split": split, "n": len(items), "accuracy": accuracy,
        "ci_low": low, "ci_high": high, "runs": n_runs, "tie_share": sum(ties) / len(items) if items else 0.0,
    }
    return record, predictions


def chance_level(items: Sequence[Item]) -> float:
    return mean(1 / it.n_options for it in items) if items else 0.0


def audit(
    path: str | Path,
    *,
    task: str | None = None,
    train_split: str | None = None,
    seed: int = 0,
    runs: int = 10,
    baselines: Sequence[str] | None = None,
    workers: int | None = None,
    model_path: str | None = None,
    aflite: bool = False,
    sentiment: str = "snownlp",
    sentiment_cache: str | Path | None = None,
    on_step: Callable[[str], None] | None = None,
) -> AuditResult:
    """Audit one dataset (folder, LOT jsonl or Story Cloze csv). Nothing is written but the
    `sentiment_cache` Parquet file, when given: scores an earlier run left there are reused.

    `train_split` None means "train" where the input has one (the learners are skipped where it has
    not); a split named explicitly must exist and hold rows."""
    started = time.perf_counter()
    if runs < 1:
        raise ValueError(f"--runs must be at least 1, not {runs}")
    names = list(baselines or ALL_BASELINES)
    unknown = [n for n in names if n not in ALL_BASELINES]
    if unknown:
        raise ValueError(f"unknown baseline(s) {unknown}; known: {', '.join(ALL_BASELINES)}")
    task, tables, source = load_audit_input(path, task)
    splits = [s for s in ordered_splits(tables) if tables[s].num_rows]
    if train_split is None:
        train_split = "train"
    elif train_split not in splits:
        state = "is empty" if train_split in tables else "does not exist"
        raise ValueError(f"--train-split {train_split!r} {state} in {path}; splits with rows: {', '.join(splits) or 'none'}")
    items = {s: items_from_table(tables[s], task) for s in splits}
    lang = next((it.lang for s in splits for it in items[s]), "zh")
    train = items.get(train_split, [])
    cache = FeatureCache(workers, sentiment, store=sentiment_cache)
    records: list[dict[str, Any]] = []
    predictions: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    timings: dict[str, float] = {"load": time.perf_counter() - started}
    model_factory = load_model_factory() if any(n in MODEL_BASELINES for n in names) else (None, None)
    for name in names:
        t0 = time.perf_counter()
        if on_step:
            on_step(name)
        outcome = _run_baseline(name, task, tables, items, train_split, cache, model_factory, seed, model_path)
        if isinstance(outcome, str):
            skipped.append({"baseline": name, "reason": outcome})
            continue
        per_split, stochastic, learns = outcome
        for split, scores in per_split.items():
            record, preds = score_record(name, split, items[split], scores, seed=seed, runs=runs, stochastic=stochastic)
            record["fit_on"] = train_split if learns else None
            records.append(record)
            predictions.extend(preds)
        timings[name] = time.perf_counter() - t0

    chance = {s: chance_level(items[s]) for s in splits}
    for record in records:
        record["chance"] = chance[record["split"]]
        record["verdict"] = verdict(record["accuracy"], record["ci_low"], record["ci_high"], record["chance"])

    t0 = time.perf_counter()
    scan = association_scan([it for s in splits for it in items[s]], cache)
    timings["association_scan"] = time.perf_counter() - t0
    aflite_result = None
    if aflite:
        from lotdata.audit.aflite import aflite_filter

        t0 = time.perf_counter()
        aflite_result = aflite_filter([it for s in splits for it in items[s]], cache, seed=seed)
        timings["aflite"] = time.perf_counter() - t0
    timings["sentiment_scoring"] = cache.sentiment_seconds

    timings["total"] = time.perf_counter() - started
    return AuditResult(
        task=task, lang=lang, source=source, splits={s: len(items[s]) for s in splits},
        train_split=train_split if train else None, records=records, skipped=skipped, scan=scan, chance=chance,
        timings=timings, params={"input": str(path), "train_split": train_split, "seed": seed, "runs": runs,
                                 "baselines": names, "model_path": model_path, "aflite": aflite,
                                 "sentiment": sentiment},
        aflite=aflite_result, predictions=predictions,
    )


def _run_baseline(
    name: str, task: str, tables: dict[str, pa.Table], items: dict[str, list[Item]], train_split: str,
    cache: FeatureCache, model_factory: tuple[Callable | None, str | None], seed: int, model_path: str | None,
) -> tuple[dict[str, Scores], bool, bool] | str:
    """(scores per split, stochastic, learns), or why the baseline cannot run here.

    Learning baselines fit on `train_split` and are scored on the other splits; the rest on all."""
    train = items.get(train_split, [])
    if name in MODEL_BASELINES:
        factory, problem = model_factory
        if factory is None:
            return problem or "no model factory"
        if not train:
            return f"no training split {train_split!r} to fine-tune on"
        model = ModelBaseline(cache, name, task, factory, seed, model_path).fit_table(tables[train_split])
        return {s: model.scores_from_table(tables[s], items[s]) for s in items if s != train_split}, False, True
    baseline: Baseline = HEURISTICS[name](cache)
    if task not in baseline.tasks:
        return f"not defined for {task} (it compares candidate endings)"
    if baseline.learns and not train:
        return f"learns from the training split, and there is no {train_split!r} split"
    try:
        if baseline.learns:
            baseline.fit(train)
        per_split = {s: baseline.scores(items[s]) for s in items if not (baseline.learns and s == train_split)}
    except MissingExtraError as exc:
        return str(exc)
    return per_split, baseline.stochastic, baseline.learns


def write_audit(result: AuditResult, out: str | Path) -> dict[str, Path]:
    """results.json, predictions.parquet, scan.json, audit.json, report.md and report.html under `out`."""
    from lotdata.audit.report import render_html, render_markdown

    out = Path(out)
    paths = {
        "results": write_text(json.dumps(result.records, ensure_ascii=False, indent=2) + "\n", out / "results.json"),
        "predictions": write_parquet(pa.Table.from_pylist(result.predictions, schema=PREDICTIONS), out / "predictions.parquet"),
        "scan": write_text(json.dumps(result.scan, ensure_ascii=False, indent=2) + "\n", out / "scan.json"),
    }
    meta = {k: getattr(result, k) for k in ("task", "lang", "source", "splits", "train_split", "skipped", "chance", "timings", "params")}
    if result.aflite is not None:
        meta["aflite"] = {k: v for k, v in result.aflite.items() if k != "removed_ids"}
        paths["aflite"] = write_text("\n".join(result.aflite["removed_ids"]) + "\n", out / "aflite_removed.txt")
    paths["audit"] = write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", out / "audit.json")
    examples = _example_lookup(result)
    paths["report_md"] = write_text(render_markdown(result, examples), out / "report.md")
    paths["report_html"] = write_text(render_html(result, examples), out / "report.html")
    return paths


def _example_lookup(result: AuditResult) -> dict[str, list[dict[str, Any]]]:
    """A few predictions per record (wrong ones first) for the report's record sections."""
    by_record: dict[str, list[dict[str, Any]]] = {}
    for p in result.predictions:
        by_record.setdefault(f"{p['baseline']}/{p['split']}", []).append(p)
    return {k: sorted(v, key=lambda p: p["correct"])[:6] for k, v in by_record.items()}
