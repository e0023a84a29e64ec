"""The `build` commands as records (`lotdata.command`): `build senpos`, `build plotcom`, `build outgen`,
`build clozet` and `build segments`. The CLI, the library call and the conformance checks are derived from them,
and the one runner gives each its checks (an output never an input, never a folder of another kind), a lock,
atomic publication (the dataset folder is built beside `--out` and swapped in whole, so a build that fails
part-way leaves the previous dataset as it was) and its exit codes.

The parameters reuse the builders' records (`SenposParams`, `PlotcomParams`, `OutgenParams`), the options every
build shares (`BuildOptions`) and the executor's (`ExecSettings`): one declaration each."""

from __future__ import annotations

import shutil
from contextlib import contextmanager
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterator

from lotdata.command import Command, Output, Run, execution_of, register_command
from lotdata.datasets.commands import command_line
from lotdata.exec import ExecSettings
from lotdata.stage import param
from lotdata.tasks.options import BuildOptions
from lotdata.tasks.outgen import OutgenParams
from lotdata.tasks.plotcom import PlotcomParams
from lotdata.tasks.senpos import SenposParams


def same_param(cls: type, name: str, **changes: Any) -> Any:
    """A new `param` field declared as `cls`'s field `name` (its default, help, range, flag), with `changes`."""
    f = cls.__dataclass_fields__[name]
    meta = {**dict(f.metadata), **changes}
    default = meta.pop("default", f.default if f.default is not MISSING else MISSING)
    return param(default, **meta)


_STORIES_HELP = "stories Parquet file(s): --stories a.parquet b.parquet"


def sample_stories(path: Path) -> Path:
    """A stories table of lotdata's embedded sample corpus at `path` (for the records' samples)."""
    from lotdata.io import write_parquet
    from lotdata.resources import sample_corpus_path
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.readers import read_stories

    path.parent.mkdir(parents=True, exist_ok=True)
    return write_parquet(table_from_rows(read_stories([sample_corpus_path()]).stories, STORIES), path)


def _values(params: Any, cls: type) -> dict[str, Any]:
    return {f.name: getattr(params, f.name) for f in fields(cls)}


def _names(text: str | list[str] | None) -> list[str] | None:
    if isinstance(text, (list, tuple)):
        return [str(part).strip() for part in text if str(part).strip()] or None
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


# ---------------------------------------------------------------------------------------------
# build senpos / plotcom / outgen


@dataclass(frozen=True, kw_only=True)
class _BuildTarget:
    stories: list[str] = param(help=_STORIES_HELP, path="input")
    out: str = param(help="Dataset folder to write.")


@dataclass(frozen=True, kw_only=True)
class BuildSenposParams(SenposParams, BuildOptions, ExecSettings, _BuildTarget):
    """`lotdata build senpos`: the builder's parameters, the options every build shares, the executor's."""

    def __post_init__(self) -> None:
        SenposParams.__post_init__(self)
        ExecSettings.__post_init__(self)


@dataclass(frozen=True, kw_only=True)
class BuildPlotcomParams(PlotcomParams, BuildOptions, ExecSettings, _BuildTarget):
    clozet: str | None = param(
        None,
        "ClozeT dataset folder (or LOT ClozeT jsonl): val/test become its stories with the right candidate as target (LOT 3.3).",
        path="input",
    )
    clozet_split: str | None = param(
        None,
        "With --clozet: sample val/test of these sizes across all ClozeT examples, whole stories, seeded (LOT: val=465,test=464); default: ClozeT's own val/test.",
    )

    def __post_init__(self) -> None:
        PlotcomParams.__post_init__(self)
        ExecSettings.__post_init__(self)


@dataclass(frozen=True, kw_only=True)
class BuildOutgenParams(OutgenParams, BuildOptions, ExecSettings, _BuildTarget):
    def __post_init__(self) -> None:
        OutgenParams.__post_init__(self)
        ExecSettings.__post_init__(self)


_TASK_PARAMS = {"senpos": SenposParams, "plotcom": PlotcomParams, "outgen": OutgenParams}


def _builder_params(task: str, p: Any) -> dict[str, Any]:
    """The builder's parameters as `build_dataset` takes them (SenPos/PlotCom `--max-words 0`: no limit)."""
    if task not in _TASK_PARAMS:  # a task with no record of its own (`build_command`): its options as a table
        return dict(p.params or {})
    values = _values(p, _TASK_PARAMS[task])
    if task in ("senpos", "plotcom"):
        values["max_words"] = values["max_words"] or None
    return values


def _fresh(staged: Path, keep: str) -> None:
    """A staging folder a killed run left: keep only its executor work (`keep`, resumed), drop every other file
    (a split file or LOT jsonl of another run's parameters must not be published with this one)."""
    if not staged.is_dir():
        return
    for entry in staged.iterdir():
        if entry.name == keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


