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


SYSTEMS = ("longlm", "gpt2", "mt5")


def eval_tasks():
    """Two inputs, three systems each: two human_eval tasks (outputs side by side as A/B/C)."""
    rows = [
        {"input_id": i, "input": f"开头{i}", "system": s, "output": f"续写{i}-{k}"}
        for i in (1, 2)
        for k, s in enumerate(SYSTEMS)
    ]
    return get_job("human_eval").to_tasks(rows)


def choice(name, value, to="output_A"):
    return {"from_name": name, "to_name": to, "type": "choices", "value": {"choices": [value]}}


def all_aspects(value):
    return [
        choice(f"{a}_{slot}", value, f"output_{slot}")
        for a in ("grammaticality", "coherence", "relatedness")
        for slot in "ABC"
    ]


def test_tasks_leave_with_opaque_ids_and_without_hidden_values(tmp_path):
    state = JobState.new(tmp_path, URL, "human_eval", "eval", 3, "per_rater")
    tasks = eval_tasks()
    tokens = [state.add(t) for t in tasks]
    assert all(re.fullmatch("t[0-9a-f]{12}", t) for t in tokens) and len(set(tokens)) == 2
    uid = tasks[1]["data"]["uid"]
    assert state.opaque_id(uid) == tokens[1]  # stable, so a re-push finds the tasks it pushed
    assert JobState.new(tmp_path, URL, "human_eval", "eval", 3, "per_rater").opaque_id(uid) != tokens[1]  # salted
    visible = state.visible_tasks()
    assert [t["data"]["uid"] for t in visible] == sorted(tokens)  # imported in opaque order, not input order
    assert all("hidden" not in t and "system" not in t["data"] for t in visible)
    assert not any(name in json.dumps(visible) for name in SYSTEMS)
    state.save()
    again = JobState.find(tmp_path, "eval", URL)
    assert again.tasks[tokens[1]] == {
        "uid": uid,
        "hidden": tasks[1]["hidden"],
        "gold": None,
        "task": state.tasks[tokens[1]]["task"],
    }
    assert sorted(again.tasks[tokens[1]]["hidden"]["slots"].values()) == sorted(SYSTEMS)
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
    good.write_text(
        json.dumps(
            {"data": {"input": "x", "output_A": "y", "output_B": "z", "output_C": "w"}, "answer": {"coherence_A": 0}}
        )
        + "\n\n"
    )
    [(task, answer)] = load_gold(good, tasks)
    assert task["data"]["uid"].startswith("gold-") and answer == {"coherence_A": 0}
    cases = {
        '{"data": {"input": "x", "system": "gpt2"}, "answer": {"coherence_A": 0}}': "fields \\['system'\\]",
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
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(InputError, match=r"binary.jsonl, row 1: not UTF-8"):
        load_gold(binary, tasks)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(InputError, match="no gold task"):
        load_gold(empty, tasks)
    with pytest.raises(MissingFileError):
        load_gold(tmp_path / "missing.jsonl", tasks)


def test_collect_maps_ids_back_keeps_gold_apart_and_links_quarantine_to_the_task(tmp_path):
    state = JobState.new(tmp_path, URL, "human_eval", "eval", 1, "shared")
    tokens = [state.add(t) for t in eval_tasks()]
    gold_task = {"data": {"uid": "g1", "input": "x", "output_A": "的的的", "output_B": "的", "output_C": "的的"}}
    gold_token = state.add(gold_task, gold={"grammaticality_A": 0, "coherence_A": 0, "relatedness_A": 0})
    good = all_aspects("1")
    wrong = all_aspects("1")
    exported = [
        {
            "id": 11,
            "data": state.tasks[tokens[0]]["task"]["data"],
            "annotations": [{"id": 1, "completed_by": 5, "result": good}],
        },
        {
            "id": 12,
            "data": state.tasks[tokens[1]]["task"]["data"],
            "annotations": [{"id": 2, "completed_by": 5, "result": [choice("coherence_A", "7")]}],
        },
        {
            "id": 13,
            "data": state.tasks[gold_token]["task"]["data"],
            "annotations": [{"id": 3, "completed_by": 5, "result": wrong}],
        },
    ]
    found = collect("human_eval", exported, {5: "r@x"}, URL, state, project_id=4)
    [valid] = found.valid
    first = state.tasks[tokens[0]]
    assert valid.uid == first["uid"] == valid.data["uid"] and valid.hidden == first["hidden"]
    assert sorted(valid.hidden["slots"].values()) == sorted(SYSTEMS)
    [bad] = found.quarantine
    assert bad["path"] == f"{URL}/projects/4/data?task=12" and bad["row"] == 2
    assert [r["annotation_id"] for r in found.rows] == [1, 3] and [r["gold"] for r in found.rows] == [False, True]
    assert found.per_project[4] == {"tasks": 3, "done": 2, "skipped": 0, "quarantined": 1}
    report = gold_report("human_eval", found.gold, 0.8)
    assert report["raters"]["r@x"] == {"answered": 1, "correct": 0, "accuracy": 0.0, "flagged": True} and report[
        "flagged"
    ] == ["r@x"]
    assert gold_report("human_eval", found.gold, 0.0)["flagged"] == []
    intruder = collect("human_eval", exported[:1], {5: "r@x", 6: "owner@x"}, URL, state, project_id=7, owner=6)
    assert not intruder.valid and "answered by r@x in owner@x's own project" in intruder.quarantine[0]["reason"]


def test_collect_hands_each_task_its_hidden_values_to_the_job(tmp_path):
    """Job.parse(result, data, hidden): a check that needs the hidden values gets them from the state folder."""
    clozet = {
        "example_id": "c1",
        "story_id": "s",
        "split": "test",
        "context": "甲。<mask>",
        "candidates": ["对。", "错。"],
        "label": 1,
        "mask_sentence_index": 1,
        "annotator": None,
        "annotation_id": None,
        "lang": "zh",
        "_task": "clozet",
    }
    [task] = get_job("human_perf").to_tasks([clozet])
    state = JobState.new(tmp_path, URL, "human_perf", "perf", 1, "shared")
    token = state.add(task)
    answer = [{"from_name": "answer", "to_name": "question", "type": "choices", "value": {"choices": ["2"]}}]
    found = collect(
        "human_perf",
        [
            {
                "id": 1,
                "data": state.tasks[token]["task"]["data"],
                "annotations": [{"id": 9, "completed_by": 5, "result": answer}],
            }
        ],
        {},
        URL,
        state,
    )
    [valid] = found.valid
    assert (
        valid.values == {"task": "clozet", "answer": 2} and valid.hidden["answer"] == 2
    )  # "task" comes from the hidden values
    assert "answer" not in state.tasks[token]["task"]["data"]
