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
    """Either ratios (floats summing to 1) or sizes in examples (ints; train takes the rest)."""

    values: Mapping[str, float | int]

    @property
    def by_size(self) -> bool:
        return all(isinstance(v, int) for v in self.values.values())

    def targets(self, total: int) -> dict[str, int]:
        """Number of examples each split should get out of `total`."""
        if self.by_size:
            targets = {s: int(self.values.get(s, 0)) for s in SPLITS if s != "train"}
            if "train" in self.values:
                targets["train"] = int(self.values["train"])
            else:
                targets["train"] = max(total - sum(targets.values()), 0)
            return targets
        held_out = {s: int(round(float(self.values.get(s, 0.0)) * total)) for s in SPLITS if s != "train"}
        held_out["train"] = max(total - sum(held_out.values()), 0)
        return held_out

    def __str__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.values.items())


def parse_split_spec(text: str) -> SplitSpec:
    """Parse 'train=0.8,val=0.1,test=0.1' (ratios) or 'val=800,test=863' (sizes in examples)."""
    values: dict[str, float | int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, raw = part.partition("=")
        name = name.strip()
        if not sep or name not in SPLITS:
            raise ValueError(f"bad split {part!r}: expected NAME=VALUE with NAME in {SPLITS}")
        try:
            value: float | int = int(raw) if raw.strip().isdigit() else float(raw)
        except ValueError:
            raise ValueError(f"bad split value in {part!r}") from None
        if value < 0:
            raise ValueError(f"negative split value in {part!r}")
        values[name] = value
    if not values:
        raise ValueError("empty split specification")
    kinds = {isinstance(v, int) for v in values.values()}
    if len(kinds) > 1:
        raise ValueError(f"mix of sizes and ratios in {text!r}: use all integers or all fractions")
    if not kinds.pop():  # ratios
        total = sum(values.values())
        if "train" in values and abs(total - 1.0) > 1e-6:
            raise ValueError(f"split ratios must sum to 1, got {total:g} in {text!r}")
        if total > 1.0 + 1e-6:
            raise ValueError(f"split ratios exceed 1 in {text!r}")
    return SplitSpec(values)


def story_order_key(story_id: str, seed: int) -> str:
    """Seeded, order-independent position of a story: a shuffled order that never depends on input order."""
    return hashlib.sha256(f"{seed}:{story_id}".encode()).hexdigest()


def assign_splits(example_story_ids: Sequence[str], spec: SplitSpec, seed: int) -> list[str]:
    """The split of each example (parallel to `example_story_ids`), grouped by story.

    Stories are taken in seeded hash order; test is filled first, then val, and the rest is train
    (sizes are met as closely as whole stories allow).
    """
    per_story: dict[str, int] = {}
    for sid in example_story_ids:
        per_story[sid] = per_story.get(sid, 0) + 1
    targets = spec.targets(len(example_story_ids))
    filled = {s: 0 for s in SPLITS}
    story_split: dict[str, str] = {}
    order = sorted(per_story, key=lambda sid: story_order_key(sid, seed))
    fill_order = ["test", "val", "train"]
    for sid in order:
        for split in fill_order:
            if filled[split] < targets[split]:
                story_split[sid] = split
                filled[split] += per_story[sid]
                break
        else:
            story_split[sid] = "" if spec.by_size and "train" in spec.values else "train"
    return [story_split[sid] for sid in example_story_ids]
