"""story_write (ROCStories 3.1, Table 1): writers write a new five-sentence story with a title. A submission is never
refused at pull for breaking a rule: the automatic checks (`lotdata.annotate.checks`, `checks` below) flag it and it
goes to review (`story_review`) with its flags. A refused story comes back as a new task showing the reviewer's
comment and the old text (a row of `revisions.jsonl`, pushed again); every version is kept."""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.annotate.checks import STORY_RULES, CheckOptions, run_checks
from lotdata.annotate.jobs.base import Annotation, JobSpec, Output, Row, Task, opaque_uid, register_job, textarea
from lotdata.annotate.template import InvalidResult
from lotdata.errors import InputError, must_exist

SENTENCE_FIELDS = tuple(f"sentence{k}" for k in range(1, 6))
PROMPTS = {
    "en": "Write a new five-sentence story about everyday life, on a topic of your own.",
    "zh": "写一个新的五句话日常生活故事，题材自选。",
}


def slots(n: int) -> list[Row]:
    """N fresh writing slots (`push --n N`): slot k has the same uid on every push."""
    return [{"slot": k} for k in range(n)]


def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Revision tasks (`revisions.jsonl` from a `story_review` pull: story, writer, feedback, previous, version) or
    prompts (JSON lines with `prompt`)."""
    path = must_exist(path, "--input")
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON ({exc.msg})", path=str(path), row=n) from None
        if not isinstance(row, dict) or not (row.get("story") or row.get("prompt")):
            raise InputError(
                'a line is {"story", "writer", "feedback", "previous", "version"} (a revision) or {"prompt"}',
                path=str(path),
                row=n,
            )
        rows.append(row)
    return rows


REVISION_PROMPTS = {
    "en": "Revise your story (version {version}): it was sent back to you with the comment below. Your last version "
    "is already in the boxes: change what the comment asks for, then submit. (For: {writer})",
    "zh": "修改你的故事（第 {version} 版）：它被退回给你，意见见下方。框里已经填好你的上一版：按意见修改后提交。"
    "（作者：{writer}）",
}
#: the task fields the boxes start with (`value="$last_title"` ...): the last version on a revision, empty otherwise
LAST_FIELDS = ("last_title", *(f"last_{name}" for name in SENTENCE_FIELDS))


def last_version(row: Row) -> dict[str, str]:
    """The boxes' starting text of a revision task: its `last` (title, sentences), else read back from `previous`
    (the title on the first line, then `k. sentence`, as story_review shows a submission)."""
    last = row.get("last")
    if isinstance(last, dict):
        title, sentences = str(last.get("title") or ""), [str(s) for s in last.get("sentences") or []]
    else:
        lines = str(row.get("previous") or "").splitlines()
        title = lines[0] if lines and lines[0] != "(no title)" else ""
        sentences = [line.split(". ", 1)[1] if ". " in line else line for line in lines[1:]]
    sentences = (sentences + [""] * 5)[:5]
    return dict(zip(LAST_FIELDS, [title, *sentences]))


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "en") -> list[Task]:
    tasks = []
    for row in rows:
        if row.get("story"):  # a refused story back to its writer
            version = int(row.get("version") or 2)
            story = str(row["story"])
            uid = opaque_uid("write", story, version)
            data = {
                "uid": uid,
                "prompt": REVISION_PROMPTS[lang].format(version=version, writer=row.get("writer") or "-"),
                "feedback": str(row.get("feedback") or ""),
                "previous": str(row.get("previous") or ""),
                **last_version(row),
            }
            hidden = {"thread": story, "version": version, "writer": row.get("writer")}
        else:
            key = row.get("slot", row.get("prompt"))
            uid = opaque_uid("write", key)
            data = {"uid": uid, "prompt": str(row.get("prompt") or PROMPTS[lang]), "feedback": "", "previous": ""}
            data.update(dict.fromkeys(LAST_FIELDS, ""))
            hidden = {"thread": uid, "version": 1, "writer": None}
        tasks.append({"data": data, "hidden": {**hidden, "lang": lang}})
    return tasks


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    """The form's fields; a rule a story breaks is flagged later, not refused here."""
    missing = [name for name in ("title", *SENTENCE_FIELDS) if name not in values]
    if len(missing) == 6:
        raise InvalidResult("no title and no sentence written")
    return {"title": values.get("title", "").strip(), "sentences": [values.get(k, "").strip() for k in SENTENCE_FIELDS]}


