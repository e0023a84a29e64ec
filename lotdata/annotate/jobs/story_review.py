"""story_review (ROCStories 3.1: every submission browsed and its writer given feedback before approval; LOT appendix
3): a reviewer sees a story_write submission with its automatic flags and approves it or refuses it with a comment.
Pull writes every version with its decision (`story_versions.jsonl`), the approved stories (`stories.parquet`),
`revisions.jsonl` (a refused story back to its writer: push it to story_write) and ROCStories Table 2 (`table2.json`)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

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
from lotdata.annotate.jobs.story_write import shown_submission as _shown
from lotdata.annotate.jobs.story_write import table2
from lotdata.annotate.template import InvalidResult
from lotdata.errors import InputError, must_exist


def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """The submissions of a story_write pull: its folder (or its `submissions.jsonl`)."""
    path = must_exist(path, "--input")
    file = path / "submissions.jsonl" if path.is_dir() else path
    if not file.exists():
        raise InputError("expected a story_write pull folder (submissions.jsonl)", path=str(path))
    flags: dict[str, list[str]] = {}
    if (file.parent / "flags.parquet").exists():
        import pyarrow.parquet as pq

        for flag in pq.read_table(file.parent / "flags.parquet").to_pylist():
            flags.setdefault(flag["id"], []).append(f"{flag['rule']}: {flag['detail']}")
    from lotdata.io import iter_jsonl

    rows = []
    for _, row in iter_jsonl(file):  # a line that is not JSON: bad input naming the file and line
        if not row.get("returned"):  # a blank title or sentence went straight back to its writer
            rows.append({**row, "flag_details": flags.get(row["submission_id"], [])})
    return rows


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "en") -> list[Task]:
    none = "none" if lang == "en" else "无"
    return [
        {
            "data": {
                "uid": opaque_uid("review", row["submission_id"]),
                "submission": _shown(row),
                "flags": "\n".join(row.get("flag_details") or []) or none,
            },
            "hidden": {
                "row": {k: v for k, v in row.items() if k != "flag_details"},
                "flag_details": row.get("flag_details") or [],
                # its writer never reviews it: a project per reviewer, and the assignment avoids her (push.authors)
                "author": row.get("writer"),
            },
        }
        for row in rows
    ]


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    decision = values["decision"]
    comment = values.get("comment", "").strip()
    if decision == "refuse" and not comment:
        raise InvalidResult("decision 'refuse' without a comment for the writer")
    return {"decision": decision, "comment": comment if decision == "refuse" else ""}


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """The last review of each submission by anyone but its writer decides it (her own decision, possible only in a
    shared project, is not counted); every version of every story is kept with its decision. Two approved stories of
    the same text (one `story_id`) are one story: the first approved is kept, the others counted as duplicates."""
    versions, revisions, stories = [], [], []
    by_writer = 0
    for uid, anns in sorted(by_uid(annotations).items()):
        counted = [a for a in anns if a.annotator != a.hidden["row"].get("writer")]
        by_writer += len(anns) - len(counted)
        if not counted:
            continue
        last = counted[-1]
        sub = dict(last.hidden["row"])
        versions.append(
            {
                **sub,
                "decision": last.values["decision"],
                "comment": last.values["comment"],
                "reviewer": last.annotator,
                "flag_details": list(last.hidden.get("flag_details") or []),
            }
        )
    latest: dict[str, Row] = {}
    for row in sorted(versions, key=lambda r: (r["story"], r["version"], r["created_at"])):
        latest[row["story"]] = row
    for story, row in sorted(latest.items()):
        if row["decision"] == "refuse":
            revisions.append(
                {
                    "story": story,
                    "writer": row["writer"],
                    "feedback": row["comment"],
                    "previous": _shown(row),
                    # what the revision's boxes start with: the writer edits her last version, not a blank form
                    "last": {"title": row["title"] or "", "sentences": list(row["sentences"])},
                    "version": row["version"] + 1,
                }
            )
        else:
            stories.append(row)
    stories, duplicates = _one_per_text(stories)
    decisions = Counter(r["decision"] for r in versions)
    stats = {
        "versions": len(versions),
        "stories": len(latest),
        "approved": len(stories),
        "refused": decisions["refuse"],
        "to_revise": len(revisions),
        "duplicates": len(duplicates),
        "not_counted_by_the_writer": by_writer,
        "table2": table2(versions, approved=len(stories)),
    }
    return {
        "story_versions": sorted(versions, key=lambda r: (r["story"], r["version"])),
        "approved": stories,
        "revisions": revisions,
        "duplicates": duplicates,
        "stats": stats,
    }


def story_row(row: Row) -> Row:
    """The `stories` row of an approved submission (its `story_id` a hash of the normalised text)."""
    from lotdata.sources.story import make_story_row

    return make_story_row(
        row["text"], source="story_write", lang=row["lang"], title=row["title"] or None, source_id=row["story"]
    )


def _one_per_text(approved: list[Row]) -> tuple[list[Row], list[dict[str, str]]]:
    """The approved submissions, one per `story_id` (the first approved: oldest `created_at`), and the others as
    `{story, kept, story_id}` (a writer who sent the same story twice, two writers who wrote the same words)."""
    kept: dict[str, Row] = {}
    duplicates = []
    for row in sorted(approved, key=lambda r: (r["created_at"], r["story"])):
        story_id = story_row(row)["story_id"]
        if story_id in kept:
            duplicates.append({"story": row["story"], "kept": kept[story_id]["story"], "story_id": story_id})
        else:
            kept[story_id] = row
    return sorted(kept.values(), key=lambda r: r["story"]), duplicates


def writers_of(path: Path) -> dict[str, str]:
    """The writer of each story of a story_review pull, by the stories' `source_id` (the story thread), read from the
    `story_versions.jsonl` beside `path` (the pull's `stories.parquet` or its folder); empty when there is none.
    Writers' accounts stay out of `stories.parquet` (a published table); the jobs that judge stories read them here
    so that no writer judges her own story."""
    folder = path if path.is_dir() else path.parent
    file = folder / "story_versions.jsonl"
    if not file.exists():
        return {}
    from lotdata.io import iter_jsonl

    found = {}
    for _, row in iter_jsonl(file):  # a line that is not JSON: bad input naming the file and line
        if isinstance(row, dict) and row.get("story") and row.get("writer"):
            found[str(row["story"])] = str(row["writer"])
    return found


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    from lotdata.io import write_jsonl, write_parquet, write_text
    from lotdata.schema import STORIES, table_from_rows

    output.folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(assembled["story_versions"], output.folder / "story_versions.jsonl")
    write_jsonl(assembled["revisions"], output.folder / "revisions.jsonl")
    stories = [story_row(r) for r in assembled["approved"]]
    write_parquet(table_from_rows(stories, STORIES), output.folder / "stories.parquet")
    write_text(json.dumps(assembled["stats"]["table2"], indent=1) + "\n", output.folder / "table2.json")
    return {"approved": len(stories), "revisions": len(assembled["revisions"])}


def demo_rows() -> list[Row]:
    return [
        {
            "submission_id": f"s{i}-v1-{i}",
            "story": f"s{i}",
            "version": 1,
            "writer": "w1",
            "title": "Cookies",
            "sentences": [
                "Maria baked cookies.",
                "They burnt.",
                "She baked more.",
                "They were good.",
                "She sold them all.",
            ],
            "text": "Maria baked cookies. They burnt. She baked more. They were good. She sold them all.",
            "lang": "en",
            "created_at": f"2026-01-01T00:00:0{i}",
            "lead_time": 60.0 + i,
            "annotation_id": str(i),
            "flag_details": ["five_sentences: 4 sentences, expected 5"] if i else [],
        }
        for i in range(2)
    ]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    if task["hidden"]["flag_details"]:
        return [
            choice("decision", "submission", ["refuse"]),
            textarea("comment", "submission", "Please write five sentences."),
        ]
    return [choice("decision", "submission", ["approve"])]


SPEC = register_job(
    JobSpec(
        name="story_review",
        order=9,
        summary="approve or refuse written stories with a comment (ROCStories 3.1); refused ones go back",
        input_help="a story_write pull folder",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [("decision", v["decision"])],
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        templates={"en": "en/story_review", "zh": "story_review"},
        lang="en",
        # with a team, a project per reviewer and a submission never given to its writer (hidden "author")
        own_projects=True,
        case_key=lambda hidden: (hidden.get("row") or {}).get("submission_id"),
        descriptions={
            "en": "Story review: read a written story and its automatic checks; approve it, or send it back to its writer with a comment. One task per story.",
            "zh": "故事审核：阅读写好的故事和自动检查的结果，通过，或者附上意见退回给作者修改。每个故事一个任务。",
        },
    )
)
