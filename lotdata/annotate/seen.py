"""What a pull saw, kept in the state folder so the next pull can name what disappeared from the server.

Label Studio lets any account (OSS makes every account an admin) delete an annotation, and keeps no trace of it: the
task simply has one answer fewer, and a case that needed three raters becomes `too_few_ratings` with no word why.
Each pull records every annotation it read (`STATE/seen/PROJECT.json`: annotation id -> rater, task, project, when it
was first and last seen); an annotation recorded before and absent now is named at pull and in `status` (who, which
task, when it was last seen), and stays named on every later pull (it is a fact about the data, not news).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from lotdata.annotate.state import JobState, _read_json, _write_json


@dataclass(frozen=True)
class StateFile:
    """Where a run keeps a state file instead of its place in the state folder, and `on_saved(path)` after a save."""

    path: str | Path
    on_saved: Callable[[Path], None] | None = None


def seen_path(directory: Path, title: str) -> Path:
    """The file of the annotations pulls of `title` have seen."""
    return directory / "seen" / JobState.path_for(directory, title).name


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def load_seen(path: Path) -> dict[str, dict[str, Any]]:
    """Annotation id (a string) -> what was seen of it; empty when no pull ran yet."""
    return dict(_read_json(path).get("annotations") or {}) if path.exists() else {}


def _entry(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "rater": row["annotator"],
        "uid": row["uid"],
        "task_id": row["task_id"],
        "project_id": row["project_id"],
        "created_at": row.get("created_at"),
    }


def deleted(seen: dict[str, dict[str, Any]], rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The annotations seen before that the server no longer has (`rows`: every annotation read now), oldest first:
    who gave it, on which task, when it was last seen."""
    present = {str(row["annotation_id"]) for row in rows}
    gone = [
        {"annotation_id": int(key), **{k: v for k, v in entry.items() if k != "first_seen"}}
        for key, entry in seen.items()
        if key not in present
    ]
    return sorted(gone, key=lambda e: e["annotation_id"])


def remember(path: Path, rows: Iterable[dict[str, Any]], *, when: str | None = None) -> list[dict[str, Any]]:
    """Record every annotation read now in `path` and return those seen before and gone now (`deleted`)."""
    when = when or _now()
    rows = list(rows)
    seen = load_seen(path)
    gone = deleted(seen, rows)
    for row in rows:
        entry = seen.setdefault(str(row["annotation_id"]), {**_entry(row), "first_seen": when})
        entry["last_seen"] = when
    _write_json(path, {"annotations": dict(sorted(seen.items(), key=lambda kv: int(kv[0])))})
    return gone


def describe(entry: dict[str, Any]) -> str:
    """One line naming a deleted annotation."""
    return (
        f"annotation {entry['annotation_id']} by {entry['rater']} on task {entry['task_id']} (uid {entry['uid']}, "
        f"project {entry['project_id']}) is gone from the server; last seen at pull {entry.get('last_seen')}"
    )
