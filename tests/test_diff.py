"""`lotdata diff`: planted changes reported exactly, seeded samples, exit codes, clean and pull folders, bad input."""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.datasets import diff as diff_module
from lotdata.datasets.diff import diff_paths, render_markdown
from lotdata.datasets.folder import write_dataset
from lotdata.io import write_parquet, write_text
from lotdata.schema import STORY_DECISIONS, table_from_rows

LOTDATA = [sys.executable, "-m", "lotdata.cli"]


def senpos_rows(n: int, seed: int = 0) -> dict[str, list[dict]]:
    """n SenPos examples, four per story, stories 8/1/1 over train/val/test (text invented here)."""
    rng = random.Random(seed)
    out: dict[str, list[dict]] = {"train": [], "val": [], "test": []}
    for i in range(n // 4):
        story = f"s{i:06d}"
        split = "train" if i % 10 < 8 else ("val" if i % 10 == 8 else "test")
        for part in range(4):
            sents = [f"第{i}个故事的第{k}句话写得很长。" * rng.randint(1, 3) for k in range(rng.randint(4, 9))]
            out[split].append(
                {
                    "example_id": f"senpos-{story}-{part}",
                    "story_id": story,
                    "split": split,
                    "sentences": sents,
                    "removed": "被删掉的那一句在这里。" * rng.randint(1, 2),
                    "label": rng.randint(1, len(sents) - 1),
                    "n_candidates": len(sents) - 1,
                    "refined": False,
                    "lang": "zh",
                }
            )
    return out


def plant(a: dict[str, list[dict]]) -> tuple[dict[str, list[dict]], dict]:
    """B = A with 37 removals, 23 additions (new stories), 11 edits of `removed`, 5 of `label`, 3 stories val -> test."""
    b = copy.deepcopy(a)
    rng = random.Random(7)
    train = b["train"]
    removed = {train.pop(rng.randrange(len(train)))["example_id"] for _ in range(37)}
    added = set()
    for i in range(23):
        row = {**copy.deepcopy(train[0]), "example_id": f"senpos-new{i:03d}-0", "story_id": f"new{i:03d}"}
        added.add(row["example_id"])
        train.append(row)
    edits = rng.sample(range(100, len(train) - 23), 16)
    text_edits = {train[i]["example_id"] for i in edits[:11]}
    label_edits = {train[i]["example_id"] for i in edits[11:]}
    for i in edits[:11]:
        train[i]["removed"] += "改"
    for i in edits[11:]:
        train[i]["label"] = train[i]["label"] % train[i]["n_candidates"] + 1
    moved = sorted({r["story_id"] for r in b["val"]})[:3]
    moving = [r for r in b["val"] if r["story_id"] in moved]
    b["val"] = [r for r in b["val"] if r["story_id"] not in moved]
    b["test"] += [{**r, "split": "test"} for r in moving]
    truth = {
        "removed": removed,
        "added": added,
        "text": text_edits,
        "label": label_edits,
        "moved": moved,
        "moved_examples": {r["example_id"] for r in moving},
    }
    return b, truth


def write(folder: Path, rows: dict[str, list[dict]], **params) -> Path:
    write_dataset(
        folder,
        "senpos",
        rows,
        command="test",
        params={"seed": 0, **params},
        inputs=[],
        stats={},
        lot_jsonl=False,
        card=False,
    )
    return folder


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> tuple[Path, Path, dict]:
    root = tmp_path_factory.mktemp("diff")
    a_rows = senpos_rows(20_000)
    b_rows, truth = plant(a_rows)
    return write(root / "a", a_rows), write(root / "b", b_rows), truth


def test_every_planted_change_in_two_20000_example_senpos_builds_is_reported_exactly(planted):
    a, b, truth = planted
    report = diff_paths(a, b, sample=100)
    table = report["tables"][0]
    counts = table["counts"]
    assert (counts["added"], counts["removed"]) == (23, 37)
    assert counts["changed"] == 11 + 5 + len(truth["moved_examples"])
    assert counts["unchanged"] == 20_000 - 37 - 16 - len(truth["moved_examples"])
    assert table["changed_fields"] == {"removed": 11, "label": 5, "split": len(truth["moved_examples"])}
    samples = table["samples"]  # 100 a kind: every change is in the sample
    assert {r["example_id"] for r in samples["added"]} == truth["added"]
    assert {r["example_id"] for r in samples["removed"]} == truth["removed"]
    by_field = {f: {c["key"] for c in samples["changed"] if f in c["fields"]} for f in ("removed", "label", "split")}
    assert by_field == {"removed": truth["text"], "label": truth["label"], "split": truth["moved_examples"]}
    assert [m["story_id"] for m in table["stories"]["moved"]] == truth["moved"]
    assert all(m["before"] == ["val"] and m["after"] == ["test"] for m in table["stories"]["moved"])
    assert table["stories"]["counts"]["stories_added"] == 23
    assert (
        table["by_split"]["val"]["moved_out"] == table["by_split"]["test"]["moved_in"] == len(truth["moved_examples"])
    )
    assert table["splits"]["val"]["before"]["rows"] - table["splits"]["val"]["after"]["rows"] == len(
        truth["moved_examples"]
    )
    assert report["verdict"] == "stories moved" and report["exit_code"] == 5
    assert "MOVED story " + truth["moved"][0] in render_markdown(report)


def test_the_sample_is_seeded_and_the_same_for_any_number_of_partitions(planted, monkeypatch):
    a, b, _ = planted
    first = diff_paths(a, b, sample=3, seed=1)
    assert diff_paths(a, b, sample=3, seed=1)["tables"][0]["samples"] == first["tables"][0]["samples"]
    assert diff_paths(a, b, sample=3, seed=2)["tables"][0]["samples"] != first["tables"][0]["samples"]
    monkeypatch.setattr(diff_module, "PARTITION_ROWS", 1_500)  # 14 partitions a side
    monkeypatch.setattr(diff_module, "BATCH_ROWS", 1_000)
    many = diff_paths(a, b, sample=3, seed=1)
    assert many["tables"][0] == first["tables"][0]


def test_a_rebuild_is_equal_and_a_label_edit_is_different(tmp_path: Path):
    rows = senpos_rows(400)
    a, same = write(tmp_path / "a", rows), write(tmp_path / "same", rows)
    report = diff_paths(a, same)
    assert report["verdict"] == "equal" and report["exit_code"] == 0
    assert report["manifest"]["changed"] == {} and report["tables"][0]["identical_files"] == ["test", "train", "val"]
    assert report["tables"][0]["counts"]["unchanged"] == 400
    edited = copy.deepcopy(rows)
    edited["test"][0]["label"] = edited["test"][0]["label"] % edited["test"][0]["n_candidates"] + 1
    b = write(tmp_path / "b", edited, min_chars=12)
    report = diff_paths(a, b)
    assert report["verdict"] == "different" and report["exit_code"] == 1
    assert report["manifest"]["changed"]["params.min_chars"] == {"before": None, "after": 12}
    assert report["tables"][0]["identical_files"] == ["train", "val"]
    assert report["tables"][0]["changed_fields"] == {"label": 1}


def run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*LOTDATA, *map(str, args)], capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}
    )


