"""Agreement a paper can report (issue 35, items 1 and 5), without a server: Krippendorff's alpha against the
`krippendorff` package's published examples, its bootstrap interval, Dawid-Skene and MACE against majority on a seeded
simulated crowd with one random rater, one vote per rater per item (`one_vote`, cloze_verify's assembly) and the
record of what a pull saw (`lotdata.annotate.seen`)."""

from __future__ import annotations

import json

import pytest

from lotdata.annotate.agreement import aggregate, aggregation_report, krippendorff_alpha, question_agreement
from lotdata.annotate.jobs import Annotation, get_job
from lotdata.annotate.pull import DUPLICATE_REASON, Collected, one_vote
from lotdata.annotate.seen import deleted, load_seen, remember
from lotdata.testing.crowd import simulated_crowd

NAN = None


def _items(matrix):
    """Raters x units (None: missing) -> unit -> the values given."""
    items = {}
    for row in matrix:
        for unit, value in enumerate(row):
            if value is not None:
                items.setdefault(unit, []).append(value)
    return items


# the docstring example of krippendorff.alpha (3 raters, 15 units, missing ratings): nominal 0.691358
DOCSTRING = [
    [NAN, NAN, NAN, NAN, NAN, 3, 4, 1, 2, 1, 1, 3, 3, NAN, 3],
    [1, NAN, 2, 1, 3, 3, 4, 3, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
    [NAN, NAN, 2, 1, 3, 4, 4, NAN, 2, 1, 1, 3, 3, NAN, 4],
]
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", p. 8 (4 observers, 12 units, missing values),
# as the package's docstring quotes it: ordinal 0.815, nominal 0.743
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def test_alpha_reproduces_the_packages_published_examples():
    assert krippendorff_alpha(_items(DOCSTRING), "nominal")["alpha"] == pytest.approx(0.691358, abs=1e-4)
    assert krippendorff_alpha(_items(KRIPPENDORFF_2011), "ordinal")["alpha"] == pytest.approx(0.815, abs=1e-3)
    assert krippendorff_alpha(_items(KRIPPENDORFF_2011), "nominal")["alpha"] == pytest.approx(0.743, abs=1e-3)


def test_alpha_has_a_seeded_bootstrap_interval_around_it():
    found = krippendorff_alpha(_items(KRIPPENDORFF_2011), "nominal")
    low, high = found["ci95"]
    assert low <= found["alpha"] <= high and high - low > 0.05
    assert found["bootstrap"] == {"resamples": 1000, "of": "items", "seed": 0}
    assert krippendorff_alpha(_items(KRIPPENDORFF_2011), "nominal") == found  # seeded: the same interval


def test_alpha_is_none_where_it_cannot_be_measured():
    assert krippendorff_alpha({"a": [1], "b": [2]}) is None  # no item rated twice
    assert krippendorff_alpha({"a": [1, 1], "b": [1, 1]}) is None  # one value everywhere
    assert krippendorff_alpha({"a": ["x", "y"], "b": ["x", "x"]}, "ordinal") is None  # words have no order


def test_every_question_reports_alpha_beside_fleiss_kappa():
    votes = [(unit, f"r{r}", "score", v) for r, row in enumerate(KRIPPENDORFF_2011) for unit, v in enumerate(row) if v]
    report = question_agreement(votes)["score"]
    assert report["fleiss_kappa"] is not None
    assert report["krippendorff_alpha"]["alpha"] == pytest.approx(0.743, abs=1e-3)
    assert report["krippendorff_alpha_ordinal"]["alpha"] == pytest.approx(0.815, abs=1e-3)
    labels = question_agreement([(1, "a", "q", "yes"), (1, "b", "q", "no"), (2, "a", "q", "yes"), (2, "b", "q", "yes")])
    assert "krippendorff_alpha_ordinal" not in labels["q"] and labels["q"]["krippendorff_alpha"]["level"] == "nominal"


@pytest.mark.parametrize("method", ["dawid-skene", "mace"])
def test_a_skill_model_beats_majority_and_names_the_random_rater(method):
    truth, votes = simulated_crowd()
    accuracy = lambda labels: sum(labels[i] == t for i, t in truth.items()) / len(truth)  # noqa: E731
    majority, model = aggregate(votes, "majority"), aggregate(votes, method)
    assert accuracy(model["labels"]) > accuracy(majority["labels"]) + 0.02  # measured: 0.833 -> 0.877 (DS), 0.88 (MACE)
    assert [r for r, e in model["raters"].items() if e["near_chance"]] == ["random"]
    assert abs(model["raters"]["random"]["accuracy"] - 0.5) < 0.08
    assert model["raters"]["r1"]["accuracy"] > 0.85
    report = aggregation_report([(i, r, "q", v) for i, r, v in votes], method)
    assert report["near_chance"] == ["random"] and report["questions"]["q"]["differs_from_majority"] > 0
    json.dumps(report)  # agreement.json holds it


def test_an_unknown_aggregation_is_refused():
    with pytest.raises(ValueError, match="dawid-skene"):
        aggregate([(1, "a", "x")], "em")


def _ann(uid, rater, annotation_id, rating, role="right"):
    example = {"example_id": uid, "candidates": ["a", "b"], "label": 0}
    return Annotation(
        uid=f"{uid}-{role}",
        data={"raters": 3},
        annotator=rater,
        annotation_id=annotation_id,
        created_at="",
        values={"rating": rating},
        hidden={"example_id": uid, "role": role, "example": example},
    )


def test_a_raters_second_answer_is_quarantined_and_the_first_counts():
    found = Collected()
    anns = [_ann("c1", "ann1", 1, 1), _ann("c1", "ann2", 2, 1), _ann("c1", "ann2", 3, 0)]
    for a in anns:
        found.valid.append(a)
        found.rows.append(
            {"uid": a.uid, "task_id": 7, "annotation_id": a.annotation_id, "annotator": a.annotator, "result": "[]"}
            | {"project_id": 5, "was_cancelled": False, "gold": False}
        )
    found.per_project[5] = {"tasks": 1, "done": 3, "skipped": 0, "quarantined": 0}
    one_vote(found, "http://ls")
    assert [a.annotation_id for a in found.valid] == [1, 2]
    assert found.per_project[5] == {"tasks": 1, "done": 2, "skipped": 0, "quarantined": 1, "duplicates": 1}
    [row] = found.quarantine
    assert row["row"] == 3 and row["reason"] == DUPLICATE_REASON.format(rater="ann2", first=2)
    assert row["path"] == "http://ls/projects/5/data?task=7"


def test_cloze_verify_counts_raters_not_annotations():
    """Two people, one of whom voted twice on each story, are not the three raters the SCT rule needs."""
    assemble = get_job("cloze_verify").assemble
    two = [
        _ann("c1", "ann1", 1, 1, "right"),
        _ann("c1", "ann2", 2, 1, "right"),
        _ann("c1", "ann2", 3, 1, "right"),
        _ann("c1", "ann1", 4, 0, "wrong"),
        _ann("c1", "ann2", 5, 0, "wrong"),
        _ann("c1", "ann2", 6, 0, "wrong"),
    ]
    assert assemble(two)["stats"] == {"kept": 0, "dropped": {"too_few_ratings": 1}}
    three = two + [_ann("c1", "ann3", 7, 1, "right"), _ann("c1", "ann3", 8, 0, "wrong")]
    assert assemble(three)["stats"]["kept"] == 1


def test_a_pull_remembers_what_it_saw_and_names_what_is_gone(tmp_path):
    path = tmp_path / "seen" / "p.json"
    row = lambda n, who: {"annotation_id": n, "annotator": who, "uid": f"u{n}", "task_id": 10 + n, "project_id": 3}  # noqa: E731
    assert remember(path, [row(1, "ann1"), row(2, "ann2")], when="2026-01-01T00:00:00+00:00") == []
    gone = remember(path, [row(1, "ann1")], when="2026-01-02T00:00:00+00:00")
    assert gone == [
        {
            "annotation_id": 2,
            "rater": "ann2",
            "uid": "u2",
            "task_id": 12,
            "project_id": 3,
            "created_at": None,
            "last_seen": "2026-01-01T00:00:00+00:00",
        }
    ]
    # still named at the next pull (a fact about the data), and by status without writing
    assert remember(path, [row(1, "ann1")], when="2026-01-03T00:00:00+00:00") == gone
    assert deleted(load_seen(path), [row(1, "ann1")]) == gone


def test_drop_flagged_leaves_out_the_raters_a_skill_model_finds_near_chance():
    """`pull --aggregate dawid-skene --drop-flagged`: the random rater's answers are left out of the assembly (with
    majority, only the gold tasks' flags drop anyone, as before)."""
    from types import SimpleNamespace

    from lotdata.annotate.pull import _aggregation

    _truth, votes = simulated_crowd()
    valid = [
        Annotation(uid=str(item), data={}, annotator=rater, annotation_id=n, created_at="", values={"x": value})
        for n, (item, rater, value) in enumerate(votes)
    ]
    job = SimpleNamespace(votes=lambda values: [("q", values["x"])])
    for method, drop, gold, expected in [
        ("dawid-skene", True, [], {"random"}),
        ("mace", True, ["r6"], {"random", "r6"}),
        ("dawid-skene", False, [], set()),
        ("majority", True, ["r6"], {"r6"}),
    ]:
        report, left_out = _aggregation(job, valid, SimpleNamespace(aggregate=method, drop_flagged=drop), gold)
        assert left_out == expected, method
        assert report["dropped"] == sorted(expected - set(gold))
        assert report["near_chance"] == ([] if method == "majority" else ["random"])  # majority misses it (0.64)
