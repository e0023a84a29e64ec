"""report.md and a self-contained report.html (inline CSS, SVG and a few lines of script to sort a
table; no network).

Every figure we measured links to its record (a row of the sortable records table, whose collapsed
details show a few rows from predictions.parquet); each leaking record links to its evidence (the
items its baseline solves that the other baselines do not, with the context and both candidates);
every published figure links to its reference; every token statistic links to its examples.
"""

from __future__ import annotations

import html
import re
from typing import Any

from lotdata.audit.baselines import baseline_names
from lotdata.audit.items import CANDIDATES
from lotdata.audit.papers import LOT_BERT, PAPER_NAMES, REFERENCES, paper_figure, substitute_note
from lotdata.audit.stats import TEST_TEXT, VERDICT_TEXT

Examples = dict[str, list[dict[str, Any]]]
Evidence = dict[str, list[dict[str, Any]]]


def anchor(record_id: str) -> str:
    return "rec-" + record_id.replace("/", "-")


def evidence_anchor(record_id: str) -> str:
    return "ev-" + record_id.replace("/", "-")


def _p(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def _md_link(rec: dict[str, Any], text: str) -> str:
    return f"[{text}](#{anchor(rec['id'])})"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _main_split(result) -> str:
    splits = [s for s in result.splits if any(r["split"] == s for r in result.records)]
    return "test" if "test" in splits else (splits[-1] if splits else "")


def _records_by_key(result) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["baseline"], r["split"]): r for r in result.records}


def _baselines_in_order(result) -> list[str]:
    present = {r["baseline"] for r in result.records}
    return [b for b in baseline_names() if b in present]


def _skipped_reason(result) -> dict[str, str]:
    return {s["baseline"]: s["reason"] for s in result.skipped}


def _all_baselines(result) -> list[str]:
    """Scored and skipped baselines, in the papers' order."""
    named = set(_baselines_in_order(result)) | set(_skipped_reason(result))
    return [b for b in baseline_names() if b in named]


def _main_record(result, by_key, baseline: str, main: str):
    return by_key.get((baseline, main)) or next((r for r in result.records if r["baseline"] == baseline), None)


def _paper_columns(result) -> list[str]:
    """Splits for which some baseline has a published figure."""
    return [s for s in result.splits if any(paper_figure(b, result.task, result.lang, s) for b in baseline_names())]


def _summary_lines(result) -> list[str]:
    splits = ", ".join(f"{s} {n:,}" for s, n in result.splits.items())
    chance = ", ".join(f"{s} {_pct(c)}%" for s, c in result.chance.items())
    trained = result.train_split or f"none (no {result.params['train_split']!r} split: learning baselines skipped)"
    return (
        [
            f"Task: {result.task} ({result.lang}), read as {result.source}: {result.params['input']}",
            f"Items per split: {splits}. Learning baselines fit on: {trained}. Seed {result.params['seed']}; "
            f"random choices averaged over {result.params['runs']} runs.",
            f"Chance: {chance}. Intervals are 95% Wilson intervals over items. Sentiment: "
            + (
                "VADER (lexicon and rules)." if result.lang == "en" else f"{result.params.get('sentiment', 'snownlp')}."
            ),
            TEST_TEXT.format(alpha=0.05, min_effect=result.params.get("min_effect", 3.0)),
        ]
        + _bert_lines(result)
        + (
            [f"Quarantined rows: {len(result.quarantine):,} (quarantine.parquet; reasons in audit.json)."]
            if result.quarantine
            else []
        )
    )


def _bert_lines(result) -> list[str]:
    """The BERT baselines' settings, when they ran from a checkpoint."""
    bert = result.params.get("bert")
    if not bert:
        return []
    return [
        f"BERT w/o Context / w/o Long: {bert['scheme']} from {result.params['model_path']}; batch {bert['batch_size']}, "
        f"max length {bert['max_length']}, learning rate {bert['learning_rate']:g}, {bert['epochs']} epoch(s) "
        "(LOT 5.2: batch 12, length 512, learning rate 3e-5; no epoch count given)."
    ]


