"""Conformance checks of a command that writes (a `lotdata.command.Command` record), shipped with lotdata so a
plug-in in another package runs the same checks in its own CI (as scikit-learn's `check_estimator` does for
estimators); `lotdata.testing` re-exports them.

    from lotdata.testing import check_command
    check_command(MY_COMMAND, tmp_path)   # raises AssertionError naming the broken guarantee

Each check starts from the record's own `sample(folder)` (CLI arguments of a small valid run) and asserts one
guarantee of the runner (`lotdata.command.run_command`): an output equal to, inside or around an input is
refused before any work and the input is untouched; an existing folder or file of another kind, or a device, is
refused; a failure in the final writes leaves the previous output byte-identical; a second writer is refused;
a killed run resumes to the same output; execution settings are not part of the fingerprint; every declared
range is enforced. No check needs typer: the sample's arguments are parsed here from the record.
"""

from __future__ import annotations

import errno
import json
import os
import re
import socket
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

from lotdata.command import Command, Output, run_command
from lotdata.errors import LotdataError
from lotdata.io import lock_path_for, sha256_file
from lotdata.stage import ParamInfo, params_of

# ---------------------------------------------------------------------------------------------
# the sample's arguments as parameters


def parse_args(command: Command, args: list[str]) -> dict[str, Any]:
    """CLI arguments (as `sample` gives them) -> the parameter values, read from the record as the CLI reads them."""
    infos = [p for p in params_of(command.params) if p.cli]
    by_flag = {p.flag: p for p in infos}
    by_flag.update({"--no-" + p.flag[2:]: p for p in infos if p.kind == "bool"})
    values: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        info = by_flag.get(arg)
        if info is None:
            positional.append(arg)
        elif info.kind == "bool":
            values[info.name] = not arg.startswith("--no-")
        else:
            i += 1
            value = _typed(info, args[i])
            if info.kind == "list":
                values.setdefault(info.name, []).append(value)
            else:
                values[info.name] = value
        i += 1
    arguments = [p for name in command.arguments for p in infos if p.name == name]
    for info in arguments:
        if not positional:
            break
        if info.kind == "list":
            values[info.name], positional = positional, []
        else:
            values[info.name] = positional.pop(0)
    if positional:
        raise AssertionError(f"{command.name}: sample arguments not understood: {positional}")
    return values


def _typed(info: ParamInfo, text: str) -> Any:
    return {"int": int, "num": float}.get(info.kind, str)(text)


def sample_params(command: Command, folder: Path) -> Any:
    if command.sample is None:
        raise AssertionError(f"command {command.name!r} has no sample: the conformance checks need one")
    folder.mkdir(parents=True, exist_ok=True)
    return command.params(**parse_args(command, command.sample(folder)))


# ---------------------------------------------------------------------------------------------
# what is on disk


_VOLATILE_KEY = re.compile(
    r"([Cc]reated|started|finished|fetched|updated)(_at)?$|seconds|elapsed|_per_s|duration|pid|resumed|timing|mtime"
)
_NUMBER = re.compile(r"\d+(\.\d+)?")


def _normalised_json(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _normalised_json(v) for k, v in value.items() if not _VOLATILE_KEY.search(str(k))}
    if isinstance(value, list):
        return [_normalised_json(v) for v in value]
    return value


def content(path: Path) -> Any:
    """What a file holds, with run-to-run noise (timestamps, timings, resumed counts) left out: Parquet as its
    rows, JSON without volatile keys, other text (a rendered report) with its numbers masked."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    if path.suffix in (".pt", ".bin") and "torch" in sys.modules:
        return _normalised_json(_plain(sys.modules["torch"].load(path, map_location="cpu", weights_only=False)))
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            return _normalised_json(json.loads(data))
        except ValueError:
            pass
    try:
        return _NUMBER.sub("#", data.decode("utf-8"))
    except UnicodeDecodeError:
        return sha256_file(path)


def _plain(value: Any) -> Any:
    """A checkpoint's content as plain values (tensors as lists), so two saves of the same state compare equal."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value if isinstance(value, (str, int, float, bool, type(None))) else repr(value)


