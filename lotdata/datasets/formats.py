"""The input-format registry: one record per corpus format, and the one detector of what a file holds.

A format is one module that calls `register_format(InputFormat(...))` when imported (see
`lotdata/sources/formats/txt.py`), its record carrying a small sample file (`sample`) that the conformance checks
of `lotdata.testing.formats` read. The record says
how the format recognises a file (`detect(probe)`, a `priority` among formats that claim the same
file), how it parses one into :class:`Record` s (`parse(path)`), and what `open_input` calls such a file
(`kind(probe)`). `lotdata read` and `open_input` both ask :func:`detect_format`: one decision.

The built-in formats are the modules of `lotdata.sources.formats` (those not starting with `_`), imported the
first time the registry (`FORMAT_REGISTRY`, a `lotdata.registry.Registry`) is read, so this layer imports
nothing above it; a third-party package registers its formats under the `lotdata.formats` entry-point group.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterator

from lotdata.errors import InputError
from lotdata.registry import Registry
from lotdata.text.decoding import first_line

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
class FormatSample:
    """A small file of a format, for the conformance checks (`lotdata.testing.formats`): `path` holds `good`
    stories and one bad record, at row `bad_row` (it goes to the quarantine)."""

    path: Path
    good: int
    bad_row: int


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
    `description`: what a record is, for the CLI help and the README. `sample(folder) -> FormatSample` writes a
    small file of the format into `folder` (the conformance checks of `lotdata.testing.formats` need one)."""

    name: str
    description: str
    detect: Callable[[Probe], bool]
    parse: Callable[[Path], Iterator[Record]]
    priority: int = 0
    default_source: str | None = None
    kind: Callable[[Probe], tuple[str, str | None]] = _file_kind
    write: Callable[[list[dict[str, Any]], Path], Path] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    sample: Callable[[Path], FormatSample] | None = None


#: every input format: the built-in ones (the modules of lotdata/sources/formats/, by name), then those registered
#: later or by a package's `lotdata.formats` entry point
FORMAT_REGISTRY: Registry[InputFormat] = Registry("format", modules=("sources/formats/*.py",))
ENTRY_POINT_GROUP = FORMAT_REGISTRY.group


def register_format(spec: InputFormat) -> InputFormat:
    """Add a format (a module calls it at import); a name another record holds is a RegistryError."""
    return FORMAT_REGISTRY.register(spec, stacklevel=2)


def unregister_format(name: str) -> None:
    """Drop a format (tests that register a made-up one clean up with it)."""
    FORMAT_REGISTRY.unregister(name)


def all_formats() -> list[InputFormat]:
    """Every registered format: the built-in ones (by module name), then those registered later."""
    return FORMAT_REGISTRY.all()


def format_names() -> list[str]:
    return FORMAT_REGISTRY.names()


def get_format(name: str) -> InputFormat:
    """The record of format `name` (RegistryError, a ValueError, naming the known formats when there is none)."""
    return FORMAT_REGISTRY.get(name)


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
