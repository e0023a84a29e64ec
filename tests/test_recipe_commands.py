"""A recipe step is its command (issue 33): each step runs its command's record through the one runner, so it
gets what the command gets on the command line (a lock per output, the output built beside its target and
swapped in whole, outputs checked against what is there) and the command's fingerprint; which steps are sources
the stage records say, so a made-up source stage feeds a recipe with no lotdata file edited."""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata import stage as stage_module
from lotdata.cli import app
from lotdata.exec import ExecSettings
from lotdata.io import lock_path_for, write_parquet
from lotdata.resources import sample_corpus_path
from lotdata.schema import STORIES, table_from_rows
from lotdata.stage import DONE_DIR, Stage, StepContext, param, register_stage, stages


def invoke(*args: Any):
    return CliRunner().invoke(app, [str(a) for a in args])


def digest(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------------------------
# a made-up source stage, registered here only: N fixed stories


@dataclass(frozen=True)
class FixedParams:
    n: int = param(6, "Stories written.", check=">0")
    out: str = param("fixed.parquet", "stories table", cli=False)


def _story(i: int) -> str:
    return "".join(f"小明在第{i}天的早上第{j}次走进了学校的大门。" for j in range(6))


def _run_fixed(ctx: StepContext, params: FixedParams, execution: ExecSettings, table: dict, index: int) -> None:
    from lotdata.sources.story import make_story_row

    out = ctx.root / params.out
    fp = ctx.cached("fixed", {"fixed": table}, [], [out])
    if fp is not None:
        rows = [make_story_row(_story(i), source="fixed", lang="zh", source_id=str(i)) for i in range(params.n)]
        write_parquet(table_from_rows(rows, STORIES), out)
        ctx.done("fixed", fp, {"stories": params.n}, [out])
    ctx.stories.append(out)


def _register(source: bool) -> Stage:
    stages()  # the built-in ones first
    return register_stage(
        Stage(
            name="fixed",
            params=FixedParams,
            run=_run_fixed,
            order=25,
            source=source,
            summary="N fixed stories",
            output="`fixed.parquet`",
        )
    )


@pytest.fixture
def fixed_source():
    yield _register(source=True)
    stage_module.unregister_stage("fixed")


@pytest.fixture
def fixed_not_source():
    yield _register(source=False)
    stage_module.unregister_stage("fixed")


RECIPE = '[fixed]\nn = 8\n\n[[build]]\ntask = "senpos"\nsplit = "train=0.5,val=0.25,test=0.25"\n'


def test_a_made_up_source_stage_feeds_a_recipe(fixed_source, tmp_path: Path):
    recipe = tmp_path / "fixed.toml"
    recipe.write_text(RECIPE, encoding="utf-8")
    first = invoke("run", recipe, "--out", tmp_path / "out")
    assert first.exit_code == 0, first.output
    assert pq.read_table(tmp_path / "out" / "fixed.parquet").num_rows == 8
    manifest = json.loads((tmp_path / "out" / "senpos" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["stats"]["stories_in"] == 8  # the build read the made-up source's table
    assert "fixed.parquet" in manifest["inputs"][0]["path"]
    assert "[fixed]" in stage_module.source_words()  # the words a recipe without a source hears name it too


def test_a_stage_that_is_no_source_is_not_taken_for_one(fixed_not_source, tmp_path: Path):
    recipe = tmp_path / "fixed.toml"
    recipe.write_text(RECIPE, encoding="utf-8")
    result = invoke("run", recipe, "--out", tmp_path / "out")
    assert result.exit_code == 3 and "a recipe needs a source" in result.output, result.output
    assert not (tmp_path / "out" / "fixed.parquet").exists()  # refused before any step


def test_the_built_in_sources_are_those_the_records_say():
    assert [s.name for s in stage_module.source_stages()] == ["crawl", "extract", "read"]


# ---------------------------------------------------------------------------------------------
# a step gets the runner's guarantees


def _read_clean(path: Path, min_chars: int = 20) -> Path:
    path.write_text(f'[read]\ninputs = ["lotdata:sample"]\n\n[clean]\nmin_chars = {min_chars}\n', encoding="utf-8")
    return path


def test_a_failing_step_leaves_its_previous_output_whole(tmp_path: Path):
    out = tmp_path / "out"
    assert invoke("run", _read_clean(tmp_path / "r.toml"), "--out", out).exit_code == 0
    before = digest(out / "clean")
    failed = invoke("run", _read_clean(tmp_path / "r.toml", min_chars=15000), "--out", out)
    assert failed.exit_code == 3 and "no story kept" in failed.output, failed.output
    assert "step clean" in failed.output and ".clean.lotdata-next" in failed.output  # the staged tables, named
    assert digest(out / "clean") == before  # swapped in only when whole: the previous clean folder as it was


def test_a_step_refuses_an_output_folder_of_another_kind(tmp_path: Path):
    out = tmp_path / "out"
    (out / "clean").mkdir(parents=True)
    (out / ".done").mkdir()  # the folder of an earlier run, whose clean folder someone filled by hand
    mine = out / "clean" / "notes.txt"
    mine.write_text("mine", encoding="utf-8")
    result = invoke("run", _read_clean(tmp_path / "r.toml"), "--out", out)
    assert result.exit_code == 1 and "holding files lotdata did not write" in result.output, result.output
    assert mine.read_text(encoding="utf-8") == "mine" and sorted(p.name for p in (out / "clean").iterdir()) == [
        "notes.txt"
    ]


def test_a_run_folder_holding_files_no_run_wrote_is_refused(tmp_path: Path):
    home = tmp_path / "home"
    home.mkdir()
    diary = home / "stories.parquet"  # a user's own table, named as a step would name its output
    diary.write_bytes(b"my stories")
    result = invoke("run", _read_clean(tmp_path / "r.toml"), "--out", home)
    assert result.exit_code == 1 and "holds files no recipe run wrote" in result.output, result.output
    assert diary.read_bytes() == b"my stories" and sorted(p.name for p in home.iterdir()) == ["stories.parquet"]


def test_a_step_takes_the_lock_of_its_output(tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    lock = lock_path_for(out / "clean")
    lock.write_text(json.dumps({"pid": os.getppid(), "host": socket.gethostname()}), encoding="utf-8")  # alive
    result = invoke("run", _read_clean(tmp_path / "r.toml"), "--out", out)
    assert result.exit_code == 1 and "another lotdata run is writing" in result.output, result.output
    assert str(lock) in result.output.replace("\n", "") and not (out / "clean").exists()


def test_a_step_is_fingerprinted_as_its_command(tmp_path: Path):
    from lotdata.command import get_command

    out = tmp_path / "out"
    recipe = tmp_path / "r.toml"
    recipe.write_text('[read]\ninputs = ["lotdata:sample"]\nformat = "jsonl"\nworkers = 2\n', encoding="utf-8")
    assert invoke("run", recipe, "--out", out).exit_code == 0
    marker = json.loads((out / DONE_DIR / "read.json").read_text(encoding="utf-8"))
    read = get_command("read")
    given = read.params(inputs=[str(sample_corpus_path())], out=str(out / "stories.parquet"), format="jsonl")
    assert marker["fingerprint"] == read.fingerprint(given)  # workers = 2 is an execution setting: left out
    assert marker["fingerprint"] != read.fingerprint(read.params(inputs=given.inputs, out=given.out, lang="en"))
