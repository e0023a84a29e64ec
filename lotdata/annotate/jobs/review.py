"""review: a flagged submission goes to a reviewer, never away (DESIGN, "How a gate earns trust").

A job with checks (`JobSpec.checks`) flags its submissions at pull; a flag of a rule of level "refuse" holds the
submission for review, a "warn" flag is only shown. `lotdata annotate push review --input PULL_FOLDER` gives each
held submission to a reviewer with its flags (rule, level, detail). The reviewer accepts it anyway, refuses it with a
comment that goes back to its writer, or edits it. Pull writes `reviews.jsonl` (every decision), `revisions.jsonl`
(the refused ones, back to their writers: push it to the job again, to the same project) and the job's own tables of
the accepted and edited submissions (sct_write: `clozet/`, for `cloze_verify` beside the pull's own `clozet/`;
clozet_write: `clozet/` and `plotcom/`).

The reviewer is never the writer: with a team, every reviewer has a project of their own and a submission is never
given to its writer (`JobSpec.own_projects`, `hidden["author"]`); without one (one shared project, where every
account can open every task) a decision made by the writer is not counted and the submission still waits.

Which jobs can be reviewed here, and how: `REVIEWABLE` (what is shown, what a reviewer may edit, the tables of the
accepted ones, the revision row of a refused one). story_write has its own review of every story (`story_review`);
story_filter's checks send a rewrite back to its rater (`story_filter`'s `revisions.jsonl`).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    choice,
    opaque_uid,
    register_job,
    textarea,
)
from lotdata.annotate.template import InvalidResult
from lotdata.errors import InputError, must_exist
from lotdata.io import iter_jsonl

DECISIONS = ("accept", "refuse", "edit")
EDIT_BOXES = ("edit_1", "edit_2")


@dataclass(frozen=True)
class Reviewable:
    """How the submissions of one job are reviewed.

    `held(folder) -> cases`: the submissions of a pull folder that wait for review (each a dict with `id`, `writer`
    and whatever `shown`, `accepted` and `revision` read); `shown(case, lang) -> text` what the reviewer reads;
    `edits`: the case's fields the edit boxes replace, in box order (`edit_help` tells the reviewer, per language);
    `accepted(cases, output) -> summary` writes the job's tables of the accepted and edited cases;
    `revision(case, comment) -> row` a refused case as a row the job's `load` reads back (to its writer)."""

    job: str
    held: Callable[[Path], list[Row]]
    shown: Callable[[Row, str], str]
    edits: tuple[str, ...]
    edit_help: Mapping[str, str]
    accepted: Callable[[list[Row], Output], dict[str, Any]]
    revision: Callable[[Row, str], Row]


# ---------------------------------------------------------------- sct_write


