"""Conformance checks of a check rule (a `lotdata.annotate.checks.Rule` record: an automatic check of crowd
submissions), as scikit-learn's `check_estimator`:

    from lotdata.testing import check_check_rule
    check_check_rule(MY_RULE, tmp_path)   # AssertionError naming the broken rule

The sample is the record's own: `sample()` gives {"bad": rows the rule flags, "good": rows it passes}, each row a
submission as `lotdata annotate check` reads it (an `id`, a `lang`, the fields the rule looks at). A bad row is
checked together with the good rows of its language (a batch rule, near-duplicate, sees them all at once): it is
flagged and none of them is. The rule must be registered (`register_check_rule`, or an entry point of
`lotdata.check_rules`): a job and `annotate check` name rules. Every check takes `(rule, folder)`.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from lotdata.testing._common import held as _held

__all__ = [
    "CHECK_RULE_CHECKS",
    "check_check_rule",
    "check_rule_flags_its_bad_rows_and_passes_its_good_ones",
    "check_rule_gives_its_details_as_text",
    "check_rule_has_a_sample",
    "check_rule_is_deterministic_and_leaves_rows_unchanged",
    "check_rule_is_registered",
    "check_rule_without_its_field_is_skipped",
    "rule_sample",
]

Row = Mapping[str, Any]
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def rule_sample(rule: Any) -> dict[str, list[Row]]:
    """The record's sample: {"bad": [...], "good": [...]}, both non-empty lists of rows with unique ids."""
    if getattr(rule, "sample", None) is None:
        raise AssertionError(f"check rule {rule.name!r} has no sample: the conformance checks need one")
    sample = rule.sample()
    assert isinstance(sample, Mapping) and set(sample) >= {"bad", "good"}, (
        f"check rule {rule.name!r}: sample() must give {{'bad': rows, 'good': rows}}, not {sample!r}"
    )
    found = {"bad": list(sample["bad"]), "good": list(sample["good"])}
    for which, rows in found.items():
        assert rows, f"check rule {rule.name!r}: its sample has no {which} row"
        assert all(isinstance(r, Mapping) and r.get("id") is not None for r in rows), (
            f"check rule {rule.name!r}: every {which} row is a mapping with an `id` (flags name it)"
        )
    ids = [str(r["id"]) for rows in found.values() for r in rows]
    assert len(ids) == len(set(ids)), f"check rule {rule.name!r}: its sample rows share ids: {ids}"
    return found


def _lang(row: Row) -> str:
    return str(row.get("lang") or "en")


def _cases(rule: Any) -> list[tuple[str, list[Row], Row]]:
    """(language, the good rows of that language, one bad row) for each bad row of the sample."""
    sample = rule_sample(rule)
    return [(_lang(bad), [g for g in sample["good"] if _lang(g) == _lang(bad)], bad) for bad in sample["bad"]]


def _run(rule: Any, rows: Sequence[Row], lang: str) -> Any:
    from lotdata.annotate.checks import CheckOptions, run_checks

    return run_checks(rows, [rule.name], CheckOptions(lang=lang))


def check_rule_is_registered(rule: Any, folder: Path) -> None:
    """The rule is the one the registry holds under its name (jobs and `annotate check` name it), its name is a
    plain word (lower case, digits, `_`) and it says what it checks (`description`, shown by the help)."""
    from lotdata.annotate.checks import get_check_rule

    held = _held(get_check_rule, rule.name)
    assert held is rule, (
        f"check rule {rule.name!r}: not the record the registry holds under its name (register it first)"
    )
    assert _NAME.match(rule.name), f"check rule {rule.name!r}: a rule's name is [a-z][a-z0-9_]*"
    assert rule.description.strip(), f"check rule {rule.name!r}: no description"
    assert (rule.row is None) != (rule.batch is None), f"check rule {rule.name!r}: exactly one of row and batch"


def check_rule_has_a_sample(rule: Any, folder: Path) -> None:
    """The record carries a sample with bad and good rows (unique ids); where the rule needs a field, every sample
    row has it; every bad row has good rows of its language to be checked with."""
    sample = rule_sample(rule)
    if rule.needs:
        lacking = [r["id"] for rows in sample.values() for r in rows if rule.needs not in r]
        assert not lacking, f"check rule {rule.name!r} needs {rule.needs!r}: sample rows without it: {lacking}"
    for lang, good, bad in _cases(rule):
        assert good, f"check rule {rule.name!r}: no good row in {lang!r} to check the bad row {bad['id']!r} with"


