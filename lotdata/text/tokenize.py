"""Word tokenisation in one place.

jieba (precise mode, HMM on: what LOT used) is the default for Chinese (`LOTDATA_TOKENIZER` names another).
A caller that wants another one passes its name (`tokenize(text, "zh", "rjieba")`): there is no current
tokenizer held by the process, so what counted the words is always what the caller said. A faster
jieba-compatible tokenizer can be registered (`register_tokenizer`, or a package's `lotdata.tokenizers` entry
point) and checked token-for-token against jieba with `compare_tokenizers`.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable

from lotdata.registry import Registry

Tokenizer = Callable[[str], list[str]]

_EN_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*|[^\sA-Za-z0-9]")


@dataclass(frozen=True)
class TokenizerSpec:
    """A Chinese tokenizer: its name and `factory() -> Tokenizer`, called once, when the tokenizer is first used."""

    name: str
    factory: Callable[[], Tokenizer]


#: every Chinese tokenizer: the built-in ones (this module), then those registered later or by a package's
#: `lotdata.tokenizers` entry point
TOKENIZER_REGISTRY: Registry[TokenizerSpec] = Registry("tokenizer", modules=("text/tokenize.py",))


def register_tokenizer(name: str, factory: Callable[[], Tokenizer]) -> TokenizerSpec:
    """Register a Chinese tokenizer under `name`; `factory` is called once, lazily. A name another tokenizer holds
    is a RegistryError."""
    spec = TOKENIZER_REGISTRY.register(TokenizerSpec(name, factory), stacklevel=2)
    if "_load" in globals():
        _load.cache_clear()
    return spec


def unregister_tokenizer(name: str) -> None:
    """Forget a tokenizer registered at run time (a test's made-up one)."""
    TOKENIZER_REGISTRY.unregister(name)
    _load.cache_clear()


def tokenizer_names() -> list[str]:
    """Every registered tokenizer's name (the built-in ones first)."""
    return TOKENIZER_REGISTRY.names()


def _jieba_factory(hmm: bool = True) -> Tokenizer:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()

    def cut(text: str) -> list[str]:
        return [tok for tok in jieba.lcut(text, HMM=hmm) if tok.strip()]

    return cut


register_tokenizer("jieba", _jieba_factory)
# HMM off: no new words guessed from characters; the OutGen outline uses it (it matches LOT's phrase boundaries)
register_tokenizer("jieba-nohmm", lambda: _jieba_factory(hmm=False))


@lru_cache(maxsize=None)
def _load(name: str) -> Tokenizer:
    return TOKENIZER_REGISTRY.get(name).factory()


def check_tokenizer_env() -> None:
    """A LOTDATA_TOKENIZER that names no registered tokenizer is a bad parameter (exit 1), found before any
    work (it used to surface after a recipe's read step, or after audit-bias had scored every sentence)."""
    from lotdata.errors import ParameterError

    name = os.environ.get("LOTDATA_TOKENIZER")
    if name and name not in TOKENIZER_REGISTRY:
        raise ParameterError(f"LOTDATA_TOKENIZER={name}: unknown tokenizer; registered: {', '.join(tokenizer_names())}")


def get_tokenizer(name: str) -> Tokenizer:
    """The registered Chinese tokenizer `name` (loaded once)."""
    return _load(name)


def default_tokenizer() -> str:
    """The Chinese tokenizer used where a caller names none: LOTDATA_TOKENIZER, else jieba."""
    return os.environ.get("LOTDATA_TOKENIZER", "jieba")


def tokenize_zh(text: str, tokenizer: str | None = None) -> list[str]:
    return _load(tokenizer or default_tokenizer())(text)


def tokenize_en(text: str) -> list[str]:
    return _EN_WORD.findall(text)


def tokenize(text: str, lang: str = "zh", tokenizer: str | None = None) -> list[str]:
    """Words of `text` (punctuation marks are tokens; whitespace is not); `tokenizer` names the Chinese
    one (default: `default_tokenizer()`)."""
    return tokenize_zh(text, tokenizer) if lang == "zh" else tokenize_en(text)


def count_words(text: str, lang: str = "zh", tokenizer: str | None = None) -> int:
    return len(tokenize(text, lang, tokenizer))


def compare_tokenizers(name: str, texts: Iterable[str], reference: str = "jieba") -> dict[str, int]:
    """Token-for-token agreement of tokenizer `name` with `reference` over `texts`."""
    ours, ref = _load(name), _load(reference)
    same = differ = 0
    for text in texts:
        if ours(text) == ref(text):
            same += 1
        else:
            differ += 1
    return {"same": same, "differ": differ}


def _rjieba_factory(hmm: bool = True) -> Tokenizer:
    """rjieba (jieba-rs, Rust): jieba's dictionary and HMM, about 25x faster; agreement in bench/overlap.md."""
    from lotdata.errors import require

    rjieba = require("rjieba", "overlap")  # a core dependency; require() for a broken install

    def cut(text: str) -> list[str]:
        tokens = rjieba.cut(text, hmm)
        # text without whitespace gives no whitespace token: skip the filter (a third of the time on Chinese)
        return [tok for tok in tokens if tok.strip()] if _SPACE.search(text) else tokens

    return cut


_SPACE = re.compile(r"\s")
register_tokenizer("rjieba", _rjieba_factory)
register_tokenizer("rjieba-nohmm", lambda: _rjieba_factory(hmm=False))
