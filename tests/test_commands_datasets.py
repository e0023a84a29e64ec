"""import lot, export lot, stats, diff and card as records (issue 33, lotdata/datasets/commands.py): outputs checked
against inputs before any work (`stats --json DIR/manifest.json`, `diff A B --json A/manifest.json` refused),
a lock on every output (export lot had none), a failure in the last write leaves the previous output
byte-identical, and the normal runs write what the library writes; diff keeps its exit codes."""

from __future__ import annotations

import errno
import json
import shutil
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.datasets.commands import _sample_lot, sample_dataset
from lotdata.testing import digest

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def flat(text: str) -> str:
    """Text without white space (rich wraps a long title or message at the terminal width)."""
    return "".join(text.split())


def disk_full(*args, **kwargs):
    where = next((a for a in reversed(args) if isinstance(a, (str, Path))), "?")
    raise OSError(errno.ENOSPC, "No space left on device", str(where))


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return sample_dataset(tmp_path_factory.mktemp("ds") / "dataset")


@pytest.fixture
def own(dataset, tmp_path) -> Path:
    """A copy of the sample dataset this test may write beside (or into, for card)."""
    copy = tmp_path / "dataset"
    shutil.copytree(dataset, copy)
    return copy


# ---------------------------------------------------------------------------------------------
# import lot


def test_import_lot_writes_what_the_library_writes_and_refuses_its_input_as_out(tmp_path):
    from lotdata.datasets.folder import import_lot, read_dataset

    lot = _sample_lot(tmp_path / "lot")
    result = invoke("import", "lot", lot, "--task", "outgen", "--out", tmp_path / "cli")
    assert result.exit_code == 0, result.output
    assert flat(f"lotdata import lot (outgen) -> {tmp_path / 'cli'}") in flat(result.output)
    import_lot([lot], "outgen", tmp_path / "lib")
    cli, lib = read_dataset(tmp_path / "cli"), read_dataset(tmp_path / "lib")
    assert {s: t.to_pylist() for s, t in cli.items()} == {s: t.to_pylist() for s, t in lib.items()}
    before = digest([lot])
    for out, relation in ((lot, "is the input FILES"), (lot / "ds", "lies inside the input FILES")):
        refused = invoke("import", "lot", lot, "--task", "outgen", "--out", out)
        assert refused.exit_code == 1 and flat(relation) in flat(refused.output), refused.output
    one = invoke("import", "lot", lot / "train.jsonl", "--task", "outgen", "--out", lot / "train.jsonl")
    assert one.exit_code == 1 and "is the input FILES" in one.output
    assert digest([lot]) == before


def test_import_lot_refuses_a_foreign_folder_and_keeps_a_previous_dataset(tmp_path, monkeypatch):
    import lotdata.datasets.folder as folder

    lot = _sample_lot(tmp_path / "lot")
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("not lotdata's\n", encoding="utf-8")
    refused = invoke("import", "lot", lot, "--task", "outgen", "--out", foreign)
    assert refused.exit_code == 1 and flat("files lotdata did not write") in flat(refused.output), refused.output
    assert sorted(p.name for p in foreign.iterdir()) == ["notes.txt"]
    out = tmp_path / "ds"
    assert invoke("import", "lot", lot, "--task", "outgen", "--out", out).exit_code == 0
    before = digest([out])

    def manifest_disk_full(where, manifest=None, **fields):  # the last write of import_lot
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(where) / "manifest.json"))

    monkeypatch.setattr(folder, "write_manifest", manifest_disk_full)
    failed = invoke("import", "lot", lot / "val.jsonl", "--task", "outgen", "--out", out, "--split", "train")
    assert failed.exit_code == 1 and "manifest.json" in failed.output, failed.output
    assert flat("no space left on the device") in flat(failed.output)
    assert digest([out]) == before


# ---------------------------------------------------------------------------------------------
# export lot


