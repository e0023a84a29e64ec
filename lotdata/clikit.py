"""Shared pieces of the command line, importable by every stage's CLI module without a cycle."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Iterator

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from lotdata.errors import LotdataError

console = Console(stderr=True)
out_console = Console()


@contextmanager
def errors() -> Iterator[None]:
    """Turn lotdata's own errors into a one-line message and a stable exit code."""
    try:
        yield
    except LotdataError as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(exc.exit_code)
    except (ValueError, FileNotFoundError) as exc:
        console.print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(1)


def progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def summary_table(title: str, rows: dict) -> Table:
    table = Table(title=title, show_header=False)
    for key, value in rows.items():
        table.add_row(str(key), json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value))
    return table
