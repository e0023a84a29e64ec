"""Conformance checks of a task (a `lotdata.datasets.registry.TaskSpec` record), as scikit-learn's
`check_estimator`:

    from lotdata.testing import check_task
    check_task(MY_TASK, tmp_path)   # AssertionError naming the broken rule

The task must be registered (`register_task`, or an entry point of `lotdata.tasks`): build, the LOT files and the
statistics ask the registry by name. The sample rows are the record's own: its builder run on lotdata's sample
corpus, or its `demo_examples` of those stories. Every check takes `(task, folder)` and writes only under
`folder`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from lotdata.datasets.registry import CHOICE_SHAPES, METRIC_FAMILIES, TaskSpec, family_tasks, get_task
from lotdata.testing._common import held as _held

__all__ = [
    "TASK_CHECKS",
    "check_task",
    "check_task_dataset_folder_and_card",
    "check_task_evaluate_scores_by_its_record",
    "check_task_lot_jsonl_round_trip_is_byte_identical",
    "check_task_record_is_consistent",
    "check_task_rows_fit_the_schema",
    "check_task_scoring_fields_are_consistent",
    "check_task_splits_are_grouped_by_story",
    "check_task_stats_are_computable",
    "sample_rows",
    "sample_stories",
]

#: the split every check uses
SPLIT = "train=0.6,val=0.2,test=0.2"

_STORIES: list[dict[str, Any]] = []
_ROWS: dict[int, tuple[TaskSpec, list[dict[str, Any]]]] = {}


def sample_stories() -> list[dict[str, Any]]:
    """lotdata's sample corpus as stories rows (read once)."""
    if not _STORIES:
        from lotdata.resources import sample_corpus_path
        from lotdata.sources.readers import read_stories

        _STORIES.extend(read_stories([sample_corpus_path()]).stories)
        assert len(_STORIES) >= 10, "the sample corpus holds fewer than 10 stories"
    return _STORIES


def sample_rows(task: TaskSpec) -> list[dict[str, Any]]:
    """The task's rows of the sample corpus: its builder's (seed 0), else its `demo_examples` (made once per
    record)."""
    held = _ROWS.get(id(task))
    if held is None or held[0] is not task:
        from lotdata.tasks.build import build_examples

        _registered(task)
        if task.builder is not None:
            rows, _ = build_examples(task.name, sample_stories(), seed=0)
        else:
            rows = task.demo_examples(sample_stories())  # type: ignore[misc]
        held = _ROWS[id(task)] = (task, rows)
    return held[1]


def _registered(task: TaskSpec) -> None:
    held = _held(get_task, task.name)
    assert held is task, f"task {task.name!r}: not the record the registry holds under its name (register it first)"


