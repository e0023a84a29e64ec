"""Shared pieces of the command line, importable by every stage's CLI module without a cycle."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Iterator

import typer
from rich.console import Console
from rich.table import Table

from typer.core import TyperGroup

from lotdata.errors import BUG_EXIT_CODE, LotdataError, bug_report, is_expected
from lotdata.progress import console, progress  # noqa: F401  (the library's console and bars, shared)

out_console = Console()

#: the executor options of every sharded stage (`lotdata.exec`), one wording everywhere
EXECUTOR_OPTION = typer.Option("local", "--executor", help="local (process pool) or ray.")
RAY_ADDRESS_OPTION = typer.Option(None, "--ray-address", help="Ray cluster to join (with --executor ray; default: start Ray locally).")


def warn(message: str) -> None:
    console.print("[bold yellow]warning:[/] ", end="")
    console.print(message, markup=False, highlight=False)


@contextmanager
def errors() -> Iterator[None]:
    """Turn lotdata's own errors into a one-line message and a stable exit code."""
    try:
        yield
    except LotdataError as exc:
        _error(exc)
        raise typer.Exit(exc.exit_code)
    except (ValueError, OSError) as exc:
        if not is_expected(exc):  # not one lotdata raised on purpose: a bug, shown as one (exit 70)
            raise
        _error(exc)  # a checked parameter, a path that cannot be written
        raise typer.Exit(1)


def report_bug(exc: BaseException) -> int:
    """Print an unexpected exception as a bug (message, "this is a bug", a short trace); the exit code."""
    console.print("[bold red]error:[/] ", end="")
    console.print(bug_report(exc), markup=False, highlight=False)
    return BUG_EXIT_CODE


class BugCatchingGroup(TyperGroup):
    """The top-level command group: an exception no command handled is a bug, exit 70 with a short trace."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Exception as exc:
            if type(exc).__module__.split(".")[0] in ("typer", "click"):  # Exit, Abort, usage errors: theirs to handle
                raise
            if is_expected(exc):  # raised outside an errors() block but still one of lotdata's messages
                _error(exc)
                ctx.exit(getattr(exc, "exit_code", 1))
            ctx.exit(report_bug(exc))


def _error(exc: Exception) -> None:
    console.print("[bold red]error:[/] ", end="")
    console.print(str(exc), markup=False, highlight=False)


def summary_table(title: str, rows: dict) -> Table:
    table = Table(title=title, show_header=False)
    for key, value in rows.items():
        table.add_row(str(key), json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value))
    return table
