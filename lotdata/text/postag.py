"""Chinese words with part-of-speech tags, as ``jieba.posseg.lcut(text, HMM=False)`` gives them, without jieba.

jieba's dictionary loaded into jieba-rs (``rjieba``): the same words, frequencies and tags, so the same
segmentation and the same tag for every word of the dictionary. A word outside the dictionary is tagged as
jieba tags it (jieba-rs guesses a tag for an unknown character and tags ASCII digits ``m``). jieba with its POS tables costs about 116 MiB a
process and its Python tagger is slow; this costs about 57 MiB (rjieba's own default dictionary included) and
runs in Rust. tests/test_text_postag.py checks the tags against jieba.posseg on real stories.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

from lotdata.errors import LotdataError, require


def jieba_dictionary() -> Path:
    """jieba's ``dict.txt``, found without importing jieba (importing it costs memory we avoid)."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or not spec.submodule_search_locations:
        raise LotdataError("jieba is not installed: its dictionary is needed for part-of-speech tags")
    path = Path(next(iter(spec.submodule_search_locations))) / "dict.txt"
    if not path.exists():
        raise LotdataError(f"jieba's dictionary is missing: {path}")
    return path


@lru_cache(maxsize=1)
def _tagger():
    rjieba = require("rjieba", "overlap")
    tagger = rjieba.Jieba.empty()
    with open(jieba_dictionary(), encoding="utf-8") as handle:
        for line in handle:
            parts = line.split()
            if len(parts) == 3:  # word, frequency, tag: every line of jieba's dict.txt
                tagger.add_word(parts[0], int(parts[1]), parts[2])
    return tagger


def pos_words_nohmm(text: str) -> list[tuple[str, str]]:
    """(word, tag) of `text` as jieba.posseg with HMM off, blank words left out."""
    tagger = _tagger()
    return [(word, tag if tagger.has_word(word) else _unknown_tag(word))
            for word, tag in tagger.tag(text, False) if word.strip()]


def _unknown_tag(word: str) -> str:
    # jieba: a word outside its dictionary is "x", a run of ASCII letters and digits "eng"; jieba-rs guesses
    # a tag for an unknown character and calls digits "m"
    return "eng" if word.isascii() and word.isalnum() else "x"