def _verdict_sentence(
    result, baseline: str, rec: dict[str, Any], link=lambda rec, text: text, escape=lambda t: t
) -> str:
    delta = 100 * (rec["accuracy"] - rec["chance"])
    return (
        f"{escape(PAPER_NAMES.get(baseline, baseline))} ({escape(baseline)}) on {escape(rec['split'])}: "
        f"{link(rec, _pct(rec['accuracy']) + '%')} [{_pct(rec['ci_low'])}, {_pct(rec['ci_high'])}], "
        f"{delta:+.1f} points from chance, Holm p {_p(rec['p_holm'])} — {escape(VERDICT_TEXT[rec['verdict']])}."
    )


# ---------------------------------------------------------------------------------------------
# Markdown


def render_markdown(result, examples: Examples, evidence: Evidence | None = None) -> str:
    by_key = _records_by_key(result)
    splits = list(result.splits)
    paper_splits = _paper_columns(result)
    skipped = _skipped_reason(result)
    lines = ["# Bias audit (偏差审计)", ""] + [f"- {line}" for line in _summary_lines(result)] + [""]
    lines += ["## Accuracy (%) of the bias baselines (LOT Table 13 / ROCStories Table 6 style)", ""]
    main = _main_split(result)
    header = (
        ["baseline", "paper name"]
        + [f"{s} (ours)" for s in splits]
        + [f"{s} (paper)" for s in paper_splits]
        + [f"verdict ({main})"]
    )
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes: list[str] = []
    for b in _all_baselines(result):
        cells = [f"`{b}`", PAPER_NAMES.get(b, b)]
        for s in splits:
            rec = by_key.get((b, s))
            cells.append(f"[{_pct(rec['accuracy'])}](#{anchor(rec['id'])})" if rec else "–")
        for s in paper_splits:
            fig = paper_figure(b, result.task, result.lang, s)
            note = substitute_note(b, result.task, result.lang) if fig else None
            if note and note not in notes:
                notes.append(note)
            cells.append(
                (f"[{fig[0]:.1f}](#ref-{fig[1]})" + (f"<sup>{notes.index(note) + 1}</sup>" if note else ""))
                if fig
                else "–"
            )
        rec = _main_record(result, by_key, b, main)
        cells.append(
            f"{rec['verdict']} ({rec['effect_points']:+.1f} pts, p_holm {_p(rec['p_holm'])})"
            if rec
            else f"skipped: {skipped.get(b, '')}"
        )
        lines.append("| " + " | ".join(cells) + " |")
    if notes:
        lines += ["", "Substitutes: " + "; ".join(f"<sup>{i}</sup> {n}" for i, n in enumerate(notes, 1)) + "."]
    if result.task in LOT_BERT and result.lang == "zh":
        lines += [
            "",
            f"Reference: fine-tuned BERT with the full input scored [{LOT_BERT[result.task]:.2f}](#ref-lot) in LOT.",
        ]
    if evidence:
        lines += ["", "## Evidence: items a leaking baseline solves that the others do not", ""]
        for rid, rows in evidence.items():
            lines += [f'<a id="{evidence_anchor(rid)}"></a>', f"### {rid}", ""]
            for e in rows[:5]:
                lines.append(
                    f"- `{e['example_id']}` (right by {e['others_right']} of {e['others']} other baselines): "
                    + _item_text_md(result.items.get(e["example_id"]), e)
                )
            lines.append("")
    lines += [
        "",
        "## Records",
        "",
        "| id | n | accuracy % | 95% CI | chance % | effect pts | p | p_holm | verdict |",
        "|---|--:|--:|---|--:|--:|--:|--:|---|",
    ]
    for rec in result.records:
        lines.append(
            f'| <a id="{anchor(rec["id"])}"></a>{rec["id"]} | {rec["n"]:,} | {_pct(rec["accuracy"])} | '
            f"{_pct(rec['ci_low'])}–{_pct(rec['ci_high'])} | {_pct(rec['chance'])} | {rec['effect_points']:+.1f} | "
            f"{_p(rec['p_value'])} | {_p(rec['p_holm'])} | {rec['verdict']} |"
        )
    for b, reason in skipped.items():
        lines.append(f"| {b} (skipped) | 0 | – | – | – | – | – | – | skipped: {reason} |")
    lines += ["", "Full records: `results.json`; per-item rows: `predictions.parquet`."]
    lines += ["", "## Tokens that give the label away", ""] + _scan_md(result.scan)
    if result.aflite:
        lines += ["", "## AFLite filtering", "", _aflite_text(result.aflite)]
    lines += ["", "## References", ""] + [f'<a id="ref-{k}"></a>- {v}' for k, v in REFERENCES.items()] + [""]
    return "\n".join(lines)


