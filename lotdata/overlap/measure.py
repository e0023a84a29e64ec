"""Index the test n-grams, stream the references through the executor, compute LOT Table 14.

The test side is small: its words get integer ids (`vocab`) and each distinct test n-gram becomes a tuple of
ids (`grams`). The reference side is streamed shard by shard; each worker builds a `Matcher` from the index
once and finds the test n-grams in each document's words exactly (no hashing: the figures have no false
positives). A shard's part file lists the test n-grams it holds with the first document holding each;
parts are merged in shard order, so the figures and the documents named never depend on the executor.
"""

from __future__ import annotations

import bisect
import hashlib
import pickle
import time
from dataclasses import asdict, dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.exec import ExecSettings, Shard, run_shards
from lotdata.io import atomic_path
from lotdata.overlap.corpus import (
    DEFAULT_SHARD_BYTES,
    Continuation,
    expand_references,
    iter_documents,
    plan_shards,
    text_pieces,
)
from lotdata.overlap.testset import Example, TestSet
from lotdata.overlap.texts import TokenSpec

MAX_SPANS = 3
_BATCH_CHARS = 1 << 20  # documents are matched in batches of about this many characters
_PART_SCHEMA = pa.schema([pa.field("ngram", pa.int64()), pa.field("doc", pa.string())])


@dataclass
class Segment:
    field: str
    tokens: list[str]
    grams: list[int]  # index of each position's n-gram in Index.grams


@dataclass
class Index:
    spec: TokenSpec
    vocab: dict[str, int] = field(default_factory=dict)
    grams: dict[tuple[int, ...], int] = field(default_factory=dict)

    def add(self, tokens: list[str]) -> list[int]:
        n = self.spec.n
        ids = [self.vocab.setdefault(t, len(self.vocab)) for t in tokens]
        out = []
        for i in range(len(ids) - n + 1):
            out.append(self.grams.setdefault(tuple(ids[i : i + n]), len(self.grams)))
        return out


def index_test_set(test: TestSet, spec: TokenSpec) -> tuple[Index, dict[str, list[list[Segment]]]]:
    """The index of every distinct test n-gram, and each example's segments with their n-gram indices."""
    index = Index(spec)
    words = spec.words()
    segments: dict[str, list[list[Segment]]] = {}
    for split, examples in test.splits.items():
        segments[split] = [
            [Segment(name, tokens, index.add(tokens)) for name, text in ex.texts for tokens in words(text)]
            for ex in examples
        ]
    return index, segments


# ------------------------------------------------------------------------------------------------ scan

_MULT = np.uint64(0x9E3779B97F4A7C15)  # odd: the rolling hash below is a bijection on each next word id


def _window_hashes(ids: np.ndarray, n: int) -> np.ndarray:
    """64-bit hash of every window of n ids (rows of a matrix, or a sliding window over a vector)."""
    words = ids.astype(np.uint64)
    with np.errstate(over="ignore"):
        if words.ndim == 2:
            h = np.zeros(words.shape[0], dtype=np.uint64)
            for k in range(n):
                h *= _MULT
                h += words[:, k]
            return h
        length = max(len(words) - n + 1, 0)
        h = np.zeros(length, dtype=np.uint64)
        for k in range(n):
            h *= _MULT
            h += words[k : k + length]
        return h


class Matcher:
    """Finds the test n-grams in documents' words.

    Words become their test id (-1 for a word the test never uses), a batch of documents one numpy array
    (-1 between segments and documents, so no n-gram crosses them); every window of n ids is hashed to 64
    bits at once, pre-filtered by a Bloom filter, looked up in the sorted hashes of the test n-grams, and
    each hash hit is confirmed by comparing the id tuple with the index: the figures are exact."""

    def __init__(self, index: Index) -> None:
        self.n, self.grams, self.get = index.spec.n, index.grams, index.vocab.get
        keys = np.array(list(index.grams), dtype=np.int64).reshape(-1, self.n)
        self.hashes = np.unique(_window_hashes(keys, self.n))
        # a one-hash Bloom filter on the top bits (>= 16 slots per test n-gram, <= 1/16 false candidates)
        bits = max(20, min(30, int(len(self.hashes) * 16).bit_length()))
        self.shift = np.uint64(64 - bits)
        self.bloom = np.zeros(1 << bits, dtype=bool)
        self.bloom[self.hashes >> self.shift] = True

    def find(self, docs: list[list[list[str]]]) -> Iterator[tuple[int, int]]:
        """(document number, test n-gram index) for each occurrence, in document order."""
        n, get = self.n, self.get
        ids: list[int] = []
        starts: list[int] = []
        for segments in docs:
            starts.append(len(ids))
            for seg in segments:
                ids.extend(map(get, seg, repeat(-1)))
                ids.append(-1)
        if len(ids) < n or not len(self.hashes):
            return
        array = np.array(ids, dtype=np.int64)
        h = _window_hashes(array, n)
        candidates = np.flatnonzero(self.bloom[h >> self.shift])
        if not len(candidates):
            return
        unknown = np.concatenate(([0], np.cumsum(array < 0)))
        candidates = candidates[(unknown[candidates + n] - unknown[candidates]) == 0]  # no unknown word inside
        hc = h[candidates]
        slot = np.minimum(np.searchsorted(self.hashes, hc), len(self.hashes) - 1)
        for i in candidates[self.hashes[slot] == hc].tolist():
            g = self.grams.get(tuple(ids[i : i + n]))  # confirm the hash hit
            if g is not None:
                yield bisect.bisect_right(starts, i) - 1, g


