from __future__ import annotations

import json
from pathlib import Path

import pytest

from lotdata.datasets.folder import export_lot, import_lot, read_dataset
from lotdata.errors import InputError

TASKS = ["clozet", "senpos", "plotcom", "outgen"]


@pytest.mark.parametrize("task", TASKS)
def test_official_examples_round_trip_byte_for_byte(shared_data: Path, tmp_path: Path, task: str):
    original = shared_data / "lot_official_examples" / "examples" / f"{task}.jsonl"
    import_lot([original], task, tmp_path / "ds", split="test")
    written = export_lot(tmp_path / "ds", tmp_path / "export")
    assert written == {"test": len(original.read_text(encoding="utf-8").splitlines())}
    assert (tmp_path / "export" / "test.jsonl").read_bytes() == original.read_bytes()


def test_imported_senpos_fields(shared_data: Path, tmp_path: Path):
    import_lot([shared_data / "lot_official_examples" / "examples" / "senpos.jsonl"], "senpos", tmp_path / "ds")
    (row,) = read_dataset(tmp_path / "ds")["train"].to_pylist()
    assert row["label"] == 8 and row["n_candidates"] == 8 and len(row["sentences"]) == 9
    assert row["removed"].startswith("丽娜发现银树枝时")


def test_outgen_dev_round_trips_without_title(shared_data: Path, tmp_path: Path):
    original = shared_data / "lot_outgen_dev" / "dev.jsonl"
    import_lot([original], "outgen", tmp_path / "ds")  # dev.jsonl -> val
    tables = read_dataset(tmp_path / "ds")
    assert tables["val"].num_rows == 111 and tables["train"].num_rows == 0
    from lotdata.datasets.folder import dataset_stats

    stats = dataset_stats(tmp_path / "ds")["splits"]["val"]
    assert stats["avg_words_title"] is None  # no titles in the file: not 0
    assert 7 <= stats["avg_phrases_outline"] <= 8 and 2 <= stats["avg_words_per_phrase"] <= 4
    export_lot(tmp_path / "ds", tmp_path / "export")
    assert (tmp_path / "export" / "val.jsonl").read_bytes() == original.read_bytes()
    assert not (tmp_path / "export" / "train.jsonl").exists()


def test_bad_line_names_file_and_line(tmp_path: Path):
    path = tmp_path / "train.jsonl"
    good = {"story": "甲<mask>乙", "plot0": "丙", "plot1": "丁", "label": "0"}
    bad = {"story": "甲<mask>乙", "plot0": "丙", "plot1": "丁", "label": 1}
    path.write_text(
        json.dumps(good, ensure_ascii=False) + "\n" + json.dumps(bad, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as info:
        import_lot([path], "clozet", tmp_path / "ds")
    assert "train.jsonl, row 2" in str(info.value) and "label" in str(info.value)
    assert not (tmp_path / "ds" / "manifest.json").exists()


def test_unknown_field_is_refused(tmp_path: Path):
    path = tmp_path / "test.jsonl"
    path.write_text(json.dumps({"story": "a<MASK>b", "plot": "c", "extra": 1}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="unknown field"):
        import_lot([path], "plotcom", tmp_path / "ds")
