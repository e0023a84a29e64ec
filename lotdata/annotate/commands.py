"""The `lotdata annotate` commands that write local files, as records (`lotdata.command`): `check`, `qualify`,
`sct-csv`, `push`, `pull` and `raters add`. The CLI, the library call and the conformance checks are derived from
them, and the one runner gives each its checks, locks and atomic publication. What a command sends to Label Studio is
a remote side effect the runner cannot stage; what it keeps locally (the state folder's files) is a declared output
like any other. A state file that records what already happened on the server (push's job file, the team) is an
`update` output published at every save (`Run.checkpoint`), so it never lags behind the server when a run is cut
short."""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from lotdata.annotate.client import IMPORT_BATCH_SIZE
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


def _per_job(text: str, value) -> str:
    """`text` followed by each job's own value of something (its input, its raters), from the job records."""
    from lotdata.annotate.jobs import all_jobs

    return f"{text} " + ", ".join(f"{value(job)} ({job.name})" for job in all_jobs() if value(job) is not None) + "."


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
    max_chars: int | None = param(
        None,
        help="Longest sentence (and ending, title) in characters (default: English 72, the longest in the published "
        "Story Cloze data; Chinese 70; with --strict-paper 70, ROCStories §3.1).",
        check=">0",
    )
    strict_paper: bool = param(
        False,
        help="The papers' letter instead of their published data's conventions: sentences of at most 70 characters "
        "(ROCStories §3.1) and only LOT appendix 1's punctuation (？。，！……；《》), which LOT's own stories break.",
    )
    max_rewrite_change: int = param(
        100,
        help="story_filter: characters (words in English) a rewrite may add to or drop from its segment (LOT: 100).",
        check=">=0",
    )
    corpus: str | None = param(
        None, help="An existing corpus (same formats) a submission must not nearly copy.", path="input"
    )
    near_duplicate: float = param(0.8, help="MinHash similarity from which a submission is a near copy.", check="share")
    model: str | None = param(
        None,
        help="sct_write: an ending-only model folder (`lotdata quality endings`, or a pull's ending_model/): a pair it "
        "gets right without the story with --easy-confidence or more is flagged model_easy.",
        path="input",
    )
    easy_confidence: float = param(
        0.9, help="With --model: the confidence from which a pair is model_easy.", check="share"
    )


def _check_check(p: CheckParams) -> None:
    from lotdata.annotate.checks import job_rules
    from lotdata.annotate.jobs import get_job

    job_rules(p.job)  # a job that declares no checks: ValueError naming those that do
    if p.model is not None and p.job != "sct_write":
        raise ValueError(f"--model: only sct_write's pairs are scored by an ending-only model, not {p.job}'s")
    lang = p.lang or get_job(p.job).lang
    if lang not in ("en", "zh"):
        raise ValueError(f"--lang {lang!r}: en or zh")
    if p.near_duplicate < 0.1:
        raise ValueError(f"--near-duplicate {p.near_duplicate}: a similarity in [0.1, 1]")


