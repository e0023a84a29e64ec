"""Malformed input exits 3 naming the file and row or column (or goes to the quarantine with the reason), never
silently accepted, never exit 70 (issue 33, cases B7a-B8d)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.errors import InputError
from lotdata.sources.readers import read_stories

runner = CliRunner()

GOOD_CSV_ROW = '3,T3,"The fox ran home. It was dry inside."\n'


def test_csv_unterminated_quote_is_quarantined_not_swallowed(tmp_path: Path):
    path = tmp_path / "bq.csv"
    path.write_text(
        "id,title,text\n" + GOOD_CSV_ROW + '1,T,"hello world this is a story. It goes on.\n2,T2,another one\n'
    )
    result = read_stories([path])
    assert [s["source_id"] for s in result.stories] == ["3"]
    [bad] = result.quarantine
    assert bad["path"] == str(path) and bad["row"] == 2 and "unterminated quote" in bad["reason"]
    assert "line 3" in bad["reason"]


def test_csv_unterminated_quote_cli_exit_3(tmp_path: Path):
    path = tmp_path / "bq.csv"
    path.write_text('id,title,text\n1,T,"hello world this is a story. It goes on.\n2,T2,another one\n')
    out = runner.invoke(app, ["read", str(path), "--out", str(tmp_path / "bq.parquet")])
    assert out.exit_code == 3 and "bq.csv" in out.output and "unterminated quote" in out.output


def test_csv_closed_quotes_with_newlines_still_read(tmp_path: Path):
    path = tmp_path / "ok.csv"
    path.write_text('id,text\n1,"A story. It goes on.\nNext line."\n2,"Second story, short. Yes."\n')
    result = read_stories([path])
    assert [s["source_id"] for s in result.stories] == ["1", "2"] and not result.quarantine


@pytest.mark.parametrize(
    "name, data, row",
    [
        (
            "nu.jsonl",
            b'{"id":"0","text":"A good story. It ends."}\n{"id":"1","text":"A story \xff\xfe with bad bytes. Yes."}\n',
            2,
        ),
        ("nu.csv", b'id,text\n0,"A good story. It ends."\n1,"caf\xe9 story. \xff\xfe"\n', 2),
        (
            "mixed.jsonl",
            '{"id":"0","text":"小狐狸学游泳，它很开心。"}\n'.encode() + b'{"id":"1","text":"bad \xe9 byte. Yes."}\n',
            2,
        ),
    ],
)
def test_invalid_utf8_bytes_quarantine_their_row(tmp_path: Path, name: str, data: bytes, row: int):
    path = tmp_path / name
    path.write_bytes(data)
    result = read_stories([path])
    assert [s["source_id"] for s in result.stories] == ["0"]
    [bad] = result.quarantine
    assert bad["path"] == str(path) and bad["row"] == row and "invalid UTF-8 bytes" in bad["reason"]
    assert "\\x" in bad["raw"]  # the bytes shown, storable
    pq.write_table(pa.table({"raw": [bad["raw"]]}), tmp_path / "q.parquet")  # no lone surrogate left


def test_invalid_utf8_cli_exit_3_names_file(tmp_path: Path):
    path = tmp_path / "nu.jsonl"
    path.write_bytes(b'{"id":"1","text":"A story \xff\xfe with bad bytes. Yes."}\n')
    out = runner.invoke(app, ["read", str(path), "--out", str(tmp_path / "nu.parquet")])
    assert out.exit_code == 3 and "nu.jsonl" in out.output and "invalid UTF-8" in out.output


@pytest.mark.parametrize("encoding", ["latin-1", "gb18030"])
def test_whole_file_in_another_encoding_still_read(tmp_path: Path, encoding: str):
    text = (
        "Le café était fermé. Marie a mangé une crêpe à la fraise."
        if encoding == "latin-1"
        else "元宵节的晚上，街上挂满了灯笼。奶奶认得它。"
    )
    path = tmp_path / "other.jsonl"
    path.write_bytes((json.dumps({"id": "1", "text": text}, ensure_ascii=False) + "\n").encode(encoding))
    result = read_stories([path])
    assert not result.quarantine and len(result.stories) == 1  # decoded as a whole file, as before (not quarantined)
    if encoding == "gb18030":
        assert result.stories[0]["text"] == text


def test_annotate_check_int_text_column_exit_3(tmp_path: Path):
    path = tmp_path / "ti.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "text": [1, 2]}), path)
    out = runner.invoke(app, ["annotate", "check", "story_write", "--input", str(path), "--out", str(tmp_path / "k4")])
    assert out.exit_code == 3 and "ti.parquet" in out.output and "'text'" in out.output


def test_annotate_check_int_text_field_jsonl_names_row(tmp_path: Path):
    path = tmp_path / "ti.jsonl"
    path.write_text('{"id":"a","text":"A story. It ends."}\n{"id":"b","text":5}\n')
    out = runner.invoke(app, ["annotate", "check", "story_write", "--input", str(path), "--out", str(tmp_path / "k5")])
    assert out.exit_code == 3 and "ti.jsonl, row 2" in out.output and "'text'" in out.output


@pytest.fixture(scope="module")
def senpos(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("m33")
    assert runner.invoke(app, ["read", "lotdata:sample", "--out", str(folder / "s.parquet")]).exit_code == 0
    out = runner.invoke(
        app, ["build", "senpos", "--stories", str(folder / "s.parquet"), "--out", str(folder / "senpos")]
    )
    assert out.exit_code == 0, out.output
    return folder / "senpos"


def test_card_broken_manifest_exit_3_names_it(senpos: Path, tmp_path: Path):
    ds = tmp_path / "DS"
    shutil.copytree(senpos, ds)
    (ds / "manifest.json").write_text("{bad")
    out = runner.invoke(app, ["card", str(ds)])
    assert out.exit_code == 3 and str(ds / "manifest.json") in out.output


def test_diff_sentences_stored_as_string_exit_3(senpos: Path, tmp_path: Path):
    ds = tmp_path / "DS"
    shutil.copytree(senpos, ds)
    table = pq.read_table(ds / "train.parquet")
    i = table.schema.get_field_index("sentences")
    strings = pa.array([json.dumps(x) for x in table.column("sentences").to_pylist()])
    pq.write_table(table.set_column(i, pa.field("sentences", pa.string()), strings), ds / "train.parquet")
    manifest = json.loads((ds / "manifest.json").read_text())
    manifest["splits"]["train"]["sha256"] = hashlib.sha256((ds / "train.parquet").read_bytes()).hexdigest()
    (ds / "manifest.json").write_text(json.dumps(manifest))
    out = runner.invoke(app, ["diff", str(senpos), str(ds)])
    assert out.exit_code == 3 and "train.parquet" in out.output and "'sentences'" in out.output


def test_diff_of_a_byte_identical_copy_is_equal(senpos: Path, tmp_path: Path):
    copy = tmp_path / "COPY"
    shutil.copytree(senpos, copy)
    out = runner.invoke(app, ["diff", str(senpos), str(copy)])
    assert out.exit_code == 0, out.output
    assert "equal" in out.output


def test_corrupt_results_json_names_it(tmp_path: Path):
    pytest.importorskip("torch")
    from lotdata.models.runs import _load_results, _read_results

    run = tmp_path / "RUN"
    run.mkdir()
    (run / "results.json").write_text("{bad")
    with pytest.raises(InputError, match="RUN/results.json"):
        _read_results(run)
    staged = tmp_path / "staged.json"
    staged.write_text("[1]")
    with pytest.raises(InputError, match="RUN/results.json"):
        _load_results(staged, shown=run / "results.json")
