"""human_perf (LOT Section 5.3): people answer ClozeT and SenPos items, 100 drawn per split; accuracy and Fleiss' kappa\nper task and split (LOT Table 10 gives H for val and test apart)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.annotate.agreement import fleiss_kappa, krippendorff_alpha, majority_vote
from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    choice,
    load_dataset_rows,
    numbers,
    opaque_uid,
    register_job,
    rounded,
)
from lotdata.annotate.jobs.senpos_refine import gapped_story
from lotdata.errors import InputError
from lotdata.schema import MASK_TOKENS

#: the human performance file (LOT Section 5.3) that the Overall score's H_i reads
HUMAN_PERF_FILE = "human_perf.json"

HUMAN_PERF_TASKS = ("clozet", "senpos")


def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
    return load_dataset_rows(path, splits, HUMAN_PERF_TASKS)


#: what a rater reads, per language: the instruction and the question's labels (the blank is drawn as a gap)
SCREEN_TEXT = {
    "zh": {
        "gap": "＿＿＿＿",
        "clozet": "ClozeT：故事中 ＿＿＿＿ 处缺了一句。哪个候选放在那里更合理？",
        "candidate": "候选 {k}：{text}",
        "senpos": "SenPos：这句话应该放回故事中的哪个位置（[1]、[2]……）？",
        "sentence": "待放回的句子：{text}",
        "story": "故事：{text}",
    },
    "en": {
        "gap": "_____",
        "clozet": "ClozeT: a sentence is missing from the story at the gap _____. Which option fits there better?",
        "candidate": "Option {k}: {text}",
        "senpos": "SenPos: where in the story ([1], [2]...) does this sentence belong?",
        "sentence": "Sentence to put back: {text}",
        "story": "Story: {text}",
    },
}


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "zh") -> list[Task]:
    """ClozeT and SenPos items without their labels; options are numbered from 1 on every task; ClozeT's mask token is
    shown as a visible gap."""
    text = SCREEN_TEXT[lang]
    tasks = []
    for row in rows:
        kind = row["_task"]
        if kind == "clozet":
            candidates = "\n".join(
                text["candidate"].format(k=k, text=c) for k, c in enumerate(row["candidates"][:2], 1)
            )
            question = f"{row['context'].replace(MASK_TOKENS['clozet'], text['gap'])}\n\n{candidates}"
            data = {"instruction": text["clozet"], "question": question, "options": numbers(1, 2)}
            answer = int(row["label"]) + 1
        else:
            question = f"{text['sentence'].format(text=row['removed'])}\n\n{text['story'].format(text=gapped_story(row['sentences']))}"
            data = {
                "instruction": text["senpos"],
                "question": question,
                "options": numbers(1, len(row["sentences"]) - 1),
            }
            answer = int(row["label"])
        data["uid"] = opaque_uid("perf", kind, row["example_id"])
        tasks.append(
            {
                "data": data,
                "hidden": {"task": kind, "example_id": row["example_id"], "split": row["split"], "answer": answer},
            }
        )
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    return {"task": hidden.get("task", "unknown"), "answer": int(values["answer"])}


def _performance(items: Mapping[str, list[Annotation]]) -> dict[str, Any]:
    """Majority vote of the raters per item (a tie counts as wrong): accuracy, Fleiss' kappa, Krippendorff's alpha with
    its interval, and the counts."""
    correct = ties = 0
    for anns in items.values():
        decision = majority_vote(a.values["answer"] for a in anns)
        ties += decision is None
        correct += decision == anns[0].hidden["answer"]
    answers = {uid: [a.values["answer"] for a in anns] for uid, anns in items.items()}
    alpha = krippendorff_alpha(answers)  # nominal, with its 95% bootstrap interval (None: not measurable)
    return {
        "accuracy": round(correct / len(items), 4),
        "fleiss_kappa": rounded(fleiss_kappa(answers)),
        "krippendorff_alpha": None if alpha is None else {"alpha": alpha["alpha"], "ci95": alpha["ci95"]},
        "n_items": len(items),
        "n_raters": max(len(anns) for anns in items.values()),
        "ties": ties,
        "n_raters_min": min(len({a.annotator for a in anns}) for anns in items.values()),
    }


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Per task, over its splits and per split (LOT Table 10 gives H for val and test apart): accuracy by majority
    vote and Fleiss' kappa."""
    by_task: dict[str, dict[str, list[Annotation]]] = defaultdict(dict)
    for uid, anns in by_uid(annotations).items():
        by_task[anns[0].hidden["task"]][uid] = anns
    report = {}
    for task, items in sorted(by_task.items()):
        by_split: dict[str, dict[str, list[Annotation]]] = defaultdict(dict)
        for uid, anns in items.items():
            by_split[str(anns[0].hidden.get("split") or "unknown")][uid] = anns
        report[task] = {
            **_performance(items),
            "splits": {split: _performance(by_split[split]) for split in sorted(by_split)},
        }
    return {
        "human_perf": report,
        "stats": {task: {"n_items": r["n_items"], "ties": r["ties"]} for task, r in report.items()},
    }


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`human_perf.json`, read by the Overall score as H_i."""
    import json

    from lotdata.io import write_text

    write_text(
        json.dumps(assembled["human_perf"], ensure_ascii=False, indent=2) + "\n", output.folder / HUMAN_PERF_FILE
    )
    return {"human_perf": assembled["human_perf"]}


def check_human_perf_complete(
    report: dict[str, dict[str, Any]], job_state: Any, *, allow_partial: bool = False
) -> None:
    """Compare a human performance report with what the push asked for (every pushed item, `raters_per_task`
    raters on each; `job_state`: the pushed title's `JobState`); record both in the report; refuse (exit 3) a
    shortfall unless `allow_partial`."""
    pushed: dict[str, int] = {}
    for task in job_state.tasks.values():
        kind = (task.get("hidden") or {}).get("task")
        if kind and not task.get("gold"):
            pushed[kind] = pushed.get(kind, 0) + 1
    asked = job_state.raters_per_task
    short = []
    for kind, n_pushed in sorted(pushed.items()):
        entry = report.get(kind)
        items, raters = (entry["n_items"], entry.get("n_raters_min", entry["n_raters"])) if entry else (0, 0)
        if items < n_pushed:
            short.append(f"{kind}: {items} of {n_pushed} items answered")
        if entry and raters < asked:
            short.append(f"{kind}: an item answered by {raters} of {asked} raters")
        if entry:
            entry.update(items_pushed=n_pushed, raters_asked=asked)
    if short and not allow_partial:
        raise InputError(
            "human performance from fewer items or raters than the job asked for ("
            + "; ".join(short)
            + "): H would not be what the job measures; pull again when the raters are done, or "
            "--allow-partial to write it marked partial",
            path=str(job_state.path),
        )
    for entry in report.values():
        entry["partial"] = bool(short)


def check_complete(assembled: dict[str, Any], job_state: Any, allow_partial: bool) -> None:
    """The record's `check_complete`: H from every item the push sent, each answered by the raters it asked for."""
    check_human_perf_complete(assembled["human_perf"], job_state, allow_partial=allow_partial)


def demo_rows() -> list[Row]:
    clozet = [
        {
            "_task": "clozet",
            "example_id": f"c{i}",
            "split": "test",
            "context": "小明养了一只猫。<mask>他们是好朋友。",
            "candidates": ["小明很喜欢他的猫。", "小明把猫吃了。"],
            "label": i % 2,
        }
        for i in range(2)
    ]
    senpos = [
        {
            "_task": "senpos",
            "example_id": f"p{i}",
            "split": "test",
            "sentences": ["甲走进门。", "乙站起来。", "丙笑了。"],
            "removed": "丁坐下了。",
            "label": 1 + i,
        }
        for i in range(2)
    ]
    return clozet + senpos


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    return [choice("answer", "question", [str(task["hidden"]["answer"] if rater else 1)])]


SPEC = register_job(
    JobSpec(
        name="human_perf",
        order=7,
        summary="people answer ClozeT and SenPos items: human performance (LOT 5.3)",
        input_help="clozet or senpos dataset folder",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [(f"answer_{v['task']}", v["answer"])],
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        raters=3,
        default_splits=("val", "test"),
        sample_key=lambda r: f"{r['_task']}:{r['example_id']}",
        default_sample=100,
        sample_per=lambda r: f"{r['_task']}:{r['split']}",
        templates={"zh": "human_perf", "en": "en/human_perf"},
        check_complete=check_complete,
        descriptions={
            "zh": "人类表现（LOT 5.3 节）：回答 ClozeT 和 SenPos 理解题，选出你认为正确的一项。每道题一个任务。",
            "en": "Human performance (LOT Section 5.3): answer ClozeT and SenPos questions; choose the option you think is right. One task per question.",
        },
    )
)
