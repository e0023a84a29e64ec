"""The annotation loop's pure parts: templates, result validation, agreement, job rules (no server)."""

from __future__ import annotations

import json

import pytest

from lotdata.annotate.agreement import annotator_stats, fleiss_kappa, majority_vote, question_agreement
from lotdata.annotate.jobs import JOBS, Annotation, balance_labels, get_job, mask_guess
from lotdata.annotate.template import InvalidResult, load_template


def choice(name, to, values):
    return {"from_name": name, "to_name": to, "type": "choices", "value": {"choices": values}}


def text(name, to, value):
    return {"from_name": name, "to_name": to, "type": "textarea", "value": {"text": [value]}}


@pytest.mark.parametrize("name", sorted(JOBS))
def test_every_job_has_a_template_with_chinese_instructions(name):
    template = load_template(name)
    assert template.controls, name
    assert any("\u4e00" <= ch <= "\u9fff" for ch in template.xml)


def test_template_lists_controls_choices_and_conditions():
    controls = load_template("story_filter").controls
    assert controls["decision"].choices == ("accept", "rewrite", "reject")
    assert controls["decision"].required and not controls["decision"].conditional
    assert controls["reason"].multiple and controls["reason"].conditional
    assert controls["rewritten"].kind == "textarea"
    assert load_template("senpos_refine").controls["gaps"].dynamic_choices == "gap_choices"


@pytest.mark.parametrize(
    "result, reason",
    [
        ({"not": "a list"}, "expected a list"),
        ([choice("verdict_typo", "story", ["reject"])], "unknown control"),
        ([choice("decision", "story", ["maybe"])], "not among the choices"),
        ([choice("decision", "title", ["accept"])], "to_name"),
        ([choice("decision", "story", ["accept", "reject"])], "single choice"),
        ([text("rewritten", "story", "新故事。")], "required but missing"),
        ([{"from_name": "decision", "to_name": "story", "type": "textarea", "value": {"text": ["x"]}}], "type"),
    ],
)
def test_results_that_do_not_fit_the_template_are_refused_with_a_reason(result, reason):
    with pytest.raises(InvalidResult, match=reason):
        load_template("story_filter").parse(result)


def test_dynamic_choices_come_from_the_task_data():
    template = load_template("senpos_refine")
    data = {"gap_choices": [{"value": "1"}, {"value": "2"}]}
    assert template.parse([choice("gaps", "story", ["2", "1"])], data) == {"gaps": ["1", "2"]}
    with pytest.raises(InvalidResult, match="not among"):
        template.parse([choice("gaps", "story", ["3"])], data)


def test_fleiss_kappa_matches_the_textbook_example():
    # Fleiss (1971) style worked example (Wikipedia): 10 items, 14 raters, 5 categories -> kappa 0.210
    table = [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]
    ratings = {i: [c for c, n in enumerate(row) for _ in range(n)] for i, row in enumerate(table)}
    assert fleiss_kappa(ratings) == pytest.approx(0.210, abs=0.001)


def test_kappa_is_one_for_perfect_agreement_and_negative_for_systematic_disagreement():
    assert fleiss_kappa({1: ["a", "a"], 2: ["b", "b"]}) == pytest.approx(1.0)
    assert fleiss_kappa({1: ["a", "b"], 2: ["a", "b"]}) < 0
    assert fleiss_kappa({1: ["a"]}) is None


def test_majority_vote_has_no_winner_on_a_tie():
    assert majority_vote([1, 1, 0]) == 1
    assert majority_vote([1, 0]) is None
    assert majority_vote([]) is None


def test_question_agreement_and_annotator_stats():
    votes = [(1, "x", "q", 1), (1, "y", "q", 1), (1, "z", "q", 0), (2, "x", "q", 0), (2, "y", "q", 0), (2, "z", "q", 0)]
    report = question_agreement(votes)["q"]
    assert report["items"] == 2 and report["majority"] == 2 and report["fleiss_kappa"] is not None
    stats = annotator_stats(
        [{"annotator": "x", "lead_time": 4.0}, {"annotator": "z", "lead_time": 8.0, "was_cancelled": True}], votes
    )
    assert stats["x"]["agrees_with_majority"] == 1.0
    assert stats["z"]["agrees_with_majority"] == 0.5
    assert stats["z"]["skipped"] == 1


def test_mask_guess_never_picks_the_first_sentence():
    assert mask_guess(["于是开始。", "天很冷。", "他很高兴。"]) == 2
    assert mask_guess(["开头。", "于是他走了。", "结尾。"]) == 1


def test_balanced_labels_put_the_right_candidate_first_in_half_of_each_split():
    rows = [{"example_id": f"e{i}", "split": "val" if i < 10 else "test", "_right": "R", "_wrong": "W"} for i in range(20)]
    out = balance_labels(rows)
    for split in ("val", "test"):
        labels = [r["label"] for r in out if r["split"] == split]
        assert sorted(labels) == [0] * 5 + [1] * 5
    assert all(r["candidates"][r["label"]] == "R" for r in out)


def annotation(uid, data, who, values, n=1, hidden=None):
    return Annotation(uid=uid, data=data, annotator=who, annotation_id=n, created_at=f"2026-01-01T00:00:0{n}", values=values, hidden=hidden or {})


