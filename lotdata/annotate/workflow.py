"""Push a job's rows to Label Studio and pull its annotations back into lotdata tables.

Push keeps what raters must not see (hidden values, gold answers) in the state folder and gives Label Studio
opaque task ids; multi-rater jobs get one project per rater. Pull merges them and writes, each file atomically:
`annotations.parquet` (valid and skipped annotations), `quarantine.parquet` (annotations that do not fit their
template or job, with the reason and a link to the task), `gold.json` (each rater's accuracy on gold tasks),
`agreement.json` (majority vote, Fleiss' kappa per question, per-annotator statistics), the assembled dataset(s)
and, last, `pull.json`. A pull that is killed leaves the previous files whole; re-running it rebuilds
everything from the server, so nothing is lost.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from lotdata.annotate.agreement import annotator_stats, question_agreement
from lotdata.annotate.assign import extend_assignment, raters_with_two_versions
from lotdata.annotate.client import (
    UID,
    Connection,
    ensure_project,
    ensure_task_list_view,
    export_tasks,
    find_project,
    get_project,
    hidden_columns,
    iter_task_pages,
    push_tasks,
    task_list_title,
    user_names,
)
from lotdata.annotate.jobs import (
    HUMAN_PERF_FILE,
    Annotation,
    InvalidResult,
    Output,
    all_jobs,
    get_job,
    sample_rows,
    table12_markdown,
)
from lotdata.annotate.state import SHARED, JobState, Team, state_dir
from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.io import iter_jsonl, write_parquet, write_text
from lotdata.schema import ANNOTATIONS, QUARANTINE, SPLITS, table_from_rows

__all__ = ["HUMAN_PERF_FILE", "table12_markdown"]  # kept importable from here


def job_load_options(job_name: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The `annotate push` options given (not None) that job `job_name`'s loader takes; ValueError naming the jobs
    that take an option this one does not."""
    job = get_job(job_name)
    options = {k: v for k, v in (given or {}).items() if v is not None}
    for name in sorted(set(options) - set(job.load_options)):
        takers = ", ".join(j.name for j in all_jobs() if name in j.load_options) or "no job"
        raise ValueError(f"--{name.replace('_', '-')} applies to {takers}, not {job_name}")
    return options


