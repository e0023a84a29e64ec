"""Pull a pushed job's annotations back into lotdata tables (`lotdata annotate pull`; its record is `ANNOTATE_PULL` in
`lotdata.annotate.commands`, its parameters `PullParams`).

Pull merges every rater's project and writes: `annotations.parquet` (valid and skipped annotations),
`quarantine.parquet` (annotations that do not fit their template or job, with the reason and a link to the task),
`gold.json` (each rater's accuracy on gold tasks), `agreement.json` (majority vote, Fleiss' kappa per question,
per-annotator statistics), the assembled dataset(s) and, last, `pull.json`. The command writes them in a staging
folder swapped in whole, so a pull that is killed leaves the previous files whole; re-running it rebuilds everything
from the server, so nothing is lost.
"""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable

from lotdata.annotate.agreement import aggregation_report, annotator_stats, question_agreement
from lotdata.annotate.assign import raters_with_two_versions
from lotdata.annotate.client import (
    UID,
    Connection,
    export_tasks,
    get_project,
    iter_task_pages,
    user_names,
)
from lotdata.annotate.jobs import Annotation, InvalidResult, Output, get_job
from lotdata.annotate.push import case_versions
from lotdata.annotate.seen import StateFile, remember, seen_path
from lotdata.annotate.state import SHARED, JobState, Team, state_dir
from lotdata.datasets.release import annotation_record
from lotdata.errors import InputError, LotdataError
from lotdata.io import write_parquet, write_text
from lotdata.schema import ANNOTATIONS, QUARANTINE, table_from_rows


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
    duplicates: list[dict[str, Any]] = field(default_factory=list)  # a rater's second (third...) answer on one item


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
            own = None
            if owner is not None:
                own = partial(
                    _check_own_answer,
                    who=who,
                    changed_by=changed_by,
                    owner=owner,
                    names=names,
                    found=found,
                    counts=counts,
                )
            values, reason = _parsed(job, ann, data, secret, job_state=job_state, own=own)
            if reason is not None:
                link = task_url(where, project_id, task["id"]) if project_id else f"{where}#task={task['id']}"
                counts["quarantined"] += 1
                found.quarantined_rows.append(row)
                found.quarantine.append({"path": link, "row": ann["id"], "reason": reason, "raw": row["result"][:2000]})
                continue
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
    return found


def _parsed(
    job: Any,
    ann: dict[str, Any],
    data: dict[str, Any],
    secret: dict[str, Any] | None,
    *,
    job_state: JobState | None,
    own: Callable[[dict[str, Any]], None] | None,
) -> tuple[dict[str, Any], str | None]:
    """One annotation's answer by the job's rules, or why it is quarantined (not pushed by lotdata, not by the
    rater whose project it is (`own` raises), not what the template or the job accepts)."""
    try:
        if not data.get(UID):
            raise InvalidResult("the task has no uid: it was not pushed by lotdata")
        if job_state is not None and secret is None:
            raise InvalidResult("the task is not in lotdata's state for this project: it was not pushed by lotdata")
        if own is not None:
            own(ann)
        hidden = (secret or {}).get("hidden") or {}
        return job.parse(ann.get("result"), data, hidden, lang=job_state.lang if job_state else None), None
    except InvalidResult as exc:
        return {}, str(exc)
    except (KeyError, TypeError, ValueError) as exc:  # task data not shaped as this job's tasks
        return {}, f"task data does not fit job {job.name}: {exc!r}"


def _user_id(value: Any) -> int | None:
    return value.get("id") if isinstance(value, dict) else value