def digest(paths: list[Path]) -> dict[str, str | None]:
    """sha256 of every file under each path (None: the path does not exist): for 'byte-identical' checks."""
    found: dict[str, str | None] = {}
    for path in paths:
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                if f.is_file():
                    found[str(f)] = sha256_file(f)
        elif path.is_file():
            found[str(path)] = sha256_file(path)
        else:
            found[str(path)] = None
    return found


def contents(paths: list[Path], root: Path) -> dict[str, Any]:
    """Every output file's content (`content`), by its path under `root`, with `root` itself written as <root>
    (a manifest names its inputs by path)."""
    found: dict[str, Any] = {}
    for path in paths:
        files = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
        for f in files:
            if f.exists():
                found[str(f.relative_to(root))] = _unrooted(content(f), str(root))
    return found


def _unrooted(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(root, "<root>")
    if isinstance(value, dict):
        return {k: _unrooted(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_unrooted(v, root) for v in value]
    return value


# ---------------------------------------------------------------------------------------------
# the checks


def _outputs(command: Command, params: Any) -> list[Output]:
    return command.outputs(params)


def _input_paths(command: Command, params: Any) -> list[Path]:
    found = []
    for value in command.inputs(params).values():
        values = [] if value is None else [value] if isinstance(value, (str, os.PathLike)) else list(value)
        found += [Path(v) for v in values if v is not None and not str(v).startswith("lotdata:")]
    return [p for p in found if p.exists()]


def _param_of_output(command: Command, output: Output) -> ParamInfo | None:
    """The parameter that names an output (its label is the parameter's flag), or None for a derived side output."""
    return next((p for p in params_of(command.params) if p.flag == output.label and p.kind == "str"), None)


def _refused(command: Command, params: Any, what: str, untouched: list[Path]) -> None:
    before = digest(untouched)
    try:
        run_command(command, params)
    except LotdataError as exc:
        expected = command.refused_exit or 1
        if exc.exit_code != expected:
            raise AssertionError(
                f"{command.name}: {what}: refused with exit {exc.exit_code}, expected {expected}: {exc}"
            )
    else:
        raise AssertionError(f"{command.name}: {what}: the run was not refused")
    after = digest(untouched)
    if after != before:
        raise AssertionError(f"{command.name}: {what}: refused, but these changed: {_changed(before, after)}")


def _must_run(command: Command, params: Any) -> dict[str, Any]:
    """A run that must succeed; its failure is the check's failure, naming the command."""
    try:
        return run_command(command, params)
    except LotdataError as exc:
        raise AssertionError(f"{command.name}: a valid run failed (exit {exc.exit_code}): {exc}") from exc


def _changed(before: dict, after: dict) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def check_sample_runs(command: Command, folder: Path) -> None:
    """The sample runs; every output that is not optional is there; no staging folder or lock is left."""
    params = sample_params(command, folder)
    _must_run(command, params)
    for output in _outputs(command, params):
        if not output.optional and not output.path.exists():
            raise AssertionError(f"{command.name}: {output.label} {output.path} was not written")
        if lock_path_for(output.path).exists():
            raise AssertionError(f"{command.name}: the lock {lock_path_for(output.path)} was left behind")
    left = sorted(str(p) for p in folder.rglob("*.lotdata-next"))
    if left:
        raise AssertionError(f"{command.name}: staging folders left after a run that succeeded: {left}")


def check_outputs_never_touch_inputs(command: Command, folder: Path) -> None:
    """Each output named as an input, inside one, or around one is refused before any work, inputs untouched."""
    params = sample_params(command, folder)
    inputs = _input_paths(command, params)
    if not inputs:
        return
    for output in _outputs(command, params):
        info = _param_of_output(command, output)
        if info is None:
            continue
        for given in inputs:
            for where, value in (
                ("is an input", given),
                ("inside an input", given / "x"),
                ("around an input", given.parent),
            ):
                _refused(command, replace(params, **{info.name: str(value)}), f"{output.label} {where}", inputs)


def check_other_kinds_refused(command: Command, folder: Path) -> None:
    """An output naming a folder of another kind (or a file where a folder goes, a folder where a file goes), a
    folder holding foreign files, or a device is refused, and what is there is untouched."""
    params = sample_params(command, folder)
    for output in _outputs(command, params):
        info = _param_of_output(command, output)
        if info is None:
            continue
        other = folder / f"other-{info.name}"
        other.mkdir()
        if output.is_folder:
            (other / "manifest.json").write_text(json.dumps({"kind": "not-" + output.kind, "task": "x"}))
            (other / "data.txt").write_text("someone's data\n")
            cases = [("a folder of another kind", other)]
            foreign = folder / f"foreign-{info.name}"
            foreign.mkdir()
            (foreign / "notes.txt").write_text("not lotdata's\n")
            cases.append(("a folder holding foreign files", foreign))
            plain = folder / f"file-{info.name}.txt"
            plain.write_text("a file\n")
            cases.append(("a file where a folder goes", plain))
        else:
            (other / "keep.txt").write_text("keep\n")
            cases = [("a folder where a file goes", other)]
        if Path("/dev/null").exists():
            cases.append(("a device", Path("/dev/null")))
        for what, value in cases:
            untouched = [value] if value != Path("/dev/null") else []
            _refused(command, replace(params, **{info.name: str(value)}), f"{output.label} {what}", untouched)


def _failing(command: Command, exc: BaseException, scribble: bool) -> Command:
    """The command with a failure at the very end of its work (everything written, nothing published yet)."""

    def execute(run):
        command.execute(run)
        if scribble:  # the failure hits while the last file is being replaced
            for label, path in run.staged.items():
                if path.is_file():
                    path.write_bytes(b"half")
        raise exc

    return replace(command, execute=execute)


def check_failure_keeps_previous_output(command: Command, folder: Path) -> None:
    """A run that runs out of disk in its final writes exits 1 naming the file, and the previous good output is
    byte-identical; so is one interrupted there (a kill)."""
    params = sample_params(command, folder)
    _must_run(command, params)
    outputs = [o.path for o in _outputs(command, params)]
    before = digest(outputs)
    first = outputs[0]
    disk_full = OSError(errno.ENOSPC, "No space left on device", str(first))
    try:
        run_command(_failing(command, disk_full, scribble=True), params)
    except LotdataError as exc:
        if exc.exit_code != 1 or str(first) not in str(exc):
            raise AssertionError(
                f"{command.name}: a full disk gave exit {exc.exit_code} and {exc!s}, expected exit 1 naming {first}"
            )
    else:
        raise AssertionError(f"{command.name}: the injected disk-full error was swallowed")
    if digest(outputs) != before:
        raise AssertionError(
            f"{command.name}: a failed run changed the previous output: {_changed(before, digest(outputs))}"
        )
    try:
        run_command(_failing(command, KeyboardInterrupt(), scribble=False), params)
    except KeyboardInterrupt:
        pass
    if digest(outputs) != before:
        raise AssertionError(f"{command.name}: an interrupted run changed the previous output")
    with _disk_full_at_first_write():
        try:
            run_command(command, params)
        except LotdataError:
            pass
    if digest(outputs) != before:
        raise AssertionError(
            f"{command.name}: a run whose first write failed changed the previous output: "
            f"{_changed(before, digest(outputs))}"
        )


@contextmanager
def _disk_full_at_first_write() -> Iterator[None]:
    """Every file opened for writing from Python fails as on a full disk (reads still work)."""
    import builtins
    import io

    real_open = builtins.open

    def full_open(file, mode="r", *args, **kwargs):
        if not isinstance(file, int) and any(flag in mode for flag in "wax+"):
            raise OSError(errno.ENOSPC, "No space left on device", str(file))
        return real_open(file, mode, *args, **kwargs)

    builtins.open, io.open = full_open, full_open
    try:
        yield
    finally:
        builtins.open, io.open = real_open, real_open


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def check_second_writer_refused(command: Command, folder: Path) -> None:
    """While another live process holds an output's lock, the run is refused (exit 1) and nothing changes; a lock
    left by a dead process is taken over."""
    params = sample_params(command, folder)
    outputs = _outputs(command, params)
    lock = lock_path_for(outputs[0].path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = json.dumps({"pid": 1 if os.getpid() != 1 else os.getppid(), "host": socket.gethostname()})
    lock.write_text(holder)
    watched = [o.path for o in outputs] + [lock]
    _refused(command, params, "a second writer", watched)
    lock.write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname()}))
    _must_run(command, params)  # the dead run's lock is stale: taken over


