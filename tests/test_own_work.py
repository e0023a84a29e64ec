"""No one judges their own work (issue 35, item 3): a story's writer never reviews, verifies or reorders it.

Each judging job carries the writer of what a task shows (`hidden["author"]`: story_review from the story_write
submission, cloze_verify from the ClozeT row's annotator, story_reorder from the `story_versions.jsonl` beside a
story_review pull's `stories.parquet`); with a team the assignment never gives the task to her, a task too few other
raters can take is reported and topped up at a later push, and in a shared project (no team) her own judgement is not
counted. An approved story whose text another approved one already has (one `story_id`) is kept and counted once."""

from __future__ import annotations

import json
from collections import Counter

import pyarrow.parquet as pq
import pytest
from labelstudio_support import annotation

from lotdata.annotate.assign import extend_assignment
from lotdata.annotate.jobs import get_job
from lotdata.annotate.jobs.base import Output
from lotdata.errors import InputError

STORY = [
    "Maria signed up to bake cookies for the school sale.",
    "She stayed up late mixing dough in her kitchen.",
    "In the morning the first tray came out burnt.",
    "She quickly baked a second tray with a timer on.",
    "The cookies sold out before noon.",
]


def _submission(story: str, writer: str, sentences: list[str], n: int) -> dict:
    return {
        "submission_id": f"{story}-v1-{n}",
        "story": story,
        "version": 1,
        "writer": writer,
        "title": "Cookies",
        "sentences": sentences,
        "text": " ".join(sentences),
        "lang": "en",
        "created_at": f"2026-01-01T00:00:{n:02d}",
        "lead_time": 30.0,
        "annotation_id": str(n),
        "flag_details": [],
    }


