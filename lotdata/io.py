"""Atomic, deterministic Parquet and jsonl writes, reads, hashing and dataset manifests."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import socket
import tempfile
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from lotdata import __version__
from lotdata.errors import DiskError, InputError, LotdataError, must_exist
from lotdata.schema import check_table

MANIFEST_NAME = "manifest.json"
#: present while a dataset folder is being written; readers refuse a folder that holds it
INCOMPLETE_MARKER = ".incomplete"

# Fixed writer options: the same table always gives the same bytes.
_PARQUET_OPTIONS = dict(compression="zstd", use_dictionary=True, write_statistics=True, version="2.6")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _tmp_prefix(name: str) -> str:
    return f".{name}.lotdata-"


def clean_stale_tmp(folder: str | os.PathLike, names: Iterable[str] | None = None) -> int:
    """Remove temporary files a killed run of ours left in `folder`: `.NAME.*.tmp` for each of our file
    `names` (older lotdata versions included), or every `.*.lotdata-*.tmp` when no names are given."""
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    patterns = [f".{name}.*.tmp" for name in names] if names is not None else [".*.lotdata-*.tmp"]
    removed = 0
    for pattern in patterns:
        for stale in folder.glob(pattern):
            stale.unlink(missing_ok=True)
            removed += 1
    return removed


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path beside `path`; rename it over `path` only if the block succeeds.

    The final file gets the mode the umask gives a new file (mkstemp alone would leave it 0600).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_tmp(path.parent, [path.name])
    fd, tmp = tempfile.mkstemp(prefix=_tmp_prefix(path.name), suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        try:
            yield tmp_path
            os.chmod(tmp_path, 0o666 & ~_umask())
            os.replace(tmp_path, path)
        except OSError as exc:
            raise_disk_error(exc, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


#: what the environment's refusals mean, in words (a disk error's message)
DISK_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EFBIG: "file too large for the file system",
    errno.ENAMETOOLONG: "file name too long",
    errno.EMFILE: "too many open files",
    errno.ENFILE: "too many open files in the system",
    errno.EISDIR: "is a folder",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
}


def errno_of(exc: OSError) -> int | None:
    """The errno of an OS error, also where a library gives it only in words: pyarrow's "[Errno 28] ...", numpy's
    `tofile` short write ("640000 requested and 65504 written": a full disk)."""
    if exc.errno is not None:
        return exc.errno
    text = str(exc)
    code = next((c for c in DISK_REASONS if f"[Errno {c}]" in text), None)
    if code is None and " requested and " in text and text.rstrip().endswith("written"):
        code = errno.ENOSPC
    return code


def raise_disk_error(exc: OSError, path: str | os.PathLike) -> None:
    """Re-raise a write failure naming the file: "[Errno 28] No space left on device" alone says not where."""
    code = errno_of(exc)
    if exc.errno is None and code not in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG):
        code = None  # a permission error a library reports in words may come from a read: left as it was
    if code in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EFBIG):
        reason = DISK_REASONS[code]
        raise DiskError(f"{path}: cannot write it: {reason} ({os.strerror(code)}); nothing was replaced") from exc
    raise exc


# ---------------------------------------------------------------------------------------------
# output lock: two runs writing the same output would race and the last writer win silently

_HELD_LOCKS: dict[Path, int] = {}
_HELD_GUARD = threading.Lock()


def lock_path_for(out: str | os.PathLike) -> Path:
    """`OUT.lock` beside the output (a file or a folder), so the lock never lands among the outputs."""
    out = Path(out)
    return out.with_name(out.name + ".lock")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _take_lock(lock: Path) -> bool:
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    holder = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(holder) + "\n")
    except OSError as exc:  # a full disk: an empty lock left behind would refuse every later run
        lock.unlink(missing_ok=True)
        raise_disk_error(exc, lock)
    return True


def held_elsewhere(out: str | os.PathLike) -> Path | None:
    """The lock of `out` when another live run holds it (not this process), else None: a command writing inside
    a folder that a recipe run is writing must wait for it."""
    lock = lock_path_for(out).absolute()
    with _HELD_GUARD:
        if lock in _HELD_LOCKS:
            return None
    if not lock.exists() or _stale(lock):
        return None
    return lock


def _stale(lock: Path) -> bool:
    """A lock whose process is gone (same host) is stale; one from another host is never presumed stale."""
    try:
        holder = json.loads(lock.read_text(encoding="utf-8"))
        pid, host = int(holder["pid"]), holder["host"]
    except FileNotFoundError:
        return True
    except (OSError, ValueError, KeyError, TypeError):
        # being written this instant, or garbage: garbage older than a minute is stale
        try:
            return time.time() - lock.stat().st_mtime > 60
        except FileNotFoundError:
            return True
    return host == socket.gethostname() and not _pid_alive(pid)


@contextmanager
def output_lock(out: str | os.PathLike) -> Iterator[Path]:
    """Hold `OUT.lock` (O_EXCL, holding our pid) while a run writes `out`; a second run exits 1 naming the lock.

    A lock left by a killed run (its pid is gone) is taken over. Re-entrant within one process.
    """
    lock = lock_path_for(out).absolute()
    with _HELD_GUARD:
        if lock in _HELD_LOCKS:
            _HELD_LOCKS[lock] += 1
            reentered = True
        else:
            reentered = False
    if not reentered:
        lock.parent.mkdir(parents=True, exist_ok=True)
        if not _take_lock(lock):
            if _stale(lock):
                lock.unlink(missing_ok=True)
            if not _take_lock(lock):
                try:
                    holder = lock.read_text(encoding="utf-8").strip()
                except OSError:
                    holder = "?"
                raise LotdataError(
                    f"{lock}: another lotdata run is writing {out} ({holder}); wait for it to end, "
                    f"or delete the lock file if no run is going on"
                )
        with _HELD_GUARD:
            _HELD_LOCKS[lock] = 1
    try:
        yield lock
    finally:
        with _HELD_GUARD:
            _HELD_LOCKS[lock] -= 1
            last = _HELD_LOCKS[lock] == 0
            if last:
                del _HELD_LOCKS[lock]
        if last:
            lock.unlink(missing_ok=True)


def check_output_file(path: str | os.PathLike) -> Path:
    """Fail before any work when `path` cannot become a file: it is a folder, or its parent is a file."""
    path = Path(path)
    if path.is_dir():
        raise LotdataError(f"{path}: is a folder; give a file name")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise LotdataError(f"{path}: cannot create it, {parent} is a file, not a folder")
            if not os.access(parent, os.W_OK):
                raise LotdataError(f"{path}: cannot write into {parent} (permission denied)")
            break
    return path


def check_output_dir(path: str | os.PathLike, option: str = "--out") -> Path:
    """Fail before any work when `path` cannot become a folder (it names an existing file, or lies under one)."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise LotdataError(f"{path}: exists and is a file; {option} names a folder")
    check_output_file(path / MANIFEST_NAME)
    return path


