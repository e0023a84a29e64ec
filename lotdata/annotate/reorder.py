"""The shuffling experiment of ROCStories §3.3 (Table 3): raters put a story's shuffled sentences back in order.

An ordering is the list of the original positions (0-based) of the sentences a rater put first, second, ...;
the original order is `[0, 1, ..., n-1]`. Table 3's measures over a set of stories, K orderings each:

- `majority_perfect`: share of stories whose majority ordering (given by more than half of its raters) is the
  original one;
- `each_perfect`: share of all orderings that are the original one;
- `at_most_one_misplaced`: share of orderings that one move of one sentence turns into the original (the longest
  run of sentences in their original relative order leaves out at most one);
- `position_correct`: per position 1..n, share of orderings with the right sentence there;

plus Kendall's tau between each ordering and the original (scipy), and the stories people could not order
(no majority for the original order).
"""

from __future__ import annotations

import bisect
import random
from collections import Counter
from typing import Any, Mapping, Sequence


def seeded_order(uid: str, n: int, seed: int) -> list[int]:
    """The order a story's sentences are shown in: a seeded shuffle that is never the original order (n > 1)."""
    rng = random.Random(f"{seed}:{uid}")
    order = list(range(n))
    while n > 1 and order == list(range(n)):
        rng.shuffle(order)
    return order


def longest_in_order(ordering: Sequence[int]) -> int:
    """Length of the longest increasing subsequence: the sentences already in their original relative order."""
    tails: list[int] = []
    for value in ordering:
        at = bisect.bisect_left(tails, value)
        tails[at : at + 1] = [value]
    return len(tails)


def kendall_tau(ordering: Sequence[int]) -> float:
    from scipy.stats import kendalltau

    if len(ordering) < 2:
        return 1.0
    return round(float(kendalltau(list(ordering), list(range(len(ordering)))).statistic), 6)


def majority_ordering(orderings: Sequence[Sequence[int]]) -> tuple[int, ...] | None:
    """The ordering more than half of the raters gave, or None."""
    if not orderings:
        return None
    top, votes = Counter(tuple(o) for o in orderings).most_common(1)[0]
    return top if votes * 2 > len(orderings) else None


def table3(orderings: Mapping[str, Sequence[Sequence[int]]]) -> dict[str, Any]:
    """Table 3's measures over {story id: its raters' orderings}; also Kendall's tau per ordering and the flags."""
    every = [(uid, list(o)) for uid, found in orderings.items() for o in found]
    if not every:
        return {"stories": 0, "orderings": 0}
    n = max(len(o) for _, o in every)
    stories = len(orderings)
    majority_ok = [uid for uid, found in orderings.items() if majority_ordering(found) == tuple(range(len(found[0])))]
    perfect = sum(o == list(range(len(o))) for _, o in every)
    one_move = sum(longest_in_order(o) >= len(o) - 1 for _, o in every)
    position = {str(p + 1): _share(sum(len(o) > p and o[p] == p for _, o in every), len(every)) for p in range(n)}
    taus = [{"id": uid, "ordering": o, "kendall_tau": round(kendall_tau(o), 4)} for uid, o in every]
    unorderable = sorted(set(orderings) - set(majority_ok))
    return {
        "stories": stories,
        "orderings": len(every),
        "majority_perfect": _share(len(majority_ok), stories),
        "each_perfect": _share(perfect, len(every)),
        "at_most_one_misplaced": _share(one_move, len(every)),
        "position_correct": position,
        "mean_kendall_tau": round(sum(t["kendall_tau"] for t in taus) / len(taus), 4),
        "unorderable": unorderable,
        "per_ordering": taus,
    }


def _share(k: int, n: int) -> float:
    return round(k / n, 4) if n else 0.0
