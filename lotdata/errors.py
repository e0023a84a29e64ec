"""Errors that the CLI turns into clear messages and stable exit codes."""

from __future__ import annotations


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
