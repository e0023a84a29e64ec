"""human_eval (LOT Table 12): three systems' outputs side by side, rated per aspect; Table 12 with kappa and sign tests.\nhuman_eval_truth: the same with the ground truth as a fourth text, Table 12's Truth row."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any, Hashable, Mapping, Sequence

from lotdata.annotate.agreement import fleiss_kappa, krippendorff_alpha, majority_vote
from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    choice,
    opaque_uid,
    register_job,
    rounded,
    seeded_rank,
)
from lotdata.errors import InputError, must_exist, require
from lotdata.io import iter_jsonl

ASPECTS = ("grammaticality", "coherence", "relatedness")
EVAL_SLOTS = ("A", "B", "C")
#: human_eval_truth: the ground truth rated beside three systems, as LOT Table 12's Truth row
TRUTH_SLOTS = ("A", "B", "C", "D")
TRUTH_SYSTEM = "truth"


def _input_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "zh", slots: Sequence[str] = EVAL_SLOTS) -> list[Task]:
    """One task per input, its outputs side by side in a seeded shuffled order (A/B/C); the slots' systems are hidden."""
    by_input: dict[str, list[Row]] = {}
    for row in rows:
        by_input.setdefault(str(row["input_id"]), []).append(row)
    tasks = []
    for input_id, outputs in by_input.items():
        outputs = sorted(outputs, key=lambda r: seeded_rank(f"{seed}:{input_id}:{r['system']}"))
        placed = dict(zip(slots, outputs))
        data = {
            "uid": opaque_uid("eval", input_id),
            "input": _input_text(outputs[0]["input"]),
            **{f"output_{slot}": row["output"] for slot, row in placed.items()},
        }
        hidden = {
            "input_id": input_id,
            "task": str(outputs[0].get("task") or ""),
            "seed": seed,
            "slots": {slot: str(row["system"]) for slot, row in placed.items()},
        }
        tasks.append({"data": data, "hidden": hidden})
    return tasks


def check(
    values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any], slots: Sequence[str] = EVAL_SLOTS
) -> dict[str, Any]:
    return {f"{aspect}_{slot}": int(values[f"{aspect}_{slot}"]) for aspect in ASPECTS for slot in slots}


def sign_test(a_better: int, b_better: int) -> float | None:
    """Two-sided exact sign test (ties left out): the p-value of a_better successes in a_better + b_better trials."""
    binomtest = require("scipy.stats", "labelstudio").binomtest

    n = a_better + b_better
    return None if n == 0 else float(binomtest(a_better, n, 0.5).pvalue)


