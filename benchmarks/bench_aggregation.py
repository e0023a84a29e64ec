"""Aggregating a simulated crowd (`annotate pull --aggregate`): label accuracy of majority, Dawid-Skene and MACE,
and the random rater's estimated accuracy, with 3 and 5 raters per item; the time of Krippendorff's alpha with its
bootstrap interval on 10,000 items.

    python benchmarks/bench_aggregation.py --out bench/aggregation.md
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lotdata.annotate.agreement import aggregate, krippendorff_alpha  # noqa: E402
from lotdata.testing.crowd import simulated_crowd  # noqa: E402

METHODS = ("majority", "dawid-skene", "mace")


def crowd_rows(seed: int, items: int) -> list[str]:
    rows = []
    for per_item in (3, 5):
        truth, votes = simulated_crowd(seed=seed, items=items, per_item=per_item)
        cells = []
        for method in METHODS:
            result = aggregate(votes, method)
            cells.append(f"{sum(result['labels'][i] == t for i, t in truth.items()) / len(truth):.3f}")
        ds = aggregate(votes, "dawid-skene")["raters"]
        flagged = ", ".join(r for r, e in ds.items() if e["near_chance"]) or "none"
        rows.append(f"| {per_item} | {' | '.join(cells)} | {ds['random']['accuracy']:.3f} | {flagged} |")
    return rows


def alpha_seconds(items: int) -> str:
    rng = random.Random(1)
    ratings = {i: [rng.choice([0, 1, 1, 1]) for _ in range(3)] for i in range(items)}
    started = time.perf_counter()
    alpha = krippendorff_alpha(ratings)
    return f"alpha {alpha['alpha']:.3f}, 95% interval {alpha['ci95']}, {time.perf_counter() - started:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/aggregation.md")
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    lines = [
        "# Aggregating a simulated crowd",
        "",
        f"{args.items} binary items, seed {args.seed}; seven raters (accuracy 0.9 .. 0.65 and one at random), "
        "`per_item` of them drawn per item (`lotdata.testing.crowd`).",
        "",
        "| raters per item | majority | Dawid-Skene | MACE | random rater's accuracy (DS) | near chance (DS) |",
        "| --- | --- | --- | --- | --- | --- |",
        *crowd_rows(args.seed, args.items),
        "",
        f"Krippendorff's alpha on 10,000 items by 3 raters: {alpha_seconds(10_000)}.",
        "",
    ]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
