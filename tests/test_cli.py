"""The CLI end to end, as a user runs it: real subprocesses, real files, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

REPO = Path(__file__).resolve().parents[1]
LOTDATA = [sys.executable, "-m", "lotdata.cli"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([*LOTDATA, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env)


def test_build_senpos_recipe_on_embedded_sample(tmp_path: Path):
    result = run("run", "senpos", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "senpos"
    manifest = json.loads((folder / "manifest.json").read_text())
    counts = {s: pq.read_table(folder / f"{s}.parquet").num_rows for s in ("train", "val", "test")}
    assert all(n > 0 for n in counts.values())
    assert {s: manifest["splits"][s]["rows"] for s in counts} == counts
    for split, n in counts.items():
        assert len((folder / "lot" / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()) == n
    # a second run resumes: every step is already done
    again = run("run", "senpos", "--out", tmp_path)
    assert again.returncode == 0 and "skipped (done)" in again.stderr


def test_a_deleted_or_changed_output_is_not_done_and_a_missing_split_is_an_error(tmp_path: Path):
    assert run("run", "senpos", "--out", tmp_path).returncode == 0
    train = tmp_path / "senpos" / "train.parquet"
    train.unlink()
    stats = run("stats", tmp_path / "senpos")
    assert stats.returncode == 3 and "train.parquet" in stats.stderr and "Traceback" not in stats.stderr
    exported = run("export", "lot", tmp_path / "senpos", "--out", tmp_path / "lot")
    assert exported.returncode == 3 and "train.parquet" in exported.stderr
    again = run("run", "senpos", "--out", tmp_path)
    assert again.returncode == 0, again.stderr
    assert "build-senpos: done" in again.stderr and "build-senpos: skipped" not in again.stderr and train.exists()
    (tmp_path / "senpos" / "lot" / "val.jsonl").write_text("changed\n", encoding="utf-8")
    third = run("run", "senpos", "--out", tmp_path)
    assert "build-senpos: done" in third.stderr and "read: skipped (done)" in third.stderr


def test_demo_builds_three_tasks_and_prints_table3(tmp_path: Path):
    result = run("demo", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    for task in ("senpos", "plotcom", "outgen"):
        assert (tmp_path / task / "manifest.json").exists()
    assert "avg_candidate_positions" in result.stdout and "avg_phrases_outline" in result.stdout


def test_read_build_stats_export(tmp_path: Path):
    corpus = tmp_path / "corpus.jsonl"
    stories = [
        {
            "id": f"x{i}",
            "title": "风筝",
            "text": f"第{i}天早上，小熊在森林里散步，看见小兔坐在河边发呆。小熊走过去问：“你怎么一个人坐在这里呀？”"
            "小兔叹了口气说：“我的风筝挂在最高的那棵树上了。”小熊想了想，跑回家拿来一根长长的竹竿。它们一起用竹竿把风筝从树枝上轻轻挑了下来。",
        }
        for i in range(20)
    ]
    corpus.write_text(
        "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in stories) + "{broken\n", encoding="utf-8"
    )
    read = run("read", corpus, "--out", tmp_path / "stories.parquet")
    assert read.returncode == 0, read.stderr
    assert pq.read_table(tmp_path / "stories.parquet").num_rows == 20
    quarantine = pq.read_table(tmp_path / "stories.quarantine.parquet").to_pylist()
    assert quarantine[0]["row"] == 21
    build = run(
        "build",
        "plotcom",
        "--stories",
        tmp_path / "stories.parquet",
        "--out",
        tmp_path / "pc",
        "--seed",
        "3",
        "--split",
        "val=4,test=4",
    )
    assert build.returncode == 0, build.stderr
    assert pq.read_table(tmp_path / "pc" / "val.parquet").num_rows == 4
    stats = run("stats", tmp_path / "pc", "--json", "-")
    assert stats.returncode == 0, stats.stderr
    data = json.loads(stats.stdout)
    assert data["task"] == "plotcom" and data["splits"]["test"]["examples"] == 4
    export = run("export", "lot", tmp_path / "pc", "--out", tmp_path / "lot")
    assert export.returncode == 0
    assert (tmp_path / "lot" / "train.jsonl").read_text(encoding="utf-8") == (
        tmp_path / "pc" / "lot" / "train.jsonl"
    ).read_text(encoding="utf-8")


def test_errors_name_the_file_and_use_stable_exit_codes(tmp_path: Path):
    missing = run("build", "senpos", "--stories", tmp_path / "nope.parquet", "--out", tmp_path / "o")
    assert missing.returncode == 1 and "nope.parquet" in missing.stderr and "Traceback" not in missing.stderr
    not_stories = tmp_path / "x.parquet"
    import pyarrow as pa

    pq.write_table(pa.table({"a": [1]}), not_stories)
    wrong = run("build", "senpos", "--stories", not_stories, "--out", tmp_path / "o")
    assert wrong.returncode == 3 and "missing columns" in wrong.stderr
    bad_split = run("build", "senpos", "--stories", not_stories, "--out", tmp_path / "o", "--split", "train=0.5")
    assert bad_split.returncode == 1 and "split" in bad_split.stderr
    usage = run("build", "senpos")
    assert usage.returncode == 2


def test_wheel_ships_recipes_templates_and_sample(tmp_path: Path):
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0 and "Could not find a version" in result.stderr:
        pytest.skip("hatchling is not installable here")
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("lotdata-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "lotdata/_assets/pipelines/senpos.toml" in names
    assert "lotdata/_assets/annotation_templates/story_filter.xml" in names
    assert "lotdata/_assets/baselines/longlm.toml" in names
    assert "lotdata/data/sample_stories.jsonl" in names
    assert "lotdata/data/stopwords_zh.txt" in names


def test_version_prints_the_version_and_exits_0():
    from lotdata import __version__

    result = run("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"lotdata {__version__}"


def test_an_unknown_lang_is_a_bad_parameter_naming_the_option_and_the_values(tmp_path: Path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "Tom went out. He saw a dog. He was happy."}\n', encoding="utf-8")
    result = run("read", corpus, "--out", tmp_path / "s.parquet", "--lang", "fr")
    # the runner's one wording for a value outside a parameter's choices (as a recipe's [read] lang is refused)
    assert result.returncode == 1 and "--lang" in result.stderr and "['zh', 'en']" in result.stderr
    assert not (tmp_path / "s.parquet").exists()


def test_help_texts_name_the_right_extra_and_are_task_neutral(monkeypatch):
    # in process: seven interpreters only to print help cost ~12 s of the suite on 2 shared cores
    from types import SimpleNamespace

    from typer.testing import CliRunner

    from lotdata.cli import app

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("TERMINAL_WIDTH", "200")

    def run(*args: str) -> "SimpleNamespace":
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return SimpleNamespace(stdout=result.output)

    top = run("--help")
    assert "pip install 'lotdata[models]'" in top.stdout and "pip install 'lotdata')" not in top.stdout
    assert "pip install 'lotdata[models]'" in run("baseline", "--help").stdout
    for task in ("plotcom", "outgen"):
        assert "LOT SenPos: 20000" not in run("build", task, "--help").stdout
    outgen = run("build", "outgen", "--help").stdout
    assert "outline phrases" in outgen and "left out of the outline" in outgen
    assert "Re-run every step" in run("demo", "--help").stdout
