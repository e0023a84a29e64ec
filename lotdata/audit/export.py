"""`--export-hard DIR`: the items a leaking baseline solves, ready for rewriting on Label Studio.

DIR becomes a ClozeT dataset folder (today's dataset writer: one Parquet per split, manifest,
card; `.incomplete` while it is written) of those items, plus:

- `evidence.parquet`: per item, the leaking records that solve it and a sentence of evidence;
- `stories.parquet`: each item as a story (context with the right ending in place), the input
  `lotdata annotate push clozet_write DIR/stories.parquet` takes, so annotators write a new wrong
  candidate; its `flags` name the leaking baselines.

After the rewritten items are pulled, a second `audit-bias` on them shows whether the shortcut lost
its accuracy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa

from lotdata.audit.items import Item
from lotdata.datasets.folder import write_dataset
from lotdata.io import mark_incomplete, write_parquet
from lotdata.schema import MASK_TOKENS, STORIES, table_from_rows
from lotdata.sources.story import make_story_row

EVIDENCE = pa.schema(
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("story_id", pa.string(), nullable=False),  # the row of stories.parquet
        pa.field("baselines", pa.list_(pa.string()), nullable=False),  # leaking records that solve it
        pa.field("others_right", pa.int32(), nullable=False),  # fewest other baselines that solve it
        pa.field("evidence", pa.string(), nullable=False),
    ],
    metadata={"lotdata.table": "audit_evidence"},
)


def _join(sentences: list[str], lang: str) -> str:
    return (" " if lang == "en" else "").join(sentences)


def clozet_row(item: Item, story_id: str) -> dict[str, Any]:
    context = _join(item.before + [MASK_TOKENS["clozet"]] + item.after, item.lang)
    return {
        "example_id": item.example_id,
        "story_id": story_id,
        "split": item.split,
        "context": context,
        "candidates": list(item.candidates),
        "label": item.label,
        "mask_sentence_index": len(item.before),
        "annotator": None,
        "annotation_id": None,
        "lang": item.lang,
    }


def export_hard(result, out: str | Path, baselines: Sequence[str] | None = None) -> dict[str, Any]:
    """Write the items the leaking baselines of an audit (`AuditResult`) solve to `out`; `baselines`
    keeps those baselines only. Returns counts. ValueError unless ClozeT."""
    from lotdata.audit.run import evidence_items

    if result.task != "clozet":
        raise ValueError(f"--export-hard writes ClozeT items for rewriting; this audit is {result.task}")
    out = Path(out)
    evidence = evidence_items(result)
    if baselines:
        known = {rid.split("/")[0] for rid in evidence}
        unknown = [b for b in baselines if b not in known]
        if unknown:
            raise ValueError(
                f"--export-baseline {', '.join(unknown)}: not a leaking baseline of this audit "
                f"(leaking: {', '.join(sorted(known)) or 'none'})"
            )
        evidence = {rid: rows for rid, rows in evidence.items() if rid.split("/")[0] in baselines}
    hard: dict[str, dict[str, Any]] = {}
    for rid, rows in evidence.items():
        for e in rows:
            entry = hard.setdefault(
                e["example_id"], {"baselines": [], "others_right": e["others_right"], "others": e["others"]}
            )
            entry["baselines"].append(rid)
            entry["others_right"] = min(entry["others_right"], e["others_right"])
    by_split: dict[str, list[dict[str, Any]]] = {}
    stories, evidence_rows = [], []
    for example_id in sorted(hard):
        item, entry = result.items[example_id], hard[example_id]
        story = make_story_row(
            _join(item.before + [item.candidates[item.gold_option]] + item.after, item.lang),
            source="audit-bias",
            lang=item.lang,
            source_id=example_id,
            flags=[f"audit-hard:{b}" for b in entry["baselines"]],
        )
        by_split.setdefault(item.split, []).append(clozet_row(item, story["story_id"]))
        stories.append({**story, "status": "accepted"})
        wrong = item.candidates[1 - item.gold_option]
        evidence_rows.append(
            {
                "example_id": example_id,
                "split": item.split,
                "story_id": story["story_id"],
                "baselines": entry["baselines"],
                "others_right": entry["others_right"],
                "evidence": f"solved by {', '.join(entry['baselines'])}; {entry['others_right']} of {entry['others']} other "
                f"baselines solve it; the wrong candidate to rewrite: {wrong}",
            }
        )
    mark_incomplete(out)  # write_dataset removes it last
    write_parquet(table_from_rows(evidence_rows, EVIDENCE), out / "evidence.parquet")
    write_parquet(table_from_rows(stories, STORIES), out / "stories.parquet")
    write_dataset(
        out,
        "clozet",
        by_split,
        command="lotdata audit-bias --export-hard",
        params={"input": result.params["input"], "min_effect": result.params.get("min_effect")},
        inputs=[],
        stats={"hard_items": len(hard)},
        lot_jsonl=False,
        card=False,
    )
    return {
        "items": len(hard),
        "per_split": {s: len(v) for s, v in by_split.items()},
        "per_record": {rid: len(rows) for rid, rows in evidence.items()},
    }
