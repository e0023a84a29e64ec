"""`lotdata audit-bias` and `lotdata import storycloze` as command records (issue 33): the runner's guarantees on
their outputs (audit-bias: --out, the report folder, and --export-hard, a dataset; import storycloze: --out, a
dataset) against their inputs."""

from __future__ import annotations

import errno
import json
import os
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.audit.commands import AUDIT_BIAS, IMPORT_STORYCLOZE, AuditBiasParams, _sct_csv
from lotdata.cli import app
from lotdata.command import get_command
from lotdata.testing import digest

runner = CliRunner()


def _digest(*paths: Path) -> dict[str, str | None]:
    return digest(list(paths))


def _cli(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture
def csvs(tmp_path: Path) -> Path:
    _sct_csv(tmp_path / "val.csv", 12)
    _sct_csv(tmp_path / "test.csv", 30, name="Ann")
    return tmp_path


def _import(folder: Path, out: str | Path, *extra: str | Path) -> tuple[int, str]:
    return _cli(
        "import", "storycloze", "--val", folder / "val.csv", "--test", folder / "test.csv", "--out", out, *extra
    )


def _audit(folder: Path, *extra: str | Path) -> tuple[int, str]:
    return _cli("audit-bias", folder / "test.csv", "--baseline", "constant_first", "--runs", "1", *extra)


def test_the_records_are_registered() -> None:
    assert get_command("audit-bias") is AUDIT_BIAS and get_command("import storycloze") is IMPORT_STORYCLOZE
    params = AuditBiasParams(input="d", out="r")
    assert (params.runs, params.bert_batch_size, params.min_effect, params.workers) == (10, 12, 3.0, 1)


# ------------------------------------------------------------------------------ import storycloze


def test_import_out_equal_to_an_input_is_refused_and_the_csv_untouched(csvs: Path) -> None:
    before = _digest(csvs)
    for out in (csvs / "val.csv", csvs / "test.csv", csvs):
        code, output = _import(csvs, out)
        assert code == 1 and "must not" in output, output
    assert _digest(csvs) == before


def test_import_refuses_a_folder_of_another_kind(csvs: Path) -> None:
    assert _audit(csvs, "--out", csvs / "rep")[0] == 0
    foreign = csvs / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep\n")
    before = _digest(csvs)
    for out, words in ((csvs / "rep", "did not write"), (foreign, "did not write"), (csvs / "val.csv", "must not")):
        code, output = _import(csvs, out)
        assert code == 1 and words in output, output
    assert _digest(csvs) == before


def test_import_takes_a_lock(csvs: Path) -> None:
    """A second writer of the folder (another import, a build) is refused; before, two mixed their files."""
    lock = csvs / "sct.lock"
    lock.write_text(json.dumps({"pid": os.getppid(), "host": socket.gethostname()}))
    code, output = _import(csvs, csvs / "sct")
    assert code == 1 and str(lock) in output and not (csvs / "sct").exists()


def test_import_full_disk_keeps_the_previous_dataset_and_drops_a_stale_quarantine(csvs: Path, monkeypatch) -> None:
    from lotdata.tasks import storycloze

    bad = csvs / "bad.csv"
    bad.write_text((csvs / "val.csv").read_text() + "x1,A.,B.,C.,D.,E.,F.,3\n", encoding="utf-8")
    code, output = _cli("import", "storycloze", "--val", bad, "--out", csvs / "sct")
    assert code == 0 and (csvs / "sct" / "quarantine.parquet").exists(), output
    before = _digest(csvs / "sct")
    full = csvs / "sct" / "test.parquet"

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(full))

    monkeypatch.setattr(storycloze, "write_dataset", disk_full)
    code, output = _import(csvs, csvs / "sct")
    assert code == 1 and str(full) in output and "no space left" in output, output
    assert _digest(csvs / "sct") == before
    monkeypatch.undo()
    code, output = _import(csvs, csvs / "sct")
    assert code == 0, output
    # the folder is replaced whole: the quarantine of the earlier import does not survive one that had none
    assert not (csvs / "sct" / "quarantine.parquet").exists()
    assert json.loads((csvs / "sct" / "manifest.json").read_text())["splits"]["test"]["rows"] == 30


