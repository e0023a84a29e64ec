"""Seeded splits grouped by story: no story contributes to two splits of one task.

LOT's own SenPos release had test examples sharing a story with training ones; grouping by
`story_id` rules that out by construction.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Mapping, Sequence

from lotdata.schema import SPLITS


@dataclass(frozen=True)
class SplitSpec:
    """Either ratios (fractions summing to at most 1) or val/test sizes in examples (train takes the rest)."""

    values: Mapping[str, float | int]

    @property
    def by_size(self) -> bool:
        return all(isinstance(v, int) for v in self.values.values())

    def targets(self, total: int) -> dict[str, int]:
        """Number of examples each split should get out of `total`."""
        if self.by_size:
            held_out = {s: int(self.values.get(s, 0)) for s in SPLITS if s != "train"}
        else:
            held_out = {s: int(round(float(self.values.get(s, 0.0)) * total)) for s in SPLITS if s != "train"}
        held_out["train"] = max(total - sum(held_out.values()), 0)
        return held_out

    def __str__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.values.items())


def parse_split_spec(text: str) -> SplitSpec:
    """Parse 'train=0.8,val=0.1,test=0.1' (ratios) or 'val=800,test=863' (sizes in examples).

    A value with a decimal point is a ratio, an integer is a size. Train always takes the rest, so a
    train size (`train=1`) is refused: `--train-n` caps the training split.
    """
    values: dict[str, float | int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, raw = part.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or name not in SPLITS:
            raise ValueError(f"bad split {part!r}: expected NAME=VALUE with NAME in {SPLITS}")
        if name in values:
            raise ValueError(f"split {name!r} given twice in {text!r}")
        try:
            value: float | int = int(raw) if raw.lstrip("-").isdigit() else float(raw)
        except ValueError:
            raise ValueError(
                f"bad split value in {part!r}: expected a fraction (0.1) or a number of examples (800)"
            ) from None
        if value < 0:
            raise ValueError(f"negative split value in {part!r}")
        if name == "train" and isinstance(value, int):
            raise ValueError(
                f"{part!r} reads as a size: train takes what val and test leave; "
                "give a fraction (train=0.8) or cap the training split with --train-n"
            )
        values[name] = value
    if not values:
        raise ValueError("empty split specification")
    kinds = {isinstance(v, int) for v in values.values()}
    if len(kinds) > 1:
        raise ValueError(f"mix of sizes and ratios in {text!r}: use all integers or all fractions")
    if not kinds.pop():  # ratios
        total = sum(values.values())
        if any(v > 1 for v in values.values()):
            raise ValueError(f"a split ratio above 1 in {text!r}")
        if "train" in values and abs(total - 1.0) > 1e-6:
            raise ValueError(f"split ratios must sum to 1, got {total:g} in {text!r}")
        if total > 1.0 + 1e-6:
            raise ValueError(f"split ratios exceed 1 in {text!r}")
    return SplitSpec(values)


def story_order_key(story_id: str, seed: int) -> str:
    """Seeded, order-independent position of a story: a shuffled order that never depends on input order."""
    return hashlib.sha256(f"{seed}:{story_id}".encode()).hexdigest()


def examples_per_story(example_story_ids: Sequence[str]) -> dict[str, int]:
    per_story: dict[str, int] = {}
    for sid in example_story_ids:
        per_story[sid] = per_story.get(sid, 0) + 1
    return per_story


def whole_stories_up_to(example_story_ids: Sequence[str], limit: int, seed: int) -> set[str]:
    """Stories (in seeded order) whose examples together stay within `limit`; a story is never cut in two."""
    kept: set[str] = set()
    total = 0
    per_story = examples_per_story(example_story_ids)
    for sid in sorted(per_story, key=lambda s: story_order_key(s, seed)):
        if total + per_story[sid] <= limit:
            kept.add(sid)
            total += per_story[sid]
        if total == limit:
            break
    return kept


def assign_splits(example_story_ids: Sequence[str], spec: SplitSpec, seed: int) -> list[str]:
    """The split of each example (parallel to `example_story_ids`), grouped by story.

    Stories are taken in seeded hash order; test is filled first, then val, and the rest is train
    (sizes are met as closely as whole stories allow).
    """
    per_story = examples_per_story(example_story_ids)
    targets = spec.targets(len(example_story_ids))
    filled = {s: 0 for s in SPLITS}
    story_split: dict[str, str] = {}
    for sid in sorted(per_story, key=lambda s: story_order_key(s, seed)):
        split = next((s for s in ("test", "val") if filled[s] < targets[s]), "train")
        story_split[sid] = split
        filled[split] += per_story[sid]
    return [story_split[sid] for sid in example_story_ids]