@contextmanager
def _progress_of(run: Run, task: str) -> Iterator[tuple[Any, Any]]:
    """(on_start(total), advance(k)) of the build's bar: the caller's (`run.hooks["progress"](task)`, a recipe's,
    whose live display is already on; None: no bar), else one of its own."""
    if "progress" in run.hooks:
        factory = run.hooks["progress"]
        yield factory(task) if factory is not None else (None, None)
        return
    from lotdata.progress import progress as _progress

    with _progress() as progress:
        bar = progress.add_task(f"build {task}", total=None)
        yield (lambda total: progress.update(bar, total=total)), (lambda k: progress.advance(bar, k))


def _build_execute(task: str):
    def execute(run: Run) -> dict[str, Any]:
        from lotdata.tasks.build import WORK_DIR, build_dataset

        p = run.params
        options = _values(p, BuildOptions)
        out = run.out("--out")
        _fresh(out, WORK_DIR)
        with _progress_of(run, task) as (on_start, advance):
            report = build_dataset(
                task,
                list(p.stories),
                out,
                n=options["n"],
                train_n=options["train_n"],
                seed=options["seed"],
                split=options["split"],
                params=_builder_params(task, p),
                lot_jsonl=options["lot_jsonl"],
                clozet=getattr(p, "clozet", None),
                clozet_split=getattr(p, "clozet_split", None),
                statuses=_names(options["statuses"]),
                tokenizer=options["tokenizer"],
                command=run.hooks.get("command") or command_line(),
                execution=execution_of(p),
                progress=advance,
                on_start=on_start,
            )
        return report.summary()

    execute.__name__ = f"_build_{task}"
    return execute


def _build_inputs(p: Any) -> dict[str, Any]:
    return {
        "--stories": list(p.stories),
        "--clozet": getattr(p, "clozet", None),
        "--stopwords": getattr(p, "stopwords", None),
    }


def _dataset_out(task: str) -> Callable[[Any], list[Output]]:
    """A build's output: a dataset folder of its task (a dataset of another task there is refused, not replaced)."""

    def outputs(p: Any) -> list[Output]:
        return [Output("--out", Path(p.out), kind="dataset", task=task)]

    return outputs


def _stories_sample(folder: Path) -> list[str]:
    return ["--stories", str(sample_stories(folder / "stories.parquet")), "--out", str(folder / "built")]


def _check_splits(p: Any) -> None:
    """--split and --clozet-split read as the build reads them, before any work (a bad one names its option)."""
    from lotdata.tasks.build import split_spec

    for key in ("split", "clozet_split"):
        value = getattr(p, key, None)
        if value:
            try:
                split_spec(value, key)
            except ValueError as exc:
                raise ValueError(f"--{key.replace('_', '-')} {value!r}: {exc}") from None


def _build_record(task: str, params: type, summary: str) -> Command:
    return register_command(
        Command(
            name=f"build {task}",
            params=params,
            execute=_build_execute(task),
            inputs=_build_inputs,
            outputs=_dataset_out(task),
            summary=summary,
            check=_check_splits,
            sample=_stories_sample,
        )
    )


BUILD_SENPOS = _build_record(
    "senpos",
    BuildSenposParams,
    "SenPos: one inner sentence removed; every gap between adjacent sentences is a candidate.",
)
BUILD_PLOTCOM = _build_record(
    "plotcom",
    BuildPlotcomParams,
    "PlotCom: automatic training construction (one random sentence -> <MASK>); val/test from ClozeT with --clozet.",
)
BUILD_OUTGEN = _build_record(
    "outgen", BuildOutgenParams, "OutGen: title + shuffled RAKE outline -> story (LOT: from the filtered stories)."
)


# ---------------------------------------------------------------------------------------------
# build clozet


@dataclass(frozen=True, kw_only=True)
class BuildClozetParams:
    cases: str = param(
        help="Written ClozeT cases: a ClozeT dataset folder (e.g. from annotate pull clozet_write) or LOT ClozeT jsonl, any splits.",
        path="input",
    )
    out: str = param(help="Dataset folder to write.")
    n: int | None = same_param(BuildOptions, "n")
    seed: int = same_param(BuildOptions, "seed")
    split: str = same_param(
        BuildOptions,
        "split",
        default="val=294,test=294",
        help="val/test sizes or ratios; train takes the rest (LOT: 644 / 294 / 294).",
    )
    lot_jsonl: bool = same_param(BuildOptions, "lot_jsonl")
    tokenizer: str | None = same_param(BuildOptions, "tokenizer")


