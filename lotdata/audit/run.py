"""`lotdata audit-bias`: run every baseline on every split, scan for leaking tokens, write the report.

Baselines that learn fit on the training split and are scored on every other split; the
heuristics are scored on every split. Ties are broken at random with seeded generators, and a
baseline with random choices is averaged over `runs` runs (its predictions table keeps run 0).

The stage shape every long step shares (the module docstring of `lotdata.exec`), run by it:
- plan: the items are loaded and checked here, once, and written to a work folder; the shards are the
  unique sentences to score for sentiment (phase 1), then one shard per baseline plus the token scan
  and AFLite (phase 2); `lotdata.audit.work` holds the shard functions.
- process: local process pool or Ray (`execution`, an `ExecSettings`); each shard writes a
  part file and a done marker, so a stopped audit re-run over the same work folder resumes.
- combine (here): the parts in the order the baselines were asked for, chance levels, Holm and the
  verdicts once over the whole report, then `write_audit` writes the report folder (`.incomplete` while
  writing) and removes the work folder. The report is the same for any executor and number of workers.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import mean
from typing import Any, Callable, Iterator, Sequence

import pyarrow as pa

from lotdata.audit.baselines import Sentiment, baseline_names
from lotdata.audit.bert import BertSettings, check_checkpoint
from lotdata.audit.features import FeatureCache
from lotdata.audit.items import Item, items_from_table, load_audit_input, ordered_splits
from lotdata.audit.stats import AUDIT_NEEDS, MIN_EFFECT_POINTS, add_verdicts
from lotdata.audit.work import (
    AFLITE,
    SCAN,
    SCORES_FILE,
    WORK_DIR,
    Job,
    forget,
    needs_sentiment,
    run_jobs,
    score_pairs,
    write_items,
)
from lotdata.errors import DiskError, InputError, require_all
from lotdata.exec import ExecSettings
from lotdata.io import mark_complete, mark_incomplete, write_parquet, write_text
from lotdata.schema import QUARANTINE, table_from_rows
from lotdata.text.tokenize import check_tokenizer_env

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
    resumed: list[str] = field(default_factory=list)  # shards a stopped run had finished (not redone)

    def skipped_records(self) -> list[dict[str, Any]]:
        """One row per baseline that could not run: named, with its reason, never a verdict."""
        return [
            {
                "id": f"{s['baseline']}/skipped",
                "baseline": s["baseline"],
                "split": None,
                "n": 0,
                "accuracy": None,
                "verdict": "skipped",
                "reason": s["reason"],
            }
            for s in self.skipped
        ]

    def quarantine_counts(self) -> dict[str, Any]:
        return {
            "rows": len(self.quarantine),
            "by_reason": dict(Counter(_reason_kind(q["reason"]) for q in self.quarantine)),
        }


def _reason_kind(reason: str) -> str:
    return reason[:120]


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
    execution: ExecSettings = ExecSettings(),
    work: str | Path | None = None,
    model_path: str | Path | None = None,
    bert: BertSettings | None = None,
    min_effect: float = MIN_EFFECT_POINTS,
    aflite: bool = False,
    sentiment: str = "snownlp",
    sentiment_cache: str | Path | None = None,
    on_step: Callable[[str, bool], None] | None = None,
    on_start: Callable[[], Any] | None = None,
) -> AuditResult:
    """Audit one dataset (folder, LOT jsonl or Story Cloze csv). Nothing is written but the
    `sentiment_cache` Parquet file, when given (scores an earlier run left there are reused), and the
    executor's `work` folder (default: a temporary one, removed at the end).

    `train_split` None means "train" where the input has one (the learners are skipped where it has
    not); a split named explicitly must exist and hold rows. The BERT baselines run only from a local
    pretrained checkpoint (`model_path`); without one they are skipped rows. Rows the audit cannot
    use go to `result.quarantine`; InputError when none is left.

    The work runs in shards on `lotdata.exec` (`execution`; see the module docstring); a `work` folder left by a stopped run with the same input and parameters is resumed.
    `on_step(name, resumed)` is called as each baseline (and the scan) finishes."""
    started = time.perf_counter()
    check_tokenizer_env()  # before the sentiment scores, the slow part
    require_all(AUDIT_NEEDS)  # exit 4 before anything is read or written
    if runs < 1:
        raise ValueError(f"--runs must be at least 1, not {runs}")
    if min_effect < 0:
        raise ValueError(f"--min-effect must be at least 0 points, not {min_effect}")
    if model_path is not None:
        check_checkpoint(model_path)
    known = baseline_names()
    names = list(baselines or known)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown baseline(s) {unknown}; known: {', '.join(known)}")
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
        raise ValueError(
            f"--train-split {train_split!r} {state} in {path}; splits with rows: {', '.join(splits) or 'none'}"
        )
    items = {s: items[s] for s in splits}
    lang = next((it.lang for s in splits for it in items[s]), "zh")
    train = items.get(train_split, [])
    if on_start:  # the input is usable: the caller may now mark its output folder as being written
        on_start()
    cache = FeatureCache(sentiment, store=sentiment_cache)
    timings: dict[str, float] = {"load": time.perf_counter() - started}
    job = Job("", task, lang, train_split, seed, runs, sentiment, None if model_path is None else str(model_path), bert)
    with _work_folder(work) as folder:
        write_items(folder, items)
        sentiment_seconds = 0.0
        if needs_sentiment(names, task, lang):
            pairs = [
                (it.lang, text)
                for split in splits
                for it in items[split]
                if it.lang in Sentiment.langs
                for text in it.all_sentences()
            ]
            sentiment_seconds = score_pairs(pairs, cache, folder, execution)
        cache.save_sentiment(folder / SCORES_FILE)  # what the baseline shards read
        try:
            parts, resumed = run_jobs(
                names, replace(job, work=str(folder)), aflite=aflite, execution=execution, on_done=on_step
            )
        finally:
            forget()
    records, predictions, skipped = _combine(names, parts, timings)
    chance = {s: chance_level(items[s]) for s in splits}
    for record in records:
        record["chance"] = chance[record["split"]]
    add_verdicts(records, min_effect)  # Holm over the whole report, once

    for key in (SCAN, AFLITE):
        if key in parts:
            timings[key] = parts[key]["seconds"]
    timings["sentiment_scoring"] = sentiment_seconds + sum(p["sentiment_seconds"] for p in parts.values())
    timings["total"] = time.perf_counter() - started
    return AuditResult(
        task=task,
        lang=lang,
        source=source,
        splits={s: len(items[s]) for s in splits},
        train_split=train_split if train else None,
        records=records,
        skipped=skipped,
        scan=parts[SCAN]["scan"],
        chance=chance,
        timings=timings,
        params={
            "input": str(path),
            "train_split": train_split,
            "seed": seed,
            "runs": runs,
            "baselines": names,
            "model_path": None if model_path is None else str(model_path),
            "aflite": aflite,
            "sentiment": sentiment,
            "min_effect": min_effect,
            # the BERT settings only where they ran: reports without a checkpoint stay as they were
            **({"bert": (bert or BertSettings()).describe()} if model_path is not None else {}),
        },
        aflite=parts[AFLITE]["aflite"] if aflite else None,
        predictions=predictions,
        quarantine=quarantine,
        items={it.example_id: it for s in splits for it in items[s]},
        resumed=resumed,
    )


@contextmanager
def _work_folder(work: str | Path | None) -> Iterator[Path]:
    """The caller's work folder (kept: a stopped run resumes from it), or a temporary one."""
    if work is not None:
        Path(work).mkdir(parents=True, exist_ok=True)
        yield Path(work)
        return
    with tempfile.TemporaryDirectory(prefix="lotdata-audit-") as tmp:
        yield Path(tmp)