def push(
    conn: Connection,
    job_name: str,
    input_path: str | Path,
    title: str,
    *,
    splits: Sequence[str] | None = None,
    raters: int | None = None,
    limit: int | None = None,
    batch_size: int = 2000,
    progress: Callable[[int], None] | None = None,
    gold: str | Path | None = None,
    state: str | Path | None = None,
    assign: Sequence[str] | None = None,
    sample: int | None = None,
    seed: int = 0,
    lang: str | None = None,
    slots: int | None = None,
    load_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Import the rows a project does not have yet (matched by uid), with their hidden values kept in the state folder.

    A job with several raters per task gets one project per rater of the team (`annotate raters add`), so no rater
    can open another's answers; without a team it falls back to one shared project (`mode: shared`).
    `sample` draws that many inputs (human_eval) or examples (human_perf; default 100) seeded by `seed`; the seed
    also orders human_eval's outputs. Each task's hidden values also keep the push's `source` (for the cards).
    `lang` picks the screens' language (the job's default when None; a project keeps the language of its first push).
    `slots`: a writing job (`JobSpec.slots`) pushes that many empty slots to write in, without an input.
    """
    job = get_job(job_name)
    lang = job.pick_lang(lang)
    raters = raters or job.raters
    started = time.perf_counter()
    if slots is not None and job.slots is None:
        raise ValueError(
            f"--n applies to writing jobs ({', '.join(j.name for j in all_jobs() if j.slots)}), not {job_name}"
        )
    if input_path is None and slots is None:
        raise ValueError(f"{job_name} needs --input" + (" or --n N" if job.slots else ""))
    unknown_splits = sorted(set(splits or ()) - set(SPLITS))
    if unknown_splits:
        raise LotdataError(f"--split {', '.join(unknown_splits)}: not a split; splits: {', '.join(SPLITS)}")
    options = job_load_options(job_name, load_options)
    rows = (
        job.slots(slots) if input_path is None else job.load(Path(input_path), splits or job.default_splits, **options)
    )
    if not rows:  # an empty project would be pushed, and pulled back as an empty dataset
        which = (
            f" of split(s) {', '.join(splits or job.default_splits or ())}" if (splits or job.default_splits) else ""
        )
        raise InputError(f"no row{which} to push for {job_name}; nothing was sent to the server", path=str(input_path))
    sample = sample if sample is not None else job.default_sample
    if sample is not None:
        if job.sample_key is None:
            samplable = [j.name for j in all_jobs() if j.sample_key is not None]
            names = ", ".join(samplable[:-1]) + " and " + samplable[-1] if len(samplable) > 1 else samplable[0]
            raise ValueError(f"--sample applies to {names}, not {job_name}")
        rows = sample_rows(rows, sample, seed, job.sample_key, job.sample_per)
    if limit is not None:  # whole inputs where a task shows several rows (human_eval's three outputs)
        rows = _first_groups(rows, limit, job.sample_key) if job.sample_key else rows[:limit]
    tasks = job.to_tasks(rows, seed=seed, lang=lang)
    source = source_info(
        job_name,
        Path(input_path) if input_path is not None else Path(f"--n {slots}"),
        title,
        splits=splits,
        raters=raters,
        sample=sample,
        seed=seed,
        limit=limit,
        lang=None if lang == job.lang else lang,
    )
    directory = state_dir(state)
    team = Team.load(directory, conn.url)
    job_state = JobState.find(directory, title, conn.url)
    unknown = sorted(set(assign or ()) - set(team.raters))
    if unknown:
        raise LotdataError(
            f"--assign names {unknown}, not in the team ({', '.join(sorted(team.raters)) or 'none yet'}): "
            "add them with `lotdata annotate raters add`"
        )
    is_new = job_state is None
    qualified = qualified_raters(directory, job_name, conn.url, assign)
    if job_state is None:
        mode = "per_rater" if (raters > 1 and team.raters) or qualified is not None else "shared"
        job_state = JobState.new(directory, conn.url, job_name, title, raters, mode, lang=lang)
        job_state.assigned = qualified if qualified is not None else sorted(set(assign)) if assign else None
        pushed_elsewhere = [t for t in _target_titles(job_state, team) if find_project(conn, t) is not None]
        if pushed_elsewhere:  # its tasks carry uids this state does not know: pushing would import every row twice
            raise LotdataError(
                f"project {pushed_elsewhere[0]!r} exists but {directory} has no state for it (pushed by an older "
                "lotdata or with another --state-dir): pass that --state-dir or push under a new --project"
            )
    elif job_state.job != job_name:
        raise LotdataError(f"project {title!r} holds job {job_state.job}, not {job_name}; pick another --project")
    elif job_state.lang != lang:
        raise LotdataError(
            f"project {title!r} shows its tasks in {job_state.lang!r}, not {lang!r}; push with --lang "
            f"{job_state.lang} or under another --project"
        )
    elif qualified is not None:  # raters who passed the quiz since the last push get the job too
        job_state.assigned = sorted(set(job_state.assigned or []) | set(qualified))
    elif assign and sorted(set(assign)) != (job_state.assigned or sorted(team.raters)):
        job_state.assigned = sorted(set(job_state.assigned or []) | set(assign))
    raters_there = len(job_state.assigned) if job_state.assigned is not None else len(team.raters)
    if job_state.mode == "per_rater" and raters_there < raters:
        raise LotdataError(
            f"{job_name} asks for {raters} raters per task but {raters_there} are assigned: "
            "add raters with `lotdata annotate raters add NAME...`, --assign more, or push with --raters fewer"
        )
    job_state.raters_per_task = raters
    for task in tasks:
        task["data"]["raters"] = raters
        task["hidden"] = {**(task.get("hidden") or {}), "source": source}
        job_state.add(task)
    for task, answer in load_gold(gold, tasks) if gold else []:
        task["data"]["raters"] = raters
        job_state.add(task, gold=answer)
    if job_state.mode == "per_rater":
        _address_to_writers(job_state, team)
    targets = _targets(job_state, team)
    if job.case_key is not None and (is_new or job_state.assignment is not None):
        job_state.assignment = extend_assignment(
            job_state.assignment or {},
            _versions(job, job_state),
            targets,
            raters if job_state.mode == "per_rater" else 1,
            seed=job_state.salt,
        )
    counts = {"tasks": 0, "already_there": 0, "imported": 0}
    job_state.save()  # before any import: a push cut short and run again finds the same opaque ids
    for rater in targets:
        pushed = push_to_rater(conn, job_state, rater, batch_size=batch_size, progress=progress)
        counts = {k: counts[k] + pushed[k] for k in counts}
        job_state.save()
    seconds = time.perf_counter() - started
    return {
        "job": job_name,
        "project": title,
        "mode": job_state.mode,
        "projects": {r or title: job_state.projects[r] for r in targets},
        "raters": raters,
        "gold": sum(t["gold"] is not None for t in job_state.tasks.values()),
        **counts,
        **({"sample": sample, "seed": seed} if sample is not None else {}),
        "state": str(job_state.path),
        "seconds": round(seconds, 3),
    }


def _address_to_writers(job_state: JobState, team: Team) -> None:
    """A task whose hidden values name its writer (a story sent back for revision) goes to that rater of the team only."""
    by_email = {rater.email: name for name, rater in team.raters.items()}
    for entry in job_state.tasks.values():
        writer = entry["hidden"].get("writer")
        if writer and "for_rater" not in entry["hidden"]:
            found = by_email.get(writer) or (writer if writer in team.raters else None)
            if found:
                entry["hidden"]["for_rater"] = found


def qualified_raters(directory: Path, job_name: str, url: str, assign: Sequence[str] | None) -> list[str] | None:
    """With a qualification gate for the job (`annotate qualify`): the raters who passed its quiz (of `assign`, when
    given); None without a gate. A gated job with nobody qualified, or an --assign of someone who did not pass, stops."""
    from lotdata.annotate.qualify import Gate

    gate = Gate.find(directory, job_name, url)
    if gate is None:
        return None
    passed = gate.qualified()
    not_passed = sorted(set(assign or ()) - set(passed))
    if not_passed:
        raise LotdataError(
            f"--assign {not_passed[0]!r}: {gate.describe(not_passed[0])} (the {job_name} quiz gates this job)"
        )
    chosen = sorted(set(assign)) if assign else passed
    if not chosen:
        raise LotdataError(
            f"no rater has passed the {job_name} quiz yet: `lotdata annotate qualify {job_name} --quiz FILE` "
            "sends and scores it"
        )
    return chosen


def _first_groups(rows: list[dict[str, Any]], n: int, key: Callable[[dict[str, Any]], str]) -> list[dict[str, Any]]:
    """The rows of the first `n` groups (by `key`), in input order."""
    chosen = list(dict.fromkeys(key(r) for r in rows))[:n]
    return [r for r in rows if key(r) in set(chosen)]


def source_info(job_name: str, path: Path, title: str, **options: Any) -> dict[str, Any]:
    """What a card needs of the pushed input: its path, licences and the push command that rebuilds the tasks."""
    licenses: set[str] = set()
    if path.is_dir() and (path / "manifest.json").exists():
        licenses.update(json.loads((path / "manifest.json").read_text(encoding="utf-8")).get("licenses") or [])
    elif path.suffix == ".parquet":
        import pyarrow.parquet as pq

        if "license" in pq.read_schema(path).names:
            licenses.update(v for v in pq.read_table(path, columns=["license"]).column("license").to_pylist() if v)
    args = ["lotdata", "annotate", "push", job_name, "--input", str(path), "--project", title]
    if options.get("splits"):
        args += ["--split", ",".join(options["splits"])]
    args += ["--raters", str(options["raters"])]
    if options.get("sample") is not None:
        args += ["--sample", str(options["sample"]), "--seed", str(options["seed"])]
    elif options.get("seed"):
        args += ["--seed", str(options["seed"])]
    if options.get("limit") is not None:
        args += ["--limit", str(options["limit"])]
    if options.get("lang"):
        args += ["--lang", options["lang"]]
    return {"input": str(path), "licenses": sorted(licenses), "push_command": shlex.join(args)}


def _targets(job_state: JobState, team: Team) -> list[str]:
    if job_state.mode != "per_rater":
        return [SHARED]
    return sorted(job_state.assigned) if job_state.assigned is not None else sorted(team.raters)


def _target_titles(job_state: JobState, team: Team) -> list[str]:
    return [job_state.project_title(r) for r in _targets(job_state, team)]


def push_to_rater(
    conn: Connection,
    job_state: JobState,
    rater: str,
    *,
    batch_size: int = 2000,
    progress: Callable[[int], None] | None = None,
) -> dict[str, int]:
    """Create (or find) one rater's project of a pushed job and import the tasks it lacks."""
    title = job_state.project_title(rater)
    per_task = 1 if rater != SHARED else job_state.raters_per_task
    job = get_job(job_state.job)
    template = job.template_for(job_state.lang).xml
    project, _ = ensure_project(conn, title, template, raters=per_task, description=job.description(job_state.lang))
    job_state.projects[rater] = project.id
    ensure_task_list_view(conn, project.id, task_list_title(job_state.lang), hidden_columns(job_state.visible_tasks()))
    return push_tasks(conn, project.id, job_state.tasks_for(rater), batch_size=batch_size, progress=progress)


