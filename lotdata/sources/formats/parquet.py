"""``parquet``: a row of a Parquet file with the csv's columns (a `stories` table is one)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from lotdata.datasets.formats import FormatSample, InputFormat, Probe, Record, register_format
from lotdata.errors import InputError
from lotdata.sources.formats._common import record_from_obj

SUFFIXES = (".parquet", ".pq")


def parse_parquet(path: Path) -> Iterator[Record]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
    if "text" not in table.column_names and "story" not in table.column_names:
        message = f"Parquet file has no 'text' or 'story' column (columns: {table.column_names})"
        raise InputError(message, path=str(path))
    keep = [c for c in ("id", "title", "text", "story") if c in table.column_names]
    for number, obj in enumerate(table.select(keep).to_pylist(), start=1):
        if obj.get("text") is None and obj.get("story") is not None:
            obj.pop("text", None)  # a null text column beside a filled story column
        yield record_from_obj(obj, number, json.dumps(obj, ensure_ascii=False, default=str))


def parquet_kind(probe: Probe) -> tuple[str, str | None]:
    """A stories table, a task table or another table, from the schema's `lotdata.table` name."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lotdata.datasets.registry import task_names
    from lotdata.schema import table_kind

    if probe.suffix != ".parquet":
        return "file", None
    try:
        name = table_kind(pq.read_schema(probe.path))
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(probe.path)) from exc
    if name == "stories":
        return "stories", None
    if name in task_names():
        return "task-table", name
    return "file", name


def write_stories_table(rows: list[dict], path: Path) -> Path:
    """Stories rows as the `stories` table `lotdata read` writes."""
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows

    return write_parquet(table_from_rows(rows, STORIES), path)


def sample_parquet(folder: Path) -> FormatSample:
    """Two stories (one titled) and a row whose text is null."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "tales.parquet"
    texts = ["河马张开大嘴，打了一个哈欠。", "The owl woke up. It went hunting.", None]
    pq.write_table(pa.table({"id": ["p1", "p2", "p3"], "title": ["河马", None, None], "text": texts}), path)
    return FormatSample(path, good=2, bad_row=3)


register_format(
    InputFormat(
        name="parquet",
        description="a row of a Parquet file (.parquet, .pq) with the csv's columns; row: the row number",
        detect=lambda probe: probe.suffix in SUFFIXES,
        parse=parse_parquet,
        kind=parquet_kind,
        write=write_stories_table,
        sample=sample_parquet,
    )
)
