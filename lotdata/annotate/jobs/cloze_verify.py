"""cloze_verify (the Story Cloze Test's verification): each story with the right and with the wrong sentence, judged
alone; a case is kept when every rater finds the right one reasonable and the wrong one not."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from lotdata.annotate.jobs.base import Annotation, JobSpec, Row, Task, choice, dataset_loader, opaque_uid, register_job
from lotdata.annotate.jobs.clozet_write import write_clozet
from lotdata.schema import MASK_TOKENS

#: what the three codes mean to a rater (the template's labels) under our reading of the SCT rule
VERIFY_READING = {
    1: "合理 (makes sense)",
    0: "不合理 (breaks common sense or its own logic)",
    -1: "无法判断 (cannot judge: the rest of the story is itself broken)",
}


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "zh") -> list[Task]:
    tasks = []
    mask = MASK_TOKENS["clozet"]
    for row in rows:
        right = row["candidates"][row["label"]]
        wrong = row["candidates"][1 - row["label"]]
        for role, candidate in (("right", right), ("wrong", wrong)):
            tasks.append(
                {
                    "data": {
                        "uid": opaque_uid("verify", row["example_id"], role),
                        "story": row["context"].replace(mask, candidate),
                    },
                    # its writer (the clozet row's annotator) never verifies it: the assignment avoids her
                    "hidden": {
                        "example_id": row["example_id"],
                        "role": role,
                        "example": row,
                        "author": row.get("annotator"),
                    },
                }
            )
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    return {"rating": int(values["rating"])}


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """The Story Cloze Test rule under our reading (VERIFY_READING): keep a case when every rater found the story
    with the right sentence reasonable (1) and the story with the wrong one unreasonable (0), each from at least
    as many raters as were asked for at push time. A -1 (cannot judge) on either story drops the case.
    Raters are counted, not annotations: a rater's later answers on a story she already rated are left out (the pull
    quarantines them; the first submitted counts), so two people never make a case that needs three. The case's
    writer is not a rater of it: her rating (possible only in a shared project) is counted under `by_the_writer`."""
    ratings: dict[str, dict[str, dict[str, int]]] = {}
    examples: dict[str, Row] = {}
    own = [a for a in annotations if a.hidden.get("author") and a.annotator == a.hidden["author"]]
    annotations = [a for a in annotations if a not in own]
    for ann in sorted(annotations, key=lambda a: a.annotation_id):
        example_id = ann.hidden["example_id"]
        by_rater = ratings.setdefault(example_id, {"right": {}, "wrong": {}})[ann.hidden["role"]]
        by_rater.setdefault(ann.annotator, ann.values["rating"])
        examples.setdefault(example_id, dict(ann.hidden["example"]))
    wanted = {ann.hidden["example_id"]: int(ann.data.get("raters", 3)) for ann in annotations}
    kept, dropped = [], Counter()
    for example_id, by_role in sorted(ratings.items()):
        right, wrong = list(by_role["right"].values()), list(by_role["wrong"].values())
        raters = wanted[example_id]
        if len(right) < raters or len(wrong) < raters:
            dropped["too_few_ratings"] += 1
        elif all(r == 1 for r in right) and all(r == 0 for r in wrong):
            kept.append(examples[example_id])
        elif -1 in right or -1 in wrong:
            dropped["cannot_judge"] += 1
        else:
            dropped["not_unanimous"] += 1
    stats = {"kept": len(kept), "dropped": dict(dropped)}
    return {"clozet": kept, "stats": {**stats, "by_the_writer": len(own)} if own else stats}


def demo_rows() -> list[Row]:
    return [
        {
            "example_id": f"demo{i}",
            "story_id": f"s{i}",
            "split": ("val", "test")[i],
            "context": "小明养了一只猫。<mask>他们是好朋友。",
            "candidates": ["小明很喜欢他的猫。", "小明把猫吃了。"][:: 1 - 2 * i],
            "label": i,
            "mask_sentence_index": 1,
            "annotator": None,
            "annotation_id": None,
            "lang": "zh",
        }
        for i in range(2)
    ]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    return [choice("rating", "story", ["1" if task["hidden"]["role"] == "right" else "0"])]


SPEC = register_job(
    JobSpec(
        name="cloze_verify",
        order=4,
        summary="judge each story with the right and the wrong sentence: the SCT rule",
        input_help="clozet dataset folder",
        load=dataset_loader("clozet"),
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [("rating", v["rating"])],
        assemble=assemble,
        write=write_clozet,
        demo_rows=demo_rows,
        simulate=simulate,
        raters=3,
        default_splits=("val", "test"),
        case_key=lambda hidden: hidden.get("example_id"),
        own_projects=True,  # a team: a project per rater even at --raters 1, never holding a case its rater wrote
        templates={"zh": "cloze_verify", "en": "en/cloze_verify"},
        descriptions={
            "zh": "故事校验（Story Cloze Test 的规则）：每个故事单独判断是否合理。每个任务一个完整的故事。",
            "en": "Story check (the Story Cloze Test's rule): judge on its own whether each story makes sense. One whole story per task.",
        },
    )
)
