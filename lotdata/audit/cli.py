"""`lotdata audit-bias` and `lotdata import storycloze`, derived from their records (`lotdata.audit.commands`)."""

from __future__ import annotations

from rich.markup import escape

from lotdata.audit.commands import AUDIT_BIAS, IMPORT_STORYCLOZE
from lotdata.clikit import command_of, console, out_console, summary_table


def _render_audit(summary: dict, params) -> None:
    out = params.out
    for skipped in summary["skipped"]:
        console.print(f"[yellow]skipped {skipped['baseline']}:[/] {escape(skipped['reason'])}")
    if summary["quarantined"]:
        counts = summary["quarantine_by_reason"]
        console.print(
            f"[yellow]quarantined {summary['quarantined']} row(s)[/] ({escape('; '.join(f'{n} × {r}' for r, n in counts.items()))}): "
            f"{escape(f'{out}/quarantine.parquet')}"
        )
    rows = {
        r[
            "id"
        ]: f"{100 * r['accuracy']:.1f}% ({100 * r['ci_low']:.1f}–{100 * r['ci_high']:.1f}) {r['verdict']}, p_holm {r['p_holm']:.2g}"
        for r in summary["records"]
    }
    if summary["exported"] is not None:
        rows["exported hard items"] = f"{summary['exported']['items']} -> {params.export_hard}"
    rows["leaking tokens"] = summary["leaking tokens"]
    rows["seconds"] = summary["seconds"]
    rows["report"] = summary["report"]
    out_console.print(summary_table(f"lotdata audit-bias ({summary['task']}) -> {out}", rows))


def _render_import(summary: dict, params) -> None:
    out_console.print(summary_table(f"lotdata import storycloze -> {params.out}", summary))


audit_bias_cmd = command_of(AUDIT_BIAS, _render_audit)
import_storycloze_cmd = command_of(IMPORT_STORYCLOZE, _render_import)
