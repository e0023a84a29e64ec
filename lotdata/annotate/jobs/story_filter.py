"""story_filter (LOT appendix 1): accept, rewrite or reject each story segment; the stories table and every decision."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.annotate.agreement import majority_vote
from lotdata.annotate.checks import CheckOptions, row_problems, stray_punctuation
from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    choice,
    load_stories,
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
    """Story segments (`lotdata build segments`) or whole stories (each its own segment), as segments."""
    import pyarrow.parquet as pq

    from lotdata.tasks.segments import read_segments, story_as_segment

    if path.is_file() and "segment_id" in pq.read_schema(path).names:
        return read_segments(path)
    return [{**story_as_segment(story), "_story": story} for story in load_stories(path, splits)]


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "zh") -> list[Task]:
    tasks = []
    for row in rows:
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
    if decision == "rewrite":
        if not rewritten:
            raise InvalidResult("decision 'rewrite' without the rewritten story")
        lang = hidden.get("story", {}).get("lang", "zh")
        # the screen's 100 字 are characters, not words (LOT appendix 1); and only its punctuation
        problems = row_problems({"text": rewritten, "segment": data["text"]}, CHECKS, CheckOptions(lang=lang))
        if problems:
            raise InvalidResult(f"rewritten: {'; '.join(problems)}")
    if decision == "reject" and not reasons:
        raise InvalidResult("decision 'reject' without a reason")
    return {
        "decision": decision,
        "reasons": reasons if decision == "reject" else [],
        "rewritten": rewritten if decision == "rewrite" else None,
    }


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    stories, history = [], []
    counts: Counter = Counter()
    reasons: Counter = Counter()
    for uid, anns in by_uid(annotations).items():
        story = {"sentences": [], "status": "raw", "flags": [], **anns[0].hidden["story"]}
        segment = anns[0].hidden.get("segment", {})
        old_text = story["text"]
        decision = majority_vote(a.values["decision"] for a in anns)
        chosen = next((a for a in reversed(anns) if a.values["decision"] == decision), None)
        for ann in anns:
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
            story["paragraph_breaks"] = paragraph_breaks(
                chosen.values["rewritten"], story["text"], story["sentences"], story["lang"]
            )
            story["status"] = "rewritten"
        stories.append(story)
    return {"stories": stories, "story_decisions": history, "stats": {**dict(counts), "reject_reasons": dict(reasons)}}


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`stories.parquet` (every story with its status) and `story_decisions.parquet` (every rater's decision)."""
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, STORY_DECISIONS, table_from_rows

    stories = assembled["stories"]
    write_parquet(table_from_rows(stories, STORIES), output.folder / "stories.parquet")
    write_parquet(
        table_from_rows(assembled["story_decisions"], STORY_DECISIONS), output.folder / "story_decisions.parquet"
    )
    return {
        "stories": {
            status: sum(s["status"] == status for s in stories) for status in sorted({s["status"] for s in stories})
        }
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
