"""story_filter (LOT appendix 1): accept, rewrite or reject each story segment; the stories table and every decision.

A rewrite that breaks a check of level "refuse" (`CHECKS`) is not dropped: pull writes it to `revisions.jsonl`, back
to its rater with the reason and their rewrite (push that file to story_filter again, to the same project: per rater,
the task goes to that rater only); it does not vote until the rater sends a version the checks pass. A "warn" check
only counts (`stats.warned`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.annotate.agreement import majority_vote
from lotdata.annotate.checks import RULES, CheckOptions, stray_punctuation
from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    choice,
    load_stories,
    read_revisions,
    register_job,
    textarea,
)
from lotdata.annotate.template import InvalidResult
from lotdata.text import normalize_text, split_sentences
from lotdata.text.sentences import paragraph_breaks

REJECT_REASONS = (
    "no_main_plot",
    "figurative",
    "non_narrative",
    "non_standard_chinese",
    "illogical",
    "unique_setting",
    "ethics_discrimination",
    "ethics_harmful",
    "other",
)
#: the checks `lotdata annotate check story_filter` runs on rewrites (each also refuses a rewrite at pull)
CHECKS = ("rewrite_length", "punctuation")


def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Story segments (`lotdata build segments`) or whole stories (each its own segment), as segments; or the
    `revisions.jsonl` of a story_filter pull (rewrites the checks sent back to their raters)."""
    import pyarrow.parquet as pq

    from lotdata.tasks.segments import read_segments, story_as_segment

    if path.suffix == ".jsonl":
        return load_revisions(path)
    if path.is_file() and "segment_id" in pq.read_schema(path).names:
        return read_segments(path)
    return [{**story_as_segment(story), "_story": story} for story in load_stories(path, splits)]


REVISION_FIELDS = ("segment_id", "writer", "feedback", "previous", "version", "title", "text", "reference", "story")


def load_revisions(path: Path) -> list[Row]:
    """The refused work of a review pull (`revisions.jsonl`), each back to its writer as a new version."""
    return read_revisions(path, REVISION_FIELDS, "story_filter")


FEEDBACK = {
    "zh": "退回给你修改（{writer}）：{feedback}\n你上次的改写：{previous}",
    "en": "Sent back to you ({writer}): {feedback}\nYour previous rewrite: {previous}",
}


def revision_task(row: Row, lang: str) -> Task:
    """A rewrite sent back to its rater: the segment and its reference as before, the reason and the old rewrite."""
    version = int(row["version"])
    return {
        "data": {
            "uid": f"{row['segment_id']}~v{version}",
            "title": row.get("title") or "",
            "text": row["text"],
            "reference": row["reference"],
            "feedback": FEEDBACK.get(lang, FEEDBACK["en"]).format(**row),
            "draft": str(row.get("previous") or row["text"]),  # the rewrite box starts with the last rewrite
        },
        "hidden": {
            "story": row["story"],
            "segment": row.get("segment") or {"segment_id": row["segment_id"]},
            "writer": row["writer"],  # per rater, the task goes to its rater only
            "version": version,
        },
    }


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "zh") -> list[Task]:
    tasks = []
    for row in rows:
        if "feedback" in row:
            tasks.append(revision_task(row, lang))
            continue
        story = row.get("_story")  # a whole story keeps its row; a segment becomes a story of its own
        if story is None:
            story = {k: row[k] for k in ("title", "lang", "source", "source_id", "url", "license", "fetched_at")}
            story.update(story_id=row["segment_id"], text=row["text"])
        tasks.append(
            {
                "data": {
                    "uid": row["segment_id"],
                    "title": row.get("title") or "",
                    "text": row["text"],
                    "reference": row["story_text"],
                    "feedback": "",
                    "draft": row["text"],  # the rewrite box starts with the segment: a rewrite edits it
                },
                "hidden": {
                    "story": story,
                    "segment": {k: row[k] for k in ("segment_id", "story_id", "start_char", "end_char")},
                },
            }
        )
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    decision = values["decision"]
    rewritten = values.get("rewritten", "")
    reasons = values.get("reason", [])
    returned: list[str] = []
    warned: list[str] = []
    if decision == "rewrite":
        if not rewritten:
            raise InvalidResult("decision 'rewrite' without the rewritten story")
        lang = hidden.get("story", {}).get("lang", "zh")
        returned, warned = rewrite_problems(rewritten, data["text"], lang)
    if decision == "reject" and not reasons:
        raise InvalidResult("decision 'reject' without a reason")
    return {
        "decision": decision,
        "reasons": reasons if decision == "reject" else [],
        "rewritten": rewritten if decision == "rewrite" else None,
        "returned": returned,  # the refuse checks it breaks: it goes back to its rater
        "warned": warned,  # the warn checks: counted, the rewrite goes on
    }


