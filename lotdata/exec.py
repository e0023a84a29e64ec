"""One executor for the whole toolkit: run a per-shard function locally or on Ray, resumably.

    from lotdata.exec import ExecSettings, Shard, run_shards

    def count_lines(shard: Shard, part: Path) -> dict:      # a module-level function (picklable)
        n = ...                                             # read shard.path[shard.start:shard.stop]
        part.write_text(str(n))                             # one part file per shard
        return {"lines": n}                                 # small stats, kept in the done marker

    results = run_shards(count_lines, shards, out, execution=ExecSettings(workers=2))
    total = sum(r.stats["lines"] for r in results)          # results come back in shard order

- `fn(shard, part_path) -> dict` turns one shard into one part file `out/parts/NNNNN<suffix>` and returns
  small JSON-able stats. It must be a picklable (module-level) callable; put large shared state in a file
  that `fn` loads once per process, not in the closure.
- After `fn` returns, `out/done/NNNNN.json` records the shard, the job `fingerprint` and the stats: a re-run
  with the same shards and fingerprint skips that shard (datatrove's completions). Change the fingerprint
  when the job's parameters change.
- Results come back in shard order, so whatever a caller merges from them does not depend on the executor
  or on the number of workers.
- `execution=ExecSettings(executor, workers, ray_address)`: how a stage runs, one default everywhere (local,
  1 worker) and checked in one place; the bare `executor=`, `workers=`, `ray_address=` keywords remain for
  low-level callers.
- `executor="local"`: a process pool of `workers` processes, forked where the platform can and no OpenMP
  runtime is loaded in this process, else started by a fork server (`start_method`; 1 worker runs in this
  process; default: all cores);
  `executor="ray"`: the same shards as Ray tasks (`ray.init()` is called if Ray is not running; pass
  `ray_address` to join a cluster). Parts are written where the workers run: use a shared folder on a cluster.
- `on_error="raise"` stops at the first failing shard (its error names the shard);
  `on_error="skip"` goes on and returns the failure in `ShardResult.error` (no done marker: a re-run retries it).
- The progress bar (rich) counts shard bytes (`Shard.size`) and shows MB/s and the ETA; `on_shard(result)`
  is called in the caller's process as each shard finishes, for a caller's own progress or log.

The stage shape every stage follows: plan shards -> `fn` makes one part per shard -> the caller combines
the parts in shard order. Planning helpers for Parquet: `parquet_shards` (row-group ranges of about
`shard_bytes`), `write_row_grouped` (a work file whose row groups are the shards, for a stage whose unit is
a run of rows, e.g. `build`) and `read_shard_rows`. This module imports no CLI code (`lotdata.progress`
holds the console it shares with the CLI).
"""

from __future__ import annotations

import errno
import hashlib
import json
import multiprocessing
import os
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

from lotdata.errors import LotdataError, require
from lotdata.io import raise_disk_error, sha256_file, write_text

if TYPE_CHECKING:
    import pyarrow as pa

EXECUTORS = ("local", "ray")
ShardFn = Callable[["Shard", Path], dict]


@dataclass(frozen=True)
class ExecSettings:
    """How a stage runs its shards, the same default for every command, the recipe and the library: one
    worker in this process. The fields carry their help (read by the CLI and the recipe checks)."""

    executor: str = field(default="local", metadata={"help": "local (process pool) or ray.", "choices": EXECUTORS})
    workers: int = field(
        default=1,
        metadata={
            "help": "Processes (or Ray tasks) working on shards; the output is the same for any number.",
            "check": ">0",
        },
    )
    ray_address: str | None = field(
        default=None, metadata={"help": "Ray cluster to join (with --executor ray; default: start Ray locally)."}
    )

    def __post_init__(self) -> None:
        check_executor(self.executor, self.workers)


#: execution settings: how a run goes, never what it makes (left out of every fingerprint)
EXECUTION_FIELDS = tuple(f.name for f in fields(ExecSettings))


