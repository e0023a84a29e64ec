"""Token–label association: which words give the answer away without the context.

Instances are the option texts a model could read alone. ClozeT: every candidate, class `right` or
`wrong`. SenPos: every removed sentence, class = where its true gap lies (`early`, `middle`,
`late` third of the paragraph). For each token and class:

- Gardner et al. (2021): with n items containing the token and k of them in the class,
  z = (k/n - p0) / sqrt(p0 (1 - p0) / n), p0 = the class's share of all instances (1/2 for ClozeT);
  a token leaks when z exceeds the Bonferroni-corrected critical value for alpha over all
  (token, class) tests.
- Gururangan et al. (2018): PMI(token, class) = log p(token | class) / p(token) with add-`smoothing`
  counts (they used 100), counting every occurrence.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from statistics import NormalDist
from typing import Sequence

from lotdata.audit.features import FeatureCache
from lotdata.audit.items import CANDIDATES, Item

SENPOS_CLASSES = ("early", "middle", "late")


@dataclass
class Instance:
    example_id: str
    split: str
    text: str
    label: str
    lang: str


def instances(items: Sequence[Item]) -> list[Instance]:
    out = []
    for it in items:
        if it.shape == CANDIDATES:
            for o, c in enumerate(it.candidates):
                out.append(Instance(it.example_id, it.split, c, "right" if o == it.gold_option else "wrong", it.lang))
        else:
            third = min(int(3 * it.gold_option / max(it.n_options, 1)), 2)
            out.append(Instance(it.example_id, it.split, it.removed, SENPOS_CLASSES[third], it.lang))
    return out


def _is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


def association_scan(
    items: Sequence[Item],
    cache: FeatureCache,
    *,
    alpha: float = 0.01,
    min_count: int = 5,
    smoothing: float = 100.0,
    top: int = 20,
    examples: int = 3,
) -> dict:
    """The tokens whose presence predicts the label, with z, PMI and example items."""
    data = instances(items)
    if not data:
        return {"instances": 0, "tests": 0, "z_critical": None, "tokens": []}
    class_counts = Counter(x.label for x in data)
    base = {c: n / len(data) for c, n in class_counts.items()}
    present: dict[str, Counter] = defaultdict(Counter)  # token -> class -> instances containing it
    occurrences: dict[str, Counter] = defaultdict(Counter)  # token -> class -> occurrences
    where: dict[str, list[int]] = defaultdict(list)
    for i, x in enumerate(data):
        toks = [t for t in cache.tokens(x.text, x.lang) if _is_word(t)]
        for t in toks:
            occurrences[t][x.label] += 1
        for t in set(toks):
            present[t][x.label] += 1
            where[t].append(i)
    tested = [t for t, by_class in present.items() if sum(by_class.values()) >= min_count]
    tests = len(tested) * len(base)
    z_critical = NormalDist().inv_cdf(1 - alpha / max(tests, 1)) if tests else None
    class_totals = Counter()
    for by_class in occurrences.values():
        class_totals.update(by_class)
    grand = sum(class_totals.values())
    vocab = len(occurrences)
    rows = []
    for token in tested:
        n = sum(present[token].values())
        token_total = sum(occurrences[token].values())
        for label, p0 in base.items():
            if p0 in (0.0, 1.0):
                continue
            k = present[token][label]
            z = (k / n - p0) / math.sqrt(p0 * (1 - p0) / n)
            p_given_class = (occurrences[token][label] + smoothing) / (class_totals[label] + smoothing * vocab)
            p_token = (token_total + smoothing * len(base)) / (grand + smoothing * vocab * len(base))
            rows.append(
                {
                    "token": token,
                    "label": label,
                    "n": n,
                    "k": k,
                    "p_label": k / n,
                    "p0": p0,
                    "z": z,
                    "pmi": math.log(p_given_class / p_token),
                    "significant": z_critical is not None and z > z_critical,
                }
            )
    rows.sort(key=lambda r: (-r["z"], r["token"]))
    leaking = [r for r in rows if r["significant"]][:top] or rows[: min(top, 5)]
    for r in leaking:
        chosen = [data[i] for i in where[r["token"]] if data[i].label == r["label"]][:examples]
        r["examples"] = [
            {"example_id": x.example_id, "split": x.split, "text": x.text, "label": x.label} for x in chosen
        ]
    by_pmi = {}
    for label in base:
        ranked = sorted((r for r in rows if r["label"] == label), key=lambda r: (-r["pmi"], r["token"]))
        by_pmi[label] = [{"token": r["token"], "pmi": r["pmi"], "n": r["n"]} for r in ranked[:10]]
    return {
        "instances": len(data),
        "classes": dict(class_counts),
        "tested_tokens": len(tested),
        "tests": tests,
        "alpha": alpha,
        "z_critical": z_critical,
        "significant": sum(r["significant"] for r in rows),
        "tokens": leaking,
        "top_pmi": by_pmi,
    }
