"""Per-sentence features the baselines share, each computed once per unique sentence.

Sentiment is the slow one (snownlp scores ~240 Chinese sentences/s): the cache holds one score per
unique sentence. The audit fills it before the baselines run, in shards on the executor
(`lotdata.audit.work`); a sentence still missing is scored in the process that asks for it. English
sentences are scored with VADER, a lexicon-and-rules analyser that ships its lexicon inside the package.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from functools import lru_cache
from typing import Any, Callable, Iterable, Sequence

import pyarrow as pa

from lotdata.errors import MissingExtraError, require
from lotdata.text import tokenize


class FeatureCache:
    """Tokens, n-gram counts and sentiment scores of sentences, keyed by (lang, sentence)."""

    def __init__(self, sentiment_method: str = "snownlp", store: str | os.PathLike | None = None) -> None:
        """`store`: a Parquet file of sentiment scores kept across runs (read now, rewritten after each fill)."""
        if sentiment_method not in SENTIMENT_METHODS:
            raise ValueError(f"unknown sentiment method {sentiment_method!r}; known: {', '.join(SENTIMENT_METHODS)}")
        self.sentiment_method = sentiment_method
        self._tokens: dict[tuple[str, str], list[str]] = {}
        self._ngrams: dict[tuple[str, str, int], Counter] = {}
        self._sentiment: dict[tuple[str, str], float] = {}
        self.sentiment_seconds = 0.0
        self.store = store
        if store is not None:
            self.load_sentiment(store)

    def tokens(self, text: str, lang: str) -> list[str]:
        key = (lang, text)
        found = self._tokens.get(key)
        if found is None:
            found = [t.lower() for t in tokenize(text, lang)] if lang == "en" else tokenize(text, lang)
            self._tokens[key] = found
        return found

    def ngrams(self, text: str, lang: str, n: int) -> Counter:
        key = (lang, text, n)
        found = self._ngrams.get(key)
        if found is None:
            toks = self.tokens(text, lang)
            found = Counter(tuple(toks[i : i + n]) for i in range(len(toks) - n + 1))
            self._ngrams[key] = found
        return found

    def sentiment(self, text: str, lang: str) -> float:
        key = (lang, text)
        if key not in self._sentiment:
            self.fill_sentiment([text], lang)
        return self._sentiment[key]

    def fill_sentiment(self, texts: Iterable[str], lang: str) -> int:
        """Score every sentence not yet cached, in this process; returns how many were new."""
        import time

        todo = self.missing_sentiment((lang, t) for t in texts)
        if not todo:
            return 0
        started = time.perf_counter()
        scores = score_sentences([t for _, t in todo], lang, self.sentiment_method)
        self.add_sentiment((lang, t, s) for (_, t), s in zip(todo, scores))
        self.sentiment_seconds += time.perf_counter() - started
        if self.store is not None:
            self.save_sentiment(self.store)
        return len(todo)

    def missing_sentiment(self, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The (lang, sentence) pairs without a score yet, unique and sorted."""
        return sorted({p for p in pairs if p not in self._sentiment})

    def add_sentiment(self, scored: Iterable[tuple[str, str, float]]) -> None:
        """Scores computed elsewhere (the audit's sentiment shards): (lang, sentence, score)."""
        self._sentiment.update(((lang, text), score) for lang, text, score in scored)

    def load_sentiment(self, path: str | os.PathLike) -> int:
        """Scores saved by an earlier run with the same analyser (a re-run skips them); returns how many."""
        import pyarrow.parquet as pq

        if not os.path.exists(path):
            return 0
        rows = pq.read_table(path).to_pylist()
        mine = [r for r in rows if r["method"] == self.sentiment_method or r["lang"] == "en"]
        self._sentiment.update(((r["lang"], r["sentence"]), r["score"]) for r in mine)
        return len(mine)

    def save_sentiment(self, path: str | os.PathLike) -> None:
        from lotdata.io import write_parquet

        rows = [
            {
                "lang": lang,
                "method": "vader" if lang == "en" else self.sentiment_method,
                "sentence": text,
                "score": score,
            }
            for (lang, text), score in sorted(self._sentiment.items())
        ]
        write_parquet(pa.Table.from_pylist(rows, schema=_CACHE_SCHEMA), path)


