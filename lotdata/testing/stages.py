"""Conformance checks of a pipeline stage (a `lotdata.stage.Stage` record), as scikit-learn's `check_estimator`:

    from lotdata.testing import check_stage
    check_stage(MY_STAGE, tmp_path)   # AssertionError naming the broken rule

The stage must be registered (`register_stage`, or an entry point of `lotdata.stages`): the recipe schema is
read from the registry. Every check takes `(stage, folder)`; none needs a sample: the record's parameters are the
sample (their defaults make a valid value, a wrong value of each is refused naming its table and key).
"""

from __future__ import annotations

import re
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any, Callable

from lotdata.errors import InputError
from lotdata.exec import ExecSettings
from lotdata.stage import ParamInfo, Stage, get_stage, params_of, recipe_schema
from lotdata.testing._common import held as _held

__all__ = [
    "STAGE_CHECKS",
    "check_stage",
    "check_stage_is_registered",
    "check_stage_parameters_have_a_default_and_help",
    "check_stage_recipe_schema_holds_every_parameter",
    "check_stage_refuses_a_bad_value_naming_table_and_key",
]

_TABLE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def check_stage_is_registered(stage: Stage, folder: Path) -> None:
    """The stage is the one the registry holds under its name (a recipe finds it), its name is a recipe table's
    name (lower case, digits, `_`), and it has the README's words (`summary`, `output`) and an `order`."""
    assert _TABLE_NAME.match(stage.name), f"stage {stage.name!r}: a recipe table's name is [a-z][a-z0-9_]*"
    held = _held(get_stage, stage.name)
    assert held is stage, f"stage {stage.name!r}: not the record the registry holds under its name (register it first)"
    assert stage.summary.strip() and stage.output.strip(), f"stage {stage.name!r}: no summary or output (README)"
    assert isinstance(stage.order, int), f"stage {stage.name!r}: order must be an int, not {stage.order!r}"


def check_stage_parameters_have_a_default_and_help(stage: Stage, folder: Path) -> None:
    """Every parameter has help and a default, and the defaults make a valid value (a library call needs no
    recipe)."""
    for f in fields(stage.params):
        assert f.metadata.get("help"), f"{stage.name}.{f.name} has no help"
        assert f.default is not MISSING or f.default_factory is not MISSING, f"{stage.name}.{f.name} has no default"
    stage.params()


def check_stage_recipe_schema_holds_every_parameter(stage: Stage, folder: Path) -> None:
    """The recipe's table of the stage holds every recipe parameter (and the executor's keys when it executes),
    nothing else."""
    schema = recipe_schema()
    assert stage.name in schema, f"stage {stage.name!r} is not in the recipe schema"
    expected = {p.name for p in params_of(stage.params) if p.recipe}
    if stage.executes:
        expected |= {f.name for f in fields(ExecSettings)}
    assert set(schema[stage.name]) == expected, (stage.name, sorted(set(schema[stage.name]) ^ expected))


def _wrong(info: ParamInfo) -> Any:
    """A value of the wrong type for `info`'s kind (a table for every kind but a table, which gets a string)."""
    return "not a table" if info.kind == "table" else {"wrong": "type"}


def _valid(info: ParamInfo) -> Any:
    """A value a recipe may give for a required key: its default, or its first choice where the default is none."""
    allowed = info.allowed()
    if allowed and info.default not in allowed:
        return allowed[0]
    return list(info.default) if isinstance(info.default, tuple) else info.default


def check_stage_refuses_a_bad_value_naming_table_and_key(stage: Stage, folder: Path) -> None:
    """A recipe table with a value of the wrong type, out of its declared range or not among its choices is
    refused (InputError, exit 3 in `lotdata run`) naming the stage's table and the key."""
    keys = stage.keys()
    table = {p.name: _valid(p) for p in keys if p.required and p.default is not MISSING}
    where = f"[{stage.name}]"
    for info in keys:
        bad: list[Any] = [_wrong(info)]
        if info.check in (">0", ">=0", "share") and info.kind in ("int", "num"):
            bad.append({">0": 0, ">=0": -1, "share": 0}[info.check])
        if info.choices is not None and not callable(info.choices) and info.kind == "str":
            bad.append("no-such-choice")
        for value in bad:
            try:
                stage.parse({**table, info.name: value}, where)
            except InputError as exc:
                message = str(exc)
                assert where in message and f"'{info.name}' must be" in message, (
                    f"stage {stage.name!r}: {info.name} = {value!r} refused without naming {where} and the key: "
                    f"{message}"
                )
            else:
                raise AssertionError(f"stage {stage.name!r}: {info.name} = {value!r} was not refused")


#: every check of a stage, in the order `check_stage` runs them
STAGE_CHECKS: tuple[Callable[[Stage, Path], None], ...] = (
    check_stage_is_registered,
    check_stage_parameters_have_a_default_and_help,
    check_stage_recipe_schema_holds_every_parameter,
    check_stage_refuses_a_bad_value_naming_table_and_key,
)


def check_stage(stage: Stage, folder: Path) -> None:
    """Run every check on `stage`, each in a folder of its own under `folder` (AssertionError on the first broken)."""
    for check in STAGE_CHECKS:
        check(stage, Path(folder) / check.__name__)
