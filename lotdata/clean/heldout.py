"""Held-out source stories (ROCStories §4.2): the stories behind a test set's val/test cases leave the training corpus.

`lotdata clean --hold-out TESTSET` reads the cases of a dataset folder (clozet, plotcom, senpos, or any task whose
rows carry a `story_id`) or a Story Cloze csv (labelled, or the blind test without AnswerRightEnding), and removes
from the cleaned corpus every story that is the source of one of them, found three ways (first match wins):

1. **id**: a story's `story_id` or one of its id columns (`--hold-out-id`, default `source_id`: where `read` keeps a
   ROCStories csv's `storyid`) equals a case's story id or its csv's `InputStoryid` (the Story Cloze Test kept the
   ROCStories id of the story a case was written from; `annotate sct-csv` writes the source's lotdata id there); an
   id under `MIN_ID_CHARS` characters (a row number) never matches;
2. **first sentences**: the story less its last sentence (the first four of a ROCStories story) is a near copy of
   the case's context (the four sentences a Story Cloze case shows): exact Jaccard of character 5-grams (letters and
   digits only, lower-cased) at or above `head_near`, candidates found by MinHash LSH. This finds the source whose
   fifth sentence the case's writer replaced (every real Story Cloze case) and one edited on the way (a typo fixed,
   a number spelled out: the winter 2018 release did both to spring 2016 cases);
3. **whole text**: the estimated Jaccard of the MinHash signatures `clean` already computes (word 5-grams for
   English, character 5-grams for Chinese) at or above `near`.

Removed stories go to the quarantine table with rule `held_out`, how they matched and the case they feed; the
manifest counts them by way. `benchmarks/bench_heldout.py` measures recall on planted sources and removals of other
stories on real Story Cloze and ROCStories data (bench/heldout.md).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from lotdata.clean.dedup import DedupParams, lsh_bands, signatures
from lotdata.errors import InputError, must_exist
from lotdata.io import story_id_for
from lotdata.schema import MASK_TOKENS, SPLITS

#: exact Jaccard of the first sentences' character 5-grams from which a story is a case's source. Tuned on planted
#: sources of spring 2016 val (bench/heldout.md): planted sources score 0.75-1.0, other ROCStories stories at most 0.27.
HEAD_NEAR = 0.5
HEAD_SHINGLE = 5
#: an id shorter than this never matches (a row number such as "3" names many things; a ROCStories storyid is a UUID,
#: a lotdata story_id 16 hex digits)
MIN_ID_CHARS = 8
#: the stories columns an id may be read from (`--hold-out-id`): the string columns a source's id can be kept in
ID_COLUMNS = ("source_id", "story_id", "url", "title", "content_sha256")
_NOT_ALNUM = re.compile(r"[\W_]+")  # as `dedup.shingles`: \w is str.isalnum() plus "_"
_CONTEXT = [f"InputSentence{i}" for i in range(1, 5)]
_ENDINGS = ["RandomFifthSentenceQuiz1", "RandomFifthSentenceQuiz2"]


@dataclass(frozen=True)
class HeldCase:
    example_id: str
    story_id: str
    text: str | None  # the whole story, when the task lets it be rebuilt
    lang: str
    csv_story_id: str | None = None  # a Story Cloze csv's InputStoryid (the ROCStories id of the case's source)
    head: str | None = None  # the story less its last sentence (a Story Cloze case's four context sentences)


@dataclass(frozen=True)
class HoldOut:
    """What `clean --hold-out` removes the sources of, and how it finds them."""

    cases: Sequence[HeldCase]
    near: float = 0.8  # whole-text estimated Jaccard
    head_near: float = HEAD_NEAR  # first-sentences exact Jaccard
    id_columns: tuple[str, ...] = ("source_id",)
    source: str | None = None

    def stats(self, counts: dict[str, int]) -> dict[str, Any]:
        """The manifest's `held_out` entry: where the cases came from, how many, the stories removed by way."""
        return {
            "source": self.source,
            "cases": len(self.cases),
            "by_id": counts.get("id", 0),
            "by_first_sentences": counts.get("first_sentences", 0),
            "by_near_duplicate": counts.get("near_duplicate", 0),
            "threshold": self.near,
            "first_sentences_threshold": self.head_near,
            "id_columns": list(self.id_columns),
        }


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
    return HeldCase(str(row.get("example_id")), str(row["story_id"]), text, lang, head=_head_of(text, lang))