def test_import_checks_its_arguments_before_any_work(csvs: Path) -> None:
    code, output = _cli("import", "storycloze", "--out", csvs / "x")
    assert code == 1 and "--val, --test" in output
    code, output = _import(csvs, csvs / "x", "--train-from", "val", "--val-share", "1.5")
    assert code == 1 and "--val-share" in output
    code, output = _import(csvs, csvs / "x", "--train-from", "test")
    assert code == 1 and "--train-from" in output
    assert not (csvs / "x").exists() and not list(csvs.glob(".*lotdata-next"))


# ------------------------------------------------------------------------------ audit-bias


def test_audit_outputs_equal_to_the_input_are_refused(csvs: Path) -> None:
    before = _digest(csvs)
    for args in (
        ["--out", csvs / "test.csv"],
        ["--out", csvs],
        ["--out", csvs / "rep", "--export-hard", csvs / "test.csv"],
        ["--out", csvs / "rep", "--export-hard", csvs / "rep"],
        ["--out", csvs / "rep", "--export-hard", csvs / "rep" / "hard"],
    ):
        code, output = _audit(csvs, *args)
        assert code == 1 and "must not" in output, (args, output)
    assert _digest(csvs) == before


def test_audit_refuses_a_folder_of_another_kind(csvs: Path) -> None:
    assert _import(csvs, csvs / "sct")[0] == 0
    foreign = csvs / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep\n")
    before = _digest(csvs)
    for args, words in (
        (["--out", csvs / "sct2", "--export-hard", foreign], "did not write"),
        (["--out", foreign], "did not write"),
        (["--out", csvs / "val.csv"], "exists and is a file"),
    ):
        code, output = _audit(csvs, *args)
        assert code == 1 and words in output, (args, output)
    code, output = _cli("audit-bias", csvs / "val.csv", "--baseline", "constant_first", "--out", csvs / "sct")
    assert code == 1 and "kind 'dataset'" in output  # a dataset folder is no report folder
    assert _digest(csvs) == before


def test_audit_full_disk_in_the_export_keeps_the_previous_report(csvs: Path, monkeypatch) -> None:
    from lotdata.audit import export

    outputs = [csvs / "rep", csvs / "hard"]
    code, output = _audit(csvs, "--out", outputs[0], "--export-hard", outputs[1])
    assert code == 0 and "exported hard items" in output, output
    before = _digest(*outputs)
    full = outputs[1] / "stories.parquet"

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(full))

    monkeypatch.setattr(export, "export_hard", disk_full)  # the last write of a run
    code, output = _audit(csvs, "--out", outputs[0], "--export-hard", outputs[1], "--seed", "1")
    assert code == 1 and str(full) in output and "no space left" in output, output
    assert _digest(*outputs) == before


def test_audit_rerun_keeps_the_sentiment_scores_and_drops_a_stale_report_file(csvs: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    args = ("audit-bias", csvs / "test.csv", "--baseline", "sentiment", "--runs", "1", "--out", csvs / "rep")
    code, output = _cli(*args)
    assert code == 0, output
    cache = csvs / "rep" / "sentiment_cache.parquet"
    scores = pq.read_table(cache)
    column = scores.schema.get_field_index("score")
    marked = scores.set_column(column, "score", pa.array([0.123456] * scores.num_rows, pa.float64()))
    pq.write_table(marked, cache)  # scores the next run can only have from this file
    (csvs / "rep" / "aflite_removed.txt").write_text("s1\n")  # as an earlier --aflite run left it
    code, output = _cli(*args)
    assert code == 0, output
    assert not (csvs / "rep" / "aflite_removed.txt").exists()
    assert set(pq.read_table(cache).column("score").to_pylist()) == {0.123456}  # carried over, reused
    assert "lotdata-next" not in output  # the published paths, never the staging folder's
    assert not list(csvs.glob(".*lotdata-next")) and not list(csvs.glob("*.lock"))


def test_audit_export_baseline_needs_export_hard(csvs: Path) -> None:
    code, output = _audit(csvs, "--out", csvs / "rep", "--export-baseline", "constant_first")
    assert code == 1 and "--export-baseline needs --export-hard" in output and not (csvs / "rep").exists()
