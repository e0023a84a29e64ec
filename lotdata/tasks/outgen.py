"""OutGen: title + shuffled RAKE outline (at most 8 phrases of at most 8 words) -> story."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from lotdata.tasks.common import StoryOutcome, story_rng
from lotdata.tasks.outline import extract_outline, outline_settings, with_config

TASK = "outgen"


@dataclass(frozen=True)
class OutgenParams:
    """`extractor`: "lot-rake" (LOT's Chinese RAKE, the default) or "rake-nltk"; `stopwords`: a stopword
    file (one word per line) instead of the shipped list, e.g. LOT's reference list."""

    max_phrases: int = 8
    max_words: int = 8
    min_phrases: int = 1
    extractor: str = "lot-rake"
    stopwords: str | None = None

    def __post_init__(self) -> None:
        outline_settings(self)  # an unknown extractor or an unreadable stopword file fails before any work


def outgen_examples(story: Mapping[str, Any], params: OutgenParams, seed: int) -> StoryOutcome:
    rng = story_rng(seed, TASK, story["story_id"])
    outline = extract_outline(
        story["text"], story["lang"], max_phrases=params.max_phrases, max_words=params.max_words, rng=rng,
        config=with_config(extractor=params.extractor, stopwords=params.stopwords),
    )
    if len(outline) < params.min_phrases:
        return StoryOutcome(dropped="outline_too_short")
    example = {
        "example_id": f"{TASK}-{story['story_id']}-0",
        "story_id": story["story_id"],
        "title": story.get("title"),
        "outline": outline,
        "story": story["text"],
        "lang": story["lang"],
    }
    return StoryOutcome(examples=[example])
