"""The five annotation jobs. A job is data plus small functions: its template, the rows it reads,
`to_tasks` (stable `uid`, pre-annotations), `check` (job rules on top of the template), `votes`
(what agreement is measured on) and `assemble` (decided items -> final tables).

Task data carry everything assembly needs, so a pull never needs the pushed input again.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

from lotdata.annotate.agreement import majority_vote
from lotdata.annotate.template import InvalidResult, Template, load_template
from lotdata.errors import InputError
from lotdata.schema import MASK_TOKENS, SPLITS
from lotdata.tasks.common import merged_sentences
from lotdata.text import join_sentences, normalize_text, split_sentences

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
    hidden: Mapping[str, Any] = field(default_factory=dict)  # the task's values a rater must not see (kept locally at push)


@dataclass(frozen=True)
class Job:
    name: str
    raters: int
    default_splits: tuple[str, ...] | None
    load: Callable[[Path, Sequence[str] | None], list[Row]]
    to_tasks: Callable[[list[Row]], list[dict[str, Any]]]
    check: Callable[[dict[str, Any], Mapping[str, Any]], dict[str, Any]]
    votes: Callable[[dict[str, Any]], list[tuple[str, Hashable]]]
    assemble: Callable[[list[Annotation]], dict[str, Any]]

    @property
    def template(self) -> Template:
        return load_template(self.name)

    def parse(self, result: Any, data: Mapping[str, Any]) -> dict[str, Any]:
        """Template check, then the job's own rules; InvalidResult names what is wrong."""
        return self.check(self.template.parse(result, data), data)


def _prediction(model: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"model_version": model, "result": items}]


def _choice(name: str, to_name: str, values: list[str]) -> dict[str, Any]:
    return {"from_name": name, "to_name": to_name, "type": "choices", "value": {"choices": values}}


