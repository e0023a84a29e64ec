"""Atomic, deterministic Parquet and jsonl writes, reads, hashing and dataset manifests."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from lotdata import __version__
from lotdata.errors import InputError
from lotdata.schema import check_table

MANIFEST_NAME = "manifest.json"

# Fixed writer options: the same table always gives the same bytes.
_PARQUET_OPTIONS = dict(compression="zstd", use_dictionary=True, write_statistics=True, version="2.6")


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it over `path` only if the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_parquet(table: pa.Table, path: str | os.PathLike) -> Path:
    """Write a table atomically (temp file + rename) with deterministic writer settings."""
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, **_PARQUET_OPTIONS)
    return Path(path)


def read_parquet(path: str | os.PathLike, schema: pa.Schema | None = None) -> pa.Table:
    """Read a Parquet file; with `schema`, check its columns and cast to it."""
    path = Path(path)
    if not path.exists():
        raise InputError("file not found", path=str(path))
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
    return check_table(table, schema, str(path)) if schema is not None else table


def write_text(text: str, path: str | os.PathLike) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_jsonl(records: Iterable[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """One JSON object a line, UTF-8, no ASCII escaping (the LOT release's own style)."""
    lines = [json.dumps(record, ensure_ascii=False) + "\n" for record in records]
    return write_text("".join(lines), path)


def sha256_file(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_manifest(
    folder: str | os.PathLike,
    *,
    task: str,
    command: str,
    params: Mapping[str, Any],
    inputs: Iterable[str | os.PathLike],
    files: Mapping[str, str | os.PathLike],
    stats: Mapping[str, Any] | None = None,
) -> Path:
    """Describe a dataset folder: what made it, from what, and what it holds.

    `files` maps a split name to its Parquet file; each gets its row count and sha256.
    """
    folder = Path(folder)
    split_entries = {}
    for split, file in files.items():
        file = Path(file)
        split_entries[split] = {
            "file": file.name,
            "rows": pq.ParquetFile(file).metadata.num_rows,
            "sha256": sha256_file(file),
        }
    manifest = {
        "lotdata_version": __version__,
        "task": task,
        "command": command,
        "params": dict(params),
        "seed": params.get("seed"),
        "inputs": [{"path": str(p), "sha256": sha256_file(p)} for p in inputs],
        "splits": split_entries,
        "stats": dict(stats or {}),
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    return write_text(json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=False) + "\n", folder / MANIFEST_NAME)


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    path = Path(folder) / MANIFEST_NAME
    if not path.exists():
        raise InputError("no manifest.json: not a lotdata dataset folder", path=str(folder))
    return json.loads(path.read_text(encoding="utf-8"))
