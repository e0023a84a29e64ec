"""The bias baselines of LOT Table 13 and ROCStories Table 6, plus an options-only classifier.

Every baseline follows one small estimator API: `fit(train_items)` (a no-op for the heuristics)
and `scores(items)`: one number per option of each item, higher is better. The runner picks the
best option and breaks ties at random with a seeded generator, so "random choice when no pair or
several fit" (LOT's discourse-marker rule) is the same code path as the Random baseline itself.

Each baseline is a registered record (:class:`BaselineSpec`: its name, the item shapes it is defined for,
how to build its estimator), in the order the papers list them; `audit-bias` runs and reports every
registered one. Adding a baseline = a `Baseline` subclass + `register_baseline(BaselineSpec(...))` in one
module imported before the audit runs, and `tests/test_baseline_conformance.py` passing for it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from math import log
from statistics import mean
from typing import Callable, Mapping, Sequence

from lotdata.audit.bert import BERT_BASELINES
from lotdata.audit.features import FeatureCache, sentence_bleu
from lotdata.audit.items import CANDIDATES, GAPS, Item
from lotdata.registry import Registry

Scores = list[list[float]]


class Baseline:
    name: str = ""
    learns: bool = False  # fits on the training split: scored only on the other splits
    stochastic: bool = False  # averaged over several seeded runs even without ties
    #: languages this baseline has its resource for (tokenizer, lexicon, marker list); None: any
    langs: tuple[str, ...] | None = ("zh", "en")
    resource: str = "a word tokenizer"

    def __init__(self, cache: FeatureCache) -> None:
        self.cache = cache

    def fit(self, train: Sequence[Item]) -> "Baseline":
        return self

    def scores(self, items: Sequence[Item]) -> Scores:
        raise NotImplementedError


class Random(Baseline):
    name = "random"
    langs = None
    stochastic = True

    def scores(self, items):
        return [[0.0] * it.n_options for it in items]


class Majority(Baseline):
    """The option index chosen most often in the training split."""

    name = "majority"
    learns = True
    langs = None

    def fit(self, train):
        counts = Counter(it.gold_option for it in train)
        self.option = min(counts, key=lambda o: (-counts[o], o)) if counts else 0
        return self

    def scores(self, items):
        return [[1.0 if o == self.option else 0.0 for o in range(it.n_options)] for it in items]


class ConstantFirst(Baseline):
    name = "constant_first"
    langs = None

    def scores(self, items):
        return [[1.0] + [0.0] * (it.n_options - 1) for it in items]


class Length(Baseline):
    """ClozeT: the candidate with more words. SenPos: the gap whose neighbours' mean length is closest
    to the removed sentence's."""

    name = "length"

    def scores(self, items):
        n = lambda text, lang: len(self.cache.tokens(text, lang))  # noqa: E731
        return [
            [float(n(c, it.lang)) for c in it.candidates]
            if it.shape == CANDIDATES
            else [
                -abs(mean(n(s, it.lang) for s in it.neighbours(o)) - n(it.removed, it.lang))
                for o in range(it.n_options)
            ]
            for it in items
        ]


class Bleu(Baseline):
    """ClozeT: the candidate with the higher BLEU-n against the context. SenPos: the gap whose two
    neighbours have the highest mean BLEU-n with the removed sentence (hypothesis = the sentence).
    No brevity penalty (it would make the score a length detector: short endings lose)."""

    def __init__(self, cache, n: int, name: str, smooth: str = "epsilon") -> None:
        super().__init__(cache)
        self.n, self.name, self.smooth = n, name, smooth

    def _bleu(self, hyp: str, ref: str, lang: str) -> float:
        return sentence_bleu(self.cache, hyp, ref, lang, self.n, smooth=self.smooth)

    def scores(self, items):
        out = []
        for it in items:
            if it.shape == CANDIDATES:
                context = " ".join(it.context_sentences()) if it.lang == "en" else "".join(it.context_sentences())
                out.append([self._bleu(c, context, it.lang) for c in it.candidates])
            else:
                out.append(
                    [mean(self._bleu(it.removed, s, it.lang) for s in it.neighbours(o)) for o in range(it.n_options)]
                )
        return out


