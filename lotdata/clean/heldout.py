"""Held-out source stories (ROCStories §4.2): the stories behind a test set's val/test cases leave the training corpus.

`lotdata clean --hold-out DATASET` reads the cases of a dataset folder (clozet, plotcom, senpos, or any task whose
rows carry a `story_id`) or a Story Cloze csv, rebuilds each case's whole story where the task allows (the context
with its right ending or sentence put back), and removes from the cleaned corpus every story that is one of them:
same story id, or a near copy by the MinHash signatures `clean` already computes (LSH banding, then the estimated
Jaccard similarity at or above the threshold). Removed stories go to the quarantine table with rule `held_out`
and the case they feed; the manifest counts them by id and by near copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from lotdata.clean.dedup import DedupParams, band_pairs, lsh_bands, signatures, similarity
from lotdata.errors import InputError, must_exist
from lotdata.schema import MASK_TOKENS, SPLITS


@dataclass(frozen=True)
class HeldCase:
    example_id: str
    story_id: str
    text: str | None  # the whole story, when the task lets it be rebuilt
    lang: str
    csv_story_id: str | None = None  # a Story Cloze csv's InputStoryid: `annotate sct-csv` writes the source story's id


def read_held_out(path: str | Path, splits: Sequence[str] = ("val", "test")) -> list[HeldCase]:
    """The cases of `splits` in a dataset folder or a Story Cloze csv (a file, or a folder of val.csv/test.csv)."""
    path = must_exist(path, "--hold-out")
    csvs = (
        [path]
        if path.suffix == ".csv"
        else sorted(path.glob("*.csv"))
        if path.is_dir() and not (path / "manifest.json").exists()
        else []
    )
    if csvs:
        return _storycloze_cases(csvs, splits)
    from lotdata.datasets.folder import dataset_task, read_dataset

    if not path.is_dir():
        raise InputError("--hold-out: expected a dataset folder or a Story Cloze csv", path=str(path))
    task = dataset_task(path)
    tables = read_dataset(path)
    cases = [_case(task, row) for split in splits if split in tables for row in tables[split].to_pylist()]
    if not cases:
        raise InputError(f"--hold-out: no {'/'.join(splits)} case in this {task} dataset", path=str(path))
    return cases


def _case(task: str, row: dict) -> HeldCase:
    lang = row.get("lang") or "zh"
    text = None
    if task == "clozet":
        text = row["context"].replace(MASK_TOKENS["clozet"], row["candidates"][row["label"]])
    elif task == "plotcom" and row.get("target") is not None:
        text = row["context"].replace(MASK_TOKENS["plotcom"], row["target"])
    elif task == "senpos" and row.get("sentences"):
        sentences = list(row["sentences"])
        sentences.insert(int(row["label"]), row["removed"])
        text = ("" if lang == "zh" else " ").join(sentences)
    return HeldCase(str(row.get("example_id")), str(row["story_id"]), text, lang)


def _storycloze_cases(files: Sequence[Path], splits: Sequence[str]) -> list[HeldCase]:
    from lotdata.tasks.storycloze import read_storycloze

    cases = []
    for path in files:
        split = path.stem if path.stem in SPLITS else "test"
        if split not in splits:
            continue
        rows, _bad = read_storycloze(path, split)
        cases += [_with_csv_story_id(_case("clozet", row), split) for row in rows]
    if not cases:
        raise InputError(
            f"--hold-out: no {'/'.join(splits)} case in the Story Cloze csv", path=", ".join(map(str, files))
        )
    return cases


def match_held_out(
    story_ids: Sequence[str], story_sigs: np.ndarray, cases: Sequence[HeldCase], params: DedupParams, threshold: float
) -> dict[int, tuple[str, str]]:
    """{story index: (how, evidence)}: the stories that are a case's source, by id first, then by near copy."""
    by_id = {case.story_id: case for case in cases}
    by_id.update({case.csv_story_id: case for case in cases if case.csv_story_id})
    found: dict[int, tuple[str, str]] = {}
    for i, story_id in enumerate(story_ids):
        if story_id in by_id:
            found[i] = ("id", f"story of {by_id[story_id].example_id}")
    texts = [c for c in cases if c.text]
    if not texts or not len(story_ids):
        return found
    case_sigs = signatures([c.text for c in texts], [c.lang for c in texts], params)
    both = np.concatenate([story_sigs, case_sigs])
    bands, rows = lsh_bands(max(0.1, threshold - 0.2), params.num_perm)  # LSH below the threshold, then checked
    pairs = band_pairs(both, rows, range(bands))
    n = len(story_ids)
    for a, b in pairs.tolist():
        story, case = (a, b - n) if a < n <= b else (b, a - n) if b < n <= a else (None, None)
        if story is None or story in found:
            continue
        score = float(similarity(both, a, b))
        if score >= threshold:
            found[story] = ("near_duplicate", f"jaccard {round(score, 3)} with the story of {texts[case].example_id}")
    return found


def _with_csv_story_id(case: HeldCase, split: str) -> HeldCase:
    """The csv's own InputStoryid (kept in the example id) names the case's story too: `annotate sct-csv` writes the
    source story's id there, the id the corpus being cleaned carries, which the id derived from the case's text never
    matches (the written right ending replaced the fifth sentence)."""
    csv_id = case.example_id.removeprefix(f"storycloze-{split}-")
    return HeldCase(case.example_id, case.story_id, case.text, case.lang, csv_id) if csv_id != case.example_id else case
