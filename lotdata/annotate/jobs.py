"""The six annotation jobs. A job is data plus small functions: its template, the rows it reads,
`to_tasks` (stable `uid`, pre-annotations), `check` (job rules on top of the template), `votes`
(what agreement is measured on) and `assemble` (decided items -> final tables).

A task is `{"data": ..., "hidden": ..., "predictions": ...}`: `data` holds only what a rater may see; `hidden`
(the right answer, the system behind an output, the original label, the input row) never goes to Label Studio:
the workflow keeps it locally and gives it back at pull as `Annotation.hidden`, so a pull never needs the
pushed input again. Uids are opaque where a readable one would give the answer away.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

from lotdata.annotate.agreement import fleiss_kappa, majority_vote
from lotdata.annotate.template import InvalidResult, Template, load_template
from lotdata.errors import InputError, must_exist, require
from lotdata.io import iter_jsonl
from lotdata.schema import MASK_TOKENS, SPLITS
from lotdata.tasks.common import merged_sentences
from lotdata.text import count_words, join_sentences, normalize_text, split_sentences, tokenize
from lotdata.text.sentences import paragraph_breaks

Row = dict[str, Any]


@dataclass
class Annotation:
    """One validated annotation, with its task's data."""

    uid: str
    data: Mapping[str, Any]
    annotator: str
    annotation_id: int
    created_at: str
    values: dict[str, Any]  # job-level parsed answer
    hidden: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Job:
    name: str
    raters: int
    default_splits: tuple[str, ...] | None
    load: Callable[[Path, Sequence[str] | None], list[Row]]
    to_tasks: Callable[..., list[dict[str, Any]]]  # (rows, *, seed=0)
    check: Callable[[dict[str, Any], Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]  # (values, data, hidden)
    votes: Callable[[dict[str, Any]], list[tuple[str, Hashable]]]
    assemble: Callable[[list[Annotation]], dict[str, Any]]
    sample_key: Callable[[Row], str] | None = None  # what `--sample N` draws (an input, an example)
    default_sample: int | None = None

    @property
    def template(self) -> Template:
        return load_template(self.name)

    def parse(self, result: Any, data: Mapping[str, Any], hidden: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Template check, then the job's own rules; InvalidResult names what is wrong."""
        return self.check(self.template.parse(result, data), data, hidden or {})


def _prediction(model: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"model_version": model, "result": items}]


def _choice(name: str, to_name: str, values: list[str]) -> dict[str, Any]:
    return {"from_name": name, "to_name": to_name, "type": "choices", "value": {"choices": values}}


def _seeded_rank(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def opaque_uid(prefix: str, *parts: Any) -> str:
    """A stable uid that says nothing about its parts (a rater sees the uid in the task list)."""
    return f"{prefix}-{_seeded_rank(json.dumps(parts, ensure_ascii=False))[:16]}"


def sample_rows(rows: list[Row], n: int, seed: int, key: Callable[[Row], str]) -> list[Row]:
    """The rows of `n` groups (by `key`) drawn without replacement, seeded; input order kept."""
    groups = sorted({key(r) for r in rows}, key=lambda g: _seeded_rank(f"{seed}:{g}"))
    chosen = set(groups[:n])
    return [r for r in rows if key(r) in chosen]


def _by_uid(annotations: Iterable[Annotation]) -> dict[str, list[Annotation]]:
    grouped: dict[str, list[Annotation]] = {}
    for ann in sorted(annotations, key=lambda a: (a.created_at, a.annotation_id)):
        grouped.setdefault(ann.uid, []).append(ann)
    return grouped


def _numbers(low: int, high: int) -> list[dict[str, str]]:
    """Dynamic choices `low..high` (Label Studio gives them the hotkeys 1, 2, ... in order)."""
    return [{"value": str(k)} for k in range(low, high + 1)]


# ---------------------------------------------------------------- inputs

def _load_stories(path: Path, splits: Sequence[str] | None) -> list[Row]:
    from lotdata.datasets.folder import load_stories

    return load_stories([path])


def _load_dataset_rows(path: Path, splits: Sequence[str] | None, tasks: Sequence[str]) -> list[Row]:
    from lotdata.datasets.folder import dataset_task, read_dataset

    if not path.is_dir():
        raise InputError(f"expected a {' or '.join(tasks)} dataset folder", path=str(path))
    found = dataset_task(path)
    if found not in tasks:
        raise InputError(f"a {found} dataset, expected {' or '.join(tasks)}", path=str(path))
    tables = read_dataset(path)
    return [{**row, "_task": found} for split in (splits or SPLITS) if split in tables for row in tables[split].to_pylist()]


def _load_dataset(task: str) -> Callable[[Path, Sequence[str] | None], list[Row]]:
    def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
        return [{k: v for k, v in row.items() if k != "_task"} for row in _load_dataset_rows(path, splits, [task])]

    return load


def _load_outputs(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Generated outputs for human evaluation: Parquet or jsonl with input_id, input, system, output."""
    import pyarrow.parquet as pq

    must_exist(path, "input")
    if path.suffix == ".parquet":
        rows = pq.read_table(path).to_pylist()
    else:
        rows = [row for _, row in iter_jsonl(path)]
    for n, row in enumerate(rows, 1):
        missing = [k for k in ("input_id", "input", "system", "output") if not row.get(k) and row.get(k) != 0]
        if missing:
            raise InputError(f"missing {missing}", path=str(path), row=n)
    systems: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        systems[str(row["input_id"])].add(str(row["system"]))
    for input_id, names in systems.items():
        if len(names) != len(EVAL_SLOTS):
            raise InputError(f"input_id {input_id!r} has {len(names)} system(s) {sorted(names)}; human_eval shows "
                             f"exactly {len(EVAL_SLOTS)} side by side (LOT Table 12)", path=str(path))
    return rows


# ---------------------------------------------------------------- story_filter

REJECT_REASONS = ("no_main_plot", "figurative", "non_narrative", "non_standard_chinese", "illogical", "unique_setting",
                  "ethics_discrimination", "ethics_harmful", "other")
#: LOT appendix: the rewrite differs from the segment by at most 100 words
MAX_REWRITE_WORD_CHANGE = 100


def _load_story_filter(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Story segments (`lotdata build segments`) or whole stories (each its own segment), as segments."""
    import pyarrow.parquet as pq

    from lotdata.tasks.segments import read_segments, story_as_segment

    if path.is_file() and "segment_id" in pq.read_schema(path).names:
        return read_segments(path)
    return [{**story_as_segment(story), "_story": story} for story in _load_stories(path, splits)]


def _story_filter_tasks(rows: list[Row], *, seed: int = 0) -> list[dict[str, Any]]:
    tasks = []
    for row in rows:
        story = row.get("_story")  # a whole story keeps its row; a segment becomes a story of its own
        if story is None:
            story = {k: row[k] for k in ("title", "lang", "source", "source_id", "url", "license", "fetched_at")}
            story.update(story_id=row["segment_id"], text=row["text"])
        tasks.append({
            "data": {"uid": row["segment_id"], "title": row.get("title") or "", "text": row["text"], "reference": row["story_text"]},
            "hidden": {"story": story, "segment": {k: row[k] for k in ("segment_id", "story_id", "start_char", "end_char")}},
        })
    return tasks


def _story_filter_check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    decision = values["decision"]
    rewritten = values.get("rewritten", "")
    reasons = values.get("reason", [])
    if decision == "rewrite":
        if not rewritten:
            raise InvalidResult("decision 'rewrite' without the rewritten story")
        lang = hidden.get("story", {}).get("lang", "zh")
        change = abs(count_words(rewritten, lang) - count_words(data["text"], lang))
        if change > MAX_REWRITE_WORD_CHANGE:
            raise InvalidResult(f"rewritten: {change} words longer or shorter than the segment (at most {MAX_REWRITE_WORD_CHANGE})")
    if decision == "reject" and not reasons:
        raise InvalidResult("decision 'reject' without a reason")
    return {"decision": decision, "reasons": reasons if decision == "reject" else [], "rewritten": rewritten if decision == "rewrite" else None}


def _story_filter_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    stories, history = [], []
    counts: Counter = Counter()
    reasons: Counter = Counter()
    for uid, anns in _by_uid(annotations).items():
        story = {"sentences": [], "status": "raw", "flags": [], **anns[0].hidden["story"]}
        segment = anns[0].hidden.get("segment", {})
        old_text = story["text"]
        decision = majority_vote(a.values["decision"] for a in anns)
        chosen = next((a for a in reversed(anns) if a.values["decision"] == decision), None)
        for ann in anns:
            new_text = ann.values["rewritten"]
            history.append({
                "story_id": story["story_id"], "source_story_id": segment.get("story_id"), "decision": ann.values["decision"],
                "reason": ",".join(ann.values["reasons"]) or None, "old_text": old_text,
                "new_text": normalize_text(new_text, story["lang"]) if new_text else None,
                "annotator": ann.annotator, "annotation_id": str(ann.annotation_id), "time": ann.created_at, "final": ann is chosen,
            })
        counts[decision or "undecided"] += 1
        if decision == "reject":
            reasons.update(r for a in anns if a.values["decision"] == "reject" for r in a.values["reasons"])
        story["sentences"] = story["sentences"] or split_sentences(story["text"], story["lang"])
        if decision == "accept":
            story["status"] = "accepted"
        elif decision == "reject":
            story["status"] = "rejected"
        elif decision == "rewrite":
            # the story id stays: the decisions table links the old and new text under it
            story["text"] = normalize_text(chosen.values["rewritten"], story["lang"])
            story["sentences"] = split_sentences(story["text"], story["lang"])
            # the annotator's line breaks are the rewritten story's paragraphs (the old breaks index old sentences)
            story["paragraph_breaks"] = paragraph_breaks(chosen.values["rewritten"], story["text"], story["sentences"], story["lang"])
            story["status"] = "rewritten"
        stories.append(story)
    return {"stories": stories, "story_decisions": history, "stats": {**dict(counts), "reject_reasons": dict(reasons)}}


# ---------------------------------------------------------------- clozet_write

#: words that mark a consequence, reaction or intention: sentences with them follow from context
_INFERABLE = re.compile("于是|所以|因此|终于|结果|只好|便|决定|就|后来|最后|so |then |finally|decided|because")
#: a wrong candidate that differs from the original only by these is a negation-only edit (appendix 2.2 d)
_NEGATIONS = re.compile("不是|没有|并不|并没有|从不|从没|不|没|未|别|无|非|not |no |never |n't")


def mask_guess(sentences: Sequence[str]) -> int:
    """The sentence (0-based) a heuristic would mask: a middle one (LOT aimed at the middle; never the first or the
    last), the one with most consequence markers, ties to the one nearest the centre. Two sentences: the second."""
    if len(sentences) < 3:
        return len(sentences) - 1
    centre = (len(sentences) - 1) / 2
    return max(range(1, len(sentences) - 1), key=lambda i: (len(_INFERABLE.findall(sentences[i])), -abs(i - centre), -i))


def _numbered(sentences: Sequence[str]) -> str:
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(sentences, 1))


def _content_words(text: str, lang: str) -> set[str]:
    return {w for w in tokenize(text, lang) if len(w) >= 2 and any(ch.isalnum() for ch in w)}


def wrong_candidate_problem(wrong: str, original: str, context: Sequence[str], lang: str) -> str | None:
    """Which of the appendix's mechanical rules (Figure 2, 2.2) a wrong candidate breaks, or None.

    Not empty; not the original; 1/2 to 2 times the original's length (characters); on topic: it shares a content
    word (jieba, two characters or more) with the story; not the original with only negation words added or removed.
    """
    if not wrong:
        return "empty"
    if wrong == original:
        return "identical to the masked sentence"
    if not len(original) / 2 <= len(wrong) <= 2 * len(original):
        return f"{len(wrong)} characters, outside 1/2 to 2 times the original's {len(original)}"
    if not _content_words(wrong, lang) & _content_words(join_sentences([*context, original], lang), lang):
        return "shares no content word with the story (off topic)"
    if negation_only_edit(original, wrong):
        return "differs from the original only by negation words (rewrite it another way)"
    return None


def negation_only_edit(original: str, wrong: str) -> bool:
    """True when every change from `original` to `wrong` puts in or takes out a negation word (at most one other
    character replaced by it, as 很 -> 不)."""
    import difflib

    changes = [op for op in difflib.SequenceMatcher(None, original, wrong, autojunk=False).get_opcodes() if op[0] != "equal"]
    for _tag, i1, i2, j1, j2 in changes:
        added, removed = wrong[j1:j2], original[i1:i2]
        negation_in = bool(added) and not _NEGATIONS.sub("", added)
        negation_out = bool(removed) and not _NEGATIONS.sub("", removed)
        if not ((negation_in and len(removed) <= 1) or (negation_out and len(added) <= 1)):
            return False
    return bool(changes)


def _clozet_rows(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Stories for ClozeT writing, each given a split, grouped by story and seeded.

    Plain names (`val,test`) share the stories evenly in seeded order; ratios (`train=0.5,val=0.25,test=0.25`)
    use the builders' split assignment.
    """
    from lotdata.datasets.splits import assign_splits, parse_split_spec, story_order_key

    splits = list(splits or ("val", "test"))
    stories = [s for s in _load_stories(path, None) if s["status"] != "rejected"]
    stories = [{**s, "sentences": merged_sentences(s, 10)} for s in stories]
    stories = [s for s in stories if len(s["sentences"]) >= 3]
    if any("=" in s for s in splits):
        assigned = assign_splits([s["story_id"] for s in stories], parse_split_spec(",".join(splits)), 0)
    else:
        unknown = [s for s in splits if s not in SPLITS]
        if unknown:
            raise ValueError(f"unknown split(s) {unknown}; splits: {', '.join(SPLITS)}")
        rank = {s["story_id"]: i for i, s in enumerate(sorted(stories, key=lambda s: story_order_key(s["story_id"], 0)))}
        assigned = [splits[rank[s["story_id"]] % len(splits)] for s in stories]
    for story, split in zip(stories, assigned):
        story["split"] = split
    return [s for s in stories if s["split"]]


def _clozet_tasks(rows: list[Row], *, seed: int = 0) -> list[dict[str, Any]]:
    tasks = []
    for row in rows:
        guess = mask_guess(row["sentences"])
        data = {"uid": f"clozet-{row['story_id']}", "numbered": _numbered(row["sentences"]),
                "sentence_choices": _numbers(2, len(row["sentences"]))}
        hidden = {"story_id": row["story_id"], "split": row["split"], "lang": row["lang"], "sentences": list(row["sentences"]),
                  "license": row.get("license")}
        guesses = [_choice("decision", "story", ["write"]), _choice("mask_sentence", "story", [str(guess + 1)])]
        tasks.append({"data": data, "hidden": hidden, "predictions": _prediction("lotdata-mask-heuristic", guesses)})
    return tasks


def _clozet_check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    if values.get("decision") == "reject":
        return {"rejected": True}
    sentences = hidden["sentences"]
    number = values.get("mask_sentence")
    if number is None:
        raise InvalidResult("mask_sentence: missing")
    number = int(number)
    if not 2 <= number <= len(sentences):
        raise InvalidResult(f"mask_sentence: {number} is not a sentence from 2 to {len(sentences)}")
    index = number - 1
    wrong = normalize_text(values.get("wrong_candidate", ""), hidden["lang"])
    problem = wrong_candidate_problem(wrong, sentences[index], sentences[:index] + sentences[index + 1 :], hidden["lang"])
    if problem:
        raise InvalidResult(f"wrong_candidate: {problem}")
    if "policy" not in values:
        raise InvalidResult("policy: missing")
    return {"rejected": False, "index": index, "wrong": wrong, "policy": values["policy"]}


def _clozet_votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [("mask_sentence", "reject" if values["rejected"] else values["index"] + 1)]


def balance_labels(examples: list[Row]) -> list[Row]:
    """Put the right candidate first in half of each split and second in the other half (seeded by example id)."""
    by_split: dict[str, list[Row]] = {}
    for ex in examples:
        by_split.setdefault(ex["split"], []).append(ex)
    out = []
    for rows in by_split.values():
        for rank, ex in enumerate(sorted(rows, key=lambda r: _seeded_rank(r["example_id"]))):
            right, wrong = ex.pop("_right"), ex.pop("_wrong")
            label = rank % 2
            out.append({**ex, "candidates": [right, wrong] if label == 0 else [wrong, right], "label": label})
    return sorted(out, key=lambda r: r["example_id"])


def _clozet_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Per story, a vote: the sentence most raters chose (or "reject"); then, among the raters who chose it, the
    wrong candidate most of them wrote, else a seeded pick among theirs (never simply the earliest)."""
    examples, policies, dropped, how = [], Counter(), Counter(), Counter()
    for uid, anns in _by_uid(annotations).items():
        outcome = majority_vote("reject" if a.values["rejected"] else a.values["index"] for a in anns)
        if outcome is None:
            dropped["no_majority"] += 1
            continue
        if outcome == "reject":
            dropped["rejected"] += 1
            continue
        voters = [a for a in anns if not a.values["rejected"] and a.values["index"] == outcome]
        wrong = majority_vote(a.values["wrong"] for a in voters)
        how["wrong_by_majority" if wrong is not None else "wrong_by_seeded_pick"] += 1
        if wrong is None:
            wrong = min((a.values["wrong"] for a in voters), key=lambda w: _seeded_rank(f"{uid}:{w}"))
        ann = next(a for a in voters if a.values["wrong"] == wrong)
        hidden, index = ann.hidden, outcome
        sentences = list(hidden["sentences"])
        policies[ann.values["policy"]] += 1
        examples.append({
            "example_id": uid, "story_id": hidden["story_id"], "split": hidden["split"],
            "context": join_sentences(sentences[:index] + [MASK_TOKENS["clozet"]] + sentences[index + 1 :], hidden["lang"]),
            "_right": sentences[index], "_wrong": wrong, "mask_sentence_index": index,
            "annotator": ann.annotator, "annotation_id": str(ann.annotation_id), "lang": hidden["lang"],
        })
    return {"clozet": balance_labels(examples), "stats": {"policies": dict(policies), "dropped": dict(dropped), "vote": dict(how)}}


# ---------------------------------------------------------------- cloze_verify

#: what the three codes mean to a rater (the template's labels) under our reading of the SCT rule
VERIFY_READING = {1: "合理 (makes sense)", 0: "不合理 (breaks common sense or its own logic)", -1: "无法判断 (cannot judge: the rest of the story is itself broken)"}


def _verify_tasks(rows: list[Row], *, seed: int = 0) -> list[dict[str, Any]]:
    tasks = []
    mask = MASK_TOKENS["clozet"]
    for row in rows:
        right = row["candidates"][row["label"]]
        wrong = row["candidates"][1 - row["label"]]
        for role, candidate in (("right", right), ("wrong", wrong)):
            tasks.append({
                "data": {"uid": opaque_uid("verify", row["example_id"], role), "story": row["context"].replace(mask, candidate)},
                "hidden": {"example_id": row["example_id"], "role": role, "example": row},
            })
    return tasks


def _verify_check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    return {"rating": int(values["rating"])}


def _verify_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """The Story Cloze Test rule under our reading (VERIFY_READING): keep a case when every rater found the story
    with the right sentence reasonable (1) and the story with the wrong one unreasonable (0), each from at least
    as many raters as were asked for at push time. A -1 (cannot judge) on either story drops the case."""
    ratings: dict[str, dict[str, list[int]]] = {}
    examples: dict[str, Row] = {}
    for ann in annotations:
        example_id = ann.hidden["example_id"]
        ratings.setdefault(example_id, {"right": [], "wrong": []})[ann.hidden["role"]].append(ann.values["rating"])
        examples.setdefault(example_id, dict(ann.hidden["example"]))
    wanted = {ann.hidden["example_id"]: int(ann.data.get("raters", 3)) for ann in annotations}
    kept, dropped = [], Counter()
    for example_id, by_role in sorted(ratings.items()):
        right, wrong, raters = by_role["right"], by_role["wrong"], wanted[example_id]
        if len(right) < raters or len(wrong) < raters:
            dropped["too_few_ratings"] += 1
        elif all(r == 1 for r in right) and all(r == 0 for r in wrong):
            kept.append(examples[example_id])
        elif -1 in right or -1 in wrong:
            dropped["cannot_judge"] += 1
        else:
            dropped["not_unanimous"] += 1
    return {"clozet": kept, "stats": {"kept": len(kept), "dropped": dict(dropped)}}


# ---------------------------------------------------------------- senpos_refine

def _gapped(sentences: Sequence[str]) -> str:
    parts = [sentences[0]]
    for k, sentence in enumerate(sentences[1:], 1):
        parts.append(f" [{k}] {sentence}")
    return "".join(parts)


def _senpos_tasks(rows: list[Row], *, seed: int = 0) -> list[dict[str, Any]]:
    tasks = []
    for row in rows:
        data = {"uid": row["example_id"], "removed": row["removed"], "numbered": _gapped(row["sentences"]),
                "gap_choices": _numbers(1, len(row["sentences"]) - 1)}
        guesses = [_choice("gaps", "story", [str(row["label"])]), _choice("verdict", "story", ["keep"])]
        tasks.append({"data": data, "hidden": {"example": row, "original_gap": int(row["label"])},
                      "predictions": _prediction("lotdata-senpos-auto", guesses)})
    return tasks


def _senpos_check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    """Moving the sentence is a decision of its own: 'keep' must mark only the original gap, 'move' exactly one other."""
    verdict = values.get("verdict", "keep")
    if verdict == "reject":
        return {"rejected": True}
    example = hidden["example"]
    original = int(hidden["original_gap"])
    sentence, sentences = example["removed"], list(example["sentences"])
    if verdict == "revise":
        if values.get("revised_sentence"):
            sentence = normalize_text(values["revised_sentence"], example["lang"])
        if values.get("revised_story"):
            sentences = [normalize_text(line, example["lang"]) for line in values["revised_story"].splitlines() if line.strip()]
            if len(sentences) < 2:
                raise InvalidResult("revised_story: fewer than two sentences")
    gaps = tuple(int(g) for g in values.get("gaps", []))
    if not gaps:
        raise InvalidResult("gaps: no gap marked and not rejected")
    if max(gaps) > len(sentences) - 1:
        raise InvalidResult(f"gaps: {max(gaps)} beyond the last gap ({len(sentences) - 1}) of the story")
    if verdict == "keep" and gaps != (original,):
        raise InvalidResult(f"verdict 'keep' but gaps {list(gaps)} are not the original gap [{original}]: choose 'move', 'revise' or 'reject'")
    if verdict == "move" and (len(gaps) != 1 or gaps[0] == original):
        raise InvalidResult(f"verdict 'move' needs exactly one gap other than the original {original}, got {list(gaps)}")
    return {"rejected": False, "gaps": gaps, "removed": sentence, "sentences": sentences, "revised": verdict == "revise",
            "moved": verdict == "move"}


def _senpos_votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [("gaps", "reject" if values["rejected"] else ",".join(map(str, values["gaps"])))]


def _senpos_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Majority of the raters' answers (reject, or the set of fitting gaps); one gap must fit. A label that moves
    away from the automatic one is counted and listed; with one rater it is listed as unconfirmed."""
    examples, dropped, moved = [], Counter(), []
    for uid, anns in _by_uid(annotations).items():
        outcome = majority_vote("reject" if a.values["rejected"] else a.values["gaps"] for a in anns)
        if outcome is None:
            dropped["no_majority"] += 1
            continue
        if outcome == "reject":
            dropped["rejected"] += 1
            continue
        if len(outcome) != 1:
            dropped["several_gaps_fit"] += 1
            continue
        chosen = [a for a in anns if not a.values["rejected"] and a.values["gaps"] == outcome]
        ann = next((a for a in reversed(chosen) if a.values["revised"]), chosen[-1])
        example = dict(ann.hidden["example"])
        sentences = ann.values["sentences"]
        if not ann.values["revised"] and outcome[0] != ann.hidden["original_gap"]:
            moved.append({"example_id": example["example_id"], "from": ann.hidden["original_gap"], "to": outcome[0],
                          "raters_agreeing": len(chosen), "raters": len(anns), "confirmed": len(chosen) >= 2})
        examples.append({
            **example, "sentences": sentences, "removed": ann.values["removed"], "label": outcome[0],
            "n_candidates": len(sentences) - 1, "refined": True,
        })
    stats = {"kept": len(examples), "dropped": dict(dropped), "moved": len(moved),
             "moved_unconfirmed": sum(not m["confirmed"] for m in moved), "moved_examples": moved}
    return {"senpos": examples, "stats": stats}


# ---------------------------------------------------------------- human_eval

ASPECTS = ("grammaticality", "coherence", "relatedness")
EVAL_SLOTS = ("A", "B", "C")


def _input_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _human_eval_tasks(rows: list[Row], *, seed: int = 0) -> list[dict[str, Any]]:
    """One task per input, its outputs side by side in a seeded shuffled order (A/B/C); the slots' systems are hidden."""
    by_input: dict[str, list[Row]] = {}
    for row in rows:
        by_input.setdefault(str(row["input_id"]), []).append(row)
    tasks = []
    for input_id, outputs in by_input.items():
        outputs = sorted(outputs, key=lambda r: _seeded_rank(f"{seed}:{input_id}:{r['system']}"))
        slots = dict(zip(EVAL_SLOTS, outputs))
        data = {"uid": opaque_uid("eval", input_id), "input": _input_text(outputs[0]["input"]),
                **{f"output_{slot}": row["output"] for slot, row in slots.items()}}
        hidden = {"input_id": input_id, "task": str(outputs[0].get("task") or ""), "seed": seed,
                  "slots": {slot: str(row["system"]) for slot, row in slots.items()}}
        tasks.append({"data": data, "hidden": hidden})
    return tasks


def _human_eval_check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    return {f"{aspect}_{slot}": int(values[f"{aspect}_{slot}"]) for aspect in ASPECTS for slot in EVAL_SLOTS}


def sign_test(a_better: int, b_better: int) -> float | None:
    """Two-sided exact sign test (ties left out): the p-value of a_better successes in a_better + b_better trials."""
    binomtest = require("scipy.stats", "labelstudio").binomtest

    n = a_better + b_better
    return None if n == 0 else float(binomtest(a_better, n, 0.5).pvalue)


def _human_eval_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Per (input, system): the majority of the raters per aspect; per system the Table 12 shares, Fleiss' kappa per
    system and per cell (system x aspect), and a sign test between every two systems per aspect (LOT Table 12)."""
    items, ratings = [], defaultdict(list)  # ratings[(system, aspect)][input_id] -> values
    cell: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for uid, anns in _by_uid(annotations).items():
        hidden = anns[0].hidden
        for slot, system in hidden["slots"].items():
            item = {"uid": f"{hidden['input_id']}:{system}", "input_id": hidden["input_id"], "system": system,
                    "task": hidden.get("task") or None, "raters": len(anns)}
            for aspect in ASPECTS:
                values = [a.values[f"{aspect}_{slot}"] for a in anns]
                cell[(system, aspect)][hidden["input_id"]] = values
                item[aspect] = majority_vote(values)
            items.append(item)
    systems = sorted({i["system"] for i in items})
    table: dict[str, dict[str, Any]] = {}
    for system in systems:
        rows = [i for i in items if i["system"] == system]
        table[system] = {"items": len(rows)}
        for aspect in ASPECTS:
            decided = [i[aspect] for i in rows if i[aspect] is not None]
            table[system][aspect] = round(sum(decided) / len(decided), 4) if decided else None
        for aspect in ASPECTS:
            table[system][f"kappa_{aspect}"] = _rounded(fleiss_kappa(cell[(system, aspect)]))
        pooled = {(input_id, aspect): v for aspect in ASPECTS for input_id, v in cell[(system, aspect)].items()}
        table[system]["kappa"] = _rounded(fleiss_kappa(pooled))
    majority = {(i["input_id"], i["system"], a): i[a] for i in items for a in ASPECTS}
    inputs = sorted({i["input_id"] for i in items})
    tests = []
    for a_sys, b_sys in itertools.combinations(systems, 2):
        for aspect in ASPECTS:
            pairs = [(majority.get((k, a_sys, aspect)), majority.get((k, b_sys, aspect))) for k in inputs]
            pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
            a_better, b_better = sum(x > y for x, y in pairs), sum(x < y for x, y in pairs)
            p = sign_test(a_better, b_better)
            tests.append({"aspect": aspect, "system_a": a_sys, "system_b": b_sys, "a_better": a_better, "b_better": b_better,
                          "ties": len(pairs) - a_better - b_better, "p_value": None if p is None else round(p, 6)})
    kappa = {aspect: _rounded(fleiss_kappa({(s, k): v for (s, a), by in cell.items() if a == aspect for k, v in by.items()}))
             for aspect in ASPECTS}
    return {"human_eval": items, "table12": table, "sign_tests": tests,
            "stats": {"items": len(items), "inputs": len(inputs), "fleiss_kappa": kappa}}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _aspect_votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [(name, value) for name, value in values.items()]


# ---------------------------------------------------------------- human_perf (LOT Section 5.3)

HUMAN_PERF_TASKS = ("clozet", "senpos")


def _load_perf_rows(path: Path, splits: Sequence[str] | None) -> list[Row]:
    return _load_dataset_rows(path, splits, HUMAN_PERF_TASKS)


def _perf_tasks(rows: list[Row], *, seed: int = 0) -> list[dict[str, Any]]:
    """ClozeT and SenPos items without their labels; options are numbered from 1 on every task."""
    tasks = []
    for row in rows:
        kind = row["_task"]
        if kind == "clozet":
            question = f"{row['context']}\n\n候选 1：{row['candidates'][0]}\n候选 2：{row['candidates'][1]}"
            data = {"instruction": "ClozeT：故事中 <mask> 处缺了一句。哪个候选放在那里更合理？", "question": question,
                    "options": _numbers(1, 2)}
            answer = int(row["label"]) + 1
        else:
            question = f"待放回的句子：{row['removed']}\n\n故事：{_gapped(row['sentences'])}"
            data = {"instruction": "SenPos：这句话应该放回故事中的哪个位置（[1]、[2]……）？", "question": question,
                    "options": _numbers(1, len(row["sentences"]) - 1)}
            answer = int(row["label"])
        data["uid"] = opaque_uid("perf", kind, row["example_id"])
        tasks.append({"data": data, "hidden": {"task": kind, "example_id": row["example_id"], "split": row["split"], "answer": answer}})
    return tasks


def _perf_check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    return {"task": hidden.get("task", "unknown"), "answer": int(values["answer"])}


def _perf_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Per task: majority vote of the raters per item (a tie counts as wrong), its accuracy and Fleiss' kappa."""
    by_task: dict[str, dict[str, list[Annotation]]] = defaultdict(dict)
    for uid, anns in _by_uid(annotations).items():
        by_task[anns[0].hidden["task"]][uid] = anns
    report = {}
    for task, items in sorted(by_task.items()):
        correct = ties = 0
        for anns in items.values():
            decision = majority_vote(a.values["answer"] for a in anns)
            ties += decision is None
            correct += decision == anns[0].hidden["answer"]
        kappa = fleiss_kappa({uid: [a.values["answer"] for a in anns] for uid, anns in items.items()})
        report[task] = {"accuracy": round(correct / len(items), 4), "fleiss_kappa": _rounded(kappa), "n_items": len(items),
                        "n_raters": max(len(anns) for anns in items.values()), "ties": ties,
                        "n_raters_min": min(len({a.annotator for a in anns}) for anns in items.values())}
    return {"human_perf": report, "stats": {task: {"n_items": r["n_items"], "ties": r["ties"]} for task, r in report.items()}}


JOBS: dict[str, Job] = {
    "story_filter": Job("story_filter", 1, None, _load_story_filter, _story_filter_tasks, _story_filter_check,
                        lambda v: [("decision", v["decision"])], _story_filter_assemble),
    "clozet_write": Job("clozet_write", 1, ("val", "test"), _clozet_rows, _clozet_tasks, _clozet_check, _clozet_votes, _clozet_assemble),
    "senpos_refine": Job("senpos_refine", 1, ("val", "test"), _load_dataset("senpos"), _senpos_tasks, _senpos_check, _senpos_votes, _senpos_assemble),
    "cloze_verify": Job("cloze_verify", 3, ("val", "test"), _load_dataset("clozet"), _verify_tasks, _verify_check,
                        lambda v: [("rating", v["rating"])], _verify_assemble),
    "human_eval": Job("human_eval", 3, None, _load_outputs, _human_eval_tasks, _human_eval_check, _aspect_votes, _human_eval_assemble,
                      sample_key=lambda r: str(r["input_id"]), default_sample=None),
    "human_perf": Job("human_perf", 3, ("val", "test"), _load_perf_rows, _perf_tasks, _perf_check,
                      lambda v: [(f"answer_{v['task']}", v["answer"])], _perf_assemble,
                      sample_key=lambda r: f"{r['_task']}:{r['example_id']}", default_sample=100),
}


def get_job(name: str) -> Job:
    if name not in JOBS:
        raise ValueError(f"unknown annotation job {name!r}; jobs: {', '.join(JOBS)}")
    return JOBS[name]