def test_export_lot_writes_the_lot_files_and_refuses_out_inside_its_folder(dataset, tmp_path):
    from lotdata.datasets.folder import export_lot

    before = digest([dataset])
    inside = invoke("export", "lot", dataset, "--out", dataset / "lot")
    assert inside.exit_code == 1 and flat("lies inside the input FOLDER") in flat(inside.output), inside.output
    same = invoke("export", "lot", dataset, "--out", dataset)
    assert same.exit_code == 1 and "is the input FOLDER" in same.output
    assert digest([dataset]) == before
    result = invoke("export", "lot", dataset, "--out", tmp_path / "cli")
    assert result.exit_code == 0 and flat(f"lotdata export lot -> {tmp_path / 'cli'}") in flat(result.output)
    export_lot(dataset, tmp_path / "lib")
    names = ["test.jsonl", "train.jsonl", "val.jsonl"]
    assert sorted(p.name for p in (tmp_path / "cli").iterdir()) == names
    assert all((tmp_path / "cli" / n).read_bytes() == (tmp_path / "lib" / n).read_bytes() for n in names)
    again = invoke("export", "lot", dataset, "--out", tmp_path / "cli")  # its own earlier export: replaced
    assert again.exit_code == 0, again.output


def test_export_lot_takes_a_lock_and_refuses_a_dataset_folder_as_out(dataset, own, tmp_path):
    out = tmp_path / "export"
    (tmp_path / "export.lock").write_text(json.dumps({"pid": 1, "host": socket.gethostname()}), encoding="utf-8")
    locked = invoke("export", "lot", dataset, "--out", out)
    assert locked.exit_code == 1 and flat("another lotdata run is writing") in flat(locked.output), locked.output
    assert not out.exists()
    before = digest([own])
    other = invoke("export", "lot", dataset, "--out", own)
    assert other.exit_code == 1 and flat("of kind 'dataset'") in flat(other.output), other.output
    assert digest([own]) == before


def test_export_lot_out_of_disk_leaves_the_previous_export(dataset, tmp_path, monkeypatch):
    import lotdata.datasets.folder as folder

    out = tmp_path / "export"
    assert invoke("export", "lot", dataset, "--out", out).exit_code == 0
    before = digest([out])
    real = folder.write_jsonl

    def fail_on_the_last(records, path):
        if Path(path).name == "test.jsonl":
            disk_full(path)
        return real(records, path)

    monkeypatch.setattr(folder, "write_jsonl", fail_on_the_last)
    failed = invoke("export", "lot", dataset, "--out", out)
    assert failed.exit_code == 1 and "test.jsonl" in failed.output, failed.output
    assert digest([out]) == before


# ---------------------------------------------------------------------------------------------
# stats


def test_stats_json_into_its_folder_is_refused_and_the_manifest_kept(dataset, tmp_path):
    before = digest([dataset])
    for target in (dataset / "manifest.json", dataset / "stats.json", dataset):
        result = invoke("stats", dataset, "--json", target)
        assert result.exit_code == 1 and flat("the input FOLDER") in flat(result.output), result.output
    assert digest([dataset]) == before
    folder = tmp_path / "a-folder"
    folder.mkdir()
    refused = invoke("stats", dataset, "--json", folder)
    assert refused.exit_code == 1 and "is a folder" in refused.output


def test_stats_json_file_and_stdout(dataset, tmp_path, monkeypatch):
    from lotdata.datasets.folder import dataset_stats

    out = tmp_path / "stats.json"
    result = invoke("stats", dataset, "--json", out)
    assert result.exit_code == 0 and "vocabulary_size" in result.output, result.output
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(json.dumps(dataset_stats(dataset)))
    monkeypatch.chdir(tmp_path)
    stdout = invoke("stats", dataset, "--json", "-")
    assert stdout.exit_code == 0 and json.loads(stdout.stdout)["task"] == "outgen"
    assert not (tmp_path / "-").exists() and not list(tmp_path.glob("*.lotdata-next"))
    before = digest([out])
    import lotdata.datasets.commands as commands

    monkeypatch.setattr(commands, "write_text", disk_full)
    failed = invoke("stats", dataset, "--json", out)
    assert failed.exit_code == 1 and "stats.json" in failed.output and flat("no space left") in flat(failed.output)
    assert digest([out]) == before


# ---------------------------------------------------------------------------------------------
# diff


