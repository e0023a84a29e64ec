"""senpos_refine (LOT appendix 3, Figure 3): check that a removed sentence fits one gap only, move, revise or reject."""

from __future__ import annotations

from collections import Counter
from typing import Any, Hashable, Mapping, Sequence

from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    choice,
    dataset_loader,
    kept_by_vote,
    numbers,
    prediction,
    register_job,
    voters_for,
)
from lotdata.annotate.template import InvalidResult
from lotdata.text import normalize_text


def gapped_story(sentences: Sequence[str]) -> str:
    parts = [sentences[0]]
    for k, sentence in enumerate(sentences[1:], 1):
        parts.append(f" [{k}] {sentence}")
    return "".join(parts)


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "zh") -> list[Task]:
    tasks = []
    for row in rows:
        data = {
            "uid": row["example_id"],
            "removed": row["removed"],
            "numbered": gapped_story(row["sentences"]),
            "gap_choices": numbers(1, len(row["sentences"]) - 1),
        }
        guesses = [choice("gaps", "story", [str(row["label"])]), choice("verdict", "story", ["keep"])]
        tasks.append(
            {
                "data": data,
                "hidden": {"example": row, "original_gap": int(row["label"])},
                "predictions": prediction("lotdata-senpos-auto", guesses),
            }
        )
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
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
            sentences = [
                normalize_text(line, example["lang"]) for line in values["revised_story"].splitlines() if line.strip()
            ]
            if len(sentences) < 2:
                raise InvalidResult("revised_story: fewer than two sentences")
    gaps = tuple(int(g) for g in values.get("gaps", []))
    if not gaps:
        raise InvalidResult("gaps: no gap marked and not rejected")
    if max(gaps) > len(sentences) - 1:
        raise InvalidResult(f"gaps: {max(gaps)} beyond the last gap ({len(sentences) - 1}) of the story")
    if verdict == "keep" and gaps != (original,):
        raise InvalidResult(
            f"verdict 'keep' but gaps {list(gaps)} are not the original gap [{original}]: choose 'move', 'revise' or 'reject'"
        )
    if verdict == "move" and (len(gaps) != 1 or gaps[0] == original):
        raise InvalidResult(
            f"verdict 'move' needs exactly one gap other than the original {original}, got {list(gaps)}"
        )
    return {
        "rejected": False,
        "gaps": gaps,
        "removed": sentence,
        "sentences": sentences,
        "revised": verdict == "revise",
        "moved": verdict == "move",
    }


def votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [("gaps", "reject" if values["rejected"] else ",".join(map(str, values["gaps"])))]


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Majority of the raters' answers (reject, or the set of fitting gaps); one gap must fit. A label that moves
    away from the automatic one is counted and listed; with one rater it is listed as unconfirmed."""
    examples, dropped, moved = [], Counter(), []
    for uid, anns in by_uid(annotations).items():
        outcome = kept_by_vote(anns, "gaps", dropped)
        if outcome is None:
            continue
        if len(outcome) != 1:
            dropped["several_gaps_fit"] += 1
            continue
        chosen = voters_for(anns, "gaps", outcome)
        ann = next((a for a in reversed(chosen) if a.values["revised"]), chosen[-1])
        example = dict(ann.hidden["example"])
        sentences = ann.values["sentences"]
        if not ann.values["revised"] and outcome[0] != ann.hidden["original_gap"]:
            moved.append(
                {
                    "example_id": example["example_id"],
                    "from": ann.hidden["original_gap"],
                    "to": outcome[0],
                    "raters_agreeing": len(chosen),
                    "raters": len(anns),
                    "confirmed": len(chosen) >= 2,
                }
            )
        examples.append(
            {
                **example,
                "sentences": sentences,
                "removed": ann.values["removed"],
                "label": outcome[0],
                "n_candidates": len(sentences) - 1,
                "refined": True,
            }
        )
    stats = {
        "kept": len(examples),
        "dropped": dict(dropped),
        "moved": len(moved),
        "moved_unconfirmed": sum(not m["confirmed"] for m in moved),
        "moved_examples": moved,
    }
    return {"senpos": examples, "stats": stats}


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    return {"senpos": output.dataset("senpos", assembled["senpos"])}


def demo_rows() -> list[Row]:
    return [
        {
            "example_id": f"demo{i}",
            "story_id": f"s{i}",
            "split": "test",
            "sentences": ["甲走进门。", "乙站起来。", "丙笑了。", "丁关上窗。"],
            "removed": "戊坐下了。",
            "label": 1 + i,
            "n_candidates": 3,
            "refined": False,
            "lang": "zh",
        }
        for i in range(2)
    ]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    if rater == 2:
        return [choice("verdict", "story", ["reject"])]
    return [choice("gaps", "story", [str(task["hidden"]["original_gap"])]), choice("verdict", "story", ["keep"])]


SPEC = register_job(
    JobSpec(
        name="senpos_refine",
        order=3,
        summary="check, move or revise SenPos examples (LOT appendix 3)",
        input_help="senpos dataset folder",
        load=dataset_loader("senpos"),
        to_tasks=to_tasks,
        check=check,
        votes=votes,
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        default_splits=("val", "test"),
        templates={"zh": "senpos_refine", "en": "en/senpos_refine"},
        descriptions={
            "zh": "SenPos 精修（LOT 附录图 3）：标出抽出的句子可以放回故事的所有位置，确认原位置、改放、修改或拒绝。每个样本一个任务。",
            "en": "SenPos refinement (LOT appendix, Figure 3): mark every place in the story where the removed sentence fits; keep the original place, move it, revise, or reject. One task per example.",
        },
    )
)
