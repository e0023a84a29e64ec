"""Linear models on character n-grams that put a model in the annotation loop (issue 39).

`QualityModel`: a story-quality classifier learnt from lotdata's own decisions: the `status` of a stories table
(a story_filter pull: accepted / rewritten are stories raters kept, rejected the ones they threw away). It scores a
story with P(kept) and proposes a threshold below which a story need not be shown to a rater: the highest threshold
at which, on out-of-fold scores of the training stories, at most `1 - keep_recall` of the kept stories fall below it.
Held-out figures (precision and recall of "below the threshold" as a rejection) come from stories the model and the
threshold never saw (a seeded split by story id).

`EndingModel`: the ending-only classifier of the Story Cloze Test audits (Schwartz et al. 2017): each ending alone
is scored right or wrong, without the story; a pair's confidence is the probability it gives the right ending of being
the right one. sct_write flags a case the model gets right with high confidence as `model_easy`.

Both are scikit-learn pipelines (TF-IDF of character n-grams + logistic regression, liblinear: one core), saved with
joblib in a folder that has a manifest.json. Loading runs pickle: load only models you or your team trained.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

# the model folder and the quality gate live below the stages (clean and crawl apply them); re-exported here
from lotdata.datasets.quality import (  # noqa: F401
    MODEL_FILE,
    QUALITY_KIND,
    QualityModel,
    load_model,
    load_quality,
    story_text,
)
from lotdata.errors import InputError, require
from lotdata.io import MANIFEST_NAME

#: story statuses that are a rater's decision, and what they mean for the classifier (1 = kept)
DECISIONS = {"accepted": 1, "kept": 1, "rewritten": 1, "rejected": 0}
ENDING_KIND = "ending-model"


#: the character n-grams of the story-quality classifier and of the ending-only model
STORY_NGRAMS = (1, 3)
ENDING_NGRAMS = (1, 4)


def vectorizer(ngrams: tuple[int, int]):
    """The models' features: TF-IDF of character n-grams within words (shared with `quality.active`)."""
    require("sklearn", "audit")
    from sklearn.feature_extraction.text import TfidfVectorizer

    return TfidfVectorizer(analyzer="char_wb", ngram_range=ngrams, min_df=2, sublinear_tf=True, lowercase=True)


def logistic(seed: int = 0, c: float = 1.0):
    """The models' classifier (shared with `quality.active`)."""
    require("sklearn", "audit")
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, solver="liblinear", class_weight="balanced", random_state=seed, max_iter=1000)


def _pipeline(ngrams: tuple[int, int], seed: int, c: float = 1.0):
    from sklearn.pipeline import make_pipeline

    return make_pipeline(vectorizer(ngrams), logistic(seed, c))


def held_out(key: str, seed: int, share: float) -> bool:
    """Whether `key` (a story id) is in the held-out share: a seeded hash, so a story never moves between runs."""
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def _fold(key: str, seed: int, folds: int) -> int:
    return int.from_bytes(hashlib.sha256(f"fold{seed}:{key}".encode()).digest()[:8], "big") % folds


# ---------------------------------------------------------------------------------------------
# story quality


