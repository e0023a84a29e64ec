"""Text layer: normalisation, sentence splitting and merging, word tokenisation (zh and en)."""

from lotdata.text.normalize import count_chars, detect_lang, normalize_text
from lotdata.text.sentences import join_sentences, merge_short_sentences, split_sentences
from lotdata.text.tokenize import count_words, tokenize

__all__ = [
    "count_chars",
    "count_words",
    "detect_lang",
    "join_sentences",
    "merge_short_sentences",
    "normalize_text",
    "split_sentences",
    "tokenize",
]
