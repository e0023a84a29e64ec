"""Issue 26: departures from LOT that the builders and the audit now follow, or document."""

from __future__ import annotations

from lotdata.datasets.registry import get_task
from lotdata.datasets.stats import split_stats


def test_senpos_counts_sentences_before_merging_as_lot_table_3_does():
    # the second unit is a short sentence merged with the next one: LOT's figure counts it (positions + 1.5)
    row = {
        "example_id": "e",
        "story_id": "s",
        "split": "test",
        "removed": "被拿走的这一句也足够长。",
        "label": 1,
        "n_candidates": 2,
        "refined": False,
        "lang": "zh",
        "sentences": ["这是第一个很长的句子啊。", "短。这是第二个长句子呀。", "第三个句子也很长很长。"],
    }
    stats = split_stats("senpos", [row])
    assert stats["avg_candidate_positions"] == 2
    assert stats["avg_sents_input"] == 4  # merged units would give 3, always positions + 1


def test_the_senpos_card_says_that_short_source_paragraphs_are_joined():
    limitations = " ".join(get_task("senpos").card_limitations)
    assert "joined to the next one" in limitations and "span a paragraph" in limitations


# ---------------------------------------------------------------- the raters' rules (LOT appendix 1 and 2)

import json  # noqa: E402
import re  # noqa: E402
import xml.etree.ElementTree as ET  # noqa: E402
from pathlib import Path  # noqa: E402

import pyarrow.parquet as pq  # noqa: E402
import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from lotdata.annotate.jobs import get_job, wrong_candidate_problem  # noqa: E402
from lotdata.cli import app  # noqa: E402

TEMPLATES = Path(__file__).resolve().parents[1] / "annotation_templates"
#: a story segment of ours, and a rewrite of it that is 150 characters longer but under 100 words longer
SEGMENT = "小兔子在森林里种了很多胡萝卜。今年的胡萝卜长得特别好。小兔子心里很高兴。一天夜里，它听见地里有动静。"
LONG_REWRITE = SEGMENT + "小兔子怒气冲冲，毫不犹豫地冲了过去。" * 9 + "小兔子很生气，把田鼠一家赶走了。"


def _filter_check(rewritten: str, segment: str = SEGMENT) -> dict:
    return get_job("story_filter").check(
        {"decision": "rewrite", "rewritten": rewritten}, {"text": segment}, {"story": {"lang": "zh"}}
    )


def _found(result: dict, rule: str) -> str:
    """What the check `rule` found in a rewrite: sent back to the rater when the rule refuses, else only counted
    (a rewrite is never quarantined for breaking a check: it goes back to its rater with the reason)."""
    from lotdata.annotate.checks import RULES

    returned, warned = (" ".join(result[k]) for k in ("returned", "warned"))
    assert rule in (returned if RULES[rule].level == "refuse" else warned), result
    return returned + warned


def test_a_rewrite_150_characters_longer_is_refused_though_it_is_under_100_words_longer():
    from lotdata.text import count_words

    added_chars = len(LONG_REWRITE) - len(SEGMENT)
    added_words = count_words(LONG_REWRITE, "zh") - count_words(SEGMENT, "zh")
    assert added_chars > 150 and added_words < 100  # the old check (jieba words) let it through
    found = _found(_filter_check(LONG_REWRITE), "rewrite_length")
    assert re.search(r"\d+ characters longer or shorter than the segment \(at most 100\)", found), found
    ending = "原来是田鼠一家在偷胡萝卜。小兔子很生气，把田鼠一家赶走了。"
    assert _filter_check(SEGMENT + ending)["rewritten"] == SEGMENT + ending


def test_a_rewrite_with_quotation_marks_or_a_colon_is_refused_naming_the_marks():
    # 【】 are outside both LOT's list and what its published stories use (the quotes and the colon are in them)
    assert "punctuation 【 】 used" in _found(_filter_check(SEGMENT + "小兔子喊：【是谁在偷胡萝卜？】"), "punctuation")
    allowed = SEGMENT + "它看了看……原来是田鼠！它读过《田鼠的故事》；它知道该怎么办？"
    assert _filter_check(allowed)["decision"] == "rewrite"


