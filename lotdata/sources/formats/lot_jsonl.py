"""``lot_jsonl``: a task file of the official LOT release (its first record has a task's fields).

`lotdata read` takes its stories as ``jsonl`` does (the ``story`` field); the format exists so that one
detector says what the file is, for `read` and `open_input` alike (`open_input` calls it ``lot-jsonl``)."""

from __future__ import annotations

from lotdata.datasets.formats import InputFormat, Probe, register_format
from lotdata.sources.formats._common import JSON_SUFFIXES, json_kind
from lotdata.sources.formats.jsonl import parse_jsonl


def _is_lot_record(probe: Probe) -> bool:
    from lotdata.datasets.lotformat import lot_task_of

    if probe.suffix not in JSON_SUFFIXES or not isinstance(probe.first_value, dict):
        return False
    try:
        lot_task_of(probe.first_value)
    except ValueError:
        return False
    return True


register_format(InputFormat(
    name="lot_jsonl",
    description="a LOT task file (.jsonl: clozet, senpos, plotcom, outgen records); read as jsonl (its 'story')",
    detect=_is_lot_record,
    parse=parse_jsonl,
    priority=10,
    kind=json_kind,
))
