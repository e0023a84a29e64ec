"""audit-bias verdicts a reviewer can trust (issue 13): the exact tests and Holm on constructed
accuracies, BERT baselines only from a local checkpoint (a tiny BERT saved here), skipped rows,
language-aware baselines, the quarantine, the report folder, evidence and --export-hard.

All texts are written for these tests.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from scipy.stats import binomtest
from test_audit import SCT_HEADER, _leaky_items, _sct_csv, _write_clozet, clozet_item
from typer.testing import CliRunner

from lotdata.audit.bert import BertSettings
from lotdata.audit.features import FeatureCache, sentence_bleu
from lotdata.audit.items import Item
from lotdata.audit.run import audit, write_audit
from lotdata.audit.stats import add_verdicts, chance_test, holm, poisson_binomial_pmf, verdict
from lotdata.cli import app
from lotdata.datasets.folder import read_dataset, write_dataset
from lotdata.io import INCOMPLETE_MARKER

# --------------------------------------------------------------------------------------------- the test


def test_binomial_case_is_scipys_binomtest():
    for k, n in [(0, 10), (6, 10), (1010, 1871), (1340, 1871)]:
        assert chance_test(k, [0.5] * n) == pytest.approx(binomtest(k, n, 0.5).pvalue, rel=1e-12)


def test_poisson_binomial_is_exact_against_enumeration():
    chances = [1 / 2, 1 / 3, 1 / 3, 1 / 4, 1 / 5, 1 / 5]
    pmf = poisson_binomial_pmf(chances)
    brute = [0.0] * (len(chances) + 1)
    for outcome in itertools.product([0, 1], repeat=len(chances)):
        brute[sum(outcome)] += math.prod(p if o else 1 - p for p, o in zip(chances, outcome))
    assert pmf == pytest.approx(brute, abs=1e-15)
    for k in range(len(chances) + 1):  # two-sided: every outcome no more likely than the observed one
        expected = sum(q for q in brute if q <= brute[k] * (1 + 1e-7))
        assert chance_test(k, chances) == pytest.approx(min(1.0, expected), rel=1e-9)
    # the same p throughout gives the binomial test
    assert chance_test(7, [0.25] * 12) == pytest.approx(binomtest(7, 12, 0.25).pvalue, rel=1e-9)


def _record(name: str, right: int, n: int, chance: float = 0.5) -> dict:
    return {"id": name, "accuracy": right / n, "chance": chance, "p_value": chance_test(right, [chance] * n)}


def test_all_four_verdicts_on_constructed_accuracies():
    records = [
        _record("leaks", 1340, 1871),
        _record("weak", 10500, 20000),
        _record("near", 950, 1871),
        _record("below", 800, 1871),
    ]
    add_verdicts(records, min_effect=3)
    assert [r["verdict"] for r in records] == ["leaks", "weak signal", "near chance", "below chance"]
    assert [r["effect_points"] for r in records] == [21.6, 2.5, 0.8, -7.2]
    assert records[1]["p_holm"] < 1e-6 and records[2]["p_holm"] > 0.05
    add_verdicts(records, min_effect=2)  # --min-effect 2: 2.5 points now count as a leak
    assert [r["verdict"] for r in records] == ["leaks", "leaks", "near chance", "below chance"]


def test_holm_turns_a_lone_significant_result_into_near_chance_among_many():
    alone = [_record("x", 56, 90)]  # p ≈ 0.03 on its own
    add_verdicts(alone)
    assert alone[0]["p_value"] < 0.05 and alone[0]["verdict"] == "leaks"
    crowd = [_record("x", 56, 90)] + [_record(f"b{i}", 45, 90) for i in range(4)]
    add_verdicts(crowd)
    assert (
        crowd[0]["p_holm"] == pytest.approx(min(1.0, 5 * crowd[0]["p_value"])) and crowd[0]["verdict"] == "near chance"
    )
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


def test_verdict_edges():
    assert verdict(0.60, 0.5, p_holm=0.2) == "near chance"
    assert verdict(0.52, 0.5, p_holm=0.001) == "weak signal"
    assert verdict(0.53, 0.5, p_holm=0.001) == "leaks"
    assert verdict(0.49, 0.5, p_holm=0.001) == "below chance"


def test_senpos_chance_uses_each_items_option_count(tmp_path):
    rows = []
    for i in range(40):
        k = 3 + i % 4  # 2..5 gaps
        sentences = [f"第{i}个故事的第{j}句。" for j in range(k)]
        rows.append(
            {
                "example_id": f"s{i}",
                "story_id": f"s{i}",
                "split": "test",
                "sentences": sentences,
                "removed": "多出来的一句。",
                "label": 1,
                "n_candidates": k - 1,
                "refined": True,
                "lang": "zh",
            }
        )
    folder = tmp_path / "senpos"
    write_dataset(folder, "senpos", {"test": rows}, command="test", params={}, inputs=[], stats={}, lot_jsonl=False)
    result = audit(folder, baselines=["constant_first"])
    record = result.records[0]
    chances = [1 / (len(r["sentences"]) - 1) for r in rows]
    assert record["chance"] == pytest.approx(sum(chances) / 40) and record["accuracy"] == 1.0
    assert record["p_value"] == pytest.approx(math.prod(chances)) and record["verdict"] == "leaks"


# --------------------------------------------------------------------------------------------- BLEU


def test_bleu_has_no_brevity_penalty():
    cache = FeatureCache()
    context = "tom went to the store and bought some milk for his little sister"
    # a short ending made only of context words scores 1 for unigrams; with a penalty it would be ~0.02
    assert sentence_bleu(cache, "the milk", context, "en", 1) == pytest.approx(1.0)
    # smoothed BLEU-4 (Lin & Och): add one to matches and totals for n > 1 ("the milk" is no context bigram)
    expected = (2 / 2 * (0 + 1) / (1 + 1) * (0 + 1) / (0 + 1) * (0 + 1) / (0 + 1)) ** 0.25
    assert sentence_bleu(cache, "the milk", context, "en", 4, smooth="add1") == pytest.approx(expected)


# --------------------------------------------------------------------------------------------- BERT baselines


def _tiny_bert(folder: Path, texts: list[str]) -> Path:
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    chars = sorted({ch for t in texts for ch in t if not ch.isspace()} | set("0123456789/"))
    (folder / "vocab.txt").write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars) + "\n", encoding="utf-8"
    )
    BertTokenizerFast(str(folder / "vocab.txt")).save_pretrained(folder)  # positional: vocab_file (v4) or vocab (v5)
    config = BertConfig(
        vocab_size=5 + len(chars),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def leaky_folder(tmp_path_factory) -> Path:
    return _write_clozet(tmp_path_factory.mktemp("leaky"), {"train": _leaky_items(60), "test": _leaky_items(30, 200)})


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    import torch

    texts = [s for it in _leaky_items(60) + _leaky_items(30, 200) for s in it.all_sentences()]
    torch.manual_seed(1)  # a 1-layer toy learns LOT's dot-product scheme from some initialisations only (2 of 4 tried)
    return _tiny_bert(tmp_path_factory.mktemp("tiny_bert"), texts)


def test_bert_baselines_are_skipped_rows_without_a_checkpoint(leaky_folder, tmp_path):
    result = audit(leaky_folder, baselines=["constant_first", "bert_wo_context", "bert_wo_long"])
    reasons = {s["baseline"]: s["reason"] for s in result.skipped}
    assert set(reasons) == {"bert_wo_context", "bert_wo_long"} and all("--model-path" in r for r in reasons.values())
    assert {r["baseline"] for r in result.records} == {"constant_first"}
    write_audit(result, tmp_path)
    rows = {r["id"]: r for r in json.loads((tmp_path / "results.json").read_text())}
    assert rows["bert_wo_long/skipped"]["verdict"] == "skipped" and rows["bert_wo_long/skipped"]["accuracy"] is None


def test_bert_baselines_fine_tune_a_local_checkpoint(leaky_folder, checkpoint):
    # the dot-product scorer (LOT 5.2) of a 1-layer toy BERT needs about 10 epochs of these 60 items
    settings = BertSettings(epochs=10, batch_size=4, learning_rate=1e-3, max_length=32, device="cpu")
    result = audit(leaky_folder, baselines=["bert_wo_context", "bert_wo_long"], model_path=checkpoint, bert=settings)
    assert not result.skipped
    by_id = {r["id"]: r for r in result.records}
    assert set(by_id) == {"bert_wo_context/test", "bert_wo_long/test"}  # never scored on what it fit on
    # the candidates alone give the label away (终于 vs 根本): both variants see them and learn it
    assert by_id["bert_wo_context/test"]["accuracy"] >= 0.9 and by_id["bert_wo_context/test"]["verdict"] == "leaks"
    assert by_id["bert_wo_context/test"]["fit_on"] == "train"


def test_bert_baselines_are_baseline_train_variants_with_lot_settings(leaky_folder, checkpoint, tmp_path):
    """The audit's BERT w/o Context predicts what `baseline train --variant wo_context` predicts, same settings."""
    from lotdata.audit.bert import _fit_and_score_here
    from lotdata.audit.items import items_from_table, load_audit_input
    from lotdata.models.config import load_config
    from lotdata.models.runs import train_run

    assert (BertSettings().batch_size, BertSettings().max_length, BertSettings().learning_rate) == (
        12,
        512,
        3e-5,
    )  # LOT 5.2
    _, tables, _ = load_audit_input(leaky_folder, None, [])
    train, test = (items_from_table(tables[s], "clozet") for s in ("train", "test"))
    settings = BertSettings(epochs=1, batch_size=8, learning_rate=3e-3, max_length=32, device="cpu")
    scores = _fit_and_score_here("bert_wo_context", str(checkpoint), train, {"test": test}, 3, settings)["test"]
    config = load_config("bert").with_train(batch_size=8, learning_rate=3e-3, max_length=32, epochs=1, seed=3)
    results = train_run(
        replace(config, checkpoint=str(checkpoint)), leaky_folder, tmp_path / "run", variant="wo_context", device="cpu"
    )
    audit_accuracy = sum(max(range(2), key=row.__getitem__) == it.label for row, it in zip(scores, test)) / len(test)
    assert results["scores"]["test"]["accuracy"] == pytest.approx(audit_accuracy)


