"""The story-quality classifier (issue 39, item 3): `quality train` learns from raters' decisions (status), `quality
score` writes a score column and the threshold in the manifest, `clean --quality-model` orders or drops (a dropped story
goes to quarantine, never silently), and the threshold rule keeps the share of kept stories it promises."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.io import write_parquet
from lotdata.quality.commands import decision_rows
from lotdata.quality.model import labelled_stories, propose_threshold, rejection_figures

pytest.importorskip("sklearn")


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def test_only_decisions_are_learnt_from():
    rows = [
        {"story_id": "a", "text": "x", "status": "accepted"},
        {"story_id": "b", "text": "y", "status": "rewritten"},
        {"story_id": "c", "text": "z", "status": "rejected"},
        {"story_id": "d", "text": "w", "status": "clean"},
    ]
    found, counts = labelled_stories(rows)
    assert [(r["story_id"], r["label"]) for r in found] == [("a", 1), ("b", 1), ("c", 0)]
    assert counts == {"accepted": 1, "rewritten": 1, "rejected": 1, "clean": 1}


def test_the_threshold_keeps_the_promised_share_of_kept_stories():
    scores = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95] + [0.05, 0.15, 0.35]
    labels = [1] * 10 + [0] * 3
    t = propose_threshold(scores, labels, 0.9)  # one kept story of ten may fall below
    assert t == 0.2
    figures = rejection_figures(scores, labels, t)
    assert figures["kept_lost"] == pytest.approx(0.1)
    assert figures["reject_recall"] == pytest.approx(2 / 3) and figures["reject_precision"] == pytest.approx(2 / 3)


def test_train_then_score_through_the_cli(tmp_path: Path):
    stories = write_parquet(pa.Table.from_pylist(decision_rows(40)), tmp_path / "decisions.parquet")
    result = invoke("quality", "train", stories, "--out", tmp_path / "model")
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "model" / "manifest.json").read_text())
    assert manifest["kind"] == "quality-model" and manifest["held_out"]["stories"] > 0
    assert manifest["held_out"]["reject_recall"] == 1.0  # minutes and stories are easy to tell apart

    fresh = write_parquet(pa.Table.from_pylist(decision_rows(3)), tmp_path / "fresh.parquet")
    result = invoke("quality", "score", fresh, "--model", tmp_path / "model", "--out", tmp_path / "scored")
    assert result.exit_code == 0, result.output
    scored = pq.read_table(tmp_path / "scored" / "stories.parquet").to_pylist()
    kept = [r["quality_score"] for r in scored if r["status"] == "accepted"]
    rejected = [r["quality_score"] for r in scored if r["status"] == "rejected"]
    assert min(kept) > max(rejected)
    scores_manifest = json.loads((tmp_path / "scored" / "manifest.json").read_text())
    assert scores_manifest["kind"] == "quality-scores" and scores_manifest["score_column"] == "quality_score"
    assert scores_manifest["threshold"] == pytest.approx(manifest["threshold"])


def test_one_kind_of_decision_is_bad_input(tmp_path: Path):
    rows = [r for r in decision_rows(20) if r["status"] == "accepted"]
    stories = write_parquet(pa.Table.from_pylist(rows), tmp_path / "decisions.parquet")
    result = invoke("quality", "train", stories, "--out", tmp_path / "model")
    assert result.exit_code == 3 and "rejected" in result.output


def test_clean_drops_below_the_threshold_into_quarantine(tmp_path: Path):
    from lotdata.quality.model import train_quality

    train_quality(decision_rows(40)).save(tmp_path / "model")
    texts = [r["text"] * 2 for r in decision_rows(3)]  # long enough to pass clean's length rule
    rows = [{**r, "text": t} for r, t in zip(decision_rows(3), texts)]
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.story import make_story_row

    stories = write_parquet(
        table_from_rows([make_story_row(r["text"], source="t", lang="en") for r in rows], STORIES),
        tmp_path / "stories.parquet",
    )
    result = invoke(
        "clean", stories, "--out", tmp_path / "clean", "--quality-model", tmp_path / "model", "--quality", "drop"
    )
    assert result.exit_code == 0, result.output
    kept = pq.read_table(tmp_path / "clean" / "stories.parquet").column("text").to_pylist()
    assert kept and all("puppy" in t for t in kept)
    quarantine = pq.read_table(tmp_path / "clean" / "quarantine.parquet").to_pylist()
    dropped = [q for q in quarantine if q["rule"] == "quality_below_threshold"]
    assert dropped and all("committee" in q["text"] and "< threshold" in q["evidence"] for q in dropped)
    manifest = json.loads((tmp_path / "clean" / "manifest.json").read_text())
    assert manifest["stats"]["quality"]["dropped"] == len(dropped)
    assert manifest["splits"]["stories"]["rows"] == len(kept)


def test_clean_refuses_a_model_folder_without_a_threshold_before_cleaning(tmp_path: Path):
    from lotdata.quality.model import train_quality
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.story import make_story_row

    train_quality(decision_rows(40)).save(tmp_path / "model")
    manifest = tmp_path / "model" / "manifest.json"
    info = json.loads(manifest.read_text())
    del info["threshold"]
    manifest.write_text(json.dumps(info))
    stories = write_parquet(
        table_from_rows([make_story_row("A puppy ran home. " * 5, source="t", lang="en")], STORIES),
        tmp_path / "stories.parquet",
    )
    result = invoke("clean", stories, "--out", tmp_path / "clean", "--quality-model", tmp_path / "model")
    assert result.exit_code == 3, result.output
    assert "threshold" in result.output and "manifest.json" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "clean").exists()