def read_flags(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """A pull folder's flags (`flags.parquet`) by submission id; a flag without a level is of level refuse."""
    import pyarrow.parquet as pq

    found: dict[str, list[dict[str, Any]]] = {}
    if (folder / "flags.parquet").exists():
        for flag in pq.read_table(folder / "flags.parquet").to_pylist():
            found.setdefault(flag["id"], []).append({**flag, "level": flag.get("level") or "refuse"})
    return found


def sct_held(folder: Path) -> list[Row]:
    """The cases of an sct_write pull that a refuse flag holds, each the latest of its story (an older version,
    already revised by its writer, no longer waits)."""
    file = folder / "cases.jsonl"
    if not file.exists():
        raise InputError("expected an sct_write pull folder (cases.jsonl)", path=str(folder))
    cases = [row for _, row in iter_jsonl(file)]
    flags = read_flags(folder)
    newest: dict[str, int] = {}
    for case in cases:
        newest[case["story_id"]] = max(newest.get(case["story_id"], 0), int(case.get("version") or 1))
    held = []
    for case in cases:
        found = flags.get(case["id"], [])
        refused = case.get("to_review", any(f["level"] == "refuse" for f in found))
        if refused and int(case.get("version") or 1) == newest[case["story_id"]]:
            held.append({**case, "flag_rows": found})
    return held


SCT_LABELS = {"en": ("Right ending", "Wrong ending"), "zh": ("正确结尾", "错误结尾")}


def sct_shown(case: Row, lang: str) -> str:
    right, wrong = SCT_LABELS.get(lang, SCT_LABELS["en"])
    four = "\n".join(f"{k}. {s}" for k, s in enumerate(case["context"], 1))
    return f"{four}\n{right}: {case['right_ending']}\n{wrong}: {case['wrong_ending']}"


def sct_accepted(cases: list[Row], output: Output) -> dict[str, Any]:
    from lotdata.annotate.jobs.sct_write import clozet_examples

    return {"clozet": output.dataset("clozet", clozet_examples(sorted(cases, key=lambda c: c["story_id"])))}


def sct_revision(case: Row, comment: str) -> Row:
    return {
        "story_id": case["story_id"],
        "split": case["split"],
        "lang": case["lang"],
        "four": list(case["context"]),
        "writer": case["writer"],
        "feedback": comment,
        "previous": {
            "right": case["right_ending"],
            "wrong": case["wrong_ending"],
            # a model saw through these endings: the writer's next task says so (sct_write.SAW_THROUGH)
            **({"model_confidence": case["model_confidence"]} if "model_easy" in case.get("flags", []) else {}),
        },
        "version": int(case.get("version") or 1) + 1,
        "license": case.get("license"),
    }


# ---------------------------------------------------------------- clozet_write


def clozet_held(folder: Path) -> list[Row]:
    """The cases of a clozet_write pull that a refuse flag holds (`held.jsonl`), each the latest of its story."""
    file = folder / "held.jsonl"
    if not file.exists():
        raise InputError("expected a clozet_write pull folder (held.jsonl)", path=str(folder))
    cases = [row for _, row in iter_jsonl(file)]
    newest: dict[str, int] = {}
    for case in cases:
        newest[case["story_id"]] = max(newest.get(case["story_id"], 0), int(case.get("version") or 1))
    return [c for c in cases if int(c.get("version") or 1) == newest[c["story_id"]]]


CLOZET_LABELS = {"en": ("the chosen sentence", "Wrong sentence"), "zh": ("所选的句子", "错误句子")}


def clozet_shown(case: Row, lang: str) -> str:
    chosen, wrong = CLOZET_LABELS.get(lang, CLOZET_LABELS["en"])
    lines = [
        f"{k}. {s}" + (f"   <- {chosen}" if k - 1 == case["index"] else "") for k, s in enumerate(case["sentences"], 1)
    ]
    return "\n".join([*lines, f"{wrong}: {case['wrong']}"])


def clozet_accepted(cases: list[Row], output: Output) -> dict[str, Any]:
    from lotdata.annotate.jobs.clozet_write import balance_labels, example_of, write_clozet

    examples = [example_of(c) for c in sorted(cases, key=lambda c: c["story_id"])]
    return write_clozet({"clozet": balance_labels(examples)}, output)


def clozet_revision(case: Row, comment: str) -> Row:
    return {
        "story_id": case["story_id"],
        "split": case["split"],
        "lang": case["lang"],
        "sentences": list(case["sentences"]),
        "writer": case["writer"],
        "feedback": comment,
        "previous": {"sentence": case["sentences"][case["index"]], "wrong": case["wrong"]},
        "version": int(case.get("version") or 1) + 1,
        "license": case.get("license"),
    }


REVIEWABLE: dict[str, Reviewable] = {
    "sct_write": Reviewable(
        job="sct_write",
        held=sct_held,
        shown=sct_shown,
        edits=("right_ending", "wrong_ending"),
        edit_help={
            "en": "Box 1: the right ending as it should be; box 2: the wrong ending. Leave a box empty to keep that "
            "ending as written.",
            "zh": "第一个框：改好的正确结尾；第二个框：改好的错误结尾。不改的结尾请留空。",
        },
        accepted=sct_accepted,
        revision=sct_revision,
    ),
    "clozet_write": Reviewable(
        job="clozet_write",
        held=clozet_held,
        shown=clozet_shown,
        edits=("wrong",),
        edit_help={
            "en": "Box 1: the wrong sentence as it should be (box 2 is not used for this job).",
            "zh": "第一个框：改好的错误句子（这个任务不用第二个框）。",
        },
        accepted=clozet_accepted,
        revision=clozet_revision,
    ),
}


# ---------------------------------------------------------------- the job


def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """The submissions a pull folder holds for review (its `pull.json` names the job)."""
    path = must_exist(path, "--input")
    summary = path / "pull.json"
    if not path.is_dir() or not summary.exists():
        raise InputError("expected the folder of a pull (pull.json) of a job with checks", path=str(path))
    pulled = json.loads(summary.read_text(encoding="utf-8"))
    job = pulled.get("job")
    if job not in REVIEWABLE:
        raise InputError(
            f"a pull of {job}; the review job reviews {', '.join(REVIEWABLE)} (story_write: story_review)",
            path=str(path),
        )
    return [{"job": job, "case": case, "source_project": pulled.get("project")} for case in REVIEWABLE[job].held(path)]


NONE = {"en": "none", "zh": "无"}


def flag_lines(flags: Sequence[Mapping[str, Any]], lang: str) -> str:
    """The flags as the reviewer reads them: one line each, `rule (level): detail`, the refusing ones first."""
    ordered = sorted(flags, key=lambda f: (f.get("level") != "refuse", f["rule"]))
    return "\n".join(f"{f['rule']} ({f.get('level') or 'refuse'}): {f['detail']}" for f in ordered) or NONE[lang]


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "en") -> list[Task]:
    tasks = []
    for row in rows:
        spec, case = REVIEWABLE[row["job"]], row["case"]
        flags = case.get("flag_rows") or []
        tasks.append(
            {
                "data": {
                    "uid": opaque_uid("review", row["job"], case["id"]),
                    "submission": spec.shown(case, lang),
                    "flags": flag_lines(flags, lang),
                    "edit_help": spec.edit_help.get(lang) or spec.edit_help["en"],
                },
                "hidden": {
                    "job": row["job"],
                    "case_id": case["id"],
                    # not "writer": that key addresses a task *to* its writer (a revision); this one must avoid them
                    "author": case["writer"],
                    "case": {k: v for k, v in case.items() if k != "flag_rows"},
                    "flag_rows": flags,
                    "source_project": row.get("source_project"),
                },
            }
        )
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    decision = values["decision"]
    comment = values.get("comment", "").strip()
    if decision == "refuse" and not comment:
        raise InvalidResult("decision 'refuse' without a comment for the writer")
    edits = {}
    if decision == "edit":
        fields = REVIEWABLE[hidden["job"]].edits if hidden.get("job") in REVIEWABLE else ()
        edits = {field: values[box].strip() for field, box in zip(fields, EDIT_BOXES) if values.get(box, "").strip()}
        if not edits:
            raise InvalidResult("decision 'edit' without an edited text")
    return {"decision": decision, "comment": comment if decision == "refuse" else "", "edits": edits}


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """The last decision on each submission, by anyone but its writer, decides it: accepted and edited ones go on
    (an edit replaces the fields it names), a refused one goes back to its writer with the comment."""
    reviews, by_writer = [], 0
    decided: dict[str, tuple[Annotation, Mapping[str, Any]]] = {}
    for uid, anns in sorted(by_uid(annotations).items()):
        for ann in anns:
            own = ann.annotator == ann.hidden.get("author")
            by_writer += own
            reviews.append(
                {
                    "case_id": ann.hidden["case_id"],
                    "job": ann.hidden["job"],
                    "writer": ann.hidden.get("author"),
                    "reviewer": ann.annotator,
                    "decision": ann.values["decision"],
                    "comment": ann.values["comment"],
                    "edits": ann.values["edits"],
                    "flags": list(ann.hidden.get("flag_rows") or []),
                    "counted": not own,
                    "created_at": ann.created_at,
                    "annotation_id": str(ann.annotation_id),
                }
            )
            if not own:
                decided[ann.hidden["case_id"]] = (ann, ann.hidden)
    accepted: dict[str, list[Row]] = {}
    revisions = []
    for case_id, (ann, hidden) in sorted(decided.items()):
        spec, case = REVIEWABLE[hidden["job"]], dict(hidden["case"])
        if ann.values["decision"] == "refuse":
            revisions.append(spec.revision(case, ann.values["comment"]))
            continue
        case.update(ann.values["edits"])
        case["review"] = {"decision": ann.values["decision"], "reviewer": ann.annotator}
        accepted.setdefault(spec.job, []).append(case)
    counts = Counter(ann.values["decision"] for ann, _ in decided.values())
    stats = {
        "reviewed": len(decided),
        "accepted": counts["accept"],
        "edited": counts["edit"],
        "refused": counts["refuse"],
        "not_counted_by_the_writer": by_writer,
    }
    return {
        "reviews": sorted(reviews, key=lambda r: (r["case_id"], r["created_at"], r["annotation_id"])),
        "accepted": accepted,
        "revisions": revisions,
        "decided": sorted(decided),
        "stats": stats,
    }


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`reviews.jsonl` (every decision, the writer's own marked not counted), `revisions.jsonl` (refused cases, back
    to their writers) and the reviewed job's tables of the accepted and edited cases."""
    from lotdata.io import write_jsonl

    output.folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(assembled["reviews"], output.folder / "reviews.jsonl")
    write_jsonl(assembled["revisions"], output.folder / "revisions.jsonl")
    summary: dict[str, Any] = {"revisions": len(assembled["revisions"])}
    jobs = sorted({r["job"] for r in assembled["reviews"]})
    for job in jobs:
        summary.update(REVIEWABLE[job].accepted(assembled["accepted"].get(job, []), output))
    return summary


