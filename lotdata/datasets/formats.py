"""The input-format registry: one record per corpus format, and the one detector of what a file holds.

A format is one module that calls `register_format(InputFormat(...))` when imported (see
`lotdata/sources/formats/txt.py`) and has an entry in `tests/test_format_conformance.py`. The record says
how the format recognises a file (`detect(probe)`, a `priority` among formats that claim the same
file), how it parses one into :class:`Record` s (`parse(path)`), and what `open_input` calls such a file
(`kind(probe)`). `lotdata read` and `open_input` both ask :func:`detect_format`: one decision.

The built-in formats are the modules of `lotdata.sources.formats` (those not starting with `_`), loaded by
name the first time the registry is asked, like the built-in tasks, so this layer imports nothing above
it; a third-party package registers its formats under the `lotdata.formats` entry-point group.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Iterator

from lotdata.errors import InputError
from lotdata.text.decoding import first_line

BUILTIN_PACKAGE = "lotdata.sources.formats"
ENTRY_POINT_GROUP = "lotdata.formats"
NOT_JSON = object()  # what `Probe.first_value` is when the first line is not JSON


@dataclass
class Record:
    """One story candidate a parser yields: text (+ metadata) or the reason it was rejected.

    `row` is where the record sits in its file (line, record or document number: the story's url is
    ``path#row`` and a rejected record's quarantine row names it); `raw` is the record as read (kept,
    truncated, in the quarantine)."""

    row: int | None
    raw: str
    text: str | None = None
    title: str | None = None
    source_id: str | None = None
    sentences: list[str] | None = None  # the source's own sentence boundaries, if it has them
    lang: str | None = None  # a format-imposed language (cmrc), used when the caller gave none
    source: str | None = None  # a format-imposed source name (cmrc vs cft)
    path: str | None = None  # overrides the file path (zip members)
    reason: str | None = None


def bad(row: int | None, reason: str, raw: str, path: str | None = None) -> Record:
    """A rejected record: it goes to the quarantine with `reason`."""
    return Record(row=row, raw=raw, reason=reason, path=path)


class Probe:
    """What the detectors look at, each read at most once per file: the suffix, the first non-blank line,
    that line as JSON and as a csv header."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.suffix = self.path.suffix.lower()

    @cached_property
    def first_line(self) -> str:
        return first_line(self.path)

    @cached_property
    def first_value(self) -> Any:
        """The first line parsed as JSON; `NOT_JSON` when it is not JSON (or the file is empty)."""
        try:
            return json.loads(self.first_line) if self.first_line else NOT_JSON
        except json.JSONDecodeError:
            return NOT_JSON

    @cached_property
    def csv_header(self) -> list[str]:
        """The first line as csv fields, stripped."""
        import csv

        return [h.strip() for h in next(csv.reader([self.first_line]), [])]


def _file_kind(probe: Probe) -> tuple[str, str | None]:
    return "file", None


@dataclass(frozen=True)
class InputFormat:
    """One corpus format.

    `detect(probe)`: whether a file holds this format (a suffix, a header, a first record); among the
    formats that claim a file the highest `priority` wins (then the first registered). `parse(path)`
    yields :class:`Record` s in file order, a bad record as `bad(row, reason, raw)`; a file the format
    cannot read at all (a header without the needed columns) raises InputError naming it.
    `default_source`: the `source` of its stories when the caller gives none (None: the file's stem).
    `kind(probe) -> (kind, task)`: what `open_input` calls such a file (`datasets.inputs.KINDS`).
    `write(rows, path)`: rows (as `parse` reads them back) to a file, where the format has a writer.
    `description`: what a record is, for the CLI help and the README."""

    name: str
    description: str
    detect: Callable[[Probe], bool]
    parse: Callable[[Path], Iterator[Record]]
    priority: int = 0
    default_source: str | None = None
    kind: Callable[[Probe], tuple[str, str | None]] = _file_kind
    write: Callable[[list[dict[str, Any]], Path], Path] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


_FORMATS: dict[str, InputFormat] = {}
_loaded = False


def register_format(spec: InputFormat) -> InputFormat:
    """Add a format (a module calls it at import); a second record under one name is an error."""
    known = _FORMATS.get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"format {spec.name!r} is registered twice")
    _FORMATS[spec.name] = spec
    return spec


def unregister_format(name: str) -> None:
    """Drop a format (tests that register a made-up one clean up with it)."""
    _FORMATS.pop(name, None)


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    package = importlib.import_module(BUILTIN_PACKAGE)
    for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
        if not module.startswith("_"):
            importlib.import_module(f"{BUILTIN_PACKAGE}.{module}")
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        entry.load()


def all_formats() -> list[InputFormat]:
    """Every registered format: the built-in ones (by name), then those registered later."""
    _load_all()
    return list(_FORMATS.values())


def format_names() -> list[str]:
    return [spec.name for spec in all_formats()]


def get_format(name: str) -> InputFormat:
    """The record of format `name` (ValueError naming the known formats when there is none)."""
    _load_all()
    if name not in _FORMATS:
        raise ValueError(f"unknown format {name!r}; known: {', '.join(format_names())}")
    return _FORMATS[name]


def find_format(path: str | Path) -> InputFormat | None:
    """The format of a file: the highest-priority format whose detector claims it; None when none does."""
    return detect(Probe(path))


def detect(probe: Probe) -> InputFormat | None:
    found = None
    for spec in all_formats():
        if (found is None or spec.priority > found.priority) and spec.detect(probe):
            found = spec
    return found


def detect_format(path: str | Path) -> str:
    """The name of the format of the file `path`; InputError naming the file when no format claims it."""
    path = Path(path)
    spec = find_format(path)
    if spec is None:
        suffix = path.suffix.lower()
        raise InputError(
            f"cannot tell the format from the extension {suffix or '(none)'!r}; pass one of {', '.join(format_names())}",
            path=str(path),
        )
    return spec.name
