"""Push a job's rows to Label Studio (`lotdata annotate push`; its record is `ANNOTATE_PUSH` in
`lotdata.annotate.commands`, its parameters `PushParams`).

What raters must not see (hidden values, gold answers) stays in the state folder's job file; Label Studio gets opaque
task ids. A job with several raters per task gets one project per rater of the team. The job file is saved before
any import (a push cut short and run again finds the same opaque ids) and after each rater's project, and each save
is handed to `on_saved` (the command publishes it at once: it records what is already on the server).
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from lotdata.annotate import suggest
from lotdata.annotate.assign import extend_assignment
from lotdata.annotate.client import (
    IMPORT_BATCH_SIZE,
    Connection,
    ensure_project,
    ensure_task_list_view,
    find_project,
    hidden_columns,
    push_tasks,
    task_list_title,
)
from lotdata.annotate.jobs import JobSpec, all_jobs, get_job, sample_rows
from lotdata.annotate.state import SHARED, JobState, Team, state_dir
from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.io import iter_jsonl
from lotdata.schema import SPLITS

Saved = Callable[[Path], None]


def names_of(value: str | Sequence[str] | None) -> list[str] | None:
    """A comma-separated string (the command line's `--split val,test`) or a list (a recipe's) as a list of names."""
    if value is None:
        return None
    items = value.split(",") if isinstance(value, str) else list(value)
    return [s.strip() for s in items if s and s.strip()] or None


def word_range(text: str | None) -> tuple[int, int] | None:
    """`--words 50-500` as (50, 500); 0 is no bound."""
    if text is None:
        return None
    low, sep, high = text.partition("-")
    if not sep or not low.strip().isdigit() or not high.strip().isdigit():
        raise ValueError(f"--words {text!r}: MIN-MAX in words, e.g. 50-500 (0 for no bound)")
    if int(high) and int(low) > int(high):
        raise ValueError(f"--words {text!r}: the minimum is above the maximum")
    return int(low), int(high)


def job_load_options(job_name: str, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The `annotate push` options given (not None) that job `job_name`'s loader takes; ValueError naming the jobs
    that take an option this one does not."""
    job = get_job(job_name)
    options = {k: v for k, v in (given or {}).items() if v is not None}
    for name in sorted(set(options) - set(job.load_options)):
        takers = ", ".join(j.name for j in all_jobs() if name in j.load_options) or "no job"
        raise ValueError(f"--{name.replace('_', '-')} applies to {takers}, not {job_name}")
    return options


def load_options_of(p: Any) -> dict[str, Any]:
    """The options of `p` that the job's loader takes (`JobSpec.load_options`), checked."""
    return job_load_options(p.job, {"words": word_range(p.words)})


def check_push(p: Any) -> None:
    """What can be refused before connecting (a wrong path is not a server problem): the input is there, or a
    writing job's slots are asked for; the job, its screen language, the splits and the loader's options exist."""
    if p.input_path is not None:
        must_exist(p.input_path, "--input")
    job = get_job(p.job)
    job.pick_lang(p.lang)
    if p.n is not None and job.slots is None:
        raise ValueError(
            f"--n applies to writing jobs ({', '.join(j.name for j in all_jobs() if j.slots)}), not {p.job}"
        )
    if p.input_path is None and p.n is None:
        raise ValueError(f"{p.job} needs --input" + (" or --n N" if job.slots else ""))
    unknown_splits = sorted(set(names_of(p.split) or ()) - set(SPLITS))
    if unknown_splits:
        raise LotdataError(f"--split {', '.join(unknown_splits)}: not a split; splits: {', '.join(SPLITS)}")
    load_options_of(p)


