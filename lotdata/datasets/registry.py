"""The task registry: one record per task, everything the toolkit needs to know about it.

A task is one module that calls `register_task(TaskSpec(...))` when imported (see `lotdata/tasks/clozet.py`)
and passes `tests/test_task_conformance.py`. The built-in tasks are plug-ins loaded by module name the
first time they are looked up, like entry points, so this layer needs no import of the stages above it;
a third-party package registers its tasks under the `lotdata.tasks` entry-point group.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any, Callable, Mapping

import pyarrow as pa

#: built-in task -> the module that registers it (imported on first look-up)
BUILTIN_TASKS = {
    "clozet": "lotdata.tasks.clozet",
    "senpos": "lotdata.tasks.senpos",
    "plotcom": "lotdata.tasks.plotcom",
    "outgen": "lotdata.tasks.outgen",
}
ENTRY_POINT_GROUP = "lotdata.tasks"
METRIC_FAMILIES = ("understanding", "generation")
Row = Mapping[str, Any]


@dataclass(frozen=True)
class Builder:
    """The automatic construction: `examples(story, params, seed) -> StoryOutcome`, with its parameter dataclass."""

    examples: Callable[..., Any]
    params: type


@dataclass(frozen=True)
class TaskSpec:
    """One task. `to_lot`/`from_lot` convert a row to the official LOT record and back (`from_lot(record,
    split=..., index=...)` raises ValueError on a malformed record); `lot_fields` are the record's
    (required, optional) fields; `stats(rows)` gives the task's LOT Table 3 statistics of one split;
    `text_fields` are the row fields holding text (in reading order); `prediction_field` is the LOT field
    a model fills (`prediction_type` its JSON type); `builder` is None where examples are written by people,
    and such a task gives `demo_examples(stories) -> rows`, a few mechanical rows the conformance test checks."""

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
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.metric_family not in METRIC_FAMILIES:
            raise ValueError(f"task {self.name!r}: metric_family must be one of {METRIC_FAMILIES}, not {self.metric_family!r}")
        if self.builder is None and self.demo_examples is None:
            raise ValueError(f"task {self.name!r}: give a builder or demo_examples (the conformance test needs rows)")
        missing = [f for f in self.text_fields if f not in self.schema.names]
        if missing:
            raise ValueError(f"task {self.name!r}: text fields {missing} are not columns of its schema")

    def texts(self, row: Row) -> list[str]:
        """Every text of a row, in `text_fields` order (a list field gives its items; a missing one '')."""
        out: list[str] = []
        for name in self.text_fields:
            value = row.get(name)
            out.extend(value) if isinstance(value, list) else out.append(value or "")
        return out


_TASKS: dict[str, TaskSpec] = {}


def register_task(spec: TaskSpec) -> TaskSpec:
    """Add a task (a module calls it at import); registering a name twice with another record is an error."""
    known = _TASKS.get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"task {spec.name!r} is registered twice")
    _TASKS[spec.name] = spec
    return spec


def _load(name: str) -> None:
    if name in _TASKS:
        return
    if name in BUILTIN_TASKS:
        importlib.import_module(BUILTIN_TASKS[name])
        return
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == name:
            entry.load()


def get_task(name: str) -> TaskSpec:
    """The record of task `name` (ValueError naming the known tasks when there is none)."""
    _load(name)
    if name not in _TASKS:
        raise ValueError(f"unknown task {name!r}; tasks: {', '.join(task_names())}")
    return _TASKS[name]


def task_names() -> list[str]:
    """Every task's name: the built-in ones first, in LOT's order, then those registered later."""
    extra = [e.name for e in metadata.entry_points(group=ENTRY_POINT_GROUP)]
    return list(dict.fromkeys([*BUILTIN_TASKS, *_TASKS, *extra]))


def all_tasks() -> list[TaskSpec]:
    """Every registered task (built-in and plug-in ones are loaded first)."""
    return [get_task(name) for name in task_names()]


def builder_tasks() -> list[str]:
    """The tasks with an automatic builder (`lotdata build TASK`)."""
    return [spec.name for spec in all_tasks() if spec.builder is not None]
