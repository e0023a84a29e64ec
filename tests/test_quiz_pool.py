"""A quiz that proves something (issue 35, item 2): questions drawn per rater from a pool in a seeded per-rater order,
a retry drawn from the items that rater has not seen, the shipped pools, and the quiz found from any directory.
Without a server: the draw itself. With a real Label Studio: two raters' quizzes, what OSS cannot prevent (a rater
opens a colleague's quiz project and answers there) and what lotdata does about it (her answers do not count for the
colleague), and the admin's resend path as docs/how-to/qualification.md writes it."""

from __future__ import annotations

from pathlib import Path

import pytest
from labelstudio_support import RaterWeb, lotdata

from lotdata.annotate.client import export_tasks
from lotdata.annotate.qualify import Gate, draw, load_quiz, quiz_path, shipped_quizzes
from lotdata.annotate.team import add_raters
from lotdata.errors import LotdataError

PASSWORD = "Quiz-Rater-2026"
POOLS = ("story_write.en", "story_write.zh", "sct_write.en", "sct_write.zh")


def test_the_shipped_pools_hold_three_quizzes_each():
    shipped = shipped_quizzes()
    for name in POOLS:
        questions = load_quiz(shipped[f"{name}.jsonl"])
        assert len(questions) >= 15 and len({q["id"] for q in questions}) == len(questions), name
        answers = [q["answer"] for q in questions]
        assert answers.count("acceptable") >= 5 and answers.count("not_acceptable") >= 5, name


def _gate(tmp_path: Path, items: int = 5) -> Gate:
    return Gate(tmp_path / "g.json", "http://ls", "story_write", 0.8, 0, "en", "salt", items=items)


def _take(gate: Gate, name: str, pool: list[dict]) -> list[str]:
    drawn = [q["id"] for q in draw(gate, name, pool)]
    gate.raters.setdefault(name, []).append({"items": drawn})
    return drawn


def test_raters_share_no_item_while_the_pool_lasts_and_no_order_after(tmp_path):
    pool = load_quiz(quiz_path(None, "story_write", "en"))
    gate = _gate(tmp_path)
    ann, ben, cy = (_take(gate, name, pool) for name in ("ann", "ben", "cy"))
    assert len(set(ann) | set(ben) | set(cy)) == 15  # 15 items, three quizzes of five: no item shared
    dan = _take(gate, "dan", pool)  # the pool is used up: a fourth rater shares items, in an order of his own
    assert len(dan) == 5 and dan not in (ann, ben, cy)


def test_a_retry_draws_items_the_rater_has_not_seen(tmp_path):
    pool = load_quiz(quiz_path(None, "sct_write", "zh"))
    gate = _gate(tmp_path)
    first, second, third = (_take(gate, "ann", pool) for _ in range(3))
    assert not set(first) & set(second) and not set(third) & (set(first) | set(second))
    fourth = draw(gate, "ann", pool)  # all 15 seen: topped up from what she saw, in a new order
    assert len(fourth) == 5 and [q["id"] for q in fourth] not in (first, second, third)


def test_the_order_is_seeded_per_rater(tmp_path):
    pool = load_quiz(quiz_path(None, "story_write", "zh"))
    one, two = _gate(tmp_path), _gate(tmp_path)
    assert draw(one, "ann", pool) == draw(two, "ann", pool)  # the same gate salt: the same draw
    assert [q["id"] for q in draw(_gate(tmp_path, items=15), "ann", pool)] != [
        q["id"] for q in draw(_gate(tmp_path, items=15), "ben", pool)
    ]  # the whole pool to two raters: two orders


def test_the_quiz_is_found_from_any_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shipped = shipped_quizzes()["story_write.en.jsonl"]
    assert quiz_path(None, "story_write", "en") == shipped
    assert quiz_path("annotation_templates/quizzes/story_write.en.jsonl", "story_write", "en") == shipped
    assert quiz_path("sct_write.zh", "story_write", "en") == shipped_quizzes()["sct_write.zh.jsonl"]
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"id": "a", "item": "x", "answer": "acceptable"}\n', encoding="utf-8")
    assert quiz_path(str(mine), "story_write", "en") == mine
    with pytest.raises(LotdataError, match="ships no quiz for review"):
        quiz_path(None, "review", "en")


def _verdicts(gate: Gate, tasks: list[dict], right: bool) -> list[tuple[int, list]]:
    out = []
    for task in tasks:
        truth = gate.questions[task["data"]["uid"]]["answer"]
        verdict = truth if right else ("acceptable" if truth == "not_acceptable" else "not_acceptable")
        out.append(
            (
                task["id"],
                [{"from_name": "verdict", "to_name": "item", "type": "choices", "value": {"choices": [verdict]}}],
            )
        )
    return out


