"""Commands: every command that writes is a record with one execute function, and one runner gives each the
same guarantees, so a new command cannot forget them (DESIGN.md, "The guarantees live in one place").

A `Command` declares, once: its parameters (a dataclass of `lotdata.stage.param` fields: name, type, default,
help and range), which of them are execution settings (left out of the fingerprint), the paths it reads
(`inputs`) and every path it writes (`outputs`, side outputs included: `OUT.quarantine.parquet`, `--json`,
`check.json`), and `execute(run)`, which does the work. The CLI command (`lotdata.clikit.command_of`), the
library call (`run_command`) and the conformance checks (`lotdata.testing`) are derived from the record.

`run_command` is the one path, for every command:
1. the parameters are checked against their declared ranges and choices (the CLI and a recipe say the same);
2. every declared output is checked against every declared input and every other output before any work:
   never the same path, never inside or around an input, never an existing folder of another kind (or one
   holding files lotdata did not write), never a device or other special file;
3. a lock is held on every output (`OUT.lock`), so a second writer is refused;
4. **atomic publication**: `execute` writes only under a staging folder beside each output
   (`.NAME.lotdata-next/NAME`); when it returns, each output is swapped in whole (a folder by an atomic
   exchange where the kernel has one). A run that fails, is killed or runs out of disk leaves the previous
   output byte-identical; the staging folder is kept, so the next run resumes from its parts;
5. one boundary maps exceptions to exit codes: OS trouble names the file and says what happened (exit 1),
   a malformed input file names the file (exit 3), anything else is a bug (exit 70).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import shutil
import stat
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from lotdata.errors import DiskError, InputError, LotdataError, is_expected
from lotdata.exec import EXECUTION_FIELDS, fingerprint
from lotdata.io import (
    DISK_REASONS,
    INCOMPLETE_MARKER,
    MANIFEST_NAME,
    errno_of,
    held_elsewhere,
    lock_path_for,
    manifest_kind,
    output_lock,
)
from lotdata.paths import PathValue, check_outputs, real_path
from lotdata.registry import Registry
from lotdata.stage import check_value, files_of, params_of

STAGING_SUFFIX = ".lotdata-next"
_OLD_SUFFIX = ".lotdata-old"


class OutputKindError(LotdataError):
    """An output names something of another kind than the command writes (exit 1)."""

    exit_code = 1


# ---------------------------------------------------------------------------------------------
# the record


@dataclass(frozen=True)
class Output:
    """A path the command writes. `kind`: "file", or the kind of folder (the `kind` its manifest.json holds:
    "dataset", "clean", "overlap-index", ...; "folder" for a folder that has no manifest, which `owned` then
    recognises). `side`: written beside a main output (a quarantine table, a JSON copy). `optional`: the run
    may not write it (no rejected rows); a previous one is then removed, so a stale side file never survives.
    `update`: the run extends what is there (its staging copy starts from the published output).
    `owned(path)`: whether an existing non-empty folder is one this command may replace (default: its
    manifest's kind is `kind`, and its task is `task` where one is given). `format`: what a file output holds
    ("parquet"): an existing file that does not hold it is someone else's and is refused. `into`: the kinds of
    lotdata folder a file output may be written into (a card into its dataset); any other lotdata folder is
    refused (a stray file would break what its manifest lists)."""

    label: str
    path: Path
    kind: str = "file"
    side: bool = False
    optional: bool = False
    update: bool = False
    owned: Callable[[Path], bool] | None = None
    task: str | None = None
    format: str | None = None
    into: tuple[str, ...] = ()

    @property
    def is_folder(self) -> bool:
        return self.kind != "file"


@dataclass(frozen=True)
class Command:
    """A command that writes. `name` is its CLI path ("index build"); `params` its dataclass of `param` fields
    (execution settings among them are named by `execution`); `inputs(params)` maps labels to the paths it
    reads; `outputs(params)` lists every `Output`; `execute(run)` does the work, writing only to
    `run.out(label)`, and returns a summary (the CLI prints it). `arguments`:
    the parameters given positionally on the command line (`metavars`: their names in the usage line).
    `refused_exit`: the exit code of a refusal before any work (bad parameter, clashing output) for a command
    whose exit 1 means something else (`diff`: "different"). `service`: the outside service a run needs (its
    conformance checks run where one is started, e.g. `tests/test_commands_annotate.py` for Label Studio). `sample(folder)`: CLI arguments of a small valid
    run over files it makes in `folder` (the conformance checks of `lotdata.testing` run it)."""

    name: str
    params: type
    execute: Callable[["Run"], dict[str, Any]]
    outputs: Callable[[Any], list[Output]]
    inputs: Callable[[Any], Mapping[str, PathValue]] = lambda params: {}
    summary: str = ""
    arguments: tuple[str, ...] = ()
    metavars: Mapping[str, str] = field(default_factory=dict)
    refused_exit: int | None = None  # the exit code of a refusal before any work, where 1 means something else
    service: str | None = None  # the outside service a run talks to ("Label Studio"): its samples need one running
    execution: tuple[str, ...] = EXECUTION_FIELDS
    check: Callable[[Any], None] | None = None
    sample: Callable[[Path], list[str]] | None = None
    epilog: Callable[[], str] | None = None

    def fingerprint(self, params: Any) -> str:
        """What the run makes depends on (`fingerprint`): the parameters minus the execution settings, and the
        bytes of every declared input file (a folder: every file under it). A recipe step that runs this command
        is done when this fingerprint matches its marker's (`lotdata.stage.StepContext.command_step`)."""
        return fingerprint(
            self.name,
            _as_dict(params),
            [f for path in _flat(self.inputs(params)) for f in files_of(path, any_suffix=True)],
            self.execution,
        )

    def run(self, params: Any, *, hooks: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """`run_command(self, params)`: the one path (a recipe step calls it so)."""
        return run_command(self, params, hooks=hooks)


def _as_dict(params: Any) -> dict[str, Any]:
    return asdict(params) if is_dataclass(params) else dict(vars(params))


def _flat(paths: Mapping[str, PathValue]) -> list[Path]:
    found = []
    for value in paths.values():
        if value is None:
            continue
        values = [value] if isinstance(value, (str, os.PathLike)) else list(value)
        found += [Path(v) for v in values if v is not None and not str(v).startswith("lotdata:")]
    return found


def _check_record(command: Command) -> None:
    params_of(command.params)  # an unsupported annotation fails at registration


#: the commands, on the one registry kernel: built-ins are the `lotdata/<folder>/commands.py` modules (found by a
#: scan, never listed by hand), then the `lotdata.commands` entry points of installed packages
COMMAND_REGISTRY: Registry[Command] = Registry(
    "command", modules=("*/commands.py",), calls="register_command(", order=lambda c: c.name, check=_check_record
)


def register_command(command: Command) -> Command:
    """Add a command; a name another record holds is an error (the one duplicate policy)."""
    return COMMAND_REGISTRY.register(command, stacklevel=2)


def commands() -> list[Command]:
    """Every registered command, by name (the built-in ones imported on first use, then the plug-ins')."""
    return COMMAND_REGISTRY.all()


def builtin_commands() -> list[Command]:
    """The commands lotdata ships (one registered by a plug-in or a test is not one)."""
    return COMMAND_REGISTRY.builtins()


def get_command(name: str) -> Command:
    return COMMAND_REGISTRY.get(name)


# ---------------------------------------------------------------------------------------------
# one run


@dataclass
class Run:
    """What `execute` sees: the parameters, where to write each output (under its staging folder), the
    fingerprint of this run (computed when asked: it hashes every input file, which can be a corpus), and the
    caller's `hooks`: callbacks and words that change how a run reports, never what it writes (a recipe step
    passes its `command` line for manifests, its `progress` bar factory, `on_page`/`on_warning`); a command
    falls back to its own when a hook is absent."""

    command: Command
    params: Any
    staged: dict[str, Path]
    declared: dict[str, Output]
    notes: list[str] = field(default_factory=list)
    hooks: Mapping[str, Any] = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        return self.command.fingerprint(self.params)

    def checkpoint(self, label: str) -> None:
        """Publish the `update` output `label` now, as it stands in staging, under the lock still held: for a
        file that records what already happened outside (tasks imported on a server, accounts made), whose
        published copy must never lag behind the world if the run is cut short. The run goes on staging it."""
        output = self.declared[label]
        if not output.update:
            raise LotdataError(f"{output.label}: only an update output can be published before the run ends (a bug)")
        staged = self.staged[label]
        if not staged.exists():
            return
        copy = output.path.with_name(f".{output.path.name}.lotdata-checkpoint")
        try:
            _remove(copy)
            if staged.is_dir():
                shutil.copytree(staged, copy, symlinks=True)
            else:
                shutil.copy2(staged, copy)
            _swap_in(copy, output.path)
        except OSError as exc:
            raise disk_error(exc, output.path) from exc
        finally:
            if copy.exists():
                _remove(copy)

    def out(self, label: str) -> Path:
        """The path to write the output `label` to (it is published where the user named it at the end)."""
        return self.staged[label]

    def final(self, label: str) -> Path:
        """Where the output `label` is published (for messages; never write there)."""
        return self.declared[label].path


def check_params(command: Command, params: Any) -> None:
    """Every parameter against its declared type, range and choices, as a recipe's keys are checked."""
    for info in params_of(command.params):
        try:
            check_value(info, getattr(params, info.name), f"lotdata {command.name}")
        except InputError as exc:  # a recipe key is bad input (exit 3); an option on the command line exit 1
            name = info.flag if info.name not in command.arguments else info.name.upper()
            raise LotdataError(str(exc).replace(f"'{info.name}'", name, 1)) from None
    if command.check is not None:
        try:
            command.check(params)
        except ValueError as exc:
            raise LotdataError(f"lotdata {command.name}: {exc}") from None


def run_command(command: Command, params: Any, *, hooks: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Run `command` with `params` through the one path (checks, locks, staging, publication, exit codes);
    `hooks`: the caller's callbacks (`Run.hooks`)."""
    inputs: dict[str, PathValue] = {}
    declared: dict[str, Output] = {}
    roots: dict[str, Path] = {}
    working = False
    try:
        inputs = dict(command.inputs(params))
        check_params(command, params)
        outputs = command.outputs(params)
        declared = {o.label: o for o in outputs}
        check_declared(outputs, inputs)
        with ExitStack() as stack:
            for output in sorted(outputs, key=lambda o: str(real_path(o.path))):
                stack.enter_context(output_lock(output.path))
            for output in outputs:
                recover_swap(output.path)
            roots = staging_roots(outputs)
            working = True
            staged = {o.label: stage_output(o, roots[o.label]) for o in outputs}
            run = Run(command, params, staged, declared, hooks=dict(hooks or {}))
            summary = command.execute(run) or {}
            publish(outputs, staged, set(roots.values()))
            if run.notes:
                summary.setdefault("notes", []).extend(run.notes)
            return summary
    except BaseException as exc:
        written = [o.path for o in declared.values()]
        mapped = exit_error(exc, _flat(inputs), written + sorted(set(roots.values())))
        if mapped is None:
            raise
        if isinstance(mapped, DiskError):
            _published_names(mapped, roots)
        if isinstance(mapped, LotdataError):
            if not working and command.refused_exit is not None and mapped.exit_code == 1:
                mapped.exit_code = command.refused_exit
        if mapped is exc:
            raise
        raise mapped from exc


def _published_names(error: LotdataError, roots: Mapping[str, Path]) -> None:
    """A disk error that names a staged file names the file it was to become (`OUT/manifest.json`, not
    `.OUT.lotdata-next/OUT/manifest.json`). Other messages keep the staging path: there it points at what a
    failed run left to read (its quarantine)."""
    if not error.args or not isinstance(error.args[0], str):
        return
    text = error.args[0]
    for root in roots.values():
        text = text.replace(f"{root}{os.sep}", f"{root.parent}{os.sep}")
    error.args = (text, *error.args[1:])


# ---------------------------------------------------------------------------------------------
# 2. outputs against inputs, kinds and special files


def check_declared(outputs: list[Output], inputs: Mapping[str, PathValue]) -> None:
    """Refuse, before any work, an output that clashes with an input or another output, an output of another
    kind than what is there, and a device or other special file."""
    check_outputs({o.label: o.path for o in outputs}, inputs)
    for output in outputs:
        check_output_kind(output)
        check_not_inside_a_run(output)


def check_not_inside_a_run(output: Output) -> None:
    """Refuse an output inside a folder another live run is writing (a recipe's run folder holds its lock)."""
    for parent in output.path.absolute().parents:
        if not parent.name:
            break
        lock = held_elsewhere(parent)
        if lock is not None:
            raise OutputKindError(
                f"{output.label} {output.path}: lies inside {parent}, which another lotdata run is writing "
                f"({lock}); wait for it to end, or write elsewhere"
            )


def check_output_kind(output: Output) -> None:
    path = output.path
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OutputKindError(f"{output.label} {path}: cannot create it, {parent} is a file, not a folder")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise DiskError(f"{output.label} {path}: cannot write into {parent} (permission denied)")
            break
    for near in (path, lock_path_for(path), _staging_root(path)):
        if near.is_symlink() and not near.exists():
            continue
        if near.exists() and not (near.is_file() or near.is_dir()):
            raise OutputKindError(
                f"{output.label} {near}: is a {_special_kind(near)}, not a file or folder lotdata can write"
            )
    if _staging_root(path).exists() and not _staging_root(path).is_dir():
        raise OutputKindError(f"{output.label} {path}: {_staging_root(path)} exists and is a file; remove it")
    if not path.exists():
        return
    if not output.is_folder:
        _check_file_output(output)
        return
    if not path.is_dir():
        raise OutputKindError(f"{output.label} {path}: exists and is a file; {output.label} names a folder")
    if not any(path.iterdir()) or _owned(output):
        return
    held = folder_kind(path)
    what = f"a folder of kind {held!r}" if held else "a folder holding files lotdata did not write"
    if held == output.kind and output.task is not None:
        what = f"a {(_manifest(path) or {}).get('task')} {held} folder"
        raise OutputKindError(
            f"{output.label} {path}: is {what}, not a {output.task} one; this command replaces its folder whole, "
            f"so give a new or empty folder (or delete this one)"
        )
    raise OutputKindError(
        f"{output.label} {path}: is {what}, not one of kind {output.kind!r}; this command replaces its folder whole, "
        f"so give a new or empty folder (or delete this one)"
    )


def _check_file_output(output: Output) -> None:
    path = output.path
    if path.is_dir():
        raise OutputKindError(f"{output.label} {path}: is a folder; give a file name")
    holder = folder_kind(path.parent) if (path.parent / MANIFEST_NAME).is_file() else None
    if holder is not None and holder not in output.into:
        raise OutputKindError(
            f"{output.label} {path}: lies inside {path.parent}, a lotdata folder of kind {holder!r}; a file written "
            "there would not match what its manifest lists: write it elsewhere"
        )
    if path.is_file() and output.format is not None and path.stat().st_size and not _holds(path, output.format):
        raise OutputKindError(
            f"{output.label} {path}: exists and is not a {output.format} file (someone else's file?); give a new "
            "name or delete it"
        )


def _holds(path: Path, format: str) -> bool:
    """Whether an existing file looks like one of `format` ("parquet": its magic; "jsonl": a JSON first line)."""
    try:
        with path.open("rb") as handle:
            if format == "parquet":
                return handle.read(4) == b"PAR1"
            first = handle.readline(1 << 20).strip()
    except OSError:
        return False
    try:
        return isinstance(json.loads(first), (dict, list))
    except ValueError:
        return False


def _owned(output: Output) -> bool:
    if output.owned is not None:
        return output.owned(output.path)
    manifest = _manifest(output.path)
    if _kind_of(output.path, manifest) != output.kind:
        return False
    return output.task is None or (manifest or {}).get("task") in (None, output.task)


def _manifest(folder: Path) -> dict[str, Any] | None:
    """A folder's manifest.json as a mapping (None: none, or not a JSON object)."""
    try:
        data = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _special_kind(path: Path) -> str:
    mode = path.stat().st_mode
    for test, words in (
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return words
    return "special file"


def folder_kind(folder: Path) -> str | None:
    """The kind a lotdata folder says in its manifest.json (older manifests: from their task), else None."""
    return _kind_of(folder, _manifest(folder))


def _kind_of(folder: Path, manifest: dict[str, Any] | None) -> str | None:
    if manifest is None:
        return "dataset" if (folder / INCOMPLETE_MARKER).exists() else None
    return manifest_kind(manifest)


# ---------------------------------------------------------------------------------------------
# 4. staging and publication


def _staging_root(path: Path) -> Path:
    return path.with_name(f".{path.name}{STAGING_SUFFIX}")


def staging_roots(outputs: list[Output]) -> dict[str, Path]:
    """label -> the staging folder of its output: one per folder the outputs lie in, named after the first
    output there (the main one), so a side file a library makes beside the main output (`OUT.quarantine.parquet`,
    `OUT.work/`) lands in the same staging folder as the output the runner stages for it."""
    by_parent: dict[Path, Path] = {}
    roots = {}
    for output in outputs:
        parent = real_path(output.path.parent)
        by_parent.setdefault(parent, _staging_root(output.path))
        roots[output.label] = by_parent[parent]
    return roots


def stage_output(output: Output, root: Path) -> Path:
    """The staging path of one output (`root/NAME`, a stable name, so a killed run's parts are found by the next
    run), made ready: its folder exists; an `update` output starts as a copy of the published one (unless a
    killed run left its own copy to resume from)."""
    target = root / output.path.name
    try:
        root.mkdir(parents=True, exist_ok=True)
        if output.update and output.path.exists() and not target.exists():
            if output.path.is_dir():
                shutil.copytree(output.path, target, symlinks=True)
            else:
                shutil.copy2(output.path, target)
    except OSError as exc:
        raise disk_error(exc, target) from exc
    return target


def publish(outputs: list[Output], staged: Mapping[str, Path], roots: Iterable[Path]) -> None:
    """Swap every staged output in (side outputs first, the main output last), then drop the staging folders."""
    for output in sorted(outputs, key=lambda o: not o.side):
        new = staged[output.label]
        if not new.exists() and not new.is_symlink():
            if output.optional and not output.update:
                _remove(output.path)  # a stale side output of an earlier run must not survive this one
            if output.optional or output.update:
                continue
            raise LotdataError(f"{output.label} {output.path}: the command wrote nothing there (a bug in the command)")
        _swap_in(new, output.path)
    for root in roots:
        shutil.rmtree(root, ignore_errors=True)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()


def _swap_in(new: Path, path: Path) -> None:
    """Put `new` where `path` is: a file by rename; a folder by an atomic exchange (renameat2) where the
    kernel has it, else by two renames that `recover_swap` completes after a crash between them."""
    try:
        if not new.is_dir() or not path.exists():
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            os.replace(new, path)
            return
        if _exchange(new, path):
            shutil.rmtree(new, ignore_errors=True)  # `new` now holds the previous output
            return
        old = path.with_name(f".{path.name}{_OLD_SUFFIX}")
        if old.exists():
            shutil.rmtree(old)
        os.replace(path, old)
        os.replace(new, path)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        raise disk_error(exc, path) from exc


def recover_swap(path: Path) -> None:
    """A run killed between the two renames of a swap left the previous output at `.NAME.lotdata-old`: put it back."""
    old = path.with_name(f".{path.name}{_OLD_SUFFIX}")
    if old.exists():
        if not path.exists():
            os.replace(old, path)
        else:
            shutil.rmtree(old, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Exchange two paths atomically (Linux renameat2 RENAME_EXCHANGE); False where the system has no such call."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.renameat2
    except (OSError, AttributeError):
        return False
    done = call(_AT_FDCWD, os.fsencode(str(a)), _AT_FDCWD, os.fsencode(str(b)), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


# ---------------------------------------------------------------------------------------------
# 5. exceptions to exit codes


def disk_error(exc: OSError, path: Path | str | None = None) -> DiskError:
    """An OS error as a message naming the file and what happened (exit 1); the previous output is intact."""
    code = errno_of(exc)
    where = exc.filename or path
    reason = DISK_REASONS.get(code) if code is not None else None
    reason = reason or (os.strerror(code) if code else str(exc))
    return DiskError(f"{where}: {reason}; the previous output was not touched")


#: exceptions a reader raises on a malformed file (Parquet, csv, jsonl, json, TOML, text encoding)
def _malformed_types() -> tuple[type[BaseException], ...]:
    import csv
    import tomllib

    found: list[type[BaseException]] = [json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError, csv.Error]
    try:
        import pyarrow as pa

        found += [pa.ArrowInvalid, pa.ArrowTypeError]
    except ImportError:  # pragma: no cover - pyarrow is a core dependency
        pass
    return tuple(found)


def exit_error(exc: BaseException, inputs: list[Path], outputs: list[Path]) -> BaseException | None:
    """The one boundary: the error a user sees for `exc` (None or `exc` itself: let it through as it is)."""
    if isinstance(exc, LotdataError) or not isinstance(exc, Exception):
        return exc
    if isinstance(exc, OSError) and errno_of(exc) in DISK_REASONS:
        return disk_error(exc, _path_in_trace(exc, inputs + outputs))
    if isinstance(exc, _malformed_types()) or (isinstance(exc, OSError) and _mentions(exc, inputs)):
        named = _path_in_trace(exc, inputs)
        if named is not None:
            return InputError(f"cannot read it: {type(exc).__name__}: {exc}", path=str(named))
    if is_expected(exc):
        return exc
    full = _full_disk(outputs)
    if full is not None:  # a library that hides the errno (torch's zip writer, safetensors) on a full disk
        return DiskError(
            f"{full}: no space left on the device ({type(exc).__name__}: {exc}); the previous output was not touched"
        )
    return None


#: below this many free bytes, an unexpected error while writing is taken for a full disk
FULL_DISK_BYTES = 1 << 20


def _full_disk(outputs: list[Path]) -> Path | None:
    """The first output whose file system has (almost) no space left, else None."""
    for path in outputs:
        folder = next((p for p in (path, *path.parents) if p.is_dir()), None)
        if folder is None:
            continue
        try:
            if shutil.disk_usage(folder).free < FULL_DISK_BYTES:
                return path
        except OSError:
            continue
    return None


def _mentions(exc: BaseException, inputs: list[Path]) -> bool:
    text = str(exc)
    return any(str(p) in text for p in inputs)


def _path_in_trace(exc: BaseException, candidates: list[Path]) -> Path | None:
    """The file a failing frame was working on: the error's own file name, else a path-like local of the
    innermost frame that names one of `candidates` (inputs, outputs, staging folders) or a file under one, else
    a candidate named in the message."""
    if getattr(exc, "filename", None):
        return Path(exc.filename)
    resolved = [(real_path(c), c) for c in candidates]
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        found = []
        for value in list(frame.f_locals.values()):
            if not isinstance(value, (str, os.PathLike)) or (isinstance(value, str) and len(value) > 4096):
                continue
            try:
                here = real_path(value)
            except (OSError, ValueError, TypeError):
                continue
            if any(here == real or real in here.parents for real, _ in resolved):
                found.append(Path(value))
        if found:  # the file the frame was reading (a folder's manifest.json) before the folder
            return next((f for f in found if f.is_file()), found[0])
    text = str(exc)
    for real, given in resolved:
        if str(given) in text or str(real) in text:
            return given
    return None


def execution_of(params: Any) -> Any:
    """The executor settings among a command's parameters (`lotdata.exec.ExecSettings`)."""
    from lotdata.exec import ExecSettings

    return ExecSettings(**{f.name: getattr(params, f.name) for f in fields(ExecSettings) if hasattr(params, f.name)})