def test_cli_exit_codes_and_json(planted, tmp_path: Path):
    a, b, truth = planted
    moved = run("diff", a, b, "--json", "-")
    assert moved.returncode == 5, moved.stderr
    assert json.loads(moved.stdout)["tables"][0]["stories"]["moved"][0]["story_id"] == truth["moved"][0]
    assert CliRunner().invoke(app, ["diff", str(a), str(a)]).exit_code == 0
    text = CliRunner().invoke(app, ["diff", str(a), str(b), "--json", str(tmp_path / "d.json")])
    assert text.exit_code == 5 and "Verdict: **stories moved**" in text.output
    assert json.loads((tmp_path / "d.json").read_text())["verdict"] == "stories moved"


def test_bad_input_is_exit_3_naming_the_path(planted, tmp_path: Path):
    a, _, _ = planted
    other = tmp_path / "outgen"
    write_dataset(
        other,
        "outgen",
        {
            "train": [
                {
                    "example_id": "o1",
                    "story_id": "s1",
                    "split": "train",
                    "title": "t",
                    "outline": ["x"],
                    "story": "一个故事。",
                    "lang": "zh",
                }
            ]
        },
        command="test",
        params={},
        inputs=[],
        stats={},
        lot_jsonl=False,
        card=False,
    )
    bare = tmp_path / "bare"
    bare.mkdir()
    stopped = tmp_path / "stopped"
    write(stopped, senpos_rows(8))
    (stopped / ".incomplete").write_text("a build was stopped\n")
    cases = [
        (other, "holds a outgen dataset"),
        (a / "train.parquet", "is a file"),
        (bare, "no manifest.json"),
        (tmp_path / "missing", "not found"),
        (stopped, "incomplete"),
    ]
    for path, words in cases:
        result = CliRunner().invoke(app, ["diff", str(a), str(path)])
        assert result.exit_code == 3, (path, result.output)
        assert str(path) in " ".join(result.output.split()) and words in result.output