def labelled_stories(rows: Iterable[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The rows whose `status` is a rater's decision (`DECISIONS`), each with its `label`; and the count per status
    of every row read (raw/clean stories carry no decision and are not learnt from)."""
    found, counts = [], {}
    for row in rows:
        status = str(row.get("status") or "")
        counts[status] = counts.get(status, 0) + 1
        if status in DECISIONS and str(row.get("text") or "").strip():
            found.append({**row, "label": DECISIONS[status]})
    return found, counts


def propose_threshold(scores: Sequence[float], labels: Sequence[int], keep_recall: float) -> float:
    """The highest threshold t such that at least `keep_recall` of the kept stories score >= t."""
    kept = sorted(s for s, y in zip(scores, labels) if y == 1)
    if not kept:
        return 0.0
    lost = int(math.floor((1 - keep_recall) * len(kept) + 1e-9))  # kept stories allowed below t
    return float(kept[lost])


def rejection_figures(scores: Sequence[float], labels: Sequence[int], threshold: float) -> dict[str, Any]:
    """`score < threshold` read as "reject": its precision and recall against the raters' rejections, the share of
    kept stories it would drop, and the share of stories a rater would no longer read."""
    below = [s < threshold for s in scores]
    tp = sum(b and y == 0 for b, y in zip(below, labels))
    predicted, rejected, kept = sum(below), sum(y == 0 for y in labels), sum(y == 1 for y in labels)
    return {
        "stories": len(labels),
        "rejected": rejected,
        "below_threshold": predicted,
        "reject_precision": tp / predicted if predicted else None,
        "reject_recall": tp / rejected if rejected else None,
        "kept_lost": (predicted - tp) / kept if kept else None,
        "share_skipped": predicted / len(labels) if labels else 0.0,
        "accuracy_at_0.5": sum((s >= 0.5) == (y == 1) for s, y in zip(scores, labels)) / len(labels)
        if labels
        else None,
    }


def train_quality(
    rows: list[dict[str, Any]],
    *,
    seed: int = 0,
    held_out_share: float = 0.2,
    keep_recall: float = 0.95,
    folds: int = 5,
    ngrams: tuple[int, int] = STORY_NGRAMS,
) -> QualityModel:
    """Fit on the decisions outside the held-out share; the threshold from out-of-fold scores of those; held-out
    precision/recall at that threshold. The saved model is the one the held-out figures describe."""
    labelled, counts = labelled_stories(rows)
    train = [r for r in labelled if not held_out(r["story_id"], seed, held_out_share)]
    test = [r for r in labelled if held_out(r["story_id"], seed, held_out_share)]
    for name, part in (("training", train), ("held-out", test)):
        if len({r["label"] for r in part}) < 2:
            raise InputError(
                f"the {name} stories need both kept (accepted/rewritten) and rejected ones; statuses read: {counts}"
            )
    oof = _out_of_fold(
        [story_text(r) for r in train], [r["label"] for r in train], [r["story_id"] for r in train], seed, folds, ngrams
    )
    threshold = propose_threshold(oof, [r["label"] for r in train], keep_recall)
    pipeline = _pipeline(ngrams, seed).fit([story_text(r) for r in train], [r["label"] for r in train])
    model = QualityModel(pipeline, threshold)
    test_scores = model.score([story_text(r) for r in test])
    model.info = {
        "kind": QUALITY_KIND,
        "features": f"TF-IDF of character {ngrams[0]}-{ngrams[1]}-grams (within words), logistic regression",
        "labels": {"1": "accepted or rewritten (a rater kept it)", "0": "rejected"},
        "statuses_read": counts,
        "train_stories": len(train),
        "held_out_stories": len(test),
        "keep_recall_target": keep_recall,
        "threshold_rule": f"highest score below which at most {1 - keep_recall:.0%} of the kept training stories "
        f"fall ({folds}-fold out-of-fold scores)",
        "out_of_fold": rejection_figures(oof, [r["label"] for r in train], threshold),
        "held_out": rejection_figures(test_scores, [r["label"] for r in test], threshold),
        "seed": seed,
    }
    return model


def _out_of_fold(
    texts: list[str], labels: list[int], keys: list[str], seed: int, folds: int, ngrams: tuple[int, int]
) -> list[float]:
    """Each text's score from a model fitted on the folds (by `keys`: versions of one story together) without it."""
    fold_of = [_fold(k, seed, folds) for k in keys]
    scores = [0.0] * len(texts)
    for f in range(folds):
        fit = [i for i in range(len(texts)) if fold_of[i] != f]
        score = [i for i in range(len(texts)) if fold_of[i] == f]
        if not score or len({labels[i] for i in fit}) < 2:
            continue
        pipe = _pipeline(ngrams, seed).fit([texts[i] for i in fit], [labels[i] for i in fit])
        col = list(pipe.classes_).index(1)
        for i, p in zip(score, pipe.predict_proba([texts[i] for i in score])):
            scores[i] = float(p[col])
    return scores


# ---------------------------------------------------------------------------------------------
# ending-only model (sct_write's model_easy flag)


@dataclass
class EndingModel:
    """Scores an ending without its story; `confidence(right, wrong)`: P(the right ending is the right one)."""

    pipeline: Any
    info: dict[str, Any] = field(default_factory=dict)

    def _margins(self, endings: Sequence[str]) -> list[float]:
        return [float(d) for d in self.pipeline.decision_function(list(endings))]

    def confidence(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """For each (right, wrong) pair, sigmoid(margin(right) - margin(wrong)): above 0.5 the model picks the right
        ending without reading the story."""
        if not pairs:
            return []
        margins = self._margins([e for pair in pairs for e in pair])
        return [1 / (1 + math.exp(-(margins[2 * i] - margins[2 * i + 1]))) for i in range(len(pairs))]

    def save(self, folder: Path) -> None:
        import joblib

        folder.mkdir(parents=True, exist_ok=True)
        joblib.dump(self.pipeline, folder / MODEL_FILE)
        (folder / MANIFEST_NAME).write_text(json.dumps(self.info, ensure_ascii=False, indent=2) + "\n", "utf-8")


def train_ending(
    pairs: Sequence[tuple[str, str]], *, seed: int = 0, ngrams: tuple[int, int] = ENDING_NGRAMS
) -> EndingModel:
    """Fit on (right, wrong) ending pairs: each right ending a positive, each wrong one a negative."""
    if not pairs:
        raise InputError("no (right, wrong) ending pair to learn from")
    texts = [e for pair in pairs for e in pair]
    labels = [1, 0] * len(pairs)
    pipeline = _pipeline(ngrams, seed).fit(texts, labels)
    info = {
        "kind": ENDING_KIND,
        "features": f"TF-IDF of character {ngrams[0]}-{ngrams[1]}-grams of the ending alone, logistic regression",
        "pairs": len(pairs),
        "seed": seed,
    }
    return EndingModel(pipeline, info)


def load_ending(folder: str | Path) -> EndingModel:
    pipeline, info = load_model(folder, ENDING_KIND)
    return EndingModel(pipeline, info)


def cross_confidence(
    pairs: Sequence[tuple[str, str]], keys: Sequence[str], *, folds: int = 10, seed: int = 0
) -> list[float]:
    """Each pair's confidence from a model trained on the folds that exclude it (folds by `keys`, seeded)."""
    fold_of = [_fold(k, seed, folds) for k in keys]
    out = [0.5] * len(pairs)
    for f in range(folds):
        fit = [pairs[i] for i in range(len(pairs)) if fold_of[i] != f]
        score = [i for i in range(len(pairs)) if fold_of[i] == f]
        if not score or not fit:
            continue
        model = train_ending(fit, seed=seed)
        for i, c in zip(score, model.confidence([pairs[i] for i in score])):
            out[i] = c
    return out
