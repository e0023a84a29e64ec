"""A simulated crowd for the aggregation checks and benchmark: raters of known skill, one answering at random."""

from __future__ import annotations

import random

#: each rater's chance of giving the true answer; None answers at random
SKILL = {"r1": 0.9, "r2": 0.85, "r3": 0.8, "r4": 0.75, "r5": 0.7, "r6": 0.65, "random": None}


def simulated_crowd(
    seed: int = 0, items: int = 400, per_item: int = 3
) -> tuple[dict[int, str], list[tuple[int, str, str]]]:
    """A binary question: six raters of accuracy 0.9 .. 0.65 and one who answers at random; `per_item` of the seven
    (drawn per item) rate each item. Returns the truth and the (item, rater, value) votes."""
    rng = random.Random(seed)
    truth = {i: rng.choice("ab") for i in range(items)}
    votes = []
    for item in range(items):
        for rater in rng.sample(sorted(SKILL), per_item):
            right = SKILL[rater] is not None and rng.random() < SKILL[rater]
            value = truth[item] if right else ({"a": "b", "b": "a"}[truth[item]] if SKILL[rater] else rng.choice("ab"))
            votes.append((item, rater, value))
    return truth, votes