def _check_own_answer(
    ann: dict[str, Any],
    *,
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
    one_vote(found, conn.url)
    return job_name, job_state, projects, found


DUPLICATE_REASON = (
    "a second answer by {rater} on this item (first answer: annotation {first}): the first submitted counts"
)


def one_vote(found: Collected, where: str) -> None:
    """One rater, one vote: of a rater's valid answers on one item (a task's uid, in whichever of her projects), the
    first submitted (the lowest annotation id) counts; every later one (Label Studio's "+" tab adds one although a
    project allows one per task) is moved to the quarantine with the reason, and counted per project as
    `duplicates`."""
    first: dict[tuple[str, str], int] = {}
    dropped: set[int] = set()
    answers = sorted(found.valid + [a for a, _key in found.gold], key=lambda a: a.annotation_id)
    for ann in answers:
        key = (str(ann.uid), ann.annotator)
        if key in first:
            dropped.add(ann.annotation_id)
            found.duplicates.append({"annotation_id": ann.annotation_id, "rater": ann.annotator, "first": first[key]})
        else:
            first[key] = ann.annotation_id
    if not dropped:
        return
    found.valid = [a for a in found.valid if a.annotation_id not in dropped]
    found.gold = [(a, key) for a, key in found.gold if a.annotation_id not in dropped]
    kept_first = {d["annotation_id"]: d["first"] for d in found.duplicates}
    rows = []
    for row in found.rows:
        if row["annotation_id"] not in dropped:
            rows.append(row)
            continue
        counts = found.per_project[row["project_id"] or 0]
        counts["done"] -= 1
        counts["quarantined"] += 1
        counts["duplicates"] = counts.get("duplicates", 0) + 1
        found.quarantined_rows.append(row)
        pid = row["project_id"]
        found.quarantine.append(
            {
                "path": task_url(where, pid, row["task_id"]) if pid else f"{where}#task={row['task_id']}",
                "row": row["annotation_id"],
                "reason": DUPLICATE_REASON.format(rater=row["annotator"], first=kept_first[row["annotation_id"]]),
                "raw": row["result"][:2000],
            }
        )
    found.rows = rows


def versions_seen(job_name: str, job_state: JobState, found: Collected) -> dict[str, int] | None:
    """For a job whose tasks are versions of cases: how many raters were given, and how many answered, two versions
    of some case (None for other jobs)."""
    job = get_job(job_name)
    if job.case_key is None:
        return None
    case_of = dict(case_versions(job, job_state))
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
    p: Any,
    out: str | Path,
    *,
    on_page: Callable[[int, int], None] | None = None,
    published: str | Path | None = None,
    seen: StateFile | None = None,
) -> dict[str, Any]:
    """Every annotation of the project(s) of `p.project` into `out`, validated, scored for agreement and assembled
    (`p`: the command's parameters, `lotdata.annotate.commands.PullParams`).

    One rater, one vote: a rater's later answers on an item she already answered are quarantined (`one_vote`).
    Every annotation read is remembered in the state folder (`STATE/seen/PROJECT.json`, or `seen.path`, then
    `seen.on_saved(path)`), and one seen before and gone now is named in `pull.json` (`deleted_annotations`).
    `p.aggregate` (majority, dawid-skene, mace) estimates each rater's accuracy and the items' labels
    (`agreement.json`'s `aggregation`); the job's assembly rule still decides the dataset.

    The job's record may refuse an assembly short of what the push asked for (`JobSpec.check_complete`; human_perf:
    H from fewer items or raters, exit 3, unless `p.allow_partial`: then the file says `"partial": true`, and
    `baseline table --human` refuses it without its own flag).
    `published`: where `out` is published when the run is complete, if it is written elsewhere first (`annotate
    pull` stages it): the folder the messages and the datasets' rebuild command name."""
    job_name, title = p.job, p.project
    job = get_job(job_name)
    out = Path(out)
    final = Path(published) if published is not None else out
    started = time.perf_counter()
    _, job_state, projects, found = gather(conn, job_name, title, state=p.state, page_size=p.page_size, on_page=on_page)
    fetched = time.perf_counter() - started
    gone = _remember(p, title, found, seen)
    gold = gold_report(job_name, found.gold, p.min_gold_accuracy)
    aggregation, left_out = _aggregation(job, found.valid, p, gold["flagged"])
    valid = [a for a in found.valid if a.annotator not in left_out]
    votes = [(a.uid, a.annotator, question, value) for a in valid for question, value in job.votes(a.values)]
    records = [{**r, "quarantined": False} for r in found.rows] + [
        {**r, "quarantined": True} for r in found.quarantined_rows
    ]
    agreement = {
        "questions": question_agreement(votes),
        "annotators": annotator_stats((r for r in records if not r["gold"]), votes),
        "aggregation": aggregation,
    }
    assembled = job.assemble(valid, **{k: getattr(p, k) for k in job.assemble_options if hasattr(p, k)})
    if job.check_complete is not None:  # before anything is written: a short assembly is refused whole
        job.check_complete(assembled, job_state, p.allow_partial)
    write_parquet(table_from_rows(found.rows, ANNOTATIONS), out / "annotations.parquet")
    write_parquet(table_from_rows(found.quarantine, QUARANTINE), out / "quarantine.parquet")
    write_text(json.dumps(agreement, ensure_ascii=False, indent=2) + "\n", out / "agreement.json")
    write_text(json.dumps({**gold, "dropped": p.drop_flagged}, ensure_ascii=False, indent=2) + "\n", out / "gold.json")
    if not found.valid:  # an empty dataset would look like a result; the raw tables above keep what there was
        kept = "" if final == out else f" (the tables read are in {out}; {final} is unchanged)"
        raise InputError(
            f"project {title!r}: no valid annotation yet ({len(found.rows)} annotation(s), "
            f"{len(found.quarantine)} quarantined): nothing assembled{kept}; `lotdata annotate status` shows progress",
            path=str(final),
        )
    params = {"job": job_name, "project": title, "project_ids": sorted(projects.values()), "url": conn.url}
    origin = provenance(valid, job_name, title, final)
    raters: dict[str, set[str]] = {}
    for a in valid:
        raters.setdefault(a.uid, set()).add(a.annotator)
    origin["annotation"] = annotation_record(
        job_name,
        raters,
        agreement,
        {**gold, "dropped": p.drop_flagged},
        qualification=_quiz(p.state, job_name, conn.url),
    )
    datasets = write_assembled(job_name, assembled, out, params, origin)
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
        "duplicates": len(found.duplicates),
        "deleted_annotations": gone,
        "agreement": _agreement_lines(agreement),
        "near_chance_raters": agreement["aggregation"]["near_chance"],
        "missing_tasks": len(found.missing),
        **({"missing": found.missing} if found.missing else {}),
        **(versions_seen(job_name, job_state, found) or {}),
        "datasets": datasets,
        "assembly": assembled.get("stats", {}),
        **active_learning(job_state, assembled),
        "fetch_seconds": round(fetched, 3),
        "seconds": round(time.perf_counter() - started, 3),
    }
    write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", out / "pull.json")
    return summary


