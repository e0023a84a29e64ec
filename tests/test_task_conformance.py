"""Every registered task passes the same checks (in the spirit of scikit-learn's `check_estimator`):
rows from its builder (or its demo rows) fit its schema, the LOT jsonl round trip is byte-identical,
Table 3 statistics are computable, the card renders, splits are grouped by story, and the record is
consistent (text fields, mask token, metric family, prediction field, LOT detection), and `evaluate`
scores its LOT records by what its record says (metrics, labels, model input fields).

Adding a task = one module that calls `register_task(...)` + this test passing for it. The last tests
register a made-up task here and run it through build, evaluate, stats and the card with no stage
code edited: the proof that the stages ask the registry rather than name the tasks."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import pyarrow as pa
import pytest

from lotdata import metrics
from lotdata.datasets import registry
from lotdata.datasets.folder import export_lot, import_lot, read_dataset, write_dataset
from lotdata.datasets.lotformat import lot_row_base, lot_task_of, read_lot_file, to_lot
from lotdata.datasets.registry import (
    CHOICE_SHAPES,
    METRIC_FAMILIES,
    Builder,
    GenerationInput,
    TaskSpec,
    all_tasks,
    builder_tasks,
    family_tasks,
    get_task,
    task_names,
)
from lotdata.datasets.splits import parse_split_spec
from lotdata.datasets.stats import avg, input_stats, split_stats
from lotdata.errors import InputError
from lotdata.io import write_jsonl, write_parquet
from lotdata.resources import sample_corpus_path
from lotdata.schema import STORIES, check_table, table_from_rows
from lotdata.sources.readers import read_stories
from lotdata.tasks.build import build_dataset, build_examples, split_examples
from lotdata.tasks.common import StoryOutcome

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


@pytest.mark.parametrize("task", TASKS)
def test_scoring_fields_are_consistent(task: str, rows_of):
    spec = get_task(task)
    assert task in family_tasks(spec.metric_family) and spec.lot_metrics
    assert set(spec.lot_input_fields) <= set(spec.lot_fields[0]) and spec.prediction_field not in spec.lot_input_fields
    record = to_lot(task, rows_of(task)[0])
    parsed = (
        spec.parse_prediction(record[spec.prediction_field]) if spec.parse_prediction else record[spec.prediction_field]
    )
    assert isinstance(parsed, (spec.prediction_type, int))
    if spec.is_choice:
        assert spec.choice_shape in CHOICE_SHAPES and spec.lot_metrics == ("accuracy",) and spec.label_base in (0, 1)
        assert spec.generation_input is None
        for row in rows_of(task):  # the label, less the base, is an option index
            options = len(row["candidates"]) if spec.choice_shape == "candidates" else len(row["sentences"]) - 1
            assert 0 <= int(row["label"]) - spec.label_base < options
    else:
        assert spec.choice_shape is None and 1 <= spec.ngram_max_n <= spec.ngram_max_n_extended
        assert {f"bleu-{n}" for n in range(1, spec.ngram_max_n + 1)} <= set(spec.lot_metrics)
        assert spec.generation_input.target in spec.schema.names
        assert ("coverage" in spec.lot_metrics) == (spec.outline_field is not None)


@pytest.mark.parametrize("task", TASKS)
def test_evaluate_scores_the_task_by_its_record(task: str, rows_of, tmp_path: Path):
    """Gold against itself through the files `lotdata evaluate` reads: every LOT metric of the task, perfect."""
    pytest.importorskip("nltk")  # the `metrics` extra
    spec = get_task(task)
    rows = rows_of(task)[:6]
    gold_file = write_jsonl((to_lot(task, r) for r in rows), tmp_path / "gold.jsonl")
    gold = metrics.load_records(gold_file, task, gold=True)
    pred = metrics.align_records(task, metrics.load_records(gold_file, task), gold)
    scores = metrics.evaluate(task, pred, gold, "lot")
    assert set(spec.lot_metrics) <= set(scores)
    assert scores[spec.lot_metrics[0]] == pytest.approx(1.0)  # accuracy or BLEU-1 of the gold itself
    if not spec.is_choice:
        assert f"bleu-{spec.ngram_max_n_extended}" in metrics.evaluate(task, pred, gold, "paper")


# ---------------------------------------------------------------- a made-up task, registered here only

ENDING_SCHEMA = pa.schema(
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("story_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),
        pa.field("ending", pa.string(), nullable=False),
        pa.field("lang", pa.string(), nullable=False),
    ],
    metadata={"lotdata.table": "ending", "lotdata.schema_version": "1"},
)


@dataclass(frozen=True)
class EndingParams:
    min_sentences: int = 3


def _ending_examples(
    story: Mapping[str, Any], params: EndingParams, seed: int, tokenizer: str | None = None
) -> StoryOutcome:
    sentences = story["sentences"]
    if len(sentences) < params.min_sentences:
        return StoryOutcome(dropped="too_few_sentences")
    return StoryOutcome(
        examples=[
            {
                "example_id": f"ending-{story['story_id']}-0",
                "story_id": story["story_id"],
                "context": "".join(sentences[:-1]),
                "ending": sentences[-1],
                "lang": story["lang"],
            }
        ]
    )


def _ending_from_lot(record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    base = lot_row_base("ending", record, split=split, index=index, full_text=record["story"] + record["ending"])
    return {
        "example_id": base["example_id"],
        "story_id": base["story_id"],
        "split": split,
        "context": record["story"],
        "ending": record["ending"],
        "lang": base["lang"],
    }


def _ending_stats(rows: list[dict[str, Any]], vocab) -> dict[str, Any]:
    result = input_stats([(r["context"], r["lang"]) for r in rows], vocab)
    result["avg_words_output"] = avg([len(vocab.words_of(r["ending"], r["lang"])) for r in rows])
    return result


ENDING = TaskSpec(
    name="ending",
    schema=ENDING_SCHEMA,
    mask_token=None,
    lot_fields=(("story", "ending"), ()),
    to_lot=lambda row: {"story": row["context"], "ending": row["ending"]},
    from_lot=_ending_from_lot,
    stats=_ending_stats,
    text_fields=("context", "ending"),
    metric_family="generation",
    prediction_field="ending",
    prediction_type=str,
    card_category="text-generation",
    card_description="Ending: write the last sentence of the story",
    builder=Builder(_ending_examples, EndingParams),
    lot_metrics=("bleu-1", "bleu-2", "distinct-1", "distinct-2"),
    generation_input=GenerationInput(source=("context",), target="ending", short_target=True),
    split_summary=lambda by_split: {"endings_in_train": len(by_split["train"])},
)


@pytest.fixture
def ending_task():
    """The made-up task, registered for one test (removed afterwards so no other test sees it)."""
    registry.register_task(ENDING)
    yield ENDING
    registry.unregister_task("ending")


def test_a_made_up_task_needs_no_stage_code(ending_task, stories, tmp_path: Path):
    assert "ending" in task_names() and "ending" in builder_tasks() and "ending" in family_tasks("generation")
    stories_file = write_parquet(table_from_rows(stories, STORIES), tmp_path / "stories.parquet")
    report = build_dataset("ending", [stories_file], tmp_path / "ds", seed=0, split="train=0.6,val=0.2,test=0.2")
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["task"] == "ending" and report.stats["endings_in_train"] == report.rows_per_split["train"] > 0
    assert manifest["split_origin"] is None  # its rows carry no `origin`
    card = (tmp_path / "ds" / "README.md").read_text(encoding="utf-8")
    assert "# lotdata ending" in card and ending_task.card_description in card
    tables = read_dataset(tmp_path / "ds")
    test_rows = tables["test"].to_pylist()
    assert split_stats("ending", test_rows)["examples"] == len(test_rows) > 0
    gold_file = tmp_path / "ds" / "lot" / "test.jsonl"
    assert lot_task_of(json.loads(gold_file.read_text(encoding="utf-8").splitlines()[0])) == "ending"
    assert [to_lot("ending", r) for r in read_lot_file(gold_file, "ending", "test")] == [
        to_lot("ending", r) for r in test_rows
    ]


def test_a_made_up_task_is_scored_by_evaluate(ending_task, stories, tmp_path: Path):
    pytest.importorskip("nltk")
    rows, _ = build_examples("ending", stories, seed=0)
    gold = [to_lot("ending", r) for r in rows]
    perfect = metrics.evaluate("ending", gold, gold, "nlpcc2021")
    assert set(perfect) == {
        "bleu-1",
        "bleu-2",
        "distinct-1",
        "distinct-2",
    }  # no outline: no Coverage/Order/script score
    assert perfect["bleu-1"] == pytest.approx(1.0)
    swapped = [{**g, "ending": gold[(i + 1) % len(gold)]["ending"]} for i, g in enumerate(gold)]
    assert metrics.evaluate("ending", swapped, gold, "lot")["bleu-2"] < perfect["bleu-2"]
    bad = tmp_path / "pred.jsonl"
    write_jsonl([{"story": gold[0]["story"], "ending": 3}], bad)
    with pytest.raises(InputError, match="'ending' is int 3, not text"):
        metrics.load_records(bad, "ending")


def test_a_record_missing_what_its_family_needs_is_refused():
    with pytest.raises(ValueError, match="needs generation_input"):
        TaskSpec(**{**ENDING.__dict__, "generation_input": None})
    with pytest.raises(ValueError, match="needs choice_shape"):
        TaskSpec(**{**ENDING.__dict__, "metric_family": "understanding"})
