"""Does uncertainty order pay (issue 39, item 4): the simulated loop of lotdata.quality.active on real Story Cloze
cases, and the report a pull of an `--order uncertainty` push writes from its own decisions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sklearn")

from lotdata.annotate.pull import active_learning  # noqa: E402
from lotdata.annotate.state import JobState  # noqa: E402
from lotdata.quality.active import (  # noqa: E402
    MIN_ITEMS,
    PairModel,
    compare,
    learning_curve,
    pull_decisions,
    pull_report,
)


def _pairs(shared_data: Path, split: str, n: int):
    from lotdata.tasks.storycloze import read_storycloze

    rows, _ = read_storycloze(shared_data / "storycloze_spring2016_labeled" / f"{split}.csv", split)
    rows = rows[:n]
    return [tuple(r["candidates"]) for r in rows], [int(r["label"]) for r in rows]


def test_seeded_curve_on_story_cloze_endings(shared_data):
    pool, test = _pairs(shared_data, "val", 400), _pairs(shared_data, "test", 400)
    curves = compare(PairModel, pool, test, batch=100, rounds=3, seeds=2)
    for order in ("random", "uncertainty"):
        for curve in curves[order]:
            assert [n for n, _ in curve] == [100, 200, 300]
            assert all(0.45 < acc < 0.85 for _, acc in curve)  # an ending-only model: above chance, far from solved
    # the same start in both orders (one random batch), so the first point is the same
    assert [c[0] for c in curves["random"]] == [c[0] for c in curves["uncertainty"]]
    # labels hidden until annotated: a seed gives the same curve again
    again = learning_curve(PairModel, pool, test, order="uncertainty", batch=100, rounds=3, seed=1)
    assert again == curves["uncertainty"][1]
    with pytest.raises(ValueError, match="order"):
        learning_curve(PairModel, pool, test, order="push", batch=100, rounds=1, seed=0)


def _decisions(n: int) -> list[dict]:
    """story_filter's story_decisions rows: every third story rejected, its text garbled; one non-final vote each."""
    rows = []
    for i in range(n):
        rejected = i % 3 == 0
        text = f"zxq qq {i} broken broken !!" if rejected else f"The family went to the park on day {i} and smiled."
        final = {"story_id": f"s{i}", "decision": "reject" if rejected else ("rewrite" if i % 5 == 0 else "accept")}
        rows.append({**final, "old_text": text, "final": True})
        rows.append({**final, "decision": "accept", "old_text": text, "final": False})  # an outvoted rater
    return rows


def test_pull_report_compares_the_orders_on_the_pulls_decisions():
    rows = _decisions(90)
    assert len(pull_decisions(rows)) == 90
    report = pull_report(rows, seeds=2)
    json.dumps(report, allow_nan=False)
    assert report["decisions"] == 90 and report["min_items"] == MIN_ITEMS
    assert 0 < report["held_out"] < 45
    labelled = [p["labelled"] for p in report["points"]]
    assert labelled == sorted(labelled) and labelled[-1] == 90 - report["held_out"]
    last = report["points"][-1]
    assert last["uncertainty"] == last["random"] >= 0.9  # the whole pool in both orders; an easy task: learnt
    half = report["points"][3]  # 8 pulls: the orders are compared halfway
    assert report["compared_at"] == half["labelled"]
    assert report["summary"].startswith(f"active learning: uncertainty order reached {100 * half['uncertainty']:.1f}%")
    assert f"with {half['labelled']} items; random order {100 * half['random']:.1f}%" in report["summary"]
    assert report["summary"].endswith(f"both orders {100 * last['random']:.1f}% with all {labelled[-1]})")


def test_pull_report_says_why_it_was_skipped():
    few = pull_report(_decisions(MIN_ITEMS - 1))
    assert "points" not in few and f"fewer than {MIN_ITEMS}" in few["skipped"]
    assert few["summary"] == f"active learning: skipped ({few['skipped']})"
    kept_only = [r for r in _decisions(90) if r["decision"] != "reject"]
    assert "one class" in pull_report(kept_only)["skipped"]


def test_only_an_uncertainty_push_gets_the_report(tmp_path: Path):
    state = JobState.new(tmp_path, "http://ls", "story_filter", "Filter", 1, "shared", lang="en")
    assembled = {"story_decisions": _decisions(10), "stories": []}
    assert active_learning(state, assembled) == {}  # pushed without a model
    state.suggest = {"model": "quality-model", "model_version": "Model guess", "order": "push"}
    assert active_learning(state, assembled) == {}
    state.suggest["order"] = "uncertainty"
    assert "skipped" in active_learning(state, assembled)["active_learning"]
    state.save()  # the push's record survives a save and a load; a state without it reads as before
    assert JobState.load(state.path, "http://ls").suggest == state.suggest
    state.suggest = None
    state.save()
    assert (
        "suggest" not in json.loads(state.path.read_text()) and JobState.load(state.path, "http://ls").suggest is None
    )
