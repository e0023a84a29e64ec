"""The task registry: one record per task, everything the toolkit needs to know about it.

A task is one module that calls `register_task(TaskSpec(...))` when imported (see `lotdata/tasks/clozet.py`)
and passes `tests/test_task_conformance.py`. The built-in tasks are the modules of `lotdata/tasks/` that call
`register_task`, found and imported the first time the registry (`TASK_REGISTRY`, a `lotdata.registry.Registry`)
is read, so this layer needs no import of the stages above it; a third-party package registers its tasks under
the `lotdata.tasks` entry-point group.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import pyarrow as pa

from lotdata.registry import Registry

METRIC_FAMILIES = ("understanding", "generation")
#: how a multiple-choice item offers its options: "candidates" (a `context` with the mask token and
#: `candidates` texts; the label is the right one's index) or "gaps" (`sentences` and the `removed` one;
#: the label is the gap it belongs in)
CHOICE_SHAPES = ("candidates", "gaps")
Row = Mapping[str, Any]


@dataclass(frozen=True)
class Builder:
    """The automatic construction: `examples(story, params, seed, tokenizer=None) -> StoryOutcome`, with its
    parameter dataclass; `tokenizer` names the Chinese tokenizer it counts words with (None: the default)."""

    examples: Callable[..., Any]
    params: type


@dataclass(frozen=True)
class GenerationInput:
    """How a generation model reads a row: the `source` fields in order (a list field gives one piece per
    item; pieces are separated by the model's end token and the task's mask token becomes its marker
    token) and the `target` field it writes. `short_target`: the target is one sentence, so an
    encoder-decoder gives the source the whole length (a story-long target leaves it half)."""

    source: tuple[str, ...]
    target: str
    short_target: bool = False


@dataclass(frozen=True)
class ValTestSource:
    """Val/test made from another task's examples (LOT 3.3: PlotCom's from ClozeT): `convert(rows,
    origin=...)` turns rows of `task` into rows of this task; train is still built from stories.
    `held_by(stories, rows)`: the ids of the stories those val/test rows hold (kept out of train);
    `sample(rows_by_split, spec, seed)`: val/test sampled across every split of `task` (`--clozet-split`)."""

    task: str
    convert: Callable[..., list[dict[str, Any]]]
    held_by: Callable[..., set[str]] | None = None
    sample: Callable[..., dict[str, list[dict[str, Any]]]] | None = None


@dataclass(frozen=True)
class TaskSpec:
    """One task. `to_lot`/`from_lot` convert a row to the official LOT record and back (`from_lot(record,
    split=..., index=...)` raises ValueError on a malformed record); `lot_fields` are the record's
    (required, optional) fields; `stats(rows)` gives the task's LOT Table 3 statistics of one split;
    `text_fields` are the row fields holding text (in reading order); `prediction_field` is the LOT field
    a model fills (`prediction_type` its JSON type); `builder` is None where examples are written by people,
    and such a task gives `demo_examples(stories) -> rows`, a few mechanical rows the conformance test checks.

    Scoring (`lotdata evaluate`): `lot_metrics` are the metrics LOT reports for the task; a generation task
    scores BLEU and Distinct-1..`ngram_max_n` (`ngram_max_n_extended` under the nlpcc2021 and paper
    definitions), and Coverage and Order against the gold `outline_field` when it has one. `parse_prediction`
    turns a LOT prediction value into the one scored (ValueError saying why it cannot be); None: the value
    must be a `prediction_type`. `lot_input_fields` are the LOT fields a prediction was made from (both sides
    of `evaluate` must agree on them). Choice tasks give their `choice_shape` and `label_base` (the label of
    the first option: 0, or 1 where LOT counts gaps from 1); generation tasks their `generation_input`.
    Building: `build_stats(stats) -> dict` adds the builder's own counts to the manifest (SenPos paragraphs),
    `split_summary(by_split) -> dict` figures of the built splits (PlotCom's masked positions),
    `build_environment(params) -> dict` what else decides its bytes (OutGen's outline settings);
    `filtered_stories_only`: built from the stories annotators accepted or rewrote when the input has them;
    `val_test_from`: val/test come from another task's examples (PlotCom's from ClozeT, `build --clozet`);
    `case_builder` builds the dataset from written cases instead of stories (ClozeT's `build_clozet`).
    `card_notes(rows_by_split, notes) -> notes` adapts the card's limitations to the rows (SenPos refinement).
    `order` places the task in every listing (LOT's order for the built-in ones: 1 ClozeT ... 4 OutGen)."""

    name: str
    schema: pa.Schema
    mask_token: str | None
    lot_fields: tuple[tuple[str, ...], tuple[str, ...]]
    to_lot: Callable[[Row], dict[str, Any]]
    from_lot: Callable[..., dict[str, Any]]
    stats: Callable[[list[dict[str, Any]]], dict[str, Any]]
    text_fields: tuple[str, ...]
    metric_family: str
    prediction_field: str
    prediction_type: type
    card_category: str
    card_description: str
    card_limitations: tuple[str, ...] = ()
    builder: Builder | None = None
    demo_examples: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    lot_metrics: tuple[str, ...] = ()
    ngram_max_n: int = 2
    ngram_max_n_extended: int = 2
    outline_field: str | None = None
    parse_prediction: Callable[[Any], Any] | None = None
    lot_input_fields: tuple[str, ...] = ("story",)
    choice_shape: str | None = None
    label_base: int = 0
    generation_input: GenerationInput | None = None
    build_stats: Callable[[Any], dict[str, Any]] | None = None
    split_summary: Callable[[Mapping[str, list[dict[str, Any]]]], dict[str, Any]] | None = None
    build_environment: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    filtered_stories_only: bool = False
    val_test_from: ValTestSource | None = None
    case_builder: Callable[..., Any] | None = None
    card_notes: Callable[[Mapping[str, list[Mapping[str, Any]]], list[str]], list[str]] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    order: int = 100

    def __post_init__(self) -> None:
        if self.metric_family not in METRIC_FAMILIES:
            raise ValueError(
                f"task {self.name!r}: metric_family must be one of {METRIC_FAMILIES}, not {self.metric_family!r}"
            )
        if self.builder is None and self.demo_examples is None:
            raise ValueError(f"task {self.name!r}: give a builder or demo_examples (the conformance test needs rows)")
        missing = [f for f in self.text_fields if f not in self.schema.names]
        if missing:
            raise ValueError(f"task {self.name!r}: text fields {missing} are not columns of its schema")
        self._check_family()

    def _check_family(self) -> None:
        """What each metric family needs: choice tasks a shape, generation tasks a model input."""
        if self.metric_family == "understanding" and self.choice_shape not in CHOICE_SHAPES:
            raise ValueError(f"task {self.name!r}: an understanding task needs choice_shape in {CHOICE_SHAPES}")
        if self.metric_family == "generation":
            if self.generation_input is None:
                raise ValueError(f"task {self.name!r}: a generation task needs generation_input")
            fields_used = (*self.generation_input.source, self.generation_input.target)
            missing = [f for f in fields_used if f not in self.schema.names]
            if missing:
                raise ValueError(f"task {self.name!r}: generation_input fields {missing} are not columns of its schema")
        if self.outline_field is not None and self.outline_field not in self.lot_fields[0] + self.lot_fields[1]:
            raise ValueError(f"task {self.name!r}: outline_field {self.outline_field!r} is not a LOT field")

    @property
    def is_choice(self) -> bool:
        """A multiple-choice task (scored by accuracy), as opposed to a generation task."""
        return self.metric_family == "understanding"

    def max_n(self, definition: str) -> int:
        """The highest BLEU / Distinct order scored under a metric definition ("lot", "nlpcc2021", "paper")."""
        return self.ngram_max_n if definition == "lot" else self.ngram_max_n_extended

    def texts(self, row: Row) -> list[str]:
        """Every text of a row, in `text_fields` order (a list field gives its items; a missing one '')."""
        out: list[str] = []
        for name in self.text_fields:
            value = row.get(name)
            out.extend(value) if isinstance(value, list) else out.append(value or "")
        return out


#: every task: the built-in ones (the modules of lotdata/tasks/ that call `register_task`), in LOT's order, then
#: those registered later or by a package's `lotdata.tasks` entry point
TASK_REGISTRY: Registry[TaskSpec] = Registry(
    "task", modules=("tasks/*.py",), calls="register_task(", order=lambda t: t.order
)
ENTRY_POINT_GROUP = TASK_REGISTRY.group
#: the tasks lotdata ships, by name (read when used)
BUILTIN_TASKS: Mapping[str, TaskSpec] = TASK_REGISTRY.view(builtin=True)


def register_task(spec: TaskSpec) -> TaskSpec:
    """Add a task (a module calls it at import); a name another record holds is a RegistryError."""
    return TASK_REGISTRY.register(spec, stacklevel=2)


def unregister_task(name: str) -> None:
    """Forget a task registered at run time (a test's made-up one)."""
    TASK_REGISTRY.unregister(name)


def get_task(name: str) -> TaskSpec:
    """The record of task `name` (RegistryError, a ValueError, naming the known tasks when there is none)."""
    return TASK_REGISTRY.get(name)


def task_names() -> list[str]:
    """Every task's name: the built-in ones first, in LOT's order, then those registered later."""
    return TASK_REGISTRY.names()


def all_tasks() -> list[TaskSpec]:
    """Every registered task (built-in and plug-in ones are loaded first)."""
    return TASK_REGISTRY.all()


def family_tasks(family: str) -> list[str]:
    """The tasks of one metric family ("understanding" or "generation"), in `task_names` order."""
    if family not in METRIC_FAMILIES:
        raise ValueError(f"unknown metric family {family!r}: {METRIC_FAMILIES}")
    return [spec.name for spec in all_tasks() if spec.metric_family == family]


def builder_tasks() -> list[str]:
    """The tasks with an automatic builder (`lotdata build TASK`)."""
    return [spec.name for spec in all_tasks() if spec.builder is not None]


def case_tasks() -> list[str]:
    """The tasks built from written cases rather than stories (`lotdata build clozet --cases`)."""
    return [spec.name for spec in all_tasks() if spec.case_builder is not None]
