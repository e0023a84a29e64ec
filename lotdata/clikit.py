"""Shared pieces of the command line, importable by every stage's CLI module without a cycle."""

from __future__ import annotations

import inspect
import json
from contextlib import contextmanager
from typing import Any, Callable, Iterator, List, Optional

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from lotdata.errors import BUG_EXIT_CODE, LotdataError, bug_report, is_expected
from lotdata.progress import console, progress  # noqa: F401  (the library's console and bars, shared)

out_console = Console()


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
            if isinstance(exc, BrokenPipeError):  # `lotdata ... | head`: the reader went away, nothing to report
                ctx.exit(0)
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
        table.add_row(
            str(key), json.dumps(value, ensure_ascii=False) if isinstance(value, (dict, list)) else str(value)
        )
    return table


def _option_type(info: Any) -> Any:
    # a "str|list" parameter is a comma-separated string on the command line (--statuses accepted,rewritten)
    base = {"str": str, "int": int, "num": float, "bool": bool, "list": List[str], "str|list": str}[info.kind]
    return Optional[base] if info.default is None else base


def _option(info: Any) -> Any:
    """A typer option from a stage parameter: its flag, default and help, read from the record."""
    flag = info.flag
    if info.kind == "bool" and "/" not in flag and info.default is True:
        flag = f"{flag}/--no-{flag[2:]}"
    default = (
        ... if info.required else (list(info.default) if isinstance(info.default, (list, tuple)) else info.default)
    )
    return typer.Option(default, flag, help=info.help)


def command_of(record: Any, render: Callable[[dict, Any], None] | None = None) -> Callable[..., Any]:
    """The typer command of a `lotdata.command.Command` record: an option per parameter (the record's flag,
    default and help; `record.arguments` positional), run through `lotdata.command.run_command` (the one
    path: checks, locks, staging, publication, exit codes), then `render(summary, params)` or a summary table."""
    from lotdata.command import run_command
    from lotdata.stage import params_of

    infos = [p for p in params_of(record.params) if p.cli]
    infos = [p for name in record.arguments for p in infos if p.name == name] + [
        p for p in infos if p.name not in record.arguments
    ]
    parameters, annotations = [], {}
    for info in infos:
        if info.name in record.arguments:
            default = typer.Argument(
                ... if info.required else info.default,
                help=info.help,
                metavar=record.metavars.get(info.name, info.name.upper()),
            )
        else:
            default = _option(info)
        annotation = _option_type(info)
        parameters.append(
            inspect.Parameter(info.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )
        annotations[info.name] = annotation

    def command(**kwargs: Any) -> None:
        with errors():
            params = record.params(**{k: (list(v) if isinstance(v, tuple) else v) for k, v in kwargs.items()})
            summary = run_command(record, params)
        if render is not None:
            render(summary, params)
        else:
            out_console.print(summary_table(f"lotdata {record.name}", summary))

    command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    command.__annotations__ = annotations
    command.__doc__ = record.summary
    command.__name__ = record.name.replace(" ", "_").replace("-", "_") + "_cmd"
    return command
