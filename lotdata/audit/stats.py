"""The test behind every verdict: exact binomial tests against chance, Holm over the report, effect in points.

A baseline's accuracy on a split is k right out of n items. Under "the cue gives nothing away" each
item is right with probability 1/k_i (its number of options), so k follows a Poisson-binomial law;
with one option count throughout (ClozeT: 2) that is the binomial law and the test is
`scipy.stats.binomtest`. The two-sided p-value sums the probabilities of every outcome no more
likely than the one observed (the "minlike" rule binomtest uses), so it is exact for both laws.
The p-values of one report are Holm-corrected together (statsmodels `multipletests`).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from lotdata.errors import require

#: the optional modules every audit needs (verdicts: binomial test, Holm), checked first
AUDIT_NEEDS = (("scipy.stats", "audit"), ("statsmodels.stats.multitest", "audit"))

Z95 = 1.959963984540054
ALPHA = 0.05
#: a significant baseline at least this many points above chance "leaks" (`--min-effect`)
MIN_EFFECT_POINTS = 3.0
VERDICTS = ("leaks", "weak signal", "near chance", "below chance")

#: relative tolerance when comparing outcome probabilities, as scipy's binomtest uses
_RERR = 1 + 1e-7


def wilson_interval(accuracy: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion observed as `accuracy` over `n` trials."""
    if n == 0:
        return 0.0, 1.0
    centre = (accuracy + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(accuracy * (1 - accuracy) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # min/max: at accuracy 0 or 1 rounding would otherwise leave the estimate a hair outside its interval
    return max(0.0, min(centre - half, accuracy)), min(1.0, max(centre + half, accuracy))


def poisson_binomial_pmf(probabilities: Sequence[float]) -> np.ndarray:
    """P(K = k), k = 0..n, for K a sum of independent Bernoulli(p_i): binomials of equal p convolved."""
    binom = require("scipy.stats", "audit").binom
    pmf = np.ones(1)
    for p, m in sorted(Counter(float(p) for p in probabilities).items()):
        pmf = np.convolve(pmf, binom.pmf(np.arange(m + 1), m, p))
    return pmf


def chance_test(correct: int, chances: Sequence[float]) -> float:
    """Two-sided exact p-value of `correct` right answers when item i is right with probability chances[i]."""
    n = len(chances)
    if n == 0:
        return 1.0
    if not 0 <= correct <= n:
        raise ValueError(f"{correct} right answers out of {n} items")
    if len(set(float(c) for c in chances)) == 1:
        binomtest = require("scipy.stats", "audit").binomtest

        return float(binomtest(correct, n, float(chances[0]), alternative="two-sided").pvalue)
    pmf = poisson_binomial_pmf(chances)
    observed = pmf[correct]
    return float(min(1.0, pmf[pmf <= observed * _RERR].sum()))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values (family = the given tests)."""
    if not p_values:
        return []
    multipletests = require("statsmodels.stats.multitest", "audit").multipletests

    return [float(p) for p in multipletests(list(p_values), alpha=ALPHA, method="holm")[1]]


def verdict(
    accuracy: float, chance: float, p_holm: float, min_effect: float = MIN_EFFECT_POINTS, alpha: float = ALPHA
) -> str:
    """'leaks' (significant and at least `min_effect` points above chance), 'weak signal' (significant,
    smaller), 'below chance' (significant, under chance) or 'near chance' (not significant)."""
    effect = 100 * (accuracy - chance)
    if p_holm >= alpha:
        return "near chance"
    if effect < 0:
        return "below chance"
    return "leaks" if effect >= min_effect else "weak signal"


def add_verdicts(records: list[dict], min_effect: float = MIN_EFFECT_POINTS) -> None:
    """Fill `effect_points`, `p_holm` and `verdict` of scored records (each with `accuracy`, `chance`, `p_value`)."""
    adjusted = holm([r["p_value"] for r in records])
    for record, p in zip(records, adjusted):
        record["effect_points"] = round(100 * (record["accuracy"] - record["chance"]), 1)
        record["p_holm"] = p
        record["verdict"] = verdict(record["accuracy"], record["chance"], p, min_effect)


TEST_TEXT = (
    "Each accuracy is tested against its chance rate with an exact two-sided test (binomial with p = 1/2 for "
    "two candidates; Poisson-binomial with the per-item 1/k for SenPos), the p-values of all scored records of "
    "this report Holm-corrected together; verdicts at corrected p < {alpha} with the effect in points: leaks "
    "(≥ {min_effect:g} points above chance), weak signal (above, smaller), below chance, near chance (not significant)."
)

VERDICT_TEXT = {
    "near chance": "near chance: no significant difference from chance, so this cue alone does not give the answer away",
    "weak signal": "weak signal: significantly above chance but by less than the minimum effect",
    "leaks": "leaks: this cue alone beats chance, so a model can score without the skill the task tests",
    "below chance": "below chance: the cue points away from the answer (a reverse bias a model can learn too)",
    "skipped": "skipped: no verdict",
}
