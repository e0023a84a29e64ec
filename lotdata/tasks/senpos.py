"""SenPos: remove one inner sentence of a paragraph; every gap between adjacent sentences is a candidate.

Rules (LOT Section 3.2 and footnote 3): paragraphs under 500 words (the source's own paragraphs first,
`paragraph_breaks` in the stories table; a paragraph still too long is cut into runs of sentences);
sentences under 10 characters are merged with a neighbour inside their paragraph; the removed sentence
has at least 10 characters and is never the first or last; the label counts the gaps from 1.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping

from lotdata.datasets.lotformat import lot_row_base
from lotdata.datasets.registry import Builder, TaskSpec, register_task
from lotdata.datasets.stats import Vocabulary, avg, input_stats
from lotdata.schema import MASK_TOKENS, SENPOS
from lotdata.stage import param
from lotdata.tasks.common import StoryOutcome, check_at_least_one, inner_candidates, story_rng
from lotdata.text import count_words, detect_lang, join_sentences, merge_short_sentences
from lotdata.text.sentences import split_paragraphs

TASK = "senpos"
MASK = MASK_TOKENS[TASK]


@dataclass(frozen=True)
class SenposParams:
    """LOT's rules (10 characters, paragraphs under 500 words) and one of ours: `min_candidates` = 2
    drops paragraphs of fewer than 4 units (LOT does not say; 3 units would leave a single gap)."""

    min_chars: int = param(
        10, "Sentences shorter than this are merged; the removed one is at least this long (at least 1).", check=">0"
    )
    max_words: int | None = param(
        500,
        "Paragraphs must have fewer jieba words than this; a longer story is cut into "
        "such paragraphs (LOT: 500; 0: no limit).",
        check=">=0",
    )
    min_candidates: int = param(
        2,
        "Fewest candidate gaps an example may have (at least 1; 2: paragraphs of at least 4 units; our choice).",
        check=">0",
    )
    cut_paragraphs: bool = param(
        True, "Cut on the stories' own paragraph breaks first (LOT: paragraphs); --no-cut-paragraphs: the whole story."
    )

    def __post_init__(self) -> None:
        check_at_least_one(min_chars=self.min_chars, min_candidates=self.min_candidates)


@dataclass
class SenposOutcome(StoryOutcome):
    """A story's outcome plus what happened to each of its paragraphs (runs of a long story included)."""

    paragraphs: int = 0
    paragraphs_dropped: Counter = field(default_factory=Counter)


def paragraphs(sentences: list[str], lang: str, max_words: int | None, tokenizer: str | None = None) -> list[list[str]]:
    """Cut a story into consecutive runs of sentences, each under `max_words` words (None or 0: no limit),
    counted with `tokenizer` (default: `default_tokenizer()`).

    A story under the limit is one paragraph; a longer one is cut greedily. A single sentence over
    the limit starts and ends its own run (and is dropped later for having no gap).
    """
    if not max_words:
        return [list(sentences)] if sentences else []
    runs: list[list[str]] = [[]]
    words = 0
    for sentence in sentences:
        n = count_words(sentence, lang, tokenizer)
        if runs[-1] and words + n >= max_words:
            runs.append([])
            words = 0
        runs[-1].append(sentence)
        words += n
    return [run for run in runs if run]


def story_paragraphs(story: Mapping[str, Any], params: SenposParams, tokenizer: str | None = None) -> list[list[str]]:
    """The story's paragraphs (its own breaks first), short sentences merged inside each, cut under `max_words`.

    A source paragraph too short to hold an example (fewer than min_candidates + 2 units: web pages often
    put every sentence in its own paragraph) is joined to the next one, so cuts still fall on paragraph breaks.
    """
    breaks = story.get("paragraph_breaks") if params.cut_paragraphs else None
    runs: list[list[str]] = []
    pending: list[str] = []
    for source_paragraph in split_paragraphs(list(story["sentences"]), breaks):
        pending = pending + list(source_paragraph)
        merged = merge_short_sentences(pending, story["lang"], params.min_chars)
        if len(merged) - 2 < params.min_candidates:
            continue
        runs.extend(paragraphs(merged, story["lang"], params.max_words, tokenizer))
        pending = []
    if pending:  # a short tail joins the paragraph before it when that stays under the limit
        tail = merge_short_sentences(pending, story["lang"], params.min_chars)
        joined = merge_short_sentences([*(runs[-1] if runs else []), *pending], story["lang"], params.min_chars)
        if runs and (not params.max_words or count_words("".join(joined), story["lang"], tokenizer) < params.max_words):
            runs[-1] = joined
        else:
            runs.extend(paragraphs(tail, story["lang"], params.max_words, tokenizer))
    return runs


