"""Conformance checks of a Chinese tokenizer (a `lotdata.text.tokenize.TokenizerSpec` record), as scikit-learn's
`check_estimator`:

    from lotdata.testing import check_tokenizer
    check_tokenizer(MY_SPEC, tmp_path)   # AssertionError naming the broken rule

The sample is fixed Chinese story text (dialogue, numbers, Latin letters, full-width punctuation). What every
stage counts on: the tokens are non-empty strings without whitespace that spell the text back (nothing lost,
added or reordered), the same text always gives the same tokens, and the empty text no token. Every check takes
`(spec, folder)`; `folder` is unused (the shape every kind shares).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lotdata.testing._common import held as _held

__all__ = [
    "TOKENIZER_CHECKS",
    "TOKENIZER_SAMPLE",
    "check_tokenizer",
    "check_tokenizer_is_deterministic",
    "check_tokenizer_is_registered",
    "check_tokenizer_spells_the_text_back",
]

#: texts a Chinese tokenizer must handle (the stories lotdata reads hold all of these)
TOKENIZER_SAMPLE = (
    "小明今天去学校上课了。",
    "“你好！”妈妈笑着说，“今天是你的生日。”",
    "他花了25元买了3本书，还有一本叫《Harry Potter》。",
    "一只小猫在河边钓鱼，钓了一会儿就跑去捉蝴蝶了……",
    "",
)


def _tokens(spec: Any, text: str) -> list[str]:
    tokenizer = spec.factory()
    assert callable(tokenizer), f"tokenizer {spec.name!r}: factory() must give a callable text -> tokens"
    return tokenizer(text)


def check_tokenizer_is_registered(spec: Any, folder: Path) -> None:
    from lotdata.text.tokenize import TOKENIZER_REGISTRY

    assert _held(TOKENIZER_REGISTRY.get, spec.name) is spec, (
        f"tokenizer {spec.name!r} is not the record registered under its name (register_tokenizer, or an entry "
        "point of lotdata.tokenizers)"
    )


def check_tokenizer_spells_the_text_back(spec: Any, folder: Path) -> None:
    """Non-empty tokens without whitespace whose concatenation is the text without its whitespace."""
    for text in TOKENIZER_SAMPLE:
        tokens = _tokens(spec, text)
        assert isinstance(tokens, list) and all(isinstance(t, str) and t for t in tokens), (
            f"tokenizer {spec.name!r}: {text!r} must give a list of non-empty strings, not {tokens!r}"
        )
        assert not any(c.isspace() for t in tokens for c in t), f"tokenizer {spec.name!r}: whitespace in {tokens!r}"
        assert "".join(tokens) == "".join(text.split()), (
            f"tokenizer {spec.name!r}: the tokens of {text!r} spell {''.join(tokens)!r}"
        )


def check_tokenizer_is_deterministic(spec: Any, folder: Path) -> None:
    for text in TOKENIZER_SAMPLE:
        assert _tokens(spec, text) == _tokens(spec, text), f"tokenizer {spec.name!r}: two runs on {text!r} differ"


TOKENIZER_CHECKS: tuple[Callable[[Any, Path], None], ...] = (
    check_tokenizer_is_registered,
    check_tokenizer_spells_the_text_back,
    check_tokenizer_is_deterministic,
)


def check_tokenizer(spec: Any, folder: Path) -> None:
    """Run every tokenizer check on `spec` (AssertionError on the first broken rule)."""
    for check in TOKENIZER_CHECKS:
        check(spec, Path(folder) / check.__name__)
