"""The qualification gate (ROCStories 3.1 and 4.2: writers passed a test before they could work).

`lotdata annotate qualify JOB --pass 0.8` gives every rater of the team (or those named) an onboarding project
`JOB quiz #K · NAME` holding a quiz drawn for that rater from a pool (the shipped pool of JOB in the screen's language,
or `--quiz FILE`); the right answers stay in the state folder (`qualify/JOB.json`), never in the tasks. Run again, it
scores each rater's finished quiz: a rater at or above the pass mark is qualified, and every later push of JOB gives
its project to qualified raters only (a project of their own); a rater below it is not, and `status` says so. With
`--retry-after H` a failed rater gets a new quiz H hours after the failed one (0: at the next run; an admin resends
one at once with `--retry-after 0 --rater NAME`, docs/how-to/qualification.md).

What lotdata does about a crowd it does not know, where Label Studio OSS makes every account an admin (any account can
open a colleague's quiz project and read her answers, and lotdata cannot prevent it):
- each quiz holds `--items` questions drawn per rater, the least used among raters first, so raters share no item
  while the pool lasts, and in a seeded per-rater order, so no two raters share an order to copy;
- a retry is drawn from the items that rater has not seen (a pool too small tops it up with seen ones, counted as
  `repeated` on the attempt);
- task ids are salted per rater and attempt, so an id in a colleague's project says nothing about one's own;
- answers are checked per rater: only the rater's own first answer in her own quiz project counts (an answer another
  account gave there, or her second one, does not).

A quiz file is JSON lines `{"id": ..., "item": "text shown", "answer": "acceptable" | "not_acceptable"}` (optional
`why`, kept for the reviewer); lotdata ships a pool per job and language in `annotation_templates/quizzes/`
(`JOB.LANG.jsonl`), found wherever lotdata is installed: `--quiz` may be left out, or name a shipped quiz by its file
name (`story_write.en.jsonl`) from any directory.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from lotdata.annotate.client import (
    Connection,
    ensure_project,
    ensure_task_list_view,
    export_tasks,
    hidden_columns,
    push_tasks,
    task_list_title,
)
from lotdata.annotate.state import Team, _read_json, _same_server, _write_json, state_dir
from lotdata.annotate.template import InvalidResult, load_template
from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.io import iter_jsonl

VERDICTS = ("acceptable", "not_acceptable")
RULES_SHOWN = {
    "en": "Judge the item by the job's rules: five sentences of everyday life with a title, each at most 70 characters, "
    "no quotations, no slang; for endings: both name a character of the story, each is realistic alone, they differ.",
    "zh": "按这项工作的规则判断：带标题的五句日常生活故事，每句不超过 70 字，不用引号，不用网络用语；结尾题：两个结尾都提到故事里的"
    "人物，单独读都合理，两个结尾不同。",
}


#: what the quiz qualifies for, in the rater's words (the job's internal name is not shown)
WORK_NAMES = {
    "story_write": {"en": "writing five-sentence stories", "zh": "写五句话的故事"},
    "sct_write": {"en": "writing a right and a wrong ending", "zh": "写一个正确结尾和一个错误结尾"},
}


def quiz_description(job: str, lang: str) -> str:
    """The quiz project's description in the quiz's language."""
    work = WORK_NAMES.get(job, {}).get(lang) or job.replace("_", " ")
    if lang == "zh":
        return f"资格测验（{work}）：判断每一条是否符合这项工作的规则。答对足够多的题目后，才会分到正式任务。"
    return (
        f"Qualification quiz for {work}: judge whether each item follows the rules of the job. "
        "Raters who answer enough of them right are given the work."
    )


#: questions in one quiz unless `--items` says otherwise
QUIZ_ITEMS = 5


def shipped_quizzes() -> dict[str, Path]:
    """The quizzes lotdata ships, by file name (`story_write.en.jsonl`)."""
    from lotdata.resources import asset_dir

    return {path.name: path for path in sorted((Path(asset_dir("annotation_templates")) / "quizzes").glob("*.jsonl"))}


def quiz_path(quiz: str | Path | None, job: str, lang: str) -> Path:
    """The quiz file to read: `quiz` where it exists; else the shipped quiz it names (its file name or `JOB.LANG`,
    so a command copied from the docs works from any directory); None: the shipped pool of `job` in `lang`."""
    shipped = shipped_quizzes()
    if quiz is not None and Path(quiz).exists():
        return Path(quiz)
    name = f"{job}.{lang}.jsonl" if quiz is None else Path(quiz).name
    for candidate in (name, f"{name}.jsonl"):
        if candidate in shipped:
            return shipped[candidate]
    if quiz is None:
        raise LotdataError(
            f"lotdata ships no quiz for {job} in {lang!r} (shipped: {', '.join(shipped)}): give --quiz FILE"
        )
    return Path(quiz)  # load_quiz names the missing file


def load_quiz(path: str | Path) -> list[dict[str, str]]:
    """The quiz's questions; a line without an item or a right answer is bad input naming the file and the line."""
    path = must_exist(path, "--quiz file")  # a folder is a wrong path (exit 1), not a crash reading it
    questions = []
    for n, row in iter_jsonl(path):  # a line that is not UTF-8 or not JSON: bad input naming the line
        if not isinstance(row, dict) or not str(row.get("item") or "").strip():
            raise InputError('a quiz line is {"id", "item", "answer"}: no item', path=str(path), row=n)
        if row.get("answer") not in VERDICTS:
            raise InputError(
                f"answer {row.get('answer')!r}: a quiz needs each question's answer, one of {', '.join(VERDICTS)}",
                path=str(path),
                row=n,
            )
        questions.append({"id": str(row.get("id") or n), "item": str(row["item"]), "answer": row["answer"]})
    if not questions:
        raise InputError("no question in the quiz", path=str(path))
    return questions