def mark_incomplete(folder: str | os.PathLike) -> Path:
    """Flag a dataset folder as being written (readers refuse it) and clean our stale temp files."""
    folder = check_output_dir(folder)
    folder.mkdir(parents=True, exist_ok=True)
    splits = ("train", "val", "test")
    clean_stale_tmp(folder, [MANIFEST_NAME, "README.md", *(f"{s}.parquet" for s in splits)])
    clean_stale_tmp(folder / "lot", [f"{s}.jsonl" for s in splits])
    for sub in (folder, folder / "lot"):
        clean_stale_tmp(sub)
    marker = folder / INCOMPLETE_MARKER
    try:
        marker.write_text(
            "a lotdata build is writing this folder, or was stopped before it finished\n", encoding="utf-8"
        )
    except OSError as exc:
        raise_disk_error(exc, marker)
    return marker


def mark_complete(folder: str | os.PathLike) -> None:
    (Path(folder) / INCOMPLETE_MARKER).unlink(missing_ok=True)


def quarantine_path_for(table_path: str | os.PathLike) -> Path:
    """Where the rows rejected while making a table file go: `NAME.quarantine.parquet` beside it."""
    table_path = Path(table_path)
    return table_path.with_name(table_path.stem + ".quarantine.parquet")


def write_parquet(table: pa.Table, path: str | os.PathLike) -> Path:
    """Write a table atomically (temp file + rename) with deterministic writer settings."""
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, **_PARQUET_OPTIONS)
    return Path(path)


def write_parquet_pieces(pieces: Iterable[pa.Table], schema: pa.Schema, path: str | os.PathLike) -> Path:
    """Write tables one after the other as row groups of one Parquet file, atomically: memory is bounded by
    a piece, not by the file."""
    with atomic_path(path) as tmp:
        with pq.ParquetWriter(tmp, schema, **_PARQUET_OPTIONS) as writer:
            for piece in pieces:
                writer.write_table(piece.cast(schema).combine_chunks())
                del piece
                pa.default_memory_pool().release_unused()  # the allocator keeps freed pages otherwise
    return Path(path)


def read_parquet(path: str | os.PathLike, schema: pa.Schema | None = None) -> pa.Table:
    """Read a Parquet file; with `schema`, check its columns and cast to it."""
    path = must_exist(path, "file")
    try:
        table = pq.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
    return check_table(table, schema, str(path)) if schema is not None else table


