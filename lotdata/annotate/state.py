"""What lotdata keeps on the pusher's side of Label Studio, never on the server a rater can browse.

A state folder (`--state-dir`, env LOTDATA_ANNOTATE_STATE, default `.lotdata-annotate/`) holds
`team.json` (the raters: name -> Label Studio account) and one JSON file per pushed project title:
the job, its per-rater projects, and per task the real `uid`, the job's `hidden` values and, for a
gold task, its known answer. Label Studio only ever sees an opaque task id (`uid` = a salted hash),
so task ids, their order and the task list's columns give nothing away.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lotdata.errors import InputError, LotdataError
from lotdata.io import write_text

STATE_ENV = "LOTDATA_ANNOTATE_STATE"
DEFAULT_STATE_DIR = Path(".lotdata-annotate")
SHARED = ""  # the rater key of a job's one shared project


def state_dir(path: str | Path | None = None) -> Path:
    return Path(path or os.environ.get(STATE_ENV) or DEFAULT_STATE_DIR)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON ({exc.msg}); it is lotdata's annotation state, restore it from a backup", path=str(path)
        ) from None


def _write_json(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", path)


# ---------------------------------------------------------------- the team


@dataclass
class Rater:
    name: str
    user_id: int
    email: str


@dataclass
class Team:
    path: Path
    url: str
    raters: dict[str, Rater] = field(default_factory=dict)

    @classmethod
    def load(cls, directory: Path, url: str, *, path: Path | None = None) -> "Team":
        """The team of the state folder `directory` (`path`: read and later save it there instead, e.g. a staged
        copy of `team.json`)."""
        path = path or directory / "team.json"
        if not path.exists():
            return cls(path, url)
        raw = _read_json(path)
        _same_server(path, raw.get("url"), url)
        return cls(path, url, {name: Rater(**r) for name, r in raw.get("raters", {}).items()})

    def save(self) -> None:
        _write_json(self.path, {"url": self.url, "raters": {n: asdict(r) for n, r in sorted(self.raters.items())}})


def _same_server(path: Path, stored: str | None, url: str) -> None:
    if stored and stored.rstrip("/") != url.rstrip("/"):
        raise LotdataError(f"{path} belongs to the Label Studio at {stored}, not {url}: use another --state-dir")


RATER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


def check_rater_name(name: str) -> str:
    if not RATER_NAME.match(name):
        raise ValueError(
            f"rater name {name!r}: use 1-40 letters, digits, '.', '_' or '-' (it becomes the login e-mail's local part)"
        )
    return name


# ---------------------------------------------------------------- one pushed job


@dataclass
class JobState:
    """A pushed project title: its job, its Label Studio projects and its tasks' secrets."""

    path: Path
    url: str
    job: str
    title: str
    raters_per_task: int
    mode: str  # "shared" (one project) or "per_rater" (one project per rater)
    salt: str
    projects: dict[str, int] = field(default_factory=dict)  # rater name (SHARED for one shared project) -> project id
    assigned: list[str] | None = (
        None  # the raters chosen at push (--assign); None: the whole team, raters added later too
    )
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)  # opaque id -> {uid, hidden, gold, task}
    lang: str = "zh"  # the language of the screens (templates) the tasks are shown in
    assignment: dict[str, list[str]] | None = (
        None  # rater -> opaque ids in the order they get them; None: all, all raters
    )
    #: `--model`/`--order` of the push that put a model's suggestion on the tasks ({model, model_version, order}); None:
    #: no suggestion (a pull of an `--order uncertainty` job reports whether the order paid, lotdata.quality.active)
    suggest: dict[str, str] | None = None

    @classmethod
    def path_for(cls, directory: Path, title: str) -> Path:
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", title).strip("-")[:40] or "project"
        return directory / "jobs" / f"{slug}-{hashlib.sha256(title.encode()).hexdigest()[:10]}.json"

    @classmethod
    def load(cls, path: Path, url: str) -> "JobState":
        """The job state in `path` (it is saved back there), which must belong to the server at `url`."""
        raw = _read_json(path)
        _same_server(path, raw.get("url"), url)
        raw.pop("path", None)
        return cls(path=path, **raw)

    @classmethod
    def find(cls, directory: Path, title: str, url: str, *, path: Path | None = None) -> "JobState | None":
        """The state of the title pushed from `directory`, or None. `path`: read (and later save) it there instead
        of its place in the folder (`annotate push` gives its staged copy)."""
        path = path or cls.path_for(directory, title)
        return cls.load(path, url) if path.exists() else None

    @classmethod
    def new(
        cls,
        directory: Path,
        url: str,
        job: str,
        title: str,
        raters_per_task: int,
        mode: str,
        *,
        lang: str = "zh",
        path: Path | None = None,
    ) -> "JobState":
        path = path or cls.path_for(directory, title)
        return cls(path, url, job, title, raters_per_task, mode, secrets.token_hex(16), lang=lang)

    def save(self) -> None:
        raw = asdict(self)
        raw.pop("path")
        if raw["suggest"] is None:  # a job state without a model reads as before
            raw.pop("suggest")
        _write_json(self.path, raw)

    def opaque_id(self, uid: str) -> str:
        """A task id that says nothing about the task (salted, so it cannot be recomputed from a guess)."""
        return "t" + hashlib.sha256(f"{self.salt}:{uid}".encode()).hexdigest()[:12]

    def add(self, task: dict[str, Any], *, gold: dict[str, Any] | None = None) -> str:
        """Keep a job task's secrets here; the task Label Studio gets carries only what a rater may see."""
        uid = str(task["data"]["uid"])
        token = self.opaque_id(uid)
        visible = {k: v for k, v in task.items() if k != "hidden"}
        visible["data"] = {**task["data"], "uid": token}
        self.tasks[token] = {"uid": uid, "hidden": task.get("hidden") or {}, "gold": gold, "task": visible}
        return token

    def visible_tasks(self) -> list[dict[str, Any]]:
        """Every task as Label Studio gets it, in the order of their opaque ids (that is, shuffled)."""
        return [self.tasks[token]["task"] for token in sorted(self.tasks)]

    def tasks_for(self, rater: str) -> list[dict[str, Any]]:
        """The tasks one rater's project gets, in the order they are imported (and listed)."""
        tokens = sorted(self.tasks) if self.assignment is None else self.assignment.get(rater, [])
        # a task meant for one rater (a refused story back to its writer) goes to that rater's project only
        return [
            self.tasks[token]["task"]
            for token in tokens
            if rater == SHARED or self.tasks[token]["hidden"].get("for_rater") in (None, rater)
        ]

    def project_title(self, rater: str) -> str:
        return self.title if rater == SHARED else f"{self.title} · {rater}"


def job_files(directory: Path) -> list[Path]:
    """The state file of every title pushed from `directory`."""
    return sorted((directory / "jobs").glob("*.json"))


def pushed_jobs(directory: Path, url: str, *, paths: Sequence[Path] | None = None) -> list[JobState]:
    """The state of every title pushed from `directory` (`paths`: read these files instead, e.g. staged copies)."""
    return [JobState.load(path, url) for path in (job_files(directory) if paths is None else paths)]
