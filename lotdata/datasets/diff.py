"""`lotdata diff A B`: what changed between two dataset folders, two `clean` outputs or two annotation pulls.

The manifests first (parameters, seeds, tokenizer, versions; a file whose sha256 is the same on both sides is not
read), then each table keyed by its id (`example_id`, `story_id`, ...; `TABLE_RULES`): added, removed and changed
rows with a count per field, distributions and lengths before and after per split, stories that moved between
splits, changed decisions per rater, and a small seeded sample of each kind of change.

Memory is bounded by one row group per side (a large one read in batches), not by the file: a first pass reads
each side a row group at a time and keeps, per row, only its key, story, split and one 64-bit hash per field,
written to hash partitions on disk; Arrow's hash join then matches one partition at a time; a last pass fetches the
few sampled rows.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

from lotdata.datasets.inputs import open_input
from lotdata.errors import InputError
from lotdata.io import MANIFEST_NAME, sha256_file
from lotdata.schema import ALL_SCHEMAS, SPLITS, TASK_SCHEMAS, table_kind

#: exit codes of `lotdata diff` (README: "lotdata diff")
EXIT_EQUAL, EXIT_DIFFERENT, EXIT_BAD_INPUT, EXIT_MOVED = 0, 1, 3, 5

#: rows per record batch read from a Parquet file: what one side holds in memory at a time
BATCH_ROWS = 8192
#: rows of one side's hash table joined at once (about 130 bytes each in Arrow)
PARTITION_ROWS = 100_000
#: a categorical column with more values than this is left out of the distributions (an id, not a category)
MAX_CATEGORIES = 100
#: manifest keys that differ between two runs of the same command and say nothing about the data
VOLATILE_KEYS = ("created_at", "command")
#: characters of a field value shown in a sample
SAMPLE_CHARS = 160


@dataclass(frozen=True)
class TableRule:
    """How the rows of one kind of table are matched and grouped: the key, and the split, story and rater columns."""

    key: tuple[str, ...]
    story: str | None = None
    rater: str | None = None


TABLE_RULES: dict[str, TableRule] = {
    **{task: TableRule(("example_id",), story="story_id") for task in TASK_SCHEMAS},
    "stories": TableRule(("story_id",), story="story_id"),
    "stories_quarantine": TableRule(("story_id", "rule")),
    "clean_summary": TableRule(("source", "rule", "action")),
    "quarantine": TableRule(("path", "row", "reason")),
    "annotations": TableRule(("uid", "annotator"), rater="annotator"),
    "story_decisions": TableRule(("story_id", "annotator"), story="story_id", rater="annotator"),
    "human_eval": TableRule(("uid",)),
    "segments": TableRule(("segment_id",), story="story_id"),
}
#: string columns whose values are categories (others: text, measured by length)
CATEGORY_COLUMNS = {
    "lang",
    "origin",
    "status",
    "decision",
    "system",
    "task",
    "region",
    "rule",
    "action",
    "split",
    "source",
}
#: JSON files of an annotation pull compared like manifests
PULL_JSON = ("pull.json", "agreement.json", "gold.json", "human_perf.json")


@dataclass
class TablePair:
    """One table on both sides: its files (split name or None, path) and how to match its rows."""

    name: str
    kind: str
    files_a: list[tuple[str | None, Path]]
    files_b: list[tuple[str | None, Path]]
    skip: set[str | None] = field(default_factory=set)  # splits whose files are the same bytes on both sides


# ---------------------------------------------------------------- what the two paths hold


def _kind_of(path: Path) -> tuple[str, str | None, dict[str, Any] | None]:
    """(kind, task, manifest) of a folder or Parquet file; anything else is bad input naming the path."""
    if not path.exists():
        raise InputError("not found", path=str(path))
    if path.is_dir():
        if not (path / MANIFEST_NAME).exists() and (path / "pull.json").exists():
            return "pull", None, None
        if not (path / MANIFEST_NAME).exists() and not (path / ".incomplete").exists():
            raise InputError(f"no {MANIFEST_NAME}: not a dataset, `clean` or annotation pull folder", path=str(path))
        found = open_input(path)
        return found.kind, found.task, found.manifest
    if path.suffix.lower() != ".parquet":
        raise InputError("not a folder or a Parquet table that lotdata diff compares", path=str(path))
    found = open_input(path)
    name = table_kind(_parquet(path).schema_arrow)
    if name is None:
        raise InputError("a Parquet file without lotdata table metadata", path=str(path))
    return "table", name, None


def check_pair(a: Path, b: Path) -> tuple[str, str | None]:
    """The kind both paths hold; different kinds (or tasks) are bad input naming both paths."""
    if a.exists() and b.exists() and a.is_dir() != b.is_dir():
        folder, file = (a, b) if a.is_dir() else (b, a)
        raise InputError(f"is a file, but {folder} is a folder: compare two folders or two files", path=str(file))
    kind_a, task_a, _ = _kind_of(a)
    kind_b, task_b, _ = _kind_of(b)
    if (kind_a, task_a) != (kind_b, task_b):
        what = lambda k, t: f"{t} {k}" if t else k
        raise InputError(f"holds a {what(kind_b, task_b)}, but {a} holds a {what(kind_a, task_a)}", path=str(b))
    return kind_a, task_a


def _manifest_files(folder: Path, manifest: Mapping[str, Any]) -> dict[str, tuple[Path, str | None]]:
    return {
        name: (folder / e["file"], e.get("sha256")) for name, e in (manifest.get("splits") or {}).items() if "file" in e
    }


def _file_pairs(a: Path, b: Path, kind: str) -> list[TablePair]:
    if kind == "table":
        return [TablePair(a.name, table_kind(_parquet(a).schema_arrow) or "", [(None, a)], [(None, b)])]
    ma, mb = _manifest(a), _manifest(b)
    fa, fb = _manifest_files(a, ma), _manifest_files(b, mb)
    names = [n for n in dict.fromkeys([*fa, *fb])]
    as_splits = kind in ("dataset", "stories-splits") and all(n in SPLITS for n in names)
    pairs: list[TablePair] = []
    if as_splits:
        table = _table_name(fa, fb)
        pair = TablePair(
            "examples" if kind == "dataset" else "stories",
            table,
            [(n, fa[n][0]) for n in names if n in fa],
            [(n, fb[n][0]) for n in names if n in fb],
        )
        pair.skip = {n for n in names if n in fa and n in fb and _same_bytes(fa[n], fb[n])}
        return [pair]
    for name in names:
        side_a, side_b = fa.get(name), fb.get(name)
        table = _table_name({name: side_a} if side_a else {}, {name: side_b} if side_b else {})
        pair = TablePair(name, table, [(None, side_a[0])] if side_a else [], [(None, side_b[0])] if side_b else [])
        if side_a and side_b and _same_bytes(side_a, side_b):
            pair.skip = {None}
        pairs.append(pair)
    return pairs


def _table_name(*sides: Mapping[str, tuple[Path, str | None]]) -> str:
    for side in sides:
        for path, _ in side.values():
            if path.exists():
                return table_kind(_parquet(path).schema_arrow) or ""
    return ""


def _same_bytes(a: tuple[Path, str | None], b: tuple[Path, str | None]) -> bool:
    """Same content by the manifests' sha256 (computed when a manifest has none)."""
    sha_a = a[1] or (sha256_file(a[0]) if a[0].exists() else None)
    sha_b = b[1] or (sha256_file(b[0]) if b[0].exists() else None)
    return sha_a is not None and sha_a == sha_b