class Sentiment(Baseline):
    """LOT's Sentiment. ClozeT: the candidate with the higher score. SenPos: the gap whose neighbours'
    mean score is closest to the removed sentence's."""

    name = "sentiment"
    resource = "a sentiment analyser (snownlp for zh, VADER for en)"

    def _prefill(self, items: Sequence[Item]) -> Callable[[str, str], float]:
        for lang in {it.lang for it in items}:
            self.cache.fill_sentiment((s for it in items if it.lang == lang for s in it.all_sentences()), lang)
        return self.cache.sentiment

    def scores(self, items):
        s = self._prefill(items)
        return [
            [s(c, it.lang) for c in it.candidates]
            if it.shape == CANDIDATES
            else [
                -abs(mean(s(x, it.lang) for x in it.neighbours(o)) - s(it.removed, it.lang))
                for o in range(it.n_options)
            ]
            for it in items
        ]


class _SentimentMatch(Sentiment):
    """ROCStories' sentiment baselines: the ending whose score is closest to a target from the context."""

    def target(self, item: Item, score: Callable[[str, str], float]) -> float:
        raise NotImplementedError

    def scores(self, items):
        s = self._prefill(items)
        return [[-abs(s(c, it.lang) - self.target(it, s)) for c in it.candidates] for it in items]


class SentimentFull(_SentimentMatch):
    """Target: the mean score of the context sentences."""

    name = "sentiment_full"

    def target(self, item, score):
        context = item.context_sentences()
        return mean(score(x, item.lang) for x in context) if context else 0.0


class SentimentLast(_SentimentMatch):
    """Target: the score of the last context sentence before the gap."""

    name = "sentiment_last"

    def target(self, item, score):
        return score(item.before[-1], item.lang) if item.before else 0.0


class DiscourseMarkers(Baseline):
    """An option fits when a marker pair spans it and a neighbour: the first marker in the sentence
    before and the second in the option, or the first in the option and the second in the sentence
    after. One fitting option is chosen; with none or several, a random (fitting) one."""

    name = "discourse_markers"
    resource = "a discourse-marker pair list (lotdata/data/discourse_markers_{zh,en}.tsv)"

    def scores(self, items):
        out = []
        for it in items:
            row = []
            for o in range(it.n_options):
                left, right = it.neighbours(o)
                text = it.option_text(o)
                row.append(1.0 if self._fit(left, text, it.lang) or self._fit(text, right, it.lang) else 0.0)
            out.append(row)
        return out

    def _fit(self, earlier: str, later: str, lang: str) -> bool:
        return bool(self._markers(earlier, lang)[0] & self._markers(later, lang)[1])

    @staticmethod
    @lru_cache(maxsize=1 << 18)
    def _markers(text: str, lang: str) -> tuple[frozenset[int], frozenset[int]]:
        """Indices of the pairs whose first, and whose second, marker occurs in `text` (once per sentence)."""
        pairs = marker_pairs(lang)
        return (
            frozenset(i for i, (a, _) in enumerate(pairs) if _contains(text, a, lang)),
            frozenset(i for i, (_, b) in enumerate(pairs) if _contains(text, b, lang)),
        )


@lru_cache(maxsize=None)
def marker_pairs(lang: str) -> tuple[tuple[str, str], ...]:
    """The curated marker pairs of `lang` (lotdata/data/discourse_markers_{lang}.tsv)."""
    if lang not in DiscourseMarkers.langs:
        raise ValueError(f"no discourse-marker list for language {lang!r}")
    name = f"discourse_markers_{lang}.tsv"
    text = resources.files("lotdata").joinpath("data", name).read_text(encoding="utf-8")
    pairs = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            first, second, *_ = line.split("\t")
            pairs.append((first.strip(), second.strip()))
    return tuple(pairs)


def _contains(text: str, marker: str, lang: str) -> bool:
    if lang == "en":
        return re.search(rf"\b{re.escape(marker)}\b", text, flags=re.IGNORECASE) is not None
    return marker in text


class Frequency(Baseline):
    """ROCStories' frequency baseline, with the training split's right endings standing in for web
    hit counts: the candidate whose words are more frequent there (mean add-one log probability)."""

    name = "frequency"
    learns = True

    def fit(self, train):
        self.counts = Counter(t for it in train for t in self.cache.tokens(it.candidates[it.gold_option], it.lang))
        self.total = sum(self.counts.values())
        return self

    def _logprob(self, text: str, lang: str) -> float:
        toks = self.cache.tokens(text, lang)
        vocab = len(self.counts) + 1
        return mean(log((self.counts[t] + 1) / (self.total + vocab)) for t in toks) if toks else float("-inf")

    def scores(self, items):
        return [[self._logprob(c, it.lang) for c in it.candidates] for it in items]


