"""PlotCom training examples: one random sentence removed and replaced by <MASK>.

LOT 3.3 built training data "by randomly removing one sentence from a story" (first and last included:
`mask_positions = "any"`, the default); `"inner"` keeps the first and last sentence, as lotdata did
before. Val/test come from ClozeT right candidates (LOT Section 3.3), not from this builder.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from lotdata.datasets.lotformat import lot_row_base
from lotdata.datasets.registry import Builder, GenerationInput, TaskSpec, ValTestSource, register_task
from lotdata.datasets.splits import SplitSpec, assign_splits, story_order_key
from lotdata.datasets.stats import Vocabulary, avg, input_stats
from lotdata.schema import MASK_TOKENS, PLOTCOM, SPLITS
from lotdata.stage import param
from lotdata.tasks.common import StoryOutcome, check_at_least_one, inner_candidates, merged_sentences, story_rng
from lotdata.text import count_chars, count_words, join_sentences, normalize_text

TASK = "plotcom"
MASK = MASK_TOKENS[TASK]


@dataclass(frozen=True)
class PlotcomParams:
    """`max_words` (stories of this many words or more are dropped; None or 0: no limit) is our choice:
    LOT states the 500-word limit for SenPos paragraphs only. `mask_positions`: "any" (LOT: any sentence of at
    least `min_chars` characters, first and last included) or "inner" (never the first or last)."""

    min_chars: int = param(
        10, "Sentences shorter than this are merged; the removed one is at least this long (at least 1).", check=">0"
    )
    max_words: int | None = param(
        500, "Stories must have fewer jieba words than this (our choice; 0: no limit).", check=">=0"
    )
    mask_positions: str = param(
        "any", "Training: any (LOT: any sentence, first and last included) or inner (never the first or last)."
    )

    def __post_init__(self) -> None:
        check_at_least_one(min_chars=self.min_chars)
        if self.mask_positions not in MASK_POSITIONS:
            raise ValueError(
                f"--mask-positions must be one of {', '.join(MASK_POSITIONS)} (got {self.mask_positions!r})"
            )


MASK_POSITIONS = ("any", "inner")


def _maskable(sentences: list[str], params: PlotcomParams) -> list[int]:
    if params.mask_positions == "inner":
        return inner_candidates(sentences, params.min_chars)
    return [i for i, sentence in enumerate(sentences) if count_chars(sentence) >= params.min_chars]


def plotcom_examples(
    story: Mapping[str, Any], params: PlotcomParams, seed: int, tokenizer: str | None = None
) -> StoryOutcome:
    lang = story["lang"]
    sentences = merged_sentences(story, params.min_chars)
    if len(sentences) < 3:
        return StoryOutcome(dropped="too_few_sentences")
    if params.max_words and count_words(story["text"], lang, tokenizer) >= params.max_words:
        return StoryOutcome(dropped="too_long")
    eligible = _maskable(sentences, params)
    if not eligible:
        return StoryOutcome(dropped="no_eligible_sentence")
    at = story_rng(seed, TASK, story["story_id"]).choice(eligible)
    context = join_sentences(sentences[:at] + [MASK] + sentences[at + 1 :], lang)
    example = {
        "example_id": f"{TASK}-{story['story_id']}-0",
        "story_id": story["story_id"],
        "context": context,
        "target": sentences[at],
        "mask_sentence_index": at,
        "lang": lang,
        "origin": "auto",
    }
    return StoryOutcome(examples=[example])


def plotcom_from_clozet(clozet_rows: Iterable[Mapping[str, Any]], origin: str = "clozet") -> list[dict[str, Any]]:
    """PlotCom val/test rows from ClozeT rows (LOT Section 3.3): the story with the right candidate as target.

    Each row keeps its ClozeT split and story id; the ClozeT mask becomes PlotCom's <MASK>.
    """
    clozet_mask = MASK_TOKENS["clozet"]
    rows = []
    for row in clozet_rows:
        if row["context"].count(clozet_mask) != 1:
            raise ValueError(
                f"ClozeT example {row['example_id']} has {row['context'].count(clozet_mask)} masks, expected 1"
            )
        rows.append(
            {
                "example_id": f"{TASK}-from-{row['example_id']}",
                "story_id": row["story_id"],
                "split": row["split"],
                "context": row["context"].replace(clozet_mask, MASK),
                "target": row["candidates"][row["label"]],
                "mask_sentence_index": row.get("mask_sentence_index"),
                "lang": row["lang"],
                "origin": origin,
            }
        )
    return rows


def stories_held_by(stories: Sequence[Mapping[str, Any]], clozet_rows: Sequence[Mapping[str, Any]]) -> set[str]:
    """Ids of the stories that are also ClozeT stories: same story id (same normalised text), or a story
    holding the ClozeT right candidate as one of its sentences with the context on either side of it."""
    held = {row["story_id"] for row in clozet_rows}
    by_sentence: dict[str, list[int]] = {}
    for i, story in enumerate(stories):
        for sentence in story["sentences"]:
            by_sentence.setdefault(sentence.strip(), []).append(i)
    mask = MASK_TOKENS["clozet"]
    for row in clozet_rows:
        target = normalize_text(row["candidates"][row["label"]], row["lang"]).strip()
        before, _, after = row["context"].partition(mask)
        before = normalize_text(before, row["lang"])[-12:] if before.strip() else ""
        after = normalize_text(after, row["lang"])[:12] if after.strip() else ""
        for i in by_sentence.get(target, ()):
            text = stories[i]["text"]
            if before in text and after in text:
                held.add(stories[i]["story_id"])
    return {story["story_id"] for story in stories} & held


def sample_clozet(
    clozet_rows: Mapping[str, list[dict[str, Any]]], spec: SplitSpec, seed: int
) -> dict[str, list[dict[str, Any]]]:
    """LOT's PlotCom val/test: ClozeT examples sampled across every ClozeT split, whole stories in seeded
    order (test filled first, then val); no story in two splits. Returns rows by their new split
    ("train": the rows not sampled)."""
    pool = [row for split in SPLITS for row in clozet_rows.get(split, [])]
    pool.sort(key=lambda row: (story_order_key(row["story_id"], seed), row["example_id"]))
    assigned = assign_splits([row["story_id"] for row in pool], spec, seed)
    by_split: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for row, new_split in zip(pool, assigned):
        by_split[new_split].append({**row, "split": new_split})
    return by_split


# ---------------------------------------------------------------- the task record


def to_lot(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"story": row["context"], "plot": row["target"]}


def from_lot(record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    if record["story"].count(MASK) != 1:
        raise ValueError(f"story must hold exactly one {MASK}")
    base = lot_row_base(TASK, record, split=split, index=index, full_text=record["story"].replace(MASK, record["plot"]))
    return {
        "example_id": base["example_id"],
        "story_id": base["story_id"],
        "split": split,
        "context": record["story"],
        "target": record["plot"],
        "mask_sentence_index": None,
        "lang": base["lang"],
    }


def masked_positions(examples: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """How many automatic PlotCom examples mask the first, an inner or the last sentence."""
    counts: Counter = Counter()
    for ex in examples:
        if (ex.get("origin") or "auto") != "auto":
            continue
        last = ex["context"].rstrip().endswith(MASK)
        counts["first" if ex["mask_sentence_index"] == 0 else "last" if last else "inner"] += 1
    return {k: counts[k] for k in ("first", "inner", "last")}


def split_summary(by_split: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Any]:
    """The built splits' figures for the manifest: where train masks its sentence."""
    return {"masked_positions": masked_positions(by_split["train"])}


