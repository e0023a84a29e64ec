"""The annotation loop's pure parts: templates, result validation, agreement, job rules (no server)."""

from __future__ import annotations

import json
from functools import partial

import pyarrow as pa
import pyarrow.parquet as pq
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
    keep = choice("verdict", "story", ["keep"])
    assert template.parse([choice("gaps", "story", ["2", "1"]), keep], data) == {"gaps": ["1", "2"], "verdict": "keep"}
    with pytest.raises(InvalidResult, match="not among"):
        template.parse([choice("gaps", "story", ["3"]), keep], data)


def test_fleiss_kappa_matches_the_textbook_example():
    # Fleiss (1971) style worked example (Wikipedia): 10 items, 14 raters, 5 categories -> kappa 0.210
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
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


def test_mask_guess_aims_at_a_middle_sentence():
    assert mask_guess(["于是开始。", "天很冷。", "他很高兴。"]) == 1  # never the first, never the last
    assert mask_guess(["开头。", "一。", "于是他走了。", "二。", "结尾。于是"]) == 2
    assert mask_guess(["开头。", "一。", "二。", "三。", "结尾。"]) == 2  # no marker: the centre
    assert mask_guess(["开头。", "结尾。"]) == 1


def test_balanced_labels_put_the_right_candidate_first_in_half_of_each_split():
    rows = [
        {"example_id": f"e{i}", "split": "val" if i < 10 else "test", "_right": "R", "_wrong": "W"} for i in range(20)
    ]
    out = balance_labels(rows)
    for split in ("val", "test"):
        labels = [r["label"] for r in out if r["split"] == split]
        assert sorted(labels) == [0] * 5 + [1] * 5
    assert all(r["candidates"][r["label"]] == "R" for r in out)


def annotation(uid, data, who, values, n=1, hidden=None):
    return Annotation(
        uid=uid,
        data=data,
        annotator=who,
        annotation_id=n,
        created_at=f"2026-01-01T00:00:0{n}",
        values=values,
        hidden=hidden or {},
    )


def test_senpos_assembly_keeps_only_examples_with_exactly_one_fitting_gap():
    job = get_job("senpos_refine")
    example = {
        "example_id": "e1",
        "story_id": "s1",
        "split": "val",
        "sentences": ["甲。", "乙。", "丙。"],
        "removed": "丁。",
        "label": 1,
        "n_candidates": 2,
        "refined": False,
        "lang": "zh",
    }
    [task] = job.to_tasks([example])
    data, hidden = task["data"], task["hidden"]
    assert "label" not in json.dumps(data) and hidden["original_gap"] == 1
    assert task["predictions"][0]["result"][0]["value"]["choices"] == ["1"]
    moved = job.parse([choice("gaps", "story", ["2"]), choice("verdict", "story", ["move"])], data, hidden)
    two = job.parse([choice("gaps", "story", ["1", "2"]), choice("verdict", "story", ["revise"])], data, hidden)
    revised = job.parse(
        [
            choice("gaps", "story", ["1"]),
            choice("verdict", "story", ["revise"]),
            text("revised_sentence", "story", "新句子。"),
        ],
        data,
        hidden,
    )
    assert job.assemble([annotation("e1", data, "a", moved, hidden=hidden)])["senpos"][0]["label"] == 2
    assert job.assemble([annotation("e1", data, "a", two, hidden=hidden)])["senpos"] == []
    assert job.assemble([annotation("e1", data, "a", revised, hidden=hidden)])["senpos"][0]["removed"] == "新句子。"
    with pytest.raises(InvalidResult, match="beyond the last gap"):
        job.parse(
            [
                choice("gaps", "story", ["2"]),
                choice("verdict", "story", ["revise"]),
                {
                    "from_name": "revised_story",
                    "to_name": "story",
                    "type": "textarea",
                    "value": {"text": ["甲。\n乙。"]},
                },
            ],
            data,
            hidden,
        )


