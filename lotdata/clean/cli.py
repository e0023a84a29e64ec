"""`lotdata clean`: a stories table in, clean stories + quarantine + summary out."""

from __future__ import annotations

from pathlib import Path
from typing import List

import typer

from lotdata.clean.stage import CleanStepParams
from lotdata.clikit import errors, out_console, stage_options, summary_table
from lotdata.exec import ExecSettings


@stage_options(params=CleanStepParams, execution=ExecSettings)
def clean_cmd(
    stories: List[Path] = typer.Argument(..., help="stories Parquet file(s); duplicates are found across all of them."),
    out: Path = typer.Option(
        ..., "--out", help="Folder for stories.parquet, quarantine.parquet, summary.parquet, manifest.json."
    ),
    *,
    params: CleanStepParams,
    execution: ExecSettings,
) -> None:
    """Clean stories: strip noise, flag for annotators, reject by rule, remove exact and near-duplicates."""
    from lotdata.clean.files import clean_files
    from lotdata.errors import InputError
    from lotdata.io import output_lock

    with errors():
        params.check()
        with output_lock(out):  # one run at a time per output folder
            result = clean_files(stories, out, params.clean_params(), execution=execution, **params.hold_out_settings())
        if not result.kept:
            raise InputError(
                f"no story kept: {result.counts['stories_in']} read, {result.counts['removed']} removed; "
                f"see {out / 'quarantine.parquet'} and {out / 'summary.parquet'}",
                path=", ".join(map(str, stories)),
            )
    out_console.print(
        summary_table(f"lotdata clean -> {out}", {k: v for k, v in result.counts.items() if k != "phase_seconds"})
    )
    table = summary_table("per source and rule", {})
    for row in result.summary:
        table.add_row(f"{row['source']} · {row['rule']} ({row['action']})", str(row["stories"]))
    out_console.print(table)
