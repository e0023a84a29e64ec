"""Issue 5 part 5: what a new user hit with bad input. Real subprocesses where the exit code is the point."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from helpers import write_stories

from lotdata.clikit import errors
from lotdata.datasets.splits import parse_split_spec
from lotdata.errors import require
from lotdata.io import INCOMPLETE_MARKER, write_parquet, write_text
from lotdata.tasks.build import build_dataset

STORY = (
    "第{i}天早上，小熊在森林里散步，看见小兔坐在河边发呆。小熊走过去问：“你怎么一个人坐在这里呀？”"
    "小兔叹了口气说：“我的风筝挂在最高的那棵树上了。”小熊想了想，跑回家拿来一根长长的竹竿。"
    "它们一起用竹竿把风筝从树枝上轻轻挑了下来。小兔高兴极了，拉着小熊在草地上放了一下午风筝。"
)


def lotdata(*args, columns: int = 80) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run(
        [sys.executable, "-m", "lotdata.cli", *map(str, args)], capture_output=True, text=True, env=env
    )


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> Path:
    return write_stories(tmp_path_factory.mktemp("s") / "stories.parquet", [STORY.format(i=i) for i in range(12)])


# --- meaningless sizes and splits ------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["train=1", "val=0.1,val=0.2", "train=5,val=1", "val=-1", "val=1.5", "train=0.5"])
def test_meaningless_split_specs_are_refused(bad):
    with pytest.raises(ValueError):
        parse_split_spec(bad)


def test_split_sizes_and_ratios_still_parse():
    assert parse_split_spec("val=800,test=863").targets(2000) == {"val": 800, "test": 863, "train": 337}
    assert parse_split_spec("train=1.0").targets(10) == {"val": 0, "test": 0, "train": 10}


@pytest.mark.parametrize("args", [["--n", "-5"], ["--n", "0"], ["--train-n", "0"], ["--split", "train=1"]])
def test_cli_refuses_meaningless_sizes_before_writing(stories: Path, tmp_path: Path, args):
    result = lotdata("build", "plotcom", "--stories", stories, "--out", tmp_path / "o", *args)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "o").exists()


def test_an_empty_split_is_warned_about(stories: Path, tmp_path: Path):
    result = lotdata(
        "build", "plotcom", "--stories", stories, "--out", tmp_path / "o", "--n", "3", "--split", "val=2,test=2"
    )
    assert result.returncode == 0, result.stderr
    assert "warning" in result.stderr and "split 'train' is empty" in result.stderr


# --- outputs checked before the work starts ------------------------------------------------------------


def test_out_naming_an_existing_file_fails_at_once(stories: Path, tmp_path: Path):
    existing = tmp_path / "afile"
    existing.write_text("x")
    result = lotdata("build", "plotcom", "--stories", stories, "--out", existing)
    assert result.returncode == 1 and "afile" in result.stderr and "Traceback" not in result.stderr
    assert existing.read_text() == "x"


def test_stats_json_into_a_missing_folder_or_a_folder(stories: Path, tmp_path: Path):
    build_dataset("plotcom", [stories], tmp_path / "pc", seed=0)
    ok = lotdata("stats", tmp_path / "pc", "--json", tmp_path / "new" / "dir" / "s.json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "new" / "dir" / "s.json").read_text())["task"] == "plotcom"
    into_folder = lotdata("stats", tmp_path / "pc", "--json", tmp_path / "new")
    assert into_folder.returncode == 1 and "is a folder" in into_folder.stderr and "Traceback" not in into_folder.stderr
    under_file = lotdata("stats", tmp_path / "pc", "--json", tmp_path / "new" / "dir" / "s.json" / "x.json")
    assert under_file.returncode == 1 and "Traceback" not in under_file.stderr


# --- files: mode, temp files, completeness ------------------------------------------------------------


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_files_get_the_umask_mode(tmp_path: Path, umask: int, mode: int):
    old = os.umask(umask)
    try:
        write_parquet(pa.table({"a": [1]}), tmp_path / "t.parquet")
        write_text("x", tmp_path / "t.txt")
    finally:
        os.umask(old)
    for name in ("t.parquet", "t.txt"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == mode


def test_stale_temp_files_of_ours_are_cleaned_and_others_kept(stories: Path, tmp_path: Path):
    out = tmp_path / "pc"
    (out / "lot").mkdir(parents=True)
    ours = [
        out / ".train.parquet.lotdata-k1ll3d.tmp",
        out / "lot" / ".val.jsonl.lotdata-x.tmp",
        out / ".manifest.json.a8f3k2.tmp",
    ]  # the last: the name an older lotdata gave its temp files
    foreign = out / ".someone-else.tmp"
    for path in [*ours, foreign]:
        path.write_text("partial")
    build_dataset("plotcom", [stories], out, seed=0)
    assert not any(p.exists() for p in ours) and foreign.exists()
    assert not (out / INCOMPLETE_MARKER).exists()


def test_a_killed_build_leaves_a_folder_that_says_so(stories: Path, tmp_path: Path, monkeypatch):
    import lotdata.datasets.folder as build

    out = tmp_path / "pc"
    build_dataset("plotcom", [stories], out, seed=0)  # an older complete build is there
    real = build.write_parquet

    def dies_on_val(table, path):
        if Path(path).name == "val.parquet":
            raise KeyboardInterrupt
        return real(table, path)

    monkeypatch.setattr(build, "write_parquet", dies_on_val)
    with pytest.raises(KeyboardInterrupt):
        build_dataset("plotcom", [stories], out, seed=1)
    assert (out / INCOMPLETE_MARKER).exists()
    result = lotdata("stats", out)
    assert result.returncode == 3 and "incomplete dataset folder" in result.stderr


# --- nothing read: say so and fail -----------------------------------------------------------------


def test_an_empty_file_is_an_error(tmp_path: Path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = lotdata("read", empty, "--out", tmp_path / "s.parquet")
    assert result.returncode == 3 and "no story could be read" in result.stderr
    assert not (tmp_path / "s.parquet").exists()


def test_all_rows_quarantined_is_an_error_and_keeps_the_quarantine(tmp_path: Path):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"nottext": 1}\n{oops\n', encoding="utf-8")
    result = lotdata("read", broken, "--out", tmp_path / "s.parquet")
    assert result.returncode == 3 and "2 record(s) quarantined" in result.stderr
    # nothing is published by a failed run; the quarantine that says why waits in the staging folder it names
    staged = tmp_path / ".s.parquet.lotdata-next" / "s.quarantine.parquet"
    assert str(Path(".s.parquet.lotdata-next") / "s.quarantine.parquet") in result.stderr
    assert pq.read_table(staged).num_rows == 2 and not (tmp_path / "s.quarantine.parquet").exists()


# --- several stories files, long messages ---------------------------------------------------------


def test_stories_takes_several_files_after_one_option(stories: Path, tmp_path: Path):
    other = write_stories(tmp_path / "other.parquet", [STORY.format(i=100 + i) for i in range(5)])
    result = lotdata("build", "plotcom", "--stories", stories, other, "--out", tmp_path / "pc", "--split", "train=1.0")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "pc" / "manifest.json").read_text())
    assert len(manifest["inputs"]) == 2 and manifest["splits"]["train"]["rows"] == 17


def test_long_error_messages_are_not_wrapped(tmp_path: Path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 4) / "stories-that-do-not-exist.parquet"
    result = lotdata("build", "senpos", "--stories", deep, "--out", tmp_path / "o", columns=80)
    assert result.returncode == 1
    assert str(deep) in result.stderr.replace("\n", "") and str(deep) in result.stderr  # one line, not cut


# --- exit codes, one test each (README: 0 ok, 1 explained problem, 2 usage, 3 bad data, 4 missing extra) ---


def test_exit_0_success(stories: Path, tmp_path: Path):
    assert lotdata("build", "plotcom", "--stories", stories, "--out", tmp_path / "pc").returncode == 0


def test_exit_1_missing_file_and_bad_parameter(tmp_path: Path):
    missing = lotdata("read", tmp_path / "nope.txt", "--out", tmp_path / "s.parquet")
    assert missing.returncode == 1 and "nope.txt" in missing.stderr
    corpus = tmp_path / "c.txt"
    corpus.write_text(STORY.format(i=1), encoding="utf-8")
    bad_format = lotdata("read", corpus, "--format", "nonsense", "--out", tmp_path / "s.parquet")
    assert bad_format.returncode == 1 and "nonsense" in bad_format.stderr


def test_exit_2_usage_error():
    assert lotdata("build", "plotcom").returncode == 2


def test_exit_3_bad_input_data(tmp_path: Path):
    not_stories = tmp_path / "x.parquet"
    pq.write_table(pa.table({"a": [1]}), not_stories)
    result = lotdata("build", "plotcom", "--stories", not_stories, "--out", tmp_path / "o")
    assert result.returncode == 3 and "x.parquet" in result.stderr and "missing columns" in result.stderr


def test_exit_4_missing_optional_package(capsys):
    with pytest.raises(typer.Exit) as exit_info:
        with errors():
            require("lotdata_no_such_optional_module", "labelstudio")
    assert exit_info.value.exit_code == 4
    # from a source checkout (the tests run from one) the command installs the checkout's extra, not PyPI's
    checkout = Path(__file__).resolve().parents[1]
    assert f"pip install -e '{checkout}[labelstudio]'" in capsys.readouterr().err.replace("\n", "")


def test_binary_input_is_bad_data_naming_the_file(stories: Path, tmp_path: Path):
    binary = tmp_path / "bin.dat"
    binary.write_bytes(b"\xff\xfe\x00\x01binary\x80\x81\n")
    runs = [
        lotdata("import", "lot", binary, "--task", "senpos", "--out", tmp_path / "imported"),
        lotdata("build", "plotcom", "--stories", stories, "--out", tmp_path / "pc", "--clozet", binary),
        lotdata("run", binary),
    ]
    for result in runs:
        assert result.returncode == 3, result.stderr
        assert "bin.dat" in result.stderr and "UTF-8" in result.stderr and "Traceback" not in result.stderr


def test_senpos_max_words_0_means_no_limit_like_plotcom(stories: Path, tmp_path: Path):
    limited = lotdata("build", "senpos", "--stories", stories, "--out", tmp_path / "a", "--split", "val=1,test=1")
    unlimited = lotdata(
        "build", "senpos", "--stories", stories, "--out", tmp_path / "b", "--split", "val=1,test=1", "--max-words", "0"
    )
    assert limited.returncode == 0 and unlimited.returncode == 0, unlimited.stderr
    rows = [
        sum(
            json.loads((tmp_path / f / "manifest.json").read_text())["splits"][s]["rows"]
            for s in ("train", "val", "test")
        )
        for f in ("a", "b")
    ]
    assert rows[1] == rows[0] > 0


@pytest.mark.parametrize(
    "task,option", [("senpos", "--min-chars"), ("senpos", "--min-candidates"), ("plotcom", "--min-chars")]
)
def test_a_minimum_below_1_is_a_bad_parameter(stories: Path, tmp_path: Path, task: str, option: str):
    result = lotdata("build", task, "--stories", stories, "--out", tmp_path / "o", option, "0")
    assert result.returncode == 1 and option in result.stderr and "at least 1" in result.stderr
    assert not (tmp_path / "o").exists()


def test_nothing_read_names_the_most_common_quarantine_reasons(tmp_path: Path):
    cmrc = tmp_path / "x.doc_query"
    documents = [
        f"1 ||| 小熊在森林里散步，看见一只XXXXX。\n2 ||| 它们一起玩了一下午。\n<qid_{i}> ||| 小熊看见了什么？\n\n"
        for i in range(5)
    ]
    cmrc.write_text("".join(documents), encoding="utf-8")
    result = lotdata("read", cmrc, "--out", tmp_path / "s.parquet", columns=400)
    assert result.returncode == 3, result.stderr
    assert "5 x: no answer for the document's blank (<qid_N> answer file x.answer not found)" in result.stderr
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"title": "no text"}\n{"text": ""}\n{"title": "again"}\n', encoding="utf-8")
    result = lotdata("read", jsonl, "--out", tmp_path / "j.parquet", columns=400)
    assert result.returncode == 3 and " x: " in result.stderr.split("quarantined", 1)[1]
