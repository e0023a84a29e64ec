"""The `lotdata annotate` commands that write local files, as records (`lotdata.command`): `check`, `qualify` and
`sct-csv`. The CLI, the library call and the conformance checks are derived from them, and the one runner gives
each its checks, locks and atomic publication. What a command sends to Label Studio is a remote side effect the
runner cannot stage; what it keeps locally (the state folder's files) is a declared output like any other."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.annotate.state import state_dir
from lotdata.command import Command, Output, Run, register_command
from lotdata.stage import param

STATE_HELP = "Folder of lotdata's annotation state: team, hidden values, gold answers (default .lotdata-annotate)."


def _only(*names: str):
    """An `owned` predicate: a folder holding nothing but `names` (what this command writes there) is its own; a
    folder holding anything else is the user's, never replaced."""
    return lambda folder: {entry.name for entry in folder.iterdir()} <= set(names)


def jobs_help() -> str:
    """Every annotation job with its summary, from the registry (the JOB argument's help)."""
    from lotdata.annotate.jobs import all_jobs

    return "; ".join(f"{job.name}: {job.summary}" for job in all_jobs()) + "."


PROJECT_HELP = "Project title (created on first push, found by title afterwards)."


def _checks_help() -> str:
    """The jobs `annotate check` takes (those whose record declares `checks`) and their rules, from the registry."""
    from lotdata.annotate.checks import jobs_with_checks
    from lotdata.annotate.jobs import get_job

    jobs = ", ".join(f"{job.name} ({' '.join(job.checks)})" for job in map(get_job, jobs_with_checks()))
    return f"A job that declares checks: {jobs or 'none'}."


# ---------------------------------------------------------------------------------------------
# annotate check

#: `annotate check` found submissions that break a rule (flags.parquet written)
CHECK_FLAGGED_EXIT = 5
CHECK_FILES = ("flags.parquet", "check.json")


@dataclass(frozen=True, kw_only=True)
class CheckParams:
    job: str = param(help=_checks_help())
    input_path: str = param(
        help='Submissions: JSON lines or Parquet (id, title, sentences | sentence1..5 | text), a ROCStories csv, a Story Cloze csv, or ["story"] lines.',
        flag="--input",
        path="input",
    )
    out: str = param(help="Folder for flags.parquet (id, rule, detail) and check.json (counts per rule).")
    lang: str | None = param(
        None, help="The submissions' language: en or zh (the language rule checks the script; default: the job's)."
    )
    max_chars: int = param(70, help="Longest sentence (and ending) in characters (ROCStories: 70).", check=">0")
    max_rewrite_change: int = param(
        100,
        help="story_filter: characters (words in English) a rewrite may add to or drop from its segment (LOT: 100).",
        check=">=0",
    )
    corpus: str | None = param(
        None, help="An existing corpus (same formats) a submission must not nearly copy.", path="input"
    )
    near_duplicate: float = param(0.8, help="MinHash similarity from which a submission is a near copy.", check="share")


def _check_check(p: CheckParams) -> None:
    from lotdata.annotate.checks import job_rules
    from lotdata.annotate.jobs import get_job

    job_rules(p.job)  # a job that declares no checks: ValueError naming those that do
    lang = p.lang or get_job(p.job).lang
    if lang not in ("en", "zh"):
        raise ValueError(f"--lang {lang!r}: en or zh")
    if p.near_duplicate < 0.1:
        raise ValueError(f"--near-duplicate {p.near_duplicate}: a similarity in [0.1, 1]")


def _check(run: Run) -> dict[str, Any]:
    from lotdata.annotate.checks import CheckOptions, check_file, job_rules, read_submissions, story_text
    from lotdata.annotate.jobs import get_job

    p: CheckParams = run.params
    corpus_rows = read_submissions(p.corpus) if p.corpus else []
    options = CheckOptions(
        lang=p.lang or get_job(p.job).lang,
        max_chars=p.max_chars,
        near_duplicate=p.near_duplicate,
        max_rewrite_change=p.max_rewrite_change,
        corpus=[story_text(r) for r in corpus_rows],
        corpus_ids=[r["id"] for r in corpus_rows],
    )
    return check_file(p.input_path, job_rules(p.job), run.out("--out"), options)


