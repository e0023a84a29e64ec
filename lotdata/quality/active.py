"""Does uncertainty order pay? (issue 39, item 4): a simulated annotation loop on labelled data, the labels hidden until
an item is "annotated", uncertainty order beside random order.

`learning_curve`: start from one random batch; each round ("pull") the model is refitted on the labelled items and
scored on a held-out set it never draws from, then `batch` more items are labelled: the ones the model is least sure
of (uncertainty order, what `annotate push story_filter --model --order uncertainty` makes Label Studio serve) or the
next ones of a seeded shuffle (random order). A model's vocabulary is fitted once on the pool's texts (no labels).

`pull_report`: that comparison on a story_filter pull's own decisions (the texts the raters read, kept or rejected),
written to `pull.json` (`active_learning`) when the job was pushed with `--order uncertainty`.
`benchmarks/bench_active_learning.py` runs the same loop on the Story Cloze Test.
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable, Sequence

from lotdata.quality.model import ENDING_NGRAMS, STORY_NGRAMS, held_out, logistic, vectorizer

ORDERS = ("random", "uncertainty")
#: the fewest final decisions a pull compares the orders on (below it the held-out part is too small to read)
MIN_ITEMS = 40
#: the share of a pull's decisions held out (a seeded hash of the story id, as `lotdata quality train` does)
HELD_OUT_SHARE = 0.25


class StoryModel:
    """The story-quality classifier's model (`quality.model`'s features and classifier): P(kept) of a text;
    uncertainty = |P - 0.5|."""

    def __init__(self, pool: Sequence[str]):
        self.vec = vectorizer(STORY_NGRAMS)
        self.vec.fit(pool)

    def fit(self, texts: Sequence[str], labels: Sequence[int]) -> "StoryModel":
        self.lr = logistic()
        self.lr.fit(self.vec.transform(texts), labels)
        return self

    def accuracy(self, texts: Sequence[str], labels: Sequence[int]) -> float:
        return float((self.lr.predict(self.vec.transform(texts)) == list(labels)).mean())

    def uncertainty(self, texts: Sequence[str]) -> list[float]:
        return [abs(p - 0.5) for p in self.lr.predict_proba(self.vec.transform(texts))[:, 1]]


class PairModel:
    """The ending-only model (`quality.model`'s features and classifier): each ending scored alone; P(ending 1 is the
    right one) of a pair."""

    def __init__(self, pool: Sequence[tuple[str, str]]):
        self.vec = vectorizer(ENDING_NGRAMS)
        self.vec.fit([e for pair in pool for e in pair])

    def fit(self, pairs: Sequence[tuple[str, str]], labels: Sequence[int]) -> "PairModel":
        y = [int(k == lab) for lab in labels for k in (0, 1)]
        self.lr = logistic()
        self.lr.fit(self.vec.transform([e for p in pairs for e in p]), y)
        return self

    def p_second(self, pairs: Sequence[tuple[str, str]]):
        import numpy as np

        d = self.lr.decision_function(self.vec.transform([e for p in pairs for e in p]))
        return 1 / (1 + np.exp(-(d[1::2] - d[0::2])))

    def accuracy(self, pairs: Sequence[tuple[str, str]], labels: Sequence[int]) -> float:
        p = self.p_second(pairs)
        return float(sum((pi > 0.5) == (lab == 1) for pi, lab in zip(p, labels)) / len(labels))

    def uncertainty(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [abs(p - 0.5) for p in self.p_second(pairs)]


Split = tuple[Sequence[Any], Sequence[int]]


def learning_curve(
    make: Callable[[Sequence[Any]], Any], pool: Split, test: Split, *, order: str, batch: int, rounds: int, seed: int
) -> list[tuple[int, float | None]]:
    """(labelled items, held-out accuracy) after each pull; None where the labelled items hold one class only.
    `make(pool texts)` builds a model with `fit`, `accuracy` and `uncertainty` (lower = less sure)."""
    if order not in ORDERS:
        raise ValueError(f"order {order!r}: one of {', '.join(ORDERS)}")
    pool_x, pool_y = pool
    rng = random.Random(seed)
    model = make(pool_x)
    left = list(range(len(pool_x)))
    rng.shuffle(left)
    labelled, left = left[:batch], left[batch:]
    curve: list[tuple[int, float | None]] = []
    for _ in range(rounds):
        fitted = len({pool_y[i] for i in labelled}) > 1
        if fitted:
            model.fit([pool_x[i] for i in labelled], [pool_y[i] for i in labelled])
        curve.append((len(labelled), model.accuracy(*test) if fitted else None))
        if not left:
            break
        if order == "uncertainty" and fitted:
            u = model.uncertainty([pool_x[i] for i in left])
            left = [i for _, i in sorted(zip(u, left))]
        labelled, left = labelled + left[:batch], left[batch:]
    return curve


def compare(
    make: Callable[[Sequence[Any]], Any], pool: Split, test: Split, *, batch: int, rounds: int, seeds: int
) -> dict[str, list[list[tuple[int, float | None]]]]:
    """Order -> one curve per seed (seeds 0 .. seeds-1), random and uncertainty order on the same start."""
    return {
        order: [learning_curve(make, pool, test, order=order, batch=batch, rounds=rounds, seed=s) for s in range(seeds)]
        for order in ORDERS
    }


def _mean(values: Iterable[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return round(sum(found) / len(found), 4) if found else None


def pull_decisions(rows: Iterable[dict[str, Any]]) -> list[tuple[str, str, int]]:
    """(story id, the text the raters read, 1 kept / 0 rejected) of each story's final decision (story_filter's
    `story_decisions` rows: `final`, `decision`, `old_text`); a rewrite counts as kept, as `lotdata quality train`
    reads it."""
    return [
        (str(r["story_id"]), str(r["old_text"]), int(r["decision"] != "reject"))
        for r in rows
        if r.get("final") and r.get("decision") in ("accept", "rewrite", "reject") and str(r.get("old_text") or "")
    ]


def pull_report(
    rows: Iterable[dict[str, Any]], *, min_items: int = MIN_ITEMS, seeds: int = 3, rounds: int = 8
) -> dict[str, Any]:
    """`pull.json`'s `active_learning`: on the pull's final decisions, the held-out accuracy per labelled count in
    uncertainty and random order (mean over `seeds`), or why it was skipped (fewer than `min_items` decisions, or one
    class only). `summary` is the one line the command prints."""
    items = pull_decisions(rows)
    report: dict[str, Any] = {"decisions": len(items), "min_items": min_items}
    test = [(t, y) for key, t, y in items if held_out(key, 0, HELD_OUT_SHARE)]
    pool = [(t, y) for key, t, y in items if not held_out(key, 0, HELD_OUT_SHARE)]
    why = None
    if len(items) < min_items:
        why = f"{len(items)} final decision(s), fewer than {min_items}: too few to compare the orders"
    elif len({y for _, y in pool}) < 2 or len({y for _, y in test}) < 2:
        why = "the raters' decisions are all one class (kept or rejected): nothing to learn"
    if why is not None:
        return {**report, "skipped": why, "summary": f"active learning: skipped ({why})"}
    batch = max(2, -(-len(pool) // rounds))
    curves = compare(StoryModel, tuple(zip(*pool)), tuple(zip(*test)), batch=batch, rounds=rounds, seeds=seeds)
    points = [
        {"labelled": n, **{order: _mean(c[k][1] for c in curves[order]) for order in ORDERS}}
        for k, (n, _) in enumerate(curves["random"][0])
    ]
    # the last point labels the whole pool in both orders (the same items): the orders are compared halfway
    half, last = points[(len(points) - 1) // 2], points[-1]
    shown = {o: "n/a" if half[o] is None else f"{100 * half[o]:.1f}%" for o in ORDERS}
    every = "n/a" if last["random"] is None else f"{100 * last['random']:.1f}%"
    return {
        **report,
        "held_out": len(test),
        "batch": batch,
        "seeds": seeds,
        "compared_at": half["labelled"],
        "points": points,
        "summary": f"active learning: uncertainty order reached {shown['uncertainty']} with {half['labelled']} items;"
        f" random order {shown['random']} (held-out accuracy on {len(test)} of this pull's decisions, mean of"
        f" {seeds} seeds; both orders {every} with all {last['labelled']})",
    }