_LOADED: dict[tuple, tuple[Matcher, Any]] = {}


def _load_index(path: str) -> tuple[Matcher, Any]:
    """The matcher, built once per worker process (and again only when the index file changes)."""
    stat = Path(path).stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _LOADED:
        _LOADED.clear()
        with open(path, "rb") as handle:
            index = pickle.load(handle)
        _LOADED[key] = (Matcher(index), index.spec.words())
    return _LOADED[key]


@dataclass(frozen=True)
class ScanShard:
    """The per-shard function: which test n-grams this shard holds, and the first document of each."""

    index_path: str

    def __call__(self, shard: Shard, part: Path) -> dict:
        matcher, words = _load_index(self.index_path)
        first: dict[int, str] = {}
        docs = chars = tokens = 0
        batch: list[tuple[str, list[list[str]]]] = []
        batch_chars = 0

        def flush() -> None:
            for d, g in matcher.find([segments for _, segments in batch]):
                if g not in first:
                    first[g] = batch[d][0]
            batch.clear()

        carry: list[str] = []  # the last n-1 words of the previous piece of a long text
        keep = matcher.n - 1
        for doc_id, texts in iter_documents(shard):
            if not isinstance(texts, Continuation):
                docs += 1
                carry = []
            for i, text in enumerate(texts):
                if i:
                    carry = []  # the texts of a document are separate: no n-gram spans two
                for piece in text_pieces(text):
                    segments = words(piece)
                    chars += len(piece)
                    tokens += sum(map(len, segments))
                    if carry and segments:
                        segments[0] = carry + segments[0]
                    if segments:
                        carry = segments[-1][-keep:] if keep else []
                    batch.append((doc_id, segments))
                    batch_chars += len(piece)
                    if batch_chars >= _BATCH_CHARS:
                        flush()
                        batch_chars = 0
        flush()
        found = sorted(first.items())
        table = pa.table({"ngram": [g for g, _ in found], "doc": [d for _, d in found]}, schema=_PART_SCHEMA)
        with atomic_path(part) as tmp:
            pq.write_table(table, tmp)
        return {"docs": docs, "chars": chars, "tokens": tokens, "bytes": shard.size, "ngrams_found": len(found)}


# ----------------------------------------------------------------------------------------- the whole run


@dataclass
class OverlapResult:
    summary: list[dict[str, Any]]
    examples: dict[str, list[dict[str, Any]]]  # per split, one record per example
    scan: dict[str, Any]
    skipped: list[str]
    spec: TokenSpec
    threshold: float


