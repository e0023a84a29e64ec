"""`lotdata clean`: a stories table in, clean stories + quarantine + summary out. The command is the record
`lotdata.clean.commands.CLEAN`, run through the one runner (`lotdata.command.run_command`)."""

from __future__ import annotations

from typing import Any

from lotdata.clean.commands import CLEAN, PER_SOURCE
from lotdata.clikit import command_of, out_console, summary_table


def _render(summary: dict[str, Any], params: Any) -> None:
    out_console.print(
        summary_table(
            f"lotdata clean -> {params.out}",
            {k: v for k, v in summary.items() if k not in ("phase_seconds", PER_SOURCE)},
        )
    )
    table = summary_table("per source and rule", {})
    for row in summary.get(PER_SOURCE, []):
        table.add_row(f"{row['source']} · {row['rule']} ({row['action']})", str(row["stories"]))
    out_console.print(table)


clean_cmd = command_of(CLEAN, _render)
