"""The official LOT jsonl format: rows <-> records, import and export.

Field names, order and types follow the release (DESIGN.md): ClozeT `label` is a string, SenPos
`label` an int counting the `[MASK]` gaps from 1; each task keeps its own mask token. Export of an
import gives the input back byte for byte (one `json.dumps(ensure_ascii=False)` a line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Mapping

from lotdata.errors import InputError
from lotdata.schema import MASK_TOKENS, SPLITS
from lotdata.io import story_id_for
from lotdata.text import detect_lang, join_sentences

TASKS = ("clozet", "senpos", "plotcom", "outgen")
_FIELDS = {
    "clozet": (("story", "plot0", "plot1", "label"), ()),
    "senpos": (("story", "sentence", "label"), ()),
    "plotcom": (("story", "plot"), ()),
    "outgen": (("story", "outline"), ("title",)),
}


def to_lot(task: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """One dataset row as an official LOT record."""
    if task == "clozet":
        return {
            "story": row["context"],
            "plot0": row["candidates"][0],
            "plot1": row["candidates"][1],
            "label": str(row["label"]),
        }
    if task == "senpos":
        return {
            "story": MASK_TOKENS["senpos"].join(row["sentences"]),
            "sentence": row["removed"],
            "label": int(row["label"]),
        }
    if task == "plotcom":
        return {"story": row["context"], "plot": row["target"]}
    if task == "outgen":
        record = {"story": row["story"], "outline": list(row["outline"])}
        if row.get("title") is not None:
            record["title"] = row["title"]
        return record
    raise ValueError(f"unknown task {task!r}")


def _check_fields(task: str, record: Any) -> None:
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    required, optional = _FIELDS[task]
    missing = [f for f in required if f not in record]
    if missing:
        raise ValueError(f"missing field(s) {missing} for task {task}")
    unknown = sorted(set(record) - set(required) - set(optional))
    if unknown:
        raise ValueError(f"unknown field(s) {unknown} for task {task}: the round trip would lose them")


def from_lot(task: str, record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    """One official LOT record as a dataset row (raises ValueError on a malformed record)."""
    _check_fields(task, record)
    lang = detect_lang(record["story"])
    example_id = f"{task}-{split}-{index:06d}"
    if task == "clozet":
        mask = MASK_TOKENS["clozet"]
        if record["story"].count(mask) != 1:
            raise ValueError(f"story must hold exactly one {mask}")
        if not isinstance(record["label"], str) or record["label"] not in ("0", "1"):
            raise ValueError(f"label must be the string '0' or '1', got {record['label']!r}")
        label = int(record["label"])
        candidates = [record["plot0"], record["plot1"]]
        full = record["story"].replace(mask, candidates[label])
        return {
            "example_id": example_id,
            "story_id": story_id_for(full),
            "split": split,
            "context": record["story"],
            "candidates": candidates,
            "label": label,
            "mask_sentence_index": None,
            "annotator": None,
            "annotation_id": None,
            "lang": lang,
        }
    if task == "senpos":
        sentences = record["story"].split(MASK_TOKENS["senpos"])
        label = record["label"]
        if not isinstance(label, int) or isinstance(label, bool) or not 1 <= label <= len(sentences) - 1:
            raise ValueError(f"label must be an int in 1..{len(sentences) - 1}, got {label!r}")
        full = join_sentences(sentences[:label] + [record["sentence"]] + sentences[label:], lang)
        return {
            "example_id": example_id,
            "story_id": story_id_for(full),
            "split": split,
            "sentences": sentences,
            "removed": record["sentence"],
            "label": label,
            "n_candidates": len(sentences) - 1,
            "refined": True,
            "lang": lang,
        }
    if task == "plotcom":
        mask = MASK_TOKENS["plotcom"]
        if record["story"].count(mask) != 1:
            raise ValueError(f"story must hold exactly one {mask}")
        return {
            "example_id": example_id,
            "story_id": story_id_for(record["story"].replace(mask, record["plot"])),
            "split": split,
            "context": record["story"],
            "target": record["plot"],
            "mask_sentence_index": None,
            "lang": lang,
        }
    if task == "outgen":
        if not isinstance(record["outline"], list) or not all(isinstance(p, str) for p in record["outline"]):
            raise ValueError("outline must be a list of strings")
        return {
            "example_id": example_id,
            "story_id": story_id_for(record["story"]),
            "split": split,
            "title": record.get("title"),
            "outline": record["outline"],
            "story": record["story"],
            "lang": lang,
        }
    raise ValueError(f"unknown task {task!r}")


def split_of_file(path: Path, default: str) -> str:
    """train/val/test from a file name such as train.jsonl, dev.jsonl or val.jsonl."""
    stem = path.stem.lower()
    aliases = {"train": "train", "val": "val", "valid": "val", "dev": "val", "validation": "val", "test": "test"}
    return aliases.get(stem, default)


def read_lot_file(
    path: Path, task: str, split: str, on_error: Callable[[int, str, str], None] | None = None
) -> list[dict[str, Any]]:
    """Rows of one LOT jsonl file; a bad line raises InputError naming file and line, unless
    `on_error(line_no, reason, raw)` is given, in which case it is reported there and skipped."""
    rows = []
    with open(path, "rb") as handle:
        for line_no, raw_line in enumerate(handle, start=1):
            try:
                line = raw_line.decode("utf-8")
            except UnicodeDecodeError as exc:  # a binary or non-UTF-8 file is bad data, not a crash
                raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start}); LOT jsonl is UTF-8",
                                 path=str(path), row=line_no) from None
            if not line.strip():
                continue
            try:
                rows.append(from_lot(task, json.loads(line), split=split, index=len(rows)))
            except (ValueError, TypeError) as exc:
                if on_error is None:
                    raise InputError(str(exc), path=str(path), row=line_no) from exc
                on_error(line_no, str(exc), line[:500])
    return rows


def splits_in(rows_by_split: Mapping[str, list]) -> list[str]:
    return [s for s in SPLITS if s in rows_by_split]
