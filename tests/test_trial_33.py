"""Cases a new-user trial of issue 33's runner found (tests/test_command_runner.py has the runner's own): an output
of the same kind but another task, a file output into a lotdata folder or over someone else's file, a command
writing inside a folder a recipe run holds, a lock a full disk left empty, disk errors libraries hide."""

from __future__ import annotations

import errno
import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata import io as lotdata_io
from lotdata.cli import app
from lotdata.errors import DiskError
from lotdata.testing import digest

runner = CliRunner()


def invoke(*args):
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("trial")
    assert invoke("read", "lotdata:sample", "--out", root / "s.parquet")[0] == 0
    for task in ("senpos", "plotcom"):
        assert invoke("build", task, "--stories", root / "s.parquet", "--out", root / task)[0] == 0
    return root


def test_a_dataset_of_another_task_is_refused_not_replaced(built: Path) -> None:
    before = digest([built / "plotcom"])
    code, output = invoke("build", "senpos", "--stories", built / "s.parquet", "--out", built / "plotcom")
    assert code == 1 and "plotcom dataset folder, not a senpos one" in output, output
    assert digest([built / "plotcom"]) == before
    code, _ = invoke("build", "senpos", "--stories", built / "s.parquet", "--out", built / "senpos")
    assert code == 0  # its own task: rebuilt


def test_a_file_output_inside_a_lotdata_folder_is_refused(built: Path) -> None:
    before = digest([built / "plotcom"])
    code, output = invoke("read", "lotdata:sample", "--out", built / "plotcom" / "train.parquet")
    assert code == 1 and "a lotdata folder of kind 'dataset'" in output, output
    assert digest([built / "plotcom"]) == before


def test_a_parquet_output_over_someone_elses_file_is_refused(built: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    code, output = invoke("read", "lotdata:sample", "--out", notes)
    assert code == 1 and "not a parquet file" in output and notes.read_text() == "my notes\n", output
    again = tmp_path / "again.parquet"
    assert invoke("read", "lotdata:sample", "--out", again)[0] == 0
    assert invoke("read", "lotdata:sample", "--out", again)[0] == 0  # its own earlier table: replaced


def test_a_command_inside_a_folder_a_run_is_writing_is_refused(built: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    lock = lotdata_io.lock_path_for(run)
    lock.write_text(json.dumps({"pid": 1, "host": socket.gethostname()}))  # a live process holds the run folder
    code, output = invoke("build", "senpos", "--stories", built / "s.parquet", "--out", run / "senpos")
    assert code == 1 and "which another lotdata run is writing" in output and not (run / "senpos").exists(), output


def test_a_lock_that_cannot_be_written_is_not_left_behind(tmp_path: Path, monkeypatch) -> None:
    def full(fd, *args, **kwargs):
        import os

        os.close(fd)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(lotdata_io.os, "fdopen", full)
    with pytest.raises(DiskError, match="no space left"):
        with lotdata_io.output_lock(tmp_path / "out"):
            pass
    assert not lotdata_io.lock_path_for(tmp_path / "out").exists()  # an empty lock would refuse every later run


def test_a_short_write_is_a_full_disk() -> None:
    assert lotdata_io.errno_of(OSError("640000 requested and 65504 written")) == errno.ENOSPC
    assert lotdata_io.errno_of(OSError("something else")) is None


def test_an_unexpected_error_on_a_full_disk_is_reported_as_one(tmp_path: Path, monkeypatch) -> None:
    """torch's zip writer says "unexpected pos" on a full disk: with no space left, that is a disk error (exit 1),
    not a bug (exit 70); with space left, the same error is a bug."""
    import shutil
    from collections import namedtuple
    from dataclasses import replace

    from lotdata.command import get_command, run_command
    from lotdata.testing import sample_params

    def broken(run):
        raise RuntimeError("[enforce fail at inline_container.cc:672] unexpected pos")

    record = replace(get_command("read"), execute=broken)
    params = sample_params(record, tmp_path)
    with pytest.raises(RuntimeError):
        run_command(record, params)
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9, 1000))
    with pytest.raises(DiskError, match="no space left on the device") as err:
        run_command(record, params)
    assert err.value.exit_code == 1


def test_an_export_over_a_dataset_of_another_task_is_refused(built: Path, tmp_path: Path) -> None:
    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    rows = "".join(
        f"s{i},Tom had a dog {i}.,It was old.,It ran.,Tom looked.,He found it.,He ate a car.,1\n" for i in range(12)
    )
    (tmp_path / "test.csv").write_text(header + rows, encoding="utf-8")
    assert invoke("import", "storycloze", "--test", tmp_path / "test.csv", "--out", tmp_path / "sct")[0] == 0
    before = digest([built / "senpos"])
    code, output = invoke(
        "audit-bias",
        tmp_path / "sct",
        "--out",
        tmp_path / "au",
        "--export-hard",
        built / "senpos",
        "--baseline",
        "length",
    )
    assert code == 1 and "not a clozet one" in output, output
    assert digest([built / "senpos"]) == before


def test_predictions_over_someone_elses_notes_are_refused(tmp_path: Path) -> None:
    from lotdata.command import Output, check_output_kind

    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    with pytest.raises(Exception, match="not a jsonl file"):
        check_output_kind(Output("--out", notes, format="jsonl"))
    (tmp_path / "pred.jsonl").write_text('{"label": 1}\n')
    check_output_kind(Output("--out", tmp_path / "pred.jsonl", format="jsonl"))  # an earlier run's: replaced


def test_a_bad_split_on_the_command_line_is_refused_before_any_work(built: Path, tmp_path: Path) -> None:
    code, output = invoke(
        "build", "senpos", "--stories", built / "s.parquet", "--out", tmp_path / "x", "--split", "train=0.8,val=1.5"
    )
    assert code == 1 and "--split 'train=0.8,val=1.5'" in output and "ratio above 1" in output, output
    assert not list(tmp_path.iterdir())  # no staging folder either: refused before any work


def test_a_broken_manifest_given_to_diff_is_named(built: Path, tmp_path: Path) -> None:
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(built / "senpos", broken)
    (broken / "manifest.json").write_text('{"kind": "dataset", "task": ')
    code, output = invoke("diff", built / "senpos", broken)
    assert code == 3 and f"{broken / 'manifest.json'}:" in output, output
