"""`build` on the executor: the same bytes for 1 worker, 2 workers and Ray; a stopped build resumes."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.exec import ExecSettings
from lotdata.io import write_parquet
from lotdata.resources import sample_corpus_path
from lotdata.schema import STORIES, table_from_rows
from lotdata.sources.readers import read_stories
from lotdata.tasks.build import WORK_DIR, build_dataset, build_examples, build_examples_sharded

BUILDERS = ["senpos", "plotcom", "outgen"]
FILES = ["train.parquet", "val.parquet", "test.parquet", "lot/train.jsonl", "lot/val.jsonl", "lot/test.jsonl"]


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> Path:
    rows = read_stories([sample_corpus_path()]).stories
    return write_parquet(table_from_rows(rows, STORIES), tmp_path_factory.mktemp("exec") / "stories.parquet")


def _bytes(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in FILES}


@pytest.mark.parametrize("task", BUILDERS)
def test_one_worker_two_workers_and_ray_give_the_same_bytes(task: str, stories: Path, tmp_path: Path, ray_local):
    kwargs = dict(seed=3, split="train=0.6,val=0.2,test=0.2", shard_rows=4)
    one = build_dataset(task, [stories], tmp_path / "one", **kwargs)
    two = build_dataset(task, [stories], tmp_path / "two", execution=ExecSettings(workers=2), **kwargs)
    on_ray = build_dataset(
        task, [stories], tmp_path / "ray", execution=ExecSettings(workers=2, executor="ray"), **kwargs
    )
    assert sum(one.rows_per_split.values()) > 0
    assert _bytes(tmp_path / "one") == _bytes(tmp_path / "two") == _bytes(tmp_path / "ray")
    assert {k: v for k, v in one.stats.items() if "second" not in k} == {
        k: v for k, v in on_ray.stats.items() if "second" not in k
    }
    assert not (tmp_path / "two" / WORK_DIR).exists()  # the work folder goes once the dataset is written
    # and the same as the whole table built in one go, without shards
    whole = build_dataset(
        task, [stories], tmp_path / "whole", seed=3, split="train=0.6,val=0.2,test=0.2", shard_rows=10_000
    )
    assert (
        _bytes(tmp_path / "whole") == _bytes(tmp_path / "one")
        and two.stats["examples_built"] == whole.stats["examples_built"]
    )


def test_a_stopped_build_resumes_its_finished_shards(stories: Path, tmp_path: Path):
    rows = read_stories([sample_corpus_path()]).stories
    seen: list[int] = []
    first, _ = build_examples_sharded("plotcom", rows, tmp_path / "work", seed=0, shard_rows=5, progress=seen.append)
    assert sum(seen) == len(rows)
    done = sorted((tmp_path / "work" / "done").glob("*.json"))
    assert len(done) == -(-len(rows) // 5)
    done[-1].unlink()  # as if the run had stopped before its last shard
    (tmp_path / "work" / "parts" / "00000.jsonl").write_text("", encoding="utf-8")  # a finished part is not redone
    again, stats = build_examples_sharded("plotcom", rows, tmp_path / "work", seed=0, shard_rows=5)
    assert len(again) == len(first) - sum(1 for ex in first if ex["story_id"] in {r["story_id"] for r in rows[:5]})
    assert stats.stories_in == len(rows)
    other_seed, _ = build_examples_sharded(
        "plotcom", rows, tmp_path / "work", seed=1, shard_rows=5
    )  # new job: all redone
    assert len(other_seed) == len(build_examples("plotcom", rows, seed=1)[0])


def test_cli_build_options(stories: Path, tmp_path: Path):
    runner = CliRunner()
    ok = runner.invoke(
        app,
        ["build", "senpos", "--stories", str(stories), "--out", str(tmp_path / "s"), "--workers", "2", "--seed", "1"],
    )
    assert ok.exit_code == 0, ok.output
    assert (tmp_path / "s" / "train.parquet").exists()
    bad = runner.invoke(
        app, ["build", "senpos", "--stories", str(stories), "--out", str(tmp_path / "b"), "--executor", "spark"]
    )
    assert bad.exit_code == 1 and "unknown executor 'spark'" in bad.output
    zero = runner.invoke(
        app, ["build", "outgen", "--stories", str(stories), "--out", str(tmp_path / "z"), "--workers", "0"]
    )
    assert zero.exit_code == 1 and "--workers" in zero.output