def fingerprint(
    name: str, params: Mapping[str, Any], files: Iterable[Path], execution: Iterable[str] = EXECUTION_FIELDS
) -> str:
    """The one fingerprint rule, for a command run and a recipe step alike: the parameters minus the execution
    settings (`execution`, dropped at any depth: they change how a run goes, never what it makes), the sha256 of
    every input file, and the tokenizer the environment names (`LOTDATA_TOKENIZER` changes the data without
    changing a parameter)."""
    dropped = frozenset(execution)
    hashes = {str(f): sha256_file(f) for f in sorted(set(map(Path, files)), key=str)}
    payload = json.dumps(
        {
            "command": name,
            "params": _without(params, dropped),
            "inputs": hashes,
            "tokenizer": os.environ.get("LOTDATA_TOKENIZER"),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def _without(value: Any, keys: frozenset[str]) -> Any:
    if not isinstance(value, Mapping):
        return value
    return {k: _without(v, keys) for k, v in value.items() if k not in keys}


@dataclass(frozen=True)
class Shard:
    """A unit of work: a file, or a byte range / row-group range [start, stop) of one."""

    path: str
    start: int = 0
    stop: int | None = None  # None: to the end
    size: int = 0  # bytes, for the progress bar

    def describe(self) -> str:
        if self.start == 0 and self.stop is None:
            return self.path
        return f"{self.path}[{self.start}:{'' if self.stop is None else self.stop}]"


@dataclass
class ShardResult:
    index: int
    shard: Shard
    part: Path
    stats: dict = field(default_factory=dict)
    skipped: bool = False  # done by an earlier run
    error: str | None = None  # only with on_error="skip"
    seconds: float = 0.0


class ShardError(LotdataError):
    """A shard failed; the message names it. Keeps the exit code of the error inside."""

    def __init__(self, shard: Shard, message: str, exit_code: int = 1) -> None:
        named = message.startswith(shard.path) and shard.describe() == shard.path
        super().__init__(message if named else f"shard {shard.describe()}: {message}")
        self.exit_code = exit_code


def check_executor(executor: str, workers: int | None) -> None:
    """Fail before any work on an unknown executor or a worker count below 1."""
    if executor not in EXECUTORS:
        raise LotdataError(f"unknown executor {executor!r}; use one of {', '.join(EXECUTORS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise LotdataError(f"--workers {workers!r}: must be a whole number, at least 1")


def parquet_shards(path: str | os.PathLike, shard_bytes: int) -> list[Shard]:
    """Cut a Parquet file into shards of whole row groups, about `shard_bytes` (uncompressed) each;
    `shard_bytes=1` gives one shard per row group. An unreadable file is one shard whose reader names the error."""
    import pyarrow.parquet as pq

    path = Path(path)
    try:
        meta = pq.ParquetFile(path).metadata
    except Exception:  # noqa: BLE001 - reported by the shard that reads it
        return [Shard(str(path), 0, None, path.stat().st_size)]
    shards, start, acc = [], 0, 0
    for group in range(meta.num_row_groups):
        acc += meta.row_group(group).total_byte_size
        if acc >= shard_bytes:
            shards.append(Shard(str(path), start, group + 1, acc))
            start, acc = group + 1, 0
    if start < meta.num_row_groups or not shards:
        shards.append(Shard(str(path), start, meta.num_row_groups, acc))
    return shards


def write_row_grouped(table: pa.Table, path: str | os.PathLike, rows_per_shard: int) -> list[Shard]:
    """Write `table` as a work file with row groups of `rows_per_shard` rows, one shard per group
    (the plan of a stage whose unit of work is a run of rows)."""
    import pyarrow.parquet as pq

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        pq.write_table(table, path, row_group_size=max(1, rows_per_shard), compression="zstd")
    except OSError as exc:  # a full disk names the work file it could not write (exit 1)
        raise_disk_error(exc, path)
    return parquet_shards(path, 1)


def read_shard_rows(shard: Shard) -> list[dict]:
    """The rows of a row-group shard of a Parquet file."""
    import pyarrow.parquet as pq

    file = pq.ParquetFile(shard.path)
    stop = file.num_row_groups if shard.stop is None else shard.stop
    return file.read_row_groups(list(range(shard.start, stop))).to_pylist() if stop > shard.start else []


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def _check_work_folder(out: Path) -> Path:
    """Fail before any shard runs when the work folder (`OUT.work/`, `OUT/.work/...`) cannot be made: it, or a
    folder above it, exists as a file (exit 1 naming it; not a crash creating the first part)."""
    for folder in (out, *out.parents):
        if folder.exists():
            if not folder.is_dir():
                inside = "" if folder == out else f" ({out})"
                raise LotdataError(
                    f"{folder}: is a file, but lotdata needs its work folder{inside} there; move or delete it"
                )
            break
    return out


def _paths(out: Path, index: int, suffix: str) -> tuple[Path, Path]:
    return out / "parts" / f"{index:05d}{suffix}", out / "done" / f"{index:05d}.json"


def _marker_matches(marker: Path, shard: Shard, fingerprint: str, part: Path) -> dict | None:
    if not (marker.exists() and part.exists()):
        return None
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("shard") != asdict(shard) or data.get("fingerprint") != fingerprint:
        return None
    return data.get("stats", {})


def _call(fn: ShardFn, shard: Shard, part: Path) -> tuple[dict, float]:
    """Run one shard in a worker; errors come back as (kind, message, exit code) so they pickle."""
    started = time.perf_counter()
    part.parent.mkdir(parents=True, exist_ok=True)
    try:
        stats = fn(shard, part) or {}
    except LotdataError as exc:
        return {"__error__": str(exc), "__exit__": exc.exit_code}, time.perf_counter() - started
    except (OSError, ValueError, EOFError) as exc:
        # a full or read-only disk: exit 1 naming the file, not bad input (EACCES may be a read: left as it was)
        if isinstance(exc, OSError) and exc.errno != errno.EACCES:
            try:
                raise_disk_error(exc, exc.filename or part)
            except LotdataError as named:
                return {"__error__": str(named), "__exit__": named.exit_code}, time.perf_counter() - started
            except OSError:
                pass
        return {"__error__": f"{type(exc).__name__}: {exc}", "__exit__": 3}, time.perf_counter() - started
    return stats, time.perf_counter() - started


def run_shards(
    fn: ShardFn,
    shards: Sequence[Shard],
    out: str | os.PathLike,
    *,
    executor: str = "local",
    workers: int | None = None,
    fingerprint: str = "",
    suffix: str = ".parquet",
    on_error: str = "raise",
    progress: bool | None = None,
    description: str = "shards",
    ray_address: str | None = None,
    on_shard: Callable[[ShardResult], None] | None = None,
    execution: ExecSettings | None = None,
) -> list[ShardResult]:
    """Run `fn` over `shards` (see the module docstring); results in shard order. `execution`, when given,
    sets `executor`, `workers` and `ray_address` (a stage's settings).

    `on_shard(result)` is called in this process as each shard finishes (or is found done), in completion
    order: a caller's own progress display or log."""
    if execution is not None:
        executor, workers, ray_address = execution.executor, execution.workers, execution.ray_address
    if executor not in EXECUTORS:
        raise LotdataError(f"unknown executor {executor!r}; use one of {', '.join(EXECUTORS)}")
    if on_error not in ("raise", "skip"):
        raise LotdataError(f"on_error must be 'raise' or 'skip', not {on_error!r}")
    out = _check_work_folder(Path(out))
    workers = max(1, workers or default_workers())
    results: list[ShardResult | None] = [None] * len(shards)
    todo: list[int] = []
    for index, shard in enumerate(shards):
        part, marker = _paths(out, index, suffix)
        stats = _marker_matches(marker, shard, fingerprint, part)
        if stats is None:
            todo.append(index)
        else:
            results[index] = ShardResult(index, shard, part, stats, skipped=True)

    def finish(index: int, outcome: tuple[dict, float]) -> None:
        stats, seconds = outcome
        shard = shards[index]
        part, marker = _paths(out, index, suffix)
        if "__error__" in stats:
            if on_error == "raise":
                raise ShardError(shard, stats["__error__"], stats["__exit__"])
            results[index] = ShardResult(index, shard, part, error=stats["__error__"], seconds=seconds)
            return
        record = {"shard": asdict(shard), "fingerprint": fingerprint, "stats": stats, "seconds": round(seconds, 3)}
        write_text(json.dumps(record, ensure_ascii=False) + "\n", marker)
        results[index] = ShardResult(index, shard, part, stats, seconds=seconds)

    with _progress_bar(progress, description, sum(s.size for s in shards)) as advance:
        advance(sum(shards[i].size for i in range(len(shards)) if results[i] is not None))
        if on_shard:
            for result in results:
                if result is not None:
                    on_shard(result)
        if todo:
            runner = _run_ray if executor == "ray" else _run_local
            for index, outcome in runner(fn, shards, todo, out, suffix, workers, ray_address):
                finish(index, outcome)
                advance(shards[index].size)
                if on_shard and results[index] is not None:
                    on_shard(results[index])
    return [r for r in results if r is not None]


def die_with_parent(parent: int | None = None) -> None:
    """A worker's initializer: on Linux the kernel sends it SIGTERM when the process that started it dies,
    so a killed job leaves no worker running on (elsewhere a no-op)."""
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except OSError:
            return
        if parent is not None and os.getppid() != parent:  # it died before the request: no signal will come
            os._exit(1)


#: shared libraries of OpenMP runtimes: once one has run its thread pool in a process, a child forked from that
#: process hangs the first time it enters a parallel region (the pool's threads are not copied by fork)
OPENMP_RUNTIMES = ("libgomp", "libomp", "libiomp")


def openmp_loaded(maps: str | os.PathLike = "/proc/self/maps") -> bool:
    """Whether an OpenMP runtime is mapped into this process (Linux; False where /proc cannot be read)."""
    try:
        text = Path(maps).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(name in text for name in OPENMP_RUNTIMES)


def start_method() -> str:
    """How the local pool starts its workers. Fork where there is one: workers start in milliseconds with the
    parent's modules (a loaded tokenizer), and a script without a __main__ guard still works; the children never
    touch the progress bar's console. Not once an OpenMP runtime is loaded here (libdivsufsort's, when a 1-worker
    build ran in this process, or torch's): then a fork server, itself started clean, forks the workers; they import
    their modules afresh and re-import `__main__`, so a script needs the usual `if __name__ == "__main__":` guard.
    Where /proc cannot be read (macOS, BSD) the runtime is not seen and the pool forks."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and not openmp_loaded():
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _run_local(fn, shards, todo, out, suffix, workers, _address) -> Iterator[tuple[int, tuple[dict, float]]]:
    if workers == 1 or len(todo) == 1:
        for index in todo:
            yield index, _call(fn, shards[index], _paths(out, index, suffix)[0])
        return
    method = start_method()
    parent = os.getpid() if method == "fork" else None  # a forkserver's child has the server as its parent
    with ProcessPoolExecutor(
        max_workers=min(workers, len(todo)),
        mp_context=multiprocessing.get_context(method),
        initializer=die_with_parent,
        initargs=(parent,),
    ) as pool:
        pending = {}
        queue = list(todo)
        while queue or pending:
            # keep at most 2 shards per worker in flight so an error stops the job early
            while queue and len(pending) < 2 * workers:
                index = queue.pop(0)
                pending[pool.submit(_call, fn, shards[index], _paths(out, index, suffix)[0])] = index
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield pending.pop(future), future.result()


def check_ray_address(address: str | None, timeout: float = 5.0) -> None:
    """A `host:port` (or `ray://host:port`) that takes no TCP connection is a LotdataError naming it: Ray itself
    would retry for minutes. None, "auto" and "local" are left to Ray."""
    import socket

    if not address or address in ("auto", "local"):
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        raise LotdataError(f"--ray-address {address!r}: expected HOST:PORT (or ray://HOST:PORT, auto, local)")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout).close()
    except OSError as exc:
        raise LotdataError(f"--ray-address {address}: no Ray head answers there ({exc})") from exc


def is_auth_refusal(exc: BaseException) -> bool:
    """Ray refused us for want of a valid token (a cluster started with RAY_AUTH_MODE=token)."""
    text = " ".join(f"{type(e).__name__}: {e}" for e in (exc, exc.__cause__, exc.__context__) if e is not None).lower()
    return any(
        word in text
        for word in ("invalidauthtoken", "unauthenticated", "authentication token", "auth token", "ray_auth_mode")
    )


def ray_auth_hint(address: str | None, exc: BaseException) -> str:
    """One line that says what to do when a Ray cluster with token authentication refused this process."""
    sent = (
        "the token in RAY_AUTH_TOKEN was refused" if os.environ.get("RAY_AUTH_TOKEN") else "this process sent no token"
    )
    return (
        f"--ray-address {address or '(auto)'}: Ray could not join the cluster "
        f"({type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}). A head that answers but "
        f"refuses the session usually runs with token authentication and {sent}: set RAY_AUTH_MODE=token and "
        f"RAY_AUTH_TOKEN to the cluster's token (`ray get-auth-token` on the head; or RAY_AUTH_TOKEN_PATH to a "
        f"file holding it) in this shell, then run again"
    )


def _run_ray(fn, shards, todo, out, suffix, workers, address) -> Iterator[tuple[int, tuple[dict, float]]]:
    ray = require("ray", "ray")
    check_ray_address(address)  # also when Ray already runs here: the address given is still wrong
    if not ray.is_initialized():
        try:
            ray.init(address=address, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
        except Exception as exc:
            # a head that takes the TCP connection (checked above) but not the session: most often token auth
            if is_auth_refusal(exc) or (address and isinstance(exc, ConnectionError)):
                raise LotdataError(ray_auth_hint(address, exc)) from exc
            raise
    remote = ray.remote(_call)
    pending = {}
    queue = list(todo)
    while queue or pending:
        while queue and len(pending) < workers:
            index = queue.pop(0)
            pending[remote.remote(fn, shards[index], _paths(out, index, suffix)[0])] = index
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            yield pending.pop(ref), ray.get(ref)


class _progress_bar:
    """A rich progress bar over bytes (MB/s, ETA) on stderr; silent when not a terminal unless forced."""

    def __init__(self, enabled: bool | None, description: str, total: int) -> None:
        self.enabled, self.description, self.total = enabled, description, total
        self.bar = None

    def __enter__(self) -> Callable[[int], None]:
        from rich.progress import BarColumn, DownloadColumn, TextColumn, TimeRemainingColumn, TransferSpeedColumn

        from lotdata.progress import LoggingProgress, console

        enabled = console.is_terminal if self.enabled is None else self.enabled
        self.bar = LoggingProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
            disable=not enabled,
            log=self.enabled is None,
        )
        self.bar.__enter__()
        task = self.bar.add_task(self.description, total=self.total or None)
        return lambda n: self.bar.advance(task, n)

    def __exit__(self, *exc: Any) -> None:
        self.bar.__exit__(*exc)