def assemble(annotations: list[Annotation]) -> dict[str, Any]:
    """Per (input, system): the majority of the raters per aspect; per system the Table 12 shares, Fleiss' kappa per
    system and per cell (system x aspect), and a sign test between every two systems per aspect (LOT Table 12)."""
    items = []
    cell: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for uid, anns in by_uid(annotations).items():
        hidden = anns[0].hidden
        for slot, system in hidden["slots"].items():
            item = {
                "uid": f"{hidden['input_id']}:{system}",
                "input_id": hidden["input_id"],
                "system": system,
                "task": hidden.get("task") or None,
                "raters": len(anns),
            }
            for aspect in ASPECTS:
                values = [a.values[f"{aspect}_{slot}"] for a in anns]
                cell[(system, aspect)][hidden["input_id"]] = values
                item[aspect] = majority_vote(values)
            items.append(item)
    systems = sorted({i["system"] for i in items})
    table: dict[str, dict[str, Any]] = {}
    for system in systems:
        rows = [i for i in items if i["system"] == system]
        table[system] = {"items": len(rows)}
        for aspect in ASPECTS:
            decided = [i[aspect] for i in rows if i[aspect] is not None]
            table[system][aspect] = round(sum(decided) / len(decided), 4) if decided else None
        for aspect in ASPECTS:
            table[system][f"kappa_{aspect}"] = rounded(fleiss_kappa(cell[(system, aspect)]))
        pooled = {(input_id, aspect): v for aspect in ASPECTS for input_id, v in cell[(system, aspect)].items()}
        table[system]["kappa"] = rounded(fleiss_kappa(pooled))
    majority = {(i["input_id"], i["system"], a): i[a] for i in items for a in ASPECTS}
    inputs = sorted({i["input_id"] for i in items})
    tests = []
    for a_sys, b_sys in itertools.combinations(systems, 2):
        for aspect in ASPECTS:
            pairs = [(majority.get((k, a_sys, aspect)), majority.get((k, b_sys, aspect))) for k in inputs]
            pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
            a_better, b_better = sum(x > y for x, y in pairs), sum(x < y for x, y in pairs)
            p = sign_test(a_better, b_better)
            tests.append(
                {
                    "aspect": aspect,
                    "system_a": a_sys,
                    "system_b": b_sys,
                    "a_better": a_better,
                    "b_better": b_better,
                    "ties": len(pairs) - a_better - b_better,
                    "p_value": None if p is None else round(p, 6),
                }
            )
    ratings = {
        aspect: {(s, k): v for (s, a), by in cell.items() if a == aspect for k, v in by.items()} for aspect in ASPECTS
    }
    kappa = {aspect: rounded(fleiss_kappa(ratings[aspect])) for aspect in ASPECTS}
    alpha = {aspect: krippendorff_alpha(ratings[aspect]) for aspect in ASPECTS}  # nominal, with its 95% interval
    stats = {"items": len(items), "inputs": len(inputs), "fleiss_kappa": kappa}
    stats["krippendorff_alpha"] = {a: v and {"alpha": v["alpha"], "ci95": v["ci95"]} for a, v in alpha.items()}
    return {"human_eval": items, "table12": table, "sign_tests": tests, "stats": stats}


def votes(values: dict[str, Any]) -> list[tuple[str, Hashable]]:
    return [(name, value) for name, value in values.items()]


def load(path: Path, splits: Sequence[str] | None, slots: Sequence[str] = EVAL_SLOTS) -> list[Row]:
    """Generated outputs for human evaluation: Parquet or jsonl with input_id, input, system, output; `slots`
    outputs per input (human_eval_truth: three systems and one named `truth`)."""
    import pyarrow.parquet as pq

    must_exist(path, "input")
    if path.suffix == ".parquet":
        rows = pq.read_table(path).to_pylist()
    else:
        rows = [row for _, row in iter_jsonl(path)]
    for n, row in enumerate(rows, 1):
        missing = [k for k in ("input_id", "input", "system", "output") if not row.get(k) and row.get(k) != 0]
        if missing:
            raise InputError(f"missing {missing}", path=str(path), row=n)
    systems: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        systems[str(row["input_id"])].add(str(row["system"]))
    truth = len(slots) == len(TRUTH_SLOTS)
    for input_id, names in systems.items():
        if len(names) != len(slots) or truth and TRUTH_SYSTEM not in names:
            raise InputError(
                f"input_id {input_id!r} has {len(names)} system(s) {sorted(names)}; "
                + (
                    f"human_eval_truth shows three systems and the ground truth (system {TRUTH_SYSTEM!r}) side by side"
                    if truth
                    else "human_eval shows exactly three systems side by side (LOT Table 12 rates three "
                    f"and the ground truth: name it {TRUTH_SYSTEM!r} and push human_eval_truth)"
                ),
                path=str(path),
            )
    return rows