def test_cloze_verify_applies_the_story_cloze_rule():
    job = get_job("cloze_verify")
    example = {
        "example_id": "c1",
        "story_id": "s",
        "split": "test",
        "context": "甲。<mask>",
        "candidates": ["对。", "错。"],
        "label": 0,
        "mask_sentence_index": 1,
        "annotator": None,
        "annotation_id": None,
        "lang": "zh",
    }
    right, wrong = job.to_tasks([example])
    assert right["data"]["story"] == "甲。对。" and wrong["data"]["story"] == "甲。错。"
    assert [t["hidden"]["role"] for t in (right, wrong)] == ["right", "wrong"]
    for task in (right, wrong):  # nothing a rater sees tells the two apart
        task["data"]["raters"] = 3
        assert (
            "right" not in json.dumps(task["data"])
            and "wrong" not in json.dumps(task["data"])
            and "c1" not in json.dumps(task["data"])
        )

    def ratings(r, w):
        return [
            annotation(right["data"]["uid"], right["data"], f"r{i}", {"rating": v}, hidden=right["hidden"])
            for i, v in enumerate(r)
        ] + [
            annotation(wrong["data"]["uid"], wrong["data"], f"r{i}", {"rating": v}, hidden=wrong["hidden"])
            for i, v in enumerate(w)
        ]

    assert len(job.assemble(ratings([1, 1, 1], [0, 0, 0]))["clozet"]) == 1
    assert job.assemble(ratings([1, 1, 0], [0, 0, 0]))["clozet"] == []
    assert job.assemble(ratings([1, 1, 1], [0, 0, -1]))["stats"]["dropped"] == {"cannot_judge": 1}
    assert job.assemble(ratings([1, 1], [0, 0]))["stats"]["dropped"] == {"too_few_ratings": 1}


def test_clozet_write_rules():
    job = get_job("clozet_write")
    row = {
        "story_id": "s",
        "split": "val",
        "lang": "zh",
        "sentences": ["小明养了一只猫。", "猫每天都抓老鼠。", "小明很喜欢他的猫。", "他们是好朋友。"],
    }
    [task] = job.to_tasks([row])
    data, hidden = task["data"], task["hidden"]
    # the choices number the sentences that may be chosen (2 to 4: the last too), from 1: the hotkey a rater presses is
    # the number shown
    assert data["sentence_choices"] == [{"value": "1"}, {"value": "2"}, {"value": "3"}] and "sentences" not in data
    assert data["numbered"].splitlines() == [
        "· 小明养了一只猫。",
        "[1] 猫每天都抓老鼠。",
        "[2] 小明很喜欢他的猫。",
        "[3] 他们是好朋友。",
    ]
    number = choice("mask_sentence", "story", ["2"])
    write = choice("decision", "story", ["write"])
    good = [
        write,
        number,
        text("wrong_candidate", "story", "小明想把他的猫卖掉。"),  # not an antonym swap (2.2d)
        choice("policy", "story", ["reaction_intention"]),
    ]
    assert job.parse(good, data, hidden)["index"] == 2
    with pytest.raises(InvalidResult, match="not among the choices"):  # the first sentence is not offered
        job.parse([write, choice("mask_sentence", "story", ["4"])] + good[2:], data, hidden)
    # the last sentence may be chosen (LOT appendix 2: "at the end or middle of the story"): an ending case
    ending = [
        write,
        choice("mask_sentence", "story", ["3"]),
        text("wrong_candidate", "story", "他们是死对头。"),
        good[3],
    ]
    assert job.parse(ending, data, hidden)["index"] == 3
    with pytest.raises(InvalidResult, match="identical"):
        job.parse([write, number, text("wrong_candidate", "story", "小明很喜欢他的猫。"), good[3]], data, hidden)
    assert job.parse([choice("decision", "story", ["reject"])], data, hidden) == {"rejected": True}
    # a task pushed by an older lotdata offered the sentence numbers 2..n: its answers keep their meaning
    old = {**data, "sentence_choices": [{"value": str(k)} for k in range(2, 5)]}
    assert job.parse([write, choice("mask_sentence", "story", ["3"])] + good[2:], old, hidden)["index"] == 2
    assembled = job.assemble([annotation("clozet-s", data, "a", job.parse(good, data, hidden), hidden=hidden)])
    [out] = assembled["clozet"]
    assert out["context"] == "小明养了一只猫。猫每天都抓老鼠。<mask>他们是好朋友。" and sorted(
        out["candidates"]
    ) == sorted(["小明很喜欢他的猫。", "小明想把他的猫卖掉。"])
    assert assembled["stats"]["policies"] == {"reaction_intention": 1}


