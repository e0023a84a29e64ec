"""`lotdata audit-bias`: run every baseline on every split, scan for leaking tokens, write the report.

Baselines that learn fit on the training split and are scored on every other split; the
heuristics are scored on every split. Ties are broken at random with seeded generators, and a
baseline with random choices is averaged over `runs` runs (its predictions table keeps run 0).
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import Any, Callable, Sequence

import pyarrow as pa

from lotdata.audit.baselines import ALL_BASELINES, HEURISTICS, MODEL_BASELINES, Baseline, Scores, resource_problem
from lotdata.audit.bert import BertSettings, check_checkpoint
from lotdata.audit.features import FeatureCache
from lotdata.audit.items import Item, items_from_table, load_audit_input, ordered_splits
from lotdata.audit.scan import association_scan
from lotdata.audit.stats import MIN_EFFECT_POINTS, add_verdicts, chance_test, wilson_interval
from lotdata.errors import InputError, LotdataError, MissingExtraError
from lotdata.io import mark_complete, mark_incomplete, write_parquet, write_text
from lotdata.schema import QUARANTINE, table_from_rows

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
    quarantine: list[dict[str, Any]] = field(default_factory=list, repr=False)
    items: dict[str, Item] = field(default_factory=dict, repr=False)  # by example_id, for the evidence

    def skipped_records(self) -> list[dict[str, Any]]:
        """One row per baseline that could not run: named, with its reason, never a verdict."""
        return [{"id": f"{s['baseline']}/skipped", "baseline": s["baseline"], "split": None, "n": 0, "accuracy": None,
                 "verdict": "skipped", "reason": s["reason"]} for s in self.skipped]

    def quarantine_counts(self) -> dict[str, Any]:
        return {"rows": len(self.quarantine), "by_reason": dict(Counter(_reason_kind(q["reason"]) for q in self.quarantine))}


def _reason_kind(reason: str) -> str:
    return reason[:120]


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
        # averaged runs give a fractional count: the test takes the nearest whole number of right answers
        "p_value": chance_test(round(accuracy * len(items)), [1 / it.n_options for it in items]),
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
    model_path: str | Path | None = None,
    bert: BertSettings | None = None,
    min_effect: float = MIN_EFFECT_POINTS,
    aflite: bool = False,
    sentiment: str = "snownlp",
    sentiment_cache: str | Path | None = None,
    on_step: Callable[[str], None] | None = None,
    on_start: Callable[[], Any] | None = None,
) -> AuditResult:
    """Audit one dataset (folder, LOT jsonl or Story Cloze csv). Nothing is written but the
    `sentiment_cache` Parquet file, when given: scores an earlier run left there are reused.

    `train_split` None means "train" where the input has one (the learners are skipped where it has
    not); a split named explicitly must exist and hold rows. The BERT baselines run only from a local
    pretrained checkpoint (`model_path`); without one they are skipped rows. Rows the audit cannot
    use go to `result.quarantine`; InputError when none is left."""
    started = time.perf_counter()
    if runs < 1:
        raise ValueError(f"--runs must be at least 1, not {runs}")
    if min_effect < 0:
        raise ValueError(f"--min-effect must be at least 0 points, not {min_effect}")
    if model_path is not None:
        check_checkpoint(model_path)
    names = list(baselines or ALL_BASELINES)
    unknown = [n for n in names if n not in ALL_BASELINES]
    if unknown:
        raise ValueError(f"unknown baseline(s) {unknown}; known: {', '.join(ALL_BASELINES)}")
    quarantine: list[dict[str, Any]] = []
    task, tables, source = load_audit_input(path, task, quarantine)
    items = {s: items_from_table(tables[s], task, f"{path}#{s}", quarantine) for s in ordered_splits(tables)}
    splits = [s for s in items if items[s]]
    if not splits:
        raise InputError(f"no usable rows ({len(quarantine)} quarantined: {_reasons(quarantine)})", path=str(path))
    if train_split is None:
        train_split = "train"
    elif train_split not in splits:
        state = "is empty" if train_split in tables else "does not exist"
        raise ValueError(f"--train-split {train_split!r} {state} in {path}; splits with rows: {', '.join(splits) or 'none'}")
    items = {s: items[s] for s in splits}
    lang = next((it.lang for s in splits for it in items[s]), "zh")
    train = items.get(train_split, [])
    if on_start:  # the input is usable: the caller may now mark its output folder as being written
        on_start()
    cache = FeatureCache(workers, sentiment, store=sentiment_cache)
    records: list[dict[str, Any]] = []
    predictions: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    timings: dict[str, float] = {"load": time.perf_counter() - started}
    for name in names:
        t0 = time.perf_counter()
        if on_step:
            on_step(name)
        outcome = _run_baseline(name, task, lang, items, train_split, cache, seed, model_path, bert)
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
    add_verdicts(records, min_effect)

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
                                 "baselines": names, "model_path": None if model_path is None else str(model_path),
                                 "aflite": aflite, "sentiment": sentiment, "min_effect": min_effect},
        aflite=aflite_result, predictions=predictions, quarantine=quarantine,
        items={it.example_id: it for s in splits for it in items[s]},
    )


def _reasons(quarantine: list[dict[str, Any]]) -> str:
    counts = Counter(_reason_kind(q["reason"]) for q in quarantine)
    return "; ".join(f"{n} × {r}" for r, n in counts.most_common(5)) or "the input holds no rows"


def _run_baseline(
    name: str, task: str, lang: str, items: dict[str, list[Item]], train_split: str, cache: FeatureCache,
    seed: int, model_path: str | Path | None, bert: BertSettings | None,
) -> tuple[dict[str, Scores], bool, bool] | str:
    """(scores per split, stochastic, learns), or why the baseline cannot run here.

    Learning baselines fit on `train_split` and are scored on the other splits; the rest on all."""
    train = items.get(train_split, [])
    held_out = [s for s in items if s != train_split]
    if name in MODEL_BASELINES:
        if model_path is None:
            return ("needs --model-path DIR, a local pretrained checkpoint (LOT fine-tunes bert-base); a BERT trained "
                    "from scratch on the audit set is not comparable with the paper's figures")
        if not train:
            return f"learns from the training split, and there is no {train_split!r} split"
        if not held_out:
            return f"fits on {train_split!r}, the only split with rows: no held-out split to score"
        try:
            from lotdata.audit.bert import BertChoice

            model = BertChoice(name, model_path, seed=seed, settings=bert).fit(train)
        except ImportError as exc:
            return f"needs torch and transformers (install 'lotdata[models]'): {exc}"
        except (OSError, ValueError) as exc:
            return f"cannot load the checkpoint {model_path}: {exc}"
        return {s: model.scores(items[s]) for s in held_out}, False, True
    baseline: Baseline = HEURISTICS[name](cache)
    if task not in baseline.tasks:
        return f"not defined for {task} (it compares candidate endings)"
    problem = resource_problem(baseline, lang)
    if problem:
        return problem
    if baseline.learns and not train:
        return f"learns from the training split, and there is no {train_split!r} split"
    if baseline.learns and not held_out:
        return f"fits on {train_split!r}, the only split with rows: no held-out split to score"
    try:
        if baseline.learns:
            baseline.fit(train)
        per_split = {s: baseline.scores(items[s]) for s in items if not (baseline.learns and s == train_split)}
    except MissingExtraError as exc:
        return str(exc)
    return per_split, baseline.stochastic, baseline.learns


def write_audit(result: AuditResult, out: str | Path) -> dict[str, Path]:
    """results.json, predictions.parquet, scan.json, audit.json, quarantine.parquet, report.md and report.html
    under `out`, written like a dataset folder: `.incomplete` while writing, removed last. A file that
    cannot be written (a full disk) is named in the error."""
    from lotdata.audit.report import render_html, render_markdown

    out = Path(out)
    mark_incomplete(out)
    records = result.records + result.skipped_records()
    meta = {k: getattr(result, k) for k in ("task", "lang", "source", "splits", "train_split", "skipped", "chance", "timings", "params")}
    meta["quarantined"] = result.quarantine_counts()
    evidence = evidence_items(result)
    examples = _example_lookup(result)
    jobs: list[tuple[str, str, Callable[[Path], Path]]] = [
        ("results", "results.json", lambda p: write_text(json.dumps(records, ensure_ascii=False, indent=2) + "\n", p)),
        ("predictions", "predictions.parquet", lambda p: write_parquet(pa.Table.from_pylist(result.predictions, schema=PREDICTIONS), p)),
        ("scan", "scan.json", lambda p: write_text(json.dumps(result.scan, ensure_ascii=False, indent=2) + "\n", p)),
        ("quarantine", "quarantine.parquet", lambda p: write_parquet(table_from_rows(result.quarantine, QUARANTINE), p)),
    ]
    if result.aflite is not None:
        meta["aflite"] = {k: v for k, v in result.aflite.items() if k != "removed_ids"}
        jobs.append(("aflite", "aflite_removed.txt", lambda p: write_text("\n".join(result.aflite["removed_ids"]) + "\n", p)))
    jobs += [
        ("audit", "audit.json", lambda p: write_text(json.dumps(meta, ensure_ascii=False, indent=2) + "\n", p)),
        ("report_md", "report.md", lambda p: write_text(render_markdown(result, examples, evidence), p)),
        ("report_html", "report.html", lambda p: write_text(render_html(result, examples, evidence), p)),
    ]
    paths = {}
    for key, name, write in jobs:
        try:
            paths[key] = write(out / name)
        except OSError as exc:
            raise LotdataError(f"{out / name}: cannot write it ({exc.strerror or exc}); the report folder keeps "
                               f"its .incomplete marker") from exc
    mark_complete(out)
    return paths


def _example_lookup(result: AuditResult) -> dict[str, list[dict[str, Any]]]:
    """A few predictions per record (wrong ones first) for the report's record sections."""
    by_record: dict[str, list[dict[str, Any]]] = {}
    for p in result.predictions:
        by_record.setdefault(f"{p['baseline']}/{p['split']}", []).append(p)
    return {k: sorted(v, key=lambda p: p["correct"])[:6] for k, v in by_record.items()}