def test_story_filter_screens_carry_the_three_guidelines_of_the_appendix():
    zh = " ".join(h.get("value", "") for h in ET.parse(TEMPLATES / "story_filter.xml").iter("Header"))
    assert "规范的现代汉语" in zh and "？。，！……；《》" in zh and "逗号改成句号" in zh and "100字" in zh
    en = " ".join(h.get("value", "") for h in ET.parse(TEMPLATES / "en" / "story_filter.xml").iter("Header"))
    assert "slang" in en and "punctuation" in en and "one event per sentence" in en


# a story of ours in the spirit of the appendix's 2.2a example (the bad candidate brings in a donkey)
FIELD_STORY = [
    "有一次，鹿和马为了一片草地争吵起来。",
    "大家都想把这片草地占为己有。",
    "这让马无法忍受。",
    "马想了很久，决定找人帮忙。",
    "它找到了一个强壮的猎人。",
    "猎人来到草地上，赶走了鹿。",
]
ORIGINAL = "最后，鹿靠着它强大的角打败了马。"


@pytest.mark.parametrize(
    "candidate, flagged",
    [
        ("最后，马请它的好朋友驴子一起打败了鹿。", ["朋友", "驴子"]),  # the appendix's bad example: a new role
        ("最后，马和一个路过的农夫一起打败了鹿。", ["农夫"]),
        ("最后，马靠着强壮的前蹄打败了鹿。", []),  # a part of a known role is not a new thing the check can tell
        ("最后，马和猎人一起打败了鹿。", []),
    ],
)
def test_rule_2_2a_refuses_a_candidate_naming_a_role_the_story_does_not(candidate, flagged):
    problem = wrong_candidate_problem(candidate, ORIGINAL, FIELD_STORY, "zh")
    if flagged:
        assert problem and "2.2a" in problem and all(word in problem for word in flagged), problem
    else:
        assert problem is None, problem


def test_rule_2_2a_lets_a_candidate_bring_in_what_the_original_brought_in():
    original = "最后，马请来了它的好朋友驴子。"
    assert wrong_candidate_problem("最后，驴子一口吃掉了整片草地和马。", original, FIELD_STORY, "zh") is None


def test_rule_2_2e_is_on_both_clozet_write_screens():
    zh = " ".join(h.get("value", "") for h in ET.parse(TEMPLATES / "clozet_write.xml").iter("Header"))
    en = " ".join(h.get("value", "") for h in ET.parse(TEMPLATES / "en" / "clozet_write.xml").iter("Header"))
    assert "吃饭" in zh and "笼统" in zh and "generic events" in en and "have fun" in en


def test_annotate_check_runs_the_lot_rules_on_files(tmp_path):
    runner = CliRunner()
    rewrites = tmp_path / "rewrites.jsonl"
    rewrites.write_text(
        "\n".join(
            json.dumps(r, ensure_ascii=False)
            for r in (
                {"id": "long", "text": LONG_REWRITE, "segment": SEGMENT},
                {"id": "quoted", "text": SEGMENT + "小兔子说：“是谁？”", "segment": SEGMENT},
                {"id": "bracketed", "text": SEGMENT + "小兔子问【是谁】", "segment": SEGMENT},
                {"id": "fine", "text": SEGMENT + "原来是田鼠。", "segment": SEGMENT},
            )
        )
        + "\n",
        encoding="utf-8",
    )
    result = runner.invoke(
        app, ["annotate", "check", "story_filter", "--input", str(rewrites), "--out", str(tmp_path / "f")]
    )
    assert result.exit_code == 5, result.output  # flagged submissions, like a linter
    flags = {(r["id"], r["rule"]) for r in pq.read_table(tmp_path / "f" / "flags.parquet").to_pylist()}
    # quotes and a colon are LOT's published convention (issue 34); brackets are not
    assert flags == {("long", "rewrite_length"), ("bracketed", "punctuation")}, flags
    result = runner.invoke(
        app,
        ["annotate", "check", "story_filter", "--input", str(rewrites), "--out", str(tmp_path / "s"), "--strict-paper"],
    )
    assert result.exit_code == 5, result.output  # LOT appendix 1 to the letter: the quotes are refused too
    flags = {(r["id"], r["rule"]) for r in pq.read_table(tmp_path / "s" / "flags.parquet").to_pylist()}
    assert flags == {("long", "rewrite_length"), ("bracketed", "punctuation"), ("quoted", "punctuation")}, flags
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "\n".join(
            json.dumps({"id": i, "context": FIELD_STORY, "original": ORIGINAL, "candidate": c}, ensure_ascii=False)
            for i, c in (
                ("donkey", "最后，马请它的好朋友驴子一起打败了鹿。"),
                ("hooves", "最后，马靠着强壮的前蹄打败了鹿。"),
            )
        )
        + "\n",
        encoding="utf-8",
    )
    result = runner.invoke(
        app, ["annotate", "check", "clozet_write", "--input", str(cases), "--out", str(tmp_path / "c")]
    )
    assert result.exit_code == 5, result.output
    flags = pq.read_table(tmp_path / "c" / "flags.parquet").to_pylist()
    assert [(f["id"], f["rule"]) for f in flags] == [("donkey", "context_entities")] and "驴子" in flags[0]["detail"]


