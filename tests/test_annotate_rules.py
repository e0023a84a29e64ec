"""The papers' rules in the annotation jobs (issue 14 part B) and story segments (issue 15 item 1).

No Label Studio here: results are built as Label Studio stores them and go through the same parse/assemble code.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pyarrow.parquet as pq
import pytest
from labelstudio_support import annotation as ann
from typer.testing import CliRunner

from lotdata.annotate.agreement import fleiss_kappa
from lotdata.annotate.jobs import (
    JOBS,
    VERIFY_READING,
    get_job,
    opaque_uid,
    sample_rows,
    sign_test,
    wrong_candidate_problem,
)
from lotdata.annotate.template import InvalidResult, load_template
from lotdata.annotate.workflow import HUMAN_PERF_FILE, write_assembled
from lotdata.cli import app
from lotdata.tasks.segments import cut_segment, cut_segments, story_as_segment
from lotdata.text import count_words


def choice(name, to, values):
    return {"from_name": name, "to_name": to, "type": "choices", "value": {"choices": values}}


def text(name, to, value):
    return {"from_name": name, "to_name": to, "type": "textarea", "value": {"text": [value]}}


# ---------------------------------------------------------------- screens


@pytest.mark.parametrize("name", sorted(JOBS))
def test_every_option_has_a_chinese_label_a_stored_code_and_a_fixed_hotkey(name):
    root = ET.fromstring(load_template(name).xml)
    keys = []
    for choices in root.iter("Choices"):
        for option in choices.iter("Choice"):
            assert "alias" in option.attrib, (name, option.attrib)  # the stored code
            assert any("\u4e00" <= ch <= "\u9fff" for ch in option.attrib["value"]), (
                option.attrib
            )  # what the rater reads
            keys.append(option.attrib.get("hotkey"))
        if not list(choices.iter("Choice")):
            assert choices.attrib["value"].startswith(
                "$"
            )  # numbered options: Label Studio's 1, 2, ... = option 1, 2, ...
    assert None not in keys and len(keys) == len(set(keys)), (name, keys)
    # every object shown to the rater is introduced by a label (a Header right before it)
    for view in root.iter("View"):
        children = list(view)
        for i, child in enumerate(children):
            if child.tag == "Text" and child.attrib["name"] not in ("title",):
                assert i > 0 and children[i - 1].tag == "Header", (name, child.attrib)


def test_conditional_fields_show_only_when_they_apply_and_are_required_there():
    story_filter = load_template("story_filter").controls
    assert story_filter["rewritten"].conditional and story_filter["rewritten"].required
    assert story_filter["reason"].conditional and story_filter["reason"].required
    clozet = load_template("clozet_write").controls
    assert all(clozet[c].conditional and clozet[c].required for c in ("mask_sentence", "wrong_candidate", "policy"))
    assert clozet["decision"].required and not clozet["decision"].conditional
    senpos = load_template("senpos_refine").controls
    # gaps are not required at submit: a reject needs none (pull checks a gap for every other verdict)
    assert senpos["verdict"].required and not senpos["gaps"].required and senpos["revised_story"].conditional
    xml = load_template("story_filter").xml
    assert 'whenChoiceValue="rewrite"' in xml and 'whenChoiceValue="reject"' in xml


def test_story_filter_offers_the_ethics_reject_reasons_and_checks_rewrites():
    controls = load_template("story_filter").controls
    assert {"ethics_discrimination", "ethics_harmful"} <= set(controls["reason"].choices)
    job = get_job("story_filter")
    story = {
        "story_id": "s1",
        "title": "t",
        "text": "小明出门了。他很开心。",
        "sentences": ["小明出门了。", "他很开心。"],
        "lang": "zh",
        "source": "x",
        "url": None,
        "license": "cc-by-4.0",
        "fetched_at": None,
    }
    [task] = job.to_tasks([story_as_segment(story)])
    with pytest.raises(InvalidResult, match="without a reason"):
        job.parse([choice("decision", "story", ["reject"])], task["data"], task["hidden"])
    too_long = "小明出门了。" * 60
    returned = job.parse(  # not quarantined: back to its rater with the reason (a revision task)
        [choice("decision", "story", ["rewrite"]), text("rewritten", "story", too_long)],
        task["data"],
        task["hidden"],
    )["returned"]
    assert len(returned) == 1 and "at most 100" in returned[0]
    values = job.parse(
        [choice("decision", "story", ["reject"]), choice("reason", "story", ["ethics_discrimination"])],
        task["data"],
        task["hidden"],
    )
    out = job.assemble([ann(task, "a", values)])
    assert out["stories"][0]["status"] == "rejected" and out["stats"]["reject_reasons"] == {"ethics_discrimination": 1}


# ---------------------------------------------------------------- cloze_verify: labels and rule agree


def test_cloze_verify_labels_and_assembly_rule_mean_the_same_thing():
    controls = load_template("cloze_verify").controls
    root = ET.fromstring(load_template("cloze_verify").xml)
    shown = {int(c.attrib["alias"]): c.attrib["value"] for c in root.iter("Choice")}
    assert shown == {1: "合理", 0: "不合理", -1: "无法判断"} and set(VERIFY_READING) == set(shown)
    job = get_job("cloze_verify")
    example = {
        "example_id": "c1",
        "story_id": "s",
        "split": "test",
        "context": "甲。<mask>",
        "candidates": ["错。", "对。"],
        "label": 1,
        "mask_sentence_index": 1,
        "annotator": None,
        "annotation_id": None,
        "lang": "zh",
    }
    tasks = job.to_tasks([example])
    right, wrong = (next(t for t in tasks if t["hidden"]["role"] == role) for role in ("right", "wrong"))
    for t in tasks:
        t["data"]["raters"] = 3

    def rate(task, labels):  # the raters click the Chinese labels; Label Studio stores the alias
        code = {v: str(k) for k, v in shown.items()}
        return [
            ann(task, f"r{i}", job.parse([choice("rating", "story", [code[label]])], task["data"], task["hidden"]), i)
            for i, label in enumerate(labels)
        ]

    everyone_right = rate(right, ["合理"] * 3)
    kept = job.assemble(everyone_right + rate(wrong, ["不合理"] * 3))
    assert [r["example_id"] for r in kept["clozet"]] == ["c1"]  # the wrong ending everyone called unreasonable is kept
    assert job.assemble(everyone_right + rate(wrong, ["不合理", "不合理", "无法判断"]))["stats"]["dropped"] == {
        "cannot_judge": 1
    }
    assert job.assemble(everyone_right + rate(wrong, ["不合理", "合理", "不合理"]))["stats"]["dropped"] == {
        "not_unanimous": 1
    }
    assert controls["rating"].choices == ("1", "0", "-1")


# ---------------------------------------------------------------- senpos_refine: moving is a counted decision


def _senpos_task():
    job = get_job("senpos_refine")
    example = {
        "example_id": "e1",
        "story_id": "s1",
        "split": "test",
        "sentences": ["甲。", "乙。", "丙。", "丁。"],
        "removed": "戊。",
        "label": 2,
        "n_candidates": 3,
        "refined": False,
        "lang": "zh",
    }
    return job, job.to_tasks([example])[0]


def test_senpos_a_gap_other_than_the_original_needs_the_move_decision():
    job, task = _senpos_task()
    with pytest.raises(InvalidResult, match="not the original gap"):
        job.parse([choice("gaps", "story", ["3"]), choice("verdict", "story", ["keep"])], task["data"], task["hidden"])
    with pytest.raises(InvalidResult, match="other than the original"):
        job.parse([choice("gaps", "story", ["2"]), choice("verdict", "story", ["move"])], task["data"], task["hidden"])
    moved = job.parse(
        [choice("gaps", "story", ["3"]), choice("verdict", "story", ["move"])], task["data"], task["hidden"]
    )
    out = job.assemble([ann(task, "a", moved)])
    assert out["senpos"][0]["label"] == 3 and out["stats"]["moved"] == 1 and out["stats"]["moved_unconfirmed"] == 1
    assert out["stats"]["moved_examples"][0] == {
        "example_id": "e1",
        "from": 2,
        "to": 3,
        "raters_agreeing": 1,
        "raters": 1,
        "confirmed": False,
    }
    keep = job.parse(
        [choice("gaps", "story", ["2"]), choice("verdict", "story", ["keep"])], task["data"], task["hidden"]
    )
    three = job.assemble([ann(task, "a", moved, 1), ann(task, "b", moved, 2), ann(task, "c", keep, 3)])
    assert three["senpos"][0]["label"] == 3 and three["stats"]["moved_examples"][0]["confirmed"] is True
    assert job.assemble([ann(task, "a", keep)])["stats"]["moved"] == 0


# ---------------------------------------------------------------- clozet_write: the appendix's rules and a vote


@pytest.mark.parametrize(
    "wrong, problem",
    [
        ("", "empty"),
        ("小明很喜欢他的猫。", "identical"),
        ("讨厌。", "outside 1/2 to 2"),
        ("天空飘着很多白色云朵。", "no content word"),
        ("小明不喜欢他的猫。", "only by negation"),
        ("小明很讨厌他的猫。", None),
    ],
)
def test_wrong_candidate_rules_from_the_appendix(wrong, problem):
    context = ["小明养了一只猫。", "猫每天都抓老鼠。"]
    found = wrong_candidate_problem(wrong, "小明很喜欢他的猫。", context, "zh")
    assert (found is None) if problem is None else (problem in found)


def test_clozet_write_several_raters_vote_instead_of_the_earliest_answer():
    job = get_job("clozet_write")
    row = {
        "story_id": "s",
        "split": "val",
        "lang": "zh",
        "sentences": ["小明养了一只猫。", "猫每天都抓老鼠。", "小明很喜欢他的猫。", "他们是好朋友。"],
    }
    [task] = job.to_tasks([row])
    assert task["predictions"][0]["result"][1]["value"]["choices"] == [
        "1"
    ]  # choice 1 = sentence 2: a middle one, not the last

    def answer(number, wrong):  # number: the choice shown, 1 = sentence 2
        return job.parse(
            [
                choice("decision", "story", ["write"]),
                choice("mask_sentence", "story", [str(number)]),
                text("wrong_candidate", "story", wrong),
                choice("policy", "story", ["reaction_intention"]),
            ],
            task["data"],
            task["hidden"],
        )

    first = ann(task, "early", answer(1, "猫每天都怕老鼠。"), 1)  # earliest, but outvoted on the sentence
    second = ann(task, "b", answer(2, "小明想把他的猫卖掉。"), 2)
    third = ann(task, "c", answer(2, "小明想把他的猫卖掉。"), 3)
    [example] = job.assemble([first, second, third])["clozet"]
    assert example["mask_sentence_index"] == 2 and "小明想把他的猫卖掉。" in example["candidates"]
    # no majority on the wording: a seeded pick, the same whichever answer came first
    a, b = answer(2, "小明想把他的猫卖掉。"), answer(2, "小明很害怕他的猫。")
    picks = {
        job.assemble([ann(task, "x", a, i), ann(task, "y", b, j)])["clozet"][0]["candidates"][0:2].__repr__()
        for i, j in ((1, 2), (2, 1))
    }
    assert len(picks) == 1
    assert job.assemble([ann(task, "x", a, 1), ann(task, "y", answer(1, "猫每天都怕老鼠。"), 2)])["stats"][
        "dropped"
    ] == {"no_majority": 1}


# ---------------------------------------------------------------- human_eval


def _outputs(n_inputs):
    return [
        {"input_id": i, "input": f"输入{i}", "system": s, "output": f"{s}-{i}", "task": "plotcom"}
        for i in range(n_inputs)
        for s in ("gpt2", "longlm", "mt5")
    ]


def test_human_eval_side_by_side_in_a_seeded_shuffled_order():
    job = get_job("human_eval")
    tasks = job.to_tasks(_outputs(12), seed=0)
    assert len(tasks) == 12 and tasks == job.to_tasks(_outputs(12), seed=0)
    orders = {tuple(t["hidden"]["slots"].values()) for t in tasks}
    assert len(orders) > 1  # the slot of a system changes from input to input
    assert [t["hidden"]["slots"] for t in tasks] != [t["hidden"]["slots"] for t in job.to_tasks(_outputs(12), seed=1)]
    for t in tasks:
        assert t["data"][f"output_{next(k for k, v in t['hidden']['slots'].items() if v == 'gpt2')}"].startswith("gpt2")
        assert not {"gpt2", "mt5", "longlm"} & set(
            json.dumps(t["data"]).replace("gpt2-", "").replace("mt5-", "").replace("longlm-", "").split('"')
        )


def test_human_eval_kappa_per_system_and_cell_and_a_sign_test():
    job = get_job("human_eval")
    tasks = job.to_tasks(_outputs(10), seed=3)
    anns = []
    for k, task in enumerate(tasks):
        for r in range(3):
            values = {}
            for slot, system in task["hidden"]["slots"].items():
                good = {"longlm": 1, "gpt2": int(k < 2), "mt5": int(r == 0)}[system]
                values.update({f"{a}_{slot}": good for a in ("grammaticality", "coherence", "relatedness")})
            anns.append(
                ann(
                    task,
                    f"r{r}",
                    job.parse(
                        [choice(name, f"output_{name[-1]}", [str(v)]) for name, v in values.items()],
                        task["data"],
                        task["hidden"],
                    ),
                    k * 3 + r,
                )
            )
    out = job.assemble(anns)
    assert out["table12"]["longlm"]["coherence"] == 1.0 and out["table12"]["gpt2"]["coherence"] == 0.2
    assert out["table12"]["gpt2"]["kappa_coherence"] == 1.0
    assert out["table12"]["mt5"]["kappa"] < 0  # one rater of three always disagrees
    expected = fleiss_kappa({i: [1, 0, 0] for i in range(10)})
    assert out["table12"]["mt5"]["kappa_grammaticality"] == round(expected, 4)
    test = next(
        t
        for t in out["sign_tests"]
        if {t["system_a"], t["system_b"]} == {"gpt2", "longlm"} and t["aspect"] == "coherence"
    )
    assert (test["a_better"], test["b_better"], test["ties"]) == (0, 8, 2) and test["p_value"] == round(2 * 0.5**8, 6)
    assert sign_test(0, 0) is None


def test_sampler_draws_whole_inputs_seeded():
    rows = _outputs(30)
    key = get_job("human_eval").sample_key
    drawn = sample_rows(rows, 10, 7, key)
    assert len(drawn) == 30 and len({r["input_id"] for r in drawn}) == 10
    assert drawn == sample_rows(rows, 10, 7, key) and drawn != sample_rows(rows, 10, 8, key)
    assert len(sample_rows(rows, 100, 7, key)) == 90


# ---------------------------------------------------------------- human_perf


def test_human_perf_hides_the_answers_and_writes_the_human_performance_file(tmp_path):
    job = get_job("human_perf")
    clozet = [
        {
            "_task": "clozet",
            "example_id": f"c{i}",
            "split": "test",
            "context": "甲。<mask>丙。",
            "candidates": ["乙。", "丁。"],
            "label": i % 2,
        }
        for i in range(4)
    ]
    senpos = [
        {
            "_task": "senpos",
            "example_id": f"p{i}",
            "split": "test",
            "sentences": ["甲。", "乙。", "丙。"],
            "removed": "丁。",
            "label": 1 + i % 2,
        }
        for i in range(2)
    ]
    tasks = job.to_tasks(clozet + senpos)
    for t in tasks:
        assert "label" not in json.dumps(t["data"]) and t["data"]["uid"].startswith("perf-") and "answer" in t["hidden"]
    anns = []
    for k, task in enumerate(tasks):
        right = task["hidden"]["answer"]
        wrong = 1 if right == 2 else 2
        answers = [right, right, right] if k != 0 else [wrong, wrong, right]  # item 0: the majority is wrong
        anns += [
            ann(
                task,
                f"r{r}",
                job.parse([choice("answer", "question", [str(a)])], task["data"], task["hidden"]),
                k * 3 + r,
            )
            for r, a in enumerate(answers)
        ]
    report = job.assemble(anns)["human_perf"]
    assert (
        report["clozet"]["accuracy"] == 0.75 and report["clozet"]["n_items"] == 4 and report["clozet"]["n_raters"] == 3
    )
    assert report["senpos"]["accuracy"] == 1.0 and report["senpos"]["fleiss_kappa"] is not None
    write_assembled("human_perf", {"human_perf": report}, tmp_path, {})
    on_disk = json.loads((tmp_path / HUMAN_PERF_FILE).read_text())
    assert set(on_disk) == {"clozet", "senpos"} and 0 <= on_disk["clozet"]["accuracy"] <= 1
    assert {"accuracy", "fleiss_kappa", "n_items", "n_raters"} <= set(on_disk["senpos"])


# ---------------------------------------------------------------- the card after a pull


def test_card_after_a_senpos_pull_is_truthful(tmp_path):
    job, task = _senpos_task()
    task["hidden"]["source"] = {
        "input": "built/senpos",
        "licenses": ["cc-by-4.0"],
        "push_command": "lotdata annotate push senpos_refine --input built/senpos --project p --raters 1",
    }
    other = job.to_tasks([{**task["hidden"]["example"], "example_id": "e2", "split": "val"}])[0]
    other["hidden"]["source"] = task["hidden"]["source"]
    keep = job.parse(
        [choice("gaps", "story", ["2"]), choice("verdict", "story", ["keep"])], task["data"], task["hidden"]
    )
    reject = job.parse(
        [choice("gaps", "story", ["2"]), choice("verdict", "story", ["reject"])], other["data"], other["hidden"]
    )
    valid = [ann(task, "a", keep, 1), ann(other, "a", reject, 2)]
    from lotdata.annotate.workflow import provenance

    assembled = job.assemble(valid)
    write_assembled(
        "senpos_refine",
        assembled,
        tmp_path,
        {"job": "senpos_refine"},
        provenance(valid, "senpos_refine", "p", tmp_path),
    )
    card = (tmp_path / "senpos" / "README.md").read_text()
    assert "every row of test was refined" in card and "not refined by annotators" not in card
    assert "| annotated items | rejected | 1 |" in card and "Nothing was dropped" not in card
    assert (
        "license: cc-by-4.0" in card
        and "cc-by-4.0" in json.loads((tmp_path / "senpos" / "manifest.json").read_text())["licenses"]
    )
    assert (
        "lotdata annotate push senpos_refine --input built/senpos" in card
        and "lotdata annotate pull senpos_refine --project p --out" in card
    )


# ---------------------------------------------------------------- story segments (issue 15 item 1), real stories


@pytest.fixture(scope="module")
def cmrc_stories(shared_data, tmp_path_factory):
    from lotdata.datasets.folder import load_stories
    from lotdata.sources.read_stage import ReadParams, read_step

    out = tmp_path_factory.mktemp("cmrc") / "stories.parquet"
    read_step([shared_data / "cmrc2017_children_stories/validation/cloze.valid.doc_query"], out, ReadParams(lang="zh"))
    return out, load_stories([out])[:150]


@pytest.mark.slow
def test_segments_of_real_stories_are_whole_sentences_in_range_seeded_and_traceable(cmrc_stories):
    path, stories = cmrc_stories
    rows, dropped = cut_segments(stories, seed=0)
    assert len(rows) + sum(dropped.values()) == len(stories) and len(rows) > 100
    by_id = {s["story_id"]: s for s in stories}
    for row in rows:
        story = by_id[row["story_id"]]
        assert (
            story["text"][row["start_char"] : row["end_char"]]
            == row["text"]
            == row["story_text"][row["start_char"] : row["end_char"]]
        )
        assert (
            story["sentences"][row["first_sentence"] : row["first_sentence"] + row["n_sentences"]]
            and "".join(story["sentences"][row["first_sentence"] : row["first_sentence"] + row["n_sentences"]])
            == row["text"]
        )
        assert 50 <= row["n_words"] <= 500 and count_words(row["text"]) == row["n_words"]
    assert sum(r["text"] != r["story_text"] for r in rows) > len(rows) / 2  # most are incomplete segments
    assert rows == cut_segments(stories, seed=0)[0]
    assert [r["segment_id"] for r in rows] != [r["segment_id"] for r in cut_segments(stories, seed=1)[0]]
    assert cut_segment({**stories[0], "sentences": ["不在文中的句子。"]})[1] == "sentences_not_in_text"


@pytest.mark.slow
def test_story_filter_on_segments_shows_the_whole_story_beside_the_segment(cmrc_stories, tmp_path):
    path, _ = cmrc_stories
    out = tmp_path / "segments.parquet"
    result = CliRunner().invoke(app, ["build", "segments", "--stories", str(path), "--out", str(out), "--seed", "3"])
    assert result.exit_code == 0, result.output
    job = get_job("story_filter")
    segments = job.load(out, None)
    tasks = job.to_tasks(segments[:5])
    for task, segment in zip(tasks, segments):
        assert task["data"]["text"] == segment["text"] and task["data"]["reference"] == segment["story_text"]
        assert task["hidden"]["segment"]["story_id"] == segment["story_id"]
    values = job.parse([choice("decision", "story", ["accept"])], tasks[0]["data"], tasks[0]["hidden"])
    out_rows = job.assemble([ann(tasks[0], "a", values)])
    assert out_rows["stories"][0]["text"] == segments[0]["text"] and out_rows["stories"][0]["status"] == "accepted"
    assert out_rows["story_decisions"][0]["source_story_id"] == segments[0]["story_id"]
    assert set(pq.read_schema(out).names) >= {"segment_id", "story_id", "start_char", "end_char", "story_text"}


def test_build_segments_errors(tmp_path):
    from helpers import write_stories

    short = write_stories(tmp_path / "s.parquet", ["太短了。就两句。"])
    result = CliRunner().invoke(
        app, ["build", "segments", "--stories", str(short), "--out", str(tmp_path / "o.parquet")]
    )
    assert result.exit_code == 3 and "too_short" in result.output and not (tmp_path / "o.parquet").exists()
    result = CliRunner().invoke(
        app, ["build", "segments", "--stories", str(tmp_path / "missing.parquet"), "--out", str(tmp_path / "o.parquet")]
    )
    assert result.exit_code == 1
    result = CliRunner().invoke(
        app, ["build", "segments", "--stories", str(short), "--out", str(tmp_path / "o.parquet"), "--min-words", "600"]
    )
    assert result.exit_code == 1 and "min-words" in result.output


def test_opaque_uid_is_stable_and_says_nothing():
    assert (
        opaque_uid("verify", "c1", "right")
        == opaque_uid("verify", "c1", "right")
        != opaque_uid("verify", "c1", "wrong")
    )
    assert "right" not in opaque_uid("verify", "c1", "right")


def test_human_eval_needs_three_systems_per_input_and_sample_fits_two_jobs(tmp_path):
    from lotdata.annotate.commands import PushParams
    from lotdata.annotate.workflow import push
    from lotdata.errors import InputError

    outputs = tmp_path / "outputs.jsonl"
    rows = [r for r in _outputs(2) if not (r["input_id"] == 1 and r["system"] == "mt5")]
    outputs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match="input_id '1' has 2 system"):
        get_job("human_eval").load(outputs, None)
    from helpers import write_stories

    stories = write_stories(tmp_path / "s.parquet", ["小明出门了。他很开心。"])
    with pytest.raises(ValueError, match="--sample applies to human_eval, human_eval_truth and human_perf"):
        push(None, PushParams(job="story_filter", input_path=str(stories), project="t", sample=3))
    truth = tmp_path / "truth.jsonl"
    four = _outputs(2) + [{**r, "system": "truth", "output": "原文。"} for r in _outputs(2) if r["system"] == "mt5"]
    truth.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in four), encoding="utf-8")
    with pytest.raises(
        InputError, match="LOT Table 12 rates three and the ground truth: name it 'truth' and push human_eval_truth"
    ):
        get_job("human_eval").load(truth, None)
    assert len(get_job("human_eval_truth").load(truth, None)) == len(four)
    with pytest.raises(InputError, match="three systems and the ground truth"):
        get_job("human_eval_truth").load(outputs, None)
