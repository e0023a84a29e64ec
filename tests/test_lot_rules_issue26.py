"""Issue 26's remaining LOT rules: story filtering (rewrite length in characters, punctuation), ClozeT writing
(rule 2.2a entities, the input's length range), human evaluation with the ground truth, human performance per split.

The stories here are our own, written in the spirit of the appendix's examples (never copied)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.annotate.checks import CheckOptions, run_checks, zh_punctuation
from lotdata.annotate.jobs import Annotation, get_job
from lotdata.annotate.template import InvalidResult
from lotdata.cli import app
from lotdata.tasks.segments import story_as_segment
from lotdata.text import count_words


def choice(name, to, values):
    return {"from_name": name, "to_name": to, "type": "choices", "value": {"choices": values}}


def text(name, to, value):
    return {"from_name": name, "to_name": to, "type": "textarea", "value": {"text": [value]}}


def ann(task, who, values, n=1):
    return Annotation(uid=task["data"]["uid"], data=task["data"], annotator=who, annotation_id=n,
                      created_at=f"2026-01-01T00:00:{n:02d}", values=values, hidden=task["hidden"])


SEGMENT = "一只山羊在河边吃草。它看见对岸的草更绿，就想过河去。河水很急，山羊站在岸边犹豫了很久。"
#: 150 characters more than the segment (72 jieba words, with the marks)
LONGER = SEGMENT + "小山羊小心翼翼地沿着弯弯曲曲的河岸寻找合适的渡口。" * 6


def filter_task():
    story = {"story_id": "goat", "title": "山羊过河", "text": SEGMENT, "sentences": [], "lang": "zh", "source": "ours",
             "url": None, "license": "CC0", "fetched_at": None}
    [task] = get_job("story_filter").to_tasks([story_as_segment(story)])
    return task


def test_a_rewrite_150_characters_longer_is_refused_though_it_is_under_100_words_longer():
    added = LONGER[len(SEGMENT):]
    assert len(added) == 150 and count_words(added, "zh") < 100  # the words check let it through
    task = filter_task()
    job = get_job("story_filter")
    with pytest.raises(InvalidResult, match="150 characters longer or shorter than the segment \\(at most 100\\)"):
        job.parse([choice("decision", "story", ["rewrite"]), text("rewritten", "story", LONGER)], task["data"], task["hidden"])
    fine = SEGMENT + "山羊找来一根木头放进水里。" * 7  # 91 characters more
    values = job.parse([choice("decision", "story", ["rewrite"]), text("rewritten", "story", fine)], task["data"], task["hidden"])
    assert values["decision"] == "rewrite"


def test_a_rewrite_with_other_punctuation_is_flagged_at_pull_not_refused():
    job = get_job("story_filter")
    task = filter_task()
    quoted = "山羊说：“我要过河。”它找来一根木头、一块石头——最后过了河。"
    values = job.parse([choice("decision", "story", ["rewrite"]), text("rewritten", "story", quoted)], task["data"], task["hidden"])
    out = job.assemble([ann(task, "a", values)])
    assert out["stories"][0]["flags"] == ["zh_punctuation"] and out["stats"]["flagged"] == {"zh_punctuation": 1}
    clean = job.parse([choice("decision", "story", ["rewrite"]), text("rewritten", "story", "山羊想过河。它找来木头；过了河！真好……《山羊》完？")],
                      task["data"], task["hidden"])
    assert job.assemble([ann(task, "a", clean)])["stories"][0]["flags"] == []


@pytest.mark.parametrize("story, marks", [
    ("山羊说：“我要过河。”", ["：", "“", "”"]),
    ("它找来木头、石头和绳子。", ["、"]),
    ("它过了河——真高兴!", ["—", "!"]),
    ("它过了河，真高兴！（完）", ["（", "）"]),
    ("它想了想；还是过河吧……《过河》。", []),
])
def test_only_lot_punctuation_in_a_chinese_story(story, marks):
    found = zh_punctuation({"id": "1", "text": story}, CheckOptions(lang="zh"))
    assert (found == []) if not marks else all(m in found[0] for m in marks)
    assert zh_punctuation({"id": "1", "text": story}, CheckOptions(lang="en")) == []  # a Chinese rule only


def test_annotate_check_story_filter_runs_the_jobs_rules_on_a_file(tmp_path):
    rows = [{"id": "long", "text": LONGER, "original": SEGMENT},
            {"id": "quotes", "text": "山羊说：“我要过河。”", "original": SEGMENT},
            {"id": "good", "text": SEGMENT + "它找来木头，过了河。", "original": SEGMENT}]
    path = tmp_path / "rewrites.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(app, ["annotate", "check", "story_filter", "--input", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 5, result.output
    flags = pq.read_table(tmp_path / "out" / "flags.parquet").to_pylist()
    assert {(f["id"], f["rule"]) for f in flags} == {("long", "rewrite_length"), ("quotes", "zh_punctuation")}
    summary = json.loads((tmp_path / "out" / "check.json").read_text())
    assert summary["lang"] == "zh" and summary["per_rule"] == {"rewrite_length": 1, "zh_punctuation": 1}
    # without the segment the length rule cannot apply: it says so instead of passing silently
    only = run_checks([{"id": "x", "text": "它过了河。"}], ("rewrite_length", "zh_punctuation"), CheckOptions(lang="zh"))
    assert "rewrite_length" in only.skipped and only.flags == []


# ---------------------------------------------------------------- ClozeT rule 2.2a: no new thing, role or place

#: our own fable in the spirit of the appendix's deer and horse (a new animal appears in the bad candidate)
FABLE = ["从前，山羊和野猪为了一片菜园吵个不停。", "它们都想独占这片菜园。", "山羊用它锋利的犄角赶走了野猪。",
         "野猪觉得这口气咽不下去。", "后来野猪请来一个猎人，猎人赶走了山羊，也把野猪关进了笼子。"]
MASKED = 2


def test_a_candidate_bringing_a_new_animal_is_flagged_and_the_good_ones_pass():
    from lotdata.annotate.checks import new_entities

    story = "".join(FABLE)
    assert new_entities("野猪叫来好朋友狐狸一起赶走了山羊。", story) == ["朋友", "狐狸"]  # the "donkey" case
    assert new_entities("野猪用它粗壮的獠牙赶走了山羊。", story) == []  # a part of a known animal, like the front hooves
    assert new_entities("后来猎人把山羊和野猪都放回了菜园。", story) == []  # every one of them is in the story


def test_clozet_write_flags_rule_2_2a_at_pull_and_annotate_check_runs_it(tmp_path):
    job = get_job("clozet_write")
    row = {"story_id": "fable", "split": "val", "lang": "zh", "sentences": FABLE, "license": "CC0"}
    [task] = job.to_tasks([row])
    def answer(wrong):
        return job.parse([choice("decision", "story", ["write"]), choice("mask_sentence", "story", [str(MASKED)]),
                          text("wrong_candidate", "story", wrong), choice("policy", "story", ["reaction_intention"])],
                         task["data"], task["hidden"])
    flagged = job.assemble([ann(task, "a", answer("野猪叫来好朋友狐狸一起赶走了山羊。"))])
    assert flagged["stats"]["flagged"] == [{"example_id": task["data"]["uid"], "rule": "clozet_entities", "words": ["朋友", "狐狸"]}]
    assert len(flagged["clozet"]) == 1  # flagged for review, not dropped
    assert "flagged" not in job.assemble([ann(task, "a", answer("野猪用它粗壮的獠牙赶走了山羊。"))])["stats"]
    rows = [{"id": "fox", "context": FABLE[:MASKED] + FABLE[MASKED + 1 :], "original": FABLE[MASKED], "wrong_candidate": "野猪叫来好朋友狐狸一起赶走了山羊。"},
            {"id": "tusks", "context": FABLE[:MASKED] + FABLE[MASKED + 1 :], "original": FABLE[MASKED], "wrong_candidate": "野猪用它粗壮的獠牙赶走了山羊。"}]
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    result = CliRunner().invoke(app, ["annotate", "check", "clozet_write", "--input", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 5, result.output
    flags = pq.read_table(tmp_path / "out" / "flags.parquet").to_pylist()
    assert [(f["id"], f["rule"]) for f in flags] == [("fox", "clozet_entities")] and "狐狸" in flags[0]["detail"]


# ---------------------------------------------------------------- ClozeT input: filtered stories of 50-500 words

def _story(sid, status, sentence, times):
    from lotdata.text import split_sentences

    text = sentence * times
    return {"story_id": sid, "title": sid, "text": text, "sentences": split_sentences(text, "zh"), "lang": "zh",
            "source": "ours", "source_id": None, "url": None, "license": "CC0", "fetched_at": None, "status": status, "flags": []}


def test_clozet_write_takes_filtered_stories_of_50_to_500_words_unmerged(tmp_path):
    from lotdata.annotate.jobs.clozet_write import load
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows

    sentence = "山羊走到河边看了看。"  # 6 jieba words with the mark; "好。" is a sentence under 10 characters
    rows = [_story("kept", "accepted", sentence + "好。", 10), _story("rewritten", "rewritten", sentence, 12),
            _story("raw", "raw", sentence, 12), _story("rejected", "rejected", sentence, 12),
            _story("short", "accepted", sentence, 4), _story("long", "accepted", sentence, 90)]
    path = tmp_path / "stories.parquet"
    write_parquet(table_from_rows(rows, STORIES), path)
    got = {s["story_id"]: s for s in load(path, None)}
    assert set(got) == {"kept", "rewritten"}  # a filtered table: raw, rejected, under 50 and over 500 words left out
    assert got["kept"]["sentences"].count("好。") == 10  # short sentences are not merged into their neighbours
    assert {s["story_id"] for s in load(path, None, words=(20, 1000))} == {"kept", "rewritten", "short", "long"}
    raw_only = tmp_path / "raw.parquet"
    write_parquet(table_from_rows([_story("a", "raw", sentence, 12), _story("b", "rejected", sentence, 12)], STORIES), raw_only)
    assert [s["story_id"] for s in load(raw_only, None)] == ["a"]  # never filtered: every story not rejected


# ---------------------------------------------------------------- human evaluation with the ground truth (Table 12's Truth row)

def _eval_outputs(tmp_path, truth_as="column"):
    rows = [{"input_id": i, "input": f"开头{i}", "system": s, "output": f"{s}写的结尾{i}", "task": "plotcom",
             **({"truth": f"原来的结尾{i}"} if truth_as == "column" else {})}
            for i in range(3) for s in ("gpt2", "longlm", "mt5")]
    if truth_as == "rows":
        rows += [{"input_id": i, "input": f"开头{i}", "system": "Truth", "output": f"原来的结尾{i}", "task": "plotcom"} for i in range(3)]
    path = tmp_path / f"outputs_{truth_as}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("truth_as", ["column", "rows"])
def test_human_eval_truth_rates_the_ground_truth_beside_three_systems(tmp_path, truth_as):
    from lotdata.annotate.jobs import table12_markdown

    job = get_job("human_eval_truth")
    rows = job.load(_eval_outputs(tmp_path, truth_as), None)
    tasks = job.to_tasks(rows, seed=0)
    assert len(tasks) == 3 and all(sorted(t["hidden"]["slots"].values()) == ["Truth", "gpt2", "longlm", "mt5"] for t in tasks)
    truth_slot = {t["data"]["uid"]: next(k for k, v in t["hidden"]["slots"].items() if v == "Truth") for t in tasks}
    anns = []
    for n, task in enumerate(tasks):
        result = [choice(f"{aspect}_{slot}", f"output_{slot}", ["1" if slot == truth_slot[task["data"]["uid"]] else "0"])
                  for slot in "ABCD" for aspect in ("grammaticality", "coherence", "relatedness")]
        anns.append(ann(task, "r1", job.parse(result, task["data"], task["hidden"]), n + 1))
    out = job.assemble(anns)
    assert list(out["table12"]) == ["gpt2", "longlm", "mt5", "Truth"]  # the Truth row last, as in LOT Table 12
    assert out["table12"]["Truth"]["coherence"] == 1.0 and out["table12"]["gpt2"]["coherence"] == 0.0
    assert "| Truth | 3 | 1.00 | 1.00 | 1.00 |" in table12_markdown(out["table12"])


def test_human_eval_points_to_the_truth_job_and_no_longer_cites_table12_for_three(tmp_path):
    from lotdata.errors import InputError

    with pytest.raises(InputError, match="human_eval_truth"):
        get_job("human_eval").load(_eval_outputs(tmp_path, "column"), None)
    two = tmp_path / "two.jsonl"
    two.write_text("".join(json.dumps({"input_id": 1, "input": "x", "system": s, "output": "y"}) + "\n" for s in ("a", "b")), encoding="utf-8")
    with pytest.raises(InputError) as error:
        get_job("human_eval").load(two, None)
    assert "our screen's layout" in str(error.value) and "ground truth" in str(error.value)
    no_truth = tmp_path / "none.jsonl"
    no_truth.write_text("".join(json.dumps({"input_id": 1, "input": "x", "system": s, "output": "y"}) + "\n" for s in ("a", "b", "c")), encoding="utf-8")
    with pytest.raises(InputError, match="input_id '1' has no ground truth"):
        get_job("human_eval_truth").load(no_truth, None)


# ---------------------------------------------------------------- human performance per split (LOT Table 10)

def _perf_rows(per_split):
    return [{"_task": "clozet", "example_id": f"{split}{i}", "split": split, "context": "甲。<mask>丙。", "candidates": ["乙。", "丁。"],
             "label": i % 2} for split in ("val", "test") for i in range(per_split)]


def test_human_perf_draws_100_of_each_split_and_reports_each_split():
    from lotdata.annotate.workflow import sample_per_group

    job = get_job("human_perf")
    drawn = sample_per_group(_perf_rows(150), job.default_sample, 0, job.sample_key, job.sample_group)
    assert sum(r["split"] == "val" for r in drawn) == 100 and sum(r["split"] == "test" for r in drawn) == 100
    assert drawn == sample_per_group(_perf_rows(150), 100, 0, job.sample_key, job.sample_group)  # seeded
    tasks = job.to_tasks(_perf_rows(3))
    anns = []
    for k, task in enumerate(tasks):  # val0 answered wrong by the majority: val 2/3, test 3/3
        right = task["hidden"]["answer"]
        given = (3 - right) if task["hidden"]["example_id"] == "val0" else right
        anns += [ann(task, f"r{r}", job.parse([choice("answer", "question", [str(given)])], task["data"], task["hidden"]), k * 3 + r)
                 for r in range(3)]
    report = job.assemble(anns)["human_perf"]["clozet"]
    assert report["accuracy"] == round(5 / 6, 4) and report["splits"]["val"]["accuracy"] == round(2 / 3, 4)
    assert report["splits"]["test"]["accuracy"] == 1.0 and report["splits"]["test"]["n_items"] == 3


def test_baseline_table_human_uses_the_splits_figure_and_reads_old_files(tmp_path):
    from lotdata.errors import InputError
    from lotdata.metrics import load_human_performance

    new = tmp_path / "new.json"
    new.write_text(json.dumps({"clozet": {"accuracy": 0.98, "splits": {"val": {"accuracy": 0.99}, "test": {"accuracy": 0.97}}}}))
    assert load_human_performance(new, split="val") == {("clozet", "accuracy"): 0.99}
    assert load_human_performance(new, split="test") == {("clozet", "accuracy"): 0.97}
    assert load_human_performance(new) == {("clozet", "accuracy"): 0.98}  # no split asked: the pooled figure
    with pytest.raises(InputError, match="split\\(s\\) test, val, not 'train'"):
        load_human_performance(new, split="train")
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"clozet": {"accuracy": 0.95, "n_items": 100}}))
    assert load_human_performance(old, split="val") == load_human_performance(old, split="test") == {("clozet", "accuracy"): 0.95}
