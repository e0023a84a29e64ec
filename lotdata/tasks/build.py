"""Build a task dataset: stories -> examples -> seeded grouped splits -> a dataset folder (`lotdata.datasets`)."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from lotdata.datasets.folder import (
    BuildReport,
    _dataset_files,
    _stories_files,
    load_clozet,
    load_stories,
    split_warnings,
    write_dataset,
)
from lotdata.datasets.registry import builder_tasks, get_task
from lotdata.datasets.release import sources_by_split
from lotdata.datasets.splits import SplitSpec, assign_splits, parse_split_spec, story_order_key, whole_stories_up_to
from lotdata.errors import InputError, LotdataError
from lotdata.exec import ExecSettings, Shard, read_shard_rows, run_shards, write_row_grouped
from lotdata.io import check_output_dir, sha256_file, sha256_text, write_jsonl
from lotdata.paths import check_outputs
from lotdata.schema import SPLITS, STORIES, STORY_STATUSES, table_from_rows
from lotdata.tasks.common import BuildStats, StoryOutcome
from lotdata.tasks.provenance import build_environment
from lotdata.text.tokenize import check_tokenizer_env

#: stories in these states are never used to build examples
EXCLUDED_STATUSES = ("rejected",)
#: annotators' decisions that keep a story (LOT's "filtered stories": accepted as is, or rewritten)
FILTERED_STATUSES = ("accepted", "rewritten")
DEFAULT_SPLIT = "train=0.8,val=0.1,test=0.1"
#: builders need no part-of-speech tags: rjieba gives jieba's tokens, much faster (bench/build.md);
#: LOTDATA_TOKENIZER or `tokenizer="jieba"` gives LOT's exact setting
BUILD_TOKENIZER = "rjieba"


def _builder(task: str) -> tuple[Callable[..., StoryOutcome], type]:
    builder = get_task(task).builder
    if builder is None:
        raise ValueError(f"no automatic builder for task {task!r} (builders: {', '.join(builder_tasks())})")
    return builder.examples, builder.params


#: what each drop reason means, with the parameter that sets it (the manifest and the card say it)
DROP_RULES = {
    "too_few_sentences": "fewer sentences than the task needs (SenPos: min_candidates + 2 units, our choice; PlotCom: 3)",
    "no_eligible_sentence": "no sentence of at least min_chars characters to remove (SenPos: inner ones; PlotCom: as mask_positions says)",
    "too_long": "PlotCom: the story has max_words jieba words or more (our choice; LOT states 500 words for SenPos only)",
    "outline_too_short": "OutGen: fewer than min_phrases outline phrases",
    "status_rejected": "the story was rejected in annotation",
    "in_clozet": "PlotCom train: the story is also a ClozeT val/test story (PlotCom val/test come from ClozeT)",
    "status_raw": "the story's status is raw while the build takes only the filtered (accepted/rewritten) stories",
    "status_clean": "the story's status is clean while the build takes only the filtered (accepted/rewritten) stories",
    "status_accepted": "accepted stories were not among the statuses asked for",
    "status_rewritten": "rewritten stories were not among the statuses asked for",
}


def build_tokenizer(name: str | None) -> str:
    """The tokenizer a build uses: `name`, else LOTDATA_TOKENIZER, else rjieba (jieba's tokens, faster)."""
    return name or os.environ.get("LOTDATA_TOKENIZER") or BUILD_TOKENIZER


def statuses_used(task: str, stories: Sequence[Mapping[str, Any]], statuses: Sequence[str] | None) -> list[str]:
    """The story statuses a build takes. Asked for: those. A task built from filtered stories only (OutGen,
    LOT: "based on filtered stories") on stories carrying annotators' decisions: the accepted and rewritten
    ones. Otherwise every status but rejected."""
    present = {s["status"] for s in stories}
    if statuses:
        return sorted(set(statuses) - set(EXCLUDED_STATUSES))  # rejected stories are never built
    if get_task(task).filtered_stories_only and present & set(FILTERED_STATUSES):
        return sorted(FILTERED_STATUSES)
    return sorted(present - set(EXCLUDED_STATUSES))


def build_examples(
    task: str,
    stories: Iterable[Mapping[str, Any]],
    *,
    seed: int,
    params: Mapping[str, Any] | None = None,
    progress: Callable[[int], None] | None = None,
    exclude: Mapping[str, str] | None = None,
    statuses: Sequence[str] | None = None,
    stats: BuildStats | None = None,
    tokenizer: str | None = None,
) -> tuple[list[dict[str, Any]], BuildStats]:
    """Run a task's per-story builder over every usable story (pure: no files); the builder counts words
    with `tokenizer` (None: `default_tokenizer()`; `build_dataset` passes `build_tokenizer(...)`).

    `exclude` maps story ids to a drop reason (e.g. stories held by ClozeT val/test); `statuses` are the
    story statuses taken (default: every one but rejected). SenPos paragraphs (runs of long stories
    included) are counted in `stats.paragraphs*`; `stats` continues an earlier count.
    """
    make, params_cls = _builder(task)
    task_params = params_cls(**(params or {}))
    if stats is None:
        stats = BuildStats()
        stats.paragraphs = 0
        stats.paragraphs_dropped = Counter()
    examples: list[dict[str, Any]] = []
    for story in stories:
        if story["status"] in EXCLUDED_STATUSES or (statuses is not None and story["status"] not in statuses):
            outcome = StoryOutcome(dropped=f"status_{story['status']}")
        elif exclude and story["story_id"] in exclude:
            outcome = StoryOutcome(dropped=exclude[story["story_id"]])
        else:
            outcome = make(story, task_params, seed, tokenizer=tokenizer)
        stats.add(outcome)
        stats.paragraphs += getattr(outcome, "paragraphs", 0)
        stats.paragraphs_dropped.update(getattr(outcome, "paragraphs_dropped", {}))
        examples.extend(outcome.examples)
        if progress:
            progress(1)
    return examples, stats


def build_capped(
    task: str,
    stories: Sequence[Mapping[str, Any]],
    limit: int,
    *,
    seed: int,
    group: Callable[[Mapping[str, Any]], str],
    **options: Any,
) -> tuple[list[dict[str, Any]], BuildStats]:
    """`build_examples` for at most `limit` examples, building only the stories it needs.

    Groups (a story, or its near-duplicate cluster) are built in the seeded order `_cap` takes them; a
    group whose examples would pass the limit is left out, and the work stops once the limit is met,
    so the examples are those a full build capped at `limit` keeps.
    """
    by_group: dict[str, list[Mapping[str, Any]]] = {}
    for story in stories:
        by_group.setdefault(group(story), []).append(story)
    kept: list[dict[str, Any]] = []
    stats = None
    for key in sorted(by_group, key=lambda g: story_order_key(g, seed)):
        examples, stats = build_examples(task, by_group[key], seed=seed, stats=stats, **options)
        if len(kept) + len(examples) <= limit:
            kept.extend(examples)
        if len(kept) == limit:
            break
    return kept, stats


def _stats_dict(task: str, stats: BuildStats) -> dict[str, Any]:
    """The build's counts, with the task's own (`build_stats`: SenPos paragraphs)."""
    task_stats = get_task(task).build_stats
    return {**stats.as_dict(), **(task_stats(stats) if task_stats is not None else {})}


#: stories per shard of the executor (a shard's examples are built in one process)
DEFAULT_SHARD_ROWS = 2000
#: the executor's work folder inside the output folder (stories, parts, done markers); removed after a build
WORK_DIR = ".lotdata-work"


class _BuildShard:
    """Build the examples of one shard of stories into a jsonl part (a picklable callable for the executor)."""

    def __init__(
        self,
        task: str,
        seed: int,
        params: Mapping[str, Any] | None,
        exclude: Mapping[str, str],
        statuses: Sequence[str] | None,
        tokenizer: str,
    ) -> None:
        self.task, self.seed, self.params, self.exclude = task, seed, dict(params or {}), dict(exclude)
        self.statuses, self.tokenizer = (list(statuses) if statuses is not None else None), tokenizer

    def __call__(self, shard: Shard, part: Path) -> dict:
        examples, stats = build_examples(
            self.task,
            read_shard_rows(shard),
            seed=self.seed,
            params=self.params,
            exclude=self.exclude,
            statuses=self.statuses,
            tokenizer=self.tokenizer,
        )
        write_jsonl(examples, part)
        return {
            "stories_in": stats.stories_in,
            "stories_used": stats.stories_used,
            "examples": stats.examples,
            "dropped": dict(stats.dropped),
            "paragraphs": stats.paragraphs,
            "paragraphs_dropped": dict(stats.paragraphs_dropped),
        }


def build_examples_sharded(
    task: str,
    stories: list[dict[str, Any]],
    work: Path,
    *,
    seed: int,
    params: Mapping[str, Any] | None = None,
    exclude: Mapping[str, str] | None = None,
    statuses: Sequence[str] | None = None,
    tokenizer: str | None = None,
    execution: ExecSettings = ExecSettings(),
    shard_rows: int = DEFAULT_SHARD_ROWS,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, Any]], BuildStats]:
    """`build_examples` on the executor: plan shards of `shard_rows` stories (a row-grouped work file in
    `work`), build each into a part, combine the parts in shard order (the same result as one process)."""
    if isinstance(shard_rows, bool) or not isinstance(shard_rows, int) or shard_rows < 1:
        raise ValueError(f"shard_rows must be a whole number, at least 1 (got {shard_rows!r})")
    stories_file = work / "stories.parquet"
    shards = write_row_grouped(table_from_rows(stories, STORIES), stories_file, shard_rows)
    tokenizer = build_tokenizer(tokenizer)
    job = {
        "task": task,
        "seed": seed,
        "params": dict(params or {}),
        "exclude": sorted((exclude or {}).items()),
        "statuses": statuses,
        "tokenizer": tokenizer,
        "stories": sha256_file(stories_file),
    }
    fingerprint = sha256_text(json.dumps(job, sort_keys=True, default=str))
    on_shard = (lambda result: progress(result.stats.get("stories_in", 0))) if progress else None
    results = run_shards(
        _BuildShard(task, seed, params, exclude or {}, statuses, tokenizer),
        shards,
        work,
        execution=execution,
        fingerprint=fingerprint,
        suffix=".jsonl",
        progress=False,
        description=f"build {task}",
        on_shard=on_shard,
    )
    examples: list[dict[str, Any]] = []
    stats = BuildStats()
    stats.paragraphs, stats.paragraphs_dropped = 0, Counter()
    for result in results:
        with open(result.part, encoding="utf-8") as handle:
            examples.extend(json.loads(line) for line in handle)
        part = result.stats
        stats.stories_in += part["stories_in"]
        stats.stories_used += part["stories_used"]
        stats.examples += part["examples"]
        stats.dropped.update(part["dropped"])
        stats.paragraphs += part["paragraphs"]
        stats.paragraphs_dropped.update(part["paragraphs_dropped"])
    return examples, stats


