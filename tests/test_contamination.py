"""Contamination report v2 (`overlap --index`: idf_ratio, buckets) and `evaluate --contamination` (issue 36)."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from helpers import write_stories
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.overlap.contamination import Buckets, contamination_scores

runner = CliRunner()


def _cli(*args) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def test_buckets_follow_the_thresholds() -> None:
    b = Buckets(suspicious=0.1, dirty=0.5)
    rows = [{"share": s, "idf_ratio": 1 - s, "longest_words": 3} for s in (0.0, 0.1, 0.11, 0.5, 1.0)]
    assert [b.of(r) for r in rows] == ["clean", "clean", "suspicious", "dirty", "dirty"]
    assert [Buckets(on="idf_ratio").of(r) for r in rows] == ["dirty", "dirty", "dirty", "dirty", "clean"]
    assert Buckets(dirty_longest=3).of(rows[0]) == "dirty"
    with pytest.raises(ValueError, match="suspicious <= dirty"):
        Buckets(suspicious=0.6, dirty=0.5).check()


def test_v2_columns_equal_a_count_by_hand(tmp_path: Path) -> None:
    refs = ["the cat sat on the mat", "the dog ran to the park", "a zebra ate one green apple today"]
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n")
    tests = ["the cat sat on the mat again", "a zebra ate one green apple", "nothing here is shared at all"]
    write_stories(tmp_path / "test.parquet", tests, lang="en")
    code, out = _cli(
        "index", "build", tmp_path / "ref.txt", "--out", tmp_path / "idx", "--lang", "en", "--workers", "1"
    )
    assert code == 0, out
    code, out = _cli(
        "overlap", tmp_path / "test.parquet", "--index", tmp_path / "idx", "--out", tmp_path / "o", "--n", "2",
        "--suspicious", "0.3", "--dirty", "0.9",
    )  # fmt: skip
    assert code == 0, out
    rows = pq.read_table(tmp_path / "o" / "examples.parquet").to_pylist()
    words = [w for r in refs for w in r.split()]
    total = len(words)
    idf = {w: math.log((total + 1) / (words.count(w) + 1)) for w in set(" ".join(tests).split())}
    ref_grams = {tuple(r.split()[i : i + 2]) for r in refs for i in range(len(r.split()) - 1)}
    by_text = {r["example_id"]: r for r in rows}
    table = pq.read_table(tmp_path / "test.parquet").to_pylist()
    for story in table:
        row = by_text[story["story_id"]]
        w = story["text"].split()
        grams = [tuple(w[i : i + 2]) for i in range(len(w) - 1)]
        weight = [(idf[a] + idf[b]) / 2 for a, b in grams]
        hit = [g in ref_grams for g in grams]
        assert row["share"] == pytest.approx(sum(hit) / len(grams))
        assert row["idf_ratio"] == pytest.approx(sum(x for x, h in zip(weight, hit) if h) / sum(weight))
    assert [by_text[s["story_id"]]["bucket"] for s in table] == ["suspicious", "dirty", "clean"]
    # a word the references never use weighs the most: the cat sentence's unmatched "mat again" counts more
    cat = by_text[table[0]["story_id"]]
    assert cat["idf_ratio"] < cat["share"]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    v2 = summary["contamination"]
    assert v2["thresholds"] == {"suspicious": 0.3, "dirty": 0.9, "on": "ratio", "dirty_longest": 0}
    assert [v2["splits"]["test"][b] for b in ("clean", "suspicious", "dirty")] == [1, 1, 1]
    report = (tmp_path / "o" / "report.md").read_text()
    assert "## Contamination (v2)" in report and "clean <= 0.3 < suspicious < 0.9 <= dirty" in report
    code, out = _cli(
        "overlap", tmp_path / "test.parquet", "--index", tmp_path / "idx", "--out", tmp_path / "o2",
        "--suspicious", "0.7", "--dirty", "0.5",
    )  # fmt: skip
    assert code == 1 and "suspicious <= dirty" in out and not (tmp_path / "o2").exists()


def test_contamination_scores_give_the_difference_and_an_interval() -> None:
    right = [1] * 30 + [0] * 10 + [1] * 18 + [0] * 2  # clean: 75% right, dirty: 90%
    buckets = ["clean"] * 40 + ["dirty"] * 20

    def score(items: list[int]) -> dict[str, float]:
        return {"accuracy": float(np.mean([right[i] for i in items]))}

    out = contamination_scores(score, buckets, resamples=500)
    diff = out["difference"]["accuracy"]
    assert out["items"] == {"clean": 40, "suspicious": 0, "dirty": 20}
    assert diff["dirty_minus_clean"] == pytest.approx(0.15)
    assert diff["low"] < 0.15 < diff["high"] and diff["high"] - diff["low"] < 0.5
    assert "no dirty item" in contamination_scores(score, ["clean"] * 60)["note"]


SCT = Path(__file__).resolve().parents[2] / "shared" / "data" / "storycloze_spring2016_labeled"
ROC = Path(__file__).resolve().parents[2] / "shared" / "data" / "rocstories_diffusionlm_valid5k"


def _slice_csv(src: Path, dst: Path, rows: int) -> list[dict]:
    """The first `rows` rows of a real Story Cloze csv (derived at test time, never shipped)."""
    with open(src, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        kept = [row for _, row in zip(range(rows), reader)]
        fields = reader.fieldnames
    with open(dst, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(kept)
    return kept


@pytest.mark.skipif(not SCT.exists() or not ROC.exists(), reason="needs ../shared/data")
def test_evaluate_contamination_on_a_real_model_and_a_real_report(tmp_path: Path) -> None:
    """A tiny model trained on real Story Cloze stories predicts the real test items; a reference of real
    ROCStories into which the first 24 test stories leaked is indexed; `evaluate --contamination` scores the
    predictions on the clean and on the dirty items."""
    pytest.importorskip("torch")
    from test_models import tiny_config

    from lotdata.models.runs import train_run

    _slice_csv(SCT / "val.csv", tmp_path / "val.csv", 240)
    test_rows = _slice_csv(SCT / "test.csv", tmp_path / "test.csv", 60)
    data = tmp_path / "sct"
    code, out = _cli(
        "import", "storycloze", "--val", tmp_path / "val.csv", "--test", tmp_path / "test.csv", "--out", data,
        "--train-from", "val", "--val-share", "0.25",
    )  # fmt: skip
    assert code == 0, out
    train_run(tiny_config(epochs=1), data, tmp_path / "run", device="cpu")
    pred = tmp_path / "pred.jsonl"
    code, out = _cli("baseline", "predict", "--run", tmp_path / "run", "--data", data, "--out", pred, "--device", "cpu")
    assert code == 0, out
    ref = tmp_path / "ref.txt"
    stories = [json.loads(line)[0] for line in (ROC / "datasets" / "ROCstory" / "roc_valid.json").open()]
    leaked = [
        " ".join(
            [r[f"InputSentence{k}"] for k in range(1, 5)] + [r[f"RandomFifthSentenceQuiz{r['AnswerRightEnding']}"]]
        )
        for r in test_rows[:24]
    ]
    ref.write_text("\n".join(stories + leaked) + "\n", encoding="utf-8")
    code, out = _cli("index", "build", ref, "--out", tmp_path / "idx", "--lang", "en", "--workers", "1")
    assert code == 0, out
    report = tmp_path / "report"
    code, out = _cli("overlap", data / "test.parquet", "--index", tmp_path / "idx", "--out", report)
    assert code == 0, out
    rows = pq.read_table(report / "examples.parquet").to_pylist()
    assert sum(r["bucket"] == "dirty" for r in rows) == 24 and sum(r["bucket"] == "clean" for r in rows) >= 30
    code, out = _cli(
        "evaluate", "clozet", "--pred", pred, "--gold", data / "test.parquet", "--contamination", report,
        "--resamples", "300", "--json", tmp_path / "scores.json",
    )  # fmt: skip
    assert code == 0, out
    assert "clean vs dirty" in out and "dirty - clean" in out and "accuracy" in out and "dirty (24)" in out
    scores = json.loads((tmp_path / "scores.json").read_text())
    c = scores["contamination"]
    assert c["items"]["dirty"] == 24 and c["items"]["clean"] + c["items"]["suspicious"] == 36
    predicted = [json.loads(line)["label"] for line in pred.read_text().splitlines()]
    gold = pq.read_table(data / "test.parquet").to_pylist()
    dirty = {r["example_id"] for r in rows if r["bucket"] == "dirty"}
    right = [str(p) == str(g["label"]) for p, g in zip(predicted, gold) if g["example_id"] in dirty]
    assert c["scores"]["dirty"]["accuracy"] == pytest.approx(sum(right) / len(right))
    d = c["difference"]["accuracy"]
    assert d["low"] <= d["dirty_minus_clean"] <= d["high"]
    assert c["thresholds"]["dirty"] == 0.5
