"""Chinese words with part-of-speech tags, as ``jieba.posseg.lcut(text, HMM=False)`` gives them, without jieba.

jieba's dictionary loaded into jieba-rs (``rjieba``): the same words, frequencies and tags, so the same
segmentation and the same tag for every word of the dictionary. A word outside the dictionary is tagged as
jieba tags it (jieba-rs guesses a tag for an unknown character and tags ASCII digits ``m``). jieba with its
POS tables costs about 116 MiB a process and tags in Python; this costs about 26 MiB and tags in Rust.
tests/test_text_postag.py checks the tags against jieba.posseg on real stories.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

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


def _jieba_rs() -> Any:
    """rjieba's Jieba class. Importing the rjieba package builds its own default dictionary (about 33 MiB, 0.3 s)
    that the tagger never uses: load only its extension module, under its own name, so that a later
    `import rjieba` (overlap's tokenizer) finds and reuses it."""
    for name in ("rjieba", "rjieba.rjieba"):
        if name in sys.modules:
            return sys.modules[name].Jieba
    spec = importlib.util.find_spec("rjieba")
    folder = Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None
    found = [folder / f"rjieba{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES] if folder else []
    extension = next((path for path in found if path.exists()), None)
    if extension is None:  # another layout: the package as it comes (or the error naming the extra)
        return require("rjieba", "overlap").Jieba
    spec = importlib.util.spec_from_file_location("rjieba.rjieba", extension)
    module = importlib.util.module_from_spec(spec)
    sys.modules["rjieba.rjieba"] = module
    try:
        spec.loader.exec_module(module)
    except ImportError:
        del sys.modules["rjieba.rjieba"]
        return require("rjieba", "overlap").Jieba
    return module.Jieba


@lru_cache(maxsize=1)
def _tagger():
    tagger = _jieba_rs().empty()
    add = tagger.add_word  # 349,046 words: built once per process, so the loop is kept tight
    # the file a line at a time: its lines all at once would leave about 15 MiB of freed Python objects in the process
    with open(jieba_dictionary(), encoding="utf-8") as lines:
        for parts in map(str.split, lines):
            if len(parts) == 3:  # word, frequency, tag: every line of jieba's dict.txt
                add(parts[0], int(parts[1]), parts[2])
    return tagger


def release_tagger() -> None:
    """Free the tagger (about 25 MiB) where a process will tag no more text for a while; the next tag builds it again."""
    _tagger.cache_clear()


def pos_words_nohmm(text: str) -> list[tuple[str, str]]:
    """(word, tag) of `text` as jieba.posseg with HMM off, blank words left out."""
    tagger = _tagger()
    return [
        (word, tag if tagger.has_word(word) else _unknown_tag(word))
        for word, tag in tagger.tag(text, False)
        if word.strip()
    ]


def _unknown_tag(word: str) -> str:
    # jieba: a word outside its dictionary is "x", a run of ASCII letters and digits "eng"; jieba-rs guesses
    # a tag for an unknown character and calls digits "m"
    return "eng" if word.isascii() and word.isalnum() else "x"