def push(
    conn: Connection,
    p: Any,
    *,
    progress: Callable[[int], None] | None = None,
    state_file: str | Path | None = None,
    on_saved: Saved | None = None,
) -> dict[str, Any]:
    """Import the rows a project does not have yet (matched by uid), with their hidden values kept in the state folder.
    `p`: the command's parameters (`lotdata.annotate.commands.PushParams`, one field per option of `annotate push`).

    A job with several raters per task gets one project per rater of the team (`annotate raters add`), so no rater
    can open another's answers; without a team it falls back to one shared project (`mode: shared`).
    `p.sample` draws that many inputs (human_eval) or examples (human_perf; default 100) seeded by `p.seed`; the seed
    also orders human_eval's outputs. Each task's hidden values also keep the push's `source` (for the cards).
    `p.lang` picks the screens' language (the job's default when None; a project keeps the language of its first
    push). `p.n`: a writing job (`JobSpec.slots`) pushes that many empty slots to write in, without an input.
    `state_file`: where the title's job file is read and saved instead of the state folder (the command gives its
    staged copy); `on_saved(path)` is called after each save.
    """
    started = time.perf_counter()
    check_push(p)
    job = get_job(p.job)
    lang = job.pick_lang(p.lang)
    raters = p.raters or job.raters
    rows, sample = _rows(job, p)
    tasks = job.to_tasks(rows, seed=p.seed, lang=lang)
    model_version = suggest.attach(p.job, tasks, p.model, lang) if getattr(p, "model", None) else None
    source = source_info(
        p.job,
        Path(p.input_path) if p.input_path is not None else Path(f"--n {p.n}"),
        p.project,
        splits=names_of(p.split),
        raters=raters,
        sample=sample,
        seed=p.seed,
        limit=p.limit,
        lang=None if lang == job.lang else lang,
    )
    directory = state_dir(p.state)
    team = Team.load(directory, conn.url)
    path = Path(state_file) if state_file is not None else None
    job_state, is_new = _job_state(conn, p, team, lang=lang, raters=raters, path=path)
    _add_tasks(job_state, team, tasks, gold=p.gold, raters=raters, source=source)
    if model_version is not None:  # what the pull reads to report whether the order paid
        job_state.suggest = {
            "model": str(p.model),
            "model_version": model_version,
            "order": getattr(p, "order", "push"),
        }
    targets = _targets(job_state, team)
    if job.case_key is not None and (is_new or job_state.assignment is not None):
        job_state.assignment = extend_assignment(
            job_state.assignment or {},
            case_versions(job, job_state),
            targets,
            raters if job_state.mode == "per_rater" else 1,
            seed=job_state.salt,
            avoid=authors(job_state, team) if job_state.mode == "per_rater" else None,
        )
    counts = {"tasks": 0, "already_there": 0, "imported": 0}
    _save(job_state, on_saved)  # before any import: a push cut short and run again finds the same opaque ids
    for rater in targets:
        pushed = push_to_rater(conn, job_state, rater, batch_size=p.batch_size, progress=progress)
        counts = {k: counts[k] + pushed[k] for k in counts}
        _save(job_state, on_saved)
    order = getattr(p, "order", "push")
    if order == "uncertainty":  # Label Studio serves the lowest score first
        suggest.set_order(conn, [job_state.projects[r] for r in targets], order, model_version)
    return {
        "job": p.job,
        "project": p.project,
        "mode": job_state.mode,
        "projects": {r or p.project: job_state.projects[r] for r in targets},
        "raters": raters,
        "gold": sum(t["gold"] is not None for t in job_state.tasks.values()),
        **counts,
        **({"suggested": len(tasks), "order": order} if model_version is not None else {}),
        **({"sample": sample, "seed": p.seed} if sample is not None else {}),
        **_unassigned(job_state),
        "state": str(job_state.path),
        "seconds": round(time.perf_counter() - started, 3),
    }


def authors(job_state: JobState, team: Team) -> dict[str, str]:
    """Opaque id -> the rater of the team who wrote what the task shows (its hidden `author`, an account's e-mail or
    a rater's name): that rater is never given the task (a review of their own work)."""
    by_email = {rater.email: name for name, rater in team.raters.items()}
    found = {}
    for token, entry in job_state.tasks.items():
        author = entry["hidden"].get("author")
        name = by_email.get(author) or (author if author in team.raters else None)
        if name:
            found[token] = name
    return found


def _unassigned(job_state: JobState) -> dict[str, int]:
    """How many tasks no rater was given (only their author could have taken them), and how many went to fewer raters
    than asked for (the others were their author), when there are any: never given to the author instead."""
    if job_state.assignment is None or job_state.mode != "per_rater":
        return {}
    held = Counter(token for tokens in job_state.assignment.values() for token in tokens)
    left = sum(token not in held for token in job_state.tasks)
    wanted = min(job_state.raters_per_task, len(job_state.assignment))
    short = sum(0 < held[token] < wanted for token, entry in job_state.tasks.items() if entry["hidden"].get("author"))
    return {**({"unassigned": left} if left else {}), **({"short_of_raters": short} if short else {})}


def _save(job_state: JobState, on_saved: Saved | None) -> None:
    job_state.save()
    if on_saved is not None:
        on_saved(job_state.path)


def _rows(job: JobSpec, p: Any) -> tuple[list[dict[str, Any]], int | None]:
    """The rows to push (read, drawn by `--sample`, cut by `--limit`) and the sample size used."""
    splits = names_of(p.split)
    if p.input_path is None:
        rows = job.slots(p.n)
    else:
        rows = job.load(Path(p.input_path), splits or job.default_splits, **load_options_of(p))
    if not rows:  # an empty project would be pushed, and pulled back as an empty dataset
        chosen = splits or job.default_splits
        which = f" of split(s) {', '.join(chosen or ())}" if chosen else ""
        raise InputError(f"no row{which} to push for {p.job}; nothing was sent to the server", path=str(p.input_path))
    sample = p.sample if p.sample is not None else job.default_sample
    if sample is not None:
        if job.sample_key is None:
            samplable = [j.name for j in all_jobs() if j.sample_key is not None]
            names = ", ".join(samplable[:-1]) + " and " + samplable[-1] if len(samplable) > 1 else samplable[0]
            raise ValueError(f"--sample applies to {names}, not {p.job}")
        rows = sample_rows(rows, sample, p.seed, job.sample_key, job.sample_per)
    if p.limit is not None:  # whole inputs where a task shows several rows (human_eval's three outputs)
        rows = _first_groups(rows, p.limit, job.sample_key) if job.sample_key else rows[: p.limit]
    return rows, sample