def active_learning(job_state: JobState, assembled: dict[str, Any]) -> dict[str, Any]:
    """`active_learning` for a job pushed with `--order uncertainty` (story_filter): on this pull's final decisions,
    held-out accuracy per labelled count in uncertainty and random order (`lotdata.quality.active.pull_report`; skipped
    with the reason under `MIN_ITEMS` decisions); nothing for any other push."""
    if (job_state.suggest or {}).get("order") != "uncertainty" or "story_decisions" not in assembled:
        return {}
    from lotdata.quality.active import pull_report

    return {"active_learning": pull_report(assembled["story_decisions"])}


def _aggregation(job: Any, valid: list[Annotation], p: Any, gold_flagged: list[str]) -> tuple[dict[str, Any], set[str]]:
    """The aggregation report over every valid answer (`p.aggregate`), and the raters whose answers the assembly
    leaves out: with `p.drop_flagged`, those flagged by the gold tasks and, under dawid-skene or mace, those the
    model finds near chance (majority's own estimate, the share of answers equal to the majority, does not drop)."""
    method = getattr(p, "aggregate", "majority")
    votes = [(a.uid, a.annotator, question, value) for a in valid for question, value in job.votes(a.values)]
    report = aggregation_report(votes, method)
    left_out: set[str] = set()
    if p.drop_flagged:
        left_out = set(gold_flagged) | (set(report["near_chance"]) if method != "majority" else set())
    report["dropped"] = sorted(left_out - set(gold_flagged))
    return report, left_out


