"""A flagged Story Cloze case is accepted by a reviewer and reaches cloze_verify, in a real browser (Debian chromium +
selenium) on the real Label Studio of the session (issue 34 item 4: a flag never drops work).

The writer writes endings in the browser; one quotes a sign ("SOLD OUT"), which the no_quotations rule flags: the case
is held for review, not dropped and not in the pull's clozet/. `annotate status` counts it as waiting. The review is
pushed to the writer and the reviewer; it reaches the reviewer's project only (never the writer's). The reviewer reads
the flag (rule, level, detail), accepts the case anyway; the review's pull puts it in clozet/, which is pushed to
cloze_verify; three raters verify it in the browser, and it ends in the Story Cloze csv.
Screenshots: the test's tmp dir, or $LOTDATA_BROWSER_SHOTS."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
from labelstudio_support import lotdata
from test_annotate_browser import PASSWORD, Rater, browser, wait_for_annotation  # noqa: F401  (the browser fixture)
from test_story_browser import _switch, _type

from lotdata.annotate.checks import CHECK_RULE_REGISTRY, RULES
from lotdata.annotate.client import export_tasks
from lotdata.annotate.state import JobState
from lotdata.annotate.template import load_template
from lotdata.annotate.workflow import add_raters
from lotdata.io import write_parquet
from lotdata.schema import STORIES, table_from_rows
from lotdata.sources.story import make_story_row

STORY = (
    "Nina opened a small bakery on her street. She baked bread every morning before dawn. "
    "One day a long line formed outside her door. By noon every loaf was gone."
)
RIGHT = 'Nina smiled at the sign on her door that said "SOLD OUT".'  # a quoted sign, not dialogue: a false alarm
WRONG = "Nina closed the bakery because nobody liked bread."


def test_a_flagged_case_is_accepted_by_a_reviewer_and_reaches_cloze_verify(label_studio, conn, browser, tmp_path):  # noqa: F811
    state = tmp_path / "state"
    shots = Path(os.environ.get("LOTDATA_BROWSER_SHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {
        e["rater"]: e for e in add_raters(conn, ["rvw", "rvr", "rvv", "rvx"], state=state, password=lambda: PASSWORD)
    }
    rater = Rater(browser, label_studio.url, shots)
    stories = tmp_path / "stories.parquet"
    row = make_story_row(STORY + " Her neighbours asked her to bake twice as much.", source="test", lang="en")
    write_parquet(table_from_rows([row], STORIES), stories)
    # the rule sends its flags to review whatever level its measured precision gives it elsewhere
    with CHECK_RULE_REGISTRY.override(replace(RULES["no_quotations"], level="refuse")):
        _flagged_case_accepted_and_verified(label_studio, run, conn, team, rater, stories, tmp_path)


def _count(output: str, key: str) -> int:
    """A count of `annotate status`'s summary table (a row `key | value`)."""
    match = re.search(rf"{key}\s*[│|]\s*(\d+)", output)
    assert match, f"no {key} in:\n{output}"
    return int(match.group(1))