def test_push_words_option_is_checked_before_connecting(tmp_path):
    stories = tmp_path / "s.parquet"
    stories.write_bytes(b"")  # never read: the option is refused first
    for bad, says in (("abc", "MIN-MAX in words"), ("500-50", "minimum is above the maximum")):
        result = CliRunner().invoke(
            app,
            ["annotate", "push", "clozet_write", "--input", str(stories), "--project", "p", "--words", bad],
            env={"LABEL_STUDIO_URL": "http://127.0.0.1:9"},
        )
        assert result.exit_code == 1 and says in result.output, result.output
    result = CliRunner().invoke(
        app,
        ["annotate", "push", "story_filter", "--input", str(stories), "--project", "p", "--words", "50-500"],
        env={"LABEL_STUDIO_URL": "http://127.0.0.1:9"},
    )
    assert result.exit_code == 1 and "--words applies to clozet_write, not story_filter" in result.output, result.output


# ---------------------------------------------------------------- human performance per split (LOT 5.3, Table 10)


def test_human_perf_draws_its_sample_in_each_split_and_reports_each_split():
    from lotdata.annotate.jobs import Annotation, sample_rows

    job = get_job("human_perf")
    rows = [
        {"_task": "clozet", "example_id": f"{split}{i}", "split": split}
        for split in ("val", "test")
        for i in range(150)
    ]
    drawn = sample_rows(rows, 100, 0, job.sample_key, job.sample_per)
    assert sum(r["split"] == "val" for r in drawn) == 100 and sum(r["split"] == "test" for r in drawn) == 100

    annotations = []
    for split, wrong in (("val", 1), ("test", 0)):  # val: one item of four answered wrong by every rater
        for i in range(4):
            for rater in ("a", "b", "c"):
                answer = 2 if i < wrong else 1
                annotations.append(
                    Annotation(
                        uid=f"{split}{i}",
                        data={},
                        annotator=rater,
                        annotation_id=len(annotations),
                        created_at=str(len(annotations)),
                        values={"task": "clozet", "answer": answer},
                        hidden={"task": "clozet", "split": split, "answer": 1},
                    )
                )
    report = job.assemble(annotations)["human_perf"]["clozet"]
    assert report["accuracy"] == 0.875 and report["n_items"] == 8
    assert report["splits"]["val"]["accuracy"] == 0.75 and report["splits"]["test"]["accuracy"] == 1.0
    assert report["splits"]["val"]["n_items"] == report["splits"]["test"]["n_items"] == 4


def test_the_results_table_takes_the_human_figure_of_its_split(tmp_path):
    from lotdata.errors import InputError
    from lotdata.metrics import load_human_performance

    path = tmp_path / "human_perf.json"
    path.write_text(
        json.dumps(
            {
                "clozet": {"accuracy": 0.985, "splits": {"val": {"accuracy": 0.99}, "test": {"accuracy": 0.98}}},
                "senpos": {"accuracy": 0.97},
            }
        )
    )  # senpos as an older file writes it: no split
    assert load_human_performance(path, split="val") == {("clozet", "accuracy"): 0.99, ("senpos", "accuracy"): 0.97}
    assert load_human_performance(path, split="test")[("clozet", "accuracy")] == 0.98
    assert load_human_performance(path)[("clozet", "accuracy")] == 0.985  # no split asked: the pooled figure
    with pytest.raises(InputError, match="figures for test, val, none for split 'train'"):
        load_human_performance(path, split="train")
