import pytest

from lotdata.datasets.folder import import_lot, read_dataset
from lotdata.tasks.plotcom import plotcom_from_clozet


def _row(context: str, label: int = 1) -> dict:
    return {
        "example_id": "c1",
        "story_id": "s1",
        "split": "val",
        "context": context,
        "candidates": ["错的。", "对的。"],
        "label": label,
        "mask_sentence_index": 2,
        "lang": "zh",
    }


def test_right_candidate_becomes_target_and_mask_is_renamed():
    [row] = plotcom_from_clozet([_row("开头。<mask>结尾。")])
    assert row["context"] == "开头。<MASK>结尾。"
    assert row["target"] == "对的。"
    assert row["split"] == "val" and row["story_id"] == "s1"


def test_a_context_without_exactly_one_mask_is_refused():
    with pytest.raises(ValueError, match="c1"):
        plotcom_from_clozet([_row("没有遮住的句子。")])


def test_official_clozet_example_converts(tmp_path, shared_data):
    examples = shared_data / "lot_official_examples"
    files = sorted(examples.rglob("*.jsonl"))
    clozet = [f for f in files if "clozet" in str(f).lower() or "cloze" in f.name.lower()]
    if not clozet:
        pytest.fail(f"no ClozeT example under {examples}: {files}")
    import_lot([clozet[0]], "clozet", tmp_path / "c", split="test")
    rows = read_dataset(tmp_path / "c")["test"].to_pylist()
    converted = plotcom_from_clozet(rows)
    assert len(converted) == len(rows) > 0
    for src, dst in zip(rows, converted):
        assert dst["target"] == src["candidates"][src["label"]]
        assert dst["context"].count("<MASK>") == 1


def test_a_nullable_column_missing_from_an_older_file_reads_as_null():
    import pyarrow as pa

    from lotdata.schema import CLOZET, check_table

    older = pa.table({n: pa.array([], CLOZET.field(n).type) for n in CLOZET.names if n != "annotator"})
    assert check_table(older, CLOZET).column_names == CLOZET.names
    no_context = older.drop(["context"])
    import pytest as _pytest

    from lotdata.errors import InputError

    with _pytest.raises(InputError, match="context"):
        check_table(no_context, CLOZET)