class EndingOnly(Baseline):
    """An options-only classifier (Schwartz et al. 2017 style) on word 1-2-grams, character 2-4-grams
    (1-3 for Chinese) and length. ClozeT: logistic regression on single candidates (right vs wrong),
    the more probable candidate wins. SenPos: ridge regression from the removed sentence alone to its
    relative position; the gap nearest the prediction wins."""

    name = "ending_only"
    learns = True

    def _vectorizer(self, lang: str):
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.pipeline import FeatureUnion, make_pipeline
        from sklearn.preprocessing import FunctionTransformer, StandardScaler

        cache = self.cache
        words = TfidfVectorizer(analyzer=lambda s: _word_ngrams(cache.tokens(s, lang)), min_df=2, sublinear_tf=True)
        chars = TfidfVectorizer(
            analyzer="char_wb" if lang == "en" else "char",
            ngram_range=(2, 4) if lang == "en" else (1, 3),
            min_df=2,
            sublinear_tf=True,
            lowercase=True,
        )
        length = make_pipeline(
            FunctionTransformer(lambda xs: [[len(cache.tokens(x, lang)), len(x)] for x in xs]), StandardScaler()
        )
        return FeatureUnion([("words", words), ("chars", chars), ("length", length)])

    def fit(self, train):
        from lotdata.errors import require

        require("sklearn", "audit")
        from sklearn.linear_model import LogisticRegression, Ridge

        self.lang = train[0].lang if train else "zh"
        self.vec = self._vectorizer(self.lang)
        if train and train[0].shape == CANDIDATES:
            texts = [c for it in train for c in it.candidates]
            y = [int(o == it.gold_option) for it in train for o in range(len(it.candidates))]
            self.model = LogisticRegression(C=1.0, solver="liblinear", random_state=0).fit(
                self.vec.fit_transform(texts), y
            )
        else:
            texts = [it.removed for it in train]
            y = [_relative(it.gold_option, it.n_options) for it in train]
            self.model = Ridge(alpha=1.0, random_state=0).fit(self.vec.fit_transform(texts), y)
        return self

    def scores(self, items):
        if not items:
            return []
        if items[0].shape == CANDIDATES:
            probs = self.model.predict_proba(self.vec.transform([c for it in items for c in it.candidates]))[:, 1]
            out, k = [], 0
            for it in items:
                out.append([float(p) for p in probs[k : k + len(it.candidates)]])
                k += len(it.candidates)
            return out
        predicted = self.model.predict(self.vec.transform([it.removed for it in items]))
        return [
            [-abs(_relative(o, it.n_options) - float(p)) for o in range(it.n_options)]
            for it, p in zip(items, predicted)
        ]


def _relative(option: int, n_options: int) -> float:
    return option / (n_options - 1) if n_options > 1 else 0.0


def _word_ngrams(tokens: list[str]) -> list[str]:
    return tokens + [f"{a} {b}" for a, b in zip(tokens, tokens[1:])]


@dataclass(frozen=True)
class BaselineSpec:
    """One audit baseline. `make(cache) -> Baseline` builds its estimator (`fit(train)`, `scores(items)`);
    `shapes`: the item shapes (a task's `choice_shape`) it is defined for. A `model` baseline (BERT) has no
    estimator here: it fine-tunes the `--model-path` checkpoint, one at a time in the caller's process.
    `description`: one line on what it picks, shown in the documentation's registry reference."""

    name: str
    make: Callable[[FeatureCache], Baseline] | None
    shapes: tuple[str, ...] = (CANDIDATES, GAPS)
    model: bool = False
    description: str = ""

    def __post_init__(self) -> None:
        if (self.make is None) != self.model:
            raise ValueError(f"baseline {self.name!r}: give `make` (an estimator) unless it is a model baseline")
        unknown = [s for s in self.shapes if s not in (CANDIDATES, GAPS)]
        if not self.shapes or unknown:
            raise ValueError(f"baseline {self.name!r}: shapes must be among {(CANDIDATES, GAPS)}, not {self.shapes}")


#: every baseline: the built-in ones (registered below, in the papers' order), then those registered later or by a
#: package's `lotdata.baselines` entry point (loaded when the registry is first read)
BASELINE_REGISTRY: Registry[BaselineSpec] = Registry("baseline", modules=("audit/baselines.py",))
ENTRY_POINT_GROUP = BASELINE_REGISTRY.group
#: every registered baseline by name, in the registry's order (a read-only view)
BASELINES: Mapping[str, BaselineSpec] = BASELINE_REGISTRY.view()


def register_baseline(spec: BaselineSpec) -> BaselineSpec:
    """Add a baseline; a name another record holds is a RegistryError."""
    return BASELINE_REGISTRY.register(spec, stacklevel=2)


