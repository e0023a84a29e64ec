"""What every annotation job is made of: the `JobSpec` record, the job registry, the annotation a job's
`assemble` receives, and the small helpers the jobs share (opaque uids, numbered choices, the vote).

A task is `{"data": ..., "hidden": ..., "predictions": ...}`: `data` holds only what a rater may see; `hidden`
(the right answer, the system behind an output, the original label, the input row) never goes to Label Studio:
the workflow keeps it locally and gives it back at pull as `Annotation.hidden`, so a pull never needs the
pushed input again. Uids are opaque where a readable one would give the answer away.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence

from lotdata.annotate.agreement import majority_vote
from lotdata.annotate.template import Template, load_template, load_template_file
from lotdata.errors import InputError
from lotdata.registry import Registry
from lotdata.schema import SPLITS

Row = dict[str, Any]
Task = dict[str, Any]
LANGS = ("zh", "en")


@dataclass
class Annotation:
    """One validated annotation, with its task's data."""

    uid: str
    data: Mapping[str, Any]
    annotator: str
    annotation_id: int
    created_at: str
    values: dict[str, Any]  # job-level parsed answer
    hidden: Mapping[str, Any] = field(default_factory=dict)
    lead_time: float | None = None  # seconds Label Studio measured on the task


@dataclass
class Output:
    """Where and how a pull writes a job's final tables: the folder, the manifest's command and parameters, the
    assembly's statistics and what the dataset cards need (licences, sources)."""

    folder: Path
    job: str
    params: dict[str, Any]
    command: str
    stats: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)

    def dataset(self, task: str, rows: list[Row]) -> dict[str, Any]:
        """A dataset folder `folder/task` (splits, LOT jsonl, manifest, card) of assembled rows."""
        from lotdata.datasets.folder import write_dataset

        by_split = {s: [r for r in rows if r["split"] == s] for s in SPLITS}
        task_stats = {**self.stats, "annotation_dropped": self.stats.get("dropped", {})}
        return write_dataset(
            self.folder / task,
            task,
            by_split,
            command=self.command,
            params=self.params,
            inputs=[],
            stats=task_stats,
            extra=self.extra,
        )