def stats(rows: list[dict[str, Any]], vocab: Vocabulary) -> dict[str, Any]:
    result = input_stats([(r["context"].replace(MASK, ""), r["lang"]) for r in rows], vocab)
    result["avg_words_output"] = avg([len(vocab.words_of(r["target"], r["lang"])) for r in rows])
    return result


SPEC = register_task(
    TaskSpec(
        name=TASK,
        order=3,  # LOT's order of the tasks
        schema=PLOTCOM,
        mask_token=MASK,
        lot_fields=(("story", "plot"), ()),
        to_lot=to_lot,
        from_lot=from_lot,
        stats=stats,
        text_fields=("context", "target"),
        metric_family="generation",
        prediction_field="plot",
        prediction_type=str,
        card_category="text-generation",
        card_description="PlotCom: generate the sentence behind <MASK> so the story reads coherently",
        card_limitations=(
            "Rows with origin `auto` come from random removal: the removed sentence may not be inferable from the context "
            "(LOT Table 4); LOT used such rows for training only.",
            "Stories of max_words jieba words or more are dropped: our choice (LOT states 500 words for SenPos paragraphs).",
        ),
        builder=Builder(plotcom_examples, PlotcomParams),
        lot_metrics=("bleu-1", "bleu-2", "distinct-1", "distinct-2"),
        generation_input=GenerationInput(source=("context",), target="target", short_target=True),
        split_summary=split_summary,
        val_test_from=ValTestSource("clozet", plotcom_from_clozet, held_by=stories_held_by, sample=sample_clozet),
    )
)
