"""Reference corpora of any size, streamed: expand globs into files, files into shards, shards into documents.

A document is `(doc_id, [text, ...])`. Plain `.txt` and `.jsonl` files are cut into byte ranges (a line
belongs to the shard holding its first byte) so one big file still uses every worker; compressed files
(`.gz`, `.zst`) are one shard each; Parquet files are cut by row groups. Nothing is ever loaded whole.

Document ids: `path@byte` for plain text files (the line's byte offset), `path:line` for compressed ones,
`path:row` for Parquet (or `path:<id>` when the table has an id column).
"""

from __future__ import annotations

import glob
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from lotdata.datasets.inputs import open_input
from lotdata.errors import InputError, LotdataError, require
from lotdata.exec import Shard, parquet_shards
from lotdata.overlap.texts import example_texts, text_fields_of
from lotdata.schema import table_kind

DEFAULT_SHARD_BYTES = 32 << 20
_COMPRESSED = (".gz", ".zst")
_PLAIN = (".txt", ".jsonl", ".json", ".text")
_ID_COLUMNS = ("example_id", "story_id", "id", "doc_id")
#: jsonl / parquet fields that are never text to measure
_NOT_TEXT = {"id", "label", "url", "lang", "source", "license", "split", "status", "fetched_at", "story_id",
             "example_id", "source_id", "annotator", "annotation_id", "sha", "doc_id"}


@dataclass
class Expanded:
    files: list[Path]
    missing: list[str]


def expand_references(patterns: list[str]) -> Expanded:
    """Files named by paths, globs or dataset folders (their split Parquet files), in a stable order."""
    files: list[Path] = []
    missing: list[str] = []
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            folder = open_input(path)
            if folder.kind in ("dataset", "stories-splits"):  # its split tables
                found = [f for f in folder.files if f.exists()]
            elif folder.kind in ("clean", "crawl"):  # the stories kept, not the quarantine
                found = [path / "stories.parquet"]
            else:
                found = sorted(p for p in path.rglob("*") if p.is_file() and _kind(p) is not None)
            files.extend(found)
            if not found:
                missing.append(f"{pattern} (a folder with no .txt/.jsonl/.parquet/.gz/.zst file)")
            continue
        matches = sorted(glob.glob(pattern, recursive=True)) if glob.has_magic(pattern) else [pattern]
        matches = [m for m in matches if Path(m).is_file()]
        if not matches:
            missing.append(pattern)
        files.extend(Path(m) for m in matches)
    unique = list(dict.fromkeys(files))
    return Expanded(unique, missing)


def _kind(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(".parquet"):
        return "parquet"
    for ext in _COMPRESSED:
        if name.endswith(ext):
            return "compressed"
    if name.endswith(_PLAIN) or "." not in name:
        return "plain"
    return None


def plan_shards(files: list[Path], shard_bytes: int = DEFAULT_SHARD_BYTES) -> list[Shard]:
    """Cut files into shards of about `shard_bytes` (byte ranges, row-group ranges, or whole files)."""
    shards: list[Shard] = []
    for path in files:
        kind = _kind(path) or "plain"
        size = path.stat().st_size
        if kind == "plain" and size > shard_bytes:
            for start in range(0, size, shard_bytes):
                stop = min(start + shard_bytes, size)
                shards.append(Shard(str(path), start, stop, stop - start))
        elif kind == "parquet":
            shards.extend(parquet_shards(path, shard_bytes))
        else:
            shards.append(Shard(str(path), 0, None, size))
    return shards


def iter_documents(shard: Shard) -> Iterator[tuple[str, list[str]]]:
    """Documents of one shard; a read problem raises InputError naming the file (and byte or line)."""
    path = Path(shard.path)
    kind = _kind(path) or "plain"
    try:
        if kind == "parquet":
            yield from _parquet_documents(path, shard)
        else:
            yield from _line_documents(path, shard, kind)
    except LotdataError:
        raise
    except Exception as exc:  # noqa: BLE001 - any reader failure (gzip, zstd, arrow, OS) names the file
        raise InputError(f"cannot read ({type(exc).__name__}: {exc})", path=shard.path) from exc


def _open_binary(path: Path) -> io.BufferedIOBase:
    name = path.name.lower()
    if name.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if name.endswith(".zst"):
        zstandard = require("zstandard", "overlap")
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True))
    return open(path, "rb")


