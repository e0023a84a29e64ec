"""Every registered check rule passes the same checks, `lotdata.testing.check_rules`' (as every task does in
test_task_conformance.py), on the sample its record carries (the built-in rules': lotdata/data/
check_rule_samples.json): each bad row, checked with the good rows of its language, is flagged and none of them
is; the details are text; the rule is stable and changes no row; a rule that needs a field is skipped without it.
A made-up rule registered here passes them; broken ones are caught."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lotdata.annotate.checks import (
    CHECK_RULE_REGISTRY,
    Rule,
    builtin_sample,
    check_rule_names,
    get_check_rule,
    register_check_rule,
    unregister_check_rule,
)
from lotdata.testing.check_rules import CHECK_RULE_CHECKS, check_check_rule

RULES = check_rule_names()


def test_every_built_in_rule_has_a_sample_in_both_languages_where_it_has_one():
    builtin = [r.name for r in CHECK_RULE_REGISTRY.builtins()]
    assert {"five_sentences", "near_duplicate", "shared_character", "rewrite_length", "context_entities"} <= set(
        builtin
    )
    assert [name for name in builtin if get_check_rule(name).sample is None] == []
    for name in ("five_sentences", "shared_character", "near_duplicate"):  # story and ending rules: en and zh
        assert {row["lang"] for row in builtin_sample(name)["bad"]} == {"en", "zh"}, name


@pytest.mark.parametrize("check", CHECK_RULE_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", RULES)
def test_check_rule_conformance(name: str, check, tmp_path: Path):
    check(get_check_rule(name), tmp_path)


# ------------------------------------------------------------------------------------------------
# a made-up rule, registered here only: no digits in a story


def _no_digits(row, options):
    found = sorted({c for c in str(row.get("text") or "") if c.isdigit()})
    return [f"digits {''.join(found)}"] if found else []


NO_DIGITS = Rule(
    "no_digits",
    "no digits in the story",
    row=_no_digits,
    sample=lambda: {
        "bad": [{"id": "b", "lang": "en", "text": "Tom had 3 cats."}],
        "good": [{"id": "g", "lang": "en", "text": "Tom had three cats."}],
    },
)


@pytest.fixture
def no_digits():
    rule = register_check_rule(NO_DIGITS)
    yield rule
    unregister_check_rule("no_digits")


def test_a_made_up_rule_passes_the_check_rule_checks(no_digits, tmp_path: Path):
    check_check_rule(no_digits, tmp_path)


def test_the_check_rule_checks_catch_a_broken_rule(no_digits, tmp_path: Path):
    with pytest.raises(AssertionError, match="no sample"):
        with CHECK_RULE_REGISTRY.override(replace(NO_DIGITS, sample=None)) as unsampled:
            check_check_rule(unsampled, tmp_path / "a")
    everything = replace(NO_DIGITS, row=lambda row, options: ["flagged"])  # flags its good row too
    with CHECK_RULE_REGISTRY.override(everything):
        with pytest.raises(AssertionError, match=r"flags \['b', 'g'\], expected only 'b'"):
            check_check_rule(everything, tmp_path / "b")

    def mutating(row, options):
        row["checked"] = True  # writes into the submission it checks
        return _no_digits(row, options)

    with CHECK_RULE_REGISTRY.override(replace(NO_DIGITS, row=mutating)) as changing:
        with pytest.raises(AssertionError, match="changed the rows"):
            check_check_rule(changing, tmp_path / "c")
    with pytest.raises(AssertionError, match="not the record the registry holds"):
        check_check_rule(replace(NO_DIGITS, name="unregistered_rule"), tmp_path / "d")
