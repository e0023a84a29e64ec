"""Agreement among raters, computed here (Label Studio's agreement features are Enterprise-only).

Inputs are plain (item, rater, value) triples so every job shares the same code.
"""

from __future__ import annotations

import warnings
from collections import Counter, defaultdict
from typing import Any, Callable, Hashable, Iterable, Mapping


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
            **alpha_report(items),
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


# ---------------------------------------------------------------- Krippendorff's alpha (the `krippendorff` package)

#: bootstrap resamples of the items behind alpha's 95% interval, and their seed (the interval is reproducible)
BOOTSTRAP = 1000
BOOTSTRAP_SEED = 0


def _value_counts(items: Mapping[Hashable, list[Hashable]], domain: list[Hashable]) -> Any:
    """Items x values: how many raters gave each value to each item (the package's `value_counts`)."""
    import numpy as np

    column = {value: k for k, value in enumerate(domain)}
    counts = np.zeros((len(items), len(domain)))
    for row, values in enumerate(items.values()):
        for value in values:
            counts[row, column[value]] += 1
    return counts


def _ordered(values: Iterable[Hashable]) -> list[Hashable] | None:
    """The values in their numeric order, or None when they are not all numbers (no ordinal reading)."""
    values = set(values)
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    return sorted(values)


def krippendorff_alpha(
    items: Mapping[Hashable, list[Hashable]],
    level: str = "nominal",
    *,
    bootstrap: int = BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
) -> dict[str, Any] | None:
    """Krippendorff's alpha of `items` (item -> the values its raters gave; any number of raters, an item rated once
    adds nothing, as the coefficient wants) at `level` ("nominal" or "ordinal": ordinal only for numbers), with a
    percentile 95% interval from `bootstrap` resamples of the items (seeded). None when it cannot be measured:
    fewer than two items rated twice, one value everywhere, or ordinal values that are not numbers.

    Computed by the `krippendorff` package (Castro, PyPI), which reproduces Krippendorff's published examples."""
    import krippendorff
    import numpy as np

    pairable = {item: values for item, values in items.items() if len(values) >= 2}
    domain = _ordered(v for values in pairable.values() for v in values) if level == "ordinal" else None
    if level == "nominal":
        domain = sorted({v for values in pairable.values() for v in values}, key=str)
    if len(pairable) < 2 or domain is None or len(domain) < 2:
        return None
    counts = _value_counts(pairable, domain)
    measure = lambda c: krippendorff.alpha(value_counts=c, value_domain=domain, level_of_measurement=level)  # noqa: E731
    value = float(measure(counts))
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(bootstrap):
        sample = counts[rng.integers(0, len(counts), len(counts))]
        if (sample.sum(axis=0) > 0).sum() >= 2:  # a resample with one value left has no alpha
            draws.append(float(measure(sample)))
    low, high = np.percentile(draws, [2.5, 97.5]) if draws else (None, None)
    return {
        "alpha": round(value, 4),
        "ci95": None if low is None else [round(float(low), 4), round(float(high), 4)],
        "level": level,
        "bootstrap": {"resamples": len(draws), "of": "items", "seed": seed},
        "items": len(pairable),
    }


def alpha_report(items: Mapping[Hashable, list[Hashable]], *, bootstrap: int = BOOTSTRAP) -> dict[str, Any]:
    """Nominal alpha of a question, and ordinal alpha too where its answers are numbers with three or more values."""
    report = {"krippendorff_alpha": krippendorff_alpha(items, "nominal", bootstrap=bootstrap)}
    ordered = _ordered(v for values in items.values() for v in values)
    if ordered is not None and len(ordered) >= 3:
        report["krippendorff_alpha_ordinal"] = krippendorff_alpha(items, "ordinal", bootstrap=bootstrap)
    return report


# ---------------------------------------------------------------- aggregation: majority, Dawid-Skene, MACE

AGGREGATIONS = ("majority", "dawid-skene", "mace")
#: a rater whose estimated accuracy is within this margin of chance (1 / the number of answers) is flagged
NEAR_CHANCE_MARGIN = 0.1
#: a rater with fewer rated items than this is never flagged (too little to tell)
NEAR_CHANCE_MIN_ITEMS = 5


