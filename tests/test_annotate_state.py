"""lotdata's side of the annotation loop without a server: opaque ids, hidden values, gold files and scores, collection."""

from __future__ import annotations

import json
import re

import pytest

from lotdata.annotate.jobs import get_job
from lotdata.annotate.state import JobState, Team, check_rater_name
from lotdata.annotate.workflow import collect, gold_report, load_gold
from lotdata.errors import InputError, LotdataError, MissingFileError

URL = "http://127.0.0.1:9"


def eval_tasks():
    rows = [{"input_id": 1, "input": "开头", "system": s, "output": f"续写{k}"} for k, s in enumerate(("longlm", "gpt2"))]
    return get_job("human_eval").to_tasks(rows)


def choice(name, value):
    return {"from_name": name, "to_name": "output", "type": "choices", "value": {"choices": [value]}}


def test_tasks_leave_with_opaque_ids_and_without_hidden_values(tmp_path):
    state = JobState.new(tmp_path, URL, "human_eval", "eval", 3, "per_rater")
    tokens = [state.add(t) for t in eval_tasks()]
    assert all(re.fullmatch("t[0-9a-f]{12}", t) for t in tokens) and len(set(tokens)) == 2
    assert state.opaque_id("1:gpt2") == tokens[1]  # stable, so a re-push finds the tasks it pushed
    assert JobState.new(tmp_path, URL, "human_eval", "eval", 3, "per_rater").opaque_id("1:gpt2") != tokens[1]  # salted
    visible = state.visible_tasks()
    assert [t["data"]["uid"] for t in visible] == sorted(tokens)  # imported in opaque order, not input order
    assert all("hidden" not in t and "system" not in t["data"] for t in visible)
    assert "gpt2" not in json.dumps(visible) and "longlm" not in json.dumps(visible)
    state.save()
    again = JobState.find(tmp_path, "eval", URL)
    assert again.tasks[tokens[1]] == {"uid": "1:gpt2", "hidden": {"system": "gpt2"}, "gold": None, "task": state.tasks[tokens[1]]["task"]}
    with pytest.raises(LotdataError, match="belongs to the Label Studio at http://127.0.0.1:9"):
        JobState.find(tmp_path, "eval", "http://127.0.0.1:10")
    assert JobState.find(tmp_path, "another title", URL) is None


def test_team_file_and_rater_names(tmp_path):
    team = Team.load(tmp_path, URL)
    assert team.raters == {}
    assert check_rater_name("wang.li-2") == "wang.li-2"
    for bad in ("", "a b", "-x", "名字", "x" * 41):
        with pytest.raises(ValueError, match="rater name"):
            check_rater_name(bad)


def test_gold_lines_are_checked_and_get_a_uid(tmp_path):
    tasks = eval_tasks()
    good = tmp_path / "gold.jsonl"
    good.write_text(json.dumps({"data": {"input_id": "g", "input": "x", "output": "y"}, "answer": {"coherence": 0}}) + "\n\n")
    [(task, answer)] = load_gold(good, tasks)
    assert task["data"]["uid"].startswith("gold-") and answer == {"coherence": 0}
    cases = {
        '{"data": {"input": "x", "system": "gpt2"}, "answer": {"coherence": 0}}': "fields \\['system'\\]",
        '{"data": {"input": "x"}, "answer": {}}': "a gold line is",
        '{"data": "x", "answer": {"coherence": 0}}': "a gold line is",
        "[1, 2]": "a gold line is",
        "{nope": "not JSON",
    }
    for line, message in cases.items():
        bad = tmp_path / "bad.jsonl"
        bad.write_text(line + "\n")
        with pytest.raises(InputError, match=rf"bad.jsonl, row 1: {message}"):
            load_gold(bad, tasks)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(InputError, match="no gold task"):
        load_gold(empty, tasks)
    with pytest.raises(MissingFileError):
        load_gold(tmp_path / "missing.jsonl", tasks)


def test_collect_maps_ids_back_keeps_gold_apart_and_links_quarantine_to_the_task(tmp_path):
    state = JobState.new(tmp_path, URL, "human_eval", "eval", 1, "shared")
    tokens = [state.add(t) for t in eval_tasks()]
    gold_task = {"data": {"uid": "g1", "input_id": "g", "task": "", "input": "x", "output": "的的的"}}
    gold_token = state.add(gold_task, gold={"grammaticality": 0, "coherence": 0, "relatedness": 0})
    good = [choice(a, "1") for a in ("grammaticality", "coherence", "relatedness")]
    wrong = [choice(a, "1") for a in ("grammaticality", "coherence", "relatedness")]
    exported = [
        {"id": 11, "data": state.tasks[tokens[0]]["task"]["data"], "annotations": [{"id": 1, "completed_by": 5, "result": good}]},
        {"id": 12, "data": state.tasks[tokens[1]]["task"]["data"], "annotations": [{"id": 2, "completed_by": 5, "result": [choice("coherence", "7")]}]},
        {"id": 13, "data": state.tasks[gold_token]["task"]["data"], "annotations": [{"id": 3, "completed_by": 5, "result": wrong}]},
    ]
    found = collect("human_eval", exported, {5: "r@x"}, URL, state, project_id=4)
    [valid] = found.valid
    assert valid.uid == "1:longlm" and valid.hidden == {"system": "longlm"} and valid.data["uid"] == "1:longlm"
    [bad] = found.quarantine
    assert bad["path"] == f"{URL}/projects/4/data?task=12" and bad["row"] == 2
    assert [r["annotation_id"] for r in found.rows] == [1, 3] and [r["gold"] for r in found.rows] == [False, True]
    assert found.per_project[4] == {"tasks": 3, "done": 2, "skipped": 0, "quarantined": 1}
    report = gold_report("human_eval", found.gold, 0.8)
    assert report["raters"]["r@x"] == {"answered": 1, "correct": 0, "accuracy": 0.0, "flagged": True} and report["flagged"] == ["r@x"]
    assert gold_report("human_eval", found.gold, 0.0)["flagged"] == []
    intruder = collect("human_eval", exported[:1], {5: "r@x", 6: "owner@x"}, URL, state, project_id=7, owner=6)
    assert not intruder.valid and "answered by r@x in owner@x's own project" in intruder.quarantine[0]["reason"]
    legacy = collect("human_eval", [{"id": 1, "data": {"uid": "1:gpt2", "input_id": "1", "system": "gpt2", "task": "", "input": "a",
                                                      "output": "b"}, "annotations": [{"id": 9, "completed_by": 5, "result": good}]}], {}, URL)
    assert legacy.valid[0].hidden["system"] == "gpt2"  # a project pushed before the state folder: its data held every value
