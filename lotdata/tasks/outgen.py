"""OutGen: title + shuffled RAKE outline (at most 8 phrases of at most 8 words) -> story."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from lotdata.tasks.common import StoryOutcome, story_rng
from lotdata.tasks.outline import extract_outline

TASK = "outgen"


@dataclass(frozen=True)
class OutgenParams:
    max_phrases: int = 8
    max_words: int = 8
    min_phrases: int = 1


def outgen_examples(story: Mapping[str, Any], params: OutgenParams, seed: int) -> StoryOutcome:
    rng = story_rng(seed, TASK, story["story_id"])
    outline = extract_outline(
        story["text"], story["lang"], max_phrases=params.max_phrases, max_words=params.max_words, rng=rng
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
