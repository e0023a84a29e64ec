"""The team of raters and how their work stands: `lotdata annotate raters add` (its record is `ANNOTATE_RATERS_ADD`
in `lotdata.annotate.commands`), `raters list` and `status`.

Adding a rater creates a Label Studio account, registers it in the state folder's `team.json`, and gives the rater a
project of their own of every job pushed per rater. Each state file is handed to `on_saved` right after it is saved
(the command publishes it at once: it records accounts and projects that already exist on the server).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from lotdata.annotate.client import Connection
from lotdata.annotate.pull import crowd_status, gather, versions_seen
from lotdata.annotate.push import push_to_rater
from lotdata.annotate.state import JobState, Team, pushed_jobs, state_dir


def add_raters(
    conn: Connection,
    names: Sequence[str],
    *,
    state: str | Path | None = None,
    password: Callable[[], str] | None = None,
    team_file: str | Path | None = None,
    job_files: Sequence[Path] | None = None,
    on_saved: Callable[[Path], None] | None = None,
) -> list[dict[str, Any]]:
    """Create a Label Studio account per new rater, register it in the team, and give it its own project of every
    job pushed per rater. Returns per rater how to log in (a new account's password is in it, once, and nowhere else).

    `team_file` and `job_files`: where the team and the pushed jobs' files are read and saved instead of the state
    folder (the command gives their staged copies); `on_saved(path)` is called after each save."""
    directory = state_dir(state)
    team = Team.load(directory, conn.url, path=Path(team_file) if team_file is not None else None)
    report = _accounts(conn, team, names, password)
    team.save()
    if on_saved is not None:
        on_saved(team.path)
    for job_state in pushed_jobs(directory, conn.url, paths=job_files):
        if job_state.mode != "per_rater" or job_state.assigned is not None:
            continue
        _give_projects(conn, job_state, report)
        job_state.save()
        if on_saved is not None:
            on_saved(job_state.path)
    return report


def _accounts(
    conn: Connection, team: Team, names: Sequence[str], password: Callable[[], str] | None
) -> list[dict[str, Any]]:
    """Each named rater in `team`: found there, an existing account of the server, or a new account."""
    import secrets as _secrets

    from lotdata.annotate.client import create_account
    from lotdata.annotate.state import Rater, check_rater_name

    existing = {u.email: u for u in conn.call(conn.sdk.users.list)}
    report = []
    for name in dict.fromkeys(check_rater_name(n) for n in names):
        entry: dict[str, Any] = {"rater": name, "login": f"{conn.url}/user/login"}
        if name in team.raters:
            entry.update(email=team.raters[name].email, account="already in the team")
        else:
            email = f"{name}@raters.lotdata.local"
            user = existing.get(email)
            if user is None:
                secret = (password or (lambda: _secrets.token_urlsafe(12)))()
                user = create_account(conn, email, secret)
                entry.update(email=email, password=secret, account="created")
            else:
                entry.update(email=email, account="existing account (password unchanged)")
            team.raters[name] = Rater(name=name, user_id=user.id, email=email)
        report.append(entry)
    return report


def _give_projects(conn: Connection, job_state: JobState, report: list[dict[str, Any]]) -> None:
    """Every rater of `report` gets a project of their own of a job pushed per rater (its task list in the report)."""
    for entry in report:
        if entry["rater"] not in job_state.projects:
            push_to_rater(conn, job_state, entry["rater"])
        project_id = job_state.projects[entry["rater"]]
        entry.setdefault("projects", {})[job_state.project_title(entry["rater"])] = (
            f"{conn.url}/projects/{project_id}/data"
        )


def status(conn: Connection, title: str, *, state: str | Path | None = None) -> dict[str, Any]:
    """Progress of a pushed title: per rater's project (or the shared one) tasks, done, skipped, quarantined; per
    annotator; and what waits for review (or for a rater's revision)."""
    job_name, job_state, projects, found = gather(conn, None, title, state=state)
    missing: dict[str, int] = {}
    for entry in found.missing:
        missing[entry["project"]] = missing.get(entry["project"], 0) + 1
    per_project = {}
    for rater, project_id in sorted(projects.items()):
        counts = found.per_project.get(project_id, {"tasks": 0, "done": 0, "skipped": 0, "quarantined": 0})
        per_project[rater or title] = {
            **counts,
            "missing": missing.get(job_state.project_title(rater), 0),
            "url": f"{conn.url}/projects/{project_id}/data",
        }
    annotators: dict[str, dict[str, int]] = {}  # a rater's duplicate answers are among her quarantined ones
    for row, kind in [(r, "skipped" if r["was_cancelled"] else "done") for r in found.rows] + [
        (r, "quarantined") for r in found.quarantined_rows
    ]:
        entry = annotators.setdefault(row["annotator"], {"annotations": 0, "done": 0, "skipped": 0, "quarantined": 0})
        entry["annotations"] += 1
        entry[kind] += 1
    return {
        "project": title,
        "job": job_name,
        "mode": job_state.mode,
        "raters_per_task": job_state.raters_per_task,
        "tasks": sum(c["tasks"] for c in found.per_project.values()) // max(len(projects), 1),
        "not_by_the_rater": len(found.not_by_the_rater),
        "missing_tasks": len(found.missing),
        **crowd_status(job_name, title, found, state),
        **(versions_seen(job_name, job_state, found) or {}),
        **_waiting(conn, job_name, job_state, found, state_dir(state)),
        **_qualification(state_dir(state), job_name, conn.url),
        "projects": per_project,
        "annotators": dict(sorted(annotators.items())),
    }


def _waiting(conn: Connection, job_name: str, job_state: JobState, found: Any, directory: Path) -> dict[str, int]:
    """What waits for review or for a rater's revision (`lotdata.annotate.jobs.review.waiting`)."""
    from lotdata.annotate.jobs.review import waiting

    return waiting(conn, job_name, job_state, found.valid, directory)


def _qualification(directory: Path, job_name: str, url: str) -> dict[str, Any]:
    """Where each rater stands with the job's quiz (a rater who failed is told here why the work did not come)."""
    from lotdata.annotate.qualify import Gate

    gate = Gate.find(directory, job_name, url)
    return {"qualification": {name: gate.describe(name) for name in sorted(gate.raters)}} if gate else {}


def list_raters(url: str, *, state: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The team: per rater the login e-mail and their own projects (title -> task list URL). No server call."""
    directory = state_dir(state)
    team = Team.load(directory, url)
    jobs = pushed_jobs(directory, url)
    return {
        name: {
            "email": rater.email,
            "projects": {
                job.project_title(name): f"{url}/projects/{job.projects[name]}/data"
                for job in jobs
                if name in job.projects
            },
        }
        for name, rater in sorted(team.raters.items())
    }
