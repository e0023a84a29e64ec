"""Every registered task passes the same checks (in the spirit of scikit-learn's `check_estimator`):
rows from its builder (or its demo rows) fit its schema, the LOT jsonl round trip is byte-identical,
Table 3 statistics are computable, the card renders, splits are grouped by story, and the record is
consistent (text fields, mask token, metric family, prediction field, LOT detection).

Adding a task = one module that calls `register_task(...)` + this test passing for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from lotdata.datasets.folder import export_lot, import_lot, read_dataset, write_dataset
from lotdata.datasets.lotformat import lot_task_of, read_lot_file, to_lot
from lotdata.datasets.registry import METRIC_FAMILIES, all_tasks, get_task, task_names
from lotdata.datasets.splits import parse_split_spec
from lotdata.datasets.stats import split_stats
from lotdata.io import write_jsonl
from lotdata.resources import sample_corpus_path
from lotdata.schema import check_table, table_from_rows
from lotdata.sources.readers import read_stories
from lotdata.tasks.build import build_examples, split_examples

TASKS = task_names()


@pytest.fixture(scope="module")
def stories() -> list[dict]:
    rows = read_stories([sample_corpus_path()]).stories
    assert len(rows) >= 10
    return rows


@pytest.fixture(scope="module")
def rows_of(stories):
    cache: dict[str, list[dict]] = {}

    def rows(task: str) -> list[dict]:
        if task not in cache:
            spec = get_task(task)
            if spec.builder is not None:
                cache[task], _ = build_examples(task, stories, seed=0)
            else:
                cache[task] = spec.demo_examples(stories)
        return cache[task]

    return rows


def _with_splits(task: str, rows: list[dict]) -> dict[str, list[dict]]:
    return split_examples(rows, parse_split_spec("train=0.6,val=0.2,test=0.2"), seed=0)


def test_the_registry_holds_the_lot_tasks():
    assert {"clozet", "senpos", "plotcom", "outgen"} <= set(TASKS)
    assert [spec.name for spec in all_tasks()] == TASKS
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        get_task("nope")


@pytest.mark.parametrize("task", TASKS)
def test_record_is_consistent(task: str, rows_of):
    spec = get_task(task)
    assert spec.schema.metadata[b"lotdata.table"].decode() == task
    assert {"example_id", "story_id", "split", "lang"} <= set(spec.schema.names)
    assert spec.metric_family in METRIC_FAMILIES
    required, optional = spec.lot_fields
    assert spec.prediction_field in required and not set(required) & set(optional)
    row = rows_of(task)[0]
    assert lot_task_of(to_lot(task, row)) == task  # a LOT file of this task is recognised as this task
    assert all(isinstance(t, str) for t in spec.texts(row)) and any(spec.texts(row))
    if spec.mask_token is not None:
        assert any(spec.mask_token in text for text in spec.texts(row)) or spec.mask_token in str(to_lot(task, row))


@pytest.mark.parametrize("task", TASKS)
def test_rows_fit_the_schema(task: str, rows_of):
    by_split = _with_splits(task, rows_of(task))
    assert sum(map(len, by_split.values())) == len(rows_of(task)) > 0
    for rows in by_split.values():
        check_table(table_from_rows(rows, get_task(task).schema), get_task(task).schema)


@pytest.mark.parametrize("task", TASKS)
def test_splits_are_grouped_by_story(task: str, rows_of):
    by_split = _with_splits(task, rows_of(task))
    owner: dict[str, str] = {}
    for split, rows in by_split.items():
        for row in rows:
            assert owner.setdefault(row["story_id"], split) == split, f"story {row['story_id']} in two splits"
    assert len([s for s in by_split.values() if s]) >= 2


@pytest.mark.parametrize("task", TASKS)
def test_lot_jsonl_round_trip_is_byte_identical(task: str, rows_of, tmp_path: Path):
    first = write_jsonl((to_lot(task, r) for r in rows_of(task)), tmp_path / "test.jsonl")
    imported = read_lot_file(first, task, "test")
    again = write_jsonl((to_lot(task, r) for r in imported), tmp_path / "again.jsonl")
    assert again.read_bytes() == first.read_bytes()
    # and through dataset folders: import -> export gives the file back
    import_lot([first], task, tmp_path / "ds")
    export_lot(tmp_path / "ds", tmp_path / "out")
    assert (tmp_path / "out" / "test.jsonl").read_bytes() == first.read_bytes()


@pytest.mark.parametrize("task", TASKS)
def test_stats_are_computable(task: str, rows_of):
    stats = split_stats(task, rows_of(task))
    assert stats["examples"] == len(rows_of(task)) and stats["vocabulary_size"] > 0
    assert all(v is None or isinstance(v, (int, float)) for v in stats.values())
    assert split_stats(task, [])["examples"] == 0  # an empty split has figures too (undefined ones are None)


@pytest.mark.parametrize("task", TASKS)
def test_dataset_folder_and_card(task: str, rows_of, tmp_path: Path):
    by_split = _with_splits(task, rows_of(task))
    write_dataset(tmp_path / "ds", task, by_split, command=f"test {task}", params={"seed": 0}, inputs=[], stats={})
    tables = read_dataset(tmp_path / "ds")
    assert {s: t.num_rows for s, t in tables.items()} == {s: len(r) for s, r in by_split.items()}
    card = (tmp_path / "ds" / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and f"# lotdata {task}" in card and get_task(task).card_description in card
    assert f"- {get_task(task).card_category}" in card
    for limitation in get_task(task).card_limitations:
        assert limitation in card
