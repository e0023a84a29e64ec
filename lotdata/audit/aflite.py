"""AFLite-style adversarial filtering (Le Bras et al. 2020; Sakaguchi et al. 2020, WinoGrande).

Items are represented by the options-only features of the `ending_only` baseline (computed once).
Each round trains `partitions` linear models on random halves and scores every item by how often
the models that did not see it got it right (its predictability); the `k` most predictable items
at or above `threshold` are removed. Rounds stop when fewer than `k` items qualify, or after
`max_rounds`. A maintainer can drop the listed ids to keep the items shallow features cannot solve.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from lotdata.audit.baselines import EndingOnly, _relative
from lotdata.audit.features import FeatureCache
from lotdata.audit.items import CANDIDATES, Item


def _rows(items: Sequence[Item]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Option texts and, per text, the item it belongs to and which of its options it is."""
    texts, owner, option = [], [], []
    for i, it in enumerate(items):
        for o, text in enumerate(it.candidates if it.shape == CANDIDATES else [it.removed]):
            texts.append(text)
            owner.append(i)
            option.append(o)
    return texts, np.asarray(owner), np.asarray(option)


def _held_out_correct(
    items, X, owner, option, train_items: np.ndarray, test_items: np.ndarray, seed: int
) -> np.ndarray:
    """For each test item, whether a model fitted on the train items' option texts alone gets it right."""
    from sklearn.linear_model import LogisticRegression, Ridge

    train_rows = np.flatnonzero(np.isin(owner, train_items))
    test_rows = np.flatnonzero(np.isin(owner, test_items))
    if items[0].shape == CANDIDATES:
        y = np.array([int(option[r] == items[owner[r]].gold_option) for r in train_rows])
        model = LogisticRegression(solver="liblinear", random_state=seed).fit(X[train_rows], y)
        probs = model.predict_proba(X[test_rows])[:, 1]
        best: dict[int, tuple[float, int]] = {}
        for r, p in zip(test_rows, probs):
            i = owner[r]
            if i not in best or p > best[i][0]:
                best[i] = (p, option[r])
        return np.array([best[i][1] == items[i].gold_option for i in test_items])
    y = np.array([_relative(items[owner[r]].gold_option, items[owner[r]].n_options) for r in train_rows])
    model = Ridge(alpha=1.0).fit(X[train_rows], y)
    predicted = model.predict(X[test_rows])
    out = []
    for i, p in zip(test_items, predicted):
        it = items[i]
        option = min(range(it.n_options), key=lambda o: abs(_relative(o, it.n_options) - p))
        out.append(option == it.gold_option)
    return np.array(out)


def aflite_filter(
    items: Sequence[Item],
    cache: FeatureCache,
    *,
    seed: int = 0,
    partitions: int = 8,
    train_fraction: float = 0.5,
    threshold: float = 0.75,
    k_fraction: float = 0.05,
    max_rounds: int = 5,
) -> dict[str, Any]:
    items = list(items)
    if len(items) < 20:
        return {
            "items": len(items),
            "removed": 0,
            "removed_ids": [],
            "rounds": 0,
            "partitions": partitions,
            "threshold": threshold,
            "accuracy_before": 0.0,
            "accuracy_after": 0.0,
        }
    texts, owner, option = _rows(items)
    X = EndingOnly(cache)._vectorizer(items[0].lang).fit_transform(texts).tocsr()
    rng = np.random.default_rng(seed)
    alive = np.arange(len(items))
    k = max(1, int(k_fraction * len(items)))
    removed: list[int] = []
    accuracies: list[float] = []
    rounds = 0
    for rounds in range(1, max_rounds + 2):
        right = np.zeros(len(items))
        seen = np.zeros(len(items))
        for _ in range(partitions):
            shuffled = rng.permutation(alive)
            cut = int(train_fraction * len(shuffled))
            train, test = np.sort(shuffled[:cut]), np.sort(shuffled[cut:])
            correct = _held_out_correct(items, X, owner, option, train, test, seed)
            right[test] += correct
            seen[test] += 1
        score = np.divide(right, seen, out=np.zeros_like(right), where=seen > 0)
        accuracies.append(float(right[alive].sum() / max(seen[alive].sum(), 1)))
        candidates = [i for i in alive[np.argsort(-score[alive], kind="stable")] if score[i] >= threshold][:k]
        if rounds > max_rounds or len(candidates) < k:
            break
        removed.extend(int(i) for i in candidates)
        alive = np.setdiff1d(alive, candidates)
    return {
        "items": len(items),
        "removed": len(removed),
        "removed_ids": [items[i].example_id for i in removed],
        "rounds": rounds - 1,
        "partitions": partitions,
        "threshold": threshold,
        "accuracy_before": accuracies[0],
        "accuracy_after": accuracies[-1],
    }
