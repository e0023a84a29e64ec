"""The Story Cloze Test csv as a two-candidate cloze dataset (`clozet` schema, English).

Each record becomes one row: the four context sentences followed by `<mask>`, the two endings as
candidates (in the file's order, so "constant-choose-first" keeps its meaning) and `label` = the
right ending's index. Records without a usable answer go to the quarantine table with the reason.
"""

from __future__ import annotations

import csv
import io
import random
from collections import Counter
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.datasets.folder import BuildReport, write_dataset
from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.io import check_output_dir, story_id_for, write_parquet
from lotdata.paths import check_outputs
from lotdata.schema import MASK_TOKENS, QUARANTINE, table_from_rows

CONTEXT_COLUMNS = [f"InputSentence{i}" for i in range(1, 5)]
ENDING_COLUMNS = ["RandomFifthSentenceQuiz1", "RandomFifthSentenceQuiz2"]
ANSWER_COLUMN = "AnswerRightEnding"


def read_storycloze(path: str | Path, split: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(clozet rows, quarantine rows) of one labelled Story Cloze Test csv."""
    path = must_exist(path, "file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text, not a Story Cloze Test csv (byte {exc.start}: {exc.reason})", path=str(path)
        ) from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in CONTEXT_COLUMNS + ENDING_COLUMNS + [ANSWER_COLUMN] if c not in header]
    if missing:
        raise InputError(f"not a labelled Story Cloze Test csv: missing columns {missing}", path=str(path))
    rows, quarantine = [], []
    first_row: dict[str, int] = {}  # story id -> the row that first gave it
    for number, record in enumerate(reader, start=1):
        record = {k.strip(): (v or "").strip() for k, v in record.items() if k}
        reason = _problem(record) or _duplicate(record, number, first_row)
        if reason:
            quarantine.append(
                {"path": str(path), "row": number, "reason": reason, "raw": ",".join(record.values())[:500]}
            )
            continue
        label = int(record[ANSWER_COLUMN]) - 1
        context = " ".join(record[c] for c in CONTEXT_COLUMNS)
        candidates = [record[c] for c in ENDING_COLUMNS]
        rows.append(
            {
                "example_id": f"storycloze-{split}-{record.get('InputStoryid') or number}",
                "story_id": story_id_for(f"{context} {candidates[label]}"),
                "split": split,
                "context": f"{context} {MASK_TOKENS['clozet']}",
                "candidates": candidates,
                "label": label,
                "mask_sentence_index": len(CONTEXT_COLUMNS),
                "annotator": None,
                "annotation_id": None,
                "lang": "en",
            }
        )
    return rows, quarantine


def _problem(record: dict[str, str]) -> str | None:
    empty = [c for c in CONTEXT_COLUMNS + ENDING_COLUMNS if not record.get(c)]
    if empty:
        return f"empty {', '.join(empty)}"
    if record.get(ANSWER_COLUMN) not in ("1", "2"):
        return f"AnswerRightEnding is {record.get(ANSWER_COLUMN)!r}, not 1 or 2"
    if record[ENDING_COLUMNS[0]] == record[ENDING_COLUMNS[1]]:
        return "the two endings are identical"
    return None


def _duplicate(record: dict[str, str], number: int, first_row: dict[str, int]) -> str | None:
    """A story id (or, without one, the same context and endings) seen on an earlier row: a duplicated example."""
    key = record.get("InputStoryid") or "\x1f".join(record[c] for c in CONTEXT_COLUMNS + ENDING_COLUMNS)
    if key in first_row:
        what = f"InputStoryid {record['InputStoryid']!r}" if record.get("InputStoryid") else "story"
        return f"duplicate {what} (first on row {first_row[key]})"
    first_row[key] = number
    return None


def read_storycloze_splits(files: dict[str, str | Path]) -> tuple[dict[str, list[dict]], list[dict]]:
    """Every split's rows; one file given for two splits is refused (exit 1), a story already in an earlier
    split is quarantined (no story in two splits)."""
    _check_distinct_files(files)
    by_split: dict[str, list[dict]] = {}
    quarantine: list[dict] = []
    seen: dict[str, str] = {}  # story_id -> split
    for split, path in files.items():
        rows, bad = read_storycloze(path, split)
        kept = []
        for row in rows:
            if row["story_id"] in seen:
                bad.append(
                    {
                        "path": str(path),
                        "row": None,
                        "reason": f"story already in split {seen[row['story_id']]}",
                        "raw": row["context"][:500],
                    }
                )
            else:
                seen[row["story_id"]] = split
                kept.append(row)
        by_split[split] = kept
        quarantine.extend(bad)
    return by_split, quarantine


def _check_distinct_files(files: dict[str, str | Path]) -> None:
    from lotdata.io import sha256_file
    from lotdata.paths import real_path

    seen: dict[str, str] = {}
    for split, path in files.items():
        path = must_exist(path, "file")
        for key in (str(real_path(path)), sha256_file(path)):
            if key in seen:
                raise LotdataError(
                    f"--{split} {path} is the same file (or the same bytes) as --{seen[key]}: "
                    f"every story would be in both splits; give each split its own csv"
                )
            seen[key] = split


TRAIN_FROM = ("none", "val")


def train_from_val(rows: list[dict[str, Any]], val_share: float, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """SCT has no labelled training set: published systems train on its validation set and report test.
    The val rows become `train`, except a seeded `val_share` of them kept as `val` (early stopping)."""
    if not 0 <= val_share < 1:
        raise ValueError(f"--val-share {val_share}: a fraction in [0, 1)")
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    n_val = round(val_share * len(rows))
    held = set(order[:n_val])
    return {
        "train": [{**r, "split": "train"} for i, r in enumerate(rows) if i not in held],
        "val": [r for i, r in enumerate(rows) if i in held],
    }


def check_import(val: str | Path | None, test: str | Path | None, train_from: str, val_share: float) -> None:
    """ValueError for arguments of `import_storycloze` that do not go together (before any file is read)."""
    if train_from not in TRAIN_FROM:
        raise ValueError(f"--train-from {train_from!r}: choose from {', '.join(TRAIN_FROM)}")
    if val is None and test is None:
        raise ValueError("give --val, --test or both: no Story Cloze Test csv to import")
    if train_from == "val" and val is None:
        raise ValueError("--train-from val needs --val")
    if train_from == "val" and not 0 <= val_share < 1:
        raise ValueError(f"--val-share {val_share}: a fraction in [0, 1)")


def _provenance(by_split: Mapping[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """What the card says of an import: the corpus (Story Cloze Test, its terms recognised by name), per split."""
    from lotdata.datasets.licenses import corpus_license
    from lotdata.datasets.release import sources_by_split

    license = corpus_license("storycloze")
    stories = [
        {"story_id": r["story_id"], "source": "storycloze", "license": license}
        for rows in by_split.values()
        for r in rows
    ]
    return {
        "licenses": [license],
        "languages": sorted({r["lang"] for rows in by_split.values() for r in rows}),
        "source_format": "Story Cloze Test csv",
        "sources": sources_by_split(stories, by_split),
    }


def import_storycloze(
    val: str | Path | None,
    out: str | Path,
    *,
    test: str | Path | None = None,
    train_from: str = "none",
    val_share: float = 0.1,
    seed: int = 0,
) -> BuildReport:
    """Write a `clozet` dataset folder with splits val and/or test from Story Cloze Test csv files (a test set a
    team built with `lotdata annotate sct-csv` may come without a val csv).

    `train_from="val"`: the val csv becomes the train split, less a seeded `val_share` kept as val.
    (`lotdata import storycloze` is the record `lotdata.audit.commands.IMPORT_STORYCLOZE`: it calls this with a
    staging folder, under a lock, and swaps the folder in whole.)"""
    check_import(val, test, train_from, val_share)
    files: dict[str, str | Path] = {} if val is None else {"val": val}
    if test is not None:
        files["test"] = test
    check_outputs({"--out": out}, {f"--{split}": path for split, path in files.items()})
    check_output_dir(out)
    by_split, quarantine = read_storycloze_splits(files)
    for split, path in files.items():  # a file with no usable record: exit 3 with the reasons, no 0-row dataset
        if not by_split[split]:
            reasons = Counter(q["reason"] for q in quarantine if q["path"] == str(path))
            why = (
                "; ".join(f"{n} × {r}" for r, n in reasons.most_common(3)) if reasons else "no record after the header"
            )
            raise InputError(f"no usable Story Cloze Test record ({why})", path=str(path))
    if train_from == "val":
        by_split.update(train_from_val(by_split["val"], val_share, seed))
    stats = {"examples_imported": sum(len(v) for v in by_split.values()), "quarantined": len(quarantine)}
    inputs: Sequence[str | Path] = list(files.values())
    params: dict[str, Any] = {
        "val": None if val is None else str(val),
        "test": None if test is None else str(test),
        "train_from": train_from,
    }
    if train_from == "val":
        params.update(val_share=val_share, seed=seed)
    rows = write_dataset(
        out,
        "clozet",
        by_split,
        command="lotdata import storycloze",
        params=params,
        inputs=inputs,
        stats=stats,
        lot_jsonl=False,
        extra=_provenance(by_split),
    )
    if quarantine:
        write_parquet(table_from_rows(quarantine, QUARANTINE), Path(out) / "quarantine.parquet")
    return BuildReport(task="clozet", out=Path(out), rows_per_split=rows, stats=stats)
