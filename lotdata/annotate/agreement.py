"""Agreement among raters, computed here (Label Studio's agreement features are Enterprise-only).

Inputs are plain (item, rater, value) triples so every job shares the same code.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Hashable, Iterable, Mapping


def majority_vote(values: Iterable[Hashable]) -> Hashable | None:
    """The value most raters gave; None on a tie for first place or no votes."""
    counts = Counter(values).most_common()
    if not counts or (len(counts) > 1 and counts[0][1] == counts[1][1]):
        return None
    return counts[0][0]


def fleiss_kappa(ratings: Mapping[Hashable, list[Hashable]]) -> float | None:
    """Fleiss' kappa over items rated by two or more raters (rater counts may differ between items).

    Each item's observed agreement P_i = sum_j n_ij (n_ij - 1) / (n_i (n_i - 1)); the chance
    agreement uses the pooled category shares. None when there is nothing to measure.
    """
    items = [Counter(v) for v in ratings.values() if len(v) >= 2]
    if not items:
        return None
    total = sum(sum(c.values()) for c in items)
    shares = Counter()
    for counts in items:
        shares.update(counts)
    p_expected = sum((n / total) ** 2 for n in shares.values())
    p_observed = sum(
        sum(n * (n - 1) for n in counts.values()) / (sum(counts.values()) * (sum(counts.values()) - 1))
        for counts in items
    ) / len(items)
    if p_expected >= 1.0:  # every rater gave the same single category everywhere
        return 1.0 if p_observed >= 1.0 else None
    return (p_observed - p_expected) / (1 - p_expected)


def question_agreement(votes: Iterable[tuple[Hashable, str, str, Hashable]]) -> dict[str, dict[str, Any]]:
    """Per question: items, items with a majority, Fleiss' kappa. `votes` are (item, rater, question, value)."""
    by_question: dict[str, dict[Hashable, list[Hashable]]] = defaultdict(lambda: defaultdict(list))
    for item, _rater, question, value in votes:
        by_question[question][item].append(value)
    report = {}
    for question, items in sorted(by_question.items()):
        decided = sum(majority_vote(v) is not None for v in items.values())
        kappa = fleiss_kappa(items)
        report[question] = {
            "items": len(items),
            "multi_rated": sum(len(v) >= 2 for v in items.values()),
            "majority": decided,
            "fleiss_kappa": None if kappa is None else round(kappa, 4),
        }
    return report


def annotator_stats(
    annotations: Iterable[Mapping[str, Any]], votes: Iterable[tuple[Hashable, str, str, Hashable]]
) -> dict[str, dict[str, Any]]:
    """Per annotator: annotations, skipped, quarantined, median seconds, share of answers equal to the majority."""
    votes = list(votes)
    by_item_question: dict[tuple, list[Hashable]] = defaultdict(list)
    for item, _rater, question, value in votes:
        by_item_question[(item, question)].append(value)
    stats: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"annotations": 0, "skipped": 0, "quarantined": 0, "lead_times": []}
    )
    for row in annotations:
        entry = stats[row["annotator"]]
        entry["annotations"] += 1
        entry["skipped"] += bool(row.get("was_cancelled"))
        entry["quarantined"] += bool(row.get("quarantined"))
        if row.get("lead_time") is not None:
            entry["lead_times"].append(row["lead_time"])
    agree: dict[str, list[bool]] = defaultdict(list)
    for item, rater, question, value in votes:
        others = by_item_question[(item, question)]
        if len(others) >= 2:
            agree[rater].append(majority_vote(others) == value)
    report = {}
    for name, entry in sorted(stats.items()):
        times = sorted(entry.pop("lead_times"))
        entry["median_seconds"] = round(times[len(times) // 2], 2) if times else None
        answers = agree.get(name, [])
        entry["agrees_with_majority"] = round(sum(answers) / len(answers), 4) if answers else None
        report[name] = entry
    return report
