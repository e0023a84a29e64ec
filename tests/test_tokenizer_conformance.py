"""Every registered tokenizer passes `lotdata.testing.check_tokenizer`, and the checks catch a broken one."""

from __future__ import annotations

from pathlib import Path

import pytest

from lotdata.testing import TOKENIZER_CHECKS, check_tokenizer
from lotdata.text.tokenize import TOKENIZER_REGISTRY, TokenizerSpec


@pytest.mark.parametrize("check", TOKENIZER_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("spec", TOKENIZER_REGISTRY.all(), ids=lambda s: s.name)
def test_every_tokenizer_passes_its_checks(spec, check, tmp_path: Path) -> None:
    check(spec, tmp_path)


def _by_character() -> object:
    return lambda text: [c for c in text if not c.isspace()]


def _drops_punctuation() -> object:
    return lambda text: [c for c in text if c.isalnum()]


def test_a_made_up_tokenizer_passes_once_registered(tmp_path: Path) -> None:
    spec = TokenizerSpec("by-character", _by_character)
    with pytest.raises(AssertionError, match="not the record registered"):
        check_tokenizer(spec, tmp_path)
    TOKENIZER_REGISTRY.register(spec)
    try:
        check_tokenizer(spec, tmp_path)
    finally:
        TOKENIZER_REGISTRY.unregister("by-character")


def test_a_tokenizer_that_loses_characters_is_caught(tmp_path: Path) -> None:
    spec = TokenizerSpec("lossy", _drops_punctuation)
    TOKENIZER_REGISTRY.register(spec)
    try:
        with pytest.raises(AssertionError, match="spell"):
            check_tokenizer(spec, tmp_path)
    finally:
        TOKENIZER_REGISTRY.unregister("lossy")
