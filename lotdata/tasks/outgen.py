"""OutGen: title + shuffled RAKE outline (at most 8 phrases of at most 8 words) -> story."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from lotdata.datasets.lotformat import lot_row_base
from lotdata.datasets.registry import Builder, GenerationInput, TaskSpec, register_task
from lotdata.datasets.stats import Vocabulary, avg, input_stats
from lotdata.schema import OUTGEN
from lotdata.stage import param
from lotdata.tasks.common import StoryOutcome, story_rng
from lotdata.text import tokenize

TASK = "outgen"


@dataclass(frozen=True)
class OutgenParams:
    """`extractor`: "lot-rake" (LOT's Chinese RAKE, the default) or "rake-nltk"; `stopwords`: a stopword
    file (one word per line) instead of the shipped list, e.g. LOT's reference list."""

    max_phrases: int = param(8, "At most this many outline phrases, the top-ranked RAKE phrases (LOT: 8).", check=">0")
    max_words: int = param(
        8,
        "Phrases of more words than this are left out of the outline (LOT: 8).",
        flag="--max-phrase-words",
        check=">0",
    )
    min_phrases: int = param(1, "Stories whose outline has fewer phrases are dropped.", cli=False, check=">0")
    extractor: str = param("lot-rake", "lot-rake (LOT's Chinese RAKE) or rake-nltk.", cli=False)
    stopwords: str | None = param(
        None, "Stopword file (one word per line) instead of the shipped list, e.g. LOT's reference list."
    )

    def __post_init__(self) -> None:
        from lotdata.tasks.outline import outline_settings  # rake-nltk (nltk) loads only when an outline is made

        outline_settings(self)  # an unknown extractor or an unreadable stopword file fails before any work


def outgen_examples(
    story: Mapping[str, Any], params: OutgenParams, seed: int, tokenizer: str | None = None
) -> StoryOutcome:
    rng = story_rng(seed, TASK, story["story_id"])
    from lotdata.tasks.outline import extract_outline, with_config

    outline = extract_outline(
        story["text"],
        story["lang"],
        max_phrases=params.max_phrases,
        max_words=params.max_words,
        rng=rng,
        config=with_config(extractor=params.extractor, stopwords=params.stopwords),
        tokenizer=tokenizer,
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


# ---------------------------------------------------------------- the task record


def to_lot(row: Mapping[str, Any]) -> dict[str, Any]:
    record = {"story": row["story"], "outline": list(row["outline"])}
    if row.get("title") is not None:
        record["title"] = row["title"]
    return record


def from_lot(record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    if not isinstance(record["outline"], list) or not all(isinstance(p, str) for p in record["outline"]):
        raise ValueError("outline must be a list of strings")
    base = lot_row_base(TASK, record, split=split, index=index, full_text=record["story"])
    return {
        "example_id": base["example_id"],
        "story_id": base["story_id"],
        "split": split,
        "title": record.get("title"),
        "outline": record["outline"],
        "story": record["story"],
        "lang": base["lang"],
    }


def build_environment(params: Mapping[str, Any]) -> dict[str, Any]:
    """What decides an outline besides the parameters (the extractor's settings), for the manifest."""
    from lotdata.tasks.outline import outline_settings

    return {"outline_settings": outline_settings(params)}


def stats(rows: list[dict[str, Any]], vocab: Vocabulary) -> dict[str, Any]:
    result: dict[str, Any] = {
        # over titled rows only: null, not 0, when the source has none (LOT's NLPCC OutGen files)
        "avg_words_title": avg([len(vocab.words_of(r["title"], r["lang"])) for r in rows if r["title"]]),
        "avg_words_outline": avg([sum(len(vocab.words_of(p, r["lang"])) for p in r["outline"]) for r in rows]),
        "avg_phrases_outline": avg([len(r["outline"]) for r in rows]),
        "avg_words_per_phrase": avg([len(tokenize(p, r["lang"], vocab.tokenizer)) for r in rows for p in r["outline"]]),
    }
    out = input_stats([(r["story"], r["lang"]) for r in rows], vocab)
    result.update({k.replace("input", "output"): v for k, v in out.items()})
    return result


SPEC = register_task(
    TaskSpec(
        name=TASK,
        order=4,  # LOT's order of the tasks
        schema=OUTGEN,
        mask_token=None,
        lot_fields=(("story", "outline"), ("title",)),
        to_lot=to_lot,
        from_lot=from_lot,
        stats=stats,
        text_fields=("title", "outline", "story"),
        metric_family="generation",
        prediction_field="story",
        prediction_type=str,
        card_category="text-generation",
        card_description="OutGen: write the story from its title and an out-of-order outline of phrases",
        card_limitations=(
            "Outlines come from a RAKE extractor: a phrase set close to, not identical with, LOT's; the filling step is seeded.",
        ),
        builder=Builder(outgen_examples, OutgenParams),
        # BLEU/Distinct-1..4 under nlpcc2021 and paper: the NLPCC 2021 OutGen script's; LOT's tables stop at 2
        lot_metrics=("bleu-1", "bleu-2", "distinct-1", "distinct-2", "coverage", "order"),
        ngram_max_n_extended=4,
        outline_field="outline",
        lot_input_fields=("outline",),  # its `story` is the output itself, not an input
        generation_input=GenerationInput(source=("title", "outline"), target="story"),
        build_environment=build_environment,
        filtered_stories_only=True,  # LOT: "based on filtered stories"
    )
)