def test_human_eval_tasks_hide_the_system_from_the_view():
    job = get_job("human_eval")
    rows = [
        {"input_id": 7, "input": "输入", "system": name, "output": f"输出{k}"}
        for k, name in enumerate(("gpt2", "mt5", "longlm"))
    ]
    [task] = job.to_tasks(rows)
    assert task["data"]["uid"].startswith("eval-") and "7" not in task["data"]["uid"]
    assert not any(name in json.dumps(task["data"]) for name in ("gpt2", "mt5", "longlm"))
    assert sorted(task["hidden"]["slots"].values()) == ["gpt2", "longlm", "mt5"]
    assert "$system" not in job.template.xml
    values = job.parse(
        [
            choice(f"{a}_{s}", f"output_{s}", ["1"])
            for a in ("grammaticality", "coherence", "relatedness")
            for s in "ABC"
        ],
        task["data"],
        task["hidden"],
    )
    assert values["coherence_B"] == 1 and len(values) == 9
    assert json.loads(json.dumps(values)) == values


def test_clozet_write_splits_are_grouped_seeded_and_never_unasked(tmp_path):
    from helpers import write_stories

    texts = [
        f"第{i}个故事开始了，天气很好。小明出门去上学了。他在路上捡到了一只小猫。于是他把小猫带回了家。"
        for i in range(9)
    ]
    path = write_stories(tmp_path / "s.parquet", texts)
    load = partial(get_job("clozet_write").load, words=(0, 0))  # short stories: no length bound here
    rows = load(path, ["val", "test"])
    assert len(rows) == 9 and {r["split"] for r in rows} == {"val", "test"}
    assert abs(sum(r["split"] == "val" for r in rows) - sum(r["split"] == "test" for r in rows)) == 1
    assert [r["split"] for r in load(path, ["val", "test"])] == [r["split"] for r in rows]  # seeded
    assert {r["split"] for r in load(path, ["train=0.5", "val=0.25", "test=0.25"])} <= {"train", "val", "test"}
    with pytest.raises(ValueError, match="unknown split"):
        load(path, ["dev"])


def test_clozet_write_takes_the_filtered_stories_of_50_to_500_words_with_their_own_sentences(tmp_path):
    from helpers import write_stories

    from lotdata.text import count_words

    long_text = (
        "小明出门去上学了，天气很好。"
        + "他在路上看见一只受伤的小猫，就停下来照顾它。" * 4
        + "短。"
        + "最后他把小猫带回了家。"
    )
    short_text = "小明出门了。他捡到一只猫。他回家了。"
    assert count_words(long_text, "zh") >= 50 > count_words(short_text, "zh")
    path = write_stories(
        tmp_path / "s.parquet", [long_text, long_text + "他很开心。", short_text, long_text + "猫睡了。"]
    )
    table = pq.read_table(path).to_pylist()
    for row, status in zip(table, ("accepted", "raw", "rewritten", "rejected")):
        row["status"] = status
    pq.write_table(pa.Table.from_pylist(table, schema=pq.read_schema(path)), path)
    rows = get_job("clozet_write").load(path, ["test"])
    assert [r["status"] for r in rows] == ["accepted"]  # raw and rejected left out; the rewritten one is too short
    assert rows[0]["sentences"] == table[0]["sentences"] and any(
        s == "短。" for s in rows[0]["sentences"]
    )  # not merged
    everything = get_job("clozet_write").load(path, ["test"], words=(0, 0))
    assert sorted(r["status"] for r in everything) == ["accepted", "rewritten"]