def evidence_items(result: AuditResult, per_record: int = 5) -> dict[str, list[dict[str, Any]]]:
    """Per leaking record: all the items its baseline solves (not by a tie drawn at random), those the
    fewest other baselines solve first.

    Each entry: example_id, split, choice, label, `others_right` (how many of the other baselines
    scored on that split got it right) and `others` (how many were scored). The report shows the
    first `per_record`; `--export-hard` takes them all."""
    leaking = {r["id"] for r in result.records if r["verdict"] == "leaks"}
    if not leaking:
        return {}
    right: dict[tuple[str, str], set[str]] = {}
    scored: dict[str, set[str]] = {}
    for p in result.predictions:
        scored.setdefault(p["split"], set()).add(p["baseline"])
        if p["correct"]:
            right.setdefault((p["split"], p["example_id"]), set()).add(p["baseline"])
    out: dict[str, list[dict[str, Any]]] = {}
    for p in result.predictions:
        rid = f"{p['baseline']}/{p['split']}"
        if rid in leaking and p["correct"] and not p["tie"]:
            others = right.get((p["split"], p["example_id"]), set()) - {p["baseline"]}
            out.setdefault(rid, []).append({**p, "others_right": len(others), "others": len(scored[p["split"]]) - 1})
    for rid, rows in out.items():
        rows.sort(key=lambda e: (e["others_right"], e["example_id"]))
    return out