def unregister_baseline(name: str) -> None:
    BASELINE_REGISTRY.unregister(name)


def get_baseline(name: str) -> BaselineSpec:
    """The record of baseline `name` (RegistryError, a ValueError, naming the known ones when there is none)."""
    return BASELINE_REGISTRY.get(name)


def baseline_names() -> list[str]:
    return BASELINE_REGISTRY.names()


def heuristic_names() -> list[str]:
    """The baselines that run without a model checkpoint."""
    return [spec.name for spec in BASELINE_REGISTRY.all() if not spec.model]


def shape_problem(spec: BaselineSpec, task: str, shape: str) -> str | None:
    """Why `spec` is not defined for items of `task` (of `shape`), or None."""
    if shape in spec.shapes:
        return None
    if spec.shapes == (CANDIDATES,):
        return f"not defined for {task} (it compares candidate endings)"
    return f"not defined for {task} (its items offer {shape}; it needs {' or '.join(spec.shapes)})"


_CANDIDATES_ONLY = (CANDIDATES,)
_BERT_DESCRIPTIONS = {
    "bert_wo_context": "LOT 5.5 BERT w/o Context: a local pretrained checkpoint (--model-path) fine-tuned on the "
    "candidates alone (SenPos: the sentence and one marker per gap)",
    "bert_wo_long": "LOT 5.5 BERT w/o Long: a local pretrained checkpoint (--model-path) fine-tuned on the sentences "
    "next to the gap and the candidates",
}
for _spec in (
    BaselineSpec("random", Random, description="a uniform random choice (seeded, averaged over --runs)"),
    BaselineSpec("majority", Majority, description="the option index chosen most often in the training split"),
    BaselineSpec("constant_first", ConstantFirst, description="always option 1 (ROCStories' constant-choose-first)"),
    BaselineSpec(
        "length",
        Length,
        description="ClozeT: the candidate with more words; SenPos: the gap whose neighbours' mean length is closest "
        "to the sentence's",
    ),
    BaselineSpec(
        "bleu1",
        lambda c: Bleu(c, 1, "bleu1"),
        description="BLEU-1 of the candidate against the context (SenPos: the sentence against the gap's "
        "neighbours), no brevity penalty",
    ),
    BaselineSpec(
        "bleu2",
        lambda c: Bleu(c, 2, "bleu2"),
        description="BLEU-2 of the candidate against the context (SenPos: the sentence against the gap's "
        "neighbours), no brevity penalty",
    ),
    BaselineSpec(
        "sentiment",
        Sentiment,
        description="the candidate with the higher sentiment score, or the gap whose neighbours' mean score is "
        "closest (snownlp for Chinese, VADER for English)",
    ),
    BaselineSpec(
        "sentiment_full",
        SentimentFull,
        _CANDIDATES_ONLY,
        description="the ending whose VADER score is closest to the context's mean (ROCStories Table 6)",
    ),
    BaselineSpec(
        "sentiment_last",
        SentimentLast,
        _CANDIDATES_ONLY,
        description="the ending whose VADER score is closest to the last context sentence's (ROCStories Table 6)",
    ),
    BaselineSpec(
        "discourse_markers",
        DiscourseMarkers,
        description="an option fits when a curated marker pair (because/so, 因为/所以) spans it and a neighbour",
    ),
    BaselineSpec(
        "frequency",
        Frequency,
        _CANDIDATES_ONLY,
        description="the ending whose words are more frequent among the training split's right endings "
        "(ROCStories used web hit counts)",
    ),
    BaselineSpec(
        "ngram_overlap",
        lambda c: Bleu(c, 4, "ngram_overlap", smooth="add1"),
        description="smoothed BLEU up to 4-grams of ending against context (Lin & Och 2004), no brevity penalty",
    ),
    BaselineSpec(
        "ending_only",
        EndingOnly,
        description="an options-only classifier (word 1-2-grams, character n-grams, length): the endings' style",
    ),
    *(BaselineSpec(name, None, model=True, description=_BERT_DESCRIPTIONS.get(name, "")) for name in BERT_BASELINES),
):
    register_baseline(_spec)


def resource_problem(baseline: Baseline, lang: str) -> str | None:
    """Why `baseline` has nothing to run on `lang` data, or None."""
    if baseline.langs is None or lang in baseline.langs:
        return None
    return f"no resource for language {lang!r}: it needs {baseline.resource}, which lotdata has for {', '.join(baseline.langs)}"
