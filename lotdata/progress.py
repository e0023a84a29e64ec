"""Progress bars and the stderr console the library shares with the CLI (rich only, no CLI code)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

# soft_wrap: a long error message runs on one line instead of being cut at the terminal width
console = Console(stderr=True, soft_wrap=True)


def progress() -> Progress:
    """A transient bar (done/total, elapsed) on stderr, silent when stderr is not a terminal."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