def test_senpos_assembly_keeps_only_examples_with_exactly_one_fitting_gap():
    job = get_job("senpos_refine")
    example = {"example_id": "e1", "story_id": "s1", "split": "val", "sentences": ["甲。", "乙。", "丙。"], "removed": "丁。",
               "label": 1, "n_candidates": 2, "refined": False, "lang": "zh"}
    [task] = job.to_tasks([example])
    data = task["data"]
    assert task["predictions"][0]["result"][0]["value"]["choices"] == ["1"]
    one = job.parse([choice("gaps", "story", ["2"])], data)
    two = job.parse([choice("gaps", "story", ["1", "2"])], data)
    revised = job.parse([choice("gaps", "story", ["1"]), choice("verdict", "story", ["revise"]), text("revised_sentence", "story", "新句子。")], data)
    assert job.assemble([annotation("e1", data, "a", one)])["senpos"][0]["label"] == 2
    assert job.assemble([annotation("e1", data, "a", two)])["senpos"] == []
    assert job.assemble([annotation("e1", data, "a", revised)])["senpos"][0]["removed"] == "新句子。"
    with pytest.raises(InvalidResult, match="beyond the last gap"):
        job.parse([choice("gaps", "story", ["2"]), choice("verdict", "story", ["revise"]),
                   {"from_name": "revised_story", "to_name": "story", "type": "textarea", "value": {"text": ["甲。\n乙。"]}}], data)


def test_cloze_verify_applies_the_story_cloze_rule():
    job = get_job("cloze_verify")
    example = {"example_id": "c1", "story_id": "s", "split": "test", "context": "甲。<mask>", "candidates": ["对。", "错。"], "label": 0,
               "mask_sentence_index": 1, "annotator": None, "annotation_id": None, "lang": "zh"}
    tasks = job.to_tasks([example])
    (right, right_hidden), (wrong, wrong_hidden) = ((t["data"], t["hidden"]) for t in tasks)
    assert right["story"] == "甲。对。" and wrong["story"] == "甲。错。"
    assert [set(t["data"]) for t in tasks] == [{"uid", "story"}] * 2  # the role and the example stay hidden
    assert right_hidden["role"] == "right" and wrong_hidden["role"] == "wrong"
    for data in (right, wrong):
        data["raters"] = 3

    def ratings(r, w):
        return [annotation(right["uid"], right, f"r{i}", {"rating": v}, hidden=right_hidden) for i, v in enumerate(r)] + [
            annotation(wrong["uid"], wrong, f"r{i}", {"rating": v}, hidden=wrong_hidden) for i, v in enumerate(w)]

    assert len(job.assemble(ratings([1, 1, 1], [0, 0, 0]))["clozet"]) == 1
    assert job.assemble(ratings([1, 1, 0], [0, 0, 0]))["clozet"] == []
    assert job.assemble(ratings([1, 1, 1], [0, 0, -1]))["clozet"] == []
    assert job.assemble(ratings([1, 1], [0, 0]))["stats"]["dropped"] == {"too_few_ratings": 1}


def test_clozet_write_rules():
    job = get_job("clozet_write")
    data = {"uid": "clozet-s", "story_id": "s", "split": "val", "lang": "zh", "sentences": ["一。", "二。", "三。"]}
    number = {"from_name": "mask_sentence", "to_name": "story", "type": "number", "value": {"number": 3}}
    good = [number, text("wrong_candidate", "story", "错三。"), choice("policy", "story", ["physical_nature"])]
    assert job.parse(good, data)["index"] == 2
    with pytest.raises(InvalidResult, match="not a sentence from 2 to 3"):
        job.parse([{**number, "value": {"number": 4}}] + good[1:], data)
    with pytest.raises(InvalidResult, match="outside"):  # the template's min=2: the first sentence is never masked
        job.parse([{**number, "value": {"number": 1}}] + good[1:], data)
    with pytest.raises(InvalidResult, match="identical"):
        job.parse([number, text("wrong_candidate", "story", "三。"), good[2]], data)
    assert job.parse([choice("reject", "story", ["reject"])], data) == {"rejected": True}
    assembled = job.assemble([annotation("clozet-s", data, "a", job.parse(good, data))])
    [row] = assembled["clozet"]
    assert row["context"] == "一。二。<mask>" and sorted(row["candidates"]) == sorted(["三。", "错三。"])
    assert assembled["stats"]["policies"] == {"physical_nature": 1}


def test_human_eval_tasks_hide_the_system_from_the_view():
    job = get_job("human_eval")
    [task] = job.to_tasks([{"input_id": 7, "input": "输入", "system": "gpt2", "output": "输出"}])
    assert task["data"]["uid"] == "7:gpt2" and task["hidden"] == {"system": "gpt2"}  # the workflow sends an opaque uid
    assert "gpt2" not in json.dumps({k: v for k, v in task["data"].items() if k != "uid"})
    assert "$system" not in job.template.xml
    values = job.parse([choice(a, "output", ["1"]) for a in ("grammaticality", "coherence", "relatedness")], task["data"])
    assert values == {"grammaticality": 1, "coherence": 1, "relatedness": 1}
    assert json.loads(json.dumps(values)) == values


def test_clozet_write_splits_are_grouped_seeded_and_never_unasked(tmp_path):
    from helpers import write_stories

    texts = [f"第{i}个故事开始了，天气很好。小明出门去上学了。他在路上捡到了一只小猫。于是他把小猫带回了家。" for i in range(9)]
    path = write_stories(tmp_path / "s.parquet", texts)
    load = get_job("clozet_write").load
    rows = load(path, ["val", "test"])
    assert len(rows) == 9 and {r["split"] for r in rows} == {"val", "test"}
    assert abs(sum(r["split"] == "val" for r in rows) - sum(r["split"] == "test" for r in rows)) == 1
    assert [r["split"] for r in load(path, ["val", "test"])] == [r["split"] for r in rows]  # seeded
    assert {r["split"] for r in load(path, ["train=0.5", "val=0.25", "test=0.25"])} <= {"train", "val", "test"}
    with pytest.raises(ValueError, match="unknown split"):
        load(path, ["dev"])
