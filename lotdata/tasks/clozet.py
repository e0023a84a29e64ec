"""ClozeT: pick the right one of two candidate sentences for a masked position (LOT Section 3.1).

Its examples are written by people (the wrong candidate is a human rewrite), so it has no automatic
builder: datasets come from LOT jsonl (`lotdata import lot`), the Story Cloze Test csv or Label Studio.
"""

from __future__ import annotations

from typing import Any, Mapping

from lotdata.datasets.lotformat import lot_row_base
from lotdata.datasets.registry import TaskSpec, register_task
from lotdata.datasets.stats import Vocabulary, avg, input_stats
from lotdata.schema import CLOZET, MASK_TOKENS
from lotdata.text import join_sentences

TASK = "clozet"
MASK = MASK_TOKENS[TASK]


def to_lot(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"story": row["context"], "plot0": row["candidates"][0], "plot1": row["candidates"][1], "label": str(row["label"])}


def from_lot(record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    if record["story"].count(MASK) != 1:
        raise ValueError(f"story must hold exactly one {MASK}")
    if not isinstance(record["label"], str) or record["label"] not in ("0", "1"):
        raise ValueError(f"label must be the string '0' or '1', got {record['label']!r}")
    label = int(record["label"])
    candidates = [record["plot0"], record["plot1"]]
    full = record["story"].replace(MASK, candidates[label])
    base = lot_row_base(TASK, record, split=split, index=index, full_text=full)
    return {
        "example_id": base["example_id"], "story_id": base["story_id"], "split": split, "context": record["story"],
        "candidates": candidates, "label": label, "mask_sentence_index": None, "annotator": None,
        "annotation_id": None, "lang": base["lang"],
    }


def stats(rows: list[dict[str, Any]], vocab: Vocabulary) -> dict[str, Any]:
    result = input_stats([(r["context"].replace(MASK, ""), r["lang"]) for r in rows], vocab)
    result["avg_words_candidate"] = avg([len(vocab.words_of(c, r["lang"])) for r in rows for c in r["candidates"]])
    return result


def demo_examples(stories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mechanical ClozeT rows for tests and demos, not a benchmark: the middle sentence of each story is
    masked, the wrong candidate is a sentence of the next story (LOT's wrong candidates are written by people)."""
    usable = [s for s in stories if len(s["sentences"]) >= 3]
    rows = []
    for i, story in enumerate(usable):
        sentences, at = list(story["sentences"]), len(story["sentences"]) // 2
        other = usable[(i + 1) % len(usable)]["sentences"]
        right, wrong = sentences[at], other[len(other) // 2]
        label = i % 2
        rows.append({
            "example_id": f"{TASK}-{story['story_id']}-0", "story_id": story["story_id"],
            "context": join_sentences(sentences[:at] + [MASK] + sentences[at + 1 :], story["lang"]),
            "candidates": [wrong, right] if label else [right, wrong], "label": label, "mask_sentence_index": at,
            "annotator": None, "annotation_id": None, "lang": story["lang"],
        })
    return rows


SPEC = register_task(TaskSpec(
    name=TASK, schema=CLOZET, mask_token=MASK, lot_fields=(("story", "plot0", "plot1", "label"), ()),
    to_lot=to_lot, from_lot=from_lot, stats=stats, text_fields=("context", "candidates"),
    metric_family="understanding", prediction_field="label", prediction_type=str,
    card_category="multiple-choice",
    card_description="ClozeT: pick the right one of two candidate sentences for the masked position",
    card_limitations=("The wrong candidates are written by people; check them for artifacts (`lotdata audit-bias`).",),
    demo_examples=demo_examples,
))