def rewrite_problems(rewritten: str, segment: str, lang: str) -> tuple[list[str], list[str]]:
    """What the checks find in a rewrite, `rule: detail`, split by the rule's level (refuse, warn). The screen's
    100 字 are characters, not words (LOT appendix 1); and only its punctuation."""
    found: dict[str, list[str]] = {"refuse": [], "warn": []}
    row = {"text": rewritten, "segment": segment}
    for name in CHECKS:
        rule = RULES[name]
        found[rule.level] += [f"{name}: {detail}" for detail in rule.row(row, CheckOptions(lang=lang))]
    return found["refuse"], found["warn"]


def by_segment(annotations: list[Annotation]) -> dict[str, list[Annotation]]:
    """The answers per segment, oldest first: those of its first task and of its revision tasks together."""
    grouped: dict[str, list[Annotation]] = {}
    for uid, anns in sorted(by_uid(annotations).items()):
        for ann in anns:
            key = str((ann.hidden.get("segment") or {}).get("segment_id") or uid)
            grouped.setdefault(key, []).append(ann)
    return {k: sorted(v, key=lambda a: (a.created_at, a.annotation_id)) for k, v in grouped.items()}


def returned_rewrites(anns: list[Annotation]) -> list[Row]:
    """The rewrites of one segment sent back to their raters: each rater's last answer when the checks returned it
    (an earlier one the rater has answered again is settled)."""
    last: dict[str, Annotation] = {}
    for ann in anns:
        last[ann.annotator] = ann
    rows = []
    for ann in sorted(last.values(), key=lambda a: (a.created_at, a.annotation_id)):
        if ann.values.get("returned"):
            rows.append(
                {
                    "segment_id": str(ann.hidden.get("segment", {}).get("segment_id") or ann.uid),
                    "writer": ann.annotator,
                    "feedback": "; ".join(ann.values["returned"]),
                    "previous": ann.values["rewritten"],
                    "version": int(ann.hidden.get("version") or 1) + 1,
                    "title": ann.data.get("title") or "",
                    "text": ann.data["text"],
                    "reference": ann.data["reference"],
                    "story": dict(ann.hidden["story"]),
                    "segment": dict(ann.hidden.get("segment") or {}),
                }
            )
    return rows


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    stories, history, revisions = [], [], []
    counts: Counter = Counter()
    reasons: Counter = Counter()
    warned: Counter = Counter()
    for uid, group in sorted(by_segment(annotations).items()):
        revisions += returned_rewrites(group)
        warned.update(w.split(":")[0] for a in group for w in a.values.get("warned") or [])
        anns = [a for a in group if not a.values.get("returned")] or group  # a returned rewrite does not vote
        story = {"sentences": [], "status": "raw", "flags": [], **anns[0].hidden["story"]}
        segment = anns[0].hidden.get("segment", {})
        old_text = story["text"]
        decision = majority_vote(a.values["decision"] for a in anns if not a.values.get("returned"))
        chosen = next((a for a in reversed(anns) if a.values["decision"] == decision), None)
        for ann in group:
            new_text = ann.values["rewritten"]
            history.append(
                {
                    "story_id": story["story_id"],
                    "source_story_id": segment.get("story_id"),
                    "decision": ann.values["decision"],
                    "reason": ",".join(ann.values["reasons"]) or None,
                    "old_text": old_text,
                    "new_text": normalize_text(new_text, story["lang"]) if new_text else None,
                    "annotator": ann.annotator,
                    "annotation_id": str(ann.annotation_id),
                    "time": ann.created_at,
                    "final": ann is chosen,
                }
            )
        counts[decision or ("returned" if all(a.values.get("returned") for a in group) else "undecided")] += 1
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
            story["paragraph_breaks"] = paragraph_breaks(
                chosen.values["rewritten"], story["text"], story["sentences"], story["lang"]
            )
            story["status"] = "rewritten"
        stories.append(story)
    stats = {**dict(counts), "reject_reasons": dict(reasons), "returned_to_rater": len(revisions)}
    if warned:
        stats["warned"] = dict(warned)
    return {"stories": stories, "story_decisions": history, "revisions": revisions, "stats": stats}


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`stories.parquet` (every story with its status), `story_decisions.parquet` (every rater's decision) and
    `revisions.jsonl` (rewrites the checks sent back to their raters)."""
    from lotdata.io import write_jsonl, write_parquet
    from lotdata.schema import STORIES, STORY_DECISIONS, table_from_rows

    stories = assembled["stories"]
    write_parquet(table_from_rows(stories, STORIES), output.folder / "stories.parquet")
    write_parquet(
        table_from_rows(assembled["story_decisions"], STORY_DECISIONS), output.folder / "story_decisions.parquet"
    )
    write_jsonl(assembled.get("revisions", []), output.folder / "revisions.jsonl")
    return {
        "returned_to_rater": len(assembled.get("revisions", [])),
        "stories": {
            status: sum(s["status"] == status for s in stories) for status in sorted({s["status"] for s in stories})
        },
    }


def demo_rows() -> list[Row]:
    from lotdata.tasks.segments import story_as_segment

    stories = [
        {
            "story_id": f"demo{i}",
            "title": f"故事{i}",
            "text": text,
            "sentences": split_sentences(text, "zh"),
            "lang": "zh",
            "source": "demo",
            "source_id": None,
            "url": None,
            "license": "CC0",
            "fetched_at": None,
            "status": "raw",
            "flags": [],
        }
        for i, text in enumerate(
            ["小明养了一只猫。猫每天都抓老鼠。小明很喜欢他的猫。", "天下雨了。小红没有带伞。她在屋檐下等雨停。"]
        )
    ]
    return [{**story_as_segment(s), "_story": s} for s in stories]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    if rater % 2:
        return [choice("decision", "story", ["reject"]), choice("reason", "story", ["illogical"])]
    lang = task["hidden"].get("story", {}).get("lang", "zh")
    text = normalize_text(task["data"]["text"], lang).replace("。", "！", 1)
    for mark in stray_punctuation(text, lang):  # as the screen asks
        text = text.replace(mark, "")
    return [choice("decision", "story", ["rewrite"]), textarea("rewritten", "story", text)]


SPEC = register_job(
    JobSpec(
        name="story_filter",
        order=1,
        summary="accept, rewrite or reject story segments (LOT appendix 1)",
        input_help="stories or segments Parquet",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [("decision", v["decision"])],
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        templates={"zh": "story_filter", "en": "en/story_filter"},
        checks=CHECKS,
        descriptions={
            "zh": "故事筛选（LOT 附录图 1）：阅读故事片段和它所在的原故事，决定保留、改写成完整的故事，或丢弃并选择原因。每个片段一个任务。",
            "en": "Story filtering (LOT appendix, Figure 1): read a story segment beside the story it was cut from; accept it, rewrite it into a complete story, or reject it with a reason. One task per segment.",
        },
    )
)