_CACHE_SCHEMA = pa.schema(
    [("lang", pa.string()), ("method", pa.string()), ("sentence", pa.string()), ("score", pa.float64())]
)


# ---------------------------------------------------------------------------------------------
# sentiment


#: Chinese: "snownlp" is SnowNLP(s).sentiments exactly (LOT's analyser; its own word segmenter is
#: 95% of the time); "snownlp-jieba" feeds jieba's words to the same Bayes classifier, ~20x faster.
SENTIMENT_METHODS = ("snownlp", "snownlp-jieba")


def _analyser(lang: str, method: str = "snownlp") -> Callable[[str], float]:
    if lang == "zh":
        require("snownlp", "audit")
        if method == "snownlp-jieba":
            from snownlp import normal
            from snownlp import sentiment as snow_sentiment

            def score(s: str) -> float:
                label, prob = snow_sentiment.classifier.classifier.classify(normal.filter_stop(tokenize(s, "zh")))
                return prob if label == "pos" else 1 - prob

            return lambda s: float(score(s)) if s.strip() else 0.5
        from snownlp import SnowNLP

        return lambda s: float(SnowNLP(s).sentiments) if s.strip() else 0.5
    vader = require("vaderSentiment.vaderSentiment", "audit")  # checked on every call, before the cached analyser
    analyser = _vader(vader)
    return lambda s: float(analyser.polarity_scores(s)["compound"])


@lru_cache(maxsize=1)
def _vader(module: Any) -> Any:
    """One VADER analyser per process: building one reads its lexicon (tens of ms), once per shard otherwise."""
    return module.SentimentIntensityAnalyzer()


def score_sentences(texts: Sequence[str], lang: str, method: str = "snownlp") -> list[float]:
    """Sentiment scores of `texts` in this process (MissingExtraError without the analyser's package)."""
    score = _analyser(lang, method)
    return [score(t) for t in texts]


def sentiment_problem(lang: str, method: str = "snownlp") -> str | None:
    """Why `lang` sentences cannot be scored here (a missing package), or None. Loads the analyser,
    so processes forked afterwards share its model."""
    try:
        _analyser(lang, method)
    except MissingExtraError as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------------------------------------
# BLEU


def sentence_bleu(
    cache: FeatureCache, hypothesis: str, reference: str, lang: str, max_n: int, *, smooth: str = "epsilon"
) -> float:
    """Sentence BLEU-`max_n` (uniform weights, no brevity penalty) of one hypothesis against one reference.

    smooth="epsilon": a zero n-gram match counts as 0.1 matches (Chen & Cherry's method 1, as in
    nltk); smooth="add1": +1 to matches and totals for n > 1 (Lin & Och 2004, the "smoothed BLEU"
    of the ROCStories n-gram overlap baseline). The brevity penalty is left out on purpose: with one
    long reference (the whole context) it punishes every short candidate and turns the baseline
    into a length detector.
    """
    hyp_len = len(cache.tokens(hypothesis, lang))
    ref_len = len(cache.tokens(reference, lang))
    if hyp_len == 0 or ref_len == 0:
        return 0.0
    log_sum = 0.0
    for n in range(1, max_n + 1):
        hyp = cache.ngrams(hypothesis, lang, n)
        ref = cache.ngrams(reference, lang, n)
        total = max(hyp_len - n + 1, 0)
        matches = sum(min(count, ref[gram]) for gram, count in hyp.items())
        if smooth == "add1" and n > 1:
            matches, total = matches + 1, total + 1
        if total == 0:
            return 0.0
        if matches == 0:
            matches = 0.1
        log_sum += math.log(matches / total)
    return math.exp(log_sum / max_n)
