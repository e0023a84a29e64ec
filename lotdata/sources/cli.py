"""`lotdata crawl` and `lotdata extract`: web pages and saved pages into a stories table. The commands are the
records of `lotdata.sources.commands`, run through the one runner (`lotdata.command.run_command`)."""

from __future__ import annotations

from lotdata.clikit import command_of, out_console, summary_table
from lotdata.sources.commands import CRAWL, EXTRACT

crawl_cmd = command_of(
    CRAWL, lambda summary, params: out_console.print(summary_table(f"lotdata crawl -> {params.out}", summary))
)
extract_cmd = command_of(
    EXTRACT, lambda summary, params: out_console.print(summary_table(f"lotdata extract -> {params.out}", summary))
)
