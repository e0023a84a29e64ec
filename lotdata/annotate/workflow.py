"""Push a job's rows to Label Studio and pull its annotations back into lotdata tables.

Pull writes, each file atomically: `annotations.parquet` (every annotation), `quarantine.parquet`
(annotations that do not fit their template, with the reason), `agreement.json` (majority vote,
Fleiss' kappa per question, per-annotator statistics), the assembled dataset(s) and, last,
`pull.json`. A pull that is killed leaves the previous files whole; re-running it rebuilds
everything from the server, so nothing is lost.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from lotdata.annotate.agreement import annotator_stats, question_agreement
from lotdata.annotate.client import UID, Connection, ensure_project, export_tasks, get_project, iter_task_pages, push_tasks, user_names
from lotdata.annotate.jobs import ASPECTS, Annotation, InvalidResult, get_job
from lotdata.io import write_parquet, write_text
from lotdata.schema import ANNOTATIONS, HUMAN_EVAL, QUARANTINE, SPLITS, STORIES, STORY_DECISIONS, table_from_rows


def push(
    conn: Connection, job_name: str, input_path: str | Path, title: str, *, splits: Sequence[str] | None = None,
    raters: int | None = None, limit: int | None = None, batch_size: int = 2000, progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Create or update the project `title` and import the rows it does not have yet (matched by uid)."""
    job = get_job(job_name)
    raters = raters or job.raters
    started = time.perf_counter()
    rows = job.load(Path(input_path), splits or job.default_splits)
    if limit is not None:
        rows = rows[:limit]
    tasks = job.to_tasks(rows)
    for task in tasks:
        task["data"]["raters"] = raters
    project, created = ensure_project(conn, title, job.template.xml, raters=raters, description=f"lotdata {job_name}")
    counts = push_tasks(conn, project.id, tasks, batch_size=batch_size, progress=progress)
    seconds = time.perf_counter() - started
    return {"job": job_name, "project": title, "project_id": project.id, "created": created, "raters": raters, **counts,
            "seconds": round(seconds, 3)}


