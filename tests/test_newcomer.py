"""The newcomer's path (issue 23, class 8): clean keeps the copy with a separate title, audit-bias on a Story Cloze
Test names --train-split val, every sharded command takes --ray-address, a Ray head with token authentication gets
one clear line with the fix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import write_stories
from typer.testing import CliRunner

from lotdata.cli import app

runner = CliRunner()
STORY = (
    "清澈的小河边住着一只小鹿，它每天早上都到河边喝水。有一天，一只狮子从树林里走了出来，小鹿吓得一动也不敢动。"
    "狮子说：“别怕，我只是来喝水的。”从那以后，它们成了好朋友，每天一起在河边玩耍。"
)


def test_clean_keeps_the_copy_with_a_separate_title_not_the_glued_one(tmp_path):
    write_stories(tmp_path / "titled.parquet", [STORY], titles=["鹿和狮子"])
    write_stories(tmp_path / "glued.parquet", ["鹿和狮子" + STORY])  # CMRC/CFT style: the title glued to sentence 1
    for order in (["glued", "titled"], ["titled", "glued"]):
        out = tmp_path / f"clean-{order[0]}"
        result = runner.invoke(
            app, ["clean", *(str(tmp_path / f"{name}.parquet") for name in order), "--out", str(out)]
        )
        assert result.exit_code == 0, result.output
        kept = pq.read_table(out / "stories.parquet").to_pylist()
        assert [(r["title"], r["text"].startswith("清澈")) for r in kept] == [("鹿和狮子", True)]


def test_audit_bias_on_a_story_cloze_test_names_train_split_val(tmp_path):
    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    for split in ("val", "test"):
        (tmp_path / f"{split}.csv").write_text(
            header
            + "".join(
                f"{split}{i},Tom had a {split} dog {i}.,It was old.,One day it ran.,Tom looked.,He found it.,He ate a car.,{1 + i % 2}\n"
                for i in range(12)
            ),
            encoding="utf-8",
        )
    assert (
        runner.invoke(
            app,
            [
                "import",
                "storycloze",
                "--val",
                str(tmp_path / "val.csv"),
                "--test",
                str(tmp_path / "test.csv"),
                "--out",
                str(tmp_path / "sct"),
            ],
        ).exit_code
        == 0
    )
    result = runner.invoke(
        app,
        [
            "audit-bias",
            str(tmp_path / "sct"),
            "--out",
            str(tmp_path / "rep"),
            "--baseline",
            "majority",
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "skipped majority" in result.output and "--train-split val" in result.output


@pytest.mark.parametrize("command", [["read"], ["clean"], ["build", "senpos"], ["audit-bias"], ["overlap"]])
def test_every_sharded_command_takes_ray_address(command):
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0 and "--ray-address" in result.output


@pytest.mark.slow
def test_a_ray_head_with_token_auth_gives_one_line_with_the_fix(tmp_path):
    """A real Ray head started with RAY_AUTH_MODE=token (~30 s: Ray retries the session before it gives up)."""
    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent))
    if ray_cli is None:
        pytest.skip("the ray extra is not installed")
    port = "6397"
    auth = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "lotdata-test-token-0123456789abcdef0123"}
    subprocess.run(
        [
            ray_cli,
            "start",
            "--head",
            f"--port={port}",
            "--num-cpus=1",
            "--include-dashboard=false",
            "--disable-usage-stats",
        ],
        env=auth,
        check=True,
        capture_output=True,
        timeout=120,
    )
    try:
        (tmp_path / "t.txt").write_text("从前有一只小兔子，它住在森林里。它每天都去河边喝水。\n", encoding="utf-8")
        plain = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "lotdata.cli",
                "read",
                str(tmp_path / "t.txt"),
                "--out",
                str(tmp_path / "s.parquet"),
                "--executor",
                "ray",
                "--ray-address",
                f"127.0.0.1:{port}",
            ],
            env=plain,
            capture_output=True,
            text=True,
            timeout=180,
        )
    finally:
        subprocess.run([ray_cli, "stop", "--force"], env=auth, capture_output=True, timeout=120)
    assert result.returncode == 1, result.stderr[-2000:]
    assert (
        "RAY_AUTH_MODE=token" in result.stderr
        and "RAY_AUTH_TOKEN" in result.stderr
        and "Traceback" not in result.stderr
    )


def test_a_missing_extra_stops_clean_audit_and_a_recipe_before_any_output(tmp_path, monkeypatch):
    import sys

    write_stories(tmp_path / "s.parquet", [STORY])
    monkeypatch.setitem(sys.modules, "rensa", None)  # as if the sources extra were not installed
    result = runner.invoke(app, ["clean", str(tmp_path / "s.parquet"), "--out", str(tmp_path / "c")])
    assert result.exit_code == 4 and "[sources]'" in result.output and not (tmp_path / "c").exists()
    (tmp_path / "r.toml").write_text(f'stories = "{tmp_path / "s.parquet"}"\n[clean]\n', encoding="utf-8")
    recipe = runner.invoke(app, ["run", str(tmp_path / "r.toml"), "--out", str(tmp_path / "run")])
    assert recipe.exit_code == 4 and not (tmp_path / "run").exists(), recipe.output
    monkeypatch.setitem(sys.modules, "statsmodels.stats.multitest", None)
    audit = runner.invoke(app, ["audit-bias", str(tmp_path / "s.parquet"), "--out", str(tmp_path / "a")])
    assert audit.exit_code == 4 and "[audit]'" in audit.output and not (tmp_path / "a").exists()


def test_stats_reads_what_the_build_computed_and_only_while_it_still_holds(tmp_path, monkeypatch):
    import json

    import lotdata.datasets.folder as folder_module
    from lotdata.datasets.folder import dataset_stats

    stories = tmp_path / "s.parquet"
    assert runner.invoke(app, ["read", "lotdata:sample", "--out", str(stories)]).exit_code == 0
    assert (
        runner.invoke(
            app, ["build", "outgen", "--stories", str(stories), "--out", str(tmp_path / "og"), "--n", "12"]
        ).exit_code
        == 0
    )
    saved = json.loads((tmp_path / "og" / "stats.json").read_text(encoding="utf-8"))
    counted = []
    real = folder_module.split_stats
    monkeypatch.setattr(folder_module, "split_stats", lambda *a: counted.append(1) or real(*a))
    cached = dataset_stats(tmp_path / "og")
    assert not counted and cached["splits"]["train"] == saved["splits"]["train"]["stats"]
    (tmp_path / "og" / "stats.json").unlink()
    assert dataset_stats(tmp_path / "og") == cached and counted  # counted again: the same figures
    monkeypatch.setenv("LOTDATA_TOKENIZER", "jieba-nohmm")  # another tokenizer asked for: not the saved figures
    assert runner.invoke(app, ["card", str(tmp_path / "og")]).exit_code == 0
    counted.clear()
    monkeypatch.setenv("LOTDATA_TOKENIZER", "jieba")
    dataset_stats(tmp_path / "og")
    assert counted