def _item_text_md(item, e: dict[str, Any]) -> str:
    if item is None:
        return ""
    if item.shape == CANDIDATES:
        context = " ".join(item.before) + " ___ " + " ".join(item.after)
        cands = "; ".join(f"{'✓' if o == item.gold_option else '✗'} “{c}”" for o, c in enumerate(item.candidates))
        return f"{context.strip()} — {cands}"
    gap = item.gold_option
    return f"“{item.removed}” belongs after sentence {gap + 1} of {len(item.sentences)}"


def _scan_md(scan: dict[str, Any]) -> list[str]:
    if not scan.get("tokens"):
        return ["No token occurs often enough to test."]
    lines = [
        _scan_intro(scan),
        "",
        "| token | class | n | share in class | z | PMI | examples |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(scan["tokens"]):
        ex = "; ".join(f"`{e['example_id']}` “{e['text'][:60]}”" for e in r.get("examples", []))
        link = f"#tok-{i}"
        lines.append(
            f"| {r['token']} | {r['label']} | [{r['n']}]({link}) | [{100 * r['p_label']:.0f}%]({link}) | "
            f"[{r['z']:.1f}]({link}){'' if r['significant'] else ' (n.s.)'} | [{r['pmi']:.2f}]({link}) | {ex} |"
        )
    lines += [""] + [f'<a id="tok-{i}"></a>' for i in range(len(scan["tokens"]))]
    return lines


def _scan_intro(scan: dict[str, Any]) -> str:
    crit = f"{scan['z_critical']:.2f}" if scan.get("z_critical") is not None else "–"
    return (
        f"{scan['instances']:,} option texts, {scan['tested_tokens']:,} tokens seen at least 5 times, "
        f"{scan['tests']:,} (token, class) tests; Bonferroni critical z = {crit} (alpha {scan['alpha']}). "
        f"{scan['significant']:,} significant associations (Gardner et al. 2021); PMI as Gururangan et al. (2018), add-100 smoothing."
        + ("" if scan["significant"] else " None is significant: the rows below are the strongest, marked n.s.")
    )


def _aflite_text(a: dict[str, Any]) -> str:
    return (
        f"AFLite (Le Bras et al. 2020) removed {a['removed']:,} of {a['items']:,} items whose predictability "
        f"by the options-only features was at least {a['threshold']} over {a['partitions']} random partitions per "
        f"round ({a['rounds']} rounds). Options-only accuracy on held-out partitions: "
        f"{_pct(a['accuracy_before'])}% before, {_pct(a['accuracy_after'])}% after. Removed ids: aflite_removed.txt."
    )


# ---------------------------------------------------------------------------------------------
# HTML

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","PingFang SC",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#1d1d1f;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em} h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.92em} th,td{border:1px solid #d0d0d0;padding:.3em .55em;vertical-align:top}
th{background:#f3f3f5;text-align:left} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.num a{color:#0b57d0;text-decoration:none} td.num a:hover{text-decoration:underline}
.ci{color:#666;font-size:.85em} .paper{background:#fafaf5}
.v-leaks{color:#b3261e;font-weight:600} .v-weak{color:#b8620b} .v-near{color:#1e7b34} .v-below{color:#6a3fb5;font-weight:600}
table.sortable th{cursor:pointer} td[class^="v-"] a{color:inherit} td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.ctx{color:#333;margin:.2em 0} td.wrap{white-space:normal;max-width:40em} li.right{color:#1e7b34} li.wrong{color:#b3261e} b.right{color:#1e7b34}
.summary li{margin:.15em 0} .muted{color:#666} details{margin:.3em 0} pre{background:#f6f8fa;padding:.5em;overflow-x:auto;font-size:.85em}
section.record{border-top:1px dashed #ccc;padding-top:.3em} mark{background:#ffe08a}
"""


def _e(text: Any) -> str:
    return html.escape(str(text))


def _vclass(v: str) -> str:
    return {"leaks": "v-leaks", "weak signal": "v-weak", "near chance": "v-near", "below chance": "v-below"}.get(
        v, "muted"
    )


_SORT_JS = """
document.querySelectorAll('table.sortable th').forEach(function(th, col){th.addEventListener('click', function(){
 var body = th.closest('table').tBodies[0], rows = Array.from(body.rows), asc = th.dataset.asc !== '1';
 th.dataset.asc = asc ? '1' : '0';
 var key = function(r){var c = r.cells[col], v = c.dataset.v !== undefined ? c.dataset.v : c.textContent.trim(); var f = parseFloat(v); return isNaN(f) ? v : f;};
 rows.sort(function(a, b){var x = key(a), y = key(b); return (x > y ? 1 : x < y ? -1 : 0) * (asc ? 1 : -1);});
 rows.forEach(function(r){body.appendChild(r);});});});
"""


def render_html(result, examples: Examples, evidence: Evidence | None = None) -> str:
    evidence = evidence or {}
    by_key = _records_by_key(result)
    splits = list(result.splits)
    paper_splits = _paper_columns(result)
    main = _main_split(result)
    order = _baselines_in_order(result)
    skipped = _skipped_reason(result)
    parts = [
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Bias audit — {_e(result.params["input"])}</title>',
        f"<style>{_CSS}</style></head><body>",
        '<h1>Bias audit <span class="muted">偏差审计</span></h1>',
        '<ul class="summary">' + "".join(f"<li>{_e(line)}</li>" for line in _summary_lines(result)) + "</ul>",
    ]

    parts.append(
        '<h2>Accuracy (%) of the bias baselines <span class="muted">— LOT Table 13 / ROCStories Table 6 style</span></h2>'
    )
    head = "<tr><th>baseline</th><th>name in the papers</th>" + "".join(
        f"<th>{_e(s)} (ours, 95% CI)</th>" for s in splits
    )
    head += (
        "".join(f'<th class="paper">{_e(s)} (paper)</th>' for s in paper_splits)
        + f"<th>verdict ({_e(main)}), effect, Holm p</th></tr>"
    )
    rows: list[str] = []
    notes: list[str] = []
    for b in _all_baselines(result):
        cells = [f"<td><code>{_e(b)}</code></td><td>{_e(PAPER_NAMES.get(b, b))}</td>"]
        if b in skipped and b not in order:
            span = len(splits) + len(paper_splits)
            cells.append(f'<td colspan="{span + 1}" class="muted wrap">skipped: {_e(skipped[b])}</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
            continue
        for s in splits:
            rec = by_key.get((b, s))
            if rec:
                cells.append(
                    f'<td class="num"><a href="#{anchor(rec["id"])}">{_pct(rec["accuracy"])}</a> '
                    f'<span class="ci">({_pct(rec["ci_low"])}–{_pct(rec["ci_high"])})</span></td>'
                )
            else:
                cells.append('<td class="muted">–</td>')
        for s in paper_splits:
            fig = paper_figure(b, result.task, result.lang, s)
            note = substitute_note(b, result.task, result.lang) if fig else None
            if note and note not in notes:
                notes.append(note)
            mark = f'<sup><a href="#note-{notes.index(note) + 1}">{notes.index(note) + 1}</a></sup>' if note else ""
            cells.append(
                f'<td class="num paper"><a href="#ref-{fig[1]}">{fig[0]:.1f}</a>{mark}</td>'
                if fig
                else '<td class="paper muted">–</td>'
            )
        rec = _main_record(result, by_key, b, main)
        label = _e(rec["verdict"])
        if rec["id"] in evidence:
            label = f'<a href="#{evidence_anchor(rec["id"])}">{label}</a>'
        cells.append(
            f'<td class="{_vclass(rec["verdict"])}">{label} <span class="ci">{rec["effect_points"]:+.1f} pts, '
            f"p {_e(_p(rec['p_holm']))}</span></td>"
        )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    parts.append(f"<table>{head}{''.join(rows)}</table>")
    if notes:
        parts.append(
            '<p class="muted">Substitutes: '
            + "; ".join(f'<span id="note-{i}"><sup>{i}</sup> {_e(n)}</span>' for i, n in enumerate(notes, 1))
            + ".</p>"
        )
    if result.task in LOT_BERT and result.lang == "zh":
        parts.append(
            f'<p class="muted">Reference: fine-tuned BERT with the full input scored '
            f'<a href="#ref-lot">{LOT_BERT[result.task]:.2f}</a> in LOT.</p>'
        )

    parts.append(f"<details><summary>Accuracy on {_e(main)} against chance (chart)</summary>")
    parts.append(bar_chart([by_key[(b, main)] for b in order if (b, main) in by_key], result.chance.get(main, 0.0)))
    parts.append("</details>")

    if evidence:
        parts.append(
            '<h2>Evidence <span class="muted">— items a leaking baseline solves that the others do not</span></h2>'
        )
        for rid, rows_ in evidence.items():
            items_html = "".join(_evidence_item_html(result.items.get(e["example_id"]), e) for e in rows_[:5])
            parts.append(
                f'<details id="{evidence_anchor(rid)}"><summary><b>{_e(rid)}</b>: solves {len(rows_):,} items; '
                f"the {min(5, len(rows_))} the fewest other baselines solve</summary><ol>{items_html}</ol></details>"
            )

    parts.append(
        '<h2>Records</h2><p class="muted">All of <code>results.json</code>; click a header to sort, a row\'s '
        "<i>rows</i> for a few of its items from <code>predictions.parquet</code> (wrong ones first).</p>"
    )
    parts.append(_records_table(result, examples, evidence))
    parts.append("<h2>Tokens that give the label away</h2>" + _scan_html(result.scan))
    if result.aflite:
        parts.append(f"<h2>AFLite filtering</h2><p>{_e(_aflite_text(result.aflite))}</p>")
    parts.append(
        "<h2>References</h2><ul>" + "".join(f'<li id="ref-{k}">{_e(v)}</li>' for k, v in REFERENCES.items()) + "</ul>"
    )
    parts.append(f"<script>{_SORT_JS}</script></body></html>")
    return "\n".join(parts)


def _records_table(result, examples: Examples, evidence: Evidence) -> str:
    cols = [
        "id",
        "n",
        "accuracy %",
        "95% CI",
        "chance %",
        "effect pts",
        "p",
        "p_holm",
        "verdict",
        "fit on",
        "runs",
        "rows",
    ]
    out = ['<table class="sortable"><thead><tr>' + "".join(f"<th>{c}</th>" for c in cols) + "</tr></thead><tbody>"]
    for rec in result.records:
        preds = "".join(
            f"<li><code>{_e(p['example_id'])}</code>: chose {p['choice']}, gold {p['label']}, "
            f"{'right' if p['correct'] else 'wrong'}{' (tie)' if p['tie'] else ''}</li>"
            for p in examples.get(rec["id"], [])
        )
        ev = f' <a href="#{evidence_anchor(rec["id"])}">evidence</a>' if rec["id"] in evidence else ""
        out.append(
            f'<tr id="{anchor(rec["id"])}"><td><code>{_e(rec["id"])}</code></td><td class="n">{rec["n"]:,}</td>'
            f'<td class="n">{_pct(rec["accuracy"])}</td><td class="n" data-v="{rec["ci_low"]:.6f}">{_pct(rec["ci_low"])}–{_pct(rec["ci_high"])}</td>'
            f'<td class="n">{_pct(rec["chance"])}</td><td class="n">{rec["effect_points"]:+.1f}</td>'
            f'<td class="n" data-v="{rec["p_value"]:.3g}">{_e(_p(rec["p_value"]))}</td><td class="n" data-v="{rec["p_holm"]:.3g}">{_e(_p(rec["p_holm"]))}</td>'
            f'<td class="{_vclass(rec["verdict"])}">{_e(rec["verdict"])}{ev}</td><td>{_e(rec.get("fit_on") or "–")}</td>'
            f'<td class="n">{rec["runs"]}</td><td><details><summary>rows</summary><ul>{preds}</ul></details></td></tr>'
        )
    for b, reason in _skipped_reason(result).items():
        out.append(
            f'<tr id="rec-{_e(b)}-skipped"><td><code>{_e(b)}</code></td><td class="n">0</td>'
            + "<td>–</td>" * 6
            + f'<td class="muted">skipped</td><td colspan="3" class="muted">{_e(reason)}</td></tr>'
        )
    out.append("</tbody></table>")
    return "".join(out)


def _evidence_item_html(item, e: dict[str, Any]) -> str:
    head = (
        f'<code>{_e(e["example_id"])}</code> <span class="muted">({_e(e["split"])}; right by {e["others_right"]} of '
        f"{e['others']} other baselines)</span>"
    )
    if item is None:
        return f"<li>{head}</li>"
    if item.shape == CANDIDATES:
        context = _e(" ".join(item.before)) + " <b>[___]</b> " + _e(" ".join(item.after))
        cands = "".join(
            f'<li class="{"right" if o == item.gold_option else "wrong"}">{"✓ right" if o == item.gold_option else "✗ wrong"}: '
            f"{_e(c)}</li>"
            for o, c in enumerate(item.candidates)
        )
        return f'<li>{head}<div class="ctx">{context}</div><ul>{cands}</ul></li>'
    gap = item.gold_option
    paragraph = "".join(
        _e(s) + (f' <b class="right">[✓ {_e(item.removed)}]</b> ' if i == gap else " ")
        for i, s in enumerate(item.sentences)
    )
    return f'<li>{head}<div class="ctx">{paragraph}</div></li>'


def _scan_html(scan: dict[str, Any]) -> str:
    if not scan.get("tokens"):
        return "<p>No token occurs often enough to test.</p>"
    out = [
        f"<p>{_e(_scan_intro(scan))}</p>",
        "<table><tr><th>token</th><th>class</th><th>n items</th><th>share in class</th><th>z</th><th>PMI</th><th>an example (more below)</th></tr>",
    ]
    details = []
    for i, r in enumerate(scan["tokens"]):
        link = f"#tok-{i}"
        ns = "" if r["significant"] else ' <span class="muted">(n.s.)</span>'
        out.append(
            f"<tr><td><b>{_e(r['token'])}</b></td><td>{_e(r['label'])}</td>"
            f'<td class="num"><a href="{link}">{r["n"]}</a></td><td class="num"><a href="{link}">{100 * r["p_label"]:.0f}%</a></td>'
            f'<td class="num"><a href="{link}">{r["z"]:.1f}</a>{ns}</td><td class="num"><a href="{link}">{r["pmi"]:.2f}</a></td>'
            f"<td>{_first_example(r)}</td></tr>"
        )
        exs = "".join(
            f"<li><code>{_e(e['example_id'])}</code> ({_e(e['split'])}, {_e(e['label'])}): {_highlight(e['text'], r['token'])}</li>"
            for e in r.get("examples", [])
        )
        details.append(
            f'<details id="tok-{i}"><summary><b>{_e(r["token"])}</b> → {_e(r["label"])}: '
            f"{r['k']} of {r['n']} items, z = {r['z']:.2f}</summary><ul>{exs}</ul></details>"
        )
    out.append("</table>")
    return "".join(out) + "<h3>Examples</h3>" + "".join(details)


def _first_example(row: dict[str, Any]) -> str:
    first = (row.get("examples") or [None])[0]
    return (
        f'{_highlight(first["text"], row["token"])} <span class="muted">({_e(first["example_id"])})</span>'
        if first
        else ""
    )


def _highlight(text: str, token: str) -> str:
    """`text` escaped, with the first whole-word (for Latin script) occurrence of `token` marked."""
    bound = r"\b" if token.isascii() else ""
    match = re.search(f"{bound}{re.escape(token)}{bound}", text, flags=re.IGNORECASE)
    if not match:
        return _e(text)
    return f"{_e(text[: match.start()])}<mark>{_e(match.group())}</mark>{_e(text[match.end() :])}"


def bar_chart(records: list[dict[str, Any]], chance: float, width: int = 760) -> str:
    """Horizontal bars (accuracy, 0–100%) with 95% whiskers and a dashed chance line; inline SVG."""
    if not records:
        return '<p class="muted">No scored baseline.</p>'
    left, right, bar_h, gap, top = 150, 70, 18, 8, 24
    plot_w = width - left - right
    height = top + len(records) * (bar_h + gap) + 30
    x = lambda v: left + plot_w * v  # noqa: E731
    colour = {"leaks": "#d9534f", "weak signal": "#f0ad4e", "near chance": "#5b9bd5", "below chance": "#8e6bd1"}
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="accuracy per baseline with the chance line" font-size="12">'
    ]
    for tick in range(0, 101, 10):
        svg.append(
            f'<line x1="{x(tick / 100):.1f}" y1="{top - 6}" x2="{x(tick / 100):.1f}" y2="{height - 24}" stroke="#eee"/>'
            f'<text x="{x(tick / 100):.1f}" y="{height - 10}" text-anchor="middle" fill="#666">{tick}%</text>'
        )
    for i, r in enumerate(records):
        y = top + i * (bar_h + gap)
        svg.append(
            f'<a href="#{anchor(r["id"])}"><text x="{left - 8}" y="{y + 13}" text-anchor="end">{_e(r["baseline"])}</text>'
            f'<rect x="{left}" y="{y}" width="{plot_w * r["accuracy"]:.1f}" height="{bar_h}" fill="{colour[r["verdict"]]}"/>'
            f'<line x1="{x(r["ci_low"]):.1f}" y1="{y + bar_h / 2}" x2="{x(r["ci_high"]):.1f}" y2="{y + bar_h / 2}" stroke="#222"/>'
            f'<text x="{x(max(r["accuracy"], r["ci_high"])) + 5:.1f}" y="{y + 13}" fill="#222">{_pct(r["accuracy"])}</text></a>'
        )
    cx = x(chance)
    svg.append(
        f'<line x1="{cx:.1f}" y1="{top - 10}" x2="{cx:.1f}" y2="{height - 24}" stroke="#000" stroke-dasharray="5,4" stroke-width="1.5"/>'
        f'<text x="{cx + 4:.1f}" y="{top - 12}" fill="#000">chance {_pct(chance)}%</text></svg>'
    )
    legend = (
        '<p class="muted">Bars: accuracy; whiskers: 95% interval; dashed line: chance. '
        f'<span style="color:{colour["leaks"]}">■ red</span> leaks, <span style="color:{colour["weak signal"]}">■ amber</span> weak signal, '
        f'<span style="color:{colour["near chance"]}">■ blue</span> near chance, '
        f'<span style="color:{colour["below chance"]}">■ purple</span> below chance. Click a bar for its record.</p>'
    )
    return "".join(svg) + legend
