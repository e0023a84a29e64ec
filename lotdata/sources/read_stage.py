"""The `read` stage: local corpora into a stories table (`lotdata read`, a recipe's `[read]`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.command import get_command
from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.exec import ExecSettings
from lotdata.io import check_output_file, output_lock, quarantine_path_for, write_parquet
from lotdata.paths import check_outputs
from lotdata.resources import resolve_input
from lotdata.stage import Stage, StepContext, command_params, param, register_stage


def _formats() -> list[str]:
    from lotdata.datasets.formats import format_names

    return format_names()


@dataclass(frozen=True)
class ReadParams:
    inputs: tuple[str, ...] = param(
        (),
        "Corpus files (or lotdata:sample for the embedded corpus).",
        path="input",
        cli=False,
        required=True,
        meaning="corpus files; `lotdata:sample` is the embedded corpus",
    )
    format: str | None = param(
        None,
        "One of the formats listed below (default: detect per file).",
        choices=_formats,
        meaning="a registered format (`lotdata read --help` lists them); default: detected",
    )
    lang: str | None = param(None, "zh or en (default: detect per story).", choices=("zh", "en"))
    source: str | None = param(None, "Source name stored with every story.")
    license: str | None = param(
        None,
        "License stored with every story (default: a known corpus's terms, by its source name: cmrc2017 and cft "
        "CC-BY-SA-4.0, c3 non-commercial research, rocstories/storycloze, lot; else none).",
    )
    out: str = param("stories.parquet", "stories table", cli=False)


def read_step(
    inputs: list[str | Path],
    out: str | Path,
    params: ReadParams | None = None,
    *,
    execution: ExecSettings = ExecSettings(),
    progress: bool | None = None,
) -> dict[str, Any]:
    """Read corpora into a stories Parquet file; rejected records go to `<out>.quarantine.parquet`.

    A shard per input file on the executor; the parts wait in `<out>.work/` (a killed run resumes) until
    the output is written. Nothing read at all (an empty file, every record quarantined) is an error, not
    an empty table. `params.inputs` and `params.out` (the recipe's) are not read here."""
    from lotdata.sources.readers import FORMATS, check_lang

    params = params or ReadParams()
    out = check_output_file(out)
    if params.format is not None and params.format not in FORMATS:
        raise LotdataError(f"unknown --format {params.format!r}; formats: {', '.join(FORMATS)}")
    check_lang(params.lang)
    paths = [must_exist(resolve_input(p), "input") for p in inputs]
    check_outputs({"--out": out, "--out (its quarantine)": quarantine_path_for(out)}, {"input": paths})
    with output_lock(out):
        return read_into(paths, out, params, execution, progress)


def read_into(
    paths: list[Path], out: Path, params: ReadParams, execution: ExecSettings, progress: bool | None = None
) -> dict[str, Any]:
    """The read itself, into `out` (its quarantine and work folder beside it), once the inputs and outputs are
    checked (`read_step`, or the `read` command's runner, which passes a staged `out`)."""
    from lotdata.sources.readers import common_reasons
    from lotdata.sources.reading import read_files, remove_work

    work = out.with_name(out.name + ".work")
    result = read_files(
        paths,
        work,
        fmt=params.format,
        lang=params.lang,
        source=params.source,
        license=params.license,
        execution=execution,
        progress=progress,
    )
    remove_work(work)
    quarantine_path = quarantine_path_for(out)
    if result.quarantine.num_rows:
        write_parquet(result.quarantine, quarantine_path)
    elif quarantine_path.exists():
        quarantine_path.unlink()
    if not result.stories.num_rows:
        where = (
            f"; {result.quarantine.num_rows} record(s) quarantined in {quarantine_path} "
            f"({common_reasons(result.quarantine.to_pylist())})"
            if result.quarantine.num_rows
            else ""
        )
        raise InputError(f"no story could be read{where}", path=", ".join(map(str, paths)))
    write_parquet(result.stories, out)
    return {**result.counts, "stories": result.stories.num_rows, "quarantine": result.quarantine.num_rows}


def run(ctx: StepContext, params: ReadParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    """`lotdata read INPUTS --out RUN/OUT`, through its record."""
    READ = get_command("read")
    out = ctx.root / params.out
    inputs = [str(ctx.relative(v)) for v in params.inputs]
    ctx.command_step("read", READ, command_params(READ, params, execution, inputs=inputs, out=str(out)), [out])
    ctx.stories.append(out)


STAGE = register_stage(
    Stage(
        name="read",
        params=ReadParams,
        run=run,
        order=30,
        executes=True,
        source=True,
        summary="local corpora (txt, jsonl, csv, parquet, ROCStories, Story Cloze, CMRC) -> stories",
        output="`stories.parquet`",
    )
)
