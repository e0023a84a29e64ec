"""The build commands as records (issue 33, lotdata/tasks/commands.py): every output checked against every input
before any work, a folder of another kind refused, and a rebuild that fails part-way leaves the previous dataset
byte-identical (the dataset folder is staged whole and swapped in), while a normal run writes what the library
writes."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.testing import digest

runner = CliRunner()
SPLIT_FILES = ["train.parquet", "val.parquet", "test.parquet", "lot/train.jsonl", "lot/val.jsonl", "lot/test.jsonl"]


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def flat(text: str) -> str:
    """Text without white space (rich wraps a long title or message at the terminal width)."""
    return "".join(text.split())


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> Path:
    from lotdata.tasks.commands import sample_stories

    return sample_stories(tmp_path_factory.mktemp("stories") / "stories.parquet")


def _split_bytes(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes() for name in SPLIT_FILES if (folder / name).exists()}


def _no_staging_left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".lotdata-next"))


@pytest.mark.parametrize("task", ["senpos", "plotcom", "outgen"])
def test_a_build_writes_what_the_library_writes(task, stories, tmp_path):
    from lotdata.tasks.build import build_dataset

    result = invoke("build", task, "--stories", stories, "--out", tmp_path / "cli", "--seed", "3")
    assert result.exit_code == 0, result.output
    assert flat(f"lotdata build {task} -> {tmp_path / 'cli'}") in flat(result.output)
    build_dataset(task, [stories], tmp_path / "lib", seed=3)
    assert _split_bytes(tmp_path / "cli") == _split_bytes(tmp_path / "lib") and len(_split_bytes(tmp_path / "cli")) == 6
    manifest = json.loads((tmp_path / "cli" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["kind"] == "dataset" and manifest["task"] == task
    assert [i["path"] for i in manifest["inputs"]] == [str(stories)]
    assert not (tmp_path / "cli" / ".incomplete").exists() and not (tmp_path / "cli" / ".lotdata-work").exists()
    assert _no_staging_left(tmp_path) == [] and not (tmp_path / "cli.lock").exists()


@pytest.mark.parametrize("task", ["senpos", "segments"])
def test_the_stories_table_as_out_is_refused_and_untouched(task, stories, tmp_path):
    copy = tmp_path / "stories.parquet"
    copy.write_bytes(stories.read_bytes())
    before = digest([copy])
    result = invoke("build", task, "--stories", copy, "--out", copy)
    assert result.exit_code == 1, result.output
    assert "is the input --stories" in result.output
    assert digest([copy]) == before


def test_out_inside_the_clozet_input_or_around_the_stories_is_refused(stories, tmp_path):
    clozet = tmp_path / "clozet"
    clozet.mkdir()
    (clozet / "test.jsonl").write_text("", encoding="utf-8")
    inside = invoke("build", "plotcom", "--stories", stories, "--clozet", clozet, "--out", clozet / "pc")
    assert inside.exit_code == 1 and "lies inside the input --clozet" in inside.output, inside.output
    assert sorted(p.name for p in clozet.iterdir()) == ["test.jsonl"]
    around = invoke("build", "outgen", "--stories", stories, "--out", stories.parent)
    assert around.exit_code == 1 and "contains the input --stories" in around.output, around.output


def test_a_folder_of_another_kind_or_with_foreign_files_is_refused(stories, tmp_path):
    other = tmp_path / "clean"
    other.mkdir()
    (other / "manifest.json").write_text(json.dumps({"kind": "clean", "task": "clean"}), encoding="utf-8")
    (other / "stories.parquet").write_bytes(b"someone's table")
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("not lotdata's\n", encoding="utf-8")
    plain = tmp_path / "file.txt"
    plain.write_text("a file\n", encoding="utf-8")
    before = digest([other, foreign, plain])
    for out, words in ((other, "of kind 'clean'"), (foreign, "files lotdata did not write"), (plain, "is a file")):
        result = invoke("build", "senpos", "--stories", stories, "--out", out)
        assert result.exit_code == 1 and words in result.output, result.output
    segments = invoke("build", "segments", "--stories", stories, "--out", foreign)
    assert segments.exit_code == 1 and "is a folder" in segments.output, segments.output
    assert digest([other, foreign, plain]) == before


def test_a_rebuild_out_of_disk_in_its_last_write_leaves_the_previous_dataset(stories, tmp_path, monkeypatch):
    import lotdata.datasets.folder as folder

    out = tmp_path / "ds"
    assert invoke("build", "senpos", "--stories", stories, "--out", out, "--seed", "1").exit_code == 0
    before = digest([out])

    def disk_full(where, manifest=None, **fields):
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(where) / "manifest.json"))

    monkeypatch.setattr(folder, "write_manifest", disk_full)  # the last write of build_dataset
    result = invoke("build", "senpos", "--stories", stories, "--out", out, "--seed", "2")
    assert result.exit_code == 1, result.output
    assert "manifest.json" in result.output and flat("no space left on the device") in flat(result.output)
    assert "Traceback" not in result.output
    assert digest([out]) == before  # not a mix of two builds, no .incomplete
    assert not (out / ".incomplete").exists()
    monkeypatch.undo()
    # the next run publishes a whole build of its own parameters, the same as a build that never failed
    assert invoke("build", "senpos", "--stories", stories, "--out", out, "--seed", "2").exit_code == 0
    assert invoke("build", "senpos", "--stories", stories, "--out", tmp_path / "fresh", "--seed", "2").exit_code == 0
    assert _split_bytes(out) == _split_bytes(tmp_path / "fresh") != {}
    assert _no_staging_left(tmp_path) == []


def test_a_split_file_that_cannot_be_replaced_leaves_the_previous_dataset(stories, tmp_path, monkeypatch):
    import lotdata.datasets.folder as folder

    out = tmp_path / "ds"
    assert invoke("build", "plotcom", "--stories", stories, "--out", out).exit_code == 0
    before = digest([out])
    real = folder.write_parquet

    def refuse_test_split(table, path):
        if Path(path).name == "test.parquet":  # train and val are written, then this one fails
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(table, path)

    monkeypatch.setattr(folder, "write_parquet", refuse_test_split)
    result = invoke("build", "plotcom", "--stories", stories, "--out", out, "--seed", "5", "--no-lot-jsonl")
    assert result.exit_code == 1 and "test.parquet" in result.output and "permission denied" in result.output
    assert digest([out]) == before


def test_a_stale_lot_file_of_a_failed_run_is_not_published(stories, tmp_path, monkeypatch):
    import lotdata.datasets.folder as folder

    out = tmp_path / "ds"

    def disk_full(where, manifest=None, **fields):
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(where) / "manifest.json"))

    monkeypatch.setattr(folder, "write_manifest", disk_full)
    assert invoke("build", "outgen", "--stories", stories, "--out", out).exit_code == 1  # lot/*.jsonl staged
    assert not out.exists()
    monkeypatch.undo()
    result = invoke("build", "outgen", "--stories", stories, "--out", out, "--no-lot-jsonl")
    assert result.exit_code == 0, result.output
    assert not (out / "lot").exists()  # the failed run's LOT jsonl stayed out of this build


def test_segments_out_of_disk_leaves_the_previous_table(stories, tmp_path, monkeypatch):
    import lotdata.tasks.segments as segments

    out = tmp_path / "seg.parquet"
    first = invoke("build", "segments", "--stories", stories, "--out", out)
    assert first.exit_code == 0 and "segments" in first.output, first.output
    assert [r["story_id"] for r in segments.read_segments(out)]
    before = digest([out])

    def disk_full(rows, where):
        raise OSError(errno.ENOSPC, "No space left on device", str(where))

    monkeypatch.setattr(segments, "write_segments", disk_full)
    result = invoke("build", "segments", "--stories", stories, "--out", out, "--seed", "4")
    assert result.exit_code == 1 and "seg.parquet" in result.output and "no space left" in result.output
    assert digest([out]) == before
    bad = invoke("build", "segments", "--stories", stories, "--out", tmp_path / "x.parquet", "--min-words", "0")
    assert bad.exit_code == 1 and "--min-words" in bad.output and not (tmp_path / "x.parquet").exists()


def test_build_clozet_refuses_its_cases_as_out_and_keeps_a_previous_dataset(tmp_path, monkeypatch):
    import lotdata.datasets.folder as folder
    from lotdata.tasks.commands import BUILD_CLOZET

    args = BUILD_CLOZET.sample(tmp_path)
    cases = Path(args[args.index("--cases") + 1])
    out = Path(args[args.index("--out") + 1])
    before_cases = digest([cases])
    same = invoke("build", "clozet", *[str(cases) if a == str(out) else a for a in args])
    assert same.exit_code == 1 and "is the input --cases" in same.output, same.output
    assert digest([cases]) == before_cases
    ok = invoke("build", "clozet", *args)
    assert ok.exit_code == 0 and "lotdata build clozet" in ok.output, ok.output
    before = digest([out])

    def disk_full(where, manifest=None, **fields):
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(where) / "manifest.json"))

    monkeypatch.setattr(folder, "write_manifest", disk_full)
    failed = invoke("build", "clozet", *args, "--seed", "9")
    assert failed.exit_code == 1 and "manifest.json" in failed.output
    assert digest([out]) == before


def test_a_second_writer_is_refused(stories, tmp_path):
    out = tmp_path / "ds"
    (tmp_path / "ds.lock").write_text(json.dumps({"pid": 1, "host": __import__("socket").gethostname()}))
    result = invoke("build", "senpos", "--stories", stories, "--out", out)
    assert result.exit_code == 1 and "another lotdata run is writing" in result.output, result.output
    assert not out.exists()