def aggregate(
    votes: Iterable[tuple[Hashable, str, Hashable]], method: str = "majority", *, seed: int = 0
) -> dict[str, Any]:
    """Item labels and each rater's estimated accuracy from (item, rater, value) votes of one question.

    "majority": the most given value (None on a tie); "dawid-skene" (Dawid & Skene 1979) and "mace" (Hovy et al. 2013):
    the `crowd-kit` package's EM / variational models, which weigh each rater by the skill they estimate. A rater's
    accuracy is the mean, over the items she rated, of the probability the model gives her answer being the true
    one (majority: her share of answers equal to the decided label). A rater within NEAR_CHANCE_MARGIN of chance (one
    over the number of answers seen) on NEAR_CHANCE_MIN_ITEMS items or more is flagged `near_chance`."""
    if method not in AGGREGATIONS:
        raise ValueError(f"--aggregate {method!r}: one of {', '.join(AGGREGATIONS)}")
    votes = list(votes)
    by_item: dict[Hashable, list[Hashable]] = defaultdict(list)
    for item, _rater, value in votes:
        by_item[item].append(value)
    if method == "majority" or not votes:
        labels = {item: majority_vote(values) for item, values in by_item.items()}
        probability = lambda item, value: float(labels[item] == value)  # noqa: E731
    else:
        labels, probability = _crowdkit(votes, method, seed)
    categories = {value for _i, _r, value in votes}
    chance = 1 / max(len(categories), 2)
    raters: dict[str, list[float]] = defaultdict(list)
    for item, rater, value in votes:
        raters[rater].append(probability(item, value))
    accuracy = {}
    for rater, scores in sorted(raters.items()):
        estimate = sum(scores) / len(scores)
        accuracy[rater] = {
            "items": len(scores),
            "accuracy": round(estimate, 4),
            "near_chance": len(scores) >= NEAR_CHANCE_MIN_ITEMS and estimate < chance + NEAR_CHANCE_MARGIN,
        }
    return {"method": method, "chance": round(chance, 4), "labels": labels, "raters": accuracy}


def _crowdkit(votes: list[tuple[Hashable, str, Hashable]], method: str, seed: int) -> tuple[dict, Callable]:
    """Labels and P(item's true value = value) from crowd-kit's Dawid-Skene or MACE (values coded as strings)."""
    import pandas as pd
    from crowdkit.aggregation import MACE, DawidSkene

    codes = {str(value): value for _i, _r, value in votes}
    frame = pd.DataFrame(
        [(str(item), str(rater), str(value)) for item, rater, value in votes], columns=["task", "worker", "label"]
    )
    model = DawidSkene(n_iter=100) if method == "dawid-skene" else MACE(n_restarts=5, n_iter=50, random_state=seed)
    with warnings.catch_warnings():  # crowd-kit's pandas calls warn of pandas 4 deprecations, not of our data
        warnings.simplefilter("ignore")
        model.fit(frame)
    probas = model.probas_
    items = {str(item): item for item, _r, _v in votes}
    labels = {items[task]: codes[str(row.idxmax())] for task, row in probas.iterrows()}
    table = {(task, label): float(p) for task, row in probas.iterrows() for label, p in row.items()}
    return labels, lambda item, value: table.get((str(item), str(value)), 0.0)


def aggregation_report(
    votes: Iterable[tuple[Hashable, str, str, Hashable]], method: str = "majority"
) -> dict[str, Any]:
    """Per question: the aggregation's labels compared with the majority's, and each rater's estimated accuracy;
    `near_chance`: the raters flagged on any question. `votes` are (item, rater, question, value)."""
    by_question: dict[str, list[tuple[Hashable, str, Hashable]]] = defaultdict(list)
    for item, rater, question, value in votes:
        by_question[question].append((item, rater, value))
    report: dict[str, Any] = {"method": method, "questions": {}, "near_chance": []}
    flagged: set[str] = set()
    for question, triples in sorted(by_question.items()):
        found = aggregate(triples, method)
        majority = aggregate(triples, "majority")["labels"] if method != "majority" else found["labels"]
        changed = sum(found["labels"][item] != majority.get(item) for item in found["labels"])
        report["questions"][question] = {
            "items": len(found["labels"]),
            "differs_from_majority": changed,
            "chance": found["chance"],
            "raters": found["raters"],
        }
        flagged |= {rater for rater, entry in found["raters"].items() if entry["near_chance"]}
    report["near_chance"] = sorted(flagged)
    return report