@dataclass
class Gate:
    """What `qualify` keeps for one job: the quiz's answers (by opaque task id), the pass mark, each rater's attempts."""

    path: Path
    url: str
    job: str
    pass_mark: float
    retry_after_hours: float | None
    lang: str
    salt: str
    questions: dict[str, dict[str, str]] = field(default_factory=dict)  # opaque task id -> {id, item, answer}
    raters: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # name -> attempts
    items: int = QUIZ_ITEMS  # questions per quiz

    @classmethod
    def path_for(cls, directory: Path, job: str) -> Path:
        return directory / "qualify" / f"{job}.json"

    @classmethod
    def find(cls, directory: Path, job: str, url: str, *, path: Path | None = None) -> "Gate | None":
        """The gate of `job` in the state folder (read from `path` instead where given: a staged copy)."""
        path = path or cls.path_for(directory, job)
        if not path.exists():
            return None
        raw = _read_json(path)
        _same_server(path, raw.get("url"), url)
        raw.pop("path", None)
        return cls(path=path, **raw)

    def save(self) -> None:
        raw = asdict(self)
        raw.pop("path")
        _write_json(self.path, raw)

    def qualified(self) -> list[str]:
        return sorted(name for name, attempts in self.raters.items() if any(a.get("passed") for a in attempts))

    def describe(self, name: str) -> str:
        """One line for `status`: where the rater stands."""
        attempts = self.raters.get(name) or []
        if not attempts:
            return "no quiz yet"
        last = attempts[-1]
        if any(a.get("passed") for a in attempts):
            return f"qualified ({last['score']:.0%})"
        if last.get("score") is None:
            repeated = f" ({last['repeated']} item(s) seen before: grow the pool)" if last.get("repeated") else ""
            return f"quiz #{len(attempts)} sent, not finished{repeated}"
        retry = (
            f"; a new quiz from {_retry_at(last, self.retry_after_hours)}" if self.retry_after_hours is not None else ""
        )
        return f"failed the quiz ({last['score']:.0%} < {self.pass_mark:.0%}): not given the work{retry}"


def _retry_at(attempt: dict[str, Any], hours: float | None) -> str:
    finished = dt.datetime.fromisoformat(attempt["finished_at"])
    return (finished + dt.timedelta(hours=hours or 0)).isoformat(timespec="seconds")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