# ---------------------------------------------------------------- what waits (annotate status)


def waiting(conn: Any, job_name: str, job_state: Any, valid: list[Annotation], directory: Path) -> dict[str, int]:
    """What waits for someone, for `annotate status`: of a review title, its submissions no counted decision has
    settled yet; of a title of a reviewable job, the submissions its refuse flags hold, those still without a decision
    in the review titles pushed from the same state folder, and those not pushed to review at all; of another job
    with checks whose assembly sends work back (story_filter), what waits for its rater's revision."""
    from lotdata.annotate.jobs.base import get_job

    if job_name == "review":
        cases = {e["hidden"]["case_id"] for e in job_state.tasks.values() if e.get("gold") is None}
        decided = set(assemble(valid)["decided"]) if valid else set()
        return {"waiting_for_review": len(cases - decided), "reviewed": len(cases & decided)}
    if not valid or not get_job(job_name).checks:
        return {}
    if job_name not in REVIEWABLE:
        stats = get_job(job_name).assemble(valid).get("stats", {})
        return {"returned_to_rater": stats["returned_to_rater"]} if "returned_to_rater" in stats else {}

    assembled = get_job(job_name).assemble(valid)
    held = {c["id"] for c in assembled.get("held") or [c for c in assembled.get("cases", []) if c.get("to_review")]}
    pushed, decided = _reviews_of(conn, job_state.title, directory)
    return {
        "held_for_review": len(held),
        "waiting_for_review": len(held - decided),
        "not_pushed_to_review": len(held - pushed),
    }