def check_rule_flags_its_bad_rows_and_passes_its_good_ones(rule: Any, folder: Path) -> None:
    """Checked with the good rows of its language, each bad row is flagged and no good row is; every flag names
    the rule and says what is wrong; the count is one submission."""
    for lang, good, bad in _cases(rule):
        result = _run(rule, [*good, bad], lang)
        assert not result.skipped, f"check rule {rule.name!r}: skipped on its sample: {result.skipped}"
        flagged = {f["id"] for f in result.flags}
        assert flagged == {str(bad["id"])}, (
            f"check rule {rule.name!r}: on its {lang} sample it flags {sorted(flagged)}, expected only {bad['id']!r}"
        )
        assert all(f["rule"] == rule.name and isinstance(f["detail"], str) and f["detail"] for f in result.flags)
        assert result.counts == {rule.name: 1}, result.counts


def check_rule_gives_its_details_as_text(rule: Any, folder: Path) -> None:
    """Called as `run_checks` calls it: a row rule gives a list of strings for each row (empty for a good one); a
    batch rule a mapping from a row's index among the rows it was given to a list of strings."""
    from lotdata.annotate.checks import CheckOptions

    for lang, good, bad in _cases(rule):
        options = CheckOptions(lang=lang)
        if rule.row is not None:
            for row in [*good, bad]:
                details = rule.row(row, options)
                assert isinstance(details, list) and all(isinstance(d, str) and d for d in details), (
                    f"check rule {rule.name!r}: row() gave {details!r} for {row['id']!r}, not a list of text"
                )
                assert bool(details) == (row is bad), f"check rule {rule.name!r}: row() on {row['id']!r}: {details}"
        else:
            rows = [*good, bad]
            found = rule.batch(rows, options)
            assert isinstance(found, Mapping), f"check rule {rule.name!r}: batch() gave {type(found).__name__}"
            for index, details in found.items():
                assert isinstance(index, int) and 0 <= index < len(rows), f"check rule {rule.name!r}: index {index}"
                assert isinstance(details, list) and all(isinstance(d, str) and d for d in details), details


def check_rule_is_deterministic_and_leaves_rows_unchanged(rule: Any, folder: Path) -> None:
    """The same rows give the same flags twice, and the rule changes none of the rows it is given."""
    for lang, good, bad in _cases(rule):
        rows = [*good, bad]
        before = copy.deepcopy(rows)
        first = _run(rule, rows, lang)
        assert rows == before, f"check rule {rule.name!r} changed the rows it checked"
        second = _run(rule, rows, lang)
        assert (first.flags, first.counts) == (second.flags, second.counts), f"check rule {rule.name!r}: not stable"


def check_rule_without_its_field_is_skipped(rule: Any, folder: Path) -> None:
    """A rule that needs a field (`needs`) is skipped, naming the field, when no row has it; it flags nothing then.
    A rule that needs none passes."""
    if not rule.needs:
        return
    for lang, good, bad in _cases(rule):
        rows = [{k: v for k, v in r.items() if k != rule.needs} for r in [*good, bad]]
        result = _run(rule, rows, lang)
        assert rule.name in result.skipped and rule.needs in result.skipped[rule.name], result.skipped
        assert not result.flags, f"check rule {rule.name!r} flagged rows without its field {rule.needs!r}"


#: every check of a check rule, in the order `check_check_rule` runs them
CHECK_RULE_CHECKS: tuple[Callable[[Any, Path], None], ...] = (
    check_rule_is_registered,
    check_rule_has_a_sample,
    check_rule_flags_its_bad_rows_and_passes_its_good_ones,
    check_rule_gives_its_details_as_text,
    check_rule_is_deterministic_and_leaves_rows_unchanged,
    check_rule_without_its_field_is_skipped,
)


def check_check_rule(rule: Any, folder: Path) -> None:
    """Run every check on `rule`, each in a folder of its own under `folder` (AssertionError on the first
    broken)."""
    for check in CHECK_RULE_CHECKS:
        check(rule, Path(folder) / check.__name__)
