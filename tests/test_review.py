"""A flag never drops work (issue 34 item 4): sct_write holds a case a refuse-level rule flags for review and lets a
warn-level one go on; the review job accepts, edits or refuses (back to the writer, as a revision task sct_write
reads); a decision by the writer is not counted, and the assignment never gives a writer their own case; a
story_filter rewrite that breaks a refuse check goes back to its rater as a revision task, on a real Label Studio too;
`annotate status` counts what waits for review. The browser side: tests/test_review_browser.py."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
from labelstudio_support import PASSWORD, RaterWeb, annotation, choice, lotdata, text

from lotdata.annotate.assign import extend_assignment
from lotdata.annotate.checks import CHECK_RULE_REGISTRY, RULES
from lotdata.annotate.client import export_tasks
from lotdata.annotate.jobs import Annotation, get_job
from lotdata.annotate.state import JobState
from lotdata.annotate.workflow import add_raters, write_assembled
from lotdata.io import write_parquet
from lotdata.schema import STORIES, table_from_rows
from lotdata.sources.story import make_story_row

FOUR = [
    "Karen wanted to surprise her husband.",
    "She saved money for months.",
    "She bought him a guitar.",
    "She hid it behind the couch.",
]


def _level(rule: str, level: str):
    """The rule at `level` for the block (another part of lotdata sets each rule's level from its precision)."""
    return CHECK_RULE_REGISTRY.override(replace(RULES[rule], level=level))


def _ann(job: str, task: dict, annotator: str, values: dict, n: int) -> Annotation:
    return annotation(task, annotator, get_job(job).check(values, task["data"], task["hidden"]), n)


def _sct_pull(folder: Path, endings: list[tuple[str, str]], writer: str = "w@x") -> dict:
    """An sct_write pull folder of one case per ending pair (stories s0, s1, ...), as `annotate pull` writes it."""
    job = get_job("sct_write")
    rows = [
        {"story_id": f"s{i}", "split": "test", "lang": "en", "sentences": [*FOUR, "He loved it."], "license": "CC0"}
        for i in range(len(endings))
    ]
    anns = [
        _ann("sct_write", task, writer, {"right_ending": right, "wrong_ending": wrong}, n)
        for n, (task, (right, wrong)) in enumerate(zip(job.to_tasks(rows), endings), 1)
    ]
    assembled = job.assemble(anns)
    folder.mkdir(parents=True, exist_ok=True)
    write_assembled("sct_write", assembled, folder, {"job": "sct_write"})
    (folder / "pull.json").write_text(json.dumps({"job": "sct_write", "project": "endings"}), encoding="utf-8")
    return assembled


QUOTED = 'Her husband read the card that said "love" and smiled.'
GOOD = "Her husband cried with joy when he found it."
WRONG = "Karen sold the couch and the guitar."


def test_sct_write_holds_a_refused_case_for_review_and_lets_a_warned_one_go_on(tmp_path):
    with _level("no_quotations", "refuse"):
        held = _sct_pull(tmp_path / "a", [(QUOTED, WRONG), (GOOD, WRONG)])
    with _level("no_quotations", "warn"):
        warned = _sct_pull(tmp_path / "b", [(QUOTED, WRONG), (GOOD, WRONG)])
    assert {c["story_id"]: c["to_review"] for c in held["cases"]} == {"s0": True, "s1": False}
    assert [r["story_id"] for r in held["clozet"]] == ["s1"] and held["stats"]["to_review"] == 1
    assert {c["story_id"]: c["flags"] for c in warned["cases"]} == {"s0": ["no_quotations"], "s1": []}  # shown, goes on
    assert [r["story_id"] for r in warned["clozet"]] == ["s0", "s1"] and warned["stats"]["to_review"] == 0
    flags = pq.read_table(tmp_path / "a" / "flags.parquet").to_pylist()
    assert [(f["rule"], f["level"]) for f in flags] == [("no_quotations", "refuse")]


def test_a_reviewer_accepts_edits_or_refuses_and_the_writers_own_decision_does_not_count(tmp_path):
    with _level("no_quotations", "refuse"):
        _sct_pull(tmp_path / "s", [(QUOTED, WRONG)] * 4, writer="w@x")
    review = get_job("review")
    rows = review.load(tmp_path / "s", None)
    assert len(rows) == 4 and all(r["source_project"] == "endings" for r in rows)
    tasks = review.to_tasks(rows, lang="en")
    assert "no_quotations (refuse): quotation mark" in tasks[0]["data"]["flags"]
    assert "Right ending: " + QUOTED in tasks[0]["data"]["submission"] and "writer" not in tasks[0]["hidden"]
    accept, edit, refuse, own = tasks
    decisions = [
        _ann("review", accept, "r@x", {"decision": "accept"}, 1),
        _ann("review", edit, "r@x", {"decision": "edit", "edit_1": GOOD, "edit_2": ""}, 2),
        _ann("review", refuse, "r@x", {"decision": "refuse", "comment": "No quotes, please."}, 3),
        _ann("review", own, "w@x", {"decision": "accept"}, 4),  # the writer, in a shared project
    ]
    assembled = review.assemble(decisions)
    assert assembled["stats"] == {
        "reviewed": 3,
        "accepted": 1,
        "edited": 1,
        "refused": 1,
        "not_counted_by_the_writer": 1,
    }
    assert own["hidden"]["case_id"] not in assembled["decided"]
    write_assembled("review", assembled, tmp_path / "r", {"job": "review"})
    clozet = {r["story_id"]: r for r in pq.read_table(tmp_path / "r" / "clozet" / "test.parquet").to_pylist()}
    story = {t["hidden"]["case_id"]: t["hidden"]["case"]["story_id"] for t in tasks}
    assert set(clozet) == {story[accept["hidden"]["case_id"]], story[edit["hidden"]["case_id"]]}
    edited = clozet[story[edit["hidden"]["case_id"]]]
    assert edited["candidates"][edited["label"]] == GOOD and WRONG in edited["candidates"]  # box 2 empty: kept
    # the refused case back to its writer: a new version of the story, with the comment and the old endings
    sct = get_job("sct_write")
    [revision] = sct.load(tmp_path / "r" / "revisions.jsonl", None)
    [task] = sct.to_tasks([revision], lang="en")
    assert task["hidden"]["writer"] == "w@x" and task["hidden"]["version"] == 2
    assert "No quotes, please." in task["data"]["feedback"] and QUOTED in task["data"]["feedback"]
    assert task["data"]["uid"] != sct.to_tasks([{**revision, "version": 1}], lang="en")[0]["data"]["uid"]
    # the writer's new version supersedes the refused one: the old case no longer waits for review
    new = _ann("sct_write", task, "w@x", {"right_ending": GOOD, "wrong_ending": WRONG}, 9)
    first = [
        _ann("sct_write", t, "w@x", {"right_ending": QUOTED, "wrong_ending": WRONG}, 1)
        for t in sct.to_tasks(
            [{"story_id": revision["story_id"], "split": "test", "lang": "en", "sentences": [*FOUR, "x"]}]
        )
    ]
    with _level("no_quotations", "refuse"):
        again = sct.assemble([*first, new])
    assert [r["annotation_id"] for r in again["clozet"]] == ["9"] and again["stats"]["to_review"] == 1


def test_a_review_task_is_never_given_to_its_writer():
    tasks = [(f"t{i}", f"case{i}") for i in range(20)]
    avoid = {token: ("ann" if i % 2 else "bob") for i, (token, _) in enumerate(tasks)}
    given = extend_assignment({}, tasks, ["ann", "bob", "cat"], 1, seed="s", avoid=avoid)
    assert sorted(t for tokens in given.values() for t in tokens) == sorted(t for t, _ in tasks)
    assert not [t for rater, tokens in given.items() for t in tokens if avoid[t] == rater]
    alone = extend_assignment({}, tasks[:2], ["ann"], 1, seed="s", avoid={"t1": "ann"})
    assert alone == {"ann": ["t0"]}  # only its writer could take t1: nobody gets it (the push says "unassigned")


SEGMENT = "小兔子在森林里种了很多胡萝卜。今年的胡萝卜长得特别好。小兔子心里很高兴。一天夜里，它听见地里有动静。"
BAD_REWRITE = SEGMENT + "小兔子喊：【是谁在偷胡萝卜？】"
GOOD_REWRITE = SEGMENT + "原来是田鼠一家在偷胡萝卜。小兔子很生气，把田鼠一家赶走了。"


def _filter_story() -> dict:
    story = make_story_row(SEGMENT, source="test", lang="zh")
    return {**story, "fetched_at": None}


def test_a_story_filter_rewrite_that_breaks_a_check_goes_back_to_its_rater(tmp_path):
    from lotdata.tasks.segments import story_as_segment

    job = get_job("story_filter")
    story = _filter_story()
    [task] = job.to_tasks([{**story_as_segment(story), "_story": story}])
    assert task["data"]["feedback"] == ""
    with _level("punctuation", "refuse"):
        bad = _ann("story_filter", task, "ann@x", {"decision": "rewrite", "rewritten": BAD_REWRITE}, 1)
    assert bad.values["returned"] and "punctuation" in bad.values["returned"][0]
    first = job.assemble([bad])
    [revision] = first["revisions"]
    assert first["stories"][0]["status"] == "raw" and first["stats"]["returned_to_rater"] == 1
    assert revision["writer"] == "ann@x" and revision["previous"] == BAD_REWRITE and revision["version"] == 2
    write_assembled("story_filter", first, tmp_path / "f", {"job": "story_filter"})
    [again] = job.load(tmp_path / "f" / "revisions.jsonl", None)
    [back] = job.to_tasks([again], lang="zh")
    assert back["hidden"]["writer"] == "ann@x" and back["data"]["uid"] != task["data"]["uid"]
    assert "punctuation" in back["data"]["feedback"] and BAD_REWRITE in back["data"]["feedback"]
    assert back["data"]["text"] == task["data"]["text"] and back["data"]["reference"] == task["data"]["reference"]
    with _level("punctuation", "refuse"):
        good = _ann("story_filter", back, "ann@x", {"decision": "rewrite", "rewritten": GOOD_REWRITE}, 2)
    done = job.assemble([bad, good])
    assert done["revisions"] == [] and done["stats"]["returned_to_rater"] == 0
    assert done["stories"][0]["status"] == "rewritten" and done["stories"][0]["text"] == GOOD_REWRITE
    assert [d["final"] for d in done["story_decisions"]] == [False, True]  # both versions kept


# ---------------------------------------------------------------- on a real Label Studio


def _count(output: str, key: str) -> int:
    match = re.search(rf"{key}\s*[│|]\s*(\d+)", output)
    assert match, f"no {key} in:\n{output}"
    return int(match.group(1))


def test_a_returned_rewrite_reaches_its_rater_only_and_status_counts_it(label_studio, conn, tmp_path):
    state = tmp_path / "state"
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {e["rater"]: e for e in add_raters(conn, ["rtann", "rtbob"], state=state, password=lambda: PASSWORD)}
    stories = tmp_path / "stories.parquet"
    write_parquet(table_from_rows([_filter_story()], STORIES), stories)
    with _level("punctuation", "refuse"):
        pushed = run(
            "annotate", "push", "story_filter", "--input", str(stories), "--project", "rt filter", "--raters", "2"
        )
        assert pushed.exit_code == 0, pushed.output
        job_state = JobState.find(state, "rt filter", label_studio.url)
        web = {name: RaterWeb(label_studio.url, team[name]["email"], PASSWORD) for name in team}
        (ann_task,) = export_tasks(conn, job_state.projects["rtann"])
        (bob_task,) = export_tasks(conn, job_state.projects["rtbob"])
        rewrite = [choice("decision", "story", ["rewrite"])]
        web["rtann"].annotate(ann_task["id"], [*rewrite, text("rewritten", "story", BAD_REWRITE)])
        web["rtbob"].annotate(bob_task["id"], [choice("decision", "story", ["accept"])])
        pulled = run("annotate", "pull", "story_filter", "--project", "rt filter", "--out", str(tmp_path / "p"))
        assert pulled.exit_code == 0, pulled.output
        assert pq.read_table(tmp_path / "p" / "quarantine.parquet").num_rows == 0  # not quarantined: sent back
        [revision] = [json.loads(line) for line in (tmp_path / "p" / "revisions.jsonl").read_text().splitlines()]
        assert revision["writer"] == team["rtann"]["email"] and "punctuation" in revision["feedback"]
        status = run("annotate", "status", "rt filter")
        assert _count(status.output, "returned_to_rater") == 1, status.output

        # pushed to the same title, the revision reaches ann's project only, with the reason
        again = run(
            "annotate",
            "push",
            "story_filter",
            "--input",
            str(tmp_path / "p" / "revisions.jsonl"),
            "--project",
            "rt filter",
        )
        assert again.exit_code == 0, again.output
        assert len(export_tasks(conn, job_state.projects["rtbob"])) == 1
        [back] = [t for t in export_tasks(conn, job_state.projects["rtann"]) if t["data"]["feedback"]]
        assert "punctuation" in back["data"]["feedback"] and BAD_REWRITE in back["data"]["feedback"]
        web["rtann"].annotate(back["id"], [*rewrite, text("rewritten", "story", GOOD_REWRITE)])
        pulled = run("annotate", "pull", "story_filter", "--project", "rt filter", "--out", str(tmp_path / "p"))
        assert pulled.exit_code == 0, pulled.output
        assert (tmp_path / "p" / "revisions.jsonl").read_text() == ""
        status = run("annotate", "status", "rt filter")
        assert _count(status.output, "returned_to_rater") == 0, status.output
    decisions = pq.read_table(tmp_path / "p" / "story_decisions.parquet").to_pylist()
    assert sorted(d["decision"] for d in decisions) == ["accept", "rewrite", "rewrite"]


def test_status_counts_the_cases_that_wait_for_review(label_studio, conn, tmp_path):
    state = tmp_path / "state"
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {e["rater"]: e for e in add_raters(conn, ["stwes", "strev"], state=state, password=lambda: PASSWORD)}
    web = {name: RaterWeb(label_studio.url, team[name]["email"], PASSWORD) for name in team}
    stories = tmp_path / "stories.parquet"
    rows = [make_story_row(" ".join([*FOUR, f"He loved it {k}."]), source="t", lang="en") for k in ("a", "b")]
    write_parquet(table_from_rows(rows, STORIES), stories)
    with _level("no_quotations", "refuse"):
        pushed = run(
            "annotate", "push", "sct_write", "--input", str(stories), "--project", "st endings", "--split", "test"
        )
        assert pushed.exit_code == 0, pushed.output
        project = JobState.find(state, "st endings", label_studio.url).projects[""]
        for task, right in zip(export_tasks(conn, project), (QUOTED, GOOD)):
            web["stwes"].annotate(
                task["id"], [text("right_ending", "context", right), text("wrong_ending", "context", WRONG)]
            )
        status = run("annotate", "status", "st endings")
        assert _count(status.output, "held_for_review") == 1 and _count(status.output, "waiting_for_review") == 1
        assert _count(status.output, "not_pushed_to_review") == 1
        assert (
            run("annotate", "pull", "sct_write", "--project", "st endings", "--out", str(tmp_path / "s")).exit_code == 0
        )
        pushed = run("annotate", "push", "review", "--input", str(tmp_path / "s"), "--project", "st review")
        assert pushed.exit_code == 0, pushed.output
        review = JobState.find(state, "st review", label_studio.url)
        assert export_tasks(conn, review.projects["stwes"]) == []  # the writer's own case is not theirs to review
        (task,) = export_tasks(conn, review.projects["strev"])
        status = run("annotate", "status", "st endings")
        assert _count(status.output, "waiting_for_review") == 1 and _count(status.output, "not_pushed_to_review") == 0
        assert _count(run("annotate", "status", "st review").output, "waiting_for_review") == 1
        web["strev"].annotate(
            task["id"], [choice("decision", "submission", ["refuse"]), text("comment", "submission", "No quotes.")]
        )
        status = run("annotate", "status", "st endings")
        assert _count(status.output, "waiting_for_review") == 0, status.output
        review_status = run("annotate", "status", "st review").output
        assert _count(review_status, "waiting_for_review") == 0 and _count(review_status, "reviewed") == 1


CAT_STORY = ["小明养了一只猫。", "猫每天都抓老鼠。", "小明很喜欢他的猫。", "他们是好朋友。"]


def _clozet_answer(task: dict, who: str, wrong: str, n: int) -> Annotation:
    values = {"decision": "write", "mask_sentence": "2", "wrong_candidate": wrong, "policy": "reaction_intention"}
    return _ann("clozet_write", task, who, values, n)


def test_a_clozet_write_candidate_a_check_flags_is_held_for_review_not_quarantined(tmp_path):
    job = get_job("clozet_write")
    rows = [{"story_id": f"c{i}", "split": "test", "lang": "zh", "sentences": CAT_STORY} for i in range(2)]
    swapped, fine = job.to_tasks(rows)
    assert swapped["data"]["feedback"] == ""
    with _level("antonym_swap", "refuse"):
        answers = [
            _clozet_answer(swapped, "w@x", "小明很讨厌他的猫。", 1),  # 喜欢 -> 讨厌 and nothing else (LOT 2.2d)
            _clozet_answer(fine, "w@x", "小明想把他的猫卖掉。", 2),
        ]
        assembled = job.assemble(answers)
    assert [r["story_id"] for r in assembled["clozet"]] == ["c1"]
    [held] = assembled["held"]
    assert held["story_id"] == "c0" and [f["rule"] for f in held["flag_rows"]] == ["antonym_swap"]
    folder = tmp_path / "w"
    write_assembled("clozet_write", assembled, folder, {"job": "clozet_write"})
    (folder / "pull.json").write_text(json.dumps({"job": "clozet_write", "project": "cloze"}), encoding="utf-8")
    assert [f["level"] for f in pq.read_table(folder / "flags.parquet").to_pylist()] == ["refuse"]
    with _level("antonym_swap", "warn"):  # a warn flag: counted, the case goes on
        assert len(job.assemble(answers)["clozet"]) == 2

    review = get_job("review")
    [task] = review.to_tasks(review.load(folder, None), lang="zh")
    assert "antonym_swap (refuse)" in task["data"]["flags"] and "小明很讨厌他的猫。" in task["data"]["submission"]
    edit = _ann("review", task, "r@x", {"decision": "edit", "edit_1": "小明一看见他的猫就跑。"}, 3)
    write_assembled("review", review.assemble([edit]), tmp_path / "r", {"job": "review"})
    [case] = pq.read_table(tmp_path / "r" / "clozet" / "test.parquet").to_pylist()
    assert case["story_id"] == "c0" and "小明一看见他的猫就跑。" in case["candidates"]
    assert pq.read_table(tmp_path / "r" / "plotcom" / "test.parquet").num_rows == 1
    # refused instead: back to its rater, whose new answer replaces the old one
    refuse = _ann("review", task, "r@x", {"decision": "refuse", "comment": "不要只换反义词。"}, 4)
    write_assembled("review", review.assemble([refuse]), tmp_path / "r2", {"job": "review"})
    [revision] = job.load(tmp_path / "r2" / "revisions.jsonl", None)
    [back] = job.to_tasks([revision], lang="zh")
    assert back["hidden"]["writer"] == "w@x" and "不要只换反义词。" in back["data"]["feedback"]
    assert back["data"]["uid"] != swapped["data"]["uid"]
    with _level("antonym_swap", "refuse"):
        again = job.assemble([*answers, _clozet_answer(back, "w@x", "小明想把他的猫送给别人。", 5)])
    assert sorted(r["story_id"] for r in again["clozet"]) == ["c0", "c1"] and again["held"] == []