def _lines(path: Path, shard: Shard, kind: str) -> Iterator[tuple[str, bytes]]:
    with _open_binary(path) as handle:
        if kind == "compressed":
            for line_no, line in enumerate(handle, start=1):
                yield f"{path}:{line_no}", line
            return
        offset = shard.start
        if offset > 0:
            handle.seek(offset - 1)
            offset += len(handle.readline()) - 1  # skip the line that began in the previous shard
        stop = shard.stop if shard.stop is not None else float("inf")
        while offset < stop:
            line = handle.readline()
            if not line:
                break
            yield f"{path}@{offset}", line
            offset += len(line)


def _line_documents(path: Path, shard: Shard, kind: str) -> Iterator[tuple[str, list[str]]]:
    is_jsonl = ".jsonl" in path.name.lower() or ".json" in path.name.lower()
    for doc_id, raw in _lines(path, shard, kind):
        if b"\x00" in raw:
            raise InputError(f"binary data (NUL byte) in the line at {doc_id}: not a text file", path=shard.path)
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text at {doc_id} ({exc.reason}): binary or mis-encoded file",
                             path=shard.path) from exc
        if not line.strip():
            continue
        if is_jsonl:
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise InputError(f"not a JSON line at {doc_id} ({exc})", path=shard.path) from exc
            yield doc_id, texts_of_record(obj)
        else:
            yield doc_id, [line.rstrip("\r\n")]


def texts_of_record(obj: Any) -> list[str]:
    """The text of a JSON record: `text` (+ `title`) when present, else every string field but ids and labels."""
    if isinstance(obj, str):
        return [obj]
    if not isinstance(obj, dict):
        return []
    if isinstance(obj.get("text"), str):
        return [t for t in (obj.get("title"), obj["text"]) if isinstance(t, str)]
    texts: list[str] = []
    for key, value in obj.items():
        if key in _NOT_TEXT:
            continue
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list):
            texts.extend(v for v in value if isinstance(v, str))
    return texts


def _parquet_documents(path: Path, shard: Shard) -> Iterator[tuple[str, list[str]]]:
    import pyarrow.parquet as pq

    file = pq.ParquetFile(path)
    schema = file.schema_arrow
    kind = table_kind(schema)
    known = text_fields_of(kind)
    fields = list(known) if known else _generic_text_fields(schema)
    fields = [f for f in fields if f in schema.names]
    if not fields:
        raise InputError("no text column (text, story, or any string column)", path=str(path))
    id_column = next((c for c in _ID_COLUMNS if c in schema.names), None)
    extra = [c for c in (id_column, "lang") if c and c in schema.names and c not in fields]
    groups = list(range(shard.start, shard.stop if shard.stop is not None else file.num_row_groups))
    row = sum(file.metadata.row_group(g).num_rows for g in range(shard.start))
    for batch in file.iter_batches(row_groups=groups, columns=fields + extra, batch_size=4096):
        for record in batch.to_pylist():
            row += 1
            doc_id = f"{path}:{record[id_column]}" if id_column else f"{path}:{row}"
            if known:
                yield doc_id, [text for _, text in example_texts(kind, record)]
            else:
                yield doc_id, texts_of_record({k: record[k] for k in fields})


def _generic_text_fields(schema) -> list[str]:
    import pyarrow as pa

    if "text" in schema.names:
        return [n for n in ("title", "text") if n in schema.names]
    return [
        f.name for f in schema
        if f.name not in _NOT_TEXT
        and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type)
             or (pa.types.is_list(f.type) and pa.types.is_string(f.type.value_type)))
    ]


__all__ = ["DEFAULT_SHARD_BYTES", "expand_references", "iter_documents", "plan_shards", "texts_of_record"]