def test_bert_fine_tuning_in_a_child_process_scores_like_in_this_one(leaky_folder, checkpoint):
    from lotdata.audit.bert import _fit_and_score_here, fit_and_score
    from lotdata.audit.items import items_from_table, load_audit_input

    _, tables, _ = load_audit_input(leaky_folder, None, [])
    train, test = (items_from_table(tables[s], "clozet") for s in ("train", "test"))
    settings = BertSettings(epochs=1, batch_size=8, learning_rate=3e-3, max_length=32, device="cpu")
    child = fit_and_score("bert_wo_context", checkpoint, train, {"test": test}, seed=3, settings=settings)
    here = _fit_and_score_here("bert_wo_context", str(checkpoint), train, {"test": test}, 3, settings)
    assert len(child["test"]) == len(test) and all(len(row) == 2 for row in child["test"])
    # the same fine-tuning; float sums may differ with the thread count a test session left set, so not to the bit
    assert [s for row in child["test"] for s in row] == pytest.approx(
        [s for row in here["test"] for s in row], abs=0.02
    )


def test_missing_optional_packages_are_skipped_rows_and_the_report_is_written(
    leaky_folder, checkpoint, tmp_path, monkeypatch
):
    import sys

    monkeypatch.setitem(sys.modules, "transformers", None)  # as without the models extra
    monkeypatch.setitem(sys.modules, "snownlp", None)  # as without the audit extra
    result = CliRunner().invoke(
        app,
        [
            "audit-bias",
            str(leaky_folder),
            "--out",
            str(tmp_path / "rep"),
            "--model-path",
            str(checkpoint),
            "--baseline",
            "constant_first",
            "--baseline",
            "sentiment",
            "--baseline",
            "bert_wo_long",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = {r["id"]: r for r in json.loads((tmp_path / "rep" / "results.json").read_text())}
    assert "transformers" in rows["bert_wo_long/skipped"]["reason"] and "snownlp" in rows["sentiment/skipped"]["reason"]
    assert rows["constant_first/test"]["verdict"] == "near chance" and (tmp_path / "rep" / "report.html").exists()


def test_a_path_that_is_not_a_checkpoint_is_a_bad_parameter(leaky_folder, tmp_path):
    (tmp_path / "not_a_checkpoint").mkdir()  # beside --out: an output never lies inside an input
    result = CliRunner().invoke(
        app,
        [
            "audit-bias",
            str(leaky_folder),
            "--out",
            str(tmp_path / "rep"),
            "--model-path",
            str(tmp_path / "not_a_checkpoint"),
        ],
    )
    assert result.exit_code == 1 and "config.json" in result.output and "Traceback" not in result.output


# --------------------------------------------------------------------------------------------- skipped rows


def test_a_learner_fit_on_the_only_split_is_a_named_skipped_row(tmp_path):
    folder = tmp_path / "csv"
    folder.mkdir()
    _sct_csv(folder / "val.csv", 12)
    result = audit(folder, train_split="val", baselines=["constant_first", "ending_only", "majority"])
    reasons = {s["baseline"]: s["reason"] for s in result.skipped}
    assert set(reasons) == {"ending_only", "majority"} and "only split" in reasons["ending_only"]


def test_a_language_without_resources_skips_those_baselines(tmp_path):
    items = [
        clozet_item(["Il était une fois."], ["Il a gagné.", "Il a perdu la course."], i % 2, lang="fr", i=i)
        for i in range(10)
    ]
    folder = _write_clozet(tmp_path / "fr", {"test": items})
    result = audit(folder, baselines=["constant_first", "sentiment", "discourse_markers", "length"])
    reasons = {s["baseline"]: s["reason"] for s in result.skipped}
    assert set(reasons) == {"sentiment", "discourse_markers", "length"}
    assert "'fr'" in reasons["discourse_markers"] and "zh, en" in reasons["discourse_markers"]
    assert [r["baseline"] for r in result.records] == ["constant_first"]


def test_english_discourse_markers_are_used_on_english_data():
    from lotdata.audit.baselines import marker_pairs

    assert ("because", "so") in marker_pairs("en") and ("although", "but") in marker_pairs("en")
    with pytest.raises(ValueError, match="'fr'"):
        marker_pairs("fr")


# --------------------------------------------------------------------------------------------- bad input


def test_story_cloze_short_row_and_label_3_are_quarantined_and_counted(tmp_path):
    csv = _sct_csv(tmp_path / "test.csv", 10, bad_row=True)
    with open(csv, "a", encoding="utf-8") as handle:
        handle.write("idshort,Only one sentence.,Two.\n")
    runner = CliRunner()
    result = runner.invoke(
        app, ["audit-bias", str(csv), "--out", str(tmp_path / "rep"), "--baseline", "constant_first"]
    )
    assert result.exit_code == 0, result.output
    assert "quarantined 2 row(s)" in result.output
    rows = pq.read_table(tmp_path / "rep" / "quarantine.parquet").to_pylist()
    assert (
        [r["row"] for r in rows] == [11, 12]
        and "AnswerRightEnding is '3'" in rows[0]["reason"]
        and "empty" in rows[1]["reason"]
    )
    meta = json.loads((tmp_path / "rep" / "audit.json").read_text())
    assert meta["quarantined"]["rows"] == 2 and meta["splits"] == {"test": 10}
    assert not (tmp_path / "rep" / INCOMPLETE_MARKER).exists()


def test_a_bad_row_in_a_dataset_folder_is_quarantined_with_its_reason(tmp_path):
    items = _leaky_items(12)
    folder = _write_clozet(tmp_path / "data", {"test": items})
    table = read_dataset(folder)["test"].to_pylist()
    table[3]["label"] = 5  # no such candidate
    write_dataset(folder, "clozet", {"test": table}, command="test", params={}, inputs=[], stats={})
    result = CliRunner().invoke(
        app, ["audit-bias", str(folder), "--out", str(tmp_path / "rep"), "--baseline", "constant_first"]
    )
    assert result.exit_code == 0, result.output
    [row] = pq.read_table(tmp_path / "rep" / "quarantine.parquet").to_pylist()
    assert (
        row["row"] == 4
        and "label 5" in row["reason"]
        and json.loads(row["raw"])["example_id"] == table[3]["example_id"]
    )


def test_nothing_usable_left_exits_3(tmp_path):
    csv = tmp_path / "test.csv"
    csv.write_text(SCT_HEADER + "a,A.,B.,C.,D.,E.,F.,3\nb,A.,B.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["audit-bias", str(csv), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 3 and "no usable rows" in result.output and "2 quarantined" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "rep" / "results.json").exists()


def test_a_full_disk_names_the_file_and_leaves_the_folder_marked(leaky_folder, tmp_path, monkeypatch):
    import lotdata.audit.run as run

    real = run.write_text

    def full(text, path):
        if Path(path).name == "report.html":
            raise OSError(28, "No space left on device")
        return real(text, path)

    monkeypatch.setattr(run, "write_text", full)
    result = CliRunner().invoke(
        app, ["audit-bias", str(leaky_folder), "--out", str(tmp_path / "rep"), "--baseline", "constant_first"]
    )
    assert (
        result.exit_code == 1 and str(tmp_path / "rep" / "report.html") in result.output and "No space" in result.output
    )
    staged = tmp_path / ".rep.lotdata-next" / "rep"  # nothing is published; the parts wait for the next run
    assert not (tmp_path / "rep").exists()
    assert (staged / INCOMPLETE_MARKER).exists() and (staged / "results.json").exists()


# --------------------------------------------------------------------------------------------- evidence and the loop


def _length_leak(n: int, start: int = 0) -> list[Item]:
    """The right ending is always the longer one; the words say nothing."""
    items = []
    for i in range(start, start + n):
        right, wrong = f"他们一起走回了温暖的家，第{i}天的晚饭很香。", f"他们睡了，第{i}天。"
        label = i % 2
        before = [f"第{i}天早上下起了很大的雨。", "孩子们只好待在屋子里面画画。", "到了傍晚雨终于停了下来。"]
        items.append(clozet_item(before, [right, wrong] if label == 0 else [wrong, right], label, i=i))
    return items


def test_evidence_is_linked_and_export_hard_round_trips(tmp_path):
    folder = _write_clozet(tmp_path / "d", {"test": _length_leak(40)})
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "audit-bias",
            str(folder),
            "--out",
            str(tmp_path / "rep"),
            "--baseline",
            "length",
            "--baseline",
            "random",
            "--baseline",
            "constant_first",
            "--export-hard",
            str(tmp_path / "hard"),
        ],
    )
    assert result.exit_code == 0, result.output
    page = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert (
        'href="#ev-length-test"' in page and 'id="ev-length-test"' in page and "✓ right" in page and "✗ wrong" in page
    )
    assert 'class="sortable"' in page and "p_holm" in page
    hard = read_dataset(tmp_path / "hard")
    assert hard["test"].num_rows == 40 and not (tmp_path / "hard" / INCOMPLETE_MARKER).exists()
    evidence = pq.read_table(tmp_path / "hard" / "evidence.parquet").to_pylist()
    assert evidence[0]["baselines"] == ["length/test"] and "wrong candidate" in evidence[0]["evidence"]
    stories = pq.read_table(tmp_path / "hard" / "stories.parquet").to_pylist()
    assert len(stories) == 40 and all(
        s["status"] == "accepted" and s["flags"] == ["audit-hard:length/test"] for s in stories
    )

    # annotate push clozet_write takes stories.parquet: its loader gives one row per hard story
    from lotdata.annotate.jobs import get_job

    job = get_job("clozet_write")
    assert (
        len(job.load(tmp_path / "hard" / "stories.parquet", ["test"], words=(0, 0))) == 40
    )  # stories under LOT's 50 words

    # the rewrite step, simulated offline: an annotator writes a wrong ending as long as the right one
    rewritten = []
    for row in hard["test"].to_pylist():
        right = row["candidates"][row["label"]]
        new_wrong = right.replace("走回了温暖的家", "走进了黑暗的林").replace("很香", "很苦")
        rewritten.append({**row, "candidates": [right, new_wrong] if row["label"] == 0 else [new_wrong, right]})
    write_dataset(
        tmp_path / "rewritten",
        "clozet",
        {"test": rewritten},
        command="test",
        params={},
        inputs=[],
        stats={},
        lot_jsonl=False,
    )
    before = audit(folder, baselines=["length"]).records[0]
    after = audit(tmp_path / "rewritten", baselines=["length"]).records[0]
    assert before["accuracy"] == 1.0 and before["verdict"] == "leaks"
    assert after["tie_share"] == 1.0 and after["accuracy"] < 0.7 and after["verdict"] == "near chance"


def test_export_baseline_keeps_one_leaking_baseline(tmp_path):
    folder = _write_clozet(tmp_path / "d", {"test": _length_leak(20)})
    runner = CliRunner()
    args = [
        "audit-bias",
        str(folder),
        "--out",
        str(tmp_path / "rep"),
        "--baseline",
        "length",
        "--baseline",
        "constant_first",
    ]
    result = runner.invoke(app, args + ["--export-hard", str(tmp_path / "h1"), "--export-baseline", "constant_first"])
    assert result.exit_code == 1 and "not a leaking baseline" in result.output and "length" in result.output
    result = runner.invoke(app, args + ["--export-hard", str(tmp_path / "h2"), "--export-baseline", "length"])
    assert result.exit_code == 0 and read_dataset(tmp_path / "h2")["test"].num_rows == 20
    assert runner.invoke(app, args + ["--export-baseline", "length"]).exit_code == 1  # needs --export-hard


def test_export_hard_refuses_senpos(tmp_path):
    from lotdata.audit.export import export_hard
    from lotdata.audit.run import AuditResult

    result = AuditResult(
        task="senpos",
        lang="zh",
        source="",
        splits={},
        train_split=None,
        records=[],
        skipped=[],
        scan={},
        chance={},
        timings={},
        params={"input": "x"},
    )
    with pytest.raises(ValueError, match="ClozeT"):
        export_hard(result, tmp_path / "hard")
