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
