"""`lotdata evaluate` and `lotdata baseline train|predict|table|curve|cartography`: the CLI of the records in
`lotdata.models.commands` (torch is imported only when a command runs)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import typer
from rich.table import Table

from lotdata.clikit import command_of, out_console, summary_table
from lotdata.models.commands import (
    BASELINE_CARTOGRAPHY,
    BASELINE_CURVE,
    BASELINE_PREDICT,
    BASELINE_TABLE,
    BASELINE_TRAIN,
    EVALUATE,
)

baseline_app = typer.Typer(
    no_args_is_help=True, help="Train and run the LOT model baselines (pip install 'lotdata[models]')."
)


def _render_evaluate(summary: dict, params) -> None:
    from lotdata.clikit import warn

    scores = summary["scores"]
    for key, reason in summary["undefined"].items():
        warn(f"{key} could not be computed: {reason} (shown as \u2013, written as null)")
    if params.to_stdout:
        sys.stdout.write(summary["json"])
        return
    table = Table(title=f"lotdata evaluate {params.task} ({params.definition})")
    table.add_column("metric")
    table.add_column("score", justify="right")
    table.add_column("%", justify="right")
    for key, value in scores.items():
        if math.isnan(value):
            table.add_row(key, "\u2013", "\u2013")
        else:
            table.add_row(key, f"{value:.4f}", f"{100 * value:.2f}")
    out_console.print(table)
    if summary.get("contamination"):
        out_console.print(contamination_table(summary["contamination"], params.task))


def _cell(value) -> str:
    return "\u2013" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.4f}"


def contamination_table(c: dict, task: str) -> Table:
    """evaluate --contamination: each metric on the clean, suspicious and dirty items, dirty - clean, interval."""
    items = c["items"]
    table = Table(
        title=f"clean vs dirty ({task}, {c['report']})",
        caption=f"{c['confidence']:.0%} percentile bootstrap interval of dirty - clean, {c['resamples']} resamples"
        + (f"; {c['note']}" if c.get("note") else ""),
    )
    table.add_column("metric")
    for bucket in ("clean", "suspicious", "dirty"):
        table.add_column(f"{bucket} ({items[bucket]})", justify="right")
    table.add_column("dirty - clean", justify="right")
    table.add_column("interval", justify="right")
    names = next((list(s) for s in c["scores"].values() if s), [])
    for key in names:
        cells = [_cell((c["scores"][b] or {}).get(key)) for b in ("clean", "suspicious", "dirty")]
        diff = c["difference"].get(key)
        if diff:
            cells += [f"{diff['dirty_minus_clean']:+.4f}", f"[{_cell(diff['low'])}, {_cell(diff['high'])}]"]
        else:
            cells += ["\u2013", "\u2013"]
        table.add_row(key, *cells)
    return table


evaluate_cmd = command_of(EVALUATE, _render_evaluate)

baseline_app.command("train")(
    command_of(
        BASELINE_TRAIN,
        lambda summary, params: out_console.print(
            summary_table(
                f"lotdata baseline train {summary['model']} -> {params.out}",
                {k: v for k, v in summary.items() if k != "history"},
            )
        ),
    )
)
baseline_app.command("predict")(
    command_of(
        BASELINE_PREDICT,
        lambda summary, params: out_console.print(summary_table(f"lotdata baseline predict -> {params.out}", summary)),
    )
)
baseline_app.command("table")(command_of(BASELINE_TABLE, lambda summary, params: sys.stdout.write(summary["table"])))
baseline_app.command("curve")(
    command_of(
        BASELINE_CURVE,
        lambda summary, params: out_console.print(
            summary_table(f"lotdata baseline curve -> {Path(params.out) / 'curve.png'}", {"points": summary["points"]})
        ),
    )
)
baseline_app.command("cartography")(
    command_of(
        BASELINE_CARTOGRAPHY,
        lambda summary, params: out_console.print(
            summary_table(f"lotdata baseline cartography -> {params.out}", summary)
        ),
    )
)
