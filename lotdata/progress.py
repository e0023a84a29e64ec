"""Progress bars and the stderr console the library shares with the CLI (rich only, no CLI code)."""

from __future__ import annotations

import os
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

# soft_wrap: a long error message runs on one line instead of being cut at the terminal width
console = Console(stderr=True, soft_wrap=True)


#: seconds between two progress lines in a log (stderr not a terminal); LOTDATA_LOG_EVERY overrides
LOG_EVERY_SECONDS = 30.0


class LoggingProgress(Progress):
    """A rich Progress that, when stderr is no terminal (a log, a CI job, `nohup`), prints a plain line per task
    at most every LOG_EVERY_SECONDS and when the task completes, instead of showing nothing at all."""

    def __init__(self, *columns: Any, log: bool = True, **kwargs: Any) -> None:
        super().__init__(*columns, **kwargs)
        self._log_lines = log  # False: a caller that asked for silence
        self._logged: dict[TaskID, float] = {}
        self._log_every = float(os.environ.get("LOTDATA_LOG_EVERY") or LOG_EVERY_SECONDS)

    def add_task(self, description: str, *args: Any, **kwargs: Any) -> TaskID:
        task_id = super().add_task(description, *args, **kwargs)
        self._logged[task_id] = time.monotonic()
        return task_id

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._log(task_id)

    def update(self, task_id: TaskID, **kwargs: Any) -> None:
        super().update(task_id, **kwargs)
        self._log(task_id)

    def _log(self, task_id: TaskID) -> None:
        if not self.disable or not self._log_lines or task_id not in self._logged:
            return
        task = self._tasks[task_id]
        finished = task.total is not None and task.completed >= task.total
        now = time.monotonic()
        if not finished and now - self._logged[task_id] < self._log_every:
            return
        self._logged.pop(task_id) if finished else self._logged.__setitem__(task_id, now)
        share = f" ({100 * task.completed / task.total:.0f}%)" if task.total else ""
        of = f"/{task.total:.0f}" if task.total else ""
        console.print(
            f"[{time.strftime('%H:%M:%S')}] {task.description}: {task.completed:.0f}{of}{share}, "
            f"{task.elapsed or 0:.0f} s",
            markup=False,
            highlight=False,
        )


def progress() -> Progress:
    """A transient bar (done/total, elapsed) on stderr; without a terminal, a plain line now and then."""
    return LoggingProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
