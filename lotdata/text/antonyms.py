"""Antonym swaps: whether a rewritten sentence is its original with words replaced by their antonyms and nothing
else (LOT appendix 2.2d: "try to rewrite the original sentence not by directly adding negative words or replacing
antonyms"; the negation half is `lotdata.annotate.jobs.clozet_write.negation_only_edit`).

The pairs are data files under `lotdata/data/`: `antonyms_zh.tsv` (written by hand for lotdata) and `antonyms_en.tsv`
(WordNet 3.0's direct and indirect antonyms with their inflected forms, built by benchmarks/build_antonyms_en.py).
Sentences are compared word by word (jieba's words; English words lowercased); a changed span passes as a swap when
replacing one listed word in it by its antonym gives the new span (开心 -> 伤心, "lived happily" -> "lived
unhappily", "won" -> "lost"), or, in English, one part of a hyphenated word ("first-time" -> "last-time").
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from typing import Mapping

from lotdata.text.wordlists import word_list

#: punctuation and spaces, which a swap may change too
_NOISE = re.compile(r"[\s\W_]+")
_WORD_EN = re.compile(r"[a-z]+(?:['’-][a-z]+)*")


@lru_cache(maxsize=2)
def antonym_pairs(lang: str) -> Mapping[str, frozenset[str]]:
    """Every listed word of `lang` ("zh" or "en") and its antonyms, both ways round."""
    found: dict[str, set[str]] = {}
    for line in word_list("antonyms_zh.tsv" if lang == "zh" else "antonyms_en.tsv"):
        one, _, other = line.partition("\t")
        one, other = one.strip(), other.strip()
        if one and other:
            found.setdefault(one, set()).add(other)
            found.setdefault(other, set()).add(one)
    return {word: frozenset(others) for word, others in found.items()}


def _words(text: str, lang: str) -> list[str]:
    if lang == "zh":
        from lotdata.text.tokenize import tokenize

        return [w for w in tokenize(text, "zh") if not _NOISE.fullmatch(w)]
    return _WORD_EN.findall(text.lower())


def _swaps(removed: str, added: str, pairs: Mapping[str, frozenset[str]], pad: str) -> list[tuple[str, str]]:
    """The antonym swap that turns `removed` into `added`, or [] when none does. One swap a changed span (two
    swaps in a row would chain: 明白 -> 糊涂 -> 聪明 is no antonym); English spans come padded with spaces (`pad`)
    so that a word is only swapped whole (the "on" in "won" is no word)."""
    for word in sorted((w for w in pairs if pad + w + pad in removed), key=len, reverse=True):
        for other in sorted(pairs[word]):
            start = removed.find(pad + word + pad)
            while start >= 0:
                if removed[:start] + pad + other + pad + removed[start + len(word) + 2 * len(pad) :] == added:
                    return [(word, other)]
                start = removed.find(pad + word + pad, start + 1)
    return []


def _part_swap(removed: list[str], added: list[str], pairs: Mapping[str, frozenset[str]]) -> list[tuple[str, str]]:
    """The swap inside one hyphenated English word ("first-time" -> "last-time"), or [] when there is none."""
    if len(removed) != 1 or len(added) != 1:
        return []
    before, after = re.split(r"[-‐]", removed[0]), re.split(r"[-‐]", added[0])
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    if (
        len(before) > 1
        and len(before) == len(after)
        and len(changed) == 1
        and changed[0][1] in pairs.get(changed[0][0], ())
    ):
        return changed
    return []


def antonym_swaps(original: str, rewritten: str, lang: str) -> list[tuple[str, str]]:
    """The (word, antonym) swaps that make `rewritten` out of `original` when they are its only change; [] when
    the two differ in anything else, or not at all."""
    pad = "" if lang == "zh" else " "
    before, after = _words(original, lang), _words(rewritten, lang)
    pairs = antonym_pairs("zh" if lang == "zh" else "en")
    found: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        span = lambda words: pad + pad.join(words) + pad
        swaps = _swaps(span(before[i1:i2]), span(after[j1:j2]), pairs, pad) if tag == "replace" else []
        if not swaps and tag == "replace" and lang != "zh":
            swaps = _part_swap(before[i1:i2], after[j1:j2], pairs)
        if not swaps:
            return []
        found += swaps
    return found
