"""What several formats share: records with text/story fields, json lines, csv records."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Iterator

from lotdata.datasets.formats import Probe, Record, bad
from lotdata.errors import InputError
from lotdata.text.decoding import read_text

JSON_SUFFIXES = (".jsonl", ".json")


def text_of(obj: dict[str, Any]) -> tuple[str | None, str | None]:
    """(text, reason if unusable) of a record with a `text` or `story` field."""
    key = "text" if "text" in obj else "story" if "story" in obj else None
    if key is None:
        return None, "no 'text' or 'story' field"
    value = obj[key]
    if not isinstance(value, str):
        return None, f"'{key}' is not a string ({type(value).__name__})"
    if not value.strip():
        return None, f"empty '{key}'"
    return value, None


def opt_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value != value:  # NaN from pandas-written files
        return None
    value = str(value).strip()
    return value or None


def record_from_obj(obj: dict[str, Any], row: int, raw: str) -> Record:
    """A record from a mapping with `text` or `story` (`id`, `title` optional)."""
    text, reason = text_of(obj)
    if reason:
        return bad(row, reason, raw)
    return Record(row=row, raw=raw, text=text, title=opt_str(obj.get("title")), source_id=opt_str(obj.get("id")))


def json_lines(path: Path) -> Iterator[tuple[int, str, Any | Record]]:
    """(line number, line, value) of every non-blank line; the value is a rejected Record when the line is
    not JSON."""
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, line, json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, line, bad(number, f"invalid JSON: {exc.msg} (column {exc.colno})", line)


def json_kind(probe: Probe) -> tuple[str, str | None]:
    """What `open_input` calls a json(l) file: LOT jsonl of a task (from its first record) or plain jsonl."""
    from lotdata.datasets.inputs import lot_task_of_file

    task = lot_task_of_file(probe.path)
    return ("lot-jsonl" if task else "jsonl"), task


CsvRow = tuple[int, "dict[str, str] | None", str, "str | None"]


def csv_rows(path: Path) -> tuple[list[str], Iterator[CsvRow]]:
    """Header and (record number, row, raw, reason) of a csv file; row is None when unparsable."""
    csv.field_size_limit(1 << 30)
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InputError(f"unreadable csv header ({exc})", path=str(path)) from exc
    header = [h.strip() for h in header] if header else []

    lines = io.StringIO(text, newline="").readlines()

    def rows() -> Iterator[CsvRow]:
        number = 0
        while True:
            start = reader.line_num
            try:
                values = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                number += 1
                yield number, None, "", f"unparsable csv record ({exc})"
                continue
            if not any(v.strip() for v in values):
                continue
            number += 1
            raw = ",".join(values)
            if reader.line_num >= len(lines) and _unterminated(lines[start:]):
                # a quote never closed: the csv reader ran the rest of the file into this record
                where = f"line {start + 1}" + (f" to the end (line {len(lines)})" if len(lines) > start + 1 else "")
                yield number, None, raw, f"unterminated quote: the record runs from {where} of the file"
                return
            if len(values) != len(header):
                yield number, None, raw, f"{len(values)} fields, the header has {len(header)}"
                continue
            yield number, dict(zip(header, values)), raw, None

    return header, rows()


def _unterminated(lines: list[str]) -> bool:
    """Whether the csv record made of `lines` (the file's last) ends inside an open quote."""
    try:
        list(csv.reader(lines, strict=True))
    except csv.Error as exc:
        return "unexpected end of data" in str(exc)
    return False


def require_columns(header: list[str], needed: list[str], path: Path, what: str) -> None:
    missing = [c for c in needed if c not in header]
    if missing:
        raise InputError(f"not a {what} csv: missing columns {missing} (columns: {header})", path=str(path))


def csv_names(probe: Probe) -> set[str]:
    """The csv header's names, lower-cased."""
    return {h.lower() for h in probe.csv_header}


def sample_lines(path: Path, lines: list[str], encoding: str = "utf-8") -> Path:
    """A format's sample file (its record's `sample`): `lines`, one a line."""
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


def sample_csv(path: Path, rows: list[list[str]]) -> Path:
    """A format's sample csv file: `rows`, the header first."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path