def _agreement_lines(agreement: dict[str, Any]) -> dict[str, str]:
    """Per question, Fleiss' kappa and Krippendorff's alpha with its 95% interval, in one line (pull's report)."""
    lines = {}
    for question, q in agreement["questions"].items():
        parts = [f"Fleiss' kappa {q['fleiss_kappa']}"]
        for key, name in (("krippendorff_alpha", "alpha"), ("krippendorff_alpha_ordinal", "ordinal alpha")):
            alpha = q.get(key)
            if alpha is not None:
                parts.append(f"{name} {alpha['alpha']} (95% CI {alpha['ci95']})")
            elif key in q:
                parts.append(f"{name} not measurable")
        lines[question] = f"{', '.join(parts)}; {q['multi_rated']} of {q['items']} items rated by 2+"
    return lines


def _remember(p: Any, title: str, found: Collected, seen: StateFile | None) -> list[dict[str, Any]]:
    """Record the annotations read now; the ones a pull saw before and the server no longer has, each named."""
    from lotdata.annotate.seen import describe
    from lotdata.progress import console

    path = Path(seen.path) if seen is not None else seen_path(state_dir(p.state), title)
    gone = remember(path, found.rows + found.quarantined_rows)
    if seen is not None and seen.on_saved is not None:
        seen.on_saved(path)
    for entry in gone:
        console.print(f"deleted: {describe(entry)}", highlight=False)
    return gone


#: the jobs whose raters vote on one answer per item: `status` estimates each rater's accuracy with Dawid-Skene
VOTING_JOBS = ("cloze_verify", "senpos_refine", "human_eval", "human_perf")


def crowd_status(
    job_name: str, title: str, found: Collected, state: str | Path | None, method: str = "dawid-skene"
) -> dict[str, Any]:
    """What `status` says of the crowd: duplicate answers quarantined, annotations deleted since the last pull
    (named), and for a voting job each rater's estimated accuracy with the raters near chance flagged."""
    from lotdata.annotate.seen import deleted, load_seen

    report: dict[str, Any] = {
        "duplicates": len(found.duplicates),
        "deleted_annotations": deleted(
            load_seen(seen_path(state_dir(state), title)), found.rows + found.quarantined_rows
        ),
    }
    job = get_job(job_name)
    votes = [(a.uid, a.annotator, q, v) for a in found.valid for q, v in job.votes(a.values)]
    raters_per_item: dict[str, set[str]] = {}
    for a in found.valid:
        raters_per_item.setdefault(a.uid, set()).add(a.annotator)
    if job_name in VOTING_JOBS and any(len(r) >= 2 for r in raters_per_item.values()):
        crowd = aggregation_report(votes, method)
        report["rater_accuracy"] = {
            f"{rater} ({question})": entry["accuracy"]
            for question, q in crowd["questions"].items()
            for rater, entry in q["raters"].items()
        }
        report["near_chance_raters"] = crowd["near_chance"]
        report["rater_accuracy_method"] = method
    return report


def _quiz(state: str | Path | None, job_name: str, url: str) -> dict[str, str] | None:
    """Where each rater stands with the job's qualification quiz (`annotate qualify`), for the card; None: no quiz."""
    from lotdata.annotate.qualify import Gate

    gate = Gate.find(state_dir(state), job_name, url)
    return {name: gate.describe(name) for name in sorted(gate.raters)} if gate else None


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
            # the card's annotation facts: raters per item, agreement, gold tasks (lotdata.datasets.release)
            "annotation": {**origin.get("annotation", {}), "job": job_name, "sources": origin.get("inputs", [])},
        },
    )
    return get_job(job_name).write(assembled, output)