def _job_state(
    conn: Connection, p: Any, team: Team, *, lang: str, raters: int, path: Path | None
) -> tuple[JobState, bool]:
    """The title's job state (new on its first push), its raters chosen (`--assign`, the quiz), and whether it is new;
    a push that does not fit it (another job or language, too few raters) stops here, before anything is sent."""
    directory = state_dir(p.state)
    assign = names_of(p.assign)
    job_state = JobState.find(directory, p.project, conn.url, path=path)
    unknown = sorted(set(assign or ()) - set(team.raters))
    if unknown:
        raise LotdataError(
            f"--assign names {unknown}, not in the team ({', '.join(sorted(team.raters)) or 'none yet'}): "
            "add them with `lotdata annotate raters add`"
        )
    qualified = qualified_raters(directory, p.job, conn.url, assign)
    if job_state is None:
        job_state = _new_job_state(conn, p, team, lang=lang, raters=raters, path=path, qualified=qualified)
        is_new = True
    else:
        _extend_job_state(job_state, p, team, lang=lang, qualified=qualified)
        is_new = False
    raters_there = len(job_state.assigned) if job_state.assigned is not None else len(team.raters)
    if job_state.mode == "per_rater" and raters_there < raters:
        raise LotdataError(
            f"{p.job} asks for {raters} raters per task but {raters_there} are assigned: "
            "add raters with `lotdata annotate raters add NAME...`, --assign more, or push with --raters fewer"
        )
    job_state.raters_per_task = raters
    return job_state, is_new


def _new_job_state(
    conn: Connection,
    p: Any,
    team: Team,
    *,
    lang: str,
    raters: int,
    path: Path | None,
    qualified: list[str] | None,
) -> JobState:
    """A title's first push: per rater with a team (or a quiz), else one shared project."""
    directory = state_dir(p.state)
    assign = names_of(p.assign)
    own = raters > 1 or get_job(p.job).own_projects  # review: a reviewer never opens another's project
    mode = "per_rater" if (own and team.raters) or qualified is not None else "shared"
    job_state = JobState.new(directory, conn.url, p.job, p.project, raters, mode, lang=lang, path=path)
    job_state.assigned = qualified if qualified is not None else sorted(set(assign)) if assign else None
    pushed_elsewhere = [t for t in _target_titles(job_state, team) if find_project(conn, t) is not None]
    if pushed_elsewhere:  # its tasks carry uids this state does not know: pushing would import every row twice
        raise LotdataError(
            f"project {pushed_elsewhere[0]!r} exists but {directory} has no state for it (pushed by an older "
            "lotdata or with another --state-dir): pass that --state-dir or push under a new --project"
        )
    return job_state


def _extend_job_state(job_state: JobState, p: Any, team: Team, *, lang: str, qualified: list[str] | None) -> None:
    """A later push of a title: the same job and language; raters who qualified or are assigned since get it too."""
    assign = names_of(p.assign)
    if job_state.job != p.job:
        raise LotdataError(f"project {p.project!r} holds job {job_state.job}, not {p.job}; pick another --project")
    if job_state.lang != lang:
        raise LotdataError(
            f"project {p.project!r} shows its tasks in {job_state.lang!r}, not {lang!r}; push with --lang "
            f"{job_state.lang} or under another --project"
        )
    if qualified is not None:  # raters who passed the quiz since the last push get the job too
        job_state.assigned = sorted(set(job_state.assigned or []) | set(qualified))
    elif assign and sorted(set(assign)) != (job_state.assigned or sorted(team.raters)):
        job_state.assigned = sorted(set(job_state.assigned or []) | set(assign))


def _add_tasks(
    job_state: JobState,
    team: Team,
    tasks: list[dict[str, Any]],
    *,
    gold: str | Path | None,
    raters: int,
    source: dict[str, Any],
) -> None:
    """The job's tasks and the gold ones into the state, marked with the raters per task and (the job's own) with the
    push's source; per rater, a task for one rater of the team is addressed to them."""
    for task in tasks:
        task["data"]["raters"] = raters
        task["hidden"] = {**(task.get("hidden") or {}), "source": source}
        job_state.add(task)
    for task, answer in load_gold(gold, tasks) if gold else []:
        task["data"]["raters"] = raters
        job_state.add(task, gold=answer)
    if job_state.mode == "per_rater":
        _address_to_writers(job_state, team)


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
    batch_size: int = IMPORT_BATCH_SIZE,
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


def case_versions(job: Any, job_state: JobState) -> list[tuple[str, str | None]]:
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
    # a field a task may leave empty (a first task's `feedback`): a gold task without it has it empty, as the screen
    # needs (Label Studio refuses a task without a field its screen shows)
    blank = {k for k in allowed or () if any(t["data"].get(k) == "" for t in tasks)}
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
        data.update({k: "" for k in blank if k not in data})
        task = {"data": data, "hidden": item.get("hidden") or {}}
        if item.get("predictions"):
            task["predictions"] = item["predictions"]
        found.append((task, {str(k): v for k, v in item["answer"].items()}))
    if not found:
        raise InputError("no gold task in the file", path=str(path))
    return found
