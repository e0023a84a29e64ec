"""What each check rule is measured to do (issue 34; DESIGN.md, "How a gate earns trust"): its false-alarm rate on
real accepted data and its recall on planted violations, on a tuning set and a held-out set kept apart.

The figures are `lotdata/data/check_rule_figures.json`, written by `benchmarks/bench_check_rules.py` (which holds the
sets and the planted violations; the table is bench/check_rules.md and docs/explanation/check-rules.md explains it).
`lotdata annotate check --rules` prints `rules_listing()`, with, for the Chinese `context_entities`, its reader's
figures on a hand annotation of real held-out sentences (`lotdata/data/real_text_figures.json`, written by
`benchmarks/entity_gold_zh.py`).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

FIGURES_PATH = Path(__file__).resolve().parents[1] / "data" / "check_rule_figures.json"
#: a rule's reader measured on a hand annotation of real held-out text (context_entities in Chinese), written by
#: `benchmarks/entity_gold_zh.py --update` (bench/entity_gold_zh.md)
REAL_TEXT_PATH = Path(__file__).resolve().parents[1] / "data" / "real_text_figures.json"


@lru_cache(maxsize=1)
def load_figures() -> dict[str, Any]:
    """The measured figures ({} when the file is missing: a checkout without them lists rules unmeasured)."""
    if not FIGURES_PATH.is_file():
        return {}
    return json.loads(FIGURES_PATH.read_text(encoding="utf-8"))


def real_text_figures(name: str) -> list[dict[str, Any]]:
    """The figures of rule `name`'s reader on hand-annotated real text: one dict per half ([] where not measured)."""
    if not REAL_TEXT_PATH.is_file():
        return []
    return list(json.loads(REAL_TEXT_PATH.read_text(encoding="utf-8")).get("rules", {}).get(name, []))


def real_text_line(f: dict[str, Any]) -> str:
    """One annotated half as a line: the words both annotators marked that the reader reads, its readings that
    either marked, and the words the rule flags on the half's sentences that either marked."""
    (found, marked), (right, read) = f["recall"], f["precision"]
    recall = f"{_pct(found / marked if marked else None)} ({found}/{marked})"
    precision = f"{_pct(right / read if read else None)} ({right}/{read})"
    flags = ""
    if f.get("flags"):
        flag_right, flagged = f["flags"]
        flags = f"; flagged words right {_pct(flag_right / flagged if flagged else None)} ({flag_right}/{flagged})"
    return (
        f"{f['lang']} real held-out sentences, {f['half']} half ({f['note']}): words read {recall}; "
        f"readings right {precision}{flags} (bench/entity_gold_zh.md)"
    )


def rule_figures(name: str) -> list[dict[str, Any]]:
    """The figures of rule `name`: one dict per (language, input, split); [] for a rule not measured."""
    return list(load_figures().get("rules", {}).get(name, {}).get("figures", []))


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _more_blind_keys(f: dict[str, Any]) -> list[str]:
    """The prefixes of a figure's numbered blind lists (blind2, blind3, ...), in their order."""
    keys = {key.removesuffix("_planted") for key in f if re.fullmatch(r"blind\d+_planted", key)}
    return sorted(keys, key=lambda key: int(key[5:]))


def figure_line(f: dict[str, Any]) -> str:
    """One measured set as a line: rows, false alarms (and with --strict-paper), planted recall."""
    alarms = f"false alarms {_pct(f['false_alarm_rate'])} ({f['false_alarms']}/{f['rows']})"
    if f.get("false_alarm_rate_strict") is not None:
        alarms += f", strict {_pct(f['false_alarm_rate_strict'])}"
    recall = f"planted recall {_pct(f['recall'])} ({f['caught']}/{f['planted']})"
    if f.get("blind_planted"):  # the figure above was seen while the rule was tuned: its blind measure beside it
        recall += f" (not blind); blind {_pct(f['blind_recall'])} ({f['blind_caught']}/{f['blind_planted']})"
    for key in _more_blind_keys(f):  # more lists (context_entities: one before each change of the detector)
        if f.get(key + "_planted"):
            found = f"{_pct(f[key + '_recall'])} ({f[key + '_caught']}/{f[key + '_planted']})"
            recall += f"; blind list {key[5:]} {found}"
    proxy = "" if f.get("deciding", True) else " [proxy]"
    return f"{f['lang']} {f['input']} {f['split']}{proxy}: {alarms}; {recall}"


def level_reason(name: str, level: str) -> str:
    """Why a rule refuses or warns, from its held-out figures."""
    data = load_figures()
    limit = data.get("warn_above")
    held = [f for f in rule_figures(name) if f["split"] == "held-out" and f.get("deciding", True)]
    rates = [f["false_alarm_rate"] for f in held if f["false_alarm_rate"] is not None]
    if not held or limit is None:
        return "not measured"
    worst = max(rates) if rates else None
    if level == "warn":
        return (
            f"warns: its held-out false alarms reach {_pct(worst)} (above {_pct(limit)}), too many to hold work "
            "back; a flag is shown to the reviewer and the writer, the work goes on"
        )
    return (
        f"refuses (a flag sends the work to review): held-out false alarms at most {_pct(worst)} (limit {_pct(limit)})"
    )


def rules_listing() -> str:
    """Every registered check rule: name, level, description and measured figures."""
    from lotdata.annotate.checks import RULES

    data = load_figures()
    lines = []
    if data:
        lines += [
            f"Check rules (figures of {data.get('generated', '?')}: benchmarks/bench_check_rules.py; sets: "
            + "; ".join(f"{k}: {v}" for k, v in data.get("sets", {}).items())
            + ")",
            "",
        ]
    for name, rule in RULES.items():
        lines.append(f"{name} [{rule.level}]: {rule.description}")
        lines.append(f"  {level_reason(name, rule.level)}")
        lines += [f"  {figure_line(f)}" for f in rule_figures(name)]
        lines += [f"  {real_text_line(f)}" for f in real_text_figures(name)]
    return "\n".join(lines)
