"""A real Label Studio server for the annotation tests (127.0.0.1, free port, tmp data dir), shared by every test
file of the session through conftest.py, and the helpers those tests use.

The first run migrates a data dir once and caches it; every session boots a copy of it (~5 s).
If Label Studio is not installed (`make labelstudio-venv`), these tests fail: they are never skipped.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.annotate import server as ls_server
from lotdata.annotate.client import connect, export_tasks, get_project
from lotdata.annotate.jobs.base import Annotation
from lotdata.annotate.state import JobState
from lotdata.cli import app

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".pytest_cache" / "lotdata-labelstudio-data"
PASSWORD = "annotator-Pw-2026"


def _migrated_data_dir() -> tuple[Path, str]:
    """A data dir migrated once (first boot ~30-45 s) and kept, with the API key it was created with.

    The pytest-xdist workers of a clean checkout all ask at once: a file lock lets one migrate while the others
    wait for it (two servers migrating one folder kill each other)."""
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    with open(CACHE.with_name(CACHE.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (CACHE / "api_key").exists() and (CACHE / "label_studio.sqlite3").exists():
            return CACHE, (CACHE / "api_key").read_text().strip()
        building = CACHE.with_name(CACHE.name + ".building")
        shutil.rmtree(building, ignore_errors=True)
        key = os.urandom(20).hex()
        ls_server.start(building, api_key=key).stop()
        (building / "api_key").write_text(key)
        shutil.rmtree(CACHE, ignore_errors=True)
        building.rename(CACHE)
        return CACHE, key


@pytest.fixture(scope="session")
def label_studio(tmp_path_factory):
    template, key = _migrated_data_dir()
    data_dir = ls_server.copy_data_dir(template, tmp_path_factory.mktemp("labelstudio") / "data")
    server = ls_server.start(data_dir, api_key=key)
    server.state_dir = data_dir.parent / "lotdata-state"  # lotdata's side of the annotation loop (hidden values, team)
    try:
        yield server
    finally:
        server.stop()


STATE_DIRS: dict[str, Path] = {}


@pytest.fixture(scope="session")
def conn(label_studio):
    STATE_DIRS[label_studio.url] = label_studio.state_dir
    return connect(label_studio.url, label_studio.api_key)


@pytest.fixture(scope="session")
def annotators(conn):
    """Three annotator accounts: name -> user id."""
    ids = {}
    for name in ("ann1", "ann2", "ann3"):
        user = conn.sdk.users.create(username=name, email=f"{name}@lotdata.test", password=PASSWORD)
        ids[name] = user.id
    return ids


@pytest.fixture(scope="session")
def stories(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("stories") / "stories.parquet"
    result = CliRunner().invoke(app, ["read", "lotdata:sample", "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def lotdata(server, *args: str, key: str | None = None, url: str | None = None):
    env = {
        "LABEL_STUDIO_URL": url or server.url,
        "LABEL_STUDIO_API_KEY": key or server.api_key,
        "COLUMNS": "200",
        "LOTDATA_ANNOTATE_STATE": str(server.state_dir),
    }
    result = CliRunner().invoke(app, list(args), env=env)
    assert server.api_key not in result.output
    return result


def tasks_by_uid(conn, title: str, state_dir: Path | None = None) -> dict[str, dict]:
    """A project's tasks by their real uid (Label Studio holds opaque ids), each with its hidden values under "hidden"."""
    tasks = export_tasks(conn, get_project(conn, title).id)
    job_state = JobState.find(state_dir or STATE_DIRS[conn.url], title.split(" · ")[0], conn.url)
    if job_state is None:
        return {t["data"]["uid"]: t for t in tasks}
    found = {}
    for task in tasks:
        secret = job_state.tasks[task["data"]["uid"]]
        found[secret["uid"]] = {
            **task,
            "data": {**task["data"], "uid": secret["uid"]},
            "hidden": secret["hidden"],
            "gold": secret["gold"],
        }
    return found


def annotate(conn, task: dict, user_id: int, result: list, *, skipped: bool = False, lead_time: float = 12.5) -> None:
    conn.sdk.annotations.create(
        id=task["id"], result=result, completed_by=user_id, lead_time=lead_time, was_cancelled=skipped
    )


def annotation(task: dict, rater: str, values: dict, n: int = 1) -> Annotation:
    """An answer to `task` as a pull reads it (values already parsed), without a server: the n-th, at second n."""
    return Annotation(
        uid=task["data"]["uid"],
        data=task["data"],
        annotator=rater,
        annotation_id=n,
        created_at=f"2026-01-01T00:00:{n:02d}",
        values=values,
        hidden=task["hidden"],
    )


def choice(name, to, values):
    return {"from_name": name, "to_name": to, "type": "choices", "value": {"choices": values}}


def text(name, to, value):
    return {"from_name": name, "to_name": to, "type": "textarea", "value": {"text": [value]}}


def read_rows(path: Path) -> list[dict]:
    return pq.read_table(path).to_pylist()


class RaterWeb:
    """A rater logged in through the server's own login form (as in a browser): what they send is theirs, so Label
    Studio records them as `completed_by` (a new answer) and `updated_by` (any answer they change)."""

    def __init__(self, url: str, email: str, password: str):
        import httpx

        self.url = url
        self.web = httpx.Client(timeout=60, follow_redirects=False)
        login = f"{url}/user/login/"
        self.web.get(login)
        answer = self.web.post(
            login,
            data={"email": email, "password": password, "csrfmiddlewaretoken": self._csrf()},
            headers={"Referer": login},
        )
        assert answer.status_code in (302, 303), f"{email} could not log in: HTTP {answer.status_code}"

    def _csrf(self) -> str:
        return self.web.cookies.get("csrftoken") or ""

    def _send(self, method: str, path: str, body: dict) -> dict:
        answer = self.web.request(
            method, f"{self.url}{path}", json=body, headers={"X-CSRFToken": self._csrf(), "Referer": f"{self.url}/"}
        )
        assert answer.status_code in (200, 201), f"{method} {path}: HTTP {answer.status_code} {answer.text[:300]}"
        return answer.json()

    def annotate(self, task_id: int, result: list, *, skipped: bool = False, lead_time: float = 12.5) -> dict:
        return self._send(
            "POST",
            f"/api/tasks/{task_id}/annotations/",
            {"result": result, "was_cancelled": skipped, "lead_time": lead_time},
        )

    def update(self, annotation_id: int, result: list) -> dict:
        return self._send("PATCH", f"/api/annotations/{annotation_id}/", {"result": result})
