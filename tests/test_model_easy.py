"""sct_write's `model_easy` flag (issue 39, item 2): an ending-only model scores each written pair; a pair it gets
right with high confidence without the story goes to review with the reason, its writer's revision task says a model
saw through her endings, and `annotate check sct_write --model` flags the same way. Real Story Cloze figures are in
bench/model_easy.md (benchmarks/bench_model_easy.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.annotate.jobs import sct_write
from lotdata.annotate.jobs.review import sct_revision
from lotdata.cli import app

pytest.importorskip("sklearn")


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def giveaway_cases(n: int) -> list[dict]:
    """Cases whose right ending always says 'happily' and wrong one 'hated' (the ending alone gives it away), and a
    few whose endings share every word (no model can tell them apart)."""
    cases = []
    for i in range(n):
        right, wrong = (f"She smiled happily at case {i}.", f"She hated case {i}.")
        if i % 10 == 0:
            right, wrong = (f"He went home {i}.", f"He went home {i} again.")
        cases.append({"id": f"c{i}", "story_id": f"s{i}", "lang": "en", "right_ending": right, "wrong_ending": wrong})
    return cases


def test_a_pair_the_model_sees_through_is_flagged_with_its_confidence():
    easy = sct_write.model_easy(giveaway_cases(80))
    flagged = {f["id"] for f in easy["flags"]}
    assert flagged and all(f["rule"] == "model_easy" and f["level"] == "refuse" for f in easy["flags"])
    assert all("%" in f["detail"] and "never read the story" in f["detail"] for f in easy["flags"])
    assert not {f"c{i}" for i in range(0, 80, 10)} & flagged  # the pairs that need the story are not flagged
    assert easy["stats"]["scored"] == 80 and easy["stats"]["model_easy"] == len(flagged)
    assert easy["model"] is not None  # trained on all the cases: the next round's --model


def test_too_few_cases_are_not_scored_and_say_why():
    easy = sct_write.model_easy(giveaway_cases(10))
    assert easy["flags"] == [] and "fewer than 50" in easy["stats"]["why"]
    assert sct_write.model_easy(giveaway_cases(80), "off")["stats"] == {"scored": 0, "why": "off"}


def test_the_writers_next_task_says_a_model_saw_through_her_endings():
    case = {
        **giveaway_cases(1)[0],
        "split": "test",
        "context": ["a.", "b.", "c.", "d."],
        "writer": "ann@example.org",
        "flags": ["model_easy"],
        "model_confidence": 0.97,
    }
    revision = sct_revision(case, "Too easy.")
    assert revision["previous"]["model_confidence"] == 0.97
    task = sct_write.to_tasks([revision], lang="en")[0]
    assert "picked your right ending with 97% confidence" in task["data"]["feedback"]
    plain = sct_revision({**case, "flags": []}, "Typo.")
    assert "model_confidence" not in plain["previous"]
    assert "model" not in sct_write.to_tasks([plain], lang="en")[0]["data"]["feedback"]


def test_check_with_a_model_flags_model_easy(tmp_path: Path):
    from lotdata.quality.commands import QUALITY_ENDINGS

    sample = QUALITY_ENDINGS.sample(tmp_path)
    result = invoke("quality", "endings", *sample)
    assert result.exit_code == 0, result.output
    model = sample[sample.index("--out") + 1]
    result = invoke("annotate", "check", "sct_write", "--input", sample[0], "--out", tmp_path / "chk", "--model", model)
    assert result.exit_code == 5, result.output  # CHECK_FLAGGED_EXIT: something was flagged
    flags = [f for f in pq.read_table(tmp_path / "chk" / "flags.parquet").to_pylist() if f["rule"] == "model_easy"]
    assert flags  # 'found' vs 'hated': the ending alone gives it away
    summary = json.loads((tmp_path / "chk" / "check.json").read_text())
    assert summary["per_rule"]["model_easy"] == len(flags) and summary["model_easy"]["scored"] == 20


def test_model_only_for_sct_write(tmp_path: Path):
    subs = tmp_path / "subs.jsonl"
    subs.write_text(json.dumps({"id": "s1", "title": "t", "sentences": ["A b."] * 5}) + "\n")
    result = invoke("annotate", "check", "story_write", "--input", subs, "--out", tmp_path / "o", "--model", tmp_path)
    assert result.exit_code != 0 and "sct_write" in result.output


def test_pull_refuses_a_model_off_sct_write_or_not_there_before_connecting(tmp_path: Path):
    pull = ("annotate", "pull", "--project", "p", "--out", tmp_path / "o", "--model")
    other = invoke(*pull[:2], "story_filter", *pull[2:], tmp_path)  # not ignored: no other job's pull takes a model
    assert other.exit_code == 1 and "sct_write" in other.output and "Traceback" not in other.output
    missing = invoke(*pull[:2], "sct_write", *pull[2:], tmp_path / "nowhere")
    assert missing.exit_code == 1 and "nowhere" in missing.output and "no such folder" in missing.output
    assert not (tmp_path / "o").exists()


def test_a_pull_sends_model_easy_cases_to_review_and_keeps_the_model(tmp_path: Path):
    from lotdata.annotate.jobs.base import Annotation, Output

    annotations = [
        Annotation(
            uid=f"u{i}",
            data={},
            annotator="ann@example.org",
            annotation_id=i + 1,
            created_at="2026-01-01T00:00:00",
            values={"right_ending": c["right_ending"], "wrong_ending": c["wrong_ending"]},
            hidden={
                "story_id": c["story_id"],
                "split": "test",
                "lang": "en",
                "four": ["Ann is here.", "b.", "c.", "d."],
            },
        )
        for i, c in enumerate(giveaway_cases(60))
    ]
    assembled = sct_write.assemble(annotations)
    easy = [c for c in assembled["cases"] if "model_easy" in c["flags"]]
    assert easy and all(c["to_review"] and c["model_confidence"] >= 0.9 for c in easy)
    assert {c["story_id"] for c in easy}.isdisjoint(r["story_id"] for r in assembled["clozet"])
    assert assembled["stats"]["model_easy"]["model_easy"] == len(easy)
    sct_write.write(assembled, Output(folder=tmp_path / "pull", job="sct_write", params={}, command="test"))
    assert (tmp_path / "pull" / "ending_model" / "model.joblib").exists()
    off = sct_write.assemble(annotations, model="off")
    assert not any("model_easy" in c["flags"] for c in off["cases"])


def test_endings_of_a_pull_folder_without_both_endings_name_the_row(tmp_path: Path):
    pull = tmp_path / "pull"
    pull.mkdir()
    cases = [{"right_ending": "A.", "wrong_ending": "B."}, {"right_ending": "C."}]
    (pull / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    result = invoke("quality", "endings", pull, "--out", tmp_path / "model")
    assert result.exit_code == 3, result.output
    assert "cases.jsonl, row 2" in result.output and "wrong_ending" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "model").exists()