def check_kill_and_resume(command: Command, folder: Path) -> None:
    """A run killed before it published (its staging folder and a dead process's lock left behind), then run again,
    gives the same output as a run that was never interrupted (in the same folder, so paths are alike)."""
    import shutil

    clean = sample_params(command, folder)
    _must_run(command, clean)
    expected = contents([o.path for o in _outputs(command, clean) if o.path.exists()], folder)
    shutil.rmtree(folder)
    params = sample_params(command, folder)
    try:
        run_command(_failing(command, KeyboardInterrupt(), scribble=False), params)
    except KeyboardInterrupt:
        pass
    outputs = _outputs(command, params)
    lock_path_for(outputs[0].path).write_text(json.dumps({"pid": _dead_pid(), "host": socket.gethostname()}))
    _must_run(command, params)
    got = contents([o.path for o in outputs if o.path.exists()], folder)
    if got != expected:
        differ = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
        raise AssertionError(f"{command.name}: the resumed run differs from an uninterrupted one in {differ}")


def check_execution_settings_not_fingerprinted(command: Command, folder: Path) -> None:
    """Changing only how a command runs (workers, executor address) does not change its fingerprint."""
    params = sample_params(command, folder)
    own = {p.name for p in params_of(command.params)}
    if "workers" not in own:
        return
    if command.fingerprint(params) != command.fingerprint(replace(params, workers=params.workers + 1)):
        raise AssertionError(f"{command.name}: changing --workers changes the fingerprint")
    changes = _substantive(command, params)
    if changes and command.fingerprint(replace(params, **changes)) == command.fingerprint(params):
        raise AssertionError(f"{command.name}: changing a parameter does not change the fingerprint")