def senpos_examples(
    story: Mapping[str, Any], params: SenposParams, seed: int, tokenizer: str | None = None
) -> StoryOutcome:
    lang = story["lang"]
    outcome = SenposOutcome()
    reasons = []
    for part, para in enumerate(story_paragraphs(story, params, tokenizer)):
        outcome.paragraphs += 1
        if len(para) - 2 < params.min_candidates:
            reasons.append("too_few_sentences")
            outcome.paragraphs_dropped["too_few_sentences"] += 1
            continue
        eligible = inner_candidates(para, params.min_chars)
        if not eligible:
            reasons.append("no_eligible_sentence")
            outcome.paragraphs_dropped["no_eligible_sentence"] += 1
            continue
        removed_at = story_rng(seed, TASK, story["story_id"], part).choice(eligible)
        remaining = para[:removed_at] + para[removed_at + 1 :]
        outcome.examples.append(
            {
                "example_id": f"{TASK}-{story['story_id']}-{part}",
                "story_id": story["story_id"],
                "sentences": remaining,
                "removed": para[removed_at],
                "label": removed_at,  # gap k sits between remaining[k-1] and remaining[k]
                "n_candidates": len(remaining) - 1,
                "refined": False,
                "lang": lang,
            }
        )
    if not outcome.examples:
        outcome.dropped = reasons[0] if reasons else "empty"
    return outcome


def reinsert(sentences: list[str], removed: str, label: int) -> list[str]:
    """Put the removed sentence back at gap `label` (counted from 1)."""
    return sentences[:label] + [removed] + sentences[label:]


# ---------------------------------------------------------------- the task record


def to_lot(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"story": MASK.join(row["sentences"]), "sentence": row["removed"], "label": int(row["label"])}


def from_lot(record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    sentences = record["story"].split(MASK)
    label = record["label"]
    if not isinstance(label, int) or isinstance(label, bool) or not 1 <= label <= len(sentences) - 1:
        raise ValueError(f"label must be an int in 1..{len(sentences) - 1}, got {label!r}")
    lang = detect_lang(record["story"])
    full = join_sentences(sentences[:label] + [record["sentence"]] + sentences[label:], lang)
    base = lot_row_base(TASK, record, split=split, index=index, full_text=full)
    return {
        "example_id": base["example_id"],
        "story_id": base["story_id"],
        "split": split,
        "sentences": sentences,
        "removed": record["sentence"],
        "label": label,
        "n_candidates": len(sentences) - 1,
        "refined": True,
        "lang": lang,
    }


def parse_label(label: Any) -> int:
    """A predicted SenPos label as scored: a gap number from 1 (an int, or a string of digits); ValueError otherwise."""
    ok = isinstance(label, int) and not isinstance(label, bool) or isinstance(label, str) and label.isdigit()
    if not ok or int(label) < 1:
        raise ValueError(f"SenPos label {label!r} is not a gap number (an integer from 1)")
    return int(label)


def build_stats(stats: Any) -> dict[str, Any]:
    """The paragraph counts of a build (a long story gives several paragraphs) for the manifest."""
    return {"paragraphs": stats.paragraphs, "paragraphs_dropped": dict(sorted(stats.paragraphs_dropped.items()))}


def card_notes(rows: Mapping[str, list[Mapping[str, Any]]], notes: list[str]) -> list[str]:
    """The card's limitations, the first saying which splits annotators refined (the `refined` column)."""
    notes = list(notes)
    refined = [s for s, r in rows.items() if r and all(row.get("refined") for row in r)]
    partly = [s for s, r in rows.items() if any(row.get("refined") for row in r) and s not in refined]
    if refined or partly:
        what = "; ".join(
            x
            for x in (
                f"every row of {', '.join(refined)} was refined by annotators" if refined else "",
                f"part of {', '.join(partly)}" if partly else "",
            )
            if x
        )
        notes[0] = (
            f"Refinement (`refined`): {what}; other splits are automatic (LOT refined val/test so that exactly one position fits)."
        )
    return notes


def stats(rows: list[dict[str, Any]], vocab: Vocabulary) -> dict[str, Any]:
    # "Avg # Sent in Input Text" counts sentences before short ones were merged (input_stats splits the joined
    # text again): LOT Table 3 gives positions + 1.52-1.56, where merged units would always be positions + 1
    result = input_stats([(join_sentences(r["sentences"], r["lang"]), r["lang"]) for r in rows], vocab)
    result["avg_words_removed"] = avg([len(vocab.words_of(r["removed"], r["lang"])) for r in rows])
    result["avg_candidate_positions"] = avg([r["n_candidates"] for r in rows])
    return result


SPEC = register_task(
    TaskSpec(
        name=TASK,
        order=2,  # LOT's order of the tasks
        schema=SENPOS,
        mask_token=MASK,
        lot_fields=(("story", "sentence", "label"), ()),
        to_lot=to_lot,
        from_lot=from_lot,
        stats=stats,
        text_fields=("sentences", "removed"),
        metric_family="understanding",
        prediction_field="label",
        prediction_type=int,
        card_category="multiple-choice",
        card_description="SenPos: put the removed sentence back in the right gap between adjacent sentences",
        card_limitations=(
            "Automatic examples: val/test are not refined by annotators (LOT had each refined so that exactly one position fits); "
            "`refined` says which rows were.",
            "Paragraphs of fewer than min_candidates + 2 units are dropped: our choice, LOT does not state one.",
            "A source paragraph too short for an example is joined to the next one, so an example can span a paragraph "
            "break (LOT extracted paragraphs; web pages often put every sentence in its own paragraph, which would leave "
            "no example at all).",
        ),
        builder=Builder(senpos_examples, SenposParams),
        lot_metrics=("accuracy",),
        parse_prediction=parse_label,
        choice_shape="gaps",
        label_base=1,
        build_stats=build_stats,
        card_notes=card_notes,
    )
)