def table12_markdown(table: dict[str, dict[str, Any]], sign_tests: list[dict[str, Any]] | None = None) -> str:
    """LOT Table 12 layout: one row per system, the share of outputs judged good per aspect (majority of raters),
    Fleiss' kappa per cell and per system; then the sign tests between systems."""
    fmt = lambda v: "–" if v is None else f"{v:.2f}"
    lines = [
        "| system | items | Gram | Cohe | Relat | κ Gram | κ Cohe | κ Relat | κ system |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for system, row in table.items():
        cells = [fmt(row[a]) for a in ASPECTS] + [fmt(row.get(f"kappa_{a}")) for a in ASPECTS] + [fmt(row.get("kappa"))]
        lines.append(f"| {system} | {row['items']} | " + " | ".join(cells) + " |")
    if sign_tests:
        lines += [
            "",
            "Sign test (two-sided, ties left out) on the majority scores of the same inputs:",
            "",
            "| aspect | A | B | A better | B better | ties | p |",
            "| --- | --- | --- | ---: | ---: | ---: | ---: |",
        ]
        for t in sign_tests:
            p = "–" if t["p_value"] is None else f"{t['p_value']:.4g}"
            lines.append(
                f"| {t['aspect']} | {t['system_a']} | {t['system_b']} | {t['a_better']} | {t['b_better']} | {t['ties']} | {p} |"
            )
    return "\n".join(lines) + "\n"


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`human_eval.parquet` (every output's majority scores) and `table12.md`."""
    from lotdata.io import write_parquet, write_text
    from lotdata.schema import HUMAN_EVAL, table_from_rows

    write_parquet(table_from_rows(assembled["human_eval"], HUMAN_EVAL), output.folder / "human_eval.parquet")
    write_text(table12_markdown(assembled["table12"], assembled.get("sign_tests", [])), output.folder / "table12.md")
    return {"table12": assembled["table12"]}


def demo_rows() -> list[Row]:
    return [
        {"input_id": i, "input": f"输入{i}", "system": s, "output": f"{s} 写的故事{i}。", "task": "plotcom"}
        for i in range(2)
        for s in ("sysA", "sysB", "sysC")
    ]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    return [
        choice(f"{aspect}_{slot}", f"output_{slot}", [str((rater + n) % 2)])
        for slot in task["hidden"]["slots"]
        for n, aspect in enumerate(ASPECTS)
    ]


SPEC = register_job(
    JobSpec(
        name="human_eval",
        order=5,
        summary="rate generated outputs side by side: LOT Table 12",
        input_help="outputs table (Parquet or jsonl: input_id, input, system, output)",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=votes,
        assemble=assemble,
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        raters=3,
        sample_key=lambda r: str(r["input_id"]),
        templates={"zh": "human_eval", "en": "en/human_eval"},
        descriptions={
            "zh": "人工评价（LOT 表 12）：对三个模型生成的文本分别从语法性、连贯性、相关性打分。每个输入一个任务。",
            "en": "Human evaluation (LOT Table 12): score three systems' generated texts for grammaticality, coherence and relatedness. One task per input.",
        },
    )
)


def truth_demo_rows() -> list[Row]:
    return [
        {"input_id": i, "input": f"输入{i}", "system": s, "output": f"{s} 写的故事{i}。", "task": "plotcom"}
        for i in range(2)
        for s in ("sysA", "sysB", "sysC", TRUTH_SYSTEM)
    ]


TRUTH_SPEC = register_job(
    JobSpec(
        name="human_eval_truth",
        order=6,
        summary="rate three systems' outputs and the ground truth side by side: LOT Table 12 with its Truth row",
        input_help="outputs table as human_eval's, with a fourth system named truth per input",
        load=partial(load, slots=TRUTH_SLOTS),
        to_tasks=partial(to_tasks, slots=TRUTH_SLOTS),
        check=partial(check, slots=TRUTH_SLOTS),
        votes=votes,
        assemble=assemble,
        write=write,
        demo_rows=truth_demo_rows,
        simulate=simulate,
        raters=3,
        sample_key=lambda r: str(r["input_id"]),
        templates={"zh": "human_eval_truth", "en": "en/human_eval_truth"},
        descriptions={
            "zh": "人工评价（LOT 表 12，含真实文本一行）：对四个文本（三个模型的生成和原文，顺序随机、不标明来源）分别从语法性、连贯性、相关性打分。每个输入一个任务。",
            "en": "Human evaluation (LOT Table 12 with its Truth row): score four texts (three systems' outputs and the original, shuffled and unnamed) for grammaticality, coherence and relatedness. One task per input.",
        },
    )
)