def _seeded_rank(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _by_uid(annotations: Iterable[Annotation]) -> dict[str, list[Annotation]]:
    grouped: dict[str, list[Annotation]] = {}
    for ann in sorted(annotations, key=lambda a: (a.created_at, a.annotation_id)):
        grouped.setdefault(ann.uid, []).append(ann)
    return grouped


# ---------------------------------------------------------------- inputs

def _load_stories(path: Path, splits: Sequence[str] | None) -> list[Row]:
    from lotdata.tasks.build import load_stories

    return load_stories([path])


def _load_dataset(task: str) -> Callable[[Path, Sequence[str] | None], list[Row]]:
    def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
        from lotdata.tasks.build import dataset_task, read_dataset

        if not path.is_dir():
            raise InputError(f"expected a {task} dataset folder", path=str(path))
        found = dataset_task(path)
        if found != task:
            raise InputError(f"a {found} dataset, expected {task}", path=str(path))
        tables = read_dataset(path)
        return [row for split in (splits or SPLITS) if split in tables for row in tables[split].to_pylist()]

    return load


def _load_outputs(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Generated outputs for human evaluation: Parquet or jsonl with input_id, input, system, output."""
    import pyarrow.parquet as pq

    if not path.exists():
        raise InputError("file not found", path=str(path))
    if path.suffix == ".parquet":
        rows = pq.read_table(path).to_pylist()
    else:
        rows = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise InputError(f"not JSON ({exc.msg})", path=str(path), row=n) from None
    for n, row in enumerate(rows, 1):
        missing = [k for k in ("input_id", "input", "system", "output") if not row.get(k) and row.get(k) != 0]
        if missing:
            raise InputError(f"missing {missing}", path=str(path), row=n)
    return rows


# ---------------------------------------------------------------- story_filter

REJECT_REASONS = ("no_main_plot", "figurative", "non_narrative", "non_standard_chinese", "illogical", "unique_setting", "other")


def _story_filter_tasks(rows: list[Row]) -> list[dict[str, Any]]:
    return [
        {"data": {"uid": row["story_id"], "title": row.get("title") or "", "text": row["text"], "story": json.dumps(row, ensure_ascii=False)}}
        for row in rows
    ]


def _story_filter_check(values: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    decision = values["decision"]
    rewritten = values.get("rewritten", "")
    if decision == "rewrite" and not rewritten:
        raise InvalidResult("decision 'rewrite' without the rewritten story")
    return {"decision": decision, "reasons": values.get("reason", []) if decision == "reject" else [], "rewritten": rewritten if decision == "rewrite" else None}


def _story_filter_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    stories, history = [], []
    counts: Counter = Counter()
    for uid, anns in _by_uid(annotations).items():
        story = json.loads(anns[0].data["story"])
        decision = majority_vote(a.values["decision"] for a in anns)
        chosen = next((a for a in reversed(anns) if a.values["decision"] == decision), None)
        for ann in anns:
            new_text = ann.values["rewritten"]
            history.append({
                "story_id": story["story_id"], "decision": ann.values["decision"], "reason": ",".join(ann.values["reasons"]) or None,
                "old_text": story["text"], "new_text": normalize_text(new_text, story["lang"]) if new_text else None,
                "annotator": ann.annotator, "annotation_id": str(ann.annotation_id), "time": ann.created_at, "final": ann is chosen,
            })
        counts[decision or "undecided"] += 1
        if decision == "accept":
            story["status"] = "accepted"
        elif decision == "reject":
            story["status"] = "rejected"
        elif decision == "rewrite":
            # the story id stays: the decisions table links the old and new text under it
            story["text"] = normalize_text(chosen.values["rewritten"], story["lang"])
            story["sentences"] = split_sentences(story["text"], story["lang"])
            story["status"] = "rewritten"
        stories.append(story)
    return {"stories": stories, "story_decisions": history, "stats": dict(counts)}


# ---------------------------------------------------------------- clozet_write

#: words that mark a consequence, reaction or intention: sentences with them follow from context
_INFERABLE = re.compile("于是|所以|因此|终于|结果|只好|便|决定|就|后来|最后|so |then |finally|decided|because")


def mask_guess(sentences: Sequence[str]) -> int:
    """The sentence (0-based, never the first) a heuristic would mask: most consequence markers, else the last."""
    scores = [(len(_INFERABLE.findall(s)), i) for i, s in enumerate(sentences) if i > 0]
    best = max(scores)
    return best[1] if best[0] > 0 else len(sentences) - 1


def _numbered(sentences: Sequence[str]) -> str:
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(sentences, 1))


def _clozet_rows(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Stories for ClozeT writing, each given a split, grouped by story and seeded.

    Plain names (`val,test`) share the stories evenly in seeded order; ratios (`train=0.5,val=0.25,test=0.25`)
    use the builders' split assignment.
    """
    from lotdata.tasks.splits import assign_splits, parse_split_spec, story_order_key

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


def _clozet_tasks(rows: list[Row]) -> list[dict[str, Any]]:
    tasks = []
    for row in rows:
        guess = mask_guess(row["sentences"])
        data = {
            "uid": f"clozet-{row['story_id']}", "story_id": row["story_id"], "split": row["split"], "lang": row["lang"],
            "sentences": list(row["sentences"]), "numbered": _numbered(row["sentences"]),
        }
        number = {"from_name": "mask_sentence", "to_name": "story", "type": "number", "value": {"number": guess + 1}}
        tasks.append({"data": data, "predictions": _prediction("lotdata-mask-heuristic", [number])})
    return tasks


def _clozet_check(values: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    if values.get("reject") == "reject":
        return {"rejected": True}
    sentences = data["sentences"]
    number = values.get("mask_sentence")
    if number is None:
        raise InvalidResult("mask_sentence: missing")
    if number != int(number) or not 2 <= number <= len(sentences):
        raise InvalidResult(f"mask_sentence: {number} is not a sentence from 2 to {len(sentences)}")
    wrong = values.get("wrong_candidate", "")
    index = int(number) - 1
    if not wrong:
        raise InvalidResult("wrong_candidate: missing")
    if normalize_text(wrong, data["lang"]) == sentences[index]:
        raise InvalidResult("wrong_candidate: identical to the masked sentence")
    if "policy" not in values:
        raise InvalidResult("policy: missing")
    return {"rejected": False, "index": index, "wrong": normalize_text(wrong, data["lang"]), "policy": values["policy"]}


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
    examples, policies, dropped = [], Counter(), Counter()
    for uid, anns in _by_uid(annotations).items():
        ann = next((a for a in anns if not a.values["rejected"]), None)
        if ann is None:
            dropped["rejected"] += 1
            continue
        data, index = ann.data, ann.values["index"]
        sentences = list(data["sentences"])
        policies[ann.values["policy"]] += 1
        examples.append({
            "example_id": uid, "story_id": data["story_id"], "split": data["split"],
            "context": join_sentences(sentences[:index] + [MASK_TOKENS["clozet"]] + sentences[index + 1 :], data["lang"]),
            "_right": sentences[index], "_wrong": ann.values["wrong"], "mask_sentence_index": index,
            "annotator": ann.annotator, "annotation_id": str(ann.annotation_id), "lang": data["lang"],
        })
    return {"clozet": balance_labels(examples), "stats": {"policies": dict(policies), "dropped": dict(dropped)}}


# ---------------------------------------------------------------- cloze_verify

def _verify_tasks(rows: list[Row]) -> list[dict[str, Any]]:
    tasks = []
    mask = MASK_TOKENS["clozet"]
    for row in rows:
        right = row["candidates"][row["label"]]
        wrong = row["candidates"][1 - row["label"]]
        example = json.dumps(row, ensure_ascii=False)
        for role, candidate in (("right", right), ("wrong", wrong)):
            story = row["context"].replace(mask, candidate)
            tasks.append({"data": {"uid": f"{row['example_id']}:{role}", "story": story},
                          "hidden": {"example_id": row["example_id"], "role": role, "example": example}})
    return tasks


def _verify_check(values: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    return {"rating": int(values["rating"])}


def _verify_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """The Story Cloze Test rule: keep a case when the right story got all 1 and the wrong one all 0,
    each from at least as many raters as were asked for at push time."""
    ratings: dict[str, dict[str, list[int]]] = {}
    examples: dict[str, Row] = {}
    for ann in annotations:
        ratings.setdefault(ann.hidden["example_id"], {"right": [], "wrong": []})[ann.hidden["role"]].append(ann.values["rating"])
        examples.setdefault(ann.hidden["example_id"], json.loads(ann.hidden["example"]))
    wanted = {ann.hidden["example_id"]: int(ann.data.get("raters", 3)) for ann in annotations}
    kept, dropped = [], Counter()
    for example_id, by_role in sorted(ratings.items()):
        right, wrong, raters = by_role["right"], by_role["wrong"], wanted[example_id]
        if len(right) < raters or len(wrong) < raters:
            dropped["too_few_ratings"] += 1
        elif all(r == 1 for r in right) and all(r == 0 for r in wrong):
            kept.append(examples[example_id])
        else:
            dropped["not_unanimous"] += 1
    return {"clozet": kept, "stats": {"kept": len(kept), "dropped": dict(dropped)}}


# ---------------------------------------------------------------- senpos_refine

def _gapped(sentences: Sequence[str]) -> str:
    parts = [sentences[0]]
    for k, sentence in enumerate(sentences[1:], 1):
        parts.append(f" [{k}] {sentence}")
    return "".join(parts)


def _senpos_tasks(rows: list[Row]) -> list[dict[str, Any]]:
    tasks = []
    for row in rows:
        data = {
            "uid": row["example_id"], "removed": row["removed"], "numbered": _gapped(row["sentences"]),
            "gap_choices": [{"value": str(k)} for k in range(1, len(row["sentences"]))],
            "example": json.dumps(row, ensure_ascii=False),
        }
        tasks.append({"data": data, "predictions": _prediction("lotdata-senpos-auto", [_choice("gaps", "story", [str(row["label"])])])})
    return tasks


def _senpos_check(values: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    verdict = values.get("verdict")
    if verdict == "reject":
        return {"rejected": True}
    example = json.loads(data["example"])
    sentence, sentences = example["removed"], list(example["sentences"])
    if verdict == "revise":
        if values.get("revised_sentence"):
            sentence = normalize_text(values["revised_sentence"], example["lang"])
        if values.get("revised_story"):
            sentences = [normalize_text(line, example["lang"]) for line in values["revised_story"].splitlines() if line.strip()]
            if len(sentences) < 2:
                raise InvalidResult("revised_story: fewer than two sentences")
    gaps = [int(g) for g in values.get("gaps", [])]
    if not gaps:
        raise InvalidResult("gaps: no gap marked and not rejected")
    if max(gaps) > len(sentences) - 1:
        raise InvalidResult(f"gaps: {max(gaps)} beyond the last gap ({len(sentences) - 1}) of the story")
    return {"rejected": False, "gaps": tuple(gaps), "removed": sentence, "sentences": sentences, "revised": verdict == "revise"}


def _senpos_votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [("gaps", "reject" if values["rejected"] else ",".join(map(str, values["gaps"])))]


def _senpos_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    examples, dropped = [], Counter()
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
        example = json.loads(ann.data["example"])
        sentences = ann.values["sentences"]
        examples.append({
            **example, "sentences": sentences, "removed": ann.values["removed"], "label": outcome[0],
            "n_candidates": len(sentences) - 1, "refined": True,
        })
    return {"senpos": examples, "stats": {"kept": len(examples), "dropped": dict(dropped)}}


# ---------------------------------------------------------------- human_eval

ASPECTS = ("grammaticality", "coherence", "relatedness")


def _human_eval_tasks(rows: list[Row]) -> list[dict[str, Any]]:
    return [
        {"data": {
            "uid": f"{row['input_id']}:{row['system']}", "input_id": str(row["input_id"]),
            "task": str(row.get("task") or ""), "input": row["input"] if isinstance(row["input"], str) else json.dumps(row["input"], ensure_ascii=False),
            "output": row["output"],
        }, "hidden": {"system": str(row["system"])}}
        for row in rows
    ]


def _human_eval_check(values: dict[str, Any], data: Mapping[str, Any]) -> dict[str, Any]:
    return {aspect: int(values[aspect]) for aspect in ASPECTS}


def _human_eval_assemble(annotations: list[Annotation]) -> dict[str, Any]:
    items = []
    for uid, anns in _by_uid(annotations).items():
        data = anns[0].data
        item = {"uid": uid, "input_id": data["input_id"], "system": anns[0].hidden["system"], "task": data["task"] or None, "raters": len(anns)}
        for aspect in ASPECTS:
            item[aspect] = majority_vote(a.values[aspect] for a in anns)
        items.append(item)
    table: dict[str, dict[str, Any]] = {}
    for system in sorted({i["system"] for i in items}):
        rows = [i for i in items if i["system"] == system]
        table[system] = {"items": len(rows)}
        for aspect in ASPECTS:
            decided = [i[aspect] for i in rows if i[aspect] is not None]
            table[system][aspect] = round(sum(decided) / len(decided), 4) if decided else None
    return {"human_eval": items, "table12": table, "stats": {"items": len(items)}}


def _aspect_votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [(aspect, values[aspect]) for aspect in ASPECTS]


JOBS: dict[str, Job] = {
    "story_filter": Job("story_filter", 1, None, _load_stories, _story_filter_tasks, _story_filter_check,
                        lambda v: [("decision", v["decision"])], _story_filter_assemble),
    "clozet_write": Job("clozet_write", 1, ("val", "test"), _clozet_rows, _clozet_tasks, _clozet_check, _clozet_votes, _clozet_assemble),
    "senpos_refine": Job("senpos_refine", 1, ("val", "test"), _load_dataset("senpos"), _senpos_tasks, _senpos_check, _senpos_votes, _senpos_assemble),
    "cloze_verify": Job("cloze_verify", 3, ("val", "test"), _load_dataset("clozet"), _verify_tasks, _verify_check,
                        lambda v: [("rating", v["rating"])], _verify_assemble),
    "human_eval": Job("human_eval", 3, None, _load_outputs, _human_eval_tasks, _human_eval_check, _aspect_votes, _human_eval_assemble),
}


def get_job(name: str) -> Job:
    if name not in JOBS:
        raise ValueError(f"unknown annotation job {name!r}; jobs: {', '.join(JOBS)}")
    return JOBS[name]
