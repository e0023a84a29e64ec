"""Confidence intervals and the plain-language verdict on a baseline's accuracy."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson_interval(accuracy: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion observed as `accuracy` over `n` trials."""
    if n == 0:
        return 0.0, 1.0
    centre = (accuracy + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(accuracy * (1 - accuracy) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # min/max: at accuracy 0 or 1 rounding would otherwise leave the estimate a hair outside its interval
    return max(0.0, min(centre - half, accuracy)), min(1.0, max(centre + half, accuracy))


#: a baseline this many points above chance, with its interval clear of chance, leaks
LEAK_MARGIN = 0.02


def verdict(accuracy: float, ci_low: float, ci_high: float, chance: float) -> str:
    """'leaks', 'below chance' or 'near chance'."""
    if ci_low > chance and accuracy - chance >= LEAK_MARGIN:
        return "leaks"
    if ci_high < chance and chance - accuracy >= LEAK_MARGIN:
        return "below chance"
    return "near chance"


VERDICT_TEXT = {
    "near chance": "near chance: this cue alone does not give the answer away",
    "leaks": "leaks: this cue alone beats chance, so a model can score without the skill the task tests",
    "below chance": "below chance: the cue points away from the answer (a reverse bias a model can learn too)",
}