def _case_execute(task: str):
    """`execute` of a task built from written cases (its `case_builder`: ClozeT's `build_clozet`)."""

    def execute(run: Run) -> dict[str, Any]:
        from lotdata.datasets.registry import get_task
        from lotdata.tasks.build import WORK_DIR

        p: BuildClozetParams = run.params
        out = run.out("--out")
        _fresh(out, WORK_DIR)
        report = get_task(task).case_builder(
            p.cases,
            out,
            split=p.split,
            seed=p.seed,
            n=p.n,
            lot_jsonl=p.lot_jsonl,
            tokenizer=p.tokenizer,
            command=run.hooks.get("command") or command_line(),
        )
        return report.summary()

    execute.__name__ = f"_build_{task}"
    return execute


def _clozet_sample(folder: Path) -> list[str]:
    import json

    cases = folder / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(12):
        lines.append(
            json.dumps(
                {
                    "story": f"小明第{i}天早上去了学校。<mask>老师表扬了他，他很开心地回家了。",
                    "plot0": f"他在第{i}节课上认真地回答了问题。",
                    "plot1": f"他在第{i}节课上睡着了一整天。",
                    "label": str(i % 2),
                },
                ensure_ascii=False,
            )
        )
    (cases / "train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["--cases", str(cases), "--out", str(folder / "clozet"), "--split", "val=2,test=2"]


BUILD_CLOZET = register_command(
    Command(
        name="build clozet",
        params=BuildClozetParams,
        execute=_case_execute("clozet"),
        inputs=lambda p: {"--cases": p.cases},
        outputs=_dataset_out("clozet"),
        summary="ClozeT: split the written cases again, grouped by story and seeded (LOT 644 / 294 / 294).",
        check=_check_splits,
        sample=_clozet_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# the record of any task's build (a recipe's [[build]] step)


@dataclass(frozen=True, kw_only=True)
class BuildTaskParams(BuildOptions, ExecSettings, _BuildTarget):
    """`build TASK` of a task registered with a builder but no record of its own (a plug-in's): the options
    every build shares, the executor's, and the builder's options as one table."""

    params: dict | None = param(None, "The builder's options (its parameters dataclass's fields).")
    clozet: str | None = same_param(BuildPlotcomParams, "clozet")
    clozet_split: str | None = same_param(BuildPlotcomParams, "clozet_split")


def build_command(task: str) -> Command:
    """The record of `lotdata build TASK`, which a recipe's [[build]] step runs: the registered one
    (`build senpos`, `build clozet`, ...), else one made from the task's own record (a task a plug-in
    registered with a builder or a case builder and no command: its builder's options are one table)."""
    from lotdata.command import COMMAND_REGISTRY
    from lotdata.datasets.registry import get_task

    name = f"build {task}"
    if name in COMMAND_REGISTRY:
        return COMMAND_REGISTRY.get(name)
    if get_task(task).case_builder is not None:
        return Command(
            name=name,
            params=BuildClozetParams,
            execute=_case_execute(task),
            inputs=lambda p: {"--cases": p.cases},
            outputs=_dataset_out(task),
        )
    return Command(
        name=name,
        params=BuildTaskParams,
        execute=_build_execute(task),
        inputs=_build_inputs,
        outputs=_dataset_out(task),
    )


# ---------------------------------------------------------------------------------------------
# build segments


@dataclass(frozen=True, kw_only=True)
class BuildSegmentsParams:
    stories: list[str] = param(help=_STORIES_HELP, path="input")
    out: str = param(help="segments Parquet file to write.")
    seed: int = same_param(BuildOptions, "seed")
    min_words: int = param(50, "Fewest jieba words in a segment (LOT appendix: about 50).", check=">0")
    max_words: int = param(500, "Most jieba words in a segment (LOT appendix: about 500).", check=">0")


def _build_segments(run: Run) -> dict[str, Any]:
    from lotdata.datasets.folder import load_stories
    from lotdata.errors import InputError
    from lotdata.tasks.segments import cut_segments, write_segments

    p: BuildSegmentsParams = run.params
    rows, dropped = cut_segments(load_stories(p.stories), min_words=p.min_words, max_words=p.max_words, seed=p.seed)
    if not rows:
        raise InputError(
            f"no story yields a segment of {p.min_words}-{p.max_words} words (dropped: {dropped})",
            path=", ".join(map(str, p.stories)),
        )
    write_segments(rows, run.out("--out"))
    return {"segments": len(rows), **{f"dropped {k}": v for k, v in dropped.items()}}


def _segments_sample(folder: Path) -> list[str]:
    return ["--stories", str(sample_stories(folder / "stories.parquet")), "--out", str(folder / "segments.parquet")]


BUILD_SEGMENTS = register_command(
    Command(
        name="build segments",
        params=BuildSegmentsParams,
        execute=_build_segments,
        inputs=lambda p: {"--stories": list(p.stories)},
        outputs=lambda p: [Output("--out", Path(p.out), format="parquet")],
        summary="Story segments for `annotate push story_filter` (LOT appendix Figure 1): whole sentences, seeded, "
        "one per story, with the whole story as the reference.",
        sample=_segments_sample,
    )
)