def _versions(job_name: str, tasks: list[dict]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    job = get_job(job_name)
    versions = [(t["data"]["uid"], job.case_key(t["hidden"])) for t in tasks]
    avoid = {t["data"]["uid"]: t["hidden"]["author"] for t in tasks if t["hidden"].get("author")}
    return versions, avoid


def test_story_review_never_gives_a_writer_her_own_story():
    job = get_job("story_review")
    assert job.own_projects and job.case_key is not None
    rows = [_submission(f"st{i}", ("ann", "bob", "cat")[i % 3], STORY, i) for i in range(12)]
    tasks = job.to_tasks(rows, lang="en")
    assert all(t["hidden"]["author"] == t["hidden"]["row"]["writer"] for t in tasks)
    versions, avoid = _versions("story_review", tasks)
    given = extend_assignment({}, versions, ["ann", "bob", "cat"], 1, seed="s", avoid=avoid)
    assert Counter(t for tokens in given.values() for t in tokens) == Counter({t: 1 for t, _ in versions})
    assert not [t for rater, tokens in given.items() for t in tokens if avoid[t] == rater]


def test_cloze_verify_tops_up_a_case_short_of_raters_and_never_gives_it_to_its_writer():
    job = get_job("cloze_verify")
    rows = [{**row, "annotator": "ann"} for row in job.demo_rows()]
    tasks = job.to_tasks(rows, lang="zh")
    versions, avoid = _versions("cloze_verify", tasks)
    assert set(avoid.values()) == {"ann"} and len(avoid) == 4
    # three raters asked for, a team of three of whom one wrote the cases: two raters each, never the writer
    three = extend_assignment({}, versions, ["ann", "bob", "cat"], 3, seed="s", avoid=avoid)
    assert three["ann"] == [] and sorted(three["bob"]) == sorted(three["cat"]) == sorted(t for t, _ in versions)
    # a fourth rater joins: the next push gives her every case, the others keep theirs, the writer still none
    four = extend_assignment(three, versions, ["ann", "bob", "cat", "dan"], 3, seed="s", avoid=avoid)
    assert four["ann"] == [] and four["bob"] == three["bob"] and four["cat"] == three["cat"]
    assert sorted(four["dan"]) == sorted(t for t, _ in versions)
    assert extend_assignment(four, versions, ["ann", "bob", "cat", "dan"], 3, seed="s", avoid=avoid) == four


def test_cloze_verify_does_not_count_the_writers_own_ratings():
    job = get_job("cloze_verify")
    rows = [{**job.demo_rows()[0], "annotator": "ann@x"}]
    tasks = job.to_tasks(rows, lang="zh")
    anns, n = [], 0
    for rater in ("ann@x", "bob@x", "cat@x", "dan@x"):
        for task in tasks:
            n += 1
            anns.append(annotation(task, rater, {"rating": int(task["hidden"]["role"] == "right")}, n))
    assembled = job.assemble(anns)
    assert len(assembled["clozet"]) == 1 and assembled["stats"]["by_the_writer"] == 2
    short = job.assemble([a for a in anns if a.annotator != "dan@x"])  # the writer and two others: too few
    assert short["clozet"] == [] and short["stats"]["dropped"] == {"too_few_ratings": 1}


def test_story_reorder_reads_the_writers_beside_a_review_pull_and_leaves_out_hers(tmp_path):
    job = get_job("story_review")
    rows = [_submission("st0", "ann@x", STORY, 1), _submission("st1", "bob@x", [*STORY[1:], STORY[0]], 2)]
    tasks = job.to_tasks(rows, lang="en")
    anns = [annotation(t, "cat@x", {"decision": "approve", "comment": ""}, k) for k, t in enumerate(tasks)]
    output = Output(folder=tmp_path / "r", job="story_review", params={}, command="test")
    job.write(job.assemble(anns), output)

    reorder = get_job("story_reorder")
    assert reorder.own_projects
    loaded = reorder.load(tmp_path / "r" / "stories.parquet", None)
    assert sorted(r["_writer"] for r in loaded) == ["ann@x", "bob@x"]
    tasks = reorder.to_tasks(loaded, seed=0)
    assert sorted(t["hidden"]["author"] for t in tasks) == ["ann@x", "bob@x"]
    pairs = [(t, who) for t in tasks for who in ("ann@x", "cat@x")]
    anns = [annotation(t, who, {"ordering": tuple(range(5))}, k) for k, (t, who) in enumerate(pairs)]
    report = reorder.assemble(anns)["reorder"]
    assert report["orderings"] == 3 and report["by_the_writer"] == 1
    # a stories file without a review pull beside it has no writers: nothing is avoided, nothing breaks
    pq.write_table(pq.read_table(tmp_path / "r" / "stories.parquet"), tmp_path / "alone.parquet")
    assert all("_writer" not in r for r in reorder.load(tmp_path / "alone.parquet", None))
    # a story_versions.jsonl line that is not JSON: bad input naming the file and the line, not a traceback
    versions = tmp_path / "r" / "story_versions.jsonl"
    versions.write_text(versions.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="not JSON") as bad:
        reorder.load(tmp_path / "r" / "stories.parquet", None)
    assert bad.value.path == str(versions) and bad.value.row == 3


def test_story_review_does_not_count_the_writers_decision_and_keeps_one_of_two_equal_stories(tmp_path):
    job = get_job("story_review")
    rows = [
        _submission("st0", "ann@x", STORY, 1),
        _submission("st1", "bob@x", STORY, 2),  # the same five sentences: the same story_id
        _submission("st2", "bob@x", [*STORY[:4], "Maria sold every cookie."], 3),
    ]
    tasks = job.to_tasks(rows, lang="en")
    anns = [annotation(t, "cat@x", {"decision": "approve", "comment": ""}, k) for k, t in enumerate(tasks)]
    own = annotation(tasks[2], "bob@x", {"decision": "refuse", "comment": "mine"}, 9)  # later, but hers
    assembled = job.assemble([*anns, own])
    assert assembled["stats"]["not_counted_by_the_writer"] == 1 and assembled["revisions"] == []
    assert assembled["stats"]["approved"] == 2 and assembled["stats"]["table2"]["approved"] == 2
    assert assembled["duplicates"] == [
        {"story": "st1", "kept": "st0", "story_id": assembled["duplicates"][0]["story_id"]}
    ]
    job.write(assembled, Output(folder=tmp_path / "r", job="story_review", params={}, command="test"))
    ids = pq.read_table(tmp_path / "r" / "stories.parquet").column("story_id").to_pylist()
    assert len(ids) == len(set(ids)) == 2
    assert json.loads((tmp_path / "r" / "table2.json").read_text())["approved"] == 2