@dataclass(frozen=True)
class JobSpec:
    """One annotation job, declared once in its own module and registered with `register_job`.

    `templates` maps a language ("zh", "en") to the Label Studio config shown to raters: a name in
    `annotation_templates/` or a path to an XML file; every language's template has the same controls, so an answer
    parses the same whichever screen it was given on. `lang` is the default language.
    `load(path, splits) -> rows` reads `--input`; `to_tasks(rows, *, seed, lang) -> tasks` gives each row's task
    (a unique `uid` in `data`, what raters must not see in `hidden`, optional `predictions`);
    `check(values, data, hidden) -> answer` applies the job's rules on top of the template (InvalidResult says why);
    `votes(answer) -> [(question, value)]` is what agreement and gold accuracy are measured on;
    `assemble(annotations) -> {table: rows, ..., "stats": {...}}` decides the items; `write(assembled, output) ->
    summary` writes the final tables under `output.folder`.
    `raters`: raters per task by default; `default_splits`: what is pushed without `--split`; `sample_key`: what
    `--sample N` draws (an input, an example), `default_sample` its default.
    `checks`: the names of the rules (`lotdata.annotate.checks.RULES`) the job's submissions must follow.
    `summary` (one line) and `input_help` feed the CLI's help; `descriptions` (per language) the project's description.
    `case_key(hidden) -> case id`: tasks that are versions of one case (cloze_verify's right and wrong story) go to
    different raters whenever the team is large enough (`lotdata.annotate.assign`), else far apart in a rater's list.
    `demo_rows()` gives a few input rows and `simulate(task, rater) -> result` a Label Studio result a rater could
    give: the conformance test pushes, answers, pulls and assembles every job with them.
    `check_complete(assembled, job_state, allow_partial)`: a pull asks it whether the assembly covers what the push
    asked for (`job_state`: the pushed title's `lotdata.annotate.state.JobState`) and writes nothing when it raises
    (human_perf: H from fewer items or raters than pushed, an InputError unless `allow_partial`).
    """

    name: str
    summary: str
    input_help: str
    load: Callable[[Path, Sequence[str] | None], list[Row]]
    to_tasks: Callable[..., list[Task]]
    check: Callable[[dict[str, Any], Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]
    votes: Callable[[dict[str, Any]], list[tuple[str, Hashable]]]
    assemble: Callable[[list[Annotation]], dict[str, Any]]
    write: Callable[[dict[str, Any], Output], dict[str, Any]]
    demo_rows: Callable[[], list[Row]]
    simulate: Callable[[Task, int], list[dict[str, Any]]]
    templates: Mapping[str, str | Path] = field(default_factory=dict)
    lang: str = "zh"
    raters: int = 1
    default_splits: tuple[str, ...] | None = None
    sample_key: Callable[[Row], str] | None = None
    default_sample: int | None = None
    descriptions: Mapping[str, str] = field(default_factory=dict)
    #: the automatic checks (rule names of `lotdata.annotate.checks.RULES`) `lotdata annotate check JOB` runs
    checks: tuple[str, ...] = ()
    #: a writing job's empty slots: `slots(n) -> rows` for `push --n N` (no input)
    slots: Callable[[int], list[Row]] | None = None
    case_key: Callable[[Mapping[str, Any]], str | None] | None = None
    #: `--sample N` draws N of each stratum this names (human_perf: per task and split), else N in all
    sample_per: Callable[[Row], str] | None = None
    #: keyword arguments `load` takes beyond (path, splits), given by `annotate push` options of the same name
    load_options: tuple[str, ...] = ()
    #: keyword arguments `assemble` takes beyond the annotations, given by `annotate pull` options of the same name
    assemble_options: tuple[str, ...] = ()
    #: where the job comes in every listing (the CLI's help): the built-in ones in the order of the work, 1..11
    order: int = 100
    #: `check_complete(assembled, job_state, allow_partial)`: refuses (raises) an assembly short of the push
    check_complete: Callable[[dict[str, Any], Any, bool], None] | None = None
    #: with a team, every rater gets a project of their own even at one rater per task, and a task whose hidden
    #: `author` is a rater of the team never goes to that rater (review: a reviewer never opens their own work)
    own_projects: bool = False

    def __post_init__(self) -> None:
        if not self.templates:
            object.__setattr__(self, "templates", {self.lang: self.name})
        unknown = sorted(set(self.templates) - set(LANGS))
        if unknown:
            raise ValueError(f"job {self.name!r}: template languages {unknown} are not among {LANGS}")
        if self.lang not in self.templates:
            raise ValueError(f"job {self.name!r}: no template for its default language {self.lang!r}")
        if self.raters < 1:
            raise ValueError(f"job {self.name!r}: raters must be at least 1")
        if self.default_sample is not None and self.sample_key is None:
            raise ValueError(f"job {self.name!r}: default_sample needs a sample_key")

    @property
    def langs(self) -> tuple[str, ...]:
        return tuple(self.templates)

    def pick_lang(self, lang: str | None) -> str:
        """`lang`, or the job's default; ValueError naming the languages the job has screens in."""
        lang = lang or self.lang
        if lang not in self.templates:
            raise ValueError(f"job {self.name} has screens in {', '.join(self.templates)}, not {lang!r}")
        return lang

    def template_for(self, lang: str | None = None) -> Template:
        where = self.templates[self.pick_lang(lang)]
        return load_template_file(Path(where)) if isinstance(where, Path) else load_template(where)

    @property
    def template(self) -> Template:
        return self.template_for(self.lang)

    def description(self, lang: str | None = None) -> str:
        return self.descriptions.get(self.pick_lang(lang)) or f"lotdata {self.name}"

    def parse(
        self, result: Any, data: Mapping[str, Any], hidden: Mapping[str, Any] | None = None, *, lang: str | None = None
    ) -> dict[str, Any]:
        """Template check, then the job's own rules; InvalidResult names what is wrong."""
        return self.check(self.template_for(lang).parse(result, data), data, hidden or {})


# ---------------------------------------------------------------- the registry

#: every annotation job: the built-in ones (the modules of lotdata/annotate/jobs/ that call `register_job`), in the
#: order of the work, then those registered later or by a package's `lotdata.annotation_jobs` entry point
JOB_REGISTRY: Registry[JobSpec] = Registry(
    "annotation_job", modules=("annotate/jobs/*.py",), calls="register_job(", order=lambda job: job.order
)
ENTRY_POINT_GROUP = JOB_REGISTRY.group
#: the jobs lotdata ships, by name, in the CLI's order (read when used)
BUILTIN_JOBS: Mapping[str, JobSpec] = JOB_REGISTRY.view(builtin=True)


def register_job(spec: JobSpec) -> JobSpec:
    """Add a job (its module calls it at import); a name another record holds is a RegistryError."""
    return JOB_REGISTRY.register(spec, stacklevel=2)


def unregister_job(name: str) -> None:
    """Forget a job registered at run time (a test's made-up job); a built-in job stays."""
    if name not in BUILTIN_JOBS:
        JOB_REGISTRY.unregister(name)


def get_job(name: str) -> JobSpec:
    """The record of job `name` (RegistryError, a ValueError, naming the known jobs when there is none)."""
    return JOB_REGISTRY.get(name)


def job_names() -> list[str]:
    """Every job's name: the built-in ones first, then those registered later or by entry point."""
    return JOB_REGISTRY.names()


def all_jobs() -> list[JobSpec]:
    return JOB_REGISTRY.all()


# ---------------------------------------------------------------- helpers the jobs share


def prediction(model: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A pre-annotation of a task (Label Studio shows it as a suggestion the rater may change)."""
    return [{"model_version": model, "result": items}]


def choice(name: str, to_name: str, values: list[str]) -> dict[str, Any]:
    """One Choices region of a Label Studio result."""
    return {"from_name": name, "to_name": to_name, "type": "choices", "value": {"choices": values}}


def textarea(name: str, to_name: str, text: str) -> dict[str, Any]:
    """One TextArea region of a Label Studio result."""
    return {"from_name": name, "to_name": to_name, "type": "textarea", "value": {"text": [text]}}


def seeded_rank(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def opaque_uid(prefix: str, *parts: Any) -> str:
    """A stable uid that says nothing about its parts (a rater sees the uid in the task list)."""
    return f"{prefix}-{seeded_rank(json.dumps(parts, ensure_ascii=False))[:16]}"


def sample_rows(
    rows: list[Row], n: int, seed: int, key: Callable[[Row], str], per: Callable[[Row], str] | None = None
) -> list[Row]:
    """The rows of `n` groups (by `key`) drawn without replacement, seeded; input order kept. With `per`, `n` groups
    of each stratum (human_perf: each task and split)."""
    strata: dict[str, set[str]] = {}
    for row in rows:
        strata.setdefault(per(row) if per else "", set()).add(key(row))
    chosen = set()
    for groups in strata.values():
        chosen |= set(sorted(groups, key=lambda g: seeded_rank(f"{seed}:{g}"))[:n])
    return [r for r in rows if key(r) in chosen]


def by_uid(annotations: Iterable[Annotation]) -> dict[str, list[Annotation]]:
    """The annotations per task, each task's in the order they were given."""
    grouped: dict[str, list[Annotation]] = {}
    for ann in sorted(annotations, key=lambda a: (a.created_at, a.annotation_id)):
        grouped.setdefault(ann.uid, []).append(ann)
    return grouped


def numbers(low: int, high: int) -> list[dict[str, str]]:
    """Dynamic choices `low..high` (Label Studio gives them the hotkeys 1, 2, ... in order)."""
    return [{"value": str(k)} for k in range(low, high + 1)]


def rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def kept_by_vote(anns: Sequence[Annotation], answer: str, dropped: Counter) -> Hashable | None:
    """The answer most raters gave (`values[answer]`), where a rejection (`values["rejected"]`) is an answer of its
    own; None when nothing is kept, counted in `dropped` as `no_majority` or `rejected`."""
    outcome = majority_vote("reject" if a.values["rejected"] else a.values[answer] for a in anns)
    if outcome is None:
        dropped["no_majority"] += 1
    elif outcome == "reject":
        dropped["rejected"] += 1
    else:
        return outcome
    return None


def voters_for(anns: Sequence[Annotation], answer: str, outcome: Hashable) -> list[Annotation]:
    """The raters (in order) whose answer is the decided one."""
    return [a for a in anns if not a.values["rejected"] and a.values[answer] == outcome]


# ---------------------------------------------------------------- inputs the jobs share


def load_stories(path: Path, splits: Sequence[str] | None = None) -> list[Row]:
    from lotdata.datasets.folder import load_stories as _load_stories

    return _load_stories([path])


def load_dataset_rows(path: Path, splits: Sequence[str] | None, tasks: Sequence[str]) -> list[Row]:
    """The rows of a dataset folder of one of `tasks`, each marked with its task under `_task`."""
    from lotdata.datasets.folder import dataset_task, read_dataset

    if not path.is_dir():
        raise InputError(f"expected a {' or '.join(tasks)} dataset folder", path=str(path))
    found = dataset_task(path)
    if found not in tasks:
        raise InputError(f"a {found} dataset, expected {' or '.join(tasks)}", path=str(path))
    tables = read_dataset(path)
    return [
        {**row, "_task": found} for split in (splits or SPLITS) if split in tables for row in tables[split].to_pylist()
    ]


def dataset_loader(task: str) -> Callable[[Path, Sequence[str] | None], list[Row]]:
    """A `load` that reads a dataset folder of `task`."""

    def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
        return [{k: v for k, v in row.items() if k != "_task"} for row in load_dataset_rows(path, splits, [task])]

    return load


def read_revisions(path: Path, fields: Sequence[str], job: str) -> list[Row]:
    """The work sent back to its writers (`revisions.jsonl` of a review pull), each line holding `fields`:
    bad input names the file and the line."""
    from lotdata.io import iter_jsonl

    rows = []
    for n, row in iter_jsonl(path):
        missing = [k for k in fields if not isinstance(row, dict) or k not in row]
        if missing:
            raise InputError(f"a revision line of {job} lacks {', '.join(missing)}", path=str(path), row=n)
        rows.append(row)
    return rows