@dataclass(frozen=True)
class QuizRules:
    """How a quiz is given and scored: the pass mark (a share of right answers), the hours after a failed quiz
    when a new one is sent (None: never), questions per quiz, and the language of its screen."""

    pass_mark: float = 0.8
    retry_after_hours: float | None = None
    items: int = QUIZ_ITEMS
    lang: str = "en"


@dataclass(frozen=True)
class GateFile:
    """Where a qualify run keeps its gate instead of `STATE/qualify/JOB.json`, and `on_saved(path)` after each save."""

    path: str | Path
    on_saved: Callable[[Path], None] | None = None


def qualify(
    conn: Connection,
    job: str,
    quiz: str | Path | None = None,
    *,
    rules: QuizRules = QuizRules(),
    raters: Sequence[str] | None = None,
    state: str | Path | None = None,
    gate_file: GateFile | None = None,
) -> dict[str, dict[str, Any]]:
    """Send, score or re-send each rater's quiz; returns per rater the status line, the score and the quiz's page.
    `quiz`: the pool's file (None: the shipped pool of `job` in `rules.lang`, `quiz_path`).
    `gate_file`: where the gate (`STATE/qualify/JOB.json`) is read and written instead, and what to call after each
    save (`annotate qualify` gives its staged copy and publishes it at every save: it records quizzes already sent
    to the server)."""
    from lotdata.annotate.jobs import get_job

    get_job(job)  # an unknown job is exit 1 before anything is created
    if not 0 < rules.pass_mark <= 1:
        raise ValueError(f"--pass {rules.pass_mark}: a share of right answers in (0, 1]")
    if rules.items < 1:
        raise ValueError(f"--items {rules.items}: at least one question per quiz")
    pool = load_quiz(quiz_path(quiz, job, rules.lang))
    directory = state_dir(state)
    team = Team.load(directory, conn.url)
    names = _raters(team, raters)
    path = Path(gate_file.path) if gate_file is not None else Gate.path_for(directory, job)
    gate = Gate.find(directory, job, conn.url, path=path) or Gate(
        path, conn.url, job, rules.pass_mark, rules.retry_after_hours, rules.lang, secrets.token_hex(16)
    )
    gate.pass_mark, gate.retry_after_hours, gate.items = rules.pass_mark, rules.retry_after_hours, rules.items
    report = {}
    for name in names:
        attempts = gate.raters.setdefault(name, [])
        if attempts and attempts[-1].get("score") is None:
            _score(conn, gate, name, attempts[-1], team.raters[name].user_id)
        if not attempts or _may_retry(gate, attempts):
            attempts.append(_send(conn, gate, name, draw(gate, name, pool)))
        gate.save()
        if gate_file is not None and gate_file.on_saved is not None:
            gate_file.on_saved(gate.path)
        last = attempts[-1]
        report[name] = {
            "status": gate.describe(name),
            "score": last.get("score"),
            "quiz": f"{conn.url}/projects/{last['project_id']}/data",
        }
    return report


def _raters(team: Team, raters: Sequence[str] | None) -> list[str]:
    """The raters to quiz: those named (each must be in the team), else the whole team."""
    names = list(dict.fromkeys(raters or sorted(team.raters)))
    unknown = [n for n in names if n not in team.raters]
    if unknown:
        raise LotdataError(
            f"rater {unknown[0]!r} is not in the team ({', '.join(sorted(team.raters)) or 'none yet'}): "
            "add them with `lotdata annotate raters add`"
        )
    if not names:
        raise LotdataError("no rater in the team: add them with `lotdata annotate raters add`")
    return names


