"""A vocabulary built from training texts: BERT-style (one token per CJK character, words elsewhere)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterable

from lotdata.errors import require

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def pre_tokens(texts: Iterable[str]) -> Counter:
    """Counts of the units BERT's basic tokenizer splits texts into (lower-cased)."""
    normalizers = require("tokenizers.normalizers", "models")
    pre_tokenizers = require("tokenizers.pre_tokenizers", "models")
    normalizer = normalizers.BertNormalizer(lowercase=True, handle_chinese_chars=True)
    splitter = pre_tokenizers.BertPreTokenizer()
    counts: Counter = Counter()
    for text in texts:
        counts.update(tok for tok, _ in splitter.pre_tokenize_str(normalizer.normalize_str(text)))
    return counts


def build_tokenizer(texts: Iterable[str], out: str | Path, max_size: int = 21128, min_freq: int = 1):
    """A `BertTokenizer` whose vocabulary is the most frequent units of `texts`; saved to `out`."""
    transformers = require("transformers", "models")
    counts = pre_tokens(texts)
    ranked = sorted((t for t, c in counts.items() if c >= min_freq), key=lambda t: (-counts[t], t))
    tokens = list(SPECIAL_TOKENS) + ranked[: max(0, max_size - len(SPECIAL_TOKENS))]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "vocab.txt").write_text("\n".join(tokens) + "\n", encoding="utf-8")
    try:
        tokenizer = transformers.BertTokenizer(vocab={t: i for i, t in enumerate(tokens)})
    except TypeError:  # transformers 4.x takes a file
        tokenizer = transformers.BertTokenizer(vocab_file=str(out / "vocab.txt"))
    tokenizer.save_pretrained(str(out))
    return tokenizer