def test_two_raters_quizzes_a_colleagues_answers_and_the_admins_resend(label_studio, conn, tmp_path, monkeypatch):
    """From a directory that is not the checkout, with the shipped pool: ann's and ben's quizzes share no item (and so
    no order), and their task ids differ. Ben opens ann's quiz project (Label Studio OSS lets any account: lotdata
    cannot prevent it) and answers it right; those answers are not ann's: her quiz stays unfinished, and her own wrong
    answers fail her. The admin resends her a quiz at once (`--retry-after 0 --rater ann`): five items she has not
    seen. About 20 s."""
    monkeypatch.chdir(tmp_path)
    state = tmp_path / "state"
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {e["rater"]: e for e in add_raters(conn, ["pool-ann", "pool-ben"], state=state, password=lambda: PASSWORD)}
    sent = run("annotate", "qualify", "story_write", "--pass", "0.8")  # no --quiz: the shipped pool, found from here
    assert sent.exit_code == 0, sent.output
    gate = Gate.find(state, "story_write", conn.url)
    ann, ben = gate.raters["pool-ann"][-1], gate.raters["pool-ben"][-1]
    assert len(ann["items"]) == len(ben["items"]) == 5 and not set(ann["items"]) & set(ben["items"])
    ann_tasks = sorted(export_tasks(conn, ann["project_id"]), key=lambda t: t["id"])
    ben_tasks = sorted(export_tasks(conn, ben["project_id"]), key=lambda t: t["id"])
    assert [gate.questions[t["data"]["uid"]]["id"] for t in ann_tasks] == ann["items"]  # listed in her drawn order
    assert not {t["data"]["uid"] for t in ann_tasks} & {t["data"]["uid"] for t in ben_tasks}

    # what OSS cannot prevent: ben, logged in as himself, reads ann's quiz project and answers in it
    ben_web = RaterWeb(label_studio.url, team["pool-ben"]["email"], PASSWORD)
    opened = ben_web.web.get(f"{label_studio.url}/api/tasks", params={"project": ann["project_id"]})
    assert opened.status_code == 200 and len(opened.json()["tasks"]) == 5
    for task_id, result in _verdicts(gate, ann_tasks, right=True):
        ben_web.annotate(task_id, result)
    scored = run("annotate", "qualify", "story_write", "--pass", "0.8", "--rater", "pool-ann")
    assert scored.exit_code == 0, scored.output
    assert Gate.find(state, "story_write", conn.url).describe("pool-ann") == "quiz #1 sent, not finished"
    # what lotdata does: only ann's own answers count (her first on each item), and hers are wrong
    ann_web = RaterWeb(label_studio.url, team["pool-ann"]["email"], PASSWORD)
    for task_id, result in _verdicts(gate, ann_tasks, right=False):
        ann_web.annotate(task_id, result)
    for task_id, result in _verdicts(gate, ann_tasks, right=True):
        ann_web.annotate(task_id, result)  # a second answer on each ("+" tab): the first submitted counts
    failed = run("annotate", "qualify", "story_write", "--pass", "0.8", "--rater", "pool-ann")
    assert failed.exit_code == 0, failed.output
    gate = Gate.find(state, "story_write", conn.url)
    assert gate.raters["pool-ann"][0]["score"] == 0.0 and len(gate.raters["pool-ann"]) == 1  # no retry by default

    # the admin resends a quiz at once, as docs/how-to/qualification.md says: new items, in an order of her own
    resent = run("annotate", "qualify", "story_write", "--pass", "0.8", "--retry-after", "0", "--rater", "pool-ann")
    assert resent.exit_code == 0, resent.output
    gate = Gate.find(state, "story_write", conn.url)
    first, retry = gate.raters["pool-ann"]
    assert retry["title"] == "story_write quiz #2 · pool-ann" and retry["repeated"] == 0
    assert not set(retry["items"]) & set(first["items"]) and not set(retry["items"]) & set(ben["items"])
    assert "quiz #2 sent, not finished" in resent.output


def test_a_gate_written_before_the_pools_still_loads_and_draws(tmp_path):
    """A gate file of the earlier layout (no `items` per quiz, attempts without the items drawn) is read as before."""
    import json

    path = tmp_path / "qualify" / "story_write.json"
    path.parent.mkdir()
    old = {
        "url": "http://ls",
        "job": "story_write",
        "pass_mark": 0.8,
        "retry_after_hours": None,
        "lang": "en",
        "salt": "s",
        "questions": {"q0123": {"id": "sw1", "item": "x", "answer": "acceptable"}},
        "raters": {
            "ann": [{"project_id": 3, "title": "t", "score": 0.4, "passed": False, "finished_at": "2026-01-01"}]
        },
    }
    path.write_text(json.dumps(old), encoding="utf-8")
    gate = Gate.find(tmp_path, "story_write", "http://ls")
    assert gate.items == 5 and gate.describe("ann").startswith("failed the quiz (40% < 80%)")
    assert len(draw(gate, "ann", load_quiz(quiz_path(None, "story_write", "en")))) == 5
