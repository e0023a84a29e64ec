"""The `crawl` stage of a recipe: its `[[sites]]` crawled politely, then their stories extracted (`[crawl]`
holds the run's options; `lotdata crawl` runs it alone). It always runs: the crawl resumes from its log."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.command import get_command
from lotdata.errors import InputError
from lotdata.exec import ExecSettings
from lotdata.stage import Stage, StepContext, StepResult, command_params, param, register_stage


@dataclass(frozen=True)
class CrawlParams:
    out: str = param("crawl", "crawl folder", cli=False)
    max_pages: int | None = param(None, "Lower every site's max_pages for this run (a page budget).", check=">=0")
    extract_only: bool = param(False, "Fetch nothing: re-extract stories from the raw pages kept in OUT.")


def run(ctx: StepContext, params: CrawlParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    """`lotdata crawl --recipe RECIPE --out RUN/OUT`, through its record (the crawl folder is an update output:
    it resumes from what the last run published, or from a killed run's staging copy)."""
    CRAWL = get_command("crawl")
    out = ctx.root / params.out
    given = command_params(CRAWL, params, recipe=str(ctx.path), out=str(out))
    hooks = {"command": ctx.command, "on_page": ctx.on_page, "on_warning": ctx.on_warning}
    summary = CRAWL.run(given, hooks=hooks)
    ctx.stories.append(out / "stories.parquet")
    ctx.finish(StepResult("crawl", [out / "stories.parquet"], skipped=False, summary=summary))


def check_sites(recipe: dict[str, Any], path: Path) -> None:
    """A recipe's [crawl] needs its [[sites]]; their keys are checked before any step runs."""
    if "sites" not in recipe:
        raise InputError(f"{path}: [crawl] needs [[sites]] tables in the same recipe (format: pipelines/README.md)")
    from lotdata.sources.crawl import load_crawl_recipe

    load_crawl_recipe(path)


STAGE = register_stage(
    Stage(
        name="crawl",
        params=CrawlParams,
        run=run,
        order=10,
        runs_when=lambda recipe: "sites" in recipe,
        source=True,
        tables=("sites", "defaults"),
        check_recipe=check_sites,
        table="`[[sites]]` (+ `[defaults]`, `[crawl]`)",
        summary="polite crawl, then extraction (format below)",
        output="`crawl/`: `stories.parquet`, `pages.jsonl`, `raw/`, ...",
        needs=(("httpx", "sources"), ("trafilatura", "sources")),
    )
)
