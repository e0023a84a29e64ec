"""`annotate push JOB --model MODEL [--order uncertainty]` (issue 39, item 1): a model's suggestion on each task, with a
`score` (how sure the model is of it) and a `model_version` that says in words what it is, and Label Studio's
uncertainty sampling, which serves the task with the lowest score first (`projects/functions/next_task.py` of the
OSS server: `order_by('predictions__score')` among the predictions of the project's `model_version`).

A suggestion is shown only on a correction job, where the rater edits what she is shown anyway: story_filter, with the
story-quality classifier (`lotdata quality train`): "accept" or "reject" pre-selected. Never on a judging job:
cloze_verify's raters judge whether an ending fits, and a model's answer on the screen would bias them.
"""

from __future__ import annotations

from typing import Any, Callable

from lotdata.annotate.jobs.base import Task, choice

#: what a rater reads as the suggestion's source: Label Studio names the prediction's tab with it (and its score as a
#: percentage), cutting a longer name in the middle, so it stays short; the project's `model_version` is set to the
#: same words, which uncertainty sampling matches
MODEL_VERSION = {"en": "Model guess", "zh": "模型的猜测"}
UNCERTAINTY = "Uncertainty sampling"
SEQUENTIAL = "Sequential sampling"
ORDERS = ("push", "uncertainty")
#: jobs a suggestion would bias: a judgement, not a correction
NEVER = {"cloze_verify": "its raters judge the endings; a model's answer on the screen would bias the judgement"}


def _story_filter(tasks: list[Task], model: str, lang: str) -> str:
    from lotdata.quality.model import load_quality, story_text

    quality = load_quality(model)
    version = MODEL_VERSION.get(lang, MODEL_VERSION["en"])
    scores = quality.score([story_text({"title": t["data"].get("title"), "text": t["data"]["text"]}) for t in tasks])
    for task, keep in zip(tasks, scores):
        decision = "accept" if keep >= 0.5 else "reject"
        task["predictions"] = [
            {
                "model_version": version,
                "score": round(max(keep, 1 - keep), 4),  # how sure the model is of its guess: 0.5 = a coin toss
                "result": [choice("decision", "story", [decision])],
            }
        ]
    return version


#: job -> attach(tasks, model folder, lang) -> the model_version written on each prediction
SUGGESTERS: dict[str, Callable[[list[Task], str, str], str]] = {"story_filter": _story_filter}


def check_suggest(job: str, model: str | None, order: str) -> None:
    """`--model` only on a job that has a suggester (never on a judging job); `--order uncertainty` needs `--model`."""
    if order not in ORDERS:
        raise ValueError(f"--order {order!r}: one of {', '.join(ORDERS)}")
    if model is not None and job not in SUGGESTERS:
        why = NEVER.get(job, "it is not a correction job lotdata has a model for")
        raise ValueError(
            f"--model: no suggestion is shown on {job} ({why}); jobs that take one: {', '.join(SUGGESTERS)}"
        )
    if order == "uncertainty" and model is None:
        raise ValueError("--order uncertainty needs --model: the order is the model's scores, lowest first")


def attach(job: str, tasks: list[Task], model: str, lang: str) -> str:
    """Put the model's suggestion and score on each task (`predictions`); returns the model_version."""
    return SUGGESTERS[job](tasks, model, lang)


def set_order(conn: Any, project_ids: list[int], order: str, model_version: str | None) -> None:
    """Uncertainty sampling (lowest score first) with the predictions of `model_version` shown to raters; or, for
    --order push, the default sequential order."""
    for pid in project_ids:
        if order == "uncertainty":
            settings = {"sampling": UNCERTAINTY, "model_version": model_version, "show_collab_predictions": True}
        else:
            settings = {"sampling": SEQUENTIAL}
        conn.call(conn.sdk.projects.update, pid, **settings)
