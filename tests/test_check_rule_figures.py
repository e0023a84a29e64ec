"""Every check rule has measured figures on a tuning and a held-out set, its level follows them, and the conventions
of the published data hold (issue 34 items 1 and 5; DESIGN.md, "How a gate earns trust").

The figures are `lotdata/data/check_rule_figures.json`, written by `benchmarks/bench_check_rules.py`; re-run it
after changing a rule (make bench). The conventions are measured by `benchmarks/conventions.py`.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.annotate.checks import (
    CONVENTION_SENTENCE_CHARS,
    MAX_SENTENCE_CHARS,
    RULES,
    CheckOptions,
    check_rule_names,
    punctuation,
    sentence_length,
)
from lotdata.annotate.rule_figures import load_figures, rule_figures, rules_listing
from lotdata.cli import app
from lotdata.text.style import ALLOWED_PUNCTUATION, CONVENTION_EXTRA_PUNCTUATION, stray_punctuation

REPO = Path(__file__).resolve().parents[1]

#: rules whose planted recall is below the 95% target on some deciding set in the committed figures, its blind figure
#: included where it has one: each is named here so the gap is seen (a rule that reaches the target must leave the
#: list). context_entities: 100% held out on a word list planted while it was fixed; blind list 1 75.0% before the
#: CC-CEDICT/WordNet class lexicon, 88.3% after it, blind list 2 (written before that change) 85.7%; after the
#: noun-head change (lotdata.text.entities_zh) 91.3% and 91.3%, and blind list 3 (written before it, run once) 88.3%;
#: re-run after the ordinary-word fix, on a new draw, 90.0%, 91.3% and 86.7% (the same plants caught on either draw);
#: lists 4 to 9 written before or after the later changes are below it too (bench/check_rules.md), and so is the
#: reader's recall on a hand annotation of real held-out sentences (bench/entity_gold_zh.md: 87.9% and 92.6% on the
#: blind halves) (issue 34)
BELOW_TARGET: set[str] = {"context_entities"}


def _builtin() -> list[str]:
    return [name for name in check_rule_names() if not name.startswith("demo_")]


def test_every_built_in_rule_has_figures_on_a_tuning_and_a_held_out_set():
    figures = load_figures()
    assert figures["warn_above"] > 0 and figures["sets"]
    for name in _builtin():
        found = rule_figures(name)
        assert found, f"{name}: no figures (run benchmarks/bench_check_rules.py)"
        for split in ("tuning", "held-out"):
            sets = [f for f in found if f["split"] == split]
            assert sets, f"{name}: no {split} figures"
            assert any(f["planted"] > 0 for f in sets), f"{name}: nothing planted on the {split} set"
            assert all(f["set"] for f in sets)


def test_a_rule_warns_exactly_when_its_held_out_false_alarms_pass_the_limit():
    limit = load_figures()["warn_above"]
    for name in _builtin():
        rates = [
            f["false_alarm_rate"]
            for f in rule_figures(name)
            if f["split"] == "held-out" and f["deciding"] and f["false_alarm_rate"] is not None
        ]
        advised = "warn" if any(r > limit for r in rates) else "refuse"
        assert RULES[name].level == advised, (name, rates)


def test_planted_violations_are_caught_at_the_target_or_the_gap_is_named():
    target = load_figures()["recall_target"]
    below = {
        name
        for name in _builtin()
        for f in rule_figures(name)
        if f["deciding"]
        # a blind figure counts too: where the recall above it was watched while the rule was tuned, it is the measure
        and any(
            r is not None and r < target
            for r in (f["recall"], *(v for k, v in f.items() if re.fullmatch(r"blind\d*_recall", k)))
        )
    }
    assert below == BELOW_TARGET


def test_antonym_swap_has_a_blind_chinese_held_out_figure():
    """The Chinese held-out antonym figure stopped being blind when two of its planted pairs were added to the
    lexicon (issue 34); a third pair list, planted on held-out sentences no figure used, measures it blind."""
    held = [f for f in rule_figures("antonym_swap") if f["lang"] == "zh" and f["split"] == "held-out"]
    assert len(held) == 1 and held[0]["blind_planted"] >= 100
    assert held[0]["blind_recall"] >= load_figures()["recall_target"]
    assert "(not blind); blind " in rules_listing().split("antonym_swap [")[1]


def test_context_entities_has_a_blind_chinese_held_out_figure():
    """The held-out word list stopped being blind when it was planted on tuning documents while the detector was fixed
    (issue 34); a list written before its only run (benchmarks/context_entities_blind_zh.txt) measures it blind, and
    the listing shows it beside the old figure."""
    held = [f for f in rule_figures("context_entities") if f["split"] == "held-out" and f["lang"] == "zh"]
    assert len(held) == 1 and held[0]["blind_planted"] >= 100
    assert held[0]["blind_caught"] <= held[0]["blind_planted"]
    block = rules_listing().split("context_entities [")[1].split("\n")
    held_line = next(line for line in block if line.strip().startswith("zh candidate held-out"))
    assert "(not blind); blind " in held_line
    # lists 2 to 9, each written and committed before a change to the detector (the CC-CEDICT class lexicon, the
    # noun-head, place-slot, radical and Cilin changes; list 7 after the Cilin change; list 8 before the slot-head
    # change; list 9 after it) and run after it: every one is planted and shown
    for n in range(2, 10):
        assert held[0][f"blind{n}_planted"] >= 100 and held[0][f"blind{n}_caught"] <= held[0][f"blind{n}_planted"]
        assert f"; blind list {n} " in held_line


def test_the_figures_file_holds_counts_and_names_only():
    text = (REPO / "lotdata" / "data" / "check_rule_figures.json").read_text(encoding="utf-8")
    assert "flag_kinds" not in text
    numbered_blind = re.compile(r"blind\d+_(?:planted|caught|recall)")  # blind2_*, blind3_*, ...
    for rule in json.loads(text)["rules"].values():
        for f in rule["figures"]:
            assert {key for key in f if not numbered_blind.fullmatch(key)} <= {
                *("lang", "input", "split", "set", "deciding", "note", "rows", "false_alarms", "false_alarm_rate"),
                *("by_source", "false_alarms_strict", "false_alarm_rate_strict", "planted", "caught", "recall"),
                *("missed_by_source", "seconds", "probe_words", "probe_caught", "probe_missed"),
                *("blind_planted", "blind_caught", "blind_recall"),
            }


def test_annotate_check_rules_lists_each_rule_with_its_level_and_figures():
    result = CliRunner().invoke(app, ["annotate", "check", "--rules"])
    assert result.exit_code == 0, result.output
    for name in _builtin():
        assert f"{name} [{RULES[name].level}]" in result.output
    assert "held-out" in result.output and "planted recall" in result.output
    warned = [name for name in _builtin() if RULES[name].level == "warn"]
    listing = rules_listing()
    for name in warned:
        block = listing.split(f"{name} [warn]")[1].split("\n")[1]
        assert block.strip().startswith("warns:"), block


# ---------------------------------------------------------------- the conventions (item 5)


def test_the_paper_letter_is_an_option():
    row = {"text": "小兔子说：“是谁？”", "segment": "小兔子说是谁？", "lang": "zh"}
    assert not punctuation(row, CheckOptions(lang="zh"))
    assert punctuation(row, CheckOptions(lang="zh", strict_paper=True))
    long = {"sentences": ["x" * 71, "a.", "b.", "c.", "d."], "lang": "en"}
    assert not sentence_length(long, CheckOptions(lang="en"))
    assert sentence_length(long, CheckOptions(lang="en", strict_paper=True))
    assert sentence_length({**long, "sentences": ["x" * 73, *long["sentences"][1:]]}, CheckOptions(lang="en"))
    assert CheckOptions(lang="en", max_chars=50, strict_paper=True).chars("en") == 50  # given: it wins
    assert CheckOptions().chars("zh") == MAX_SENTENCE_CHARS  # no published Chinese five-sentence corpus


@pytest.fixture(scope="module")
def conventions(shared_data):
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import conventions as module
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    return module


def test_lot_own_stories_pass_the_punctuation_check(conventions):
    stories = conventions.lot_stories()
    assert len(stories) == 111
    options = CheckOptions(lang="zh")
    assert [i for i, s in enumerate(stories) if punctuation({"text": s, "segment": s}, options)] == []
    strict = CheckOptions(lang="zh", strict_paper=True)
    assert sum(bool(punctuation({"text": s, "segment": s}, strict)) for s in stories) == 75  # the count


def test_the_conventions_are_what_the_published_data_holds(conventions):
    derived = conventions.derived_punctuation()
    for lang in ("zh", "en"):
        assert set(CONVENTION_EXTRA_PUNCTUATION[lang]) == set(derived[lang]), lang
        assert not set(CONVENTION_EXTRA_PUNCTUATION[lang]) & ALLOWED_PUNCTUATION[lang]
    assert CONVENTION_SENTENCE_CHARS["en"] == conventions.derived_sentence_chars() == 72


def test_published_story_cloze_sentences_of_71_and_72_characters_pass(conventions):
    lengths = conventions.sentence_lengths()["Story Cloze spring 2016 fields (tuning)"]
    assert lengths[71] and lengths[72] and max(lengths) == 72
    sentence = "x" * 72
    assert not stray_punctuation(sentence, "en")
    assert not sentence_length({"sentences": [sentence, "a.", "b.", "c.", "d."]}, CheckOptions(lang="en"))


class _Names:
    """A stand-in for bench_check_rules.Pools: the held-out split, one protagonist's name."""

    split = "held-out"

    def endings_naming_others(self, lang: str) -> list[tuple[str, str]]:
        return [("Maria smiled.", "Maria")]