def _head_of(text: str | None, lang: str) -> str | None:
    from lotdata.text.sentences import split_sentences

    sentences = split_sentences(text, lang) if text else []
    return " ".join(sentences[:-1]) if len(sentences) > 1 else None


def _storycloze_cases(files: Sequence[Path], splits: Sequence[str]) -> list[HeldCase]:
    cases = []
    for path in files:
        split = path.stem if path.stem in SPLITS else "test"
        if split in splits:
            cases += _read_cloze_csv(path, split)
    if not cases:
        raise InputError(
            f"--hold-out: no {'/'.join(splits)} case in the Story Cloze csv", path=", ".join(map(str, files))
        )
    return cases


def _read_cloze_csv(path: Path, split: str) -> list[HeldCase]:
    """The cases of a Story Cloze csv, labelled or not: the context always (what finds a source), the whole story
    and its text id where AnswerRightEnding names the right ending, the InputStoryid where the csv has one."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"--hold-out: not UTF-8 text (byte {exc.start}: {exc.reason})", path=str(path)) from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in _CONTEXT if c not in header]
    if missing:
        raise InputError(f"--hold-out: not a Story Cloze Test csv: missing columns {missing}", path=str(path))
    cases = []
    for number, record in enumerate(reader, start=1):
        record = {k.strip(): (v or "").strip() for k, v in record.items() if k}
        head = " ".join(record[c] for c in _CONTEXT if record.get(c))
        if not head:
            continue
        answer = record.get("AnswerRightEnding", "")
        ending = record.get(_ENDINGS[int(answer) - 1], "") if answer in ("1", "2") else ""
        whole = f"{head} {ending}" if ending else None
        csv_id = record.get("InputStoryid") or None
        cases.append(
            HeldCase(
                f"storycloze-{split}-{csv_id or number}",
                story_id_for(whole or head),
                whole,
                "en",
                csv_id,
                head,
            )
        )
    return cases


def head_shingles(text: str, size: int = HEAD_SHINGLE) -> set[str]:
    """Character `size`-grams of `text`'s letters and digits, lower-cased: spacing, punctuation, case and sentence
    boundaries do not count (a split that differs, "don't" against "dont", "Rose" against "rose")."""
    chars = _NOT_ALNUM.sub("", text.lower())
    return {chars[i : i + size] for i in range(max(1, len(chars) - size + 1))} - {""}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def story_head(sentences: Sequence[str] | None) -> str | None:
    """A story less its last sentence: the first four sentences of a ROCStories story. A story of one sentence is
    compared whole: real Story Cloze sentences without a full stop ("...North Shore of Hawaii They drove out...")
    are one sentence to a splitter, and the four sentences are then most of it (Jaccard about 0.8)."""
    if not sentences:
        return None
    return " ".join(sentences[:-1]) if len(sentences) > 1 else sentences[0]


@dataclass
class HeldOutMatcher:
    """The cases of a `HoldOut`, indexed once; `match` finds the sources among a batch of stories."""

    hold: HoldOut
    params: DedupParams = field(default_factory=DedupParams)

    def __post_init__(self) -> None:
        cases = self.hold.cases
        self.by_id: dict[str, HeldCase] = {c.story_id: c for c in cases}
        self.by_id.update({c.csv_story_id: c for c in cases if c.csv_story_id})
        self.by_id = {k: c for k, c in self.by_id.items() if len(k) >= MIN_ID_CHARS}
        self.heads = [c for c in cases if c.head]
        self.head_sets = [head_shingles(c.head or "") for c in self.heads]
        self.head_lsh = _BandIndex(self._head_signatures([c.head or "" for c in self.heads]), self.hold.head_near)
        self.texts = [c for c in cases if c.text]
        text_sigs = signatures([c.text or "" for c in self.texts], [c.lang for c in self.texts], self.params)
        self.text_lsh = _BandIndex(text_sigs, self.hold.near)

    def _head_signatures(self, heads: Sequence[str]) -> np.ndarray:
        # the Chinese shingles of `dedup.shingles` are character n-grams of the letters and digits: those of
        # `head_shingles` once lower-cased, so MinHash finds the candidates that `jaccard` then checks exactly
        params = DedupParams(
            shingle=HEAD_SHINGLE, num_perm=self.params.num_perm, seed=self.params.seed, backend=self.params.backend
        )
        return signatures([h.lower() for h in heads], ["zh"] * len(heads), params)

    def match(self, rows: dict[str, list], sigs: np.ndarray) -> dict[int, tuple[str, str]]:
        """{row: (how, evidence)} for the stories of `rows` (columns `sentences` and the id columns) that are a case's
        source; `sigs` are their whole-text signatures, row for row."""
        found: dict[int, tuple[str, str]] = {}
        columns = ["story_id", *(c for c in self.hold.id_columns if c != "story_id")]
        for i in range(len(rows["sentences"])):
            for name in columns:
                case = self.by_id.get(rows[name][i]) if rows[name][i] else None
                if case is not None:
                    found[i] = ("id", f"{name} {rows[name][i]} is the story of {case.example_id}")
                    break
        self._match_heads(rows["sentences"], found)
        self._match_texts(sigs, found)
        return found

    def _match_heads(self, sentences: list, found: dict[int, tuple[str, str]]) -> None:
        heads = {i: story_head(s) for i, s in enumerate(sentences) if i not in found}
        heads = {i: h for i, h in heads.items() if h}
        if not heads or not self.heads:
            return
        rows = list(heads)
        sigs = self._head_signatures([heads[i] for i in rows])
        best: dict[int, tuple[float, int]] = {}
        for story, case in self.head_lsh.candidates(sigs):
            score = jaccard(head_shingles(heads[rows[story]]), self.head_sets[case])
            if score >= self.hold.head_near and score > best.get(rows[story], (0.0, -1))[0]:
                best[rows[story]] = (score, case)
        for i, (score, case) in best.items():
            found[i] = (
                "first_sentences",
                f"first sentences: jaccard {round(score, 3)} with the story of {self.heads[case].example_id}",
            )

    def _match_texts(self, sigs: np.ndarray, found: dict[int, tuple[str, str]]) -> None:
        if not self.texts or not len(sigs):
            return
        for story, case in self.text_lsh.candidates(sigs):
            if story in found:
                continue
            score = float((sigs[story] == self.text_lsh.sigs[case]).mean())  # estimated Jaccard, as `dedup`
            if score >= self.hold.near:
                found[story] = (
                    "near_duplicate",
                    f"jaccard {round(score, 3)} with the story of {self.texts[case].example_id}",
                )


class _BandIndex:
    """MinHash LSH over the cases' signatures: the (story, case) pairs sharing a band, for LSH banding set a little
    below `threshold` (a pair just above it is rarely missed; every candidate is checked after)."""

    def __init__(self, sigs: np.ndarray, threshold: float) -> None:
        self.sigs = sigs
        self.bands, self.rows = lsh_bands(max(0.1, threshold - 0.2), sigs.shape[1]) if len(sigs) else (0, 0)
        self.keys = []
        for band in range(self.bands):
            keys = self._keys(sigs, band)
            order = np.argsort(keys, kind="stable")
            self.keys.append((keys[order], order))

    def _keys(self, sigs: np.ndarray, band: int) -> np.ndarray:
        keys = np.zeros(len(sigs), dtype=np.uint64)
        for column in range(band * self.rows, (band + 1) * self.rows):
            keys = keys * np.uint64(0x9E3779B97F4A7C15) + sigs[:, column].astype(np.uint64)
        return keys

    def candidates(self, sigs: np.ndarray) -> list[tuple[int, int]]:
        """(story, case) pairs, sorted, each once."""
        found: set[tuple[int, int]] = set()
        for band, (keys, order) in enumerate(self.keys):
            story_keys = self._keys(sigs, band)
            lo = np.searchsorted(keys, story_keys, side="left")
            hi = np.searchsorted(keys, story_keys, side="right")
            for story in np.flatnonzero(hi > lo).tolist():
                found.update((story, int(case)) for case in order[lo[story] : hi[story]])
        return sorted(found)
