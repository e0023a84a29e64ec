"""Every registered task passes the same checks, `lotdata.testing.tasks`' (in the spirit of scikit-learn's
`check_estimator`): rows from its builder (or its demo rows) fit its schema, the LOT jsonl round trip is byte-identical,
Table 3 statistics are computable, the card renders, splits are grouped by story, and the record is
consistent (text fields, mask token, metric family, prediction field, LOT detection), and `evaluate`
scores its LOT records by what its record says (metrics, labels, model input fields).

Adding a task = one module that calls `register_task(...)` + this test passing for it. The last tests
register a made-up task here and run it through build, evaluate, stats and the card with no stage
code edited: the proof that the stages ask the registry rather than name the tasks."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Mapping

import pyarrow as pa
import pytest

from lotdata import metrics
from lotdata.datasets import registry
from lotdata.datasets.folder import read_dataset
from lotdata.datasets.lotformat import lot_row_base, lot_task_of, read_lot_file, to_lot
from lotdata.datasets.registry import (
    Builder,
    GenerationInput,
    TaskSpec,
    all_tasks,
    builder_tasks,
    family_tasks,
    get_task,
    task_names,
)
from lotdata.datasets.stats import avg, input_stats, split_stats
from lotdata.errors import InputError
from lotdata.io import write_jsonl, write_parquet
from lotdata.schema import STORIES, table_from_rows
from lotdata.tasks.build import build_dataset, build_examples
from lotdata.tasks.common import StoryOutcome
from lotdata.testing.tasks import TASK_CHECKS, check_task, check_task_evaluate_scores_by_its_record, sample_stories

TASKS = task_names()


@pytest.fixture(scope="module")
def stories() -> list[dict]:
    rows = sample_stories()
    assert len(rows) >= 10
    return rows


def test_the_registry_holds_the_lot_tasks():
    assert {"clozet", "senpos", "plotcom", "outgen"} <= set(TASKS)
    assert [spec.name for spec in all_tasks()] == TASKS
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        get_task("nope")


@pytest.mark.parametrize("check", TASK_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("task", TASKS)
def test_task_conformance(task: str, check, tmp_path: Path):
    if check is check_task_evaluate_scores_by_its_record:
        pytest.importorskip("nltk")  # the `metrics` extra
    check(get_task(task), tmp_path)


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


def test_a_made_up_task_passes_the_task_checks(ending_task, tmp_path: Path):
    pytest.importorskip("nltk")
    check_task(ending_task, tmp_path)


def test_the_task_checks_catch_a_broken_task(ending_task, tmp_path: Path):
    def lossy_from_lot(record, *, split, index):  # drops the last character of the context
        row = _ending_from_lot(record, split=split, index=index)
        return {**row, "context": row["context"][:-1]}

    with registry.TASK_REGISTRY.override(replace(ENDING, from_lot=lossy_from_lot)) as broken:
        with pytest.raises(AssertionError, match="round trip changed the file"):
            check_task(broken, tmp_path)
    with pytest.raises(AssertionError, match="not the record the registry holds"):
        check_task(replace(ENDING, card_description="another"), tmp_path / "b")  # not registered


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
