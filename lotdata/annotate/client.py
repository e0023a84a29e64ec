"""The Label Studio client layer: connection, projects, idempotent push, paginated or exported pull.

It knows no job: it moves task dicts in and task dicts (with their annotations) out, through
label-studio-sdk only. Connection settings come from LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY;
the key never appears in a message.
"""

from __future__ import annotations

import json
import os
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

from lotdata.errors import LotdataError, require

URL_ENV = "LABEL_STUDIO_URL"
KEY_ENV = "LABEL_STUDIO_API_KEY"
UID = "uid"


class LabelStudioError(LotdataError):
    """Label Studio cannot be reached, refused the key, or answered with an error."""


class ServerUnavailable(LabelStudioError):
    pass


class AuthenticationFailed(LabelStudioError):
    pass


class ProjectNotFound(LabelStudioError):
    pass


@dataclass
class Connection:
    url: str
    sdk: Any  # label_studio_sdk.LabelStudio
    retries: int = 3

    def call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Call the SDK; retry transient failures (5xx, timeouts, dropped connections) with backoff."""
        httpx = require("httpx", "labelstudio")
        api_error = require("label_studio_sdk.core.api_error", "labelstudio").ApiError
        for attempt in range(self.retries + 1):
            try:
                with self.translated():
                    return fn(*args, **kwargs)
            except ServerUnavailable:
                raise
            except LabelStudioError as exc:
                cause = exc.__cause__
                transient = isinstance(cause, (httpx.TimeoutException, httpx.RemoteProtocolError, httpx.ReadError)) or (
                    isinstance(cause, api_error) and (cause.status_code or 0) >= 500
                )
                if not transient or attempt == self.retries:
                    raise
                time.sleep(min(0.5 * 2**attempt, 5))

    @contextmanager
    def translated(self) -> Iterator[None]:
        """SDK and transport errors as lotdata errors with a message a user can act on."""
        httpx = require("httpx", "labelstudio")
        api_error = require("label_studio_sdk.core.api_error", "labelstudio").ApiError
        try:
            yield
        except httpx.ConnectError as exc:
            raise ServerUnavailable(
                f"cannot reach Label Studio at {self.url} (is it running? `make labelstudio` starts one)"
            ) from exc
        except httpx.HTTPError as exc:
            raise LabelStudioError(f"Label Studio at {self.url}: {type(exc).__name__}: {exc}") from exc
        except api_error as exc:
            if exc.status_code in (401, 403):
                raise AuthenticationFailed(
                    f"Label Studio at {self.url} refused the API key (HTTP {exc.status_code}): check {KEY_ENV}"
                ) from exc
            body = exc.body if isinstance(exc.body, dict) else {"detail": exc.body}
            detail = " ".join(str(body.get(k)) for k in ("detail", "validation_errors") if body.get(k))
            raise LabelStudioError(
                f"Label Studio at {self.url} answered HTTP {exc.status_code}: {str(detail)[:300]}"
            ) from exc


#: tasks per import request (`annotate push --batch-size`, a recipe's `[annotate] batch_size`)
IMPORT_BATCH_SIZE = 2000


def connect(
    url: str | None = None, api_key: str | None = None, *, timeout: float = 300, retries: int = 3
) -> Connection:
    """A checked connection (the key is tried once, so a wrong one fails here with a clear message)."""
    sdk = require("label_studio_sdk", "labelstudio")
    url = (url or os.environ.get(URL_ENV) or "").rstrip("/")
    api_key = api_key or os.environ.get(KEY_ENV)
    if not url:
        raise LabelStudioError(f"no Label Studio URL: set {URL_ENV} (e.g. http://127.0.0.1:8080)")
    if not api_key:
        raise LabelStudioError(f"no Label Studio API key: set {KEY_ENV}")
    conn = Connection(url=url, sdk=sdk.LabelStudio(base_url=url, api_key=api_key, timeout=timeout), retries=retries)
    conn.call(conn.sdk.users.whoami)
    return conn


# ---------------------------------------------------------------- projects


def find_project(conn: Connection, title: str) -> Any | None:
    """The project with exactly this title (the API's title filter matches substrings)."""
    matches = [
        p for p in conn.call(lambda: list(conn.sdk.projects.list(title=title, page_size=100))) if p.title == title
    ]
    return min(matches, key=lambda p: p.id) if matches else None


def get_project(conn: Connection, title: str) -> Any:
    project = find_project(conn, title)
    if project is None:
        raise ProjectNotFound(f"no project titled {title!r} on {conn.url}")
    return project


def ensure_project(
    conn: Connection, title: str, label_config: str, *, raters: int, description: str = ""
) -> tuple[Any, bool]:
    """Find the project by title or create it; keep its labeling config and raters per task up to date."""
    settings = dict(
        label_config=label_config,
        maximum_annotations=raters,
        overlap_cohort_percentage=100,
        show_skip_button=True,
        description=description,
    )
    project = find_project(conn, title)
    if project is None:
        return conn.call(conn.sdk.projects.create, title=title, **settings), True
    if (
        project.label_config != label_config
        or project.maximum_annotations != raters
        or (project.description or "") != description
    ):
        project = conn.call(conn.sdk.projects.update, project.id, **settings)
    return project, False


def task_list_title(lang: str) -> str:
    """The task list's tab name in the screen's language."""
    return {"zh": "任务", "en": "Tasks"}.get(lang, "Tasks")


def hidden_columns(tasks: Sequence[dict[str, Any]]) -> list[str]:
    """The task list's columns a rater does not need: every data field (internal names such as `uid`, `numbered`,
    `gap_choices`; the task itself is read on its own screen) and the raw results and predictions."""
    fields = sorted({key for task in tasks for key in task["data"]})
    return [f"tasks:data.{key}" for key in fields] + [f"tasks:{c}" for c in INTERNAL_COLUMNS]


#: Label Studio's own task-list columns that show raw JSON or model names
INTERNAL_COLUMNS = (
    "annotations_results",
    "annotations_ids",
    "predictions_results",
    "predictions_score",
    "predictions_model_versions",
    "file_upload",
    "storage_filename",
    "inner_id",
)


def ensure_task_list_view(conn: Connection, project_id: int, title: str, hidden: Sequence[str]) -> Any:
    """The project's task list (the data manager's first tab, which every account sees) named `title` and without the
    `hidden` columns (ids like `tasks:data.uid`), in the table and beside an open task alike."""
    data = {"title": title, "hiddenColumns": {"explore": list(hidden), "labeling": list(hidden)}}
    views = sorted(conn.call(conn.sdk.views.list, project=project_id), key=lambda v: v.id)
    if not views:
        return conn.call(conn.sdk.views.create, project=project_id, data=data)
    first = views[0]
    if (first.data or {}).get("title") != title or (first.data or {}).get("hiddenColumns") != data["hiddenColumns"]:
        return conn.call(conn.sdk.views.update, str(first.id), project=project_id, data={**(first.data or {}), **data})
    return first


# ---------------------------------------------------------------- tasks in


def push_tasks(
    conn: Connection,
    project_id: int,
    tasks: Sequence[dict[str, Any]],
    *,
    batch_size: int = IMPORT_BATCH_SIZE,
    progress: Callable[[int], None] | None = None,
) -> dict[str, int]:
    """Import tasks whose `uid` is not in the project yet, in batches (Label Studio itself does not deduplicate)."""
    uids = [t["data"][UID] for t in tasks]
    if len(set(uids)) != len(uids):
        raise LotdataError(f"{len(uids) - len(set(uids))} tasks share a uid; every task needs its own")
    present = task_uids(conn, project_id)
    new = [t for t in tasks if t["data"][UID] not in present]
    imported = 0
    for start in range(0, len(new), batch_size):
        batch = new[start : start + batch_size]
        response = conn.call(conn.sdk.projects.import_tasks, project_id, request=batch)
        imported += response.task_count or 0
        if progress:
            progress(len(batch))
    return {"tasks": len(tasks), "already_there": len(tasks) - len(new), "imported": imported}


# ---------------------------------------------------------------- tasks out


def export_tasks(conn: Connection, project_id: int, *, all_tasks: bool = True) -> list[dict[str, Any]]:
    """Every task with its annotations in one request (the export endpoint: fast for large projects)."""

    def download() -> bytes:
        return b"".join(
            conn.sdk.projects.exports.download_sync(project_id, export_type="JSON", download_all_tasks=all_tasks)
        )

    raw = conn.call(download)
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LabelStudioError(f"Label Studio at {conn.url} sent an export that is not JSON ({exc.msg})") from exc


def task_uids(conn: Connection, project_id: int, *, page_size: int = 5000) -> set[str]:
    """The uids already in a project: only id and data are asked for (about 7x faster than an export)."""
    uids: set[str] = set()
    for page in iter_task_pages(conn, project_id, page_size=page_size, fields="task_only", include="id,data"):
        uids.update(str(t["data"][UID]) for t in page if (t.get("data") or {}).get(UID) is not None)
    return uids


def iter_task_pages(
    conn: Connection, project_id: int, *, page_size: int = 500, fields: str = "all", include: str | None = None
) -> Iterator[list[dict[str, Any]]]:
    """Tasks with their annotations, one page at a time; stops at the server's total (asking past it is a 404)."""
    page, seen = 1, 0
    while True:
        pager = conn.call(
            conn.sdk.tasks.list, project=project_id, page=page, page_size=page_size, fields=fields, include=include
        )
        items = [task.model_dump(mode="json", exclude_unset=True) for task in pager.items or []]
        if not items:
            return
        yield items
        seen += len(items)
        total = getattr(pager.response, "total", None)
        if len(items) < page_size or (total is not None and seen >= total):
            return
        page += 1


def user_names(conn: Connection) -> dict[int, str]:
    """Annotator ids -> e-mail (or username) for readable per-annotator statistics."""
    users = conn.call(conn.sdk.users.list)
    return {u.id: (u.email or u.username or str(u.id)) for u in users}


# ---------------------------------------------------------------- accounts


def create_account(conn: Connection, email: str, password: str) -> Any:
    """A Label Studio account a rater can log in with, in the server's organization.

    The SDK's user API cannot set a password, so this signs the rater up through the server's own sign-up form with
    the organization's invite token (what the invite link does in a browser). Returns the SDK's user.
    """
    httpx = require("httpx", "labelstudio")
    invite = conn.call(conn.sdk.organizations.invites.get_invite_link)
    signup = f"{conn.url}/user/signup/?token={invite.token}"
    with conn.translated(), httpx.Client(timeout=60, follow_redirects=False) as web:
        form = web.get(signup)
        csrf = web.cookies.get("csrftoken")
        answer = web.post(
            signup,
            data={"email": email, "password": password, "csrfmiddlewaretoken": csrf or ""},
            headers={"Referer": signup},
        )
    if answer.status_code not in (302, 303) or form.status_code != 200:
        problem = re.findall(r'<ul class="field_errors">\s*<li>([^<]{1,200})</li>', answer.text)
        raise LabelStudioError(
            f"Label Studio at {conn.url} did not create the account {email} (HTTP {answer.status_code})"
            + (f": {'; '.join(p.strip() for p in problem)}" if problem else "")
        )
    users = [u for u in conn.call(conn.sdk.users.list) if (u.email or "").lower() == email.lower()]
    if not users:
        raise LabelStudioError(f"Label Studio at {conn.url} signed up {email} but does not list the account")
    return users[0]