def check_threshold(threshold: float) -> None:
    """An example is overlapped above `threshold`, a share of its n-grams: 0 <= threshold < 1."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 1:
        raise LotdataError(f"--threshold must be a share in [0, 1) (0.1 is 10%), not {threshold!r}")


def check_has_grams(test: TestSet, index: Any, segments: dict[str, Any], spec: TokenSpec) -> None:
    """InputError for a test set without one n-gram: every figure would be 0% of nothing."""
    if index.grams:
        return
    longest = max((len(seg.tokens) for segs in segments.values() for ex in segs for seg in ex), default=0)
    raise InputError(
        f"the test set has no {spec.n}-gram: its longest text has {longest} word(s), fewer than "
        f"--n {spec.n}; nothing to measure",
        path=", ".join(map(str, test.inputs)) or None,
    )


def measure_overlap(
    test: TestSet,
    references: list[str],
    work: str | Path,
    *,
    spec: TokenSpec,
    threshold: float = 0.1,
    execution: ExecSettings = ExecSettings(),
    shard_bytes: int = DEFAULT_SHARD_BYTES,
    skip_bad: bool = False,
    progress: bool | None = None,
) -> OverlapResult:
    """Share of each test example's n-grams found anywhere in `references` (files, globs, dataset folders)."""
    from lotdata.errors import InputError

    check_threshold(threshold)
    started = time.perf_counter()
    work = Path(work)
    expanded = expand_references(references)
    skipped = [f"{m}: file not found" for m in expanded.missing]
    if skipped and not skip_bad:
        must_exist(expanded.missing[0], "reference", hint=" (or a glob that matches nothing)")
    if not expanded.files:
        raise InputError("no reference file to scan", path=", ".join(map(str, references)))
    index, segments = index_test_set(test, spec)
    check_has_grams(test, index, segments, spec)
    index_bytes = pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL)
    index_path = work / "index.pkl"
    with atomic_path(index_path) as tmp:
        tmp.write_bytes(index_bytes)
    fingerprint = hashlib.sha256(index_bytes).hexdigest()[:16]
    shards = plan_shards(expanded.files, shard_bytes)
    results = run_shards(
        ScanShard(str(index_path)),
        shards,
        work / "scan",
        execution=execution,
        fingerprint=fingerprint,
        on_error="skip" if skip_bad else "raise",
        progress=progress,
        description="overlap scan",
    )
    hit_doc: dict[int, str] = {}
    scan = {
        "files": len(expanded.files),
        "shards": len(shards),
        "shards_resumed": 0,
        "docs": 0,
        "chars": 0,
        "tokens": 0,
        "bytes": 0,
        "seconds_in_shards": 0.0,
    }
    for result in results:  # shard order: the first document of a hit never depends on the executor
        if result.error is not None:
            skipped.append(
                result.error
                if result.error.startswith(result.shard.path)
                else f"{result.shard.describe()}: {result.error}"
            )
            continue
        scan["shards_resumed"] += result.skipped
        for key in ("docs", "chars", "tokens", "bytes"):
            scan[key] += result.stats.get(key, 0)
        scan["seconds_in_shards"] += result.seconds
        for row in pq.read_table(result.part).to_pylist():
            hit_doc.setdefault(row["ngram"], row["doc"])
    if not scan["docs"] or not scan["tokens"]:  # "0% overlap" against nothing would be a wrong figure, not a result
        raise InputError(
            "the references hold no document with text (empty files, blank records, or nothing but blank lines): "
            "nothing to measure against",
            path=", ".join(map(str, expanded.files[:5])),
        )
    scan["seconds_in_shards"] = round(scan["seconds_in_shards"], 3)
    scan["seconds"] = round(time.perf_counter() - started, 3)
    scan["mb_per_s"] = round(scan["bytes"] / 1e6 / scan["seconds"], 2) if scan["seconds"] else None
    scan["distinct_test_ngrams"] = len(index.grams)
    scan["distinct_test_ngrams_found"] = len(hit_doc)
    examples = {
        split: [
            _example_record(ex, segs, hit_doc, spec, threshold) for ex, segs in zip(test.splits[split], segments[split])
        ]
        for split in test.splits
    }
    summary = [split_summary(split, rows, threshold) for split, rows in examples.items()]
    return OverlapResult(summary, examples, scan, skipped, spec, threshold)


def _example_record(
    ex: Example, segs: list[Segment], hit_doc: dict[int, str], spec: TokenSpec, threshold: float
) -> dict[str, Any]:
    total = overlapped = 0
    spans: list[dict[str, Any]] = []
    for seg in segs:
        total += len(seg.grams)
        hits = [g in hit_doc for g in seg.grams]
        overlapped += sum(hits)
        i = 0
        while i < len(hits) and len(spans) < MAX_SPANS:
            if not hits[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(hits) and hits[j + 1]:
                j += 1
            end = j + spec.n
            spans.append(
                {
                    "field": seg.field,
                    "token_start": i,
                    "token_end": end,
                    "text": spec.join(seg.tokens[i:end]),
                    "ref_doc": hit_doc[seg.grams[i]],
                }
            )
            i = j + 1
    share = overlapped / total if total else 0.0
    return {
        "example_id": ex.example_id,
        "ngrams": total,
        "overlapped": overlapped,
        "share": share,
        "over_threshold": share > threshold,
        "spans": spans,
    }


def split_summary(split: str, rows: list[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """LOT Table 14 for one split: Percent, # 8-grams (overlapped), # Exam, # Exam>10%, Max Percent."""
    total = sum(r["ngrams"] for r in rows)
    overlapped = sum(r["overlapped"] for r in rows)
    return {
        "split": split,
        "n_examples": len(rows),
        "percent": overlapped / total if total else 0.0,
        "ngrams": overlapped,
        "examples": sum(1 for r in rows if r["overlapped"] > 0),
        "examples_over": sum(1 for r in rows if r["share"] > threshold),
        "max_percent": max((r["share"] for r in rows), default=0.0),
        "total_ngrams": total,
    }


def result_params(result: OverlapResult) -> dict[str, Any]:
    return {**asdict(result.spec), "threshold": result.threshold}


__all__ = ["Index", "Matcher", "OverlapResult", "ScanShard", "index_test_set", "measure_overlap", "split_summary"]
