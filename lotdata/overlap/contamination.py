"""Contamination report v2 (beside LOT Table 14) and model scores on clean vs contaminated items.

`overlap --index` writes, per example, beside Table 14's share of overlapped n-grams (`share`: matched / all):

- `idf_ratio`: the same share with each n-gram weighed by the rarity of its words in the references, the mean of
  `log((T + 1) / (cf(w) + 1))` over its n words (T: the words of the references, cf(w): how often w occurs there,
  from the index; a word the references never use weighs the most). A test item that shares only common phrases
  ("he said that ...") scores lower here than on `share`; one that shares a rare name and its plot scores higher.
  This is decon's (AllenAI) idea of weighing matches towards rare n-grams, on collection frequency (the index
  holds word counts, not document frequencies).
- `longest_words`: the longest run of the example's words found in one reference document.
- `bucket`: clean, suspicious or dirty (infini-gram mini's bulletin), by thresholds given on the command line
  and recorded in summary.json and report.md (`Buckets`).

`lotdata evaluate --contamination REPORT` then scores a model's predictions on the clean and on the dirty items
apart, with the difference (dirty - clean) and its bootstrap interval (`contamination_scores`).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from lotdata.errors import InputError, must_exist

BUCKETS = ("clean", "suspicious", "dirty")
MEASURES = ("ratio", "idf_ratio")


@dataclass(frozen=True)
class Buckets:
    """suspicious: the measure is above `suspicious` (0.1: LOT's "# Exam>10%"); dirty: at least `dirty`, or a
    match of at least `dirty_longest` words (0: no such rule); clean: the rest."""

    suspicious: float = 0.1
    dirty: float = 0.5
    on: str = "ratio"  # ratio (= share) or idf_ratio
    dirty_longest: int = 0

    def check(self) -> None:
        if self.on not in MEASURES:
            raise ValueError(f"--bucket-on {self.on!r}: choose {' or '.join(MEASURES)}")
        if not (0 <= self.suspicious <= self.dirty <= 1):
            raise ValueError(
                f"--suspicious {self.suspicious} and --dirty {self.dirty}: need 0 <= suspicious <= dirty <= 1"
            )
        if self.dirty_longest < 0:
            raise ValueError(f"--dirty-longest {self.dirty_longest}: a number of words, 0 for none")

    def of(self, record: Mapping[str, Any]) -> str:
        value = record["share"] if self.on == "ratio" else record["idf_ratio"]
        if value >= self.dirty or (self.dirty_longest and record.get("longest_words", 0) >= self.dirty_longest):
            return "dirty"
        return "suspicious" if value > self.suspicious else "clean"

    def describe(self) -> str:
        longest = f", or a match of >= {self.dirty_longest} words" if self.dirty_longest else ""
        return f"on {self.on}: clean <= {self.suspicious:g} < suspicious < {self.dirty:g} <= dirty{longest}"


def idf_of_counts(counts: np.ndarray, total: int) -> np.ndarray:
    """log((T + 1) / (cf + 1)): a word's weight from its count in the references (T words in all)."""
    return np.log((total + 1.0) / (np.asarray(counts, dtype=np.float64) + 1.0))


def summarise(examples: Mapping[str, list[dict[str, Any]]], buckets: Buckets) -> dict[str, Any]:
    """summary.json's `contamination`: the thresholds and, per split, the items in each bucket."""
    splits = {}
    for split, rows in examples.items():
        counts = {b: sum(r["bucket"] == b for r in rows) for b in BUCKETS}
        splits[split] = {
            **counts,
            "examples": len(rows),
            "mean_ratio": float(np.mean([r["share"] for r in rows])) if rows else 0.0,
            "mean_idf_ratio": float(np.mean([r["idf_ratio"] for r in rows])) if rows else 0.0,
            "max_longest_words": max((r["longest_words"] for r in rows), default=0),
        }
    return {
        "version": 2,
        "thresholds": asdict(buckets),
        "rule": buckets.describe(),
        "idf": "mean over an n-gram's words of log((T + 1) / (cf(w) + 1)), T and cf from the index",
        "splits": splits,
    }


def render(summary: Mapping[str, Any], examples: Mapping[str, list[dict[str, Any]]], top: int = 20) -> str:
    """report.md's v2 section: the buckets per split and the most contaminated items."""
    lines = [
        "## Contamination (v2) / 污染分析",
        "",
        f"Buckets {summary['rule']} (`--suspicious`, `--dirty`, `--bucket-on`, `--dirty-longest`). ratio: matched "
        "n-grams / all (= Percent per example); idf_ratio: the same, each n-gram weighed by the rarity of its words "
        "in the references; longest: the longest run of words found in one reference document.",
        "",
        "| split | examples | clean | suspicious | dirty | mean ratio | mean idf_ratio | longest |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for split, s in summary["splits"].items():
        lines.append(
            f"| {split} | {s['examples']:,} | {s['clean']:,} | {s['suspicious']:,} | {s['dirty']:,} | "
            f"{100 * s['mean_ratio']:.2f}% | {100 * s['mean_idf_ratio']:.2f}% | {s['max_longest_words']} |"
        )
    rows = sorted(
        ((split, r) for split, rs in examples.items() for r in rs if r["bucket"] != "clean"),
        key=lambda item: (-BUCKETS.index(item[1]["bucket"]), -item[1]["share"], item[0], item[1]["example_id"]),
    )[:top]
    if rows:
        lines += [
            "",
            "| split | example | bucket | ratio | idf_ratio | longest | reference |",
            "| --- | --- | --- | ---: | ---: | ---: | --- |",
        ]
        for split, r in rows:
            lines.append(
                f"| {split} | {r['example_id']} | {r['bucket']} | {100 * r['share']:.1f}% | "
                f"{100 * r['idf_ratio']:.1f}% | {r['longest_words']} | {r['longest_doc'] or ''} |"
            )
    return "\n".join(lines) + "\n\n"


# ------------------------------------------------------------------------------------------ evaluate


def read_report(path: str | Path) -> tuple[list[dict[str, Any]], dict[str, Any], Path]:
    """The rows (split, example_id, share, idf_ratio, bucket) of a v2 report: an `overlap --index` folder or
    its examples.parquet; and its summary's `contamination` block."""
    import pyarrow.parquet as pq

    path = must_exist(path, "contamination report")
    examples = path / "examples.parquet" if path.is_dir() else path
    summary_path = examples.parent / "summary.json"
    must_exist(examples, "contamination report's examples.parquet")
    try:
        table = pq.read_table(examples)
    except Exception as exc:  # noqa: BLE001
        raise InputError(f"not a readable Parquet file ({exc})", path=str(examples)) from exc
    if "bucket" not in table.column_names:
        raise InputError(
            "no `bucket` column: not a contamination report (v2); write one with `lotdata overlap TEST --index IDX`",
            path=str(examples),
        )
    summary = {}
    if summary_path.exists():
        summary = json.loads(summary_path.read_text(encoding="utf-8")).get("contamination", {})
    rows = table.select(["split", "example_id", "share", "idf_ratio", "bucket"]).to_pylist()
    return rows, summary, examples


def buckets_of_gold(
    rows: list[dict[str, Any]], gold: Sequence[Mapping[str, Any]], gold_path: str, report: Path
) -> list[str]:
    """Each gold record's bucket: by `example_id` where the gold has one (our Parquet), else by row within the
    report's split of the gold file (its name, or the one split with as many examples)."""
    if gold and all("example_id" in g for g in gold):
        by_id = {r["example_id"]: r["bucket"] for r in rows}
        missing = [g["example_id"] for g in gold if g["example_id"] not in by_id]
        if missing:
            raise InputError(
                f"{len(missing)} gold example_id(s) not in the contamination report, e.g. {missing[0]!r}: "
                "the report is of another test set",
                path=str(report),
            )
        return [by_id[g["example_id"]] for g in gold]
    from lotdata.datasets.lotformat import split_of_file

    by_split: dict[str, list[str]] = {}
    for r in rows:
        by_split.setdefault(r["split"], []).append(r["bucket"])
    name = split_of_file(Path(gold_path), Path(gold_path).stem)
    candidates = [name] if name in by_split else [s for s, b in by_split.items() if len(b) == len(gold)]
    if len(candidates) != 1 or len(by_split[candidates[0]]) != len(gold):
        sizes = ", ".join(f"{s}: {len(b)}" for s, b in by_split.items())
        raise InputError(
            f"cannot match the {len(gold)} gold records (no example_id) to the report's splits ({sizes}) by row",
            path=str(report),
        )
    return by_split[candidates[0]]


def contamination_scores(
    score: Callable[[list[int]], Mapping[str, float]],
    buckets: Sequence[str],
    *,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Each metric on the clean, suspicious and dirty items (`score(item indices)`), and dirty - clean with a
    percentile bootstrap interval (scipy.stats.bootstrap, the two groups resampled apart)."""
    from scipy.stats import bootstrap

    groups = {b: [i for i, x in enumerate(buckets) if x == b] for b in BUCKETS}
    by_group = {b: (dict(score(idx)) if idx else None) for b, idx in groups.items()}
    names = list(score(list(range(len(buckets)))))
    out: dict[str, Any] = {
        "items": {b: len(idx) for b, idx in groups.items()},
        "scores": by_group,
        "confidence": confidence,
        "resamples": resamples,
        "difference": {},
    }
    clean, dirty = groups["clean"], groups["dirty"]
    if not clean or not dirty:
        out["note"] = "no difference: " + ("no clean item" if not clean else "no dirty item")
        return out

    def statistic(c: np.ndarray, d: np.ndarray) -> list[float]:
        sc, sd = score(c.astype(int).tolist()), score(d.astype(int).tolist())
        return [sd[k] - sc[k] for k in names]

    data = (np.asarray(clean, dtype=float), np.asarray(dirty, dtype=float))
    small = len(clean) < 2 or len(dirty) < 2
    interval = None
    if not small:
        result = bootstrap(
            data,
            statistic,
            n_resamples=resamples,
            confidence_level=confidence,
            method="percentile",
            vectorized=False,
            random_state=np.random.default_rng(seed),
        )
        interval = result.confidence_interval
    for i, k in enumerate(names):
        diff = by_group["dirty"][k] - by_group["clean"][k]
        low = high = math.nan
        if interval is not None:
            low, high = float(interval.low[i]), float(interval.high[i])
        out["difference"][k] = {"dirty_minus_clean": diff, "low": low, "high": high}
    if small:
        out["note"] = "no interval: a group holds fewer than 2 items"
    return out


__all__ = [
    "BUCKETS",
    "Buckets",
    "buckets_of_gold",
    "contamination_scores",
    "idf_of_counts",
    "read_report",
    "render",
    "summarise",
]