@pytest.fixture(scope="module")
def changed(tmp_path_factory) -> Path:
    """The sample dataset with one training story reworded (diff: exit 1)."""
    from lotdata.datasets.folder import import_lot

    base = tmp_path_factory.mktemp("changed")
    lot = _sample_lot(base / "lot")
    lines = (lot / "train.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["outline"] = ["另一个提纲"]
    lines[0] = json.dumps(first, ensure_ascii=False)
    (lot / "train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_lot([lot], "outgen", base / "dataset")
    return base / "dataset"


def test_diff_json_into_an_input_is_refused_and_the_manifest_kept(dataset, changed, tmp_path):
    before = digest([dataset, changed])
    for target, label in ((dataset / "manifest.json", "A"), (changed / "manifest.json", "B"), (changed, "B")):
        result = invoke("diff", dataset, changed, "--json", target)
        # 2, not 1: diff's exit 1 means "different" (Command.refused_exit)
        assert result.exit_code == 2 and flat(f"the input {label}") in flat(result.output), result.output
    assert digest([dataset, changed]) == before


def test_diff_keeps_its_exit_codes_and_writes_its_report(dataset, changed, tmp_path, monkeypatch):
    from lotdata.datasets.diff import diff_paths

    equal = invoke("diff", dataset, dataset)
    assert equal.exit_code == 0 and "equal" in equal.output, equal.output
    out = tmp_path / "report.json"
    different = invoke("diff", dataset, changed, "--json", out)
    assert different.exit_code == 1 and "different" in different.output, different.output
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["exit_code"] == 1 and report["verdict"] == diff_paths(dataset, changed)["verdict"]
    monkeypatch.chdir(tmp_path)
    stdout = invoke("diff", dataset, changed, "--json", "-")
    assert stdout.exit_code == 1 and json.loads(stdout.stdout)["verdict"] == "different"
    assert not (tmp_path / "-").exists()
    missing = invoke("diff", dataset, tmp_path / "nothere")
    assert missing.exit_code == 3 and "not found" in missing.output
    negative = invoke("diff", dataset, changed, "--sample", "-1")
    assert negative.exit_code == 2  # a usage error, never exit 1 ("different")
    before = digest([out])
    import lotdata.datasets.commands as commands

    monkeypatch.setattr(commands, "write_text", disk_full)
    failed = invoke("diff", dataset, changed, "--json", out)
    assert failed.exit_code == 1 and "report.json" in failed.output and flat("no space left") in flat(failed.output)
    assert digest([out]) == before


def test_diff_of_a_truncated_parquet_is_bad_input_naming_it(dataset, own, tmp_path):
    train = own / "train.parquet"
    train.write_bytes(train.read_bytes()[: train.stat().st_size // 2])
    result = invoke("diff", dataset, own)
    assert result.exit_code == 3, result.output
    assert flat(str(train)) in flat(result.output), result.output
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------------------------------
# card


def test_card_writes_the_card_the_library_writes(own, tmp_path):
    from lotdata.datasets.card import card_text

    (own / "README.md").unlink()
    (own / "stats.json").unlink()
    result = invoke("card", own)
    assert result.exit_code == 0 and flat(f"wrote {own / 'README.md'}") in flat(result.output), result.output
    assert (own / "README.md").read_text(encoding="utf-8") == card_text(own, stats_path=tmp_path / "s.json")
    assert json.loads((own / "stats.json").read_text(encoding="utf-8")) == json.loads(
        (tmp_path / "s.json").read_text(encoding="utf-8")
    )
    assert sorted(p.name for p in own.iterdir() if p.name.startswith(".") or p.suffix == ".lock") == []


def test_card_out_of_disk_leaves_the_previous_card(own, monkeypatch):
    import lotdata.datasets.commands as commands

    before = digest([own])
    monkeypatch.setattr(commands, "write_text", disk_full)
    failed = invoke("card", own)
    assert failed.exit_code == 1 and "README.md" in failed.output and flat("no space left") in flat(failed.output)
    assert digest([own]) == before  # README.md and stats.json as they were


def test_card_refuses_a_folder_where_its_file_goes_and_a_folder_of_another_kind(own, tmp_path):
    (own / "README.md").unlink()
    (own / "README.md").mkdir()
    (own / "README.md" / "keep.txt").write_text("keep\n", encoding="utf-8")
    before = digest([own])
    result = invoke("card", own)
    assert result.exit_code == 1 and "is a folder" in result.output, result.output
    assert digest([own]) == before
    lot = _sample_lot(tmp_path / "lot")
    other = invoke("card", lot)
    assert other.exit_code == 3 and flat("expected a task dataset folder") in flat(other.output), other.output
    assert not (lot / "README.md").exists() and not list(lot.glob(".*"))
    missing = invoke("card", tmp_path / "nothere")
    assert missing.exit_code == 1 and not (tmp_path / "nothere").exists()
