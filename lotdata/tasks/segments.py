"""Story segments for filtering (LOT appendix Figure 1): "an incomplete story segment of about 50-500 words, and
the original whole story as a reference".

A segment is a run of whole sentences of one story, `min_words`..`max_words` jieba words (counted per sentence, as
the builders count them), cut at a seeded start towards a seeded target length; `story_text[start_char:end_char]`
is its text, so it always leads back to the story. One segment per story.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lotdata.io import read_parquet, sha256_text, write_parquet
from lotdata.schema import SEGMENTS, table_from_rows
from lotdata.text import count_words

Row = dict[str, Any]

MIN_WORDS, MAX_WORDS = 50, 500

_KEPT = ("title", "lang", "source", "source_id", "url", "license", "fetched_at")


def sentence_offsets(text: str, sentences: Sequence[str]) -> list[tuple[int, int]] | None:
    """(start, end) of each sentence in `text`, in order; None when a sentence is not found where expected."""
    offsets, pos = [], 0
    for sentence in sentences:
        start = text.find(sentence, pos)
        if start < 0:
            return None
        offsets.append((start, start + len(sentence)))
        pos = start + len(sentence)
    return offsets


def _segment_row(
    story: Mapping[str, Any], first: int, last: int, offsets: list[tuple[int, int]], words: int, seed: int
) -> Row:
    start, end = offsets[first][0], offsets[last][1]
    text = story["text"][start:end]
    return {
        "segment_id": sha256_text(text)[:16],
        "story_id": story["story_id"],
        "text": text,
        "story_text": story["text"],
        "start_char": start,
        "end_char": end,
        "first_sentence": first,
        "n_sentences": last - first + 1,
        "n_words": words,
        "seed": seed,
        **{k: story.get(k) for k in _KEPT},
    }


def cut_segment(
    story: Mapping[str, Any], *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS, seed: int = 0
) -> tuple[Row | None, str | None]:
    """One seeded segment of `story`, or (None, reason): too_short, sentences_not_in_text, no_segment_in_range."""
    sentences = list(story["sentences"])
    offsets = sentence_offsets(story["text"], sentences)
    if offsets is None:
        return None, "sentences_not_in_text"
    words = [count_words(s, story["lang"]) for s in sentences]
    if sum(words) < min_words:
        return None, "too_short"
    rng = random.Random(f"{seed}:{story['story_id']}")
    target = rng.randint(min_words, max_words)
    starts = list(range(len(sentences)))
    rng.shuffle(starts)
    for first in starts:
        total, last = 0, first
        while (
            last < len(sentences)
            and total + words[last] <= max_words
            and (total < min_words or total + words[last] <= target)
        ):
            total += words[last]
            last += 1
        if total >= min_words:
            return _segment_row(story, first, last - 1, offsets, total, seed), None
    return None, "no_segment_in_range"


def cut_segments(
    stories: Iterable[Mapping[str, Any]], *, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS, seed: int = 0
) -> tuple[list[Row], dict[str, int]]:
    """A segment per story that has one (rejected stories are skipped), and the count of stories dropped per reason."""
    if not 0 < min_words <= max_words:
        raise ValueError(f"need 0 < --min-words ({min_words}) <= --max-words ({max_words})")
    rows, dropped = [], {}
    for story in stories:
        if story.get("status") == "rejected":
            dropped["rejected_story"] = dropped.get("rejected_story", 0) + 1
            continue
        row, reason = cut_segment(story, min_words=min_words, max_words=max_words, seed=seed)
        if row is None:
            dropped[reason] = dropped.get(reason, 0) + 1
        else:
            rows.append(row)
    return rows, dropped


def story_as_segment(story: Mapping[str, Any]) -> Row:
    """A whole story as its own segment (story_filter on a stories table): same id, the story as its reference."""
    return {
        "segment_id": story["story_id"],
        "story_id": story["story_id"],
        "text": story["text"],
        "story_text": story["text"],
        "start_char": 0,
        "end_char": len(story["text"]),
        "first_sentence": 0,
        "n_sentences": len(story["sentences"]),
        "n_words": count_words(story["text"], story["lang"]),
        "seed": 0,
        **{k: story.get(k) for k in _KEPT},
    }


def read_segments(path: str | Path) -> list[Row]:
    return read_parquet(path, SEGMENTS).to_pylist()


def write_segments(rows: list[Row], out: str | Path) -> Path:
    return write_parquet(table_from_rows(rows, SEGMENTS), out)
