"""Push a job's rows to Label Studio and pull its annotations back into lotdata tables.

Pull writes, each file atomically: `annotations.parquet` (every annotation), `quarantine.parquet`
(annotations that do not fit their template, with the reason), `agreement.json` (majority vote,
Fleiss' kappa per question, per-annotator statistics), the assembled dataset(s) and, last,
`pull.json`. A pull that is killed leaves the previous files whole; re-running it rebuilds
everything from the server, so nothing is lost.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from lotdata.annotate.agreement import annotator_stats, question_agreement
from lotdata.annotate.client import UID, Connection, ensure_project, export_tasks, get_project, iter_task_pages, push_tasks, user_names
from lotdata.annotate.jobs import ASPECTS, Annotation, InvalidResult, get_job, sample_rows
from lotdata.errors import LotdataError
from lotdata.io import write_parquet, write_text
from lotdata.schema import ANNOTATIONS, HUMAN_EVAL, QUARANTINE, SPLITS, STORIES, STORY_DECISIONS, table_from_rows


def push(
    conn: Connection, job_name: str, input_path: str | Path, title: str, *, splits: Sequence[str] | None = None,
    raters: int | None = None, limit: int | None = None, batch_size: int = 2000, progress: Callable[[int], None] | None = None,
    sample: int | None = None, seed: int = 0,
) -> dict[str, Any]:
    """Create or update the project `title` and import the rows it does not have yet (matched by uid).

    `sample` draws that many inputs (human_eval) or examples (human_perf; default 100) seeded by `seed`; the seed
    also orders human_eval's outputs. Each task's `hidden` part is kept locally (`hidden_state_path`), never sent.
    """
    job = get_job(job_name)
    raters = raters or job.raters
    started = time.perf_counter()
    rows = job.load(Path(input_path), splits or job.default_splits)
    sample = sample if sample is not None else job.default_sample
    if sample is not None:
        if job.sample_key is None:
            raise ValueError(f"--sample applies to human_eval and human_perf, not {job_name}")
        rows = sample_rows(rows, sample, seed, job.sample_key)
    if limit is not None:
        rows = rows[:limit]
    tasks = job.to_tasks(rows, seed=seed)
    source = source_info(job_name, Path(input_path), title, splits=splits, raters=raters, sample=sample, seed=seed, limit=limit)
    hidden = {}
    for task in tasks:
        task["data"]["raters"] = raters
        hidden[task["data"]["uid"]] = {**task.pop("hidden", {}), "source": source}
    project, created = ensure_project(conn, title, job.template.xml, raters=raters, description=f"lotdata {job_name}")
    save_hidden(conn.url, title, hidden)
    counts = push_tasks(conn, project.id, tasks, batch_size=batch_size, progress=progress)
    seconds = time.perf_counter() - started
    return {"job": job_name, "project": title, "project_id": project.id, "created": created, "raters": raters, **counts,
            **({"sample": sample, "seed": seed} if sample is not None else {}), "seconds": round(seconds, 3)}


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
    return {"input": str(path), "licenses": sorted(licenses), "push_command": shlex.join(args)}


def hidden_state_path(url: str, title: str) -> Path:
    """Where the hidden task values of a project are kept: $LOTDATA_ANNOTATE_STATE or ~/.cache/lotdata/annotate."""
    root = Path(os.environ.get("LOTDATA_ANNOTATE_STATE") or Path.home() / ".cache" / "lotdata" / "annotate")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{url}__{title}")
    return root / f"{slug}.hidden.json"


def save_hidden(url: str, title: str, hidden: dict[str, Any]) -> Path:
    path = hidden_state_path(url, title)
    merged = {**load_hidden(url, title), **hidden}
    return write_text(json.dumps(merged, ensure_ascii=False) + "\n", path)


def load_hidden(url: str, title: str) -> dict[str, Any]:
    path = hidden_state_path(url, title)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


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


def collect(job_name: str, tasks: list[dict[str, Any]], names: dict[int, str], where: str,
            hidden: dict[str, Any] | None = None) -> tuple[list[dict], list[dict], list[Annotation]]:
    """Annotation rows, quarantine rows and validated annotations from exported tasks (`hidden`: uid -> hidden values)."""
    job = get_job(job_name)
    hidden = hidden or {}
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
                values = job.parse(ann.get("result"), data, hidden.get(data[UID], {}))
            except InvalidResult as exc:
                quarantine.append({"path": f"{where}#task={task['id']}", "row": ann["id"], "reason": str(exc), "raw": row["result"][:2000]})
                continue
            except (KeyError, TypeError, ValueError) as exc:  # task data not shaped as this job's tasks
                quarantine.append({"path": f"{where}#task={task['id']}", "row": ann["id"], "reason": f"task data does not fit job {job_name}: {exc!r}", "raw": row["result"][:2000]})
                continue
            valid.append(Annotation(uid=data[UID], data=data, annotator=row["annotator"], annotation_id=ann["id"], created_at=row["created_at"] or "", values=values,
                                    hidden=hidden.get(data[UID], {})))
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
    hidden = load_hidden(conn.url, title)
    uids = {(t.get("data") or {}).get(UID) for t in tasks} - {None}
    if uids and not uids & set(hidden):
        raise LotdataError(f"no hidden task values for project {title!r} at {hidden_state_path(conn.url, title)} (answers and systems "
                           "stay where the tasks were pushed): pull there, or copy that file and set LOTDATA_ANNOTATE_STATE")
    rows, quarantine, valid = collect(job_name, tasks, user_names(conn), f"{conn.url}/projects/{project.id}", hidden)
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
    datasets = write_assembled(job_name, assembled, out, params, provenance(valid, job_name, title, out))
    summary = {
        "job": job_name, "project": title, "tasks": len(tasks), "annotations": len(rows),
        "skipped": sum(r["was_cancelled"] for r in rows), "valid": len(valid), "quarantined": len(quarantine),
        "datasets": datasets, "assembly": assembled.get("stats", {}),
        "fetch_seconds": round(fetched, 3), "seconds": round(time.perf_counter() - started, 3),
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
    return {"licenses": sorted(licenses), "command": " && ".join([*pushes, "(annotate in Label Studio)", pull]) if pushes else pull,
            "inputs": [s["input"] for s in sources if s.get("input")]}


def write_assembled(job_name: str, assembled: dict[str, Any], out: Path, params: dict[str, Any],
                    origin: dict[str, Any] | None = None) -> dict[str, Any]:
    """The final tables of a job: ClozeT (+ PlotCom), SenPos, the stories table, Table 12 or the human performance file."""
    from lotdata.tasks.build import write_dataset
    from lotdata.tasks.plotcom import plotcom_from_clozet

    origin = origin or {}
    command = origin.get("command") or f"lotdata annotate pull {job_name}"
    stats = assembled.get("stats", {})
    written: dict[str, Any] = {}
    extra = {"licenses": origin.get("licenses", []), "annotation": {"job": job_name, "sources": origin.get("inputs", [])}}

    def dataset(task: str, rows: list[dict[str, Any]]) -> None:
        by_split = {s: [r for r in rows if r["split"] == s] for s in SPLITS}
        task_stats = {**stats, "annotation_dropped": stats.get("dropped", {})}
        written[task] = write_dataset(out / task, task, by_split, command=command, params=params, inputs=[], stats=task_stats, extra=extra)

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
        write_text(table12_markdown(assembled["table12"], assembled.get("sign_tests", [])), out / "table12.md")
        written["table12"] = assembled["table12"]
    if "human_perf" in assembled:
        write_text(json.dumps(assembled["human_perf"], ensure_ascii=False, indent=2) + "\n", out / HUMAN_PERF_FILE)
        written["human_perf"] = assembled["human_perf"]
    return written


#: the human performance file (LOT Section 5.3) that the Overall score's H_i reads
HUMAN_PERF_FILE = "human_perf.json"


def table12_markdown(table: dict[str, dict[str, Any]], sign_tests: list[dict[str, Any]] | None = None) -> str:
    """LOT Table 12 layout: one row per system, the share of outputs judged good per aspect (majority of raters),
    Fleiss' kappa per cell and per system; then the sign tests between systems."""
    fmt = lambda v: "–" if v is None else f"{v:.2f}"
    lines = ["| system | items | Gram | Cohe | Relat | κ Gram | κ Cohe | κ Relat | κ system |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for system, row in table.items():
        cells = [fmt(row[a]) for a in ASPECTS] + [fmt(row.get(f"kappa_{a}")) for a in ASPECTS] + [fmt(row.get("kappa"))]
        lines.append(f"| {system} | {row['items']} | " + " | ".join(cells) + " |")
    if sign_tests:
        lines += ["", "Sign test (two-sided, ties left out) on the majority scores of the same inputs:", "",
                  "| aspect | A | B | A better | B better | ties | p |", "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
        for t in sign_tests:
            p = "–" if t["p_value"] is None else f"{t['p_value']:.4g}"
            lines.append(f"| {t['aspect']} | {t['system_a']} | {t['system_b']} | {t['a_better']} | {t['b_better']} | {t['ties']} | {p} |")
    return "\n".join(lines) + "\n"
