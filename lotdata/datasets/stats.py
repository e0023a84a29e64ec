"""LOT Table 3 statistics of one split; each task says its own figures (`TaskSpec.stats`) with these helpers."""

from __future__ import annotations

from statistics import mean
from typing import Any

from lotdata.datasets.registry import get_task
from lotdata.text import split_sentences, tokenize


def avg(values: list[float]) -> float | None:
    return round(mean(values), 2) if values else None  # an average of nothing is undefined, not 0


class Vocabulary:
    """The words seen while counting, for the vocabulary size; `tokenizer` names the Chinese tokenizer that
    counts them (None: `default_tokenizer()`)."""

    def __init__(self, tokenizer: str | None = None) -> None:
        self.words: set[str] = set()
        self.tokenizer = tokenizer

    def words_of(self, text: str, lang: str) -> list[str]:
        tokens = tokenize(text, lang, self.tokenizer)
        self.words.update(tokens)
        return tokens


def input_stats(texts: list[tuple[str, str]], vocab: Vocabulary) -> dict[str, float]:
    return {
        "avg_chars_input": avg([len(t) for t, _ in texts]),
        "avg_words_input": avg([len(vocab.words_of(t, lang)) for t, lang in texts]),
        "avg_sents_input": avg([len(split_sentences(t, lang)) for t, lang in texts]),
    }


def split_stats(task: str, rows: list[dict[str, Any]], tokenizer: str | None = None) -> dict[str, Any]:
    """LOT Table 3 statistics of one split of `task`: examples, the task's own figures, vocabulary size
    (words counted with `tokenizer`)."""
    vocab = Vocabulary(tokenizer)
    result: dict[str, Any] = {"examples": len(rows), **get_task(task).stats(rows, vocab)}
    result["vocabulary_size"] = len(vocab.words)
    return result