def fetch_tasks(conn: Connection, project_id: int, *, page_size: int | None = None, on_page: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """All tasks with annotations: by the export endpoint, or page by page when `page_size` is given."""
    if not page_size:
        return export_tasks(conn, project_id)
    tasks: list[dict[str, Any]] = []
    for number, page in enumerate(iter_task_pages(conn, project_id, page_size=page_size), 1):
        tasks.extend(page)
        if on_page:
            on_page(number, len(page))
    return tasks


def collect(job_name: str, tasks: list[dict[str, Any]], names: dict[int, str], where: str) -> tuple[list[dict], list[dict], list[Annotation]]:
    """Annotation rows, quarantine rows and validated annotations from exported tasks."""
    job = get_job(job_name)
    rows, quarantine, valid = [], [], []
    for task in sorted(tasks, key=lambda t: t["id"]):
        data = task.get("data") or {}
        for ann in sorted(task.get("annotations") or [], key=lambda a: a["id"]):
            who = ann.get("completed_by")
            who = who.get("id") if isinstance(who, dict) else who
            row = {
                "uid": data.get(UID), "task_id": task["id"], "annotation_id": ann["id"], "annotator": names.get(who, str(who)),
                "result": json.dumps(ann.get("result"), ensure_ascii=False), "lead_time": ann.get("lead_time"),
                "created_at": ann.get("created_at"), "updated_at": ann.get("updated_at"), "was_cancelled": bool(ann.get("was_cancelled")),
            }
            rows.append(row)
            if row["was_cancelled"]:
                continue
            try:
                if not data.get(UID):
                    raise InvalidResult("the task has no uid: it was not pushed by lotdata")
                values = job.parse(ann.get("result"), data)
            except InvalidResult as exc:
                quarantine.append({"path": f"{where}#task={task['id']}", "row": ann["id"], "reason": str(exc), "raw": row["result"][:2000]})
                continue
            except (KeyError, TypeError, ValueError) as exc:  # task data not shaped as this job's tasks
                quarantine.append({"path": f"{where}#task={task['id']}", "row": ann["id"], "reason": f"task data does not fit job {job_name}: {exc!r}", "raw": row["result"][:2000]})
                continue
            valid.append(Annotation(uid=data[UID], data=data, annotator=row["annotator"], annotation_id=ann["id"], created_at=row["created_at"] or "", values=values))
    return rows, quarantine, valid


def pull(
    conn: Connection, job_name: str, title: str, out: str | Path, *, page_size: int | None = None,
    on_page: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Every annotation of project `title` into `out`, validated, scored for agreement and assembled."""
    job = get_job(job_name)
    out = Path(out)
    started = time.perf_counter()
    project = get_project(conn, title)
    tasks = fetch_tasks(conn, project.id, page_size=page_size, on_page=on_page)
    fetched = time.perf_counter() - started
    rows, quarantine, valid = collect(job_name, tasks, user_names(conn), f"{conn.url}/projects/{project.id}")
    votes = [(a.uid, a.annotator, question, value) for a in valid for question, value in job.votes(a.values)]
    quarantined_ids = {q["row"] for q in quarantine}
    agreement = {
        "questions": question_agreement(votes),
        "annotators": annotator_stats(({**r, "quarantined": r["annotation_id"] in quarantined_ids} for r in rows), votes),
    }
    assembled = job.assemble(valid)
    write_parquet(table_from_rows(rows, ANNOTATIONS), out / "annotations.parquet")
    write_parquet(table_from_rows(quarantine, QUARANTINE), out / "quarantine.parquet")
    write_text(json.dumps(agreement, ensure_ascii=False, indent=2) + "\n", out / "agreement.json")
    params = {"job": job_name, "project": title, "project_id": project.id, "url": conn.url}
    datasets = write_assembled(job_name, assembled, out, params)
    summary = {
        "job": job_name, "project": title, "tasks": len(tasks), "annotations": len(rows),
        "skipped": sum(r["was_cancelled"] for r in rows), "valid": len(valid), "quarantined": len(quarantine),
        "datasets": datasets, "assembly": assembled.get("stats", {}),
        "fetch_seconds": round(fetched, 3), "seconds": round(time.perf_counter() - started, 3),
    }
    write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", out / "pull.json")
    return summary


def write_assembled(job_name: str, assembled: dict[str, Any], out: Path, params: dict[str, Any]) -> dict[str, Any]:
    """The final tables of a job: ClozeT (+ PlotCom), SenPos, the stories table, or the Table 12 summary."""
    from lotdata.datasets.folder import write_dataset
    from lotdata.tasks.plotcom import plotcom_from_clozet

    command = f"lotdata annotate pull {job_name}"
    stats = assembled.get("stats", {})
    written: dict[str, Any] = {}

    def dataset(task: str, rows: list[dict[str, Any]]) -> None:
        by_split = {s: [r for r in rows if r["split"] == s] for s in SPLITS}
        written[task] = write_dataset(out / task, task, by_split, command=command, params=params, inputs=[], stats=stats)

    if "clozet" in assembled:
        dataset("clozet", assembled["clozet"])
        dataset("plotcom", plotcom_from_clozet(assembled["clozet"]))
    if "senpos" in assembled:
        dataset("senpos", assembled["senpos"])
    if "stories" in assembled:
        write_parquet(table_from_rows(assembled["stories"], STORIES), out / "stories.parquet")
        write_parquet(table_from_rows(assembled["story_decisions"], STORY_DECISIONS), out / "story_decisions.parquet")
        written["stories"] = {status: sum(s["status"] == status for s in assembled["stories"]) for status in sorted({s["status"] for s in assembled["stories"]})}
    if "human_eval" in assembled:
        write_parquet(table_from_rows(assembled["human_eval"], HUMAN_EVAL), out / "human_eval.parquet")
        write_text(table12_markdown(assembled["table12"]), out / "table12.md")
        written["table12"] = assembled["table12"]
    return written


def table12_markdown(table: dict[str, dict[str, Any]]) -> str:
    """LOT Table 12 layout: one row per system, the share of outputs judged good per aspect (majority of raters)."""
    lines = ["| system | items | Gram | Cohe | Relat |", "| --- | ---: | ---: | ---: | ---: |"]
    for system, row in table.items():
        cells = ["–" if row[a] is None else f"{row[a]:.2f}" for a in ASPECTS]
        lines.append(f"| {system} | {row['items']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
