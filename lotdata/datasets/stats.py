"""LOT Table 3 statistics of a dataset folder, per split."""

from __future__ import annotations

from statistics import mean
from typing import Any

from lotdata.schema import MASK_TOKENS
from lotdata.text import join_sentences, split_sentences, tokenize


def _avg(values: list[float]) -> float | None:
    return round(mean(values), 2) if values else None  # an average of nothing is undefined, not 0


class _Vocab:
    def __init__(self) -> None:
        self.words: set[str] = set()

    def words_of(self, text: str, lang: str) -> list[str]:
        tokens = tokenize(text, lang)
        self.words.update(tokens)
        return tokens


def _input_stats(texts: list[tuple[str, str]], vocab: _Vocab) -> dict[str, float]:
    return {
        "avg_chars_input": _avg([len(t) for t, _ in texts]),
        "avg_words_input": _avg([len(vocab.words_of(t, lang)) for t, lang in texts]),
        "avg_sents_input": _avg([len(split_sentences(t, lang)) for t, lang in texts]),
    }


def split_stats(task: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    vocab = _Vocab()
    result: dict[str, Any] = {"examples": len(rows)}
    if task == "senpos":
        inputs = [(join_sentences(r["sentences"], r["lang"]), r["lang"]) for r in rows]
        result.update(_input_stats(inputs, vocab))
        result["avg_sents_input"] = _avg([len(r["sentences"]) for r in rows])
        result["avg_words_removed"] = _avg([len(vocab.words_of(r["removed"], r["lang"])) for r in rows])
        result["avg_candidate_positions"] = _avg([r["n_candidates"] for r in rows])
    elif task in ("plotcom", "clozet"):
        mask = MASK_TOKENS[task]
        inputs = [(r["context"].replace(mask, ""), r["lang"]) for r in rows]
        result.update(_input_stats(inputs, vocab))
        if task == "plotcom":
            result["avg_words_output"] = _avg([len(vocab.words_of(r["target"], r["lang"])) for r in rows])
        else:
            result["avg_words_candidate"] = _avg(
                [len(vocab.words_of(c, r["lang"])) for r in rows for c in r["candidates"]]
            )
    elif task == "outgen":
        # over titled rows only: null, not 0, when the source has none (LOT's NLPCC OutGen files)
        result["avg_words_title"] = _avg([len(vocab.words_of(r["title"], r["lang"])) for r in rows if r["title"]])
        result["avg_words_outline"] = _avg(
            [sum(len(vocab.words_of(p, r["lang"])) for p in r["outline"]) for r in rows]
        )
        result["avg_phrases_outline"] = _avg([len(r["outline"]) for r in rows])
        result["avg_words_per_phrase"] = _avg(
            [len(tokenize(p, r["lang"])) for r in rows for p in r["outline"]]
        )
        outputs = [(r["story"], r["lang"]) for r in rows]
        out = _input_stats(outputs, vocab)
        result.update({k.replace("input", "output"): v for k, v in out.items()})
    else:
        raise ValueError(f"unknown task {task!r}")
    result["vocabulary_size"] = len(vocab.words)
    return result

