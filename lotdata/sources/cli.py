"""`lotdata crawl` and `lotdata extract`: web pages and saved pages into a stories table."""

from __future__ import annotations

from pathlib import Path
from typing import List

import typer

from lotdata.clikit import console, errors, out_console, stage_options, summary_table
from lotdata.sources.crawl_stage import CrawlParams
from lotdata.sources.extract_stage import ExtractParams


@stage_options(params=CrawlParams)
def crawl_cmd(
    recipe: str = typer.Option(
        ...,
        "--recipe",
        help="Crawl recipe: a TOML path or a shipped name (lot-sources); format in pipelines/README.md.",
    ),
    out: Path = typer.Option(
        ..., "--out", help="Crawl folder: pages.jsonl log, raw/ pages, stories.parquet, quarantine.parquet."
    ),
    *,
    params: CrawlParams,
) -> None:
    """Crawl story sites politely (robots.txt, rate limit, retries), resuming from OUT; then extract stories."""
    from lotdata.clikit import warn
    from lotdata.resources import resolve_recipe
    from lotdata.sources.crawl import crawl

    def show(entry: dict) -> None:
        console.print(f"{entry['outcome']:>12} {entry.get('status') or '-':>4} {entry['url']}", highlight=False)

    with errors():
        summary = crawl(
            resolve_recipe(recipe),
            out,
            max_pages=params.max_pages,
            extract_only=params.extract_only,
            on_page=show,
            on_warning=warn,
        )
    out_console.print(summary_table(f"lotdata crawl -> {out}", summary))


@stage_options(params=ExtractParams)
def extract_cmd(
    inputs: List[Path] = typer.Argument(..., help=".html files, folders of them, or WARC files (.warc, .warc.gz)."),
    out: Path = typer.Option(
        ..., "--out", help="stories Parquet file to write (rejected pages: OUT.quarantine.parquet)."
    ),
    *,
    params: ExtractParams,
) -> None:
    """Extract stories from saved pages with the crawler's extractor; bad pages go to the quarantine."""
    from lotdata.sources.extract_stage import extract_files

    with errors():
        summary = extract_files(inputs, out, params)
    out_console.print(summary_table(f"lotdata extract -> {out}", summary))
