"""`lotdata crawl` and `lotdata extract`: web pages and saved pages into a stories table."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotdata.clikit import console, errors, out_console, summary_table


def crawl_cmd(
    recipe: str = typer.Option(..., "--recipe", help="Crawl recipe: a TOML path or a shipped name (lot-sources); format in pipelines/README.md."),
    out: Path = typer.Option(..., "--out", help="Crawl folder: pages.jsonl log, raw/ pages, stories.parquet, quarantine.parquet."),
    max_pages: Optional[int] = typer.Option(None, "--max-pages", help="Lower every site's max_pages for this run (a page budget)."),
    extract_only: bool = typer.Option(False, "--extract-only", help="Fetch nothing: re-extract stories from the raw pages kept in OUT."),
) -> None:
    """Crawl story sites politely (robots.txt, rate limit, retries), resuming from OUT; then extract stories."""
    from lotdata.clikit import warn
    from lotdata.resources import resolve_recipe
    from lotdata.sources.crawl import crawl

    def show(entry: dict) -> None:
        console.print(f"{entry['outcome']:>12} {entry.get('status') or '-':>4} {entry['url']}", highlight=False)

    with errors():
        summary = crawl(resolve_recipe(recipe), out, max_pages=max_pages, extract_only=extract_only, on_page=show,
                        on_warning=warn)
    out_console.print(summary_table(f"lotdata crawl -> {out}", summary))


def extract_cmd(
    inputs: List[Path] = typer.Argument(..., help=".html files, folders of them, or WARC files (.warc, .warc.gz)."),
    out: Path = typer.Option(..., "--out", help="stories Parquet file to write (rejected pages: OUT.quarantine.parquet)."),
    source: str = typer.Option("saved-pages", "--source", help="Source name stored with every story."),
    license: Optional[str] = typer.Option(None, "--license", help="License stored with every story."),
    title_selector: Optional[str] = typer.Option(None, "--title-selector", help="CSS selector of the title."),
    content_selector: Optional[str] = typer.Option(None, "--content-selector", help="CSS selector of the story text (default: trafilatura)."),
    encoding: Optional[str] = typer.Option(None, "--encoding", help="Force this encoding instead of detecting it."),
    max_bytes: int = typer.Option(2_000_000, "--max-bytes", help="Pages larger than this are quarantined."),
    lang: Optional[str] = typer.Option(None, "--lang", help="zh or en (default: detect per story)."),
    keep_repeated_lines: bool = typer.Option(False, "--keep-repeated-lines", help="Keep lines found on 30%+ of the pages (boilerplate by default)."),
) -> None:
    """Extract stories from saved pages with the crawler's extractor; bad pages go to the quarantine."""
    from lotdata.sources.extract import extract_files

    with errors():
        summary = extract_files(inputs, out, source=source, license=license, title_selector=title_selector,
                                content_selector=content_selector, encoding=encoding, max_bytes=max_bytes, lang=lang,
                                keep_repeated_lines=keep_repeated_lines)
    out_console.print(summary_table(f"lotdata extract -> {out}", summary))
