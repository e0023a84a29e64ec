"""Errors that the CLI turns into clear messages and stable exit codes."""

from __future__ import annotations

import errno as errno_
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


class LotdataError(Exception):
    """Base class: a problem the user can fix. The CLI prints it without a traceback."""

    exit_code = 1


class ParameterError(LotdataError, ValueError):
    """A bad parameter (exit 1). A ValueError too, so code that catches ValueError keeps working."""

    exit_code = 1


#: the exit code of an unexpected exception: a bug in lotdata, reported with a short trace (sysexits EX_SOFTWARE)
BUG_EXIT_CODE = 70


class InputError(LotdataError):
    """Bad input data: names the file and, where known, the row or line."""

    exit_code = 3

    def __init__(self, message: str, *, path: str | None = None, row: int | None = None) -> None:
        self.path = path
        self.row = row
        where = ""
        if path is not None:
            where = f"{path}"
            if row is not None:
                where += f", row {row}"
            where += ": "
        super().__init__(f"{where}{message}")


class DiskError(LotdataError):
    """The environment refused a read or write (disk full, read-only, permission): exit 1 naming the file."""

    exit_code = 1


class MissingFileError(LotdataError):
    """A file or folder named on the command line does not exist (exit 1: not bad data, a wrong path)."""

    exit_code = 1

    def __init__(self, message: str, *, path: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}")


def must_exist(path: "str | os.PathLike[str]", what: str = "file", *, hint: str = "") -> Path:
    """The one place that decides a named path is missing: exit 1 "not found", naming the path.

    `what` says what was expected ("file", "folder", "recipe input", "run folder", ...); a folder
    given where a file is expected (or the reverse) is reported as such, also exit 1.
    """
    path = Path(path)
    if not path.exists():
        raise MissingFileError(f"{what} not found{hint}", path=str(path))
    if what.endswith("folder") and not path.is_dir():
        raise MissingFileError(f"is a file, expected a {what}{hint}", path=str(path))
    if what.endswith("file") and path.is_dir():
        raise MissingFileError(f"is a folder, expected a {what}{hint}", path=str(path))
    return path


class MissingExtraError(LotdataError):
    """An optional dependency is missing; the message gives the exact install command."""

    exit_code = 4

    def __init__(self, package: str, extra: str, *, broken: BaseException | None = None) -> None:
        command = install_command(extra)
        if broken is None:
            message = f"this step needs the optional package '{package}': {command}"
        else:  # installed, but importing it fails (a missing dependency of its own, a half-upgraded install)
            message = (
                f"the optional package '{package}' is installed but cannot be imported "
                f"({type(broken).__name__}: {broken}); reinstall it: {command} --force-reinstall"
            )
        super().__init__(message)


def install_command(extra: str) -> str:
    """The pip command that installs an extra: from the source checkout lotdata runs from, if it is one
    (`pip install -e '/path/to/checkout[extra]'`), else from PyPI."""
    checkout = Path(__file__).resolve().parent.parent
    if (checkout / "pyproject.toml").is_file() and (checkout / "lotdata" / "__init__.py").is_file():
        return f"pip install -e '{checkout}[{extra}]'"
    return f"pip install 'lotdata[{extra}]'"


def require_all(needs: "tuple[tuple[str, str], ...]") -> None:
    """Check a step's optional modules, (module, extra) pairs, before it does any work (exit 4 naming the first)."""
    for module, extra in needs:
        require(module, extra)


def require(module: str, extra: str):
    """Import an optional module or fail at once with the install command (exit 4): a module that is not
    installed, or one that is but fails to import (then the message says so and shows why)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        missing = isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == module.split(".")[0]
        raise MissingExtraError(module.split(".")[0], extra, broken=None if missing else exc) from exc


_PACKAGE_DIR = Path(__file__).resolve().parent
#: OSErrors of the environment, not of lotdata's code: permissions, a full or read-only disk, a too long name
_ENVIRONMENT_ERRNOS = {
    errno_.EACCES,
    errno_.EPERM,
    errno_.ENOSPC,
    errno_.EROFS,
    errno_.EDQUOT,
    errno_.ENAMETOOLONG,
    errno_.EMFILE,
    errno_.ENFILE,
}


def _raise_site(exc: BaseException) -> tuple[Path, int] | None:
    tb = exc.__traceback__
    if tb is None:
        return None
    while tb.tb_next is not None:
        tb = tb.tb_next
    return Path(tb.tb_frame.f_code.co_filename).resolve(), tb.tb_lineno


def raised_on_purpose(exc: BaseException) -> bool:
    """True when lotdata's own code raised `exc` with a `raise` statement (a checked parameter, a message it
    wrote), False when it came out of a library, the standard library or a builtin (an unforeseen case: a bug)."""
    import linecache

    site = _raise_site(exc)
    if site is None or _PACKAGE_DIR not in site[0].parents:
        return False
    return linecache.getline(str(site[0]), site[1]).lstrip().startswith("raise ")


def is_expected(exc: BaseException) -> bool:
    """An error the CLI reports as a plain message (exit 1/3/4); anything else is a bug (exit 70, with a trace)."""
    if isinstance(exc, LotdataError):
        return True
    if isinstance(exc, OSError) and exc.errno in _ENVIRONMENT_ERRNOS:
        return True
    return isinstance(exc, (ValueError, OSError)) and raised_on_purpose(exc)


def bug_report(exc: BaseException, frames: int = 6) -> str:
    """The message, the words "this is a bug" and the last `frames` frames of the trace."""
    import traceback

    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-frames))
    return (
        f"{type(exc).__name__}: {exc}\nthis is a bug in lotdata, not a problem with your input or parameters; "
        f"please report it with this trace:\n{trace.rstrip()}"
    )


@contextmanager
def checkpoint_load(folder: "str | os.PathLike[str]") -> Iterator[None]:
    """Loading a third-party checkpoint: what its files make the loader raise is bad input (exit 3) naming the
    folder, not a crash (a truncated or foreign weights file raises the loader's own error types)."""
    try:
        yield
    except LotdataError:
        raise
    except (OSError, ValueError, RuntimeError, KeyError) as exc:
        raise InputError(f"cannot load the checkpoint: {type(exc).__name__}: {exc}", path=str(folder)) from exc
    except Exception as exc:
        if "safetensor" not in type(exc).__module__.lower() and "safetensor" not in type(exc).__name__.lower():
            raise
        raise InputError(f"cannot load the checkpoint: {exc}", path=str(folder)) from exc