def write_text(text: str, path: str | os.PathLike) -> Path:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def iter_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON-lines file, read line by line; a line that is
    not UTF-8 or not JSON is bad input naming the file and line (a binary file fails on its first bad line)."""
    with open(path, "rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"not UTF-8 text (byte {exc.start} of the line): a binary file?", path=str(path), row=line_no
                ) from None
            if not line.strip():
                continue
            try:
                yield line_no, json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"not JSON ({exc.msg})", path=str(path), row=line_no) from None


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


def _input_files(inputs: Iterable[str | os.PathLike]) -> list[Path]:
    """Each input as the files it stands for: a file itself, a folder every file under it (sorted)."""
    files: list[Path] = []
    for item in inputs:
        path = Path(item)
        files += sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    return files


def check_weight_files(folder: str | os.PathLike) -> Path:
    """Fail (exit 3, naming the file) when a checkpoint's `*.safetensors` file is truncated or not one: its
    header (8-byte length + JSON) must describe tensors that end exactly at the file's end. Cheap: reads
    the header only, so a bad checkpoint is found before any work, not deep inside a worker."""
    from lotdata.errors import InputError

    folder = Path(folder)
    for path in sorted(folder.glob("*.safetensors")):
        size = path.stat().st_size
        try:
            with open(path, "rb") as handle:
                header_len = int.from_bytes(handle.read(8), "little")
                if size < 8 or header_len > size - 8:
                    raise ValueError("its header is longer than the file")
                header = json.loads(handle.read(header_len))
            end = max((t["data_offsets"][1] for k, t in header.items() if k != "__metadata__"), default=0)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise InputError(
                f"not a readable safetensors file ({exc}); download the checkpoint again", path=str(path)
            ) from None
        if 8 + header_len + end != size:
            raise InputError(
                f"truncated or padded safetensors file: {size} bytes, its header describes "
                f"{8 + header_len + end}; download the checkpoint again",
                path=str(path),
            )
    return folder


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def story_id_for(text: str) -> str:
    """Stable id of a story: the first 16 hex digits of the sha256 of its normalised text."""
    return sha256_text(text)[:16]


#: the manifest `kind` a writer that names none gets, from its `task` (the kinds before `kind` existed)
_KIND_OF_TASK = {"clean": "clean", "crawl": "crawl", "stories": "stories-splits"}


def manifest_kind(manifest: Mapping[str, Any]) -> str:
    """The kind a manifest says, or the one its `task` field implies (manifests of older runs)."""
    if manifest.get("kind"):
        return str(manifest["kind"])
    return _KIND_OF_TASK.get(manifest.get("task"), "dataset")  # type: ignore[arg-type]


def manifest_dict(
    *,
    task: str,
    kind: str | None = None,
    command: str,
    params: Mapping[str, Any],
    inputs: Iterable[str | os.PathLike],
    files: Mapping[str, str | os.PathLike],
    stats: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Describe a dataset folder: what made it, from what, and what it holds.

    `kind` says what the folder is (`lotdata.datasets.inputs.KINDS`: dataset, clean, crawl, ...; by
    default "dataset", or clean/crawl/stories-splits for those `task` values). `files` maps a split name
    to its Parquet file; each gets its row count and sha256. `extra` adds keys (environment, drop rules, ...).
    """
    split_entries = {}
    for split, file in files.items():
        file = Path(file)
        split_entries[split] = {
            "file": file.name,
            "rows": pq.ParquetFile(file).metadata.num_rows,
            "sha256": sha256_file(file),
        }
    return {
        "lotdata_version": __version__,
        "kind": kind or _KIND_OF_TASK.get(task, "dataset"),
        "task": task,
        "command": command,
        "params": dict(params),
        "seed": params.get("seed"),
        "inputs": [{"path": str(p), "sha256": sha256_file(p)} for p in _input_files(inputs)],
        "splits": split_entries,
        "stats": dict(stats or {}),
        **dict(extra or {}),
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def write_manifest(folder: str | os.PathLike, manifest: Mapping[str, Any] | None = None, **fields: Any) -> Path:
    """Write `folder/manifest.json`: the given manifest, or one made by `manifest_dict(**fields)`."""
    manifest = manifest if manifest is not None else manifest_dict(**fields)
    return write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2, default=str) + "\n", Path(folder) / MANIFEST_NAME
    )


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    folder = must_exist(folder, "dataset folder")
    if (folder / INCOMPLETE_MARKER).exists():
        raise InputError(
            f"incomplete dataset folder (it holds {INCOMPLETE_MARKER}: a build was stopped before it finished); build it again",
            path=str(folder),
        )
    path = folder / MANIFEST_NAME
    if not path.exists():
        raise InputError("no manifest.json: not a lotdata dataset folder", path=str(folder))
    return json.loads(path.read_text(encoding="utf-8"))