def _with_splits(task: TaskSpec, rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    from lotdata.datasets.splits import parse_split_spec
    from lotdata.tasks.build import split_examples

    return split_examples(rows, parse_split_spec(SPLIT), seed=0)


def check_task_record_is_consistent(task: TaskSpec, folder: Path) -> None:
    """The schema names its table and has the common columns; the metric family is known; the prediction field
    is a required LOT field; a LOT record of the task is recognised as this task; its text fields are text and
    the mask token (if any) shows."""
    from lotdata.datasets.lotformat import lot_task_of, to_lot

    name = task.name
    _registered(task)
    assert task.schema.metadata[b"lotdata.table"].decode() == name
    assert {"example_id", "story_id", "split", "lang"} <= set(task.schema.names)
    assert task.metric_family in METRIC_FAMILIES
    required, optional = task.lot_fields
    assert task.prediction_field in required and not set(required) & set(optional)
    rows = sample_rows(task)
    assert rows, f"task {name!r}: no rows from the sample corpus"
    row = rows[0]
    assert lot_task_of(to_lot(name, row)) == name  # a LOT file of this task is recognised as this task
    assert all(isinstance(t, str) for t in task.texts(row)) and any(task.texts(row))
    if task.mask_token is not None:
        assert any(task.mask_token in text for text in task.texts(row)) or task.mask_token in str(to_lot(name, row))


def check_task_rows_fit_the_schema(task: TaskSpec, folder: Path) -> None:
    """Every row, split, fits the task's schema."""
    from lotdata.schema import check_table, table_from_rows

    rows = sample_rows(task)
    by_split = _with_splits(task, rows)
    assert sum(map(len, by_split.values())) == len(rows) > 0
    for split_rows in by_split.values():
        check_table(table_from_rows(split_rows, task.schema), task.schema)


def check_task_splits_are_grouped_by_story(task: TaskSpec, folder: Path) -> None:
    """No story has rows in two splits; at least two splits have rows."""
    by_split = _with_splits(task, sample_rows(task))
    owner: dict[str, str] = {}
    for split, rows in by_split.items():
        for row in rows:
            assert owner.setdefault(row["story_id"], split) == split, f"story {row['story_id']} in two splits"
    assert len([s for s in by_split.values() if s]) >= 2


def check_task_lot_jsonl_round_trip_is_byte_identical(task: TaskSpec, folder: Path) -> None:
    """Rows -> LOT jsonl -> rows -> LOT jsonl gives the same bytes, and so does import -> export of a dataset
    folder."""
    from lotdata.datasets.folder import export_lot, import_lot
    from lotdata.datasets.lotformat import read_lot_file, to_lot
    from lotdata.io import write_jsonl

    name = task.name
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    first = write_jsonl((to_lot(name, r) for r in sample_rows(task)), folder / "test.jsonl")
    imported = read_lot_file(first, name, "test")
    again = write_jsonl((to_lot(name, r) for r in imported), folder / "again.jsonl")
    assert again.read_bytes() == first.read_bytes(), f"task {name!r}: the LOT jsonl round trip changed the file"
    import_lot([first], name, folder / "ds")
    export_lot(folder / "ds", folder / "out")
    assert (folder / "out" / "test.jsonl").read_bytes() == first.read_bytes(), (
        f"task {name!r}: import -> export of a dataset folder changed the LOT file"
    )


def check_task_stats_are_computable(task: TaskSpec, folder: Path) -> None:
    """Table 3's statistics: numbers (or None where undefined), for the rows and for an empty split."""
    from lotdata.datasets.stats import split_stats

    rows = sample_rows(task)
    stats = split_stats(task.name, rows)
    assert stats["examples"] == len(rows) and stats["vocabulary_size"] > 0
    assert all(v is None or isinstance(v, (int, float)) for v in stats.values())
    assert split_stats(task.name, [])["examples"] == 0  # an empty split has figures too (undefined ones are None)


def check_task_dataset_folder_and_card(task: TaskSpec, folder: Path) -> None:
    """A dataset folder of the rows reads back split by split, and its card has the task's words."""
    from lotdata.datasets.folder import read_dataset, write_dataset

    name = task.name
    by_split = _with_splits(task, sample_rows(task))
    target = Path(folder) / "ds"
    write_dataset(target, name, by_split, command=f"test {name}", params={"seed": 0}, inputs=[], stats={})
    tables = read_dataset(target)
    assert {s: t.num_rows for s, t in tables.items()} == {s: len(r) for s, r in by_split.items()}
    card = (target / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and f"# lotdata {name}" in card and task.card_description in card
    assert f"- {task.card_category}" in card
    for limitation in task.card_limitations:
        assert limitation in card, f"task {name!r}: the card lacks the limitation {limitation!r}"


def check_task_scoring_fields_are_consistent(task: TaskSpec, folder: Path) -> None:
    """What `evaluate` reads of the record agrees with itself and with the rows: the family lists the task, the
    model input fields are LOT fields, a prediction parses to its type; a choice task's labels are option
    indexes (less its base); a generation task's n-gram orders and target are declared."""
    from lotdata.datasets.lotformat import to_lot

    name = task.name
    assert name in family_tasks(task.metric_family) and task.lot_metrics
    assert set(task.lot_input_fields) <= set(task.lot_fields[0]) and task.prediction_field not in task.lot_input_fields
    rows = sample_rows(task)
    record = to_lot(name, rows[0])
    value = record[task.prediction_field]
    parsed = task.parse_prediction(value) if task.parse_prediction else value
    assert isinstance(parsed, (task.prediction_type, int))
    if task.is_choice:
        assert task.choice_shape in CHOICE_SHAPES and task.lot_metrics == ("accuracy",) and task.label_base in (0, 1)
        assert task.generation_input is None
        for row in rows:  # the label, less the base, is an option index
            options = len(row["candidates"]) if task.choice_shape == "candidates" else len(row["sentences"]) - 1
            assert 0 <= int(row["label"]) - task.label_base < options
    else:
        assert task.choice_shape is None and 1 <= task.ngram_max_n <= task.ngram_max_n_extended
        assert {f"bleu-{n}" for n in range(1, task.ngram_max_n + 1)} <= set(task.lot_metrics)
        assert task.generation_input is not None and task.generation_input.target in task.schema.names
        assert ("coverage" in task.lot_metrics) == (task.outline_field is not None)


def check_task_evaluate_scores_by_its_record(task: TaskSpec, folder: Path) -> None:
    """Gold against itself through the files `lotdata evaluate` reads: every LOT metric of the task, perfect.
    Needs the `metrics` extra (nltk)."""
    from lotdata import metrics
    from lotdata.datasets.lotformat import to_lot
    from lotdata.io import write_jsonl

    name = task.name
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    gold_file = write_jsonl((to_lot(name, r) for r in sample_rows(task)[:6]), folder / "gold.jsonl")
    gold = metrics.load_records(gold_file, name, gold=True)
    pred = metrics.align_records(name, metrics.load_records(gold_file, name), gold)
    scores = metrics.evaluate(name, pred, gold, "lot")
    assert set(task.lot_metrics) <= set(scores), f"task {name!r}: evaluate gave {sorted(scores)}"
    first = scores[task.lot_metrics[0]]  # accuracy or BLEU-1 of the gold itself
    assert abs(first - 1.0) < 1e-6, f"task {name!r}: {task.lot_metrics[0]} of the gold against itself is {first}"
    if not task.is_choice:
        assert f"bleu-{task.ngram_max_n_extended}" in metrics.evaluate(name, pred, gold, "paper")


#: every check of a task, in the order `check_task` runs them
TASK_CHECKS: tuple[Callable[[TaskSpec, Path], None], ...] = (
    check_task_record_is_consistent,
    check_task_rows_fit_the_schema,
    check_task_splits_are_grouped_by_story,
    check_task_lot_jsonl_round_trip_is_byte_identical,
    check_task_stats_are_computable,
    check_task_dataset_folder_and_card,
    check_task_scoring_fields_are_consistent,
    check_task_evaluate_scores_by_its_record,
)


def check_task(task: TaskSpec, folder: Path) -> None:
    """Run every check on `task`, each in a folder of its own under `folder` (AssertionError on the first broken)."""
    for check in TASK_CHECKS:
        check(task, Path(folder) / check.__name__)