def submission_rows(annotations: list[Annotation]) -> list[Row]:
    """Every submitted version, oldest first per story."""
    rows = []
    writers_of_slot: dict[str, set[str]] = {}
    for ann in annotations:
        writers_of_slot.setdefault(ann.uid, set()).add(ann.annotator)
    for ann in sorted(annotations, key=lambda a: (a.created_at, a.annotation_id)):
        sentences = ann.values["sentences"]
        story = _story_id(ann, shared=len(writers_of_slot[ann.uid]) > 1)
        rows.append(
            {
                "submission_id": f"{story}-v{ann.hidden.get('version', 1)}-{ann.annotation_id}",
                "story": story,
                "version": int(ann.hidden.get("version", 1)),
                "writer": ann.annotator,
                "title": ann.values["title"],
                "sentences": sentences,
                "text": " ".join(s for s in sentences if s)
                if ann.hidden.get("lang", "en") == "en"
                else "".join(sentences),
                "lang": ann.hidden.get("lang", "en"),
                "created_at": ann.created_at,
                "lead_time": ann.lead_time,
                "annotation_id": str(ann.annotation_id),
            }
        )
    return rows


def _story_id(ann: Annotation, *, shared: bool) -> str:
    """A revision continues its story; a new slot is one story per writer: with a quiz gate every writer has a
    project of their own holding the same slots, so a slot several writers answered holds several stories."""
    story = str(ann.hidden.get("thread") or ann.uid)
    if ann.hidden.get("writer") or not shared:  # a revision goes to its writer only
        return story
    return f"{story}-{hashlib.sha256(ann.annotator.encode()).hexdigest()[:8]}"


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Every submission with the flags of the job's checks (run over all of them: near copies of one another too)."""
    rows = submission_rows(annotations)
    by_lang: dict[str, list[Row]] = {}
    for row in rows:
        by_lang.setdefault(row["lang"], []).append(row)
    flags = []
    for lang, group in sorted(by_lang.items()):
        checked = [
            {"id": r["submission_id"], "title": r["title"], "sentences": r["sentences"], "lang": lang} for r in group
        ]
        flags += run_checks(checked, STORY_RULES, CheckOptions(lang=lang)).flags
    flagged = {f["id"] for f in flags}
    for row in rows:
        row["flags"] = sorted({f["rule"] for f in flags if f["id"] == row["submission_id"]})
    revisions = blank_revisions(rows)
    stats = {
        "submissions": len(rows),
        "returned_to_rater": len(revisions),
        "flagged": len(flagged),
        "per_rule": dict(Counter(f["rule"] for f in flags)),
        "table2": table2(rows, approved=None),
    }
    return {"submissions": rows, "flags": flags, "revisions": revisions, "stats": stats}


BLANK = {
    "en": ("The title is empty (only spaces): write a title.", "Sentence {k} is empty (only spaces): write it."),
    "zh": ("标题是空的（只有空格）：请写标题。", "第 {k} 句是空的（只有空格）：请写这一句。"),
}


def shown_submission(row: Row) -> str:
    """A submission as story_review shows it: the title, then `k. sentence` per line."""
    numbered = "\n".join(f"{k}. {s}" for k, s in enumerate(row["sentences"], 1))
    return f"{row['title'] or '(no title)'}\n{numbered}"


