"""The `crawl` stage of a recipe: its `[[sites]]` crawled politely, then their stories extracted (`[crawl]`
holds the run's options; `lotdata crawl` runs it alone). It always runs: the crawl resumes from its log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lotdata.exec import ExecSettings
from lotdata.stage import Stage, StepContext, StepResult, param, register_stage


@dataclass(frozen=True)
class CrawlParams:
    out: str = param("crawl", "crawl folder", cli=False)
    max_pages: int | None = param(None, "Lower every site's max_pages for this run (a page budget).", check=">=0")
    extract_only: bool = param(False, "Fetch nothing: re-extract stories from the raw pages kept in OUT.")


def run(ctx: StepContext, params: CrawlParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    from lotdata.sources.crawl import crawl

    out = ctx.root / params.out
    summary = crawl(
        ctx.path,
        out,
        max_pages=params.max_pages,
        extract_only=params.extract_only,
        on_page=ctx.on_page,
        on_warning=ctx.on_warning,
    )
    ctx.stories.append(out / "stories.parquet")
    ctx.finish(StepResult("crawl", [out / "stories.parquet"], skipped=False, summary=summary))


STAGE = register_stage(
    Stage(
        name="crawl",
        params=CrawlParams,
        run=run,
        order=10,
        runs_when=lambda recipe: "sites" in recipe,
        table="`[[sites]]` (+ `[defaults]`, `[crawl]`)",
        summary="polite crawl, then extraction (format below)",
        output="`crawl/`: `stories.parquet`, `pages.jsonl`, `raw/`, ...",
        needs=(("httpx", "sources"), ("trafilatura", "sources")),
    )
)
