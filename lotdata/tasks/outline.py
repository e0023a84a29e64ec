"""OutGen outlines: RAKE key phrases, as LOT extracted them.

LOT (Guan et al., 2022): "We followed Rashkin et al. (2020) to extract the outline of a story using the
RAKE algorithm (Rose et al., 2010). We extract at most eight phrases for each story, and each phrase
contains no more than eight words." The outline is shuffled, so its order carries no information.

How this module does it (choices tuned against LOT's own outlines, see benchmarks/outline_agreement.py):

* rake-nltk's ``Rake`` builds the word co-occurrence graph and the word scores. It is always given our
  own stopwords, punctuation set, sentence splitter and word tokenizer, so it never touches NLTK data
  (no ``nltk.corpus.stopwords``, no punkt).
* Chinese words come from lotdata's tokenizer registry; by default jieba *without* its HMM (registered
  here as ``jieba-nohmm``): LOT's phrase boundaries agree with HMM-off jieba for 848 of 850 dev phrases
  and with HMM-on jieba (the lotdata default) for only 825.
* Candidate phrases are maximal runs of words that are neither stopwords nor punctuation (RAKE), cut
  also wherever the text has a gap between two words (whitespace), so every phrase is a verbatim span
  of the text. Chinese phrases are that span (no spaces), English ones keep the text's own spacing and case.
* Over-long runs are handled by ``long_phrases`` (see ``OutlineConfig``).
* Phrases are ranked by the RAKE score, ties by first position in the text; duplicates (same string)
  keep their first occurrence; a phrase inside a better-ranked kept one, or holding one, is skipped
  (慧海 after 慧海禅师: none of LOT's 111 dev outlines nests one phrase in another, ours had 56 such
  pairs before this rule); at most ``max_phrases`` are kept; with ``rng`` they are shuffled.
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from typing import Iterable

from rake_nltk import Metric, Rake

from lotdata.text.sentences import split_sentences
from lotdata.text.tokenize import get_tokenizer, tokenize

__all__ = [
    "DEFAULT_CONFIG", "Metric", "OutlineConfig", "extract_outline", "load_stopwords", "outline_agreement", "with_config",
]


@dataclass(frozen=True)
class OutlineConfig:
    """Knobs of the extraction (the defaults are what agrees best with LOT's outlines).

    tokenizer: name of a registered Chinese tokenizer, or None for lotdata's current one
        (``lotdata.text.tokenize.tokenize``; jieba with HMM unless configured otherwise).
    metric: rake-nltk ranking metric.
    long_phrases: what to do with a run of more than ``max_words`` words:
        "truncate" keeps its first ``max_words`` words, "truncate_end" its last ones,
        "drop" discards it (rake-nltk ``max_length``), "split" cuts it into chunks.
    repeated: count repeated phrases in the word graph (rake-nltk ``include_repeated_phrases``).
    ties: order of phrases with equal scores: "position" (first occurrence first), "last" (last
        first) or "rake" (rake-nltk's own: joined words in reverse string order).
    """

    tokenizer: str | None = "jieba-nohmm"
    metric: Metric = Metric.DEGREE_TO_FREQUENCY_RATIO
    long_phrases: str = "truncate"
    repeated: bool = True
    ties: str = "position"


DEFAULT_CONFIG = OutlineConfig()


@lru_cache(maxsize=None)
def load_stopwords(lang: str) -> frozenset[str]:
    """Stopwords shipped in ``lotdata/data/stopwords_{lang}.txt`` (one per line, # comments)."""
    name = "stopwords_zh.txt" if lang == "zh" else "stopwords_en.txt"
    text = resources.files("lotdata").joinpath("data", name).read_text(encoding="utf-8")
    words = set()
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            words.add(line.lower())
    return frozenset(words)


def _is_punct(token: str) -> bool:
    """A token made only of punctuation, symbols or spaces (it delimits phrases like a stopword)."""
    return all(unicodedata.category(ch)[0] in "PSZC" for ch in token)


def _word_tokenizer(lang: str, config: OutlineConfig):
    if lang == "zh" and config.tokenizer is not None:
        return get_tokenizer(config.tokenizer)
    return lambda s: tokenize(s, lang)


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    words: tuple[str, ...]  # lowercased, as rake-nltk sees them


class _OutlineRake(Rake):
    """rake-nltk's Rake, keeping the character span of every candidate phrase.

    Only candidate generation is replaced (to know where each phrase is in the text and to cut at
    whitespace gaps); frequency, degree and scores are rake-nltk's own.
    """

    def __init__(self, text: str, lang: str, max_words: int, config: OutlineConfig, **kw):
        self._text = text
        self._lang = lang
        self._max_words = max_words
        self._config = config
        self.candidates: list[_Candidate] = []
        super().__init__(**kw)

    def _generate_phrases(self, sentences):  # type: ignore[override]
        text, cursor = self._text, 0
        phrases: list[tuple[str, ...]] = []
        seen: set[tuple[str, ...]] = set()
        for sentence in sentences:
            base = text.find(sentence, cursor)
            if base < 0:  # the splitter should be lossless; fall back to searching from the start
                base = text.find(sentence)
            if base < 0:
                continue
            cursor = base + len(sentence)
            for cand in self._sentence_candidates(sentence, base):
                if not self.include_repeated_phrases:
                    if cand.words in seen:
                        continue
                    seen.add(cand.words)
                self.candidates.append(cand)
                phrases.append(cand.words)
        return phrases

    def _sentence_candidates(self, sentence: str, base: int) -> Iterable[_Candidate]:
        # spans of the words in the sentence
        spans: list[tuple[int, int, str]] = []
        pos = 0
        for word in self._tokenize_sentence_to_words(sentence):
            at = sentence.find(word, pos)
            if at < 0:
                continue  # the tokenizer changed the word; it cannot be part of a verbatim phrase
            spans.append((base + at, base + at + len(word), word))
            pos = at + len(word)
        run: list[tuple[int, int, str]] = []
        for span in spans + [(-1, -1, "")]:
            word = span[2].lower()
            breaks = (
                not word
                or word in self.to_ignore
                or _is_punct(word)
                or (run and not self._joinable(run[-1][1], span[0]))
            )
            if breaks:
                if run:
                    yield from self._limit(run)
                run = []
                if word and not (word in self.to_ignore or _is_punct(word)):
                    run = [span]
            else:
                run.append(span)

    def _joinable(self, end: int, start: int) -> bool:
        gap = self._text[end:start]
        if self._lang == "zh":
            return gap == ""
        return gap == "" or gap == " "

    def _limit(self, run: list[tuple[int, int, str]]) -> Iterable[_Candidate]:
        n, mode = self._max_words, self._config.long_phrases
        if len(run) > n:
            if mode == "drop":
                return
            if mode == "truncate":
                run = run[:n]
            elif mode == "truncate_end":
                run = run[-n:]
            elif mode == "split":
                for i in range(0, len(run), n):
                    yield from self._limit(run[i : i + n])
                return
            else:
                raise ValueError(f"unknown long_phrases mode {mode!r}")
        yield _Candidate(run[0][0], run[-1][1], tuple(w.lower() for _, _, w in run))

    def candidate_score(self, cand: _Candidate) -> float:
        score = 0.0
        for word in cand.words:
            if self.metric == Metric.DEGREE_TO_FREQUENCY_RATIO:
                score += 1.0 * self.degree[word] / self.frequency_dist[word]
            elif self.metric == Metric.WORD_DEGREE:
                score += 1.0 * self.degree[word]
            else:
                score += 1.0 * self.frequency_dist[word]
        return score


def _ranked(text: str, lang: str, max_words: int, config: OutlineConfig) -> list[str]:
    stopwords = set(load_stopwords(lang))
    word_tokenizer = _word_tokenizer(lang, config)
    rake = _OutlineRake(
        text,
        lang,
        max_words,
        config,
        stopwords=stopwords,
        punctuations={"\x00"},  # punctuation is recognised by Unicode category in _sentence_candidates
        ranking_metric=config.metric,
        include_repeated_phrases=config.repeated,
        sentence_tokenizer=lambda t: split_sentences(t, lang),
        word_tokenizer=word_tokenizer,
    )
    rake.extract_keywords_from_text(text)
    scored = [(rake.candidate_score(c), c) for c in rake.candidates]
    if config.ties == "position":
        scored.sort(key=lambda sc: (-sc[0], sc[1].start, sc[1].end))
    elif config.ties == "last":
        scored.sort(key=lambda sc: (-sc[0], -sc[1].start))
    elif config.ties == "rake":  # rake-nltk's own: sort (score, joined words) descending
        scored.sort(key=lambda sc: (sc[0], " ".join(sc[1].words), -sc[1].start), reverse=True)
    else:
        raise ValueError(f"unknown ties mode {config.ties!r}")
    out: list[str] = []
    seen: set[str] = set()
    for _, cand in scored:
        phrase = text[cand.start : cand.end]
        if phrase in seen:
            continue
        seen.add(phrase)
        out.append(phrase)
    return out


def _fits(phrase: str, lang: str, max_words: int) -> bool:
    # measured with lotdata's default tokenizer too, which is what statistics and tests count with
    return len(tokenize(phrase, lang)) <= max_words


def _nested_in_any(phrase: str, kept: list[str]) -> bool:
    """True when `phrase` lies inside a kept phrase or holds one: it would spend a slot saying nothing new."""
    return any(phrase in other or other in phrase for other in kept)


def extract_outline(
    text: str,
    lang: str = "zh",
    *,
    max_phrases: int = 8,
    max_words: int = 8,
    rng: random.Random | None = None,
    config: OutlineConfig | None = None,
) -> list[str]:
    """At most `max_phrases` RAKE phrases of `text`, each of at most `max_words` words.

    Every phrase is a verbatim substring of `text` and phrases are distinct. Without `rng` they come in
    rank order (best first); with `rng` they are shuffled with it (same rng state -> same order).
    """
    config = config or DEFAULT_CONFIG
    if not text or max_phrases <= 0 or max_words <= 0:
        return []
    phrases: list[str] = []
    for phrase in _ranked(text, lang, max_words, config):
        if not _fits(phrase, lang, max_words) or _nested_in_any(phrase, phrases):
            continue
        phrases.append(phrase)
        if len(phrases) == max_phrases:
            break
    if rng is not None:
        rng.shuffle(phrases)
    return phrases


def _jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def _covered_chars(story: str, phrases: Iterable[str]) -> list[bool]:
    covered = [False] * len(story)
    for phrase in phrases:
        if not phrase:
            continue
        start = story.find(phrase)
        while start >= 0:
            for i in range(start, start + len(phrase)):
                covered[i] = True
            start = story.find(phrase, start + 1)
    return covered


def _word_boundaries(text: str, word_tokenizer) -> set[int]:
    """Character offsets where a word of `text` starts or ends."""
    bounds, pos = {0, len(text)}, 0
    for word in word_tokenizer(text):
        at = text.find(word, pos)
        if at >= 0:
            bounds.update((at, at + len(word)))
            pos = at + len(word)
    return bounds


def _on_boundaries(story: str, phrase: str, bounds: set[int]) -> bool:
    start = story.find(phrase)
    return start >= 0 and start in bounds and start + len(phrase) in bounds


def outline_agreement(stories: list[str], references: list[list[str]], **kw) -> dict:
    """How well our outlines reproduce reference (LOT) outlines of the same stories.

    phrases: reference phrases in total; reproduced: reference phrases that appear exactly in our
    outline of the same story; share = reproduced / phrases; precision = reproduced / our phrases;
    story_overlap_mean: mean Jaccard of the two phrase sets; char_recall: share of the reference
    phrases' characters (their occurrences in the story) that our phrases cover (a soft measure);
    char_precision: the converse; on_word_boundaries: reference phrases whose first occurrence starts
    and ends on a word boundary of the outline's tokenizer (phrases we could produce at all).
    Keyword arguments go to `extract_outline` (lang defaults to "zh").
    """
    if len(stories) != len(references):
        raise ValueError("stories and references differ in length")
    kw = dict(kw)
    lang = kw.pop("lang", "zh")
    word_tokenizer = _word_tokenizer(lang, kw.get("config") or DEFAULT_CONFIG)
    total = reproduced = ours_total = aligned = 0
    jaccards: list[float] = []
    ref_chars = ref_covered = our_chars = our_covered = 0
    for story, ref in zip(stories, references):
        ours = extract_outline(story, lang, **kw)
        ref_set, our_set = set(ref), set(ours)
        total += len(ref)
        ours_total += len(ours)
        reproduced += sum(1 for p in ref if p in our_set)
        bounds = _word_boundaries(story, word_tokenizer)
        aligned += sum(1 for p in ref if _on_boundaries(story, p, bounds))
        jaccards.append(_jaccard(ref_set, our_set))
        ref_mask = _covered_chars(story, ref_set)
        our_mask = _covered_chars(story, our_set)
        ref_chars += sum(ref_mask)
        ref_covered += sum(1 for r, o in zip(ref_mask, our_mask) if r and o)
        our_chars += sum(our_mask)
        our_covered += sum(1 for r, o in zip(ref_mask, our_mask) if r and o)
    return {
        "stories": len(stories),
        "phrases": total,
        "our_phrases": ours_total,
        "reproduced": reproduced,
        "share": reproduced / total if total else 0.0,
        "precision": reproduced / ours_total if ours_total else 0.0,
        "story_overlap_mean": sum(jaccards) / len(jaccards) if jaccards else 0.0,
        "char_recall": ref_covered / ref_chars if ref_chars else 0.0,
        "char_precision": our_covered / our_chars if our_chars else 0.0,
        "on_word_boundaries": aligned,
    }


def with_config(**changes) -> OutlineConfig:
    """DEFAULT_CONFIG with some knobs changed (for experiments and the benchmark script)."""
    return replace(DEFAULT_CONFIG, **changes)
