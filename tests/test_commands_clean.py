"""`lotdata clean` as a record run by the one runner (`lotdata.clean.commands.CLEAN`): the clean folder is never
a stories table, the lexicon or the held-out test set, a folder of another kind is refused, the recipe key's
ranges are the CLI's, and a rebuild that fails leaves the previous clean folder whole (not a mix of two builds)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.clean.commands import CLEAN
from lotdata.cli import app


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture()
def sample(tmp_path: Path) -> list[str]:
    return CLEAN.sample(tmp_path)


def test_the_sample_runs_as_the_library_does(sample: list[str], tmp_path: Path):
    from lotdata.clean.files import clean_files

    result = invoke("clean", *sample)
    assert result.exit_code == 0, result.output
    assert "per source and rule" in result.output and "length_min" in result.output
    clean_files([sample[0]], tmp_path / "lib")
    for name in ("stories.parquet", "quarantine.parquet", "summary.parquet"):
        assert pq.read_table(tmp_path / "clean" / name).equals(pq.read_table(tmp_path / "lib" / name))
    assert json.loads((tmp_path / "clean" / "manifest.json").read_text())["kind"] == "clean"
    assert not (tmp_path / ".clean.lotdata-next").exists()


def test_clean_refuses_an_input_as_its_folder(sample: list[str], tmp_path: Path):
    stories = Path(sample[0])
    before = stories.read_bytes()
    same = invoke("clean", stories, "--out", stories)
    assert same.exit_code == 1 and "is the input STORIES" in same.output and stories.read_bytes() == before
    # the old bug: `clean --out D --hold-out D` wrote the clean stories into the held-out test set
    assert invoke("clean", *sample).exit_code == 0
    held = tmp_path / "clean"
    kept = snapshot(held)
    clash = invoke("clean", stories, "--out", held, "--hold-out", held)
    assert clash.exit_code == 1 and "is the input --hold-out" in clash.output and snapshot(held) == kept
    inside = invoke("clean", stories, "--out", held / "sub", "--hold-out", held)
    assert inside.exit_code == 1 and "lies inside the input --hold-out" in inside.output
    lexicon = tmp_path / "lexicon.txt"
    lexicon.write_text("坏词\n", encoding="utf-8")
    words = invoke("clean", stories, "--out", lexicon, "--lexicon", lexicon)
    assert words.exit_code == 1 and "--lexicon" in words.output and lexicon.read_text(encoding="utf-8") == "坏词\n"


def test_clean_refuses_a_folder_of_another_kind(sample: list[str], tmp_path: Path):
    dataset = tmp_path / "ds"
    dataset.mkdir()
    (dataset / "manifest.json").write_text('{"kind": "dataset"}', encoding="utf-8")
    other = invoke("clean", sample[0], "--out", dataset)
    assert other.exit_code == 1 and "of kind 'dataset'" in other.output
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep", encoding="utf-8")
    theirs = invoke("clean", sample[0], "--out", foreign)
    assert theirs.exit_code == 1 and "did not write" in theirs.output
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    existing = tmp_path / "existing"
    existing.write_text("keep me", encoding="utf-8")
    refused = invoke("clean", sample[0], "--out", existing)
    assert refused.exit_code == 1 and "exists and is a file" in refused.output
    assert existing.read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize(
    ("flag", "value"), [("--hold-out-near", "1.5"), ("--hold-out-near", "80"), ("--near-dup", "0")]
)
def test_clean_refuses_a_share_out_of_its_recipe_range(sample: list[str], tmp_path: Path, flag: str, value: str):
    result = invoke("clean", sample[0], "--out", tmp_path / "c", flag, value)
    assert result.exit_code == 1 and flag in result.output and "(0, 1]" in result.output
    assert not (tmp_path / "c").exists()


def test_clean_rebuild_failing_at_the_end_leaves_the_previous_folder(sample: list[str], tmp_path: Path, monkeypatch):
    import lotdata.clean.files as files

    assert invoke("clean", *sample).exit_code == 0
    out = tmp_path / "clean"
    before = snapshot(out)

    def full_disk(folder, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(Path(folder) / "manifest.json"))

    # a rebuild with other settings: its tables are written, then the manifest finds the disk full
    monkeypatch.setattr(files, "write_manifest", full_disk)
    result = invoke("clean", *sample, "--min-chars", "1")
    assert result.exit_code == 1 and "manifest.json" in result.output and "no space left" in result.output
    assert snapshot(out) == before  # not the new stories beside the old manifest
    monkeypatch.undo()
    again = invoke("clean", *sample, "--min-chars", "1")
    assert again.exit_code == 0 and snapshot(out) != before
    assert pq.read_table(out / "stories.parquet").num_rows == 3


def test_clean_keeping_no_story_leaves_the_previous_folder(sample: list[str], tmp_path: Path):
    assert invoke("clean", *sample).exit_code == 0
    out = tmp_path / "clean"
    before = snapshot(out)
    result = invoke("clean", *sample, "--min-chars", "100000", "--max-chars", "200000")
    assert result.exit_code == 3 and "no story kept" in result.output
    assert snapshot(out) == before