def _substantive(command: Command, params: Any) -> dict[str, Any]:
    """One parameter that is not an execution setting, changed (an int or a bool), for the reverse check."""
    for info in params_of(command.params):
        if info.name in command.execution or info.choices is not None:
            continue
        value = getattr(params, info.name)
        if info.kind == "int" and isinstance(value, int):
            return {info.name: value + 1}
        if info.kind == "bool":
            return {info.name: not value}
    return {}


_OUT_OF_RANGE: dict[str, list[Any]] = {">0": [0, -1], ">=0": [-1], "share": [0, 1.5]}


def check_ranges_enforced(command: Command, folder: Path) -> None:
    """Every parameter's declared range and choices are enforced before any work (exit 1), as the recipe does."""
    params = sample_params(command, folder)
    outputs = [o.path for o in _outputs(command, params)]
    before = digest(outputs)  # none yet, or what the sample made (a crawl folder to resume from)
    for info in params_of(command.params):
        bad = list(_OUT_OF_RANGE.get(info.check or "", []))
        if info.choices is not None and not callable(info.choices) and info.kind == "str":
            bad.append("no-such-choice")
        for value in bad:
            if info.kind == "int" and isinstance(value, float):
                continue
            try:
                changed = replace(params, **{info.name: value})
            except (LotdataError, ValueError) as exc:  # refused as the parameters are made (they check themselves)
                code = getattr(exc, "exit_code", 1)  # a ValueError raised on purpose is exit 1 on the command line
                assert code in (1, command.refused_exit), f"{command.name}: {info.flag} {value!r}: exit {code}"
                continue
            _refused(command, changed, f"{info.flag} {value!r}", outputs)
        if digest(outputs) != before:
            raise AssertionError(f"{command.name}: a refused parameter still wrote {outputs}")


#: every check, in the order `check_command` runs them
CHECKS: tuple[Callable[[Command, Path], None], ...] = (
    check_sample_runs,
    check_outputs_never_touch_inputs,
    check_other_kinds_refused,
    check_ranges_enforced,
    check_execution_settings_not_fingerprinted,
    check_second_writer_refused,
    check_failure_keeps_previous_output,
    check_kill_and_resume,
)


def check_command(command: Command, folder: Path) -> None:
    """Run every check on `command`, each in a folder of its own under `folder` (AssertionError on the first broken)."""
    for check in CHECKS:
        check(command, Path(folder) / check.__name__)
