"""The qualification gate on a real Label Studio: a writer fails the quiz, gets a new one, passes, and only then is
given the work; a rater who failed is told so in `status`. Bad quiz files and unknown raters: exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from labelstudio_support import annotate, lotdata

from lotdata.annotate.client import export_tasks, find_project
from lotdata.annotate.qualify import Gate, load_quiz, quiz_description
from lotdata.annotate.state import Team
from lotdata.resources import asset_dir

QUIZZES = Path(asset_dir("annotation_templates")) / "quizzes"


def _answer(conn, project_id: int, user_id: int, gate: Gate, right: bool) -> None:
    for task in export_tasks(conn, project_id):
        truth = gate.questions[task["data"]["uid"]]["answer"]
        verdict = truth if right else ("acceptable" if truth == "not_acceptable" else "not_acceptable")
        annotate(
            conn,
            task,
            user_id,
            [{"from_name": "verdict", "to_name": "item", "type": "choices", "value": {"choices": [verdict]}}],
        )


def test_shipped_quizzes_have_answers_and_both_verdicts():
    for path in sorted(QUIZZES.glob("*.jsonl")):
        questions = load_quiz(path)
        assert len(questions) >= 5 and {q["answer"] for q in questions} == {"acceptable", "not_acceptable"}, path
    assert {p.name for p in QUIZZES.glob("*.jsonl")} >= {
        "story_write.en.jsonl",
        "story_write.zh.jsonl",
        "sct_write.en.jsonl",
        "sct_write.zh.jsonl",
    }


def test_fail_retry_pass_then_the_work(label_studio, conn, tmp_path):
    state = tmp_path / "state"  # its own: the gate it leaves must not gate other tests' pushes of story_write
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    assert run("annotate", "raters", "add", "quinn", "rory").exit_code == 0
    team = Team.load(state, conn.url).raters
    quiz = str(QUIZZES / "story_write.en.jsonl")
    sent = run("annotate", "qualify", "story_write", "--quiz", quiz, "--pass", "0.8", "--retry-after", "0")
    assert sent.exit_code == 0, sent.output
    gate = Gate.find(state, "story_write", conn.url)
    first = {name: gate.raters[name][-1]["project_id"] for name in ("quinn", "rory")}
    pushed = export_tasks(conn, first["quinn"])
    assert len(pushed) == 5 and not any("answer" in json.dumps(t["data"]) for t in pushed)  # answers stay local
    # the quiz's screens have no trap either: a description in the rater's words, no internal column in the task list
    project = conn.sdk.projects.get(id=first["quinn"])
    assert project.description == quiz_description("story_write", "en") and "story_write" not in project.description
    [view] = conn.sdk.views.list(project=first["quinn"])
    assert view.data["title"] == "Tasks" and {"tasks:data.uid", "tasks:data.rules", "tasks:data.item"} <= set(
        view.data["hiddenColumns"]["explore"]
    )
    _answer(conn, first["quinn"], team["quinn"].user_id, gate, right=False)
    _answer(conn, first["rory"], team["rory"].user_id, gate, right=False)
    scored = run(
        "annotate", "qualify", "story_write", "--quiz", quiz, "--pass", "0.8", "--retry-after", "0", "--rater", "quinn"
    )
    assert scored.exit_code == 0, scored.output
    gate = Gate.find(state, "story_write", conn.url)
    assert [a["score"] for a in gate.raters["quinn"]] == [0.0, None]  # failed, and a new quiz went out at once
    _answer(conn, gate.raters["quinn"][-1]["project_id"], team["quinn"].user_id, gate, right=True)
    # rory is scored without a retry: failed and not given the work
    final = run("annotate", "qualify", "story_write", "--quiz", quiz, "--pass", "0.8")
    assert final.exit_code == 0, final.output
    gate = Gate.find(state, "story_write", conn.url)
    assert gate.qualified() == ["quinn"] and gate.raters["rory"][-1]["passed"] is False
    work = run("annotate", "push", "story_write", "--n", "3", "--project", "Gated stories")
    assert work.exit_code == 0, work.output
    assert (
        find_project(conn, "Gated stories · quinn") is not None and find_project(conn, "Gated stories · rory") is None
    )
    status = run("annotate", "status", "Gated stories")
    assert status.exit_code == 0, status.output
    assert "failed the quiz (0% < 80%): not given the work" in status.output and "qualified (100%)" in status.output
    # a story sent back to quinn goes to quinn's project only (quinn and a third rater qualified)
    assert run("annotate", "raters", "add", "sage").exit_code == 0
    gate = Gate.find(state, "story_write", conn.url)
    gate.raters["sage"] = [{**gate.raters["quinn"][-1], "title": "by hand"}]
    gate.save()
    revisions = tmp_path / "revisions.jsonl"
    revisions.write_text(
        json.dumps(
            {
                "story": "write-1",
                "writer": "quinn@raters.lotdata.local",
                "feedback": "One sentence a box.",
                "previous": "old text",
                "version": 2,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    again = run("annotate", "push", "story_write", "--input", str(revisions), "--project", "Gated stories")
    assert again.exit_code == 0, again.output
    feedback = lambda title: [t for t in export_tasks(conn, find_project(conn, title).id) if t["data"]["feedback"]]  # noqa: E731
    assert len(feedback("Gated stories · quinn")) == 1 and feedback("Gated stories · sage") == []
    assert (
        len(export_tasks(conn, find_project(conn, "Gated stories · sage").id)) == 3
    )  # the three slots, not the revision
    refused = run("annotate", "push", "story_write", "--n", "3", "--project", "Gated stories", "--assign", "rory")
    assert refused.exit_code == 1 and "rory" in refused.output


def test_qualify_bad_input(label_studio, conn, tmp_path):
    run = lambda *args: lotdata(label_studio, *args)  # noqa: E731
    no_answer = tmp_path / "quiz.jsonl"
    no_answer.write_text(
        '{"id": "a", "item": "A story.", "answer": "acceptable"}\n{"id": "b", "item": "Another."}\n', encoding="utf-8"
    )
    result = run("annotate", "qualify", "story_write", "--quiz", str(no_answer))
    assert result.exit_code == 3 and "quiz.jsonl" in result.output and "row 2" in result.output
    result = run(
        "annotate", "qualify", "story_write", "--quiz", str(QUIZZES / "story_write.en.jsonl"), "--rater", "nobody"
    )
    assert result.exit_code == 1 and "'nobody' is not in the team" in result.output