def _rank(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


def draw(gate: Gate, name: str, pool: list[dict[str, str]]) -> list[dict[str, str]]:
    """The questions of `name`'s next quiz, in the order she gets them.

    Drawn from the items she has not seen (a retry never repeats one while the pool lasts), the items fewest other
    raters were given first (raters share no item while the pool lasts), ties broken by a hash seeded with the gate's
    salt, the rater and the attempt; then shuffled by another such hash, so each rater has an order of her own. A pool
    with too few unseen items is topped up with the ones she saw least (the attempt counts them as `repeated`)."""
    number = len(gate.raters.get(name, [])) + 1
    seen: dict[str, int] = {}
    used: dict[str, int] = {}
    for rater, attempts in gate.raters.items():
        for attempt in attempts:
            for qid in attempt.get("items") or []:
                counts = seen if rater == name else used
                counts[qid] = counts.get(qid, 0) + 1
    rank = lambda q: (seen.get(q["id"], 0), used.get(q["id"], 0), _rank(gate.salt, name, number, q["id"]))  # noqa: E731
    chosen = sorted(pool, key=rank)[: min(gate.items, len(pool))]
    return sorted(chosen, key=lambda q: _rank(gate.salt, name, number, "order", q["id"]))


def _token(gate: Gate, name: str, number: int, question: dict[str, str]) -> str:
    """A task id of one rater's attempt: salted per rater and attempt, so it means nothing in another project."""
    return "q" + _rank(gate.salt, name, number, question["id"], question["item"])[:12]


def _may_retry(gate: Gate, attempts: list[dict[str, Any]]) -> bool:
    last = attempts[-1]
    if any(a.get("passed") for a in attempts) or last.get("score") is None or gate.retry_after_hours is None:
        return False
    return _now() >= dt.datetime.fromisoformat(_retry_at(last, gate.retry_after_hours))


def _send(conn: Connection, gate: Gate, name: str, questions: list[dict[str, str]]) -> dict[str, Any]:
    """Create the rater's quiz project #K with `questions`, imported (and listed) in the order given."""
    number = len(gate.raters.get(name, [])) + 1
    title = f"{gate.job} quiz #{number} · {name}"
    template = load_template("quiz" if gate.lang == "zh" else "en/quiz").xml
    project, _ = ensure_project(conn, title, template, raters=1, description=quiz_description(gate.job, gate.lang))
    tasks = []
    for q in questions:
        token = _token(gate, name, number, q)
        gate.questions[token] = q
        tasks.append({"data": {"uid": token, "item": q["item"], "rules": RULES_SHOWN[gate.lang]}})
    ensure_task_list_view(conn, project.id, task_list_title(gate.lang), hidden_columns(tasks))
    push_tasks(conn, project.id, tasks)
    seen = {qid for attempt in gate.raters.get(name, []) for qid in attempt.get("items") or []}
    return {
        "project_id": project.id,
        "title": title,
        "started_at": _now().isoformat(timespec="seconds"),
        "score": None,
        "passed": None,
        "finished_at": None,
        "questions": len(tasks),
        "items": [q["id"] for q in questions],
        "repeated": sum(q["id"] in seen for q in questions),
    }


def _score(conn: Connection, gate: Gate, name: str, attempt: dict[str, Any], user_id: int) -> None:
    """Score a finished quiz (every question answered by the rater); an unfinished one stays open."""
    template = load_template("quiz" if gate.lang == "zh" else "en/quiz")
    right = answered = 0
    tasks = export_tasks(conn, attempt["project_id"])
    for task in tasks:
        # answers are checked per rater: only her own answers count (OSS lets any account answer in her project),
        # and of those the first submitted (one rater, one vote, as in a pull)
        mine = [a for a in task.get("annotations") or [] if _author(a) == user_id and not a.get("was_cancelled")]
        question = gate.questions.get(str(task["data"].get("uid")))
        if not mine or question is None:
            continue
        try:
            first = min(mine, key=lambda a: a["id"])
            verdict = template.parse(first.get("result"), task["data"]).get("verdict")
        except InvalidResult:
            verdict = None
        answered += 1
        right += verdict == question["answer"]
    if answered < len(tasks) or not tasks:
        return
    attempt["score"] = round(right / len(tasks), 4)
    attempt["passed"] = attempt["score"] >= gate.pass_mark
    attempt["finished_at"] = _now().isoformat(timespec="seconds")


def _author(annotation: dict[str, Any]) -> Any:
    who = annotation.get("completed_by")
    return who.get("id") if isinstance(who, dict) else who