def _pull_pairs(a: Path, b: Path) -> tuple[list[TablePair], dict[str, tuple[Path, Path]]]:
    """The tables and dataset subfolders of two annotation pull folders."""
    tables: list[TablePair] = []
    names = sorted({p.name for side in (a, b) for p in side.glob("*.parquet")})
    for name in names:
        pa_, pb_ = a / name, b / name
        sides = {n: (p, None) for n, p in (("a", pa_), ("b", pb_)) if p.exists()}
        pair = TablePair(
            name.removesuffix(".parquet"),
            _table_name(sides),
            [(None, pa_)] if pa_.exists() else [],
            [(None, pb_)] if pb_.exists() else [],
        )
        if pa_.exists() and pb_.exists() and sha256_file(pa_) == sha256_file(pb_):
            pair.skip = {None}
        tables.append(pair)
    subs = sorted({p.name for side in (a, b) for p in side.iterdir() if (p / MANIFEST_NAME).exists()})
    return tables, {name: (a / name, b / name) for name in subs}


# ---------------------------------------------------------------- manifests and JSON files


def _flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            out.update(_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def diff_documents(
    a: Mapping[str, Any] | None, b: Mapping[str, Any] | None, *, ignore: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Keys whose values differ between two JSON documents (dotted paths); keys ending in `ignore` only inform."""
    fa, fb = _flatten(a or {}), _flatten(b or {})
    changed, informational = {}, {}
    for key in sorted(set(fa) | set(fb)):
        if fa.get(key) != fb.get(key) or (key in fa) != (key in fb):
            entry = {"before": fa.get(key), "after": fb.get(key)}
            if _volatile(key, ignore):
                informational[key] = entry
            else:
                changed[key] = entry
    return {"changed": changed, "ignored": informational}


def _manifest(folder: Path) -> dict[str, Any]:
    """A dataset folder's manifest.json; not JSON (or not an object): InputError naming it."""
    path = folder / MANIFEST_NAME
    try:
        value = json.loads(path.read_text("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid JSON ({exc})", path=str(path)) from None
    if not isinstance(value, dict):
        raise InputError("not a JSON object", path=str(path))
    return value


def card_changes(a: Path, b: Path) -> list[str]:
    """Lines of the dataset cards (README.md) that differ, with both sides' commands, input paths and folders
    replaced by placeholders first, in each card (two builds into two folders write different command lines; a
    copied folder's card names the folder it was built in). Byte-identical cards have no change."""
    import difflib

    texts, values = [], []
    for folder in (a, b):
        card = folder / "README.md"
        texts.append(card.read_text("utf-8") if card.exists() else None)
        manifest = _manifest(folder)
        values += [(manifest.get("command") or "", "<command>"), (str(folder), "<out>")]
        values += [(i.get("path") or "", "<input>") for i in manifest.get("inputs") or []]
    if texts[0] == texts[1]:
        return []
    sides = []
    for text in texts:
        for value, placeholder in sorted(values, key=lambda vp: -len(vp[0])):  # longest first: a path before its folder
            if value and text is not None:
                text = text.replace(value, placeholder)
        sides.append(text.splitlines() if text is not None else [])
    return [
        line
        for line in difflib.unified_diff(sides[0], sides[1], lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def _volatile(key: str, ignore: tuple[str, ...]) -> bool:
    """Keys that differ between two runs of one command: timings, and the keys named in `ignore`."""
    last = key.rsplit(".", 1)[-1]
    return last in ignore or last.endswith(("seconds", "per_second")) or ".phase_seconds." in f".{key}."


def _manifest_diff(a: Path, b: Path) -> dict[str, Any]:
    ma, mb = _manifest(a), _manifest(b)
    # input files are compared by content: the same file in another place is the same input
    for m in (ma, mb):
        m["inputs"] = sorted(i.get("sha256") or i.get("path") for i in m.get("inputs") or [])
    return diff_documents(ma, mb, ignore=VOLATILE_KEYS)


# ---------------------------------------------------------------- hashing and profiles


def _hash_strings(values: pa.Array, hash_key: str = "0123456789123456") -> np.ndarray:
    data = values.to_numpy(zero_copy_only=False)
    return pd.util.hash_array(data.astype(object), hash_key=hash_key, categorize=False)


def hash_column(column: pa.Array) -> np.ndarray:
    """One uint64 per row of any column (lists by their joined items and their length; nulls hash alike)."""
    kind = column.type
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        if _is_text(kind.value_type):
            joined = pc.binary_join(column, "\x1e")
        else:
            joined = pa.array([json.dumps(v, default=str) if v is not None else None for v in column.to_pylist()])
        lengths = pc.fill_null(pc.list_value_length(column), -1).to_numpy().astype(np.uint64)
        return _hash_strings(joined) ^ (lengths * np.uint64(0x9E3779B97F4A7C15))
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind):
        return _hash_strings(column)
    if pa.types.is_struct(kind) or pa.types.is_map(kind):
        return _hash_strings(pa.array([json.dumps(v, default=str, sort_keys=True) for v in column.to_pylist()]))
    return _hash_strings(pc.cast(column, pa.string()))


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def key_strings(batch: pa.RecordBatch | pa.Table, key: tuple[str, ...]) -> pa.Array:
    """The row keys as text: the key columns joined (a null shows as ∅)."""
    parts = [pc.fill_null(pc.cast(_column(batch, k), pa.string()), "∅") for k in key]
    joined = parts[0] if len(parts) == 1 else pc.binary_join_element_wise(*parts, "\x1f")
    return joined.combine_chunks() if isinstance(joined, pa.ChunkedArray) else joined


def _column(batch: pa.RecordBatch | pa.Table, name: str) -> pa.Array:
    if name in batch.schema.names:
        return batch.column(name)
    return pa.nulls(batch.num_rows, pa.string())


def _text_lengths(column: pa.Array) -> tuple[np.ndarray, np.ndarray | None]:
    """Characters per row (list items summed) and, for lists, items per row."""
    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        items = pc.fill_null(pc.list_value_length(column), 0).to_numpy()
        flat = pc.fill_null(pc.utf8_length(pc.list_flatten(column)), 0).to_numpy()
        ends = np.cumsum(items)
        sums = np.concatenate([[0], np.cumsum(flat)])
        return sums[ends] - sums[ends - items], items
    return pc.fill_null(pc.utf8_length(column), 0).to_numpy(), None


@dataclass
class Profile:
    """Distributions of one split on one side: rows, category counts and length histograms."""

    rows: int = 0
    categories: dict[str, Counter] = field(default_factory=dict)
    lengths: dict[str, Counter] = field(default_factory=dict)
    dropped: set[str] = field(default_factory=set)

    def add(self, batch: pa.RecordBatch, key: tuple[str, ...]) -> None:
        self.rows += batch.num_rows
        for name in batch.schema.names:
            column, kind = batch.column(name), batch.schema.field(name).type
            if name in key or name.endswith("_id") or name in self.dropped:
                continue
            if _is_category(name, kind):
                counts = self.categories.setdefault(name, Counter())
                for item in pc.value_counts(column).to_pylist():
                    counts[item["values"]] += item["counts"]
                if len(counts) > MAX_CATEGORIES:
                    self.dropped.add(name)
                    del self.categories[name]
            elif _is_text(kind) or (
                (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and _is_text(kind.value_type)
            ):
                chars, items = _text_lengths(column)
                self.lengths.setdefault(f"{name} (chars)", Counter()).update(_histogram(chars))
                if items is not None:
                    self.lengths.setdefault(f"{name} (items)", Counter()).update(_histogram(items))

    def summary(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "distributions": {
                n: {str(k): v for k, v in sorted(c.items(), key=lambda kv: str(kv[0]))}
                for n, c in sorted(self.categories.items())
            },
            "lengths": {n: length_stats(c) for n, c in sorted(self.lengths.items())},
        }


def _is_category(name: str, kind: pa.DataType) -> bool:
    if pa.types.is_boolean(kind) or pa.types.is_integer(kind):
        return name not in ("row",)
    return _is_text(kind) and name in CATEGORY_COLUMNS


def _histogram(values: np.ndarray) -> dict[int, int]:
    found, counts = np.unique(values, return_counts=True)
    return dict(zip(found.tolist(), counts.tolist()))


def length_stats(histogram: Counter) -> dict[str, float | int | None]:
    """count, mean, min, median, max of a length histogram (exact: every length is counted)."""
    total = sum(histogram.values())
    if not total:
        return {"count": 0, "mean": None, "min": None, "median": None, "max": None}
    ordered = sorted(histogram.items())
    seen, median = 0, ordered[-1][0]
    for value, count in ordered:
        seen += count
        if seen * 2 >= total:
            median = value
            break
    mean = sum(v * c for v, c in ordered) / total
    return {"count": total, "mean": round(mean, 2), "min": ordered[0][0], "median": median, "max": ordered[-1][0]}


# ---------------------------------------------------------------- the streaming table diff


class _Partitions:
    """Arrow IPC files, one per hash partition and side, appended batch by batch."""

    def __init__(self, folder: Path, count: int) -> None:
        self.folder, self.count = folder, count
        self.writers: dict[tuple[str, int], ipc.RecordBatchFileWriter] = {}

    def write(self, side: str, table: pa.Table, part: np.ndarray) -> None:
        order = np.argsort(part, kind="stable")
        parts, starts = np.unique(part[order], return_index=True)
        table = table.take(pa.array(order))
        ends = [*starts[1:], len(order)]
        for p, start, end in zip(parts.tolist(), starts.tolist(), ends):
            piece = table.slice(start, end - start)
            writer = self.writers.get((side, p))
            if writer is None:
                writer = ipc.new_file(str(self.folder / f"{side}-{p}.arrow"), piece.schema)
                self.writers[(side, p)] = writer
            writer.write_table(piece)

    def close(self) -> None:
        for writer in self.writers.values():
            writer.close()

    def read(self, side: str, p: int) -> pa.Table | None:
        path = self.folder / f"{side}-{p}.arrow"
        if not path.exists():
            return None
        with ipc.open_file(str(path)) as reader:
            return reader.read_all()


def _parquet(path: Path) -> pq.ParquetFile:
    """A Parquet file opened for its schema, row count or batches; a truncated or foreign file is bad input
    naming it (exit 3), not a crash."""
    try:
        return pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc


def _shape(dtype: pa.DataType) -> str:
    """What a column holds, as a table's schema promises it: text, a list of ..., or another type."""
    if pa.types.is_dictionary(dtype):
        return _shape(dtype.value_type)
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        return f"list of {_shape(dtype.value_type)}"
    if pa.types.is_string(dtype) or pa.types.is_large_string(dtype):
        return "text"
    return "other"


def check_schema(path: Path, kind: str | None) -> None:
    """A dataset table read by diff is checked against its schema (as every read is, `lotdata.schema.check_table`):
    a column stored with another shape (a `sentences` list stored as a string) is bad input naming the file and the
    column, not a difference. Columns absent from the file, or all null, are left to the comparison."""
    expected = ALL_SCHEMAS.get(kind or "") or ALL_SCHEMAS.get(table_kind(_parquet(path).schema_arrow) or "")
    if expected is None:
        return
    found = _parquet(path).schema_arrow
    for column in expected:
        if column.name not in found.names or pa.types.is_null(found.field(column.name).type):
            continue
        want, have = _shape(column.type), _shape(found.field(column.name).type)
        if want != have:
            message = f"column {column.name!r} is {found.field(column.name).type}, the schema has {column.type}"
            raise InputError(message, path=str(path))


def _batches(path: Path, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """Record batches of a Parquet file, a row group at a time (a large one in batches of BATCH_ROWS), Arrow's
    memory given back after each: `iter_batches` over the whole file held about 2.5 times the file (measured)."""
    handle = _parquet(path)
    for group in range(handle.num_row_groups):
        if handle.metadata.row_group(group).num_rows <= 2 * BATCH_ROWS:
            table = handle.read_row_group(group, columns=columns, use_threads=False)
            yield from table.to_batches()
            del table
        else:  # a buffered stream, not the whole column chunks at once (a 145 MB group: 143 MB over the floor, not 280)
            streamed = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 22)
            yield from streamed.iter_batches(
                batch_size=BATCH_ROWS, row_groups=[group], columns=columns, use_threads=False
            )
        pa.default_memory_pool().release_unused()


def _rows_in(files: list[tuple[str | None, Path]]) -> int:
    return sum(_parquet(p).metadata.num_rows for _, p in files if p.exists())


def _schema_of(files: list[tuple[str | None, Path]]) -> pa.Schema | None:
    for _, path in files:
        if path.exists():
            return _parquet(path).schema_arrow
    return None


def _scan(
    side: str,
    files: list[tuple[str | None, Path]],
    pair: TablePair,
    rule: TableRule,
    fields: list[str],
    parts: _Partitions,
    stories: _Partitions | None,
) -> dict[str, Profile]:
    """First pass over one side: hashes into partitions, profiles per split."""
    profiles: dict[str, Profile] = {}
    for split, path in files:
        if not path.exists():
            continue
        label = split or "all"
        skipped = split in pair.skip
        wanted = None if not skipped else [c for c in (*rule.key, rule.story) if c]
        for batch in _batches(path, wanted):
            keys = key_strings(batch, rule.key)
            story = _column(batch, rule.story) if rule.story else pa.nulls(batch.num_rows, pa.string())
            if stories is not None:
                pairs = pa.table({"story": pc.cast(story, pa.string()), "split": pa.array([label] * batch.num_rows)})
                pairs = pairs.group_by(["story", "split"]).aggregate([])
                stories.write(side, pairs, _partition_of(pairs.column("story").combine_chunks(), stories.count))
            if skipped:
                continue
            profiles.setdefault(label, Profile()).add(batch, rule.key)
            columns = {
                "key": keys,
                "story": pc.cast(story, pa.string()),
                "split": pa.array([label] * batch.num_rows),
                "rater": pc.cast(_column(batch, rule.rater), pa.string())
                if rule.rater
                else pa.nulls(batch.num_rows, pa.string()),
            }
            for name in fields:
                columns[f"h:{name}"] = pa.array(
                    hash_column(batch.column(name))
                    if name in batch.schema.names
                    else np.zeros(batch.num_rows, np.uint64),
                    pa.uint64(),
                )
            parts.write(side, pa.table(columns), _partition_of(keys, parts.count))
    return profiles


def _partition_of(keys: pa.Array, count: int) -> np.ndarray:
    if count == 1:
        return np.zeros(len(keys), np.int64)
    return (_hash_strings(keys, "partitionkey0001") % np.uint64(count)).astype(np.int64)


@dataclass
class _Changes:
    """What the join found, counted as it goes, with the sampled keys of each kind (the k smallest seeded hashes)."""

    sample_size: int
    seed: int
    counts: Counter = field(default_factory=Counter)
    by_split: dict[str, Counter] = field(default_factory=dict)
    fields: Counter = field(default_factory=Counter)
    raters: dict[str, Counter] = field(default_factory=dict)
    samples: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def sample(self, kind: str, keys: pd.Series) -> None:
        if keys.empty or not self.sample_size:
            return
        key = f"{self.seed:016d}"[-16:]
        scores = pd.util.hash_array(keys.to_numpy(dtype=object), hash_key=key, categorize=False)
        pool = self.samples.get(kind, []) + list(zip(scores.tolist(), keys.tolist()))
        self.samples[kind] = sorted(pool)[: self.sample_size]


def _partition_schema(fields: list[str]) -> pa.Schema:
    return pa.schema(
        [
            ("key", pa.string()),
            ("story", pa.string()),
            ("split", pa.string()),
            ("rater", pa.string()),
            *((f"h:{f}", pa.uint64()) for f in fields),
        ]
    )


def _with_occurrence(table: pa.Table | None, fields: list[str]) -> pa.Table:
    """A partition; a key seen twice on one side gets #2, #3, ... so that each row is matched once."""
    if table is None:
        return _partition_schema(fields).empty_table()
    counts = pc.value_counts(table.column("key"))
    if len(counts) == table.num_rows:
        return table
    frame = table.to_pandas()
    repeat = frame.groupby("key", sort=False).cumcount()
    frame.loc[repeat > 0, "key"] = frame["key"][repeat > 0] + "#" + (repeat[repeat > 0] + 1).astype(str)
    return pa.Table.from_pandas(frame, schema=_partition_schema(fields), preserve_index=False)


def _flag(table: pa.Table, name: str) -> pa.Table:
    return table.append_column(name, pa.array(np.ones(table.num_rows, dtype=bool)))


def _numpy(column: pa.ChunkedArray | pa.Array, fill: Any) -> np.ndarray:
    return pc.fill_null(column, fill).to_numpy()


def _join(a: pa.Table, b: pa.Table, fields: list[str], changes: _Changes, touched: list[pa.Table]) -> None:
    """Match one partition's rows by key (Arrow's hash join) and count what differs; only the rows that
    differ are taken out of Arrow."""
    joined = _flag(a, "in_a").join(
        _flag(b, "in_b"), keys="key", join_type="full outer", left_suffix="_a", right_suffix="_b", coalesce_keys=True
    )
    in_a, in_b = _numpy(joined.column("in_a"), False), _numpy(joined.column("in_b"), False)
    both = in_a & in_b
    differs = {f: both & (_numpy(joined.column(f"h:{f}_a"), 0) != _numpy(joined.column(f"h:{f}_b"), 0)) for f in fields}
    any_diff = np.logical_or.reduce(list(differs.values())) if fields else np.zeros(len(both), dtype=bool)
    moved = both & _numpy(pc.not_equal(joined.column("split_a"), joined.column("split_b")), False)
    picked = {
        "removed": np.flatnonzero(in_a & ~in_b),
        "added": np.flatnonzero(in_b & ~in_a),
        "changed": np.flatnonzero(any_diff),
        "moved": np.flatnonzero(moved),
    }
    changes.counts.update(
        {
            "removed": len(picked["removed"]),
            "added": len(picked["added"]),
            "changed": len(picked["changed"]),
            "unchanged": int(both.sum()) - len(picked["changed"]),
        }
    )
    for f in fields:
        changes.fields[f] += int(differs[f].sum())
    columns = ["key", "story_a", "story_b", "split_a", "split_b", "rater_a", "rater_b"]
    rows = {kind: joined.select(columns).take(pa.array(index)).to_pandas() for kind, index in picked.items()}
    del joined
    removed, added, changed, moved_rows = rows["removed"], rows["added"], rows["changed"], rows["moved"]
    for kind, frame, split_col in (
        ("removed", removed, "split_a"),
        ("added", added, "split_b"),
        ("changed", changed, "split_b"),
    ):
        for split, count in frame[split_col].value_counts().items():
            changes.by_split.setdefault(str(split), Counter())[kind] += int(count)
        changes.sample(kind, frame["key"])
    changes.counts["examples_moved"] += len(moved_rows)
    for kind, col in (("moved_out", "split_a"), ("moved_in", "split_b")):
        for split, count in moved_rows[col].value_counts().items():
            changes.by_split.setdefault(str(split), Counter())[kind] += int(count)
    for (before, after), count in moved_rows.groupby(["split_a", "split_b"]).size().items():
        changes.counts[f"examples_moved {before}->{after}"] += int(count)
    for name, count in changed["rater_b"].fillna("∅").value_counts().items():
        changes.raters.setdefault(str(name), Counter())["changed"] += int(count)
    for kind, frame, col in (("removed", removed, "rater_a"), ("added", added, "rater_b")):
        if frame[col].notna().any():
            for name, count in frame[col].fillna("∅").value_counts().items():
                changes.raters.setdefault(str(name), Counter())[kind] += int(count)
    story = pd.concat([removed["story_a"], added["story_b"], changed["story_b"]]).dropna()
    if len(story):
        touched.append(pa.table({"story": pa.array(story.astype(str).to_numpy(dtype=object), pa.string())}))


def _split_masks(table: pa.Table | None, bits: dict[str, int]) -> pa.Table:
    """story -> the splits it has examples in, as a bit mask (one bit per split name)."""
    if table is None:
        return pa.table({"story": pa.array([], pa.string()), "mask": pa.array([], pa.int64())})
    table = table.filter(pc.is_valid(table.column("story")))
    names = table.column("split").to_pylist()
    for name in names:
        bits.setdefault(name, 1 << len(bits))
    mask = pa.array([bits[n] for n in names], pa.int64())
    pairs = pa.table({"story": table.column("story"), "mask": mask}).group_by(["story", "mask"]).aggregate([])
    return pairs.group_by("story").aggregate([("mask", "sum")]).rename_columns(["story", "mask"])


def _story_changes(stories: _Partitions, touched: _Partitions, changes: _Changes) -> dict[str, Any]:
    """Stories added, removed, touched and moved between splits (a story that arrives in a split it had no
    example in, while it had examples in another split before)."""
    counts: Counter = Counter()
    moved: list[dict[str, Any]] = []
    bits = {name: 1 << i for i, name in enumerate(SPLITS)}
    for p in range(stories.count):
        a, b = _split_masks(stories.read("a", p), bits), _split_masks(stories.read("b", p), bits)
        joined = a.join(
            b, keys="story", join_type="full outer", left_suffix="_a", right_suffix="_b", coalesce_keys=True
        )
        mask_a, mask_b = _numpy(joined.column("mask_a"), 0), _numpy(joined.column("mask_b"), 0)
        counts["stories_before"] += int((mask_a > 0).sum())
        counts["stories_after"] += int((mask_b > 0).sum())
        counts["stories_added"] += int(((mask_a == 0) & (mask_b > 0)).sum())
        counts["stories_removed"] += int(((mask_a > 0) & (mask_b == 0)).sum())
        arrived = (mask_a > 0) & ((mask_b & ~mask_a) != 0)
        story_ids = joined.column("story").take(pa.array(np.flatnonzero(arrived))).to_pylist()
        names = lambda m: sorted((n for n, bit in bits.items() if m & bit), key=_split_order)
        moved += [
            {"story_id": story, "before": names(x), "after": names(y)}
            for story, x, y in zip(story_ids, mask_a[arrived].tolist(), mask_b[arrived].tolist())
        ]
        table = touched.read("t", p)
        if table is not None:
            counts["stories_with_changed_examples"] += len(pc.unique(table.column("story")))
    moved.sort(key=lambda m: m["story_id"])
    counts["stories_moved"] = len(moved)
    return {"counts": dict(counts), "moved": moved}


def _fetch_samples(
    pair: TablePair, rule: TableRule, keys: dict[str, list[str]], fields: list[str]
) -> dict[str, list[Any]]:
    """The sampled rows themselves: removed from A, added from B, changed from both (the fields that differ)."""
    want_a = set(keys.get("removed", [])) | set(keys.get("changed", []))
    want_b = set(keys.get("added", [])) | set(keys.get("changed", []))
    rows_a, rows_b = _rows_with(pair.files_a, rule, want_a), _rows_with(pair.files_b, rule, want_b)
    out: dict[str, list[Any]] = {}
    for kind in ("removed", "added", "changed"):
        for key in keys.get(kind, []):
            if kind == "removed" and key in rows_a:
                out.setdefault(kind, []).append(_shown(rows_a[key], rule))
            elif kind == "added" and key in rows_b:
                out.setdefault(kind, []).append(_shown(rows_b[key], rule))
            elif kind == "changed" and key in rows_a and key in rows_b:
                before, after = rows_a[key], rows_b[key]
                fields_changed = {
                    f: {"before": _short(before.get(f)), "after": _short(after.get(f))}
                    for f in fields
                    if before.get(f) != after.get(f)
                }
                out.setdefault(kind, []).append({"key": key, "fields": fields_changed})
    return out


def _rows_with(files: list[tuple[str | None, Path]], rule: TableRule, wanted: set[str]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    if not wanted:
        return found
    seen: Counter = Counter()  # a key's second row on a side is KEY#2, as the join numbered it
    value_set = pa.array(sorted({*wanted, *(k.rsplit("#", 1)[0] for k in wanted if _numbered(k))}), pa.string())
    for _, path in files:
        if not path.exists():
            continue
        for batch in _batches(path):
            keys = key_strings(batch, rule.key)
            mask = pc.is_in(keys, value_set=value_set)
            if not pc.any(mask).as_py():
                continue
            for key, row in zip(
                pc.filter(keys, mask).to_pylist(), pa.Table.from_batches([batch]).filter(mask).to_pylist()
            ):
                seen[key] += 1
                numbered = key if seen[key] == 1 else f"{key}#{seen[key]}"
                if numbered in wanted:
                    found[numbered] = {"key": numbered, **row}
    return found


def _numbered(key: str) -> bool:
    head, _, tail = key.rpartition("#")
    return bool(head) and tail.isdigit() and int(tail) > 1


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > SAMPLE_CHARS:
        return value[:SAMPLE_CHARS] + "…"
    if isinstance(value, list):
        text = json.dumps(value, ensure_ascii=False)
        return value if len(text) <= SAMPLE_CHARS else text[:SAMPLE_CHARS] + "…"
    return value


def _shown(row: Mapping[str, Any], rule: TableRule) -> dict[str, Any]:
    """A sampled row, long values cut; the joined key only when it is made of several columns."""
    return {k: _short(v) for k, v in row.items() if k != "key" or len(rule.key) > 1}


def diff_table(pair: TablePair, *, sample: int = 3, seed: int = 0, workdir: Path | None = None) -> dict[str, Any]:
    """Compare one table on both sides, streaming (module docstring); a dict ready for JSON."""
    rule = TABLE_RULES.get(pair.kind) or TableRule((_schema_of(pair.files_a or pair.files_b).names[0],))
    for _, path in [*pair.files_a, *pair.files_b]:
        check_schema(path, pair.kind)
    schema_a, schema_b = _schema_of(pair.files_a), _schema_of(pair.files_b)
    names_a, names_b = (schema_a.names if schema_a else []), (schema_b.names if schema_b else [])
    fields = [n for n in dict.fromkeys([*names_a, *names_b]) if n not in rule.key]
    rows = max(_rows_in(pair.files_a), _rows_in(pair.files_b))
    count = max(1, math.ceil(rows / PARTITION_ROWS))
    folder = Path(tempfile.mkdtemp(prefix="lotdata-diff-", dir=workdir))
    try:
        for sub in ("rows", "stories", "touched"):
            (folder / sub).mkdir()
        parts, touched = _Partitions(folder / "rows", count), _Partitions(folder / "touched", count)
        split_files = any(s is not None for s, _ in [*pair.files_a, *pair.files_b])
        stories = _Partitions(folder / "stories", count) if rule.story and split_files else None
        before = _scan("a", pair.files_a, pair, rule, fields, parts, stories)
        after = _scan("b", pair.files_b, pair, rule, fields, parts, stories)
        parts.close()
        if stories is not None:
            stories.close()
        changes = _Changes(sample, seed)
        changes.counts["unchanged"] += _rows_in([(s, p) for s, p in pair.files_a if s in pair.skip])
        for p in range(count):
            pieces: list[pa.Table] = []
            _join(
                _with_occurrence(parts.read("a", p), fields),
                _with_occurrence(parts.read("b", p), fields),
                fields,
                changes,
                pieces,
            )
            pa.default_memory_pool().release_unused()
            if stories is not None and pieces:
                story = pa.concat_tables(pieces)
                touched.write("t", story, _partition_of(story.column("story").combine_chunks(), count))
        touched.close()
        story_report = _story_changes(stories, touched, changes) if stories is not None else None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    sampled = {kind: [k for _, k in pool] for kind, pool in changes.samples.items()}
    splits = sorted(set(before) | set(after) | {s for s in pair.skip if s}, key=_split_order)
    return {
        "table": pair.name,
        "kind": pair.kind,
        "key": list(rule.key),
        "identical_files": sorted(s or "all" for s in pair.skip),
        "columns": {
            "added": [n for n in names_b if n not in names_a],
            "removed": [n for n in names_a if n not in names_b],
        },
        "counts": {k: changes.counts.get(k, 0) for k in ("added", "removed", "changed", "unchanged", "examples_moved")}
        | {k: v for k, v in sorted(changes.counts.items()) if k.startswith("examples_moved ")},
        "changed_fields": {f: changes.fields[f] for f in fields if changes.fields[f]},
        "by_split": {
            s: {
                k: changes.by_split.get(s, Counter()).get(k, 0)
                for k in ("added", "removed", "changed", "moved_in", "moved_out")
            }
            for s in splits
        },
        "splits": {
            s: {
                "before": before[s].summary() if s in before else None,
                "after": after[s].summary() if s in after else None,
                "identical": s in pair.skip,
            }
            for s in splits
        },
        "stories": story_report,
        "raters": {r: dict(c) for r, c in sorted(changes.raters.items())} if rule.rater else None,
        "samples": _fetch_samples(pair, rule, sampled, fields) if sampled else {},
    }


def _split_order(name: str) -> tuple[int, str]:
    return (SPLITS.index(name) if name in SPLITS else len(SPLITS), name)


# ---------------------------------------------------------------- the whole comparison


def diff_paths(
    a: str | Path, b: str | Path, *, sample: int = 3, seed: int = 0, workdir: str | Path | None = None
) -> dict[str, Any]:
    """Compare two dataset folders, `clean` outputs, annotation pulls or Parquet tables of one kind."""
    a, b = Path(a), Path(b)
    if sample < 0:
        raise ValueError(f"--sample {sample}: must be at least 0")
    kind, task = check_pair(a, b)
    work = Path(workdir) if workdir else None
    report: dict[str, Any] = {
        "a": str(a),
        "b": str(b),
        "kind": kind,
        "task": task,
        "manifest": None,
        "documents": {},
        "tables": [],
        "folders": {},
    }
    if kind == "pull":
        tables, subfolders = _pull_pairs(a, b)
        for name in PULL_JSON:
            docs = [json.loads(p.read_text("utf-8")) if p.exists() else None for p in (a / name, b / name)]
            if any(d is not None for d in docs):
                report["documents"][name] = diff_documents(*docs, ignore=("seconds",))
        for name, (sa, sb) in subfolders.items():
            if sa.exists() and sb.exists():
                report["folders"][name] = diff_paths(sa, sb, sample=sample, seed=seed, workdir=work)
            else:
                report["folders"][name] = {"only_in": "b" if sb.exists() else "a"}
    else:
        if kind != "table":
            report["manifest"] = _manifest_diff(a, b)
        if kind == "dataset":
            report["card"] = card_changes(a, b)
        tables = _file_pairs(a, b, kind)
    report["tables"] = [diff_table(t, sample=sample, seed=seed, workdir=work) for t in tables]
    report["verdict"] = verdict(report)
    report["exit_code"] = {"equal": EXIT_EQUAL, "different": EXIT_DIFFERENT, "stories moved": EXIT_MOVED}[
        report["verdict"]
    ]
    return report


def _moved(report: Mapping[str, Any]) -> bool:
    tables = any((t.get("stories") or {}).get("counts", {}).get("stories_moved") for t in report.get("tables", []))
    return tables or any(_moved(f) for f in report.get("folders", {}).values() if "tables" in f)


def _different(report: Mapping[str, Any]) -> bool:
    if "only_in" in report:
        return True
    if report.get("manifest") and report["manifest"]["changed"]:
        return True
    if any(d["changed"] for d in report.get("documents", {}).values()) or report.get("card"):
        return True
    for table in report.get("tables", []):
        counts = table["counts"]
        if (
            counts["added"]
            or counts["removed"]
            or counts["changed"]
            or table["columns"]["added"]
            or table["columns"]["removed"]
        ):
            return True
    return any(_different(f) for f in report.get("folders", {}).values())


def verdict(report: Mapping[str, Any]) -> str:
    """ "stories moved" (exit 5) before "different" (exit 1) before "equal" (exit 0)."""
    if _moved(report):
        return "stories moved"
    return "different" if _different(report) else "equal"


# ---------------------------------------------------------------- the report for people


def render_markdown(report: Mapping[str, Any], *, title: str | None = None) -> str:
    """The report as Markdown: verdict, manifest changes, then per table the counts, splits and samples."""
    lines = [
        f"## {title or 'lotdata diff'}: {report['a']} -> {report['b']}",
        "",
        f"Verdict: **{report['verdict']}** (exit {report['exit_code']}); {report['kind']}"
        + (f" ({report['task']})" if report.get("task") else ""),
        "",
    ]
    lines += _render_body(report)
    return "\n".join(lines).rstrip() + "\n"


def _render_body(report: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    manifest = report.get("manifest")
    if manifest is not None:
        lines += _render_document("manifest.json", manifest)
    if report.get("card"):
        lines += ["### README.md (dataset card)", "", "```diff", *report["card"], "```", ""]
    for name, doc in report.get("documents", {}).items():
        lines += _render_document(name, doc)
    for table in report.get("tables", []):
        lines += _render_table(table)
    for name, sub in report.get("folders", {}).items():
        if "only_in" in sub:
            lines += [f"### {name}/", "", f"only in {'B' if sub['only_in'] == 'b' else 'A'}", ""]
        else:
            lines += [f"### {name}/ ({sub['verdict']})", "", *_render_body(sub)]
    return lines


def _render_document(name: str, doc: Mapping[str, Any]) -> list[str]:
    if not doc["changed"]:
        return [f"{name}: no change" + (f" (ignored: {', '.join(doc['ignored'])})" if doc["ignored"] else ""), ""]
    lines = [f"### {name}", "", "| key | before | after |", "| --- | --- | --- |"]
    for key, entry in doc["changed"].items():
        lines.append(f"| {key} | {_cell(entry['before'])} | {_cell(entry['after'])} |")
    return [*lines, ""]


def _cell(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    if len(text) == 64 and all(c in "0123456789abcdef" for c in text):
        text = text[:12] + "…"  # a sha256
    text = text if len(text) <= 70 else text[:69] + "…"
    return text.replace("|", "\\|").replace("\n", " ")


def _render_table(table: Mapping[str, Any]) -> list[str]:
    counts = table["counts"]
    lines = [f"### {table['table']} ({table['kind']}, key {'+'.join(table['key'])})", ""]
    if table["identical_files"]:
        lines.append(f"identical files (sha256), not read: {', '.join(table['identical_files'])}")
    lines.append(", ".join(f"{k}: {v}" for k, v in counts.items()))
    if table["columns"]["added"] or table["columns"]["removed"]:
        lines.append(f"columns added: {table['columns']['added']}, removed: {table['columns']['removed']}")
    if table["changed_fields"]:
        lines.append("changed fields: " + ", ".join(f"{f} {n}" for f, n in table["changed_fields"].items()))
    stories = table.get("stories")
    if stories:
        lines.append(", ".join(f"{k}: {v}" for k, v in stories["counts"].items()))
        for move in stories["moved"][:10]:
            lines.append(f"MOVED story {move['story_id']}: {'+'.join(move['before'])} -> {'+'.join(move['after'])}")
        if len(stories["moved"]) > 10:
            lines.append(f"... and {len(stories['moved']) - 10} more moved stories (--json lists all)")
    if table.get("raters"):
        lines.append(
            "by rater: "
            + "; ".join(f"{r}: " + ", ".join(f"{k} {v}" for k, v in c.items()) for r, c in table["raters"].items())
        )
    lines.append("")
    lines += _render_splits(table)
    for kind, rows in table.get("samples", {}).items():
        lines.append(f"sample of {kind}:")
        for row in rows:
            lines.append(f"- {json.dumps(row, ensure_ascii=False)}")
        lines.append("")
    return lines


def _render_distribution(split: str, name: str, before: Mapping[str, int], after: Mapping[str, int]) -> list[str]:
    """One row per value whose count changed (a column with one value on both sides only follows the row count)."""
    if before == after or (len(before) <= 1 and len(after) <= 1 and set(before) == set(after)):
        return []
    values = sorted(set(before) | set(after), key=lambda v: (len(v), v))
    changed = [v for v in values if before.get(v, 0) != after.get(v, 0)]
    rows = [f"| {split} | {name} = {v} | {before.get(v, 0)} | {after.get(v, 0)} |" for v in changed[:12]]
    if len(changed) > 12:
        rows.append(f"| {split} | {name}: {len(changed) - 12} more values changed | | |")
    return rows


def _render_splits(table: Mapping[str, Any]) -> list[str]:
    lines = ["| split | statistic | before | after |", "| --- | --- | ---: | ---: |"]
    for split, entry in table["splits"].items():
        if entry["identical"]:
            lines.append(f"| {split} | (identical file) | | |")
            continue
        before, after = entry["before"] or {}, entry["after"] or {}
        counts = table["by_split"].get(split, {})
        moves = (
            f", moved in {counts.get('moved_in', 0)} out {counts.get('moved_out', 0)}"
            if counts.get("moved_in") or counts.get("moved_out")
            else ""
        )
        lines.append(
            f"| {split} | rows (added {counts.get('added', 0)}, removed {counts.get('removed', 0)}, changed "
            f"{counts.get('changed', 0)}{moves}) | {before.get('rows', 0)} | {after.get('rows', 0)} |"
        )
        for name in sorted(set(before.get("distributions", {})) | set(after.get("distributions", {}))):
            lines += _render_distribution(
                split,
                name,
                before.get("distributions", {}).get(name) or {},
                after.get("distributions", {}).get(name) or {},
            )
        for name in sorted(set(before.get("lengths", {})) | set(after.get("lengths", {}))):
            b, a = before.get("lengths", {}).get(name), after.get("lengths", {}).get(name)
            if b != a:
                fmt = lambda s: (
                    "–" if not s or not s["count"] else f"{s['mean']} (median {s['median']}, {s['min']}-{s['max']})"
                )
                lines.append(f"| {split} | {name} mean | {fmt(b)} | {fmt(a)} |")
    return [*lines, ""]