def _check_sample(folder: Path) -> list[str]:
    story = {
        "id": "s1",
        "title": "The guitar",
        "sentences": [
            "Karen wanted to surprise her husband.",
            "She saved money for months.",
            "She bought him a guitar.",
            "She hid it behind the couch.",
            "He loved the gift.",
        ],
    }
    subs = folder / "subs.jsonl"
    subs.write_text(json.dumps(story) + "\n", encoding="utf-8")
    return ["story_write", "--input", str(subs), "--out", str(folder / "checked")]


ANNOTATE_CHECK = register_command(
    Command(
        name="annotate check",
        params=CheckParams,
        execute=_check,
        inputs=lambda p: {"--input": p.input_path, "--corpus": p.corpus},
        # a folder of flags.parquet and check.json, replaced whole; a folder holding other files is the user's
        outputs=lambda p: [Output("--out", Path(p.out), kind="folder", owned=_only(*CHECK_FILES))],
        summary="Run a job's automatic checks (named rules) on a file of submissions; print the counts per rule.",
        arguments=("job",),
        check=_check_check,
        sample=_check_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# annotate qualify


@dataclass(frozen=True, kw_only=True)
class QualifyParams:
    job: str = param(help="The job the quiz gates (story_write, sct_write, any job).")
    quiz: str = param(
        help='Quiz: JSON lines {"id", "item", "answer": acceptable|not_acceptable}; shipped: annotation_templates/quizzes/.',
        path="input",
    )
    pass_mark: float = param(
        0.8, help="Share of right answers a rater needs to be given the work.", flag="--pass", check="share"
    )
    rater: list[str] | None = param(None, help="Raters to qualify (repeatable; default: the whole team).")
    retry_after: float | None = param(
        None, help="Hours after a failed quiz when a new one is sent (default: no retry).", check=">=0"
    )
    lang: str = param("en", help="Language of the quiz screen: en or zh.")
    state: str | None = param(None, help=STATE_HELP, flag="--state-dir")


def _gate_path(p: QualifyParams) -> Path:
    from lotdata.annotate.qualify import Gate

    return Gate.path_for(state_dir(p.state), p.job)


def _qualify_check(p: QualifyParams) -> None:
    from lotdata.annotate.jobs import get_job

    get_job(p.job)  # an unknown job is exit 1 before anything is created
    if p.lang not in ("en", "zh"):
        raise ValueError(f"--lang {p.lang!r}: en or zh")


def resume_state_file(run: Run, label: str) -> Path:
    """The staged copy of a state file (`update` output), made ready: what a run cut short left there is kept (it
    records what was already sent to the server), unless it is not whole JSON; then the published file is used."""
    import shutil

    staged, published = run.out(label), run.final(label)
    if staged.exists():
        try:
            json.loads(staged.read_text(encoding="utf-8"))
            return staged
        except (OSError, ValueError):
            staged.unlink()
    if published.exists():
        shutil.copy2(published, staged)
    return staged


def _qualify(run: Run) -> dict[str, Any]:
    from lotdata.annotate.client import connect
    from lotdata.annotate.qualify import qualify

    p: QualifyParams = run.params
    gate = resume_state_file(run, "STATE/qualify/JOB.json")
    return qualify(
        connect(),
        p.job,
        p.quiz,
        pass_mark=p.pass_mark,
        raters=p.rater,
        retry_after_hours=p.retry_after,
        lang=p.lang,
        state=p.state,
        gate_file=gate,
    )


def _qualify_sample(folder: Path) -> list[str]:
    """Needs a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY): a team of one rater, the shipped quiz."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import add_raters
    from lotdata.resources import asset_dir

    state = folder / "state"
    add_raters(connect(), ["quizzer"], state=state)
    quiz = folder / "quiz.jsonl"
    quiz.write_bytes((Path(asset_dir("annotation_templates")) / "quizzes" / "story_write.en.jsonl").read_bytes())
    return ["story_write", "--quiz", str(quiz), "--state-dir", str(state)]


ANNOTATE_QUALIFY = register_command(
    Command(
        name="annotate qualify",
        service="Label Studio",
        params=QualifyParams,
        execute=_qualify,
        inputs=lambda p: {"--quiz": p.quiz, "STATE/team.json": state_dir(p.state) / "team.json"},
        # the gate accumulates every rater's attempts: its staging copy starts from the published one (or from what a
        # run cut short after sending quizzes kept, so their projects are not sent twice)
        outputs=lambda p: [Output("STATE/qualify/JOB.json", _gate_path(p), update=True)],
        summary="Send each rater an onboarding project with the quiz; run again to score it. Passed raters get JOB's pushes.",
        arguments=("job",),
        check=_qualify_check,
        sample=_qualify_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# annotate sct-csv

SCT_SPLITS = ("val", "test")


@dataclass(frozen=True, kw_only=True)
class SctCsvParams:
    input_path: str = param(
        help="A clozet dataset folder of four-sentence cases (the clozet/ of a cloze_verify pull of sct_write cases).",
        flag="--input",
        path="input",
    )
    out: str = param(help="Folder for val.csv and test.csv in the published Story Cloze Test layout.")


def _sct_csv(run: Run) -> dict[str, Any]:
    from lotdata.annotate.jobs.sct_write import write_storycloze
    from lotdata.datasets.folder import dataset_task, read_dataset
    from lotdata.errors import InputError, must_exist

    p: SctCsvParams = run.params
    source = must_exist(p.input_path, "--input")
    if not source.is_dir() or dataset_task(source) != "clozet":
        raise InputError("expected a clozet dataset folder", path=str(source))
    written = {}
    for split, table in read_dataset(source).items():
        if split in SCT_SPLITS and table.num_rows:
            try:
                write_storycloze(table.to_pylist(), run.out("--out") / f"{split}.csv")
            except ValueError as exc:
                raise InputError(str(exc), path=str(source)) from None
            written[split] = str(run.final("--out") / f"{split}.csv")
    if not written:
        raise InputError("no val or test case to write", path=str(source))
    return written


def _sct_csv_sample(folder: Path) -> list[str]:
    from lotdata.tasks.storycloze import import_storycloze

    csv_file = folder / "cases.csv"
    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,"
    header += "RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    row = (
        "c1,Karen wanted to surprise her husband.,She saved money for months.,She bought him a guitar.,"
        "She hid it behind the couch.,He loved the gift.,He hated music.,1\n"
    )
    csv_file.write_text(header + row, encoding="utf-8")
    cases = folder / "cases"
    if not cases.exists():
        import_storycloze(None, cases, test=csv_file)
    return ["--input", str(cases), "--out", str(folder / "sct")]


ANNOTATE_SCT_CSV = register_command(
    Command(
        name="annotate sct-csv",
        params=SctCsvParams,
        execute=_sct_csv,
        inputs=lambda p: {"--input": p.input_path},
        outputs=lambda p: [
            Output("--out", Path(p.out), kind="folder", owned=_only(*(f"{split}.csv" for split in SCT_SPLITS)))
        ],
        summary="Assemble verified Story Cloze cases into the published csv layout (`lotdata import storycloze` reads it).",
        sample=_sct_csv_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# annotate pull

#: what every pull writes, and what the jobs' `write` puts beside it (an assembled dataset is a folder with a manifest)
PULL_FILES = ("annotations.parquet", "quarantine.parquet", "agreement.json", "gold.json", "pull.json")
JOB_FILES = (
    "cases.jsonl",
    "flags.parquet",
    "human_eval.parquet",
    "table12.md",
    "human_perf.json",
    "stories.parquet",
    "story_decisions.parquet",
    "reorder.json",
    "story_versions.jsonl",
    "revisions.jsonl",
    "table2.json",
    "submissions.jsonl",
)


def is_pull_folder(folder: Path) -> bool:
    """A folder an earlier pull wrote (replaced whole by the next one): its tables, and nothing but what a pull
    writes there; a folder holding anything else is the user's, never replaced."""
    from lotdata.command import folder_kind

    if not any((folder / name).exists() for name in PULL_FILES):
        return False
    return all(
        entry.name in PULL_FILES + JOB_FILES or (entry.is_dir() and folder_kind(entry) is not None)
        for entry in folder.iterdir()
    )


@dataclass(frozen=True, kw_only=True)
class PullParams:
    job: str = param(help=jobs_help())
    project: str = param(help=PROJECT_HELP)
    out: str = param(
        help="Folder for annotations.parquet, quarantine.parquet, agreement.json and the assembled dataset(s)."
    )
    page_size: int | None = param(
        None, help="Read tasks page by page (default: one export request, faster).", check=">0"
    )
    min_gold_accuracy: float = param(0.8, help="Flag raters whose accuracy on the gold tasks is lower.", check=">=0")
    drop_flagged: bool = param(False, help="Leave the flagged raters' answers out of agreement and assembly.")
    allow_partial: bool = param(
        False, help="human_perf: write H even from fewer items or raters than pushed (marked partial)."
    )
    state: str | None = param(None, help=STATE_HELP, flag="--state-dir")


def _pull_check(p: PullParams) -> None:
    from lotdata.annotate.jobs import get_job

    get_job(p.job)  # an unknown job: exit 1 before connecting
    if p.min_gold_accuracy > 1:
        raise ValueError(f"--min-gold-accuracy {p.min_gold_accuracy}: a share of right answers in [0, 1]")


def _pull(run: Run) -> dict[str, Any]:
    from lotdata.annotate.client import connect
    from lotdata.annotate.workflow import pull
    from lotdata.progress import console

    p: PullParams = run.params
    return pull(
        connect(),
        p.job,
        p.project,
        run.out("--out"),
        page_size=p.page_size,
        state=p.state,
        min_gold_accuracy=p.min_gold_accuracy,
        drop_flagged=p.drop_flagged,
        allow_partial=p.allow_partial,
        on_page=lambda n, k: console.print(f"page {n}: {k} tasks", highlight=False),
        published=run.final("--out"),
    )


def _pull_sample(folder: Path) -> list[str]:
    """Needs a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY): one story pushed for story_filter and
    accepted by the API's user, pulled."""
    import secrets

    from lotdata.annotate.client import connect, export_tasks, find_project
    from lotdata.annotate.workflow import push
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.story import make_story_row

    state, title = folder / "state", f"sample pull {secrets.token_hex(4)}"  # the server outlives the folder
    stories = folder / "stories.parquet"
    text = "小明早上起床，发现外面下雨了。他带上伞去学校。路上他帮一位老人撑伞。老师表扬了他。他很开心。"
    write_parquet(table_from_rows([make_story_row(text, source="sample", lang="zh")], STORIES), stories)
    conn = connect()
    push(conn, "story_filter", stories, title, state=state)
    me = conn.call(conn.sdk.users.whoami).id
    for task in export_tasks(conn, find_project(conn, title).id):
        if not task.get("annotations"):
            result = [
                {"from_name": "decision", "to_name": "story", "type": "choices", "value": {"choices": ["accept"]}}
            ]
            conn.sdk.annotations.create(id=task["id"], result=result, completed_by=me, lead_time=10.0)
    return ["story_filter", "--project", title, "--out", str(folder / "pulled"), "--state-dir", str(state)]


ANNOTATE_PULL = register_command(
    Command(
        name="annotate pull",
        service="Label Studio",
        params=PullParams,
        execute=_pull,
        inputs=lambda p: {"--state-dir": state_dir(p.state)},
        outputs=lambda p: [Output("--out", Path(p.out), kind="folder", owned=is_pull_folder)],
        summary="Pull every annotation of every rater's project, validate it, score the gold tasks, measure agreement, assemble.",
        arguments=("job",),
        check=_pull_check,
        sample=_pull_sample,
    )
)
