"""Every registered input format passes the same checks, `lotdata.testing.formats`' (as every task does in
test_task_conformance.py), on the sample its record carries: the one detector recognises its own sample (and
no other format of the same priority claims it), `open_input` says what kind of file it is, the sample parses to
valid `stories` rows whose url is ``path#row``, its bad record goes to the quarantine with the file, the row and
a reason, and where the format has a writer the rows it writes read back the same.

Adding a format = one module in `lotdata/sources/formats/` whose record has a `sample`. The last tests
register a made-up format here and read a file of it with `lotdata read`, with no other file edited: the
proof that reading asks the registry rather than naming the formats."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Iterator

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.datasets import formats as registry
from lotdata.datasets.formats import (
    FormatSample,
    InputFormat,
    Record,
    bad,
    format_names,
    get_format,
    register_format,
)
from lotdata.datasets.inputs import open_input
from lotdata.errors import InputError
from lotdata.schema import STORIES, check_table
from lotdata.sources.readers import detect_format, read_stories
from lotdata.testing.formats import FORMAT_CHECKS, check_format


def _lines(path: Path, lines: list[str], encoding: str = "utf-8") -> Path:
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


FORMATS = format_names()


def test_every_format_has_a_sample():
    assert {"txt", "jsonl", "csv", "parquet", "rocstories", "storycloze", "cmrc", "roc_lines"} <= set(FORMATS)
    assert [name for name in FORMATS if get_format(name).sample is None] == []
    with pytest.raises(ValueError, match="unknown format 'nope'"):
        get_format("nope")


@pytest.mark.parametrize("check", FORMAT_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", FORMATS)
def test_format_conformance(name: str, check, tmp_path: Path):
    check(get_format(name), tmp_path)


def test_the_round_trip_check_has_formats_with_a_writer():
    assert {n for n in FORMATS if get_format(n).write is not None} >= {"jsonl", "parquet"}


def _lot_jsonl(folder: Path) -> Path:
    record = {"story": "小兔子在森林里迷路了。它找到了回家的路。", "outline": ["小兔子", "回家的路"], "title": "迷路"}
    other = {"story": "The owl woke up at night. It went hunting.", "outline": ["owl", "night"]}
    return _lines(folder / "test.jsonl", [json.dumps(record, ensure_ascii=False), json.dumps(other), json.dumps(["x"])])


def test_a_lot_task_file_is_jsonl_that_open_input_calls_lot_jsonl(tmp_path: Path):
    path = _lot_jsonl(tmp_path)
    assert detect_format(path) == "jsonl"
    found = open_input(path)
    assert (found.kind, found.task) == ("lot-jsonl", "outgen")
    result = read_stories([path])
    assert len(result.stories) == 2 and [q["row"] for q in result.quarantine] == [3]


# ------------------------------------------------------------------------------------------------
# a made-up format, registered here only: "tales" files hold `id<TAB>story` lines


def _parse_tales(path: Path) -> Iterator[Record]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if "\t" not in line:
            yield bad(number, "no tab between id and story", line)
            continue
        story_id, text = line.split("\t", 1)
        yield Record(row=number, raw=line, text=text, source_id=story_id)


def _tales_sample(folder: Path) -> FormatSample:
    lines = ["t1\t狐狸跑回了家。外面下着雨。", "broken line", "t2\tThe owl woke up. It went hunting."]
    return FormatSample(_lines(folder / "corpus.tales", lines), good=2, bad_row=2)


TALES = InputFormat(
    name="tales",
    description="an `id<TAB>story` line (.tales)",
    detect=lambda p: p.suffix == ".tales",
    parse=_parse_tales,
    default_source="tales-corpus",
    sample=_tales_sample,
)


@pytest.fixture
def tales(tmp_path: Path):
    register_format(TALES)
    path = _lines(
        tmp_path / "corpus.tales",
        ["t1\t狐狸跑回了家。外面下着雨。", "broken line", "t2\tThe owl woke up. It went hunting."],
    )
    yield path
    registry.unregister_format("tales")


def test_a_made_up_format_passes_the_format_checks(tales: Path, tmp_path: Path):
    check_format(TALES, tmp_path)


def test_the_format_checks_catch_a_broken_format(tales: Path, tmp_path: Path):
    greedy = replace(TALES, name="greedy", detect=lambda p: p.suffix in (".tales", ".txt"))  # claims txt files too
    register_format(greedy)
    try:
        with pytest.raises(AssertionError, match=r"claim a txt file: \['txt', 'greedy'\]"):
            check_format(get_format("txt"), tmp_path / "txt")
    finally:
        registry.unregister_format("greedy")
    miscounted = replace(TALES, sample=lambda folder: replace(_tales_sample(folder), bad_row=3))
    with registry.FORMAT_REGISTRY.override(miscounted):
        with pytest.raises(AssertionError, match="tales"):
            check_format(miscounted, tmp_path / "tales")


def test_a_made_up_format_reads_end_to_end(tales: Path, tmp_path: Path):
    assert "tales" in format_names() and detect_format(tales) == "tales"
    assert open_input(tales).kind == "file"
    out = tmp_path / "stories.parquet"
    result = CliRunner().invoke(app, ["read", str(tales), "--out", str(out)])
    assert result.exit_code == 0, result.output
    stories = check_table(pq.read_table(out), STORIES, str(out)).to_pylist()
    assert [(s["source_id"], s["source"], s["url"]) for s in stories] == [
        ("t1", "tales-corpus", f"{tales}#1"),
        ("t2", "tales-corpus", f"{tales}#3"),
    ]
    quarantine = pq.read_table(tmp_path / "stories.quarantine.parquet").to_pylist()
    assert [(q["path"], q["row"], q["reason"]) for q in quarantine] == [(str(tales), 2, "no tab between id and story")]
    # named explicitly, on a file whose extension says nothing
    plain = tmp_path / "corpus.data"
    plain.write_bytes(tales.read_bytes())
    named = CliRunner().invoke(app, ["read", str(plain), "--format", "tales", "--out", str(tmp_path / "named.parquet")])
    assert named.exit_code == 0, named.output
    assert pq.read_table(tmp_path / "named.parquet").column("text").to_pylist() == [s["text"] for s in stories]


def test_an_unregistered_format_is_unknown(tmp_path: Path):
    path = _lines(tmp_path / "corpus.tales", ["t1\tA fox."])
    with pytest.raises(InputError, match="cannot tell the format"):
        detect_format(path)
    result = CliRunner().invoke(app, ["read", str(path), "--format", "tales", "--out", str(tmp_path / "x.parquet")])
    assert result.exit_code != 0 and "tales" in result.output


def test_a_second_record_under_one_name_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        register_format(InputFormat(name="txt", description="", detect=lambda p: False, parse=_parse_tales))
