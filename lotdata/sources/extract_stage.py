"""The `extract` stage: saved pages (.html folders, WARC files) into a stories table (`lotdata extract`,
a recipe's `[extract]`), with the crawler's extractor."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from lotdata.command import get_command
from lotdata.errors import InputError, must_exist
from lotdata.exec import ExecSettings
from lotdata.sources.extract import DEFAULT_MAX_BYTES, ExtractOptions, extract_pages, saved_pages
from lotdata.stage import Stage, StepContext, command_params, param, register_stage


@dataclass(frozen=True)
class ExtractParams:
    inputs: tuple[str, ...] = param(
        (), "`.html` files or folders, `.warc`/`.warc.gz` files", path="input", cli=False, required=True
    )
    out: str = param("extracted.parquet", "stories table", cli=False)
    source: str = param("saved-pages", "Source name stored with every story.")
    license: str | None = param(None, "License stored with every story.")
    title_selector: str | None = param(None, "CSS selector of the title.")
    content_selector: str | None = param(None, "CSS selector of the story text (default: trafilatura).")
    encoding: str | None = param(None, "Force this encoding instead of detecting it.")
    max_bytes: int = param(DEFAULT_MAX_BYTES, "Pages larger than this are quarantined.", check=">0")
    lang: str | None = param(None, "zh or en (default: detect per story).", choices=("zh", "en"))
    keep_repeated_lines: bool = param(False, "Keep lines found on 30%+ of the pages (boilerplate by default).")


def extract_files(
    inputs: Iterable[str | Path], out: str | Path, params: ExtractParams = ExtractParams()
) -> dict[str, Any]:
    """Saved pages into a stories Parquet file (rejected pages: OUT.quarantine.parquet).

    Every parameter and input is checked before a page is read; nothing extracted is an error (exit 3),
    not an empty table. `params.inputs` and `params.out` (the recipe's) are not read here."""
    from lotdata.io import check_output_file, output_lock, quarantine_path_for
    from lotdata.paths import check_outputs

    _options(params)  # a bad option is refused before an input is looked at
    inputs = [must_exist(p, "input") for p in inputs]
    check_outputs({"--out": out, "--out (its quarantine)": quarantine_path_for(out)}, {"input": inputs})
    out = check_output_file(out)
    with output_lock(out):
        return extract_into(inputs, out, params)


def _options(params: ExtractParams) -> ExtractOptions:
    return ExtractOptions(
        source=params.source,
        license=params.license,
        title_selector=params.title_selector,
        content_selector=params.content_selector,
        encoding=params.encoding,
        max_bytes=params.max_bytes,
        lang=params.lang,
        drop_repeated_lines=not params.keep_repeated_lines,
    )


def extract_into(inputs: list[Path], out: Path, params: ExtractParams, *, named: Path | None = None) -> dict[str, Any]:
    """The extraction itself, into `out` and `OUT.quarantine.parquet`, once the inputs and outputs are checked
    (`extract_files`, or the `extract` command's runner, which passes a staged `out` and the path the user
    `named`)."""
    from lotdata.io import quarantine_path_for, write_parquet
    from lotdata.schema import QUARANTINE, STORIES, table_from_rows

    quarantine_path = quarantine_path_for(out)
    stories, quarantine = extract_pages(saved_pages(inputs, params.max_bytes), _options(params))
    write_parquet(table_from_rows(quarantine, QUARANTINE), quarantine_path)
    if not stories:  # as `lotdata read`: nothing extracted is an error, not an empty table
        raise InputError(
            f"no story could be extracted; {len(quarantine)} page(s) quarantined in {quarantine_path}; "
            f"{named or out} not written",
            path=", ".join(map(str, inputs)),
        )
    write_parquet(table_from_rows(stories, STORIES), out)
    return {"stories": len(stories), "quarantine": len(quarantine)}


def run(ctx: StepContext, params: ExtractParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    """`lotdata extract INPUTS --out RUN/OUT`, through its record."""
    EXTRACT = get_command("extract")
    out = ctx.root / params.out
    inputs = [str(ctx.relative(v)) for v in params.inputs]
    ctx.command_step("extract", EXTRACT, command_params(EXTRACT, params, inputs=inputs, out=str(out)), [out])
    ctx.stories.append(out)


STAGE = register_stage(
    Stage(
        name="extract",
        params=ExtractParams,
        run=run,
        order=20,
        source=True,
        summary="saved `.html` folders and WARC files -> stories",
        output="`extracted.parquet`",
        needs=(("httpx", "sources"), ("trafilatura", "sources")),
    )
)