def blank_revisions(rows: list[Row]) -> list[Row]:
    """A story whose latest version has a title or a sentence of only spaces (Label Studio's `required` takes a space
    as an answer) goes straight back to its writer, with the reason, as a revision task (`revisions.jsonl`, pushed to
    story_write like story_review's); every such version is marked `returned` and never goes to review."""
    latest: dict[str, Row] = {}
    for row in rows:
        latest[row["story"]] = row  # rows are oldest first
        title_blank, sentence_blank = BLANK.get(row["lang"], BLANK["en"])
        reasons = ([title_blank] if not row["title"] else []) + [
            sentence_blank.format(k=k) for k, sentence in enumerate(row["sentences"], 1) if not sentence
        ]
        if reasons:  # every blank version is marked: an old one, revised since, never goes to review either
            row["returned"] = " ".join(reasons)
    revisions = []
    for story, row in sorted(latest.items()):
        if row.get("returned"):
            revisions.append(
                {
                    "story": story,
                    "writer": row["writer"],
                    "feedback": row["returned"],
                    "previous": shown_submission(row),
                    "last": {"title": row["title"], "sentences": list(row["sentences"])},
                    "version": row["version"] + 1,
                }
            )
    return revisions


def table2(rows: Sequence[Row], approved: int | None) -> dict[str, Any]:
    """ROCStories Table 2's columns: submitted, approved, writers, stories per writer (mean, max), work time in
    seconds (median, mean) from Label Studio's lead time."""
    per_writer = Counter(r["writer"] for r in rows)
    times = [float(r["lead_time"]) for r in rows if r.get("lead_time") is not None]
    return {
        "submitted": len(rows),
        "approved": approved,
        "writers": len(per_writer),
        "stories_per_writer_mean": round(len(rows) / len(per_writer), 2) if per_writer else None,
        "stories_per_writer_max": max(per_writer.values()) if per_writer else None,
        "work_time_median_s": round(statistics.median(times), 1) if times else None,
        "work_time_mean_s": round(statistics.mean(times), 1) if times else None,
    }


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`submissions.jsonl` (every version, with its flags), `flags.parquet` (id, rule, detail), `table2.json` and
    `revisions.jsonl` (stories with a blank title or sentence, straight back to their writers)."""
    from lotdata.io import write_jsonl, write_parquet, write_text
    from lotdata.schema import CHECK_FLAGS, table_from_rows

    output.folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(assembled["submissions"], output.folder / "submissions.jsonl")
    write_jsonl(assembled.get("revisions") or [], output.folder / "revisions.jsonl")
    write_parquet(table_from_rows(assembled["flags"], CHECK_FLAGS), output.folder / "flags.parquet")
    write_text(json.dumps(assembled["stats"]["table2"], indent=1) + "\n", output.folder / "table2.json")
    return {
        "submissions": len(assembled["submissions"]),
        "flagged": assembled["stats"]["flagged"],
        "returned_to_rater": len(assembled.get("revisions") or []),
    }


DEMO = {
    "en": [
        "Maria signed up to bake cookies for the school sale.",
        "She stayed up late mixing dough.",
        "In the morning the first tray came out burnt.",
        "She quickly baked a second tray.",
        "The cookies sold out before noon.",
    ],
    "zh": [
        "小林想学骑自行车。",
        "爸爸扶着车后座陪他练习。",
        "他摔了好几次。",
        "傍晚他终于能自己骑一圈了。",
        "小林高兴地告诉了妈妈。",
    ],
}


def demo_rows() -> list[Row]:
    return slots(2)


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    lang = task["hidden"].get("lang", "en")
    sentences = DEMO[lang] if rater % 2 == 0 else [*DEMO[lang][:4], DEMO[lang][4] + DEMO[lang][4]]
    return [
        textarea("title", "prompt", "Cookies" if lang == "en" else "学骑车"),
        *(textarea(name, "prompt", s) for name, s in zip(SENTENCE_FIELDS, sentences)),
    ]


SPEC = register_job(
    JobSpec(
        name="story_write",
        order=8,
        summary="write a new five-sentence story with a title (ROCStories 3.1); checks flag, review decides",
        input_help="none with --n N (N writing slots), or revisions.jsonl from a story_review pull",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [("written", "yes")],
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        templates={"en": "en/story_write", "zh": "story_write"},
        lang="en",
        checks=STORY_RULES,
        slots=slots,
        descriptions={
            "en": "Story writing (ROCStories 3.1): write a new five-sentence story about everyday life, with a title, one sentence per box. One task per story.",
            "zh": "故事写作（ROCStories 3.1 的规则）：写一个带标题的五句话日常生活新故事，每个框一句。每个故事一个任务。",
        },
    )
)