def _combine(
    names: Sequence[str], parts: dict[str, dict[str, Any]], timings: dict[str, float]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, str]]]:
    """Records, predictions and skipped rows of the baselines in the order they were asked for."""
    records: list[dict[str, Any]] = []
    predictions: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    for name in names:
        part = parts[name]
        if "skipped" in part:
            skipped.append({"baseline": name, "reason": part["skipped"]})
            continue
        records.extend(part["records"])
        predictions.extend(part["predictions"])
        timings[name] = part["seconds"]
    return records, predictions, skipped


def _reasons(quarantine: list[dict[str, Any]]) -> str:
    counts = Counter(_reason_kind(q["reason"]) for q in quarantine)
    return "; ".join(f"{n} × {r}" for r, n in counts.most_common(5)) or "the input holds no rows"


def write_audit(result: AuditResult, out: str | Path) -> dict[str, Path]:
    """results.json, predictions.parquet, scan.json, audit.json, quarantine.parquet, report.md and report.html
    under `out`, written like a dataset folder: `.incomplete` while writing, removed last. A file that
    cannot be written (a full disk) is named in the error."""
    from lotdata.audit.report import render_html, render_markdown

    out = Path(out)
    mark_incomplete(out)
    records = result.records + result.skipped_records()
    meta = {
        k: getattr(result, k)
        for k in (
            "task",
            "lang",
            "source",
            "splits",
            "train_split",
            "skipped",
            "chance",
            "timings",
            "params",
            "resumed",
        )
    }
    meta["quarantined"] = result.quarantine_counts()
    evidence = evidence_items(result)
    examples = _example_lookup(result)
    jobs: list[tuple[str, str, Callable[[Path], Path]]] = [
        ("results", "results.json", lambda p: write_text(json.dumps(records, ensure_ascii=False, indent=2) + "\n", p)),
        (
            "predictions",
            "predictions.parquet",
            lambda p: write_parquet(pa.Table.from_pylist(result.predictions, schema=PREDICTIONS), p),
        ),
        ("scan", "scan.json", lambda p: write_text(json.dumps(result.scan, ensure_ascii=False, indent=2) + "\n", p)),
        (
            "quarantine",
            "quarantine.parquet",
            lambda p: write_parquet(table_from_rows(result.quarantine, QUARANTINE), p),
        ),
    ]
    if result.aflite is not None:
        meta["aflite"] = {k: v for k, v in result.aflite.items() if k != "removed_ids"}
        jobs.append(
            ("aflite", "aflite_removed.txt", lambda p: write_text("\n".join(result.aflite["removed_ids"]) + "\n", p))
        )
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
            raise DiskError(
                f"{out / name}: cannot write it ({exc.strerror or exc}); the report was not finished "
                "(a previous report is left as it was)"
            ) from exc
    mark_complete(out)
    shutil.rmtree(out / WORK_DIR, ignore_errors=True)  # the executor's parts: the report holds everything now
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
