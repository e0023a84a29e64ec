"""Errors that the CLI turns into clear messages and stable exit codes."""

from __future__ import annotations

import os
from pathlib import Path


class LotdataError(Exception):
    """Base class: a problem the user can fix. The CLI prints it without a traceback."""

    exit_code = 1


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
        raise MissingFileError(f"is a file, expected a {what}", path=str(path))
    if what.endswith("file") and path.is_dir():
        raise MissingFileError(f"is a folder, expected a {what}", path=str(path))
    return path


class MissingExtraError(LotdataError):
    """An optional dependency is missing; the message gives the exact install command."""

    exit_code = 4

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(
            f"this step needs the optional package '{package}': pip install 'lotdata[{extra}]'"
        )


def require(module: str, extra: str):
    """Import an optional module or fail at once with the install command."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingExtraError(module.split(".")[0], extra) from exc
