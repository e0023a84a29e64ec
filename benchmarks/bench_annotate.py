"""Push and pull throughput of the annotation loop on a local Label Studio server, side by side.

    python benchmarks/bench_annotate.py --out bench/annotate.md [--size 10000] [--repeats 3]

Starts Label Studio (its own venv, `make labelstudio-venv`) on 127.0.0.1 with a fresh data dir, then, with
`--size` synthetic story_filter tasks (stories written here: sample-corpus stories with a numbered sentence
appended, so every uid is new):

* push       ``workflow.push`` into a new project: uid check + bulk import in batches of 2,000;
* re-push    the same rows again: nothing is imported (the idempotence check alone: task ids and data only);
* pull       ``workflow.pull`` of a project holding `--size` tasks with one annotation each (imported untimed
             with the tasks): export endpoint, validation, agreement, assembly, Parquet writes;
* pull paged the same pull reading tasks 1,000 a page through the tasks API instead of the export.

Each measurement is repeated `--repeats` times (push into a new project each time); the table gives medians.
The table's header gives the load average at the start: other jobs on the machine slow every figure.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from machine import load_note  # benchmarks/machine.py

from lotdata.annotate import server as ls_server  # noqa: E402
from lotdata.annotate.client import connect, ensure_project  # noqa: E402
from lotdata.annotate.jobs import get_job  # noqa: E402
from lotdata.annotate.state import SHARED, JobState  # noqa: E402
from lotdata.annotate.workflow import pull, push  # noqa: E402
from lotdata.io import write_parquet, write_text  # noqa: E402
from lotdata.resources import sample_corpus_path  # noqa: E402
from lotdata.schema import STORIES, table_from_rows  # noqa: E402
from lotdata.sources.readers import read_stories  # noqa: E402
from lotdata.sources.story import make_story_row  # noqa: E402


def synthetic_stories(size: int, path: Path) -> Path:
    base = [s["text"] for s in read_stories([sample_corpus_path()]).stories]
    rows = [
        make_story_row(f"{base[i % len(base)]}这是第{i}个故事的最后一句话。", source="bench", lang="zh")
        for i in range(size)
    ]
    write_parquet(table_from_rows(rows, STORIES), path)
    return path


def annotated_project(conn, title: str, stories: Path, user_id: int, state: Path) -> None:
    """A project whose tasks each carry one accept annotation, imported in bulk (untimed setup).

    Its hidden values and opaque ids go into the state folder, as push keeps them."""
    job = get_job("story_filter")
    job_state = JobState.new(state, conn.url, "story_filter", title, 1, "shared")
    for task in job.to_tasks(job.load(stories, None)):
        task["data"]["raters"] = 1
        job_state.add(task)
    result = [{"from_name": "decision", "to_name": "story", "type": "choices", "value": {"choices": ["accept"]}}]
    tasks = [
        {**task, "annotations": [{"result": result, "completed_by": user_id, "lead_time": 3.0}]}
        for task in job_state.visible_tasks()
    ]
    project, _ = ensure_project(conn, title, job.template.xml, raters=1)
    job_state.projects[SHARED] = project.id
    job_state.save()
    for start in range(0, len(tasks), 2000):
        conn.call(conn.sdk.projects.import_tasks, project.id, request=tasks[start : start + 2000])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/annotate.md")
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--paged-repeats", type=int, default=1, help="Paged pulls are slow; run fewer of them.")
    args = parser.parse_args()
    runs: dict[str, list[float]] = {"push": [], "re-push": [], "pull": [], "pull paged": []}
    fetch: dict[str, list[float]] = {"pull": [], "pull paged": []}  # the part spent waiting for the server
    with tempfile.TemporaryDirectory(prefix="bench-annotate-") as tmp:
        tmp = Path(tmp)
        stories = synthetic_stories(args.size, tmp / "stories.parquet")
        server = ls_server.start(tmp / "labelstudio", api_key=os.urandom(20).hex())
        try:
            conn = connect(server.url, server.api_key)
            me = conn.sdk.users.whoami()
            annotated_project(conn, "bench pull", stories, me.id, tmp / "state")
            for r in range(args.repeats):
                title = f"bench push {r}"
                first = push(conn, "story_filter", stories, title, state=tmp / "state")
                assert first["imported"] == args.size, first
                runs["push"].append(first["seconds"])
                again = push(conn, "story_filter", stories, title, state=tmp / "state")
                assert again["imported"] == 0, again
                runs["re-push"].append(again["seconds"])
                pulled = pull(conn, "story_filter", "bench pull", tmp / f"pull{r}", state=tmp / "state")
                assert pulled["valid"] == args.size, pulled
                runs["pull"].append(pulled["seconds"])
                fetch["pull"].append(pulled["fetch_seconds"])
                if r < args.paged_repeats:
                    paged = pull(
                        conn, "story_filter", "bench pull", tmp / f"paged{r}", page_size=1000, state=tmp / "state"
                    )
                    assert paged["valid"] == args.size, paged
                    runs["pull paged"].append(paged["seconds"])
                    fetch["pull paged"].append(paged["fetch_seconds"])
                print(f"run {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in runs.items() if v), flush=True)
        finally:
            server.stop()
    medians = {k: statistics.median(v) for k, v in runs.items()}
    total = medians["push"] + medians["pull"]
    lines = [
        "# lotdata annotation loop benchmark (Label Studio)",
        "",
        f"{dt.datetime.now(dt.timezone.utc).isoformat(timespec='seconds')} · Python {platform.python_version()} · "
        f"{os.cpu_count()} CPUs · label-studio 1.23.2 (SQLite) on 127.0.0.1 · {args.size:,} story_filter tasks · "
        f"medians of {args.repeats} runs.",
        "",
        load_note(),
        "",
        "| measurement | tasks | median s | tasks/s | of which server fetch s | runs (s) |",
        "|---|--:|--:|--:|--:|---|",
    ]
    for name, values in runs.items():
        med = medians[name]
        fetched = f"{statistics.median(fetch[name]):.1f}" if fetch.get(name) else "–"
        lines.append(
            f"| {name} | {args.size:,} | {med:.1f} | {args.size / med:,.0f} | {fetched} | {', '.join(f'{v:.1f}' for v in values)} |"
        )
    lines += [
        "",
        f"push + pull (export): **{total:.1f} s** for {args.size:,} tasks and {args.size:,} annotations (target: 90 s).",
        f"pull paged / pull export: {medians['pull paged'] / medians['pull']:.2f}×.",
        "",
        "push = uid check (task ids and data, 5,000 a page) + bulk import in batches of 2,000; re-push imports nothing.",
        "pull = fetch + validate every result against the template + agreement + assembly + Parquet writes;",
        "the fetch column is the time spent waiting for Label Studio (the export endpoint serialises every task",
        "with its annotations: server-bound on this machine).",
        "",
    ]
    text = "\n".join(lines)
    write_text(text, REPO / args.out if not Path(args.out).is_absolute() else args.out)
    write_text(
        json.dumps({"size": args.size, "runs": runs, "fetch_seconds": fetch, "medians": medians}, indent=2) + "\n",
        Path(REPO / args.out).with_suffix(".json"),
    )
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
