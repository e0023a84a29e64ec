"""Write what `lotdata overlap` found: summary.json, examples.parquet, report.md, and the filtered dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa

from lotdata.io import write_manifest, write_parquet, write_text
from lotdata.overlap.measure import OverlapResult, result_params
from lotdata.overlap.testset import TestSet
from lotdata.schema import OVERLAP_EXAMPLES, STORIES, table_from_rows


def write_outputs(
    result: OverlapResult,
    out: str | Path,
    *,
    test_path: str,
    references: list[str],
    schema: pa.Schema = OVERLAP_EXAMPLES,
    extra_summary: dict[str, Any] | None = None,
    extra_report: str = "",
) -> dict[str, Path]:
    """summary.json, examples.parquet (`schema`: the index path adds the longest match) and report.md."""
    out = Path(out)
    summary = {
        "test": test_path,
        "references": references,
        "params": result_params(result),
        "splits": result.summary,
        "scan": result.scan,
        "skipped": result.skipped,
        **(extra_summary or {}),
    }
    rows = [{"split": split, **record} for split, records in result.examples.items() for record in records]
    paths = {
        "summary": write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", out / "summary.json"),
        "examples": write_parquet(table_from_rows(rows, schema), out / "examples.parquet"),
        "report": write_text(render_report(result, test_path, references) + extra_report, out / "report.md"),
    }
    return paths


def _pct(value: float) -> str:
    return f"{100 * value:.2f}%"


def render_report(result: OverlapResult, test_path: str, references: list[str]) -> str:
    """LOT Table 14 (重叠分析) for each split, then the examples with the largest overlap."""
    spec = result.spec
    lines = [
        f"# Overlap report / 重叠分析 ({spec.n}-grams)",
        "",
        f"- test: `{test_path}`",
        f"- references: {', '.join(f'`{r}`' for r in references)}",
        f"- tokens: `{spec.tokenizer if spec.lang == 'zh' else 'words'}` ({spec.lang}), NFKC, "
        f"punctuation {'dropped' if spec.drop_punct else 'kept'}; threshold {_pct(result.threshold)}",
        f"- scanned: {result.scan['docs']:,} documents, {result.scan['bytes'] / 1e6:,.1f} MB in {result.scan['shards']} shards "
        f"({result.scan['shards_resumed']} done by an earlier run), {result.scan['seconds']:.1f} s",
        "",
        f"| split | # Exam (all) | Percent | # {spec.n}-grams | # Exam | # Exam>{_pct(result.threshold)} | Max Percent |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for s in result.summary:
        lines.append(
            f"| {s['split']} | {s['n_examples']:,} | {_pct(s['percent'])} | {s['ngrams']:,} | "
            f"{s['examples']:,} | {s['examples_over']:,} | {_pct(s['max_percent'])} |"
        )
    lines += [
        "",
        f"Percent: overlapped {spec.n}-grams / all test {spec.n}-grams (occurrences); # {spec.n}-grams: "
        "overlapped occurrences; # Exam: examples with at least one; Max Percent: the largest share in one example.",
        "",
    ]
    top = sorted(
        ((split, r) for split, rows in result.examples.items() for r in rows if r["overlapped"]),
        key=lambda item: (-item[1]["share"], item[0], item[1]["example_id"]),
    )[:20]
    if top:
        lines += [
            "## Most overlapped examples / 重叠最多的样例",
            "",
            "| split | example | share | first span | reference |",
            "| --- | --- | ---: | --- | --- |",
        ]
        for split, r in top:
            span = r["spans"][0] if r["spans"] else {"text": "", "ref_doc": ""}
            text = span["text"].replace("|", "\\|")
            lines.append(f"| {split} | {r['example_id']} | {_pct(r['share'])} | {text[:60]} | {span['ref_doc']} |")
        lines.append("")
    if result.skipped:
        lines += ["## Skipped / 跳过", ""] + [f"- {s}" for s in result.skipped] + [""]
    return "\n".join(lines)


def write_filtered(
    test: TestSet, result: OverlapResult, out: str | Path, *, command: str, inputs: list[Path]
) -> dict[str, int]:
    """The test set without the examples over the threshold: a new dataset folder with a manifest."""
    from lotdata.datasets.folder import write_dataset

    kept: dict[str, list[dict[str, Any]]] = {}
    for split, examples in test.splits.items():
        over = {r["example_id"] for r in result.examples[split] if r["over_threshold"]}
        kept[split] = [ex.row for ex in examples if ex.example_id not in over]
    removed = {s: len(test.splits[s]) - len(kept[s]) for s in kept}
    stats = {"removed_over_threshold": removed, "kept": {s: len(v) for s, v in kept.items()}}
    params = {**result_params(result), "filter": "w/o overlap"}
    if test.kind == "stories":
        out = Path(out)
        files = {s: write_parquet(table_from_rows(rows, STORIES), out / f"{s}.parquet") for s, rows in kept.items()}
        write_manifest(
            out,
            kind="stories-splits",
            task="stories",
            command=command,
            params=params,
            inputs=inputs,
            files=files,
            stats=stats,
        )
        return {s: len(v) for s, v in kept.items()}
    return write_dataset(out, test.kind, kept, command=command, params=params, inputs=inputs, stats=stats)
