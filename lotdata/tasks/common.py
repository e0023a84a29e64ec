"""What every builder shares: per-story seeded randomness and the merged sentence list."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from lotdata.text import count_chars, merge_short_sentences


def check_at_least_one(**values: int | None) -> None:
    """A builder parameter that must be >= 1: a bad value is a ValueError naming its option (exit 1)."""
    for name, value in values.items():
        if value is not None and value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1 (got {value})")


@dataclass
class StoryOutcome:
    """Examples made from one story, or the reason it gave none."""

    examples: list[dict[str, Any]] = field(default_factory=list)
    dropped: str | None = None


@dataclass
class BuildStats:
    """Counts a builder keeps as it goes; they land in the run summary and the manifest."""

    stories_in: int = 0
    stories_used: int = 0
    examples: int = 0
    dropped: Counter = field(default_factory=Counter)

    def add(self, outcome: StoryOutcome) -> None:
        self.stories_in += 1
        if outcome.examples:
            self.stories_used += 1
            self.examples += len(outcome.examples)
        else:
            self.dropped[outcome.dropped or "no_example"] += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "stories_in": self.stories_in,
            "stories_used": self.stories_used,
            "examples_built": self.examples,
            "stories_dropped": dict(sorted(self.dropped.items())),
        }


def story_rng(seed: int, task: str, story_id: str, part: int = 0) -> random.Random:
    """A generator seeded by the story itself, so results do not depend on row order or sharding."""
    return random.Random(f"{seed}:{task}:{story_id}:{part}")


def merged_sentences(story: Mapping[str, Any], min_chars: int) -> list[str]:
    return merge_short_sentences(list(story["sentences"]), story["lang"], min_chars)


def inner_candidates(sentences: list[str], min_chars: int) -> list[int]:
    """Indices that may be removed: never the first or last, at least `min_chars` characters."""
    return [i for i in range(1, len(sentences) - 1) if count_chars(sentences[i]) >= min_chars]
