"""audit-bias on the labelled Story Cloze Test (spring 2016) in ../shared/data: the ROCStories
Table 6 constant-choose-first figures, and the ending-only leak (Schwartz et al. 2017: ~72%),
fitted on val and measured on the held-out test split."""

from __future__ import annotations

import json

import pytest

from lotdata.audit.run import audit, write_audit
from lotdata.exec import ExecSettings
from lotdata.tasks.storycloze import import_storycloze

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sct_audit(shared_data, tmp_path_factory):
    folder = shared_data / "storycloze_spring2016_labeled"
    dataset = tmp_path_factory.mktemp("sct")
    report = import_storycloze(folder / "val.csv", dataset, test=folder / "test.csv")
    assert report.rows_per_split == {"train": 0, "val": 1871, "test": 1871}
    result = audit(dataset, train_split="val", seed=0, execution=ExecSettings(workers=2))
    out = tmp_path_factory.mktemp("sct_report")
    write_audit(result, out)
    return result, out


def test_constant_choose_first_matches_rocstories_table6(sct_audit):
    result, _ = sct_audit
    acc = {r["id"]: r["accuracy"] for r in result.records}
    assert round(acc["constant_first/val"], 3) == 0.514
    assert round(acc["constant_first/test"], 3) == 0.513


def test_ending_only_leaks_on_held_out_test(sct_audit):
    result, _ = sct_audit
    record = next(r for r in result.records if r["id"] == "ending_only/test")
    assert record["fit_on"] == "val" and record["n"] == 1871
    assert record["accuracy"] > 0.65 and record["verdict"] == "leaks"
    assert not any(r["id"] == "ending_only/val" for r in result.records)


def test_sct_report_has_every_baseline_and_the_paper_figures(sct_audit):
    result, out = sct_audit
    names = {r["baseline"] for r in json.loads((out / "results.json").read_text())}
    skipped = {s["baseline"] for s in result.skipped}
    assert names | skipped == {
        "random",
        "majority",
        "constant_first",
        "length",
        "bleu1",
        "bleu2",
        "sentiment",
        "sentiment_full",
        "sentiment_last",
        "discourse_markers",
        "frequency",
        "ngram_overlap",
        "ending_only",
        "bert_wo_context",
        "bert_wo_long",
    }
    page = (out / "report.html").read_text(encoding="utf-8")
    assert ">51.4</a>" in page and ">51.3</a>" in page  # ours and the paper's, side by side
    assert result.scan["significant"] > 0


def test_ngram_overlap_is_smoothed_bleu_within_1_5_points_of_table6(sct_audit):
    """Smoothed BLEU-4 without the brevity penalty (Mostafazadeh et al. 2016, Table 6: 47.7 val / 49.4 test)."""
    result, _ = sct_audit
    acc = {r["id"]: 100 * r["accuracy"] for r in result.records}
    assert abs(acc["ngram_overlap/val"] - 47.7) <= 1.5 and abs(acc["ngram_overlap/test"] - 49.4) <= 1.5


def test_sct_verdicts_come_from_the_holm_corrected_test(sct_audit):
    result, out = sct_audit
    records = {r["id"]: r for r in json.loads((out / "results.json").read_text())}
    assert (
        records["constant_first/test"]["verdict"] == "near chance" and records["constant_first/test"]["p_holm"] > 0.05
    )
    assert records["ending_only/test"]["p_holm"] < 1e-50 and records["ending_only/test"]["effect_points"] > 15
    assert records["bert_wo_context/skipped"]["verdict"] == "skipped"
    assert "discourse_markers/test" in records  # English pairs exist, so it runs on English data
