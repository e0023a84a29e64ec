"""story_reorder (ROCStories 3.3, Table 3): a story's sentences are shown in a seeded shuffled order (the original
order stays in the local state) and raters drag them back into order (Label Studio's List + Ranker); pull writes
`reorder.json`: Table 3's measures, Kendall's tau per ordering and the stories people could not order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    load_stories,
    opaque_uid,
    register_job,
    seeded_rank,
)
from lotdata.annotate.reorder import seeded_order, table3
from lotdata.annotate.template import InvalidResult


def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Stories of two sentences or more (ROCStories: five), each with its writer (`_writer`) where the stories come
    from a story_review pull (its `story_versions.jsonl`): she never reorders her own story."""
    from lotdata.annotate.jobs.story_review import writers_of

    writers = writers_of(path)
    return [
        {**s, "_writer": writers.get(s.get("source_id") or "")} if writers else s
        for s in load_stories(path)
        if len(s["sentences"]) >= 2
    ]


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "en") -> list[Task]:
    tasks = []
    for row in rows:
        sentences = list(row["sentences"])
        story_id = row["story_id"]
        ids = [
            "s" + seeded_rank(f"{seed}:{story_id}:{k}")[:6] for k in range(len(sentences))
        ]  # say nothing of the order
        shown = seeded_order(row["story_id"], len(sentences), seed)
        data = {
            "uid": opaque_uid("reorder", row["story_id"], seed),
            "sentences": [{"id": ids[k], "title": "", "body": sentences[k]} for k in shown],
        }
        hidden = {"story_id": row["story_id"], "original_ids": ids, "shown": shown, "author": row.get("_writer")}
        tasks.append({"data": data, "hidden": hidden})
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    """The rater's order as original positions; a task submitted untouched keeps the order it was shown in."""
    original = list(hidden["original_ids"])
    order = values.get("order") or [item["id"] for item in data["sentences"]]
    if sorted(order) != sorted(original):
        raise InvalidResult(f"order: {order} is not an order of the story's {len(original)} sentences")
    return {"ordering": tuple(original.index(i) for i in order)}


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    orderings: dict[str, list[list[int]]] = {}
    own = 0
    for uid, anns in sorted(by_uid(annotations).items()):
        counted = [a for a in anns if not (a.hidden.get("author") and a.annotator == a.hidden["author"])]
        own += len(anns) - len(counted)  # the story's writer knows its order: possible only in a shared project
        if counted:
            orderings[anns[0].hidden["story_id"]] = [list(a.values["ordering"]) for a in counted]
    report = table3(orderings)
    if own:
        report["by_the_writer"] = own
    return {
        "reorder": report,
        "stats": {
            k: report.get(k)
            for k in ("stories", "orderings", "majority_perfect", "each_perfect", "at_most_one_misplaced")
        },
    }


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    from lotdata.io import write_text

    output.folder.mkdir(parents=True, exist_ok=True)
    write_text(json.dumps(assembled["reorder"], ensure_ascii=False, indent=1) + "\n", output.folder / "reorder.json")
    return {
        "reorder": {
            "stories": assembled["reorder"].get("stories", 0),
            "unorderable": len(assembled["reorder"].get("unorderable", [])),
        }
    }


def demo_rows() -> list[Row]:
    sentences = [
        "Ann planted tomatoes.",
        "She watered them daily.",
        "A rabbit ate leaves.",
        "She built a fence.",
        "She picked tomatoes.",
    ]
    return [{"story_id": f"demo{i}", "sentences": sentences[i:] + sentences[:i], "lang": "en"} for i in range(2)]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    ids = list(task["hidden"]["original_ids"])
    if rater % 2:
        ids[0], ids[1] = ids[1], ids[0]
    return [{"from_name": "order", "to_name": "sentences", "type": "ranker", "value": {"ranker": {"sentences": ids}}}]


SPEC = register_job(
    JobSpec(
        name="story_reorder",
        order=11,
        summary="put shuffled sentences back in order by drag and drop (ROCStories 3.3, Table 3)",
        input_help="stories Parquet",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [("ordering", ",".join(map(str, v["ordering"])))],
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        templates={"en": "en/story_reorder", "zh": "story_reorder"},
        lang="en",
        raters=5,
        # each story is a case of one version: with a team, K (--raters) of its raters order it, not every one of them
        case_key=lambda hidden: hidden.get("story_id"),
        own_projects=True,  # a team: a project per rater even at --raters 1, never holding a story its rater wrote
        descriptions={
            "en": "Sentence order (ROCStories 3.3): drag the shuffled sentences of a story back into the order that tells it. One task per story.",
            "zh": "句子排序（ROCStories 3.3 打乱句序实验）：把打乱顺序的句子拖回能讲通故事的顺序。每个故事一个任务。",
        },
    )
)