def _check(run: Run) -> dict[str, Any]:
    from lotdata.annotate.checks import CheckOptions, check_file, job_rules, read_submissions, story_text
    from lotdata.annotate.jobs import get_job

    p: CheckParams = run.params
    corpus_rows = read_submissions(p.corpus, shape="story") if p.corpus else []  # a Story Cloze csv: its stories
    options = CheckOptions(
        lang=p.lang or get_job(p.job).lang,
        max_chars=p.max_chars,
        strict_paper=p.strict_paper,
        near_duplicate=p.near_duplicate,
        max_rewrite_change=p.max_rewrite_change,
        corpus=[story_text(r) for r in corpus_rows],
        corpus_ids=[r["id"] for r in corpus_rows],
    )
    file_checks = []
    if p.model is not None:
        from lotdata.annotate.jobs.sct_write import ModelEasyCheck

        file_checks.append(ModelEasyCheck(p.model, p.easy_confidence))
    return check_file(p.input_path, job_rules(p.job), run.out("--out"), options, file_checks)


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
        inputs=lambda p: {"--input": p.input_path, "--corpus": p.corpus, "--model": p.model},
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
    quiz: str | None = param(
        None,
        help='Quiz pool: JSON lines {"id", "item", "answer": acceptable|not_acceptable}, or the file name of a shipped '
        "pool (story_write.en.jsonl: found from any directory); default: the shipped pool of JOB in --lang.",
        path="input",
    )
    items: int = param(
        5, help="Questions per quiz, drawn per rater from the pool (a retry: items not seen).", check=">0"
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


def _quiz_file(p: QualifyParams) -> Path | None:
    """The quiz the run reads: --quiz, the shipped pool it names, or the job's shipped pool (None: there is none,
    and the run says so)."""
    from lotdata.annotate.qualify import quiz_path
    from lotdata.errors import LotdataError

    try:
        return quiz_path(p.quiz, p.job, p.lang)
    except LotdataError:
        return None


def _qualify_check(p: QualifyParams) -> None:
    from lotdata.annotate.jobs import get_job

    get_job(p.job)  # an unknown job is exit 1 before anything is created
    if p.lang not in ("en", "zh"):
        raise ValueError(f"--lang {p.lang!r}: en or zh")


def published_state_file(run: Run, label: str) -> Path:
    """The staged copy of a state file (`update` output) that a run saves and publishes at every save
    (`Run.checkpoint`), made ready from the published file: that one is never behind the server, while a copy a
    run cut short left in staging may be (another command has published the file since)."""
    import shutil

    staged, published = run.out(label), run.final(label)
    if published.exists():
        shutil.copy2(published, staged)
    elif staged.exists():
        staged.unlink()
    return staged


def _qualify(run: Run) -> dict[str, Any]:
    from lotdata.annotate.client import connect
    from lotdata.annotate.qualify import GateFile, QuizRules, qualify

    p: QualifyParams = run.params
    gate = published_state_file(run, "STATE/qualify/JOB.json")
    return qualify(
        connect(),
        p.job,
        p.quiz,
        rules=QuizRules(pass_mark=p.pass_mark, retry_after_hours=p.retry_after, items=p.items, lang=p.lang),
        raters=p.rater,
        state=p.state,
        gate_file=GateFile(gate, on_saved=lambda _path: run.checkpoint("STATE/qualify/JOB.json")),
    )


def _qualify_sample(folder: Path) -> list[str]:
    """Needs a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY): a team of one rater, the shipped quiz."""
    from lotdata.annotate.client import connect
    from lotdata.annotate.team import add_raters
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
        inputs=lambda p: {"--quiz": _quiz_file(p), "STATE/team.json": state_dir(p.state) / "team.json"},
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
    "reviews.jsonl",
    "held.jsonl",
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
    aggregate: str = param(
        "majority",
        help="How agreement.json estimates the items' labels and each rater's accuracy (raters near chance are "
        "flagged): majority, dawid-skene or mace (crowd-kit); meant for the jobs that vote (cloze_verify, "
        "senpos_refine, human_eval, human_perf). The job's own rule still assembles the dataset; with "
        "--drop-flagged, dawid-skene and mace also leave out the raters they find near chance.",
        choices=("majority", "dawid-skene", "mace"),
    )
    model: str | None = param(
        None,
        help="sct_write: the ending-only model that flags a pair it gets right without the story (model_easy): a "
        "folder of `lotdata quality endings` or an earlier pull's ending_model/; default: one trained on this pull's "
        "cases (each scored by a model that never saw it; from 50 cases); off: none.",
    )
    easy_confidence: float = param(
        0.9, help="sct_write: the model's confidence from which a pair is flagged model_easy.", check="share"
    )


SEEN_FILE = "STATE/seen/PROJECT.json"


def _pull_inputs(p: PullParams) -> dict[str, Any]:
    """The state files a pull reads (the team, the pushed title's hidden values, the job's quiz gate)."""
    from lotdata.annotate.qualify import Gate
    from lotdata.annotate.state import JobState

    directory = state_dir(p.state)
    return {
        "STATE/team.json": directory / "team.json",
        "STATE/jobs/PROJECT.json": JobState.path_for(directory, p.project),
        "STATE/qualify/JOB.json": Gate.path_for(directory, p.job),
    }


def _seen_file(p: PullParams) -> Path:
    from lotdata.annotate.seen import seen_path

    return seen_path(state_dir(p.state), p.project)


def _pull_check(p: PullParams) -> None:
    from lotdata.annotate.jobs import get_job

    get_job(p.job)  # an unknown job: exit 1 before connecting
    if p.min_gold_accuracy > 1:
        raise ValueError(f"--min-gold-accuracy {p.min_gold_accuracy}: a share of right answers in [0, 1]")
    if p.model is not None and p.job != "sct_write":  # else ignored: only sct_write's assembly takes a model
        raise ValueError(f"--model: only sct_write's pull scores its pairs with an ending-only model, not {p.job}'s")
    if p.model not in (None, "off") and not Path(p.model).is_dir():
        raise ValueError(
            f"--model {p.model}: no such folder (a `lotdata quality endings` model or a pull's ending_model/; off: none)"
        )
    from lotdata.errors import require

    require("krippendorff", "labelstudio")  # alpha in agreement.json: exit 4 with the install command, before work
    if p.aggregate != "majority":
        require("crowdkit", "labelstudio")


def _pull(run: Run) -> dict[str, Any]:
    from lotdata.annotate.client import connect
    from lotdata.annotate.pull import pull
    from lotdata.annotate.seen import StateFile
    from lotdata.progress import console

    # what this pull saw is published with its tables, only when it succeeds (an observation, not a side effect on
    # the server: a failed pull leaves the previous record, and the next pull still names what was deleted since)
    seen = published_state_file(run, SEEN_FILE)
    summary = pull(
        connect(),
        run.params,
        run.out("--out"),
        on_page=lambda n, k: console.print(f"page {n}: {k} tasks", highlight=False),
        published=run.final("--out"),
        seen=StateFile(seen),
    )
    if "active_learning" in summary:  # a push with --order uncertainty: did the order pay on these decisions?
        console.print(summary["active_learning"]["summary"], highlight=False)
    return summary


def _pull_sample(folder: Path) -> list[str]:
    """Needs a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY): one story pushed for story_filter and
    accepted by the API's user, pulled."""
    import secrets

    from lotdata.annotate.client import connect, export_tasks, find_project
    from lotdata.annotate.push import push
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.story import make_story_row

    state, title = folder / "state", f"sample pull {secrets.token_hex(4)}"  # the server outlives the folder
    stories = folder / "stories.parquet"
    text = "小明早上起床，发现外面下雨了。他带上伞去学校。路上他帮一位老人撑伞。老师表扬了他。他很开心。"
    write_parquet(table_from_rows([make_story_row(text, source="sample", lang="zh")], STORIES), stories)
    conn = connect()
    push(conn, PushParams(job="story_filter", input_path=str(stories), project=title, state=str(state)))
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
        inputs=_pull_inputs,
        # the annotations this pull saw: the next one names those deleted since (an update output, published whole)
        outputs=lambda p: [
            Output("--out", Path(p.out), kind="folder", owned=is_pull_folder),
            Output(SEEN_FILE, _seen_file(p), update=True),
        ],
        summary="Pull every annotation of every rater's project, validate it, score the gold tasks, measure agreement, assemble.",
        arguments=("job",),
        check=_pull_check,
        sample=_pull_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# annotate push

JOB_FILE = "STATE/jobs/PROJECT.json"


@dataclass(frozen=True, kw_only=True)
class PushParams:
    job: str = param(help=jobs_help())
    input_path: str | None = param(
        None, help=_per_job("What the job reads:", lambda job: job.input_help), flag="--input", path="input"
    )
    project: str = param(help=PROJECT_HELP)
    split: str | list[str] | None = param(None, help="Splits to push, e.g. val,test (default: the job's own).")
    raters: int | None = param(None, help=_per_job("Annotators per task; default:", lambda job: job.raters), check=">0")
    limit: int | None = param(
        None,
        help="Push at most this many rows (or inputs, where a task shows several rows side by side).",
        check=">0",
    )
    batch_size: int = param(IMPORT_BATCH_SIZE, help="Tasks per import request.", check=">0")
    gold: str | None = param(
        None,
        help='Known-answer tasks to mix in: JSON lines {"data": {...}, "answer": {question: value}}.',
        path="input",
    )
    assign: str | list[str] | None = param(
        None,
        help="Raters of the team who get this job (comma-separated; default: the whole team, and raters added later).",
    )
    state: str | None = param(None, help=STATE_HELP, flag="--state-dir")
    sample: int | None = param(
        None,
        help=_per_job(
            "Push a seeded draw of this many inputs or examples; jobs that allow it:",
            lambda job: job.sample_key and f"default {job.default_sample or 'all'}",
        ),
        check=">0",
    )
    seed: int = param(0, help="Seed of --sample and of the jobs' shuffled orders (human_eval's A/B/C).")
    lang: str | None = param(
        None,
        help=_per_job(
            "Language of the raters' screens (a project keeps its first push's); the first is the job's default:",
            lambda job: "/".join(dict.fromkeys([job.lang, *job.langs])),
        ),
    )
    n: int | None = param(
        None, help="A writing job (story_write): push this many empty writing slots (no --input).", check=">0"
    )
    words: str | None = param(
        None,
        help="clozet_write: the stories' length in words, MIN-MAX (LOT: about 50-500, the default; 0 for no bound).",
    )
    model: str | None = param(
        None,
        help="story_filter: a `lotdata quality train` model whose guess (accept or reject) and score each task shows "
        "(never on cloze_verify: it would bias the judgement).",
        path="input",
    )
    order: str = param(
        "push",
        help="push (the order pushed), or uncertainty (with --model: Label Studio serves the task the model is least "
        "sure of first).",
        choices=("push", "uncertainty"),
    )


def _job_file(p: PushParams) -> Path:
    from lotdata.annotate.state import JobState

    return JobState.path_for(state_dir(p.state), p.project)


def _push_check(p: PushParams) -> None:
    """Before any file or connection: the input is there (a wrong path is not a server problem), the job, its
    language, splits and options exist, and the Label Studio SDK is installed (exit 4)."""
    from lotdata.annotate.push import check_push
    from lotdata.annotate.suggest import check_suggest
    from lotdata.errors import require

    check_push(p)
    check_suggest(p.job, p.model, p.order)
    require("label_studio_sdk", "labelstudio")


def _push_inputs(p: PushParams) -> dict[str, Any]:
    from lotdata.annotate.qualify import Gate

    directory = state_dir(p.state)
    return {
        "--input": p.input_path,
        "--gold": p.gold,
        "--model": p.model,
        "STATE/team.json": directory / "team.json",
        "STATE/qualify/JOB.json": Gate.path_for(directory, p.job),
    }


def _push(run: Run) -> dict[str, Any]:
    from lotdata.annotate.client import connect
    from lotdata.annotate.push import push

    p: PushParams = run.params
    staged = published_state_file(run, JOB_FILE)
    with _push_progress(run, p.job) as advance:
        summary = push(
            connect(), p, progress=advance, state_file=staged, on_saved=lambda _path: run.checkpoint(JOB_FILE)
        )
    summary["state"] = str(run.final(JOB_FILE))
    return summary


@contextmanager
def _push_progress(run: Run, job: str) -> Iterator[Any]:
    """advance(k) of the push's bar: the caller's (`run.hooks["progress"](name)` gives (on_start, advance); None:
    no bar), else one of its own."""
    if "progress" in run.hooks:
        factory = run.hooks["progress"]
        yield factory(f"push {job}")[1] if factory is not None else None
        return
    from lotdata.progress import progress

    with progress() as bar:
        handle = bar.add_task(f"push {job}", total=None)
        yield lambda k: bar.advance(handle, k)


def _push_sample(folder: Path) -> list[str]:
    """Needs a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY): two stories of the embedded sample
    corpus (`lotdata read lotdata:sample`) pushed for story_filter under a title of their own."""
    import secrets

    import pyarrow.parquet as pq

    from lotdata.command import get_command
    from lotdata.io import write_parquet

    stories = folder / "stories.parquet"
    if not stories.exists():
        read, corpus = get_command("read"), folder / "sample.parquet"
        read.run(read.params(inputs=["lotdata:sample"], out=str(corpus)))
        write_parquet(pq.read_table(corpus).slice(0, 2), stories)
    title = f"sample push {secrets.token_hex(4)}"  # the server outlives the folder
    return ["story_filter", "--input", str(stories), "--project", title, "--state-dir", str(folder / "state")]


ANNOTATE_PUSH = register_command(
    Command(
        name="annotate push",
        service="Label Studio",
        params=PushParams,
        execute=_push,
        inputs=_push_inputs,
        # the job file records what is on the server (opaque ids, projects): it is extended, and published at every
        # save, before the first import and after each rater's project
        outputs=lambda p: [Output(JOB_FILE, _job_file(p), update=True)],
        summary="Create or update the project(s) and import tasks under opaque ids; rows already there are not "
        "imported again.\n\nWith several raters per task and a team, every rater gets a project of their own "
        "(TITLE · NAME).",
        arguments=("job",),
        check=_push_check,
        sample=_push_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# annotate raters add

TEAM_FILE = "STATE/team.json"


@dataclass(frozen=True, kw_only=True)
class RatersAddParams:
    names: list[str] = param(help="Rater names (letters, digits, . _ -).")
    state: str | None = param(None, help=STATE_HELP, flag="--state-dir")


def _raters_add_check(p: RatersAddParams) -> None:
    from lotdata.annotate.state import check_rater_name
    from lotdata.errors import require

    if not p.names:
        raise ValueError("name at least one rater")
    for name in p.names:
        check_rater_name(name)
    require("label_studio_sdk", "labelstudio")


def _job_label(path: Path) -> str:
    return f"STATE/jobs/{path.name}"


def _raters_add_outputs(p: RatersAddParams) -> list[Output]:
    """The team, and the file of every title pushed from the state folder (a rater added gets a project of each
    job pushed per rater, recorded there): each extended, and published at every save."""
    from lotdata.annotate.state import job_files

    directory = state_dir(p.state)
    jobs = [Output(_job_label(path), path, update=True) for path in job_files(directory)]
    return [Output(TEAM_FILE, directory / "team.json", update=True), *jobs]


def _raters_add(run: Run) -> dict[str, Any]:
    from lotdata.annotate.client import connect
    from lotdata.annotate.team import add_raters

    p: RatersAddParams = run.params
    team = published_state_file(run, TEAM_FILE)
    jobs = [published_state_file(run, label) for label in run.declared if label != TEAM_FILE]
    label_of = {path: label for label, path in run.staged.items()}
    report = add_raters(
        connect(),
        p.names,
        state=p.state,
        team_file=team,
        job_files=[path for path in jobs if path.exists()],
        on_saved=lambda path: run.checkpoint(label_of[path]),
    )
    return {entry.pop("rater"): entry for entry in report}


def _raters_add_sample(folder: Path) -> list[str]:
    """Needs a Label Studio server (LABEL_STUDIO_URL, LABEL_STUDIO_API_KEY): one rater (an existing account is
    taken as it is, so the server may outlive the folder)."""
    return ["sampler", "--state-dir", str(folder / "state")]


ANNOTATE_RATERS_ADD = register_command(
    Command(
        name="annotate raters add",
        service="Label Studio",
        params=RatersAddParams,
        execute=_raters_add,
        outputs=_raters_add_outputs,
        summary="Create a Label Studio account per rater and their own project of every job pushed per rater.\n\n"
        "Prints each new rater's login (URL, e-mail, password) once on stdout: pass it on, it is stored nowhere.",
        arguments=("names",),
        check=_raters_add_check,
        sample=_raters_add_sample,
    )
)