def _versions(job: Any, job_state: JobState) -> list[tuple[str, str | None]]:
    """(opaque id, case id) of every task; a gold task belongs to no case (every rater gets it)."""
    return [
        (token, None if entry["gold"] is not None else job.case_key(entry["hidden"]))
        for token, entry in sorted(job_state.tasks.items())
    ]


def load_gold(path: str | Path, tasks: Sequence[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Known-answer tasks: JSON lines `{"data": {...}, "answer": {question: value}}` (optional "hidden", "predictions").

    `data` has the job's task fields (no others: a column only gold tasks have would mark them); `answer` names the
    job's questions (those agreement is measured on, e.g. `rating`, `decision`, `gaps`) and their right values.
    """
    path = must_exist(path, "gold file")
    allowed = set().union(*(t["data"] for t in tasks)) if tasks else None
    found = []
    for n, item in iter_jsonl(path):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("data"), dict)
            or not isinstance(item.get("answer"), dict)
            or not item["answer"]
        ):
            raise InputError(
                'a gold line is {"data": {...task fields...}, "answer": {"question": value}}', path=str(path), row=n
            )
        data = dict(item["data"])
        extra = sorted(set(data) - allowed - {"uid"}) if allowed is not None else []
        if extra:
            raise InputError(
                f"fields {extra} are not in this job's tasks (they would mark the gold tasks)", path=str(path), row=n
            )
        data.setdefault(
            "uid",
            "gold-" + hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16],
        )
        data["uid"] = str(data["uid"])
        task = {"data": data, "hidden": item.get("hidden") or {}}
        if item.get("predictions"):
            task["predictions"] = item["predictions"]
        found.append((task, {str(k): v for k, v in item["answer"].items()}))
    if not found:
        raise InputError("no gold task in the file", path=str(path))
    return found


def fetch_tasks(
    conn: Connection,
    project_id: int,
    *,
    page_size: int | None = None,
    on_page: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """All tasks with annotations: by the export endpoint, or page by page when `page_size` is given."""
    if not page_size:
        return export_tasks(conn, project_id)
    tasks: list[dict[str, Any]] = []
    for number, page in enumerate(iter_task_pages(conn, project_id, page_size=page_size), 1):
        tasks.extend(page)
        if on_page:
            on_page(number, len(page))
    return tasks


@dataclass
class Collected:
    """A pull's annotations sorted out: records of every valid or skipped one, quarantine rows, validated answers."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    quarantine: list[dict[str, Any]] = field(default_factory=list)
    valid: list[Annotation] = field(default_factory=list)
    gold: list[tuple[Annotation, dict[str, Any]]] = field(
        default_factory=list
    )  # validated answers on gold tasks, their key
    quarantined_rows: list[dict[str, Any]] = field(
        default_factory=list
    )  # records of the quarantined ones (statistics only)
    per_project: dict[int, dict[str, int]] = field(
        default_factory=dict
    )  # project id -> tasks, done, skipped, quarantined
    not_by_the_rater: list[dict[str, Any]] = field(default_factory=list)  # answers made or changed by another account
    missing: list[dict[str, Any]] = field(default_factory=list)  # pushed tasks the server no longer has


def task_url(base: str, project_id: int, task_id: int) -> str:
    """The page of one task in its project (Label Studio opens the task beside the task list)."""
    return f"{base}/projects/{project_id}/data?task={task_id}"


def collect(
    job_name: str,
    tasks: list[dict[str, Any]],
    names: dict[int, str],
    where: str,
    job_state: JobState | None = None,
    project_id: int = 0,
    into: Collected | None = None,
    owner: int | None = None,
) -> Collected:
    """Annotation rows, quarantine rows and validated annotations from exported tasks.

    `where` is the server's URL; with `job_state`, the opaque task ids are mapped back to their uid and hidden values.
    `owner`: the user whose own project this is; an answer in it created or last changed by anyone else (another
    rater, an admin account) is quarantined, naming both: it would count twice, or count someone's answer as the rater's.
    """
    job = get_job(job_name)
    found = into or Collected()
    counts = found.per_project.setdefault(project_id, {"tasks": 0, "done": 0, "skipped": 0, "quarantined": 0})
    for task in sorted(tasks, key=lambda t: t["id"]):
        data = dict(task.get("data") or {})
        secret = job_state.tasks.get(str(data.get(UID))) if job_state else None
        if secret:
            data[UID] = secret["uid"]
        hidden = (secret or {}).get("hidden") or {}
        counts["tasks"] += 1
        for ann in sorted(task.get("annotations") or [], key=lambda a: a["id"]):
            who, changed_by = _user_id(ann.get("completed_by")), _user_id(ann.get("updated_by"))
            row = {
                "uid": data.get(UID),
                "task_id": task["id"],
                "annotation_id": ann["id"],
                "annotator": names.get(who, str(who)),
                "result": json.dumps(ann.get("result"), ensure_ascii=False),
                "lead_time": ann.get("lead_time"),
                "created_at": ann.get("created_at"),
                "updated_at": ann.get("updated_at"),
                "was_cancelled": bool(ann.get("was_cancelled")),
                "project_id": project_id or None,
                "gold": bool(secret and secret["gold"] is not None),
            }
            if row["was_cancelled"]:
                counts["skipped"] += 1
                found.rows.append(row)
                continue
            link = task_url(where, project_id, task["id"]) if project_id else f"{where}#task={task['id']}"
            try:
                if not data.get(UID):
                    raise InvalidResult("the task has no uid: it was not pushed by lotdata")
                if job_state is not None and secret is None:
                    raise InvalidResult(
                        "the task is not in lotdata's state for this project: it was not pushed by lotdata"
                    )
                if owner is not None:
                    _check_own_answer(ann, who, changed_by, owner, names, found, counts)
                values = job.parse(ann.get("result"), data, hidden, lang=job_state.lang if job_state else None)
            except InvalidResult as exc:
                reason = str(exc)
            except (KeyError, TypeError, ValueError) as exc:  # task data not shaped as this job's tasks
                reason = f"task data does not fit job {job_name}: {exc!r}"
            else:
                counts["done"] += 1
                found.rows.append(row)
                annotation = Annotation(
                    uid=data[UID],
                    data=data,
                    annotator=row["annotator"],
                    annotation_id=ann["id"],
                    created_at=row["created_at"] or "",
                    values=values,
                    hidden=hidden,
                    lead_time=row["lead_time"],
                )
                if row["gold"]:
                    found.gold.append((annotation, secret["gold"]))
                else:
                    found.valid.append(annotation)
                continue
            counts["quarantined"] += 1
            found.quarantined_rows.append(row)
            found.quarantine.append({"path": link, "row": ann["id"], "reason": reason, "raw": row["result"][:2000]})
    return found


def _user_id(value: Any) -> int | None:
    return value.get("id") if isinstance(value, dict) else value


def _check_own_answer(
    ann: dict[str, Any],
    who: int | None,
    changed_by: int | None,
    owner: int,
    names: dict[int, str],
    found: Collected,
    counts: dict[str, int],
) -> None:
    """InvalidResult naming both accounts when an answer in `owner`'s own project was not made and kept by `owner`.

    Label Studio OSS makes every account an admin: anyone can open a rater's project, answer there or press Update on
    the rater's answer (`updated_by` then names them, `completed_by` still the rater). OSS keeps no history of the
    versions in between, so an edit undone by the rater's own later Update is not seen."""
    name = lambda user: names.get(user, str(user))  # noqa: E731
    if who != owner:
        reason = f"answered by {name(who)} in {name(owner)}'s own project"
    elif changed_by is not None and changed_by != owner:
        reason = (
            f"{name(owner)}'s answer was created or last changed by {name(changed_by)} (in {name(owner)}'s own project)"
        )
    else:
        return
    counts["not_by_the_rater"] = counts.get("not_by_the_rater", 0) + 1
    found.not_by_the_rater.append(
        {
            "annotation_id": ann["id"],
            "rater": name(owner),
            "created_by": name(who),
            "changed_by": name(changed_by) if changed_by is not None else None,
        }
    )
    raise InvalidResult(reason)


def gold_report(job_name: str, gold: list[tuple[Annotation, dict[str, Any]]], min_accuracy: float) -> dict[str, Any]:
    """Each rater's accuracy on the known-answer tasks; raters under `min_accuracy` are flagged."""
    job = get_job(job_name)
    raters: dict[str, dict[str, Any]] = {}
    for ann, answer in gold:
        given = dict(job.votes(ann.values))
        right = all(str(given.get(q)) == str(v) for q, v in answer.items())
        entry = raters.setdefault(ann.annotator, {"answered": 0, "correct": 0})
        entry["answered"] += 1
        entry["correct"] += right
    for entry in raters.values():
        entry["accuracy"] = round(entry["correct"] / entry["answered"], 4)
        entry["flagged"] = entry["accuracy"] < min_accuracy
    return {
        "min_accuracy": min_accuracy,
        "raters": dict(sorted(raters.items())),
        "flagged": sorted(r for r, e in raters.items() if e["flagged"]),
    }


def gather(
    conn: Connection,
    job_name: str | None,
    title: str,
    *,
    state: str | Path | None = None,
    page_size: int | None = None,
    on_page: Callable[[int, int], None] | None = None,
) -> tuple[str, JobState, dict[str, int], Collected]:
    """Every task of every project of a pushed title, sorted out, with each task's hidden values from the state folder.

    A title with no state here (pushed on another machine, with another --state-dir, or not by lotdata) stops with a
    clear error: without the hidden values (answers, systems, source rows) nothing can be checked or assembled."""
    directory = state_dir(state)
    job_state = JobState.find(directory, title, conn.url)
    if job_state is None:
        get_project(conn, title)  # "no project titled ..." when there is none at all
        raise LotdataError(
            f"no hidden task values for project {title!r} in {directory} (answers and systems stay where the "
            "tasks were pushed): pull there, or copy that state folder here and pass --state-dir "
            "(or set LOTDATA_ANNOTATE_STATE)"
        )
    if job_name and job_state.job != job_name:
        raise LotdataError(f"project {title!r} holds job {job_state.job}, not {job_name}")
    job_name = job_name or job_state.job
    projects = dict(job_state.projects)
    names = user_names(conn)
    team = Team.load(state_dir(state), conn.url).raters
    found = Collected()
    for rater, project_id in sorted(projects.items()):
        tasks = fetch_tasks(conn, project_id, page_size=page_size, on_page=on_page)
        owner = team[rater].user_id if rater in team else None
        collect(job_name, tasks, names, conn.url, job_state, project_id, into=found, owner=owner)
        on_server = {str((t.get("data") or {}).get(UID)) for t in tasks}
        found.missing += [
            {"project": job_state.project_title(rater), "uid": job_state.tasks[task["data"][UID]]["uid"]}
            for task in job_state.tasks_for(rater)
            if task["data"][UID] not in on_server
        ]
    return job_name, job_state, projects, found


def versions_seen(job_name: str, job_state: JobState, found: Collected) -> dict[str, int] | None:
    """For a job whose tasks are versions of cases: how many raters were given, and how many answered, two versions
    of some case (None for other jobs)."""
    job = get_job(job_name)
    if job.case_key is None:
        return None
    case_of = dict(_versions(job, job_state))
    case_by_uid = {entry["uid"]: case_of[token] for token, entry in job_state.tasks.items()}
    answered: dict[str, dict[str, set[str]]] = {}
    for row in found.rows + found.quarantined_rows:
        case = case_by_uid.get(row["uid"])
        if case is not None and not row["was_cancelled"]:
            answered.setdefault(row["annotator"], {}).setdefault(case, set()).add(row["uid"])
    given = raters_with_two_versions({r: t for r, t in (job_state.assignment or {}).items() if r != SHARED}, case_of)
    return {
        "raters_given_both_versions": len(given),
        "raters_answered_both_versions": sum(
            any(len(uids) > 1 for uids in cases.values()) for cases in answered.values()
        ),
    }


def pull(
    conn: Connection,
    job_name: str,
    title: str,
    out: str | Path,
    *,
    page_size: int | None = None,
    on_page: Callable[[int, int], None] | None = None,
    state: str | Path | None = None,
    min_gold_accuracy: float = 0.8,
    drop_flagged: bool = False,
    allow_partial: bool = False,
    published: str | Path | None = None,
) -> dict[str, Any]:
    """Every annotation of the project(s) of `title` into `out`, validated, scored for agreement and assembled.

    human_perf: H from fewer items or raters than the push asked for is refused (exit 3) unless `allow_partial`
    (then the file says `"partial": true`, and `baseline table --human` refuses it without its own flag).
    `published`: where `out` is published when the run is complete, if it is written elsewhere first (`annotate
    pull` stages it): the folder the messages and the datasets' rebuild command name."""
    job = get_job(job_name)
    out = Path(out)
    final = Path(published) if published is not None else out
    started = time.perf_counter()
    _, job_state, projects, found = gather(conn, job_name, title, state=state, page_size=page_size, on_page=on_page)
    fetched = time.perf_counter() - started
    gold = gold_report(job_name, found.gold, min_gold_accuracy)
    valid = [a for a in found.valid if not (drop_flagged and a.annotator in gold["flagged"])]
    votes = [(a.uid, a.annotator, question, value) for a in valid for question, value in job.votes(a.values)]
    records = [{**r, "quarantined": False} for r in found.rows] + [
        {**r, "quarantined": True} for r in found.quarantined_rows
    ]
    agreement = {
        "questions": question_agreement(votes),
        "annotators": annotator_stats((r for r in records if not r["gold"]), votes),
    }
    assembled = job.assemble(valid)
    if "human_perf" in assembled:
        check_human_perf_complete(assembled["human_perf"], job_state, allow_partial=allow_partial)
    write_parquet(table_from_rows(found.rows, ANNOTATIONS), out / "annotations.parquet")
    write_parquet(table_from_rows(found.quarantine, QUARANTINE), out / "quarantine.parquet")
    write_text(json.dumps(agreement, ensure_ascii=False, indent=2) + "\n", out / "agreement.json")
    write_text(json.dumps({**gold, "dropped": drop_flagged}, ensure_ascii=False, indent=2) + "\n", out / "gold.json")
    if not found.valid:  # an empty dataset would look like a result; the raw tables above keep what there was
        kept = "" if final == out else f" (the tables read are in {out}; {final} is unchanged)"
        raise InputError(
            f"project {title!r}: no valid annotation yet ({len(found.rows)} annotation(s), "
            f"{len(found.quarantine)} quarantined): nothing assembled{kept}; `lotdata annotate status` shows progress",
            path=str(final),
        )
    params = {"job": job_name, "project": title, "project_ids": sorted(projects.values()), "url": conn.url}
    datasets = write_assembled(job_name, assembled, out, params, provenance(valid, job_name, title, final))
    tasks = sum(c["tasks"] for c in found.per_project.values())
    summary = {
        "job": job_name,
        "project": title,
        "projects": len(projects),
        "tasks": tasks,
        "annotations": len(found.rows) + len(found.quarantine),
        "skipped": sum(r["was_cancelled"] for r in found.rows),
        "valid": len(found.valid) + len(found.gold),
        "quarantined": len(found.quarantine),
        "gold_answers": len(found.gold),
        "flagged_raters": gold["flagged"],
        "dropped_flagged": len(found.valid) - len(valid),
        "not_by_the_rater": len(found.not_by_the_rater),
        "missing_tasks": len(found.missing),
        **({"missing": found.missing} if found.missing else {}),
        **(versions_seen(job_name, job_state, found) or {}),
        "datasets": datasets,
        "assembly": assembled.get("stats", {}),
        "fetch_seconds": round(fetched, 3),
        "seconds": round(time.perf_counter() - started, 3),
    }
    write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", out / "pull.json")
    return summary


def provenance(valid: list[Annotation], job_name: str, title: str, out: Path) -> dict[str, Any]:
    """Licences of what went in and the commands that rebuild the pulled tables (for the cards)."""
    sources = {json.dumps(a.hidden.get("source", {}), sort_keys=True) for a in valid}
    sources = [json.loads(s) for s in sorted(sources) if s != "{}"]
    licenses = {lic for s in sources for lic in s.get("licenses", [])}
    licenses.update(a.hidden["license"] for a in valid if a.hidden.get("license"))
    licenses.update(a.hidden["story"]["license"] for a in valid if (a.hidden.get("story") or {}).get("license"))
    pull = shlex.join(["lotdata", "annotate", "pull", job_name, "--project", title, "--out", str(out)])
    pushes = [s["push_command"] for s in sources if s.get("push_command")]
    return {
        "licenses": sorted(licenses),
        "command": " && ".join([*pushes, "(annotate in Label Studio)", pull]) if pushes else pull,
        "inputs": [s["input"] for s in sources if s.get("input")],
    }


def write_assembled(
    job_name: str, assembled: dict[str, Any], out: Path, params: dict[str, Any], origin: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The final tables of a job, as its record's `write` lays them out (ClozeT + PlotCom, SenPos, stories, ...)."""
    origin = origin or {}
    output = Output(
        folder=out,
        job=job_name,
        params=params,
        command=origin.get("command") or f"lotdata annotate pull {job_name}",
        stats=assembled.get("stats", {}),
        extra={
            "licenses": origin.get("licenses", []),
            "annotation": {"job": job_name, "sources": origin.get("inputs", [])},
        },
    )
    return get_job(job_name).write(assembled, output)


def check_human_perf_complete(
    report: dict[str, dict[str, Any]], job_state: JobState, *, allow_partial: bool = False
) -> None:
    """Compare a human performance report with what the push asked for (every pushed item, `raters_per_task`
    raters on each); record both in the report; refuse (exit 3) a shortfall unless `allow_partial`."""
    pushed: dict[str, int] = {}
    for task in job_state.tasks.values():
        kind = (task.get("hidden") or {}).get("task")
        if kind and not task.get("gold"):
            pushed[kind] = pushed.get(kind, 0) + 1
    asked = job_state.raters_per_task
    short = []
    for kind, n_pushed in sorted(pushed.items()):
        entry = report.get(kind)
        items, raters = (entry["n_items"], entry.get("n_raters_min", entry["n_raters"])) if entry else (0, 0)
        if items < n_pushed:
            short.append(f"{kind}: {items} of {n_pushed} items answered")
        if entry and raters < asked:
            short.append(f"{kind}: an item answered by {raters} of {asked} raters")
        if entry:
            entry.update(items_pushed=n_pushed, raters_asked=asked)
    if short and not allow_partial:
        raise InputError(
            "human performance from fewer items or raters than the job asked for ("
            + "; ".join(short)
            + "): H would not be what the job measures; pull again when the raters are done, or "
            "--allow-partial to write it marked partial",
            path=str(job_state.path),
        )
    for entry in report.values():
        entry["partial"] = bool(short)


# ---------------------------------------------------------------- team use


def add_raters(
    conn: Connection,
    names: Sequence[str],
    *,
    state: str | Path | None = None,
    password: Callable[[], str] | None = None,
) -> list[dict[str, Any]]:
    """Create a Label Studio account per new rater, register it in the team, and give it its own project of every
    job pushed per rater. Returns per rater how to log in (a new account's password is in it, once, and nowhere else)."""
    import secrets as _secrets

    from lotdata.annotate.client import create_account
    from lotdata.annotate.state import Rater, check_rater_name, pushed_jobs

    directory = state_dir(state)
    team = Team.load(directory, conn.url)
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
    team.save()
    for job_state in pushed_jobs(directory, conn.url):
        if job_state.mode != "per_rater" or job_state.assigned is not None:
            continue
        for entry in report:
            if entry["rater"] not in job_state.projects:
                push_to_rater(conn, job_state, entry["rater"])
            project_id = job_state.projects[entry["rater"]]
            entry.setdefault("projects", {})[job_state.project_title(entry["rater"])] = (
                f"{conn.url}/projects/{project_id}/data"
            )
        job_state.save()
    return report


def status(conn: Connection, title: str, *, state: str | Path | None = None) -> dict[str, Any]:
    """Progress of a pushed title: per rater's project (or the shared one) tasks, done, skipped, quarantined; per annotator."""
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
    annotators: dict[str, dict[str, int]] = {}
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
        **(versions_seen(job_name, job_state, found) or {}),
        **_qualification(state_dir(state), job_name, conn.url),
        "projects": per_project,
        "annotators": dict(sorted(annotators.items())),
    }


def _qualification(directory: Path, job_name: str, url: str) -> dict[str, Any]:
    """Where each rater stands with the job's quiz (a rater who failed is told here why the work did not come)."""
    from lotdata.annotate.qualify import Gate

    gate = Gate.find(directory, job_name, url)
    return {"qualification": {name: gate.describe(name) for name in sorted(gate.raters)}} if gate else {}


def list_raters(url: str, *, state: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """The team: per rater the login e-mail and their own projects (title -> task list URL). No server call."""
    from lotdata.annotate.state import pushed_jobs

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
