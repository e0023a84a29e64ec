"""The helper's verdicts on held-out English flags (benchmarks/flag_verdicts_en.py) point at the texts they judged and
are counted against the flags the rules raise now (issue 34)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
import check_rule_data  # noqa: E402
import flag_verdicts_en  # noqa: E402

pytestmark = pytest.mark.skipif(not check_rule_data.available(), reason="needs ../shared/data")


def test_every_verdict_reads_back_its_text_and_the_report_counts_the_flags_of_now():
    read = flag_verdicts_en.verdicts()
    rules = {rule for rule, _, _ in read}
    assert rules == {"shared_character", "context_entities"}
    assert all(word for rule, _, word in read if rule == "context_entities")
    assert {v for (rule, _, _), v in read.items() if rule == "shared_character"} <= {"none", "refers"}
    text = flag_verdicts_en.report()
    assert "| shared_character |" in text and "| context_entities |" in text and " none" in text


def test_a_verdict_on_a_changed_text_is_refused_with_the_line(tmp_path, monkeypatch):
    copy = tmp_path / "verdicts.tsv"
    copy.write_text("# header\ncontext_entities\tno-such-id\t0000000000\t0\t1\tnew\n", encoding="utf-8")
    monkeypatch.setattr(flag_verdicts_en, "VERDICTS", copy)
    with pytest.raises(SystemExit, match=r"verdicts.tsv:2: context_entities no-such-id is not the text"):
        flag_verdicts_en.verdicts()