def check_sizes(n: int | None, train_n: int | None) -> None:
    for name, value in (("--n", n), ("--train-n", train_n)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a whole number of examples, at least 1 (got {value!r})")


def _story(example: Mapping[str, Any]) -> str:
    return example["story_id"]


def _grouping(groups: Mapping[str, str] | None) -> Callable[[Mapping[str, Any]], str]:
    """An example's split group: its story's near-duplicate cluster when it has one, else its story."""
    if not groups:
        return _story
    return lambda ex: groups.get(ex["story_id"]) or ex["story_id"]


def _cap(
    examples: list[dict[str, Any]], limit: int | None, seed: int, group: Callable[[Mapping[str, Any]], str] = _story
) -> list[dict[str, Any]]:
    if limit is None:
        return examples
    kept = whole_stories_up_to([group(ex) for ex in examples], limit, seed)
    return [ex for ex in examples if group(ex) in kept]


def split_examples(
    examples: list[dict[str, Any]],
    spec: SplitSpec,
    seed: int,
    n: int | None = None,
    train_n: int | None = None,
    groups: Mapping[str, str] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Cap at `n` examples in all, assign grouped splits, cap train at `train_n`, and order each split
    by a seeded hash so the files are shuffled yet reproducible. Caps take whole groups (seeded
    order): a story's examples are never cut in two.

    `groups` maps a story_id to its group (the `cluster_id` that `lotdata clean` gives near-duplicates);
    a story without one is its own group, and no group spans two splits."""
    check_sizes(n, train_n)
    group = _grouping(groups)
    ordered = sorted(
        _cap(examples, n, seed, group),
        key=lambda ex: (story_order_key(group(ex), seed), ex["story_id"], ex["example_id"]),
    )
    splits = assign_splits([group(ex) for ex in ordered], spec, seed)
    by_split: dict[str, list[dict[str, Any]]] = {s: [] for s in SPLITS}
    for example, split in zip(ordered, splits):
        by_split[split].append({**example, "split": split})
    by_split["train"] = _cap(by_split["train"], train_n, seed, group)
    for rows in by_split.values():
        rows.sort(key=lambda ex: story_order_key(ex["example_id"], seed))
    return by_split


@dataclass(frozen=True, kw_only=True)
class BuildRequest:
    """Everything `build_dataset` takes besides the task, the stories and the output folder: what to build (caps,
    seed, splits, the builder's parameters, ClozeT for PlotCom val/test, statuses, tokenizer), what to write (LOT
    jsonl, card, the command recorded) and how to run (executor, shard size, progress hooks).

    PlotCom with `clozet` (a ClozeT dataset folder, LOT jsonl, or ClozeT rows by split): val/test are ClozeT
    stories with the right candidate as target (LOT 3.3): ClozeT's own val/test, or with `clozet_split`
    ("val=465,test=464") a seeded sample, grouped by story, across all of ClozeT; train is the automatic
    construction over the other stories. `statuses`: the story statuses taken (see `statuses_used`). `tokenizer`:
    see `build_tokenizer`. With `n`, only the stories needed are built."""

    n: int | None = None
    train_n: int | None = None
    seed: int = 0
    split: str | SplitSpec | None = None
    params: Mapping[str, Any] | None = None
    lot_jsonl: bool = True
    clozet: str | Path | Mapping[str, list[dict[str, Any]]] | None = None
    clozet_origin: str = "clozet"
    clozet_split: str | SplitSpec | None = None
    statuses: str | Sequence[str] | None = None
    tokenizer: str | None = None
    command: str | None = None
    card: bool = True
    progress: Callable[[int], None] | None = None
    on_start: Callable[[int], None] | None = None
    execution: ExecSettings = ExecSettings()
    shard_rows: int = DEFAULT_SHARD_ROWS

    @property
    def clozet_rows_given(self) -> bool:
        """ClozeT given as rows by split (not a file to read and record as an input)."""
        return isinstance(self.clozet, Mapping)


@dataclass(frozen=True)
class _Plan:
    """A request checked and resolved: what `_build` works from."""

    spec: SplitSpec | None  # None with ClozeT (val/test are ClozeT's)
    sample_spec: SplitSpec | None  # clozet_split
    task_params: dict[str, Any]  # the builder's parameters, every default filled in
    statuses: list[str] | None
    tokenizer: str


def build_dataset(
    task: str,
    stories_paths: Sequence[str | Path],
    out: str | Path,
    request: BuildRequest | None = None,
    **options: Any,
) -> BuildReport:
    """Build `task` from stories Parquet files into the folder `out`, as `request` (a `BuildRequest`) asks; its
    fields may also be given as keywords (`build_dataset(task, paths, out, seed=5, n=300)`), over `request`'s.

    The per-story construction runs on the executor (`lotdata.exec`): the stories are cut into shards of
    `shard_rows`, `execution.workers` processes (or Ray tasks) build them, and the parts are combined in shard
    order, so the output is the same bytes for any number of workers. A stopped build resumes the shards it had
    finished. Everything is checked before the work starts.
    """
    request = replace(request or BuildRequest(), **options) if options else (request or BuildRequest())
    plan = _plan(task, stories_paths, request)
    check_outputs(
        {"--out": out},
        {
            "--stories": stories_paths,
            "--clozet": None if request.clozet_rows_given else request.clozet,
            "stopwords": (request.params or {}).get("stopwords"),
        },
    )
    check_output_dir(out)
    return _build(task, stories_paths, out, request, plan)


def _plan(task: str, stories_paths: Sequence[str | Path], request: BuildRequest) -> _Plan:
    """Check the request before any work; resolve its split, sample, parameters, statuses and tokenizer."""
    _builder(task)
    check_tokenizer_env()
    clozet, split = request.clozet, request.split
    if clozet is not None and _val_test_source(task) is None:
        takers = [t for t in builder_tasks() if _val_test_source(t) is not None]
        raise ValueError(f"--clozet applies to {', '.join(takers)} only (its val/test come from ClozeT)")
    if clozet is not None and split is not None:
        raise ValueError("--split does not apply with --clozet: val/test are ClozeT's, train takes every other story")
    if request.clozet_split is not None and clozet is None:
        raise ValueError("--clozet-split needs --clozet (it samples PlotCom val/test from the ClozeT examples)")
    check_sizes(request.n, request.train_n)
    if not stories_paths:
        raise ValueError("no stories file given")
    statuses = request.statuses
    if isinstance(statuses, str):
        statuses = [part.strip() for part in statuses.split(",") if part.strip()]
    unknown = sorted(set(statuses or ()) - set(STORY_STATUSES))
    if unknown:
        raise ValueError(f"unknown story status(es) {unknown}; statuses: {', '.join(STORY_STATUSES)}")
    spec = (
        None
        if clozet is not None
        else (split if isinstance(split, SplitSpec) else parse_split_spec(split or DEFAULT_SPLIT))
    )
    return _Plan(
        spec=spec,
        sample_spec=_size_spec(request.clozet_split, "--clozet-split"),
        task_params=_params_dict(task, request.params),
        statuses=statuses,
        tokenizer=build_tokenizer(request.tokenizer),
    )


def split_spec(value: str, key: str) -> SplitSpec:
    """A build's `split` (ratios or val/test sizes) or `clozet_split` (val/test sizes only) as the build reads it;
    ValueError saying what is wrong (a recipe checks its [[build]] tables with it before any step)."""
    if key == "clozet_split":
        return _size_spec(value, "--clozet-split")  # type: ignore[return-value]
    return parse_split_spec(value)


def _size_spec(value: str | SplitSpec | None, option: str) -> SplitSpec | None:
    if value is None:
        return None
    spec = value if isinstance(value, SplitSpec) else parse_split_spec(value)
    if not spec.by_size or "train" in spec.values:
        raise ValueError(f"{option} takes val/test sizes in examples (val=465,test=464), got {spec}")
    return spec


@dataclass
class _Inputs:
    """What a build read: the stories, ClozeT's rows by split, the statuses taken, the stories left out (ClozeT
    val/test's) and the near-duplicate groups."""

    stories: list[dict[str, Any]]
    clozet_rows: Mapping[str, list[dict[str, Any]]] | None
    taken: list[str]
    exclude: dict[str, str]
    groups: dict[str, str]


def _build(
    task: str, stories_paths: Sequence[str | Path], out: str | Path, request: BuildRequest, plan: _Plan
) -> BuildReport:
    return _BuildRun(task, stories_paths, out, request, plan).run()


class _BuildRun:
    """One build, checked and planned, in named phases: read the inputs, build the examples, split them, count,
    write the dataset folder."""

    def __init__(
        self, task: str, stories_paths: Sequence[str | Path], out: str | Path, request: BuildRequest, plan: _Plan
    ) -> None:
        self.task, self.stories_paths, self.out = task, stories_paths, out
        self.request, self.plan = request, plan
        self.notes: list[str] = []

    def run(self) -> BuildReport:
        clozet_rows = self.clozet_rows()
        started = time.perf_counter()
        inputs = self.read_inputs(clozet_rows)
        examples, stats = self.examples(inputs)
        by_split = self.split(examples, inputs)
        if not any(by_split.values()):
            raise LotdataError(
                f"no examples built from {len(inputs.stories)} stories "
                f"(dropped: {_stats_dict(self.task, stats)['stories_dropped']})"
            )
        summary = self.summary(by_split, stats, inputs, time.perf_counter() - started)
        rows = self.write(by_split, summary, stats, inputs)
        shutil.rmtree(Path(self.out) / WORK_DIR, ignore_errors=True)
        warnings = split_warnings(by_split, self.plan.spec or self.plan.sample_spec, self.request.train_n)
        return BuildReport(
            task=self.task, out=Path(self.out), rows_per_split=rows, stats=summary, warnings=warnings, notes=self.notes
        )

    def clozet_rows(self) -> Mapping[str, list[dict[str, Any]]] | None:
        """ClozeT's rows by split (read when given as a file), sampled across its splits with `clozet_split`."""
        clozet = self.request.clozet
        rows = clozet if (clozet is None or isinstance(clozet, Mapping)) else load_clozet(clozet, self.notes)
        if rows is not None and self.plan.sample_spec is not None:
            rows = _val_test_source(self.task).sample(rows, self.plan.sample_spec, self.request.seed)
        return rows

    def read_inputs(self, clozet_rows: Mapping[str, list[dict[str, Any]]] | None) -> _Inputs:
        stories = load_stories(self.stories_paths)
        if not stories:
            raise InputError("no stories in the input", path=", ".join(map(str, self.stories_paths)))
        if self.request.on_start:
            self.request.on_start(len(stories))
        exclude = {}
        if clozet_rows is not None:
            held_out = [row for s in ("val", "test") for row in clozet_rows.get(s, [])]
            exclude = dict.fromkeys(_val_test_source(self.task).held_by(stories, held_out), "in_clozet")
        return _Inputs(
            stories=stories,
            clozet_rows=clozet_rows,
            taken=statuses_used(self.task, stories, self.plan.statuses),
            exclude=exclude,
            groups={s["story_id"]: s["cluster_id"] for s in stories if s.get("cluster_id")},
        )

    def examples(self, inputs: _Inputs) -> tuple[list[dict[str, Any]], BuildStats]:
        """Every example of the stories taken: on the executor, or for a preview (`n`) only the stories it needs,
        in process."""
        request = self.request
        options = dict(
            params=request.params,
            progress=request.progress,
            exclude=inputs.exclude,
            statuses=inputs.taken,
            tokenizer=self.plan.tokenizer,
        )
        if request.n is None:
            return build_examples_sharded(
                self.task,
                inputs.stories,
                Path(self.out) / WORK_DIR,
                seed=request.seed,
                execution=request.execution,
                shard_rows=request.shard_rows,
                **options,
            )
        return build_capped(
            self.task, inputs.stories, request.n, seed=request.seed, group=_grouping(inputs.groups), **options
        )

    def split(self, examples: list[dict[str, Any]], inputs: _Inputs) -> dict[str, list[dict[str, Any]]]:
        """The examples by split: grouped seeded splits, or with ClozeT the capped examples as train and ClozeT's
        rows as val/test."""
        request, clozet_rows = self.request, inputs.clozet_rows
        seed = request.seed
        if clozet_rows is None:
            return split_examples(examples, self.plan.spec, seed, request.n, request.train_n, inputs.groups)
        group = _grouping(inputs.groups)
        train = _cap(_cap(examples, request.n, seed, group), request.train_n, seed, group)
        source = _val_test_source(self.task)
        return {
            "train": sorted(
                ({**ex, "split": "train"} for ex in train), key=lambda ex: story_order_key(ex["example_id"], seed)
            ),
            **{s: source.convert(clozet_rows.get(s, []), origin=request.clozet_origin) for s in ("val", "test")},
        }

    def summary(
        self, by_split: Mapping[str, list[dict[str, Any]]], stats: BuildStats, inputs: _Inputs, seconds: float
    ) -> dict[str, Any]:
        """The build's counts, for the report and the manifest."""
        summary = {
            **_stats_dict(self.task, stats),
            "examples_written": sum(len(v) for v in by_split.values()),
            "seconds": round(seconds, 3),
            "stories_per_second": round(stats.stories_in / seconds, 1) if seconds else None,
        }
        if self.request.n is not None:
            summary["stories_available"] = len(inputs.stories)
        split_summary = get_task(self.task).split_summary
        if split_summary is not None:
            summary.update(split_summary(by_split))
        if inputs.clozet_rows is not None:
            summary["clozet_rows_unused"] = {
                s: len(r) for s, r in inputs.clozet_rows.items() if s not in ("val", "test")
            }
        return summary

    def write(
        self,
        by_split: Mapping[str, list[dict[str, Any]]],
        summary: dict[str, Any],
        stats: BuildStats,
        inputs: _Inputs,
    ) -> dict[str, int]:
        """Write the dataset folder with its manifest (parameters, inputs, environment, drop rules, origins)."""
        task, request, plan = self.task, self.request, self.plan
        all_params = {
            "task": task,
            "n": request.n,
            "train_n": request.train_n,
            "seed": request.seed,
            "split": str(plan.spec) if plan.spec else None,
            **plan.task_params,
        }
        if plan.sample_spec is not None:
            all_params["clozet_split"] = str(plan.sample_spec)
        dropped = {**stats.dropped, **getattr(stats, "paragraphs_dropped", {})}
        extra = {
            "environment": build_environment(task, plan.task_params, plan.tokenizer),
            "drop_rules": {k: DROP_RULES[k] for k in dropped if k in DROP_RULES},
            "split_origin": _origins(task, by_split),
            "statuses_used": inputs.taken,
            "licenses": sorted({s["license"] for s in inputs.stories if s.get("license")}),
            "sources": sources_by_split(inputs.stories, by_split),  # per split: sources, licences, fetch dates
            "languages": sorted({ex["lang"] for rows in by_split.values() for ex in rows}),
        }
        # the files read: a clean/crawl folder's stories table, and a ClozeT folder's files
        files: list[str | Path] = _stories_files(self.stories_paths)
        if request.clozet is not None and not request.clozet_rows_given:
            extra["clozet"] = str(request.clozet)
            files += _dataset_files(Path(request.clozet))
        return write_dataset(
            self.out,
            task,
            by_split,
            command=request.command or f"lotdata build {task}",
            params=all_params,
            inputs=files,
            stats=summary,
            lot_jsonl=request.lot_jsonl,
            extra=extra,
            card=request.card,
            tokenizer=plan.tokenizer,
        )


def build_plotcom_with_clozet(
    stories_paths: Sequence[str | Path],
    clozet: str | Path | Mapping[str, list[dict[str, Any]]],
    out: str | Path,
    *,
    origin: str = "clozet",
    **options: Any,
) -> BuildReport:
    """PlotCom the LOT way: automatic train, val/test from ClozeT (a folder, LOT jsonl, or rows by split,
    e.g. assembled from Label Studio with `origin="annotated"`); no story in both."""
    return build_dataset("plotcom", stories_paths, out, clozet=clozet, clozet_origin=origin, **options)


def _val_test_source(task: str) -> Any:
    """Where the task's val/test come from when they are not built (PlotCom: ClozeT, LOT 3.3); only ClozeT
    is taken (`--clozet`)."""
    source = get_task(task).val_test_from
    return source if source is not None and source.task == "clozet" else None


def _origins(task: str, by_split: Mapping[str, list[dict[str, Any]]]) -> dict[str, list[str]] | None:
    """Each split's row origins, for a task whose rows say where they come from (an `origin` column)."""
    if "origin" not in get_task(task).schema.names:
        return None
    return {s: sorted({r.get("origin") or "unknown" for r in rows}) for s, rows in by_split.items()}


def _params_dict(task: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    _, params_cls = _builder(task)
    try:
        return asdict(params_cls(**(params or {})))
    except TypeError as exc:
        known = ", ".join(f.name for f in fields(params_cls))
        raise ValueError(f"unknown {task} parameter ({exc}); known: {known}") from None
