"""`lotdata read`, `extract` and `crawl` as records run by the one runner (`lotdata.sources.commands`): an output
never overwrites an input (nor does its quarantine), a folder of another kind is refused, a run that fails
leaves the previous output and its quarantine byte-identical, and each record's sample runs."""

from __future__ import annotations

import errno
import shlex
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.sources.commands import CRAWL, EXTRACT, READ

BAD = '{"nottext": 1}\n'


def invoke(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def snapshot(*paths: Path) -> dict[str, bytes]:
    """Every file at or under `paths`, by path: what a failed run must leave as it was."""
    found = {}
    for path in paths:
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        found |= {str(f): f.read_bytes() for f in files}
    return found


def enospc_on(module, name: str, target: str):
    """`module.name` that fails like a full disk when it writes a path (a positional argument) ending in `target`."""
    real = getattr(module, name)

    def failing(*args, **kwargs):
        path = next((a for a in args if isinstance(a, (str, Path)) and str(a).endswith(target)), None)
        if path is not None:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(*args, **kwargs)

    return failing


@pytest.mark.parametrize("record", [READ, EXTRACT, CRAWL], ids=lambda r: r.name)
def test_the_sample_runs(record, tmp_path: Path):
    args = record.sample(tmp_path)
    result = invoke(*shlex.split(record.name), *args)
    assert result.exit_code == 0, result.output
    out = Path(args[args.index("--out") + 1])
    assert out.exists() and not list(tmp_path.rglob("*.lotdata-next"))


# --- read -----------------------------------------------------------------------------------------


def test_read_refuses_its_input_as_output_or_as_its_quarantine(tmp_path: Path):
    table = tmp_path / "s.parquet"
    assert invoke("read", "lotdata:sample", "--out", table).exit_code == 0
    before = table.read_bytes()
    same = invoke("read", table, "--out", table)
    assert same.exit_code == 1 and "is the input FILES" in same.output and table.read_bytes() == before
    # the old bug: `read X.quarantine.parquet --out X` wrote X's quarantine over the input it read
    held = tmp_path / "x.quarantine.parquet"
    held.write_bytes(before)
    clash = invoke("read", held, "--out", tmp_path / "x.parquet")
    assert clash.exit_code == 1 and "--out (its quarantine)" in clash.output
    assert held.read_bytes() == before and not (tmp_path / "x.parquet").exists()


def test_read_refuses_a_folder_as_out_and_a_foreign_work_folder(tmp_path: Path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "mine.txt").write_text("keep", encoding="utf-8")
    as_folder = invoke("read", "lotdata:sample", "--out", folder)
    assert as_folder.exit_code == 1 and "is a folder" in as_folder.output
    work = tmp_path / "s.parquet.work"
    work.mkdir()
    (work / "notes.txt").write_text("keep", encoding="utf-8")
    foreign = invoke("read", "lotdata:sample", "--out", tmp_path / "s.parquet")
    assert foreign.exit_code == 1 and "work folder" in foreign.output
    assert (work / "notes.txt").read_text(encoding="utf-8") == "keep" and not (tmp_path / "s.parquet").exists()


def test_read_failing_at_the_end_leaves_the_previous_table_and_quarantine(tmp_path: Path, monkeypatch):
    import lotdata.sources.read_stage as read_stage

    bad = tmp_path / "bad.jsonl"
    bad.write_text(BAD, encoding="utf-8")
    out = tmp_path / "s.parquet"
    assert invoke("read", "lotdata:sample", bad, "--out", out).exit_code == 0
    quarantine = tmp_path / "s.quarantine.parquet"
    before = snapshot(out, quarantine)
    assert len(before) == 2
    # a rebuild without rejected records, whose table write finds the disk full
    monkeypatch.setattr(read_stage, "write_parquet", enospc_on(read_stage, "write_parquet", "s.parquet"))
    result = invoke("read", "lotdata:sample", "--out", out)
    assert result.exit_code == 1, result.output
    assert "s.parquet" in result.output and "no space left" in result.output
    assert snapshot(out, quarantine) == before  # not the new table, nor the stale quarantine removed


def test_read_nothing_read_is_exit_3_and_publishes_nothing(tmp_path: Path):
    out = tmp_path / "s.parquet"
    assert invoke("read", "lotdata:sample", "--out", out).exit_code == 0
    before = snapshot(out)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(BAD * 2, encoding="utf-8")
    result = invoke("read", bad, "--out", out)
    assert result.exit_code == 3 and "no story could be read" in result.output
    assert snapshot(out) == before and not (tmp_path / "s.quarantine.parquet").exists()
    staged = tmp_path / ".s.parquet.lotdata-next" / "s.quarantine.parquet"
    assert pq.read_table(staged).num_rows == 2  # why, where the message says
    # the next good run publishes and leaves no staging folder behind
    assert invoke("read", "lotdata:sample", "--out", out).exit_code == 0
    assert not staged.parent.exists() and not (tmp_path / "s.quarantine.parquet").exists()


def test_read_gives_the_same_table_as_the_library(tmp_path: Path):
    from lotdata.sources.read_stage import read_step

    read_step(["lotdata:sample"], tmp_path / "lib.parquet")
    assert invoke("read", "lotdata:sample", "--out", tmp_path / "cli.parquet").exit_code == 0
    assert pq.read_table(tmp_path / "cli.parquet").equals(pq.read_table(tmp_path / "lib.parquet"))


# --- extract --------------------------------------------------------------------------------------


def test_extract_refuses_its_input_and_a_folder_as_output(tmp_path: Path):
    args = EXTRACT.sample(tmp_path)
    page = tmp_path / "pages" / "fox.html"
    before = page.read_bytes()
    same = invoke("extract", page, "--out", page)
    assert same.exit_code == 1 and "is the input" in same.output and page.read_bytes() == before
    inside = invoke("extract", tmp_path / "pages", "--out", tmp_path / "pages" / "x.parquet")
    assert inside.exit_code == 1 and "lies inside the input" in inside.output
    folder = tmp_path / "d"
    folder.mkdir()
    as_folder = invoke("extract", *args[:1], "--out", folder)
    assert as_folder.exit_code == 1 and "is a folder" in as_folder.output


def test_extract_failing_at_the_end_leaves_the_previous_output(tmp_path: Path, monkeypatch):
    import lotdata.io as io

    args = EXTRACT.sample(tmp_path)
    assert invoke("extract", *args).exit_code == 0
    out = tmp_path / "extracted.parquet"
    before = snapshot(out, tmp_path / "extracted.quarantine.parquet")
    assert len(before) == 2
    monkeypatch.setattr(io, "write_parquet", enospc_on(io, "write_parquet", "extracted.parquet"))
    result = invoke("extract", *args)
    assert result.exit_code == 1 and "extracted.parquet" in result.output and "no space left" in result.output
    assert snapshot(out, tmp_path / "extracted.quarantine.parquet") == before


# --- crawl ----------------------------------------------------------------------------------------


def test_crawl_refuses_its_recipe_as_output_and_a_folder_of_another_kind(tmp_path: Path):
    args = CRAWL.sample(tmp_path)
    recipe = tmp_path / "site.toml"
    before = recipe.read_bytes()
    same = invoke("crawl", "--recipe", recipe, "--out", recipe, "--extract-only")
    assert same.exit_code == 1 and "is the input --recipe" in same.output and recipe.read_bytes() == before
    around = invoke("crawl", "--recipe", recipe, "--out", tmp_path, "--extract-only")
    assert around.exit_code == 1 and "contains the input --recipe" in around.output
    other = tmp_path / "clean"
    other.mkdir()
    (other / "manifest.json").write_text('{"kind": "clean"}', encoding="utf-8")
    kind = invoke("crawl", "--recipe", recipe, "--out", other, "--extract-only")
    assert kind.exit_code == 1 and "of kind 'clean'" in kind.output
    # a crawl folder without a manifest yet (a killed first run) is the crawl's own: it resumes from it
    assert invoke("crawl", *args).exit_code == 0


def test_crawl_failing_at_the_end_leaves_the_previous_folder_and_resumes(tmp_path: Path, monkeypatch):
    import lotdata.sources.crawl as crawl

    args = CRAWL.sample(tmp_path)
    assert invoke("crawl", *args).exit_code == 0
    out = tmp_path / "crawl"
    before = snapshot(out)
    assert "manifest.json" in "".join(before)
    monkeypatch.setattr(crawl, "write_manifest", enospc_on(crawl, "write_manifest", "crawl"))
    result = invoke("crawl", *args)
    assert result.exit_code == 1 and "no space left" in result.output and "crawl" in result.output
    assert snapshot(out) == before
    staged = tmp_path / ".crawl.lotdata-next" / "crawl"
    assert (staged / "pages.jsonl").read_bytes() == (out / "pages.jsonl").read_bytes()  # an update: a copy
    monkeypatch.undo()
    again = invoke("crawl", *args)
    assert again.exit_code == 0 and not staged.parent.exists()
    assert (out / "pages.jsonl").read_bytes() == before[str(out / "pages.jsonl")]


def test_crawl_extract_only_without_a_log_names_the_folder(tmp_path: Path):
    args = CRAWL.sample(tmp_path)
    empty = tmp_path / "nothing"
    result = invoke("crawl", "--recipe", args[1], "--out", empty, "--extract-only")
    assert result.exit_code == 1 and "no pages.jsonl" in result.output and str(empty) in result.output
    assert not empty.exists()