def _flagged_case_accepted_and_verified(label_studio, run, conn, team, rater, stories, tmp_path):
    state = tmp_path / "state"
    url = rater.url

    # the writer writes the endings; the quoted sign is flagged, the case held for review (not in clozet/)
    pushed = run("annotate", "push", "sct_write", "--input", str(stories), "--project", "rv endings", "--split", "test")
    assert pushed.exit_code == 0, pushed.output
    write_project = JobState.find(state, "rv endings", url).projects[""]
    rater.login(team["rvw"]["email"])
    (task,) = export_tasks(conn, write_project)
    rater.open_task(write_project, task["id"], "rv-sct-write")
    _type(rater, "right_ending", RIGHT)
    _type(rater, "wrong_ending", WRONG)
    rater.submit("rv-sct-write")
    wait_for_annotation(conn, write_project, task["id"])
    pulled = run("annotate", "pull", "sct_write", "--project", "rv endings", "--out", str(tmp_path / "s"))
    assert pulled.exit_code == 0, pulled.output
    [case] = [json.loads(line) for line in (tmp_path / "s" / "cases.jsonl").read_text().splitlines()]
    assert case["to_review"] and case["flags"] == ["no_quotations"] and case["right_ending"] == RIGHT
    assert pq.read_table(tmp_path / "s" / "clozet" / "test.parquet").num_rows == 0  # held, not verified unreviewed
    status = run("annotate", "status", "rv endings")
    assert status.exit_code == 0, status.output
    assert _count(status.output, "held_for_review") == 1 and _count(status.output, "not_pushed_to_review") == 1

    # the review goes to the writer's and the reviewer's own projects: the case reaches the reviewer's only
    pushed = run(
        "annotate", "push", "review", "--input", str(tmp_path / "s"), "--project", "rv review", "--assign", "rvw,rvr"
    )
    assert pushed.exit_code == 0, pushed.output
    review = JobState.find(state, "rv review", url)
    assert review.mode == "per_rater" and set(review.projects) == {"rvw", "rvr"}
    assert export_tasks(conn, review.projects["rvw"]) == []  # never the writer's own work
    status = run("annotate", "status", "rv review")
    assert _count(status.output, "waiting_for_review") == 1, status.output
    _switch(rater, team["rvr"]["email"])
    rater.task_list(review.projects["rvr"], "rv-review")
    (task,) = export_tasks(conn, review.projects["rvr"])
    rater.open_task(review.projects["rvr"], task["id"], "review-en")
    page = rater.chrome.page_source
    assert "no_quotations (refuse)" in page and "SOLD OUT" in page and "Accept anyway" in page
    rater.choose(load_template("en/review").xml, "decision", "accept")
    rater.submit("rv-review")
    wait_for_annotation(conn, review.projects["rvr"], task["id"])
    pulled = run("annotate", "pull", "review", "--project", "rv review", "--out", str(tmp_path / "r"))
    assert pulled.exit_code == 0, pulled.output
    [decision] = [json.loads(line) for line in (tmp_path / "r" / "reviews.jsonl").read_text().splitlines()]
    assert decision["decision"] == "accept" and decision["reviewer"] == team["rvr"]["email"] and decision["counted"]
    [accepted] = pq.read_table(tmp_path / "r" / "clozet" / "test.parquet").to_pylist()
    assert accepted["candidates"][accepted["label"]] == RIGHT
    for title, waiting in (("rv review", "waiting_for_review"), ("rv endings", "waiting_for_review")):
        status = run("annotate", "status", title)
        assert _count(status.output, waiting) == 0, status.output

    # the accepted case goes to cloze_verify: three raters in their own projects keep it, never its writer rvw
    pushed = run(
        "annotate",
        "push",
        "cloze_verify",
        "--input",
        str(tmp_path / "r" / "clozet"),
        "--project",
        "rv verify",
        "--lang",
        "en",
        "--split",
        "test",
    )
    assert pushed.exit_code == 0, pushed.output
    verify = JobState.find(state, "rv verify", url)
    xml = load_template("en/cloze_verify").xml
    assert export_tasks(conn, verify.projects["rvw"]) == []
    for name in ("rvv", "rvx", "rvr"):
        _switch(rater, team[name]["email"])
        for task in export_tasks(conn, verify.projects[name]):
            rating = "1" if verify.tasks[task["data"]["uid"]]["hidden"]["role"] == "right" else "0"
            rater.open_task(verify.projects[name], task["id"], f"rv-verify-{name}")
            rater.choose(xml, "rating", rating)
            rater.submit("rv-verify")
            wait_for_annotation(conn, verify.projects[name], task["id"])
    pulled = run("annotate", "pull", "cloze_verify", "--project", "rv verify", "--out", str(tmp_path / "v"))
    assert pulled.exit_code == 0, pulled.output
    [kept] = pq.read_table(tmp_path / "v" / "clozet" / "test.parquet").to_pylist()
    assert kept["candidates"][kept["label"]] == RIGHT
    csv = lotdata(
        label_studio, "annotate", "sct-csv", "--input", str(tmp_path / "v" / "clozet"), "--out", str(tmp_path / "csv")
    )
    assert csv.exit_code == 0, csv.output
    assert "SOLD OUT" in (tmp_path / "csv" / "test.csv").read_text()

    # the Chinese screen of the review, opened by the reviewer
    zh = run("annotate", "push", "review", "--input", str(tmp_path / "s"), "--project", "rv review zh", "--lang", "zh")
    assert zh.exit_code == 0, zh.output
    zh_state = JobState.find(state, "rv review zh", url)
    holder = next(name for name in zh_state.projects if export_tasks(conn, zh_state.projects[name]))
    assert holder != "rvw"  # the team's other raters: the case goes to one who did not write it
    _switch(rater, team[holder]["email"])
    (task,) = export_tasks(conn, zh_state.projects[holder])
    rater.open_task(zh_state.projects[holder], task["id"], "review-zh")
    assert "照样通过" in rater.chrome.page_source and "no_quotations (refuse)" in rater.chrome.page_source
    # there, the reviewer edits the right ending instead (box 1; box 2 left empty keeps the wrong ending)
    rater.choose(load_template("review").xml, "decision", "edit")
    edited = "Nina smiled at the sold out sign on her door."
    _type(rater, "edit_1", edited)
    rater.submit("review-zh-edit")
    wait_for_annotation(conn, zh_state.projects[holder], task["id"])
    pulled = run("annotate", "pull", "review", "--project", "rv review zh", "--out", str(tmp_path / "rz"))
    assert pulled.exit_code == 0, pulled.output
    [case] = pq.read_table(tmp_path / "rz" / "clozet" / "test.parquet").to_pylist()
    assert case["candidates"][case["label"]] == edited and WRONG in case["candidates"]