def test_english_2_2a_plants_bring_in_a_role_or_a_name_the_rule_sees():
    import random

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_check_rules as bench
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    row = {
        "id": "x",
        "lang": "en",
        "context": ["Tom went out.", "He was cold."],
        "original": "",
        "candidate": "He ran.",
    }
    forms = set()
    for seed in range(12):
        bad = bench.plant_context_entities(dict(row), random.Random(seed), "en", _Names())
        forms.add("saw it" in bad["candidate"] or bad["candidate"].split()[0])
        assert RULES["context_entities"].row(bad, CheckOptions(lang="en")), bad["candidate"]
    assert forms == {True, "He", "Maria"}  # a role, a name inside the sentence, a name opening one
    assert any(m.lang == "en" and m.kind == "candidate" for m in bench.MEASURES["context_entities"])


def test_the_readme_and_the_docs_show_the_figures_file_as_it_is():
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        import bench_check_rules as bench
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    report = load_figures()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    docs = (REPO / "docs" / "explanation" / "check-rules.md").read_text(encoding="utf-8")
    stale = "out of date: re-run benchmarks/bench_check_rules.py (its --update writes both)"
    assert f"{bench._README_START}\n{bench.readme_table(report)}\n{bench._README_END}" in readme, stale
    assert f"{bench._START}\n{bench.doc_table(report)}\n{bench._END}" in docs, stale
    row = next(line for line in readme.splitlines() if line.startswith("| context_entities |"))
    assert "warn" in row and "blind" in row  # the blind lists' range is shown beside the non-blind recall