def _reviews_of(conn: Any, title: str, directory: Path) -> tuple[set[str], set[str]]:
    """The submissions of `title` pushed to review titles of the state folder, and those decided there."""
    from lotdata.annotate.pull import gather
    from lotdata.annotate.state import pushed_jobs

    pushed: set[str] = set()
    decided: set[str] = set()
    for review in pushed_jobs(directory, conn.url):
        mine = {
            e["hidden"]["case_id"]
            for e in review.tasks.values()
            if review.job == "review" and e["hidden"].get("source_project") == title
        }
        if not mine:
            continue
        pushed |= mine
        found = gather(conn, "review", review.title, state=directory)[3]
        decided |= mine & set(assemble(found.valid)["decided"])
    return pushed, decided


# ---------------------------------------------------------------- demo


def demo_rows() -> list[Row]:
    context = [
        "Karen wanted to surprise her husband.",
        "She saved money for months.",
        "She bought him a guitar.",
        "She hid it behind the couch.",
    ]
    return [
        {
            "job": "sct_write",
            "source_project": "demo endings",
            "case": {
                "id": f"demo{i}-{i + 1}",
                "story_id": f"demo{i}",
                "split": split,
                "lang": "en",
                "context": context,
                "right_ending": 'He read the card that said "love" and smiled.',
                "wrong_ending": "Karen sold the couch and the guitar.",
                "writer": "w1@raters.lotdata.local",
                "annotation_id": str(i + 1),
                "version": 1,
                "created_at": f"2026-01-01T00:00:0{i}",
                "flags": ["no_quotations"],
                "to_review": True,
                "flag_rows": [
                    {
                        "id": f"demo{i}-{i + 1}",
                        "rule": "no_quotations",
                        "detail": "quotation mark '\"' in the right ending",
                        "level": "refuse",
                    }
                ],
            },
        }
        for i, split in enumerate(("val", "test"))
    ]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    if rater % 2:
        return [
            choice("decision", "submission", ["refuse"]),
            textarea("comment", "submission", "No quotation marks, please."),
        ]
    return [choice("decision", "submission", ["accept"])]


SPEC = register_job(
    JobSpec(
        name="review",
        order=12,
        summary="review flagged submissions of a job with checks: accept anyway, edit, or refuse with a comment "
        "back to the writer (sct_write, clozet_write)",
        input_help="the folder of an sct_write or clozet_write pull",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [("decision", v["decision"])],
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        templates={"en": "en/review", "zh": "review"},
        lang="en",
        case_key=lambda hidden: hidden.get("case_id"),
        own_projects=True,
        descriptions={
            "en": "Review: a submission the automatic checks flagged, with its flags. Accept it anyway (a false "
            "alarm), edit it yourself, or send it back to its writer with a comment. One task per submission.",
            "zh": "审核：自动检查标记过的投稿和它的标记。误报就照样通过，或者自己改好，或者附上意见退回给作者。每个投稿一个任务。",
        },
    )
)
