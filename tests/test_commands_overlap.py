"""`lotdata overlap` as a command record (issue 33): the runner's guarantees on its two outputs (--out, the report
folder; --write-filtered, a dataset folder) and its inputs (TEST, --reference, --index)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.command import get_command, run_command
from lotdata.overlap.commands import OVERLAP, OverlapParams, _overlap_sample, report_names
from lotdata.testing import digest

runner = CliRunner()


def _digest(*paths: Path) -> dict[str, str | None]:
    return digest(list(paths))


def _cli(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    _overlap_sample(tmp_path)  # test.parquet (3 English stories), ref.txt (one of them retold)
    return tmp_path


@pytest.fixture
def index(sample: Path) -> Path:
    code, output = _cli("index", "build", sample / "ref.txt", "--out", sample / "idx", "--lang", "en")
    assert code == 0, output
    return sample / "idx"


def _run(sample: Path, *extra: str | Path) -> tuple[int, str]:
    return _cli("overlap", sample / "test.parquet", "-r", sample / "ref.txt", "--n", "4", *extra)


def test_the_record_is_registered_and_its_sample_runs(tmp_path: Path) -> None:
    assert get_command("overlap") is OVERLAP
    params = OverlapParams(paths=[str(tmp_path / "x")], reference=["r"], out="o")
    assert params.n == 8 and params.threshold == 0.1 and params.shard_mb == 32 and params.workers == 1
    args = _overlap_sample(tmp_path)
    code, output = _cli("overlap", *args)
    assert code == 0, output
    assert json.loads((tmp_path / "report" / "summary.json").read_text())["splits"][0]["examples_over"] == 1
    assert not list(tmp_path.glob(".*lotdata-next")) and not list(tmp_path.glob("*.lock"))


@pytest.mark.parametrize("which", ["test", "reference"])
def test_out_equal_to_an_input_is_refused_and_the_input_untouched(sample: Path, which: str) -> None:
    target = sample / ("test.parquet" if which == "test" else "ref.txt")
    before = _digest(sample)
    for option in ("--out", "--write-filtered"):
        args = ["--out", target] if option == "--out" else ["--out", sample / "rep", "--write-filtered", target]
        code, output = _run(sample, *args)
        assert code == 1 and "must not" in output and str(target) in output, output
        assert _digest(sample) == before  # nothing written, not even a lock or a staging folder


def test_out_equal_to_the_index_or_inside_it_is_refused(sample: Path, index: Path) -> None:
    before = _digest(sample)
    for out in (index, index / "sub"):
        code, output = _cli("overlap", sample / "test.parquet", "--index", index, "--out", out)
        assert code == 1 and "must not" in output and "--index" in output, output
    assert _digest(sample) == before


def test_an_existing_folder_or_file_of_another_kind_is_refused(sample: Path) -> None:
    assert _run(sample, "--out", sample / "rep", "--write-filtered", sample / "filtered")[0] == 0
    foreign = sample / "notes"
    foreign.mkdir()
    (foreign / "todo.txt").write_text("mine\n")
    a_file = sample / "a.txt"
    a_file.write_text("keep\n")
    before = _digest(sample)
    cases = [
        (["--out", sample / "filtered"], "kind 'stories-splits'"),  # a dataset folder is no report folder
        (["--out", foreign], "did not write"),
        (["--out", a_file], "exists and is a file"),
        (["--out", sample / "rep2", "--write-filtered", sample / "rep"], "--write-filtered"),  # a report is no dataset
        (["--out", sample / "rep2", "--write-filtered", a_file], "exists and is a file"),
    ]
    for args, words in cases:
        code, output = _run(sample, *args)
        assert code == 1 and words in output, (args, output)
    assert _digest(sample) == before
    code, output = _run(sample, "--out", sample / "rep", "--write-filtered", sample / "filtered")
    assert code == 0, output  # its own earlier outputs are replaced


def test_a_full_disk_at_the_end_exits_1_naming_the_file_and_keeps_the_previous_output(sample, monkeypatch) -> None:
    from lotdata.overlap import report

    outputs = [sample / "rep", sample / "filtered"]
    assert _run(sample, "--out", outputs[0], "--write-filtered", outputs[1])[0] == 0
    before = _digest(*outputs)
    full = sample / "filtered" / "test.parquet"

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(full))

    monkeypatch.setattr(report, "write_filtered", disk_full)  # the last write of a run
    code, output = _run(sample, "--out", outputs[0], "--write-filtered", outputs[1], "--n", "3")
    assert code == 1 and str(full) in output and "no space left" in output, output
    assert _digest(*outputs) == before
    monkeypatch.undo()
    code, output = _run(sample, "--out", outputs[0], "--write-filtered", outputs[1], "--n", "3")
    assert code == 0, output
    assert json.loads((outputs[0] / "summary.json").read_text())["params"]["n"] == 3
    assert not list(sample.glob(".*lotdata-next"))


def test_a_live_second_writer_is_refused(sample: Path) -> None:
    lock = sample / "rep.lock"
    lock.write_text(json.dumps({"pid": os.getppid(), "host": socket.gethostname()}))
    code, output = _run(sample, "--out", sample / "rep")
    assert code == 1 and str(lock) in output and not (sample / "rep").exists()


def test_a_rerun_resumes_the_scan_and_drops_an_earlier_report(sample: Path, index: Path) -> None:
    shutil.copy(sample / "test.parquet", sample / "b.parquet")
    code, output = _cli(
        "overlap", sample / "test.parquet", sample / "b.parquet", "--index", index, "--out", sample / "o"
    )
    assert code == 0, output
    assert sorted(p.name for p in (sample / "o").iterdir()) == ["b", "test"]
    code, output = _run(sample, "--out", sample / "o")  # the streaming path into the same folder
    assert code == 0, output
    assert sorted(p.name for p in (sample / "o").iterdir()) == ["examples.parquet", "report.md", "scan", "summary.json"]
    code, output = _run(sample, "--out", sample / "o")
    assert code == 0, output
    scan = json.loads((sample / "o" / "summary.json").read_text())["scan"]
    assert scan["shards_resumed"] == scan["shards"] == 1  # the scan kept in --out is resumed


def test_test_sets_with_the_same_stem_get_a_report_each(sample: Path, index: Path) -> None:
    for folder in ("a", "b"):
        (sample / folder).mkdir()
        shutil.copy(sample / "test.parquet", sample / folder / "val.parquet")
    shutil.copy(sample / "test.parquet", sample / "val_2.parquet")
    tests = [sample / "a" / "val.parquet", sample / "b" / "val.parquet", sample / "val_2.parquet"]
    code, output = _cli("overlap", *tests, "--index", index, "--out", sample / "o", "--n", "4")
    assert code == 0, output
    tests_of = {p.name: json.loads((p / "summary.json").read_text())["test"] for p in (sample / "o").iterdir()}
    assert tests_of == {"val": str(tests[0]), "val_2": str(tests[1]), "val_2_2": str(tests[2])}
    assert report_names(["x/.hidden.parquet", "scan.parquet", ".", "d/t.jsonl", "e/t.jsonl"]) == [
        "hidden",
        "scan_2",
        Path.cwd().name,
        "t",
        "t_2",
    ]


def test_the_library_call_is_the_same_path(sample: Path) -> None:
    params = OverlapParams(
        paths=[str(sample / "test.parquet")], reference=[str(sample / "ref.txt")], out=str(sample / "lib"), n=4
    )
    summary = run_command(OVERLAP, params)
    assert summary["reports"][0]["splits"][0]["examples_over"] == 1
    with pytest.raises(Exception, match="not both"):
        run_command(OVERLAP, OverlapParams(paths=params.paths, reference=params.reference, index="i", out="o"))
