"""Shared pieces of the command line, importable by every stage's CLI module without a cycle."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Iterator

import typer
from rich.console import Console
from rich.table import Table

from lotdata.errors import LotdataError
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
    except (ValueError, OSError) as exc:  # a bad parameter, a path that cannot be written
        _error(exc)
        raise typer.Exit(1)


def _error(exc: Exception) -> None:
    console.print("[bold red]error:[/] ", end="")
    console.print(str(exc), markup=False, highlight=False)


def summary_table(title: str, rows: dict) -> Table:
    table = Table(title=title, show_header=False)
    for key, value in rows.items():
        table.add_row(str(key), json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value))
    return table