def _pull(folder: Path, decisions: list[tuple[str, str, str]], valid: int) -> Path:
    rows = [
        {
            "story_id": s,
            "decision": d,
            "old_text": "旧的故事。",
            "annotator": r,
            "annotation_id": f"{s}-{r}",
            "final": True,
        }
        for s, r, d in decisions
    ]
    write_parquet(table_from_rows(rows, STORY_DECISIONS), folder / "story_decisions.parquet")
    write_text(json.dumps({"job": "story_filter", "valid": valid, "seconds": 1.5}), folder / "pull.json")
    return folder


def test_two_annotation_pulls_show_changed_decisions_by_rater(tmp_path: Path):
    before = [("s1", "ann@x", "accept"), ("s2", "ann@x", "accept"), ("s1", "bo@x", "reject"), ("s3", "bo@x", "accept")]
    after = [
        ("s1", "ann@x", "reject"),
        ("s2", "ann@x", "accept"),
        ("s1", "bo@x", "reject"),
        ("s3", "bo@x", "rewrite"),
        ("s4", "cy@x", "accept"),
    ]
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    report = diff_paths(_pull(tmp_path / "a", before, 4), _pull(tmp_path / "b", after, 5))
    assert report["kind"] == "pull" and report["verdict"] == "different"
    assert report["documents"]["pull.json"]["changed"] == {"valid": {"before": 4, "after": 5}}
    decisions = next(t for t in report["tables"] if t["table"] == "story_decisions")
    assert decisions["raters"] == {"ann@x": {"changed": 1}, "bo@x": {"changed": 1}, "cy@x": {"added": 1}}
    assert decisions["changed_fields"] == {"decision": 2}
    assert decisions["splits"]["all"]["after"]["distributions"]["decision"] == {"accept": 2, "reject": 2, "rewrite": 1}


def test_two_clean_outputs(tmp_path: Path):
    from lotdata.clean.files import clean_files
    from lotdata.clean.step import CleanParams
    from lotdata.sources.read_stage import read_step

    stories = tmp_path / "stories.parquet"
    read_step(["lotdata:sample"], stories)
    clean_files([stories], tmp_path / "c1", CleanParams())
    clean_files([stories], tmp_path / "c2", CleanParams(min_chars=400))
    report = diff_paths(tmp_path / "c1", tmp_path / "c2")
    assert report["kind"] == "clean" and report["verdict"] == "different"
    assert report["manifest"]["changed"]["params.min_chars"] == {"before": 50, "after": 400}
    tables = {t["table"]: t for t in report["tables"]}
    kept, rejected = tables["stories"]["counts"], tables["quarantine"]["counts"]
    assert kept["removed"] > 0 and kept["removed"] == rejected["added"]


def test_a_key_seen_twice_on_a_side_is_matched_in_order(tmp_path: Path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    twice = [("s1", "ann@x", "accept"), ("s1", "ann@x", "reject")]  # a rater who answered one task twice
    a = _pull(tmp_path / "a", twice, 2) / "story_decisions.parquet"
    b = _pull(tmp_path / "b", [twice[0], ("s1", "ann@x", "rewrite")], 2) / "story_decisions.parquet"
    report = diff_paths(a, b, sample=5)
    table = report["tables"][0]
    assert report["kind"] == "table" and table["counts"]["changed"] == 1 and table["counts"]["unchanged"] == 1
    assert table["samples"]["changed"][0]["key"] == "s1\x1fann@x#2"
