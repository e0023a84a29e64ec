"""A word n-gram index of reference corpora, built once and queried by every test set (`lotdata index build`).

The references are read by the readers of streaming `overlap` (`corpus.iter_documents`) and tokenised by the
same `TokenSpec.words`, piece by piece as the streaming scan reads them. Every word becomes an id (>= 1) in
`vocab.parquet` (words sorted by code point, id = row + 1); id 0 separates documents, the texts of a document
and mask-split segments, so no n-gram crosses them (the pieces of one long line are joined without a
separator: the streaming scan carries n-1 words across them). The build runs in three steps:

1. on the executor, each shard of the references (byte ranges, row groups, compressed files whole:
   `corpus.plan_shards`) is tokenised with a vocabulary of its own, sorted, so its suffix array over local ids
   (libdivsufsort through `pydivsufsort`) is also the suffix array over global ids; with it, its LCP array
   (`merge_kernel.lcp_array`);
2. here, the shard vocabularies are merged into `vocab.parquet` and consecutive shards are grouped into
   segments of about `segment_bytes` of text (8 GiB by default); then one segment at a time: its token file is
   its shards' global ids back to back;
3. compaction, on the executor: the segment's suffix array is merged from its shards' suffix arrays, one task
   per range of first words (`merge_kernel.merge_runs`, a compiled LCP-aware k-way merge), each task writing
   its range in place. The segment is then checked and recorded, and its shards' files deleted (so the disk
   never holds every shard beside every segment) before the next segment starts.

An index is then a few large memory-mapped segments, whatever the shard size: a query costs one binary search
per n-gram and segment (bench/index_scale.md). A segment is

- `segments/NNNNN.tokens`: its word ids, uint32, each shard's ending with a 0;
- `segments/NNNNN.sa`: its suffix array (int32 offsets below 2**31 words, else int64), sorted by the words up to
  the first separator (what a query reads), equal keys in text order;
- `segments/NNNNN.first`: where each first word's range of the suffix array starts;
- `segments/NNNNN.docs.parquet`: each document's first token offset and its id as streaming `overlap` names it
  (`file@byte`, `file:line`, `file:row`, `file#N`).

Steps 1 and 3 leave a done marker per task in `IDX/.build/`, and each finished segment a record there (a killed
build resumes, and rebuilds no shard of a finished segment); the result is byte-identical for any worker count or
executor. `manifest.json` is written last, atomically, after every file is in place, with
the size and sha256 of every file (`index verify --full`) and the size, mtime and sha256 of every reference (a
query refuses a reference changed since); a folder without it is never read, and a build removes what an
earlier build left that the manifest does not list.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import resource
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lotdata import __version__
from lotdata.errors import InputError, must_exist, require
from lotdata.exec import ExecSettings, Shard, run_shards
from lotdata.io import atomic_path, raise_disk_error, sha256_file
from lotdata.overlap.corpus import (
    DEFAULT_SHARD_BYTES,
    Continuation,
    expand_references,
    iter_documents,
    plan_shards,
    text_pieces,
)
from lotdata.overlap.texts import TokenSpec

FORMAT = 2  # 2: segments (compaction), every file's sha256, the references' mtimes
MANIFEST = "manifest.json"
VOCAB = "vocab.parquet"
SEP = 0  # the id between documents, texts and segments: never a word
INDEX_SHARD_BYTES = 64 << 20
#: reference text per segment: as large as 32-bit suffix-array entries allow for Chinese text (about 0.22 words a
#: byte: 8 GiB is about 1.9 billion entries < 2**31), since a query costs one binary search per segment
SEGMENT_BYTES = 8 << 30
MERGE_PART_ENTRIES = 1 << 24  # suffixes merged by one task (measured: 14.7M of them peaked at 0.85 GB RSS)
_DOCS_SCHEMA = pa.schema([pa.field("start", pa.int64()), pa.field("doc", pa.string())])
_VOCAB_SCHEMA = pa.schema([pa.field("word", pa.string())])


class IndexFileError(InputError):
    """An index that cannot be used (incomplete, truncated, unsorted, another version): exit 3, naming the file."""


# ------------------------------------------------------------------------------------------ writing files


def write_array(array: np.ndarray, path: Path) -> None:
    """Write a numpy array's raw bytes atomically; a full disk names the file."""
    with atomic_path(path) as tmp:
        try:
            with open(tmp, "wb") as handle:
                write_bytes(handle, array)
        except OSError as exc:
            raise_disk_error(exc, path)


def write_bytes(handle, array: np.ndarray) -> None:
    """The one place index bytes reach the disk (tests make it fail like a full disk). A file write, not
    `ndarray.tofile`: a full disk then raises ENOSPC (named with the file), not "N requested and M written"."""
    handle.write(memoryview(np.ascontiguousarray(array)).cast("B"))


def _write_table(table: pa.Table, path: Path) -> None:
    with atomic_path(path) as tmp:
        try:
            pq.write_table(table, tmp, compression="zstd")
        except OSError as exc:
            raise_disk_error(exc, path)


# ------------------------------------------------------------------------------------------ step 1: shards


SHARD_PART = ".vocab.parquet"  # a shard's part (written last): kept until the build ends, the rest goes earlier


def shard_files(part: Path) -> dict[str, Path]:
    """The files of one built shard beside its part (`NNNNN.vocab.parquet`): local ids, suffix array, LCP array,
    vocabulary, documents, and the first-word table in global ids that compaction writes."""
    stem = part.parent / part.name.split(".")[0]
    files = {key: stem.with_suffix(f".{key}") for key in ("tokens", "sa", "lcp", "gfirst")}
    return {**files, "vocab": part, "docs": stem.with_suffix(".docs.parquet")}


@dataclass(frozen=True)
class BuildShard:
    """Step 1 for one shard: local word ids (sorted vocabulary), their suffix array, the document table."""

    spec: TokenSpec

    def __call__(self, shard: Shard, part: Path) -> dict:
        words = self.spec.words()
        batch: list[str | None] = []  # words, None for the separator; moved into Arrow every ~1M words
        chunks: list[pa.Array] = []
        before = 0  # words and separators already in `chunks`
        starts: list[int] = []
        doc_ids: list[str] = []
        docs = chars = 0
        last_is_word = False
        for doc_id, texts in iter_documents(shard):
            joined = isinstance(texts, Continuation) and last_is_word  # a long line's next piece: no separator
            if not isinstance(texts, Continuation):
                docs += 1
                starts.append(before + len(batch) + 1)  # after the separator written below
                doc_ids.append(doc_id)
            for i, text in enumerate(texts):
                joined = joined and not i  # the texts of a document are separate
                for piece in text_pieces(text):
                    chars += len(piece)
                    for k, segment in enumerate(words(piece)):
                        if not (joined and k == 0):
                            batch.append(None)
                            last_is_word = False
                        if segment:
                            batch.extend(segment)
                            last_is_word = True
                    joined = True
            if len(batch) >= 1 << 20:
                before += len(batch)
                chunks.append(pa.array(batch, pa.large_string()))
                batch.clear()
        batch.append(None)
        chunks.append(pa.array(batch, pa.large_string()))
        del batch
        local, sorted_words = _sorted_ids(pa.chunked_array(chunks, pa.large_string()))
        del chunks
        tokens = int(np.count_nonzero(local))
        sa = suffix_array(local, len(sorted_words))
        files = shard_files(part)
        _write_table(pa.table({"start": starts, "doc": doc_ids}, schema=_DOCS_SCHEMA), files["docs"])
        write_array(np.asarray(sa, dtype=np.int32 if len(local) < 2**31 else np.int64), files["sa"])
        write_array(lcp_array(local, sa), files["lcp"])
        write_array(local, files["tokens"])
        # last: run_shards checks this part exists; it outlives the others, deleted once the shard's segment is built
        _write_table(pa.table({"word": sorted_words.cast(pa.string())}, schema=_VOCAB_SCHEMA), files["vocab"])
        return {
            "docs": docs,
            "chars": chars,
            "tokens": tokens,
            "bytes": shard.size,
            "words": len(sorted_words),
            "length": int(len(local)),
        }


def suffix_array(ids: np.ndarray, top: int) -> np.ndarray:
    """The suffix array of word ids in [0, top]: libdivsufsort over the ids as fixed-width big-endian bytes (as
    few as `top` needs), keeping the suffixes that start at an id. Measured (bench/index.md): as fast as
    pydivsufsort's own 4-byte path or faster, with a quarter less memory for 3-byte ids, and about 7x faster
    than numpy prefix doubling."""
    divsufsort = require("pydivsufsort", "overlap").divsufsort
    if len(ids) < 2:
        return np.zeros(len(ids), dtype=np.int32)
    width = max(1, (int(top).bit_length() + 7) // 8)
    data = np.empty((len(ids), width), dtype=np.uint8)
    for j in range(width):
        data[:, j] = (ids >> np.uint32(8 * (width - 1 - j))) & np.uint32(255)
    sa = divsufsort(data.ravel())
    del data
    sa = sa[sa % width == 0]
    sa //= width
    return sa


def lcp_array(tokens: np.ndarray, sa: np.ndarray) -> np.ndarray:
    """Each suffix's common prefix with the one before it (uint16, capped), for compaction's merge."""
    from lotdata.overlap.merge_kernel import lcp_array as kernel

    return kernel(tokens, sa)


def _sorted_ids(words: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Word ids (uint32, 0 for a separator) numbered in the code-point order of the words, and those words."""
    encoded = pc.dictionary_encode(words.combine_chunks())
    dictionary = encoded.dictionary
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.zeros(len(dictionary) + 1, dtype=np.uint32)  # dictionary index + 1 -> sorted id
    rank[order + 1] = np.arange(1, len(dictionary) + 1, dtype=np.uint32)
    indices = pc.fill_null(encoded.indices, -1).to_numpy().astype(np.int64)
    return rank[indices + 1], dictionary.take(pa.array(order))


# ------------------------------------------------------------------------------------------ step 2: segments


def _global_vocab(vocab_files: list[Path]) -> pa.Array:
    """The union of the shard vocabularies, sorted by code point (Arrow: no Python set of every word)."""
    merged: pa.Array | None = None
    for path in vocab_files:
        words = pq.read_table(path).column("word").combine_chunks()
        merged = words if merged is None else pc.unique(pa.concat_arrays([merged, words]))
    if merged is None:
        return pa.array([], pa.string())
    return merged.take(pc.sort_indices(merged))


def first_word_table(ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """int64 [k ids present..., k + 1 range starts...]: the suffixes starting with ids[i] fill
    sa[starts[i]:starts[i + 1]] (a query's search starts inside its first word's range)."""
    present = np.flatnonzero(counts)
    starts = np.concatenate(([0], np.cumsum(counts[present])))
    return np.concatenate((ids[present].astype(np.int64), starts.astype(np.int64)))


def plan_segments(lengths: list[int], segment_tokens: int) -> list[list[int]]:
    """Consecutive shards grouped into segments of at most `segment_tokens` ids each (a bigger shard alone)."""
    segments: list[list[int]] = []
    held = 0
    for i, length in enumerate(lengths):
        if segments and held + length <= segment_tokens:
            segments[-1].append(i)
            held += length
        else:
            segments.append([i])
            held = length
    return segments


def _write_segment_tokens(
    files: list[dict[str, Path]], vocab: pa.Array, out_tokens: Path
) -> tuple[np.ndarray, list[int]]:
    """The segment's token file: each shard's local ids rewritten as global ids (order-preserving, so the
    shard's suffix array stays sorted), back to back. Beside each shard's parts: its first-word table in
    global ids (`NNNNN.gfirst`). Returns the segment's count of suffixes per first word, and each shard's offset."""
    counts = np.zeros(len(vocab) + 1, dtype=np.int64)
    offsets = []
    at = 0
    with atomic_path(out_tokens) as tmp:
        try:
            with open(tmp, "wb") as handle:
                for shard in files:
                    local_words = pq.read_table(shard["vocab"]).column("word").combine_chunks()
                    to_global = np.zeros(len(local_words) + 1, dtype=np.uint32)
                    found = pc.index_in(local_words, value_set=vocab).to_numpy(zero_copy_only=False)
                    to_global[1:] = found.astype(np.uint32) + 1
                    ids = to_global[np.fromfile(shard["tokens"], dtype=np.uint32)]
                    shard_counts = np.bincount(ids, minlength=len(vocab) + 1)
                    write_array(first_word_table(np.arange(len(vocab) + 1), shard_counts), shard["gfirst"])
                    counts += shard_counts
                    write_bytes(handle, ids)
                    offsets.append(at)
                    at += len(ids)
                    del ids
        except OSError as exc:
            raise_disk_error(exc, out_tokens)
    return counts, offsets


def _write_segment_docs(files: list[dict[str, Path]], offsets: list[int], out: Path) -> int:
    tables = []
    for shard, offset in zip(files, offsets):
        docs = pq.read_table(shard["docs"])
        tables.append(pa.table({"start": pc.add(docs.column("start"), offset), "doc": docs.column("doc")}))
    table = pa.concat_tables(tables).cast(_DOCS_SCHEMA)
    _write_table(table, out)
    return table.num_rows


def plan_merge(counts: np.ndarray, part_entries: int) -> list[tuple[int, int]]:
    """Ranges [a, b) of first-word ids, each holding about `part_entries` suffixes (a commoner word alone)."""
    cumulative = np.cumsum(counts)
    ranges, a = [], 0
    while a < len(counts):
        below = int(cumulative[a - 1]) if a else 0
        b = int(np.searchsorted(cumulative, below + part_entries, side="right"))
        b = min(max(b, a + 1), len(counts))
        ranges.append((a, b))
        a = b
    return ranges


@dataclass(frozen=True)
class MergePart:
    """Step 3 for one range of first words of one segment: the slices of the shards' suffix arrays (and LCP
    arrays) for those words, merged (`merge_kernel.merge_runs`) and written in place into that range of the
    segment's suffix array (`sa`, made at its full size beforehand): no part files to join, no second copy."""

    tokens: str  # the segment's token file
    runs: tuple[tuple[str, str, str, int], ...]  # per shard: suffix array, LCP array, global first words, offset
    width: int  # 4 or 8 bytes an entry
    sa: str  # the segment's suffix array being written

    def __call__(self, shard: Shard, part: Path) -> dict:
        a, b = shard.start, shard.stop
        pieces, lcps, bounds, at = [], [], [0], 0
        for sa_path, lcp_path, first_path, offset in self.runs:
            first = np.fromfile(first_path, dtype=np.int64)
            k = (len(first) - 1) // 2
            ids, starts = first[:k], first[k:]
            lo, hi = int(starts[np.searchsorted(ids, a)]), int(starts[np.searchsorted(ids, b)])
            sa = np.memmap(sa_path, dtype=np.int32 if _entry_width(sa_path, starts[-1]) == 4 else np.int64, mode="r")
            pieces.append(np.asarray(sa[lo:hi], dtype=np.int64) + offset)
            lcps.append(np.asarray(np.memmap(lcp_path, dtype=np.uint16, mode="r")[lo:hi]))
            bounds.append(bounds[-1] + hi - lo)
            at += lo  # the segment's entries before word a: every shard's before it
        runs = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)
        if len(pieces) > 1 and len(runs):
            from lotdata.overlap.merge_kernel import merge_runs

            tokens = np.memmap(self.tokens, dtype=np.uint32, mode="r")
            runs = merge_runs(tokens, runs, np.concatenate(lcps), np.asarray(bounds, dtype=np.int64))
        _write_at(runs.astype(np.int32 if self.width == 4 else np.int64), Path(self.sa), at * self.width)
        part.write_text(f"{len(runs)}\n", encoding="utf-8")  # run_shards' part: the entries are in `sa`
        return {"entries": int(len(runs))}


def _write_at(array: np.ndarray, path: Path, offset: int) -> None:
    """Write an array's bytes into an existing file at `offset` (a merge task's range); a full disk names it."""
    try:
        with open(path, "r+b") as handle:
            handle.seek(offset)
            write_bytes(handle, array)
    except OSError as exc:
        raise_disk_error(exc, path)


def _entry_width(sa_path: str | Path, length: int) -> int:
    return 4 if Path(sa_path).stat().st_size == 4 * int(length) else 8


# ------------------------------------------------------------------------------------------ the build


def _sources(files: list[Path]) -> list[dict[str, Any]]:
    return [
        {"path": str(f), "bytes": f.stat().st_size, "mtime_ns": f.stat().st_mtime_ns, "sha256": sha256_file(f)}
        for f in files
    ]


def _fingerprint(spec_fields: dict, sources: list[dict[str, Any]], shard_bytes: int) -> str:
    """What step 1's parts depend on (the segment size is not in it: a new size reuses the shards)."""
    stable = [{k: v for k, v in s.items() if k != "mtime_ns"} for s in sources]
    return hashlib.sha256(
        json.dumps(
            {
                "format": FORMAT,
                "version": __version__,
                "spec": spec_fields,
                "sources": stable,
                "shard_bytes": shard_bytes,
            },
            sort_keys=True,
        ).encode()
    ).hexdigest()[:16]


def _build_shards(spec: TokenSpec, shards: list[Shard], work: Path, execution, fingerprint: str, progress):
    return run_shards(
        BuildShard(spec),
        shards,
        work,
        execution=execution,
        fingerprint=fingerprint,
        suffix=SHARD_PART,
        progress=progress,
        description="index build",
    )


def build_index(
    references: list[str],
    out: str | Path,
    *,
    spec: TokenSpec,
    execution: ExecSettings = ExecSettings(),
    shard_bytes: int = INDEX_SHARD_BYTES,
    segment_bytes: int = SEGMENT_BYTES,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Build the index of `references` (files, globs, folders) into the folder `out`; returns the manifest."""
    started = time.perf_counter()
    require("numba", "overlap")  # the compaction's merge: fail now, not in a worker after step 1
    out = Path(out)
    expanded = expand_references(references)
    if expanded.missing:
        must_exist(expanded.missing[0], "reference", hint=" (or a glob that matches nothing)")
    if not expanded.files:
        raise InputError("no reference file to index", path=", ".join(map(str, references)))
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)  # from here on the folder is not an index until the build ends
    sources = _sources(expanded.files)
    token_spec = {k: v for k, v in asdict(spec).items() if k != "n"}
    fingerprint = _fingerprint(token_spec, sources, shard_bytes)
    shards = plan_shards(expanded.files, shard_bytes)
    work = out / ".build"
    results = _build_shards(spec, shards, work, execution, fingerprint, progress)
    missing = missing_shards(results, out, work, segment_bytes, fingerprint)
    if missing:  # deleted by a stopped build that grouped them otherwise: build them again
        for i in missing:
            (work / "done" / f"{i:05d}.json").unlink(missing_ok=True)
        results = _build_shards(spec, shards, work, execution, fingerprint, progress)
    totals = {key: sum(r.stats.get(key, 0) for r in results) for key in ("docs", "chars", "tokens", "bytes")}
    if not totals["tokens"]:
        raise InputError(
            "the references hold no word (empty files, blank lines or empty texts only): nothing to index",
            path=", ".join(str(f) for f in expanded.files[:5]),
        )
    merge_started = time.perf_counter()
    vocab = _global_vocab([shard_files(r.part)["vocab"] for r in results])
    segment_records = _compact(results, vocab, out, work, execution, fingerprint, segment_bytes, progress)
    merge_seconds = time.perf_counter() - merge_started
    _write_table(pa.table({"word": vocab}, schema=_VOCAB_SCHEMA), out / VOCAB)
    files = {VOCAB: _file_record(out / VOCAB)}
    for record in segment_records:
        for key in ("tokens_path", "sa_path", "docs_path", "first_path"):
            files[record[key]] = _file_record(out / record[key])
    manifest = {
        "kind": "overlap-index",
        "format": FORMAT,
        "lotdata_version": __version__,
        "tokens": token_spec,
        "n": "any (a suffix array answers every n; overlap's default is 8)",
        "sources": sources,
        "shard_bytes": shard_bytes,
        "segment_bytes": segment_bytes,
        "shards": [
            {
                "shard": r.shard.describe(),
                "length": r.stats["length"],
                "docs": r.stats["docs"],
                "tokens": r.stats["tokens"],
                "chars": r.stats["chars"],
                "bytes": r.shard.size,
                "seconds": round(r.seconds, 3),  # 0 for a shard an earlier run built
            }
            for r in results
        ],
        "segments": segment_records,
        "files": files,
        "vocab": {"path": VOCAB, "words": len(vocab), "sha256": files[VOCAB]["sha256"]},
        "totals": {**totals, "index_bytes": sum(f["bytes"] for f in files.values())},
        "build_seconds": round(time.perf_counter() - started, 3),
        "merge_seconds": round(merge_seconds, 3),
        "shards_resumed": sum(r.skipped for r in results),
    }
    with atomic_path(out / MANIFEST) as tmp:  # last: only now does the folder read as an index
        tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    remove_stale(out, manifest)
    return manifest


def _file_record(path: Path) -> dict[str, Any]:
    return {"bytes": path.stat().st_size, "sha256": sha256_file(path)}


def index_files(manifest: dict[str, Any]) -> set[str]:
    """Every file a built index holds, relative to its folder (the manifest among them)."""
    return {MANIFEST, *manifest["files"]}


def remove_stale(out: Path, manifest: dict[str, Any]) -> list[Path]:
    """Delete what an earlier build left in `out` that this index does not list (fewer segments, old shards)."""
    keep = index_files(manifest)
    removed = []
    for path in sorted(out.rglob("*"), reverse=True):  # files before the folders holding them
        rel = path.relative_to(out).as_posix()
        if path.is_dir() and not path.is_symlink():
            if not any(k.startswith(rel + "/") for k in keep):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        elif rel not in keep:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def _compact(results, vocab, out: Path, work: Path, execution, fingerprint: str, segment_bytes: int, progress):
    """Steps 2 and 3: the shards grouped into segments of about `segment_bytes` of reference text, one segment at
    a time: its token file and document table written here, its suffix array merged on the executor, checked,
    recorded in `.build/segments/`; then its shards' files are deleted (a 16 GB build never holds every shard and
    every segment at once). A resumed build skips a recorded segment and rebuilds none of its shards."""
    (out / "segments").mkdir(exist_ok=True)
    job = _Compaction(out, work, vocab, execution, fingerprint + f":{segment_bytes}", progress)
    records = []
    for number, members in enumerate(_segment_plan(results, segment_bytes)):
        record = _recorded_segment(out, work, number, members, job.stamp)
        if record is None:
            files = [shard_files(results[i].part) for i in members]
            record = _build_segment(job, number, members, files)
            for shard in files:
                for key in (*_STEP1_FILES, "gfirst"):
                    shard[key].unlink(missing_ok=True)
        records.append(record)
    return records


def _segment_plan(results, segment_bytes: int) -> list[list[int]]:
    """The shards of each segment (`plan_segments`), `segment_bytes` of reference text turned into word ids at
    the references' own rate: what compaction builds and a resumed build checks for missing shards."""
    lengths = [int(r.stats["length"]) for r in results]
    per_byte = sum(lengths) / max(1, sum(r.shard.size for r in results))
    return plan_segments(lengths, max(1, int(segment_bytes * per_byte)))


def _segment_marker(work: Path, number: int) -> Path:
    return work / "segments" / f"{number:05d}.json"


def _recorded_segment(out: Path, work: Path, number: int, members: list[int], stamp: str) -> dict | None:
    """The record of a segment an earlier run of this build finished (its files in place, their sizes right)."""
    marker = _segment_marker(work, number)
    try:
        saved = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    record = saved.get("record", {})
    if saved.get("fingerprint") != stamp or record.get("shards") != [members[0], members[-1] + 1]:
        return None
    sizes = {"tokens_path": 4 * record["length"], "sa_path": record["sa_bytes"]}
    for key in ("tokens_path", "sa_path", "docs_path", "first_path"):
        path = out / record[key]
        if not path.is_file() or (key in sizes and path.stat().st_size != sizes[key]):
            return None
    return record


#: what step 1 writes per shard beside its vocabulary and compaction reads (an earlier build's shard may lack one:
#: built before LCP arrays were, or a file deleted), so a shard missing any of them is built again
_STEP1_FILES = ("tokens", "sa", "lcp", "docs")


def missing_shards(results, out: Path, work: Path, segment_bytes: int, fingerprint: str) -> list[int]:
    """Shards whose files are gone although no recorded segment holds them (a segment size changed between a
    stopped build and its resumption, or a file of the shard lost): their done markers must go, so step 1 builds
    them again."""
    stamp = fingerprint + f":{segment_bytes}"
    missing = []
    for number, members in enumerate(_segment_plan(results, segment_bytes)):
        if _recorded_segment(out, work, number, members, stamp) is None:
            if _written_tokens(out, work, number, members, stamp) is not None:
                if not [i for i in members if not _has(results[i], _MERGE_FILES)]:
                    continue
                # a merge file was lost: the segment's shards are built again, tokens included
                _tokens_marker(work, number).unlink(missing_ok=True)
            missing += [i for i in members if not _has(results[i], _STEP1_FILES)]
    return missing


def _has(result, keys: tuple[str, ...]) -> bool:
    files = shard_files(result.part)
    return all(files[k].exists() for k in keys)


#: what a shard still needs once its segment's token file is written (the merge reads the segment's tokens)
_MERGE_FILES = ("sa", "lcp", "gfirst")


def _tokens_marker(work: Path, number: int) -> Path:
    return work / "segments" / f"{number:05d}.tokens.json"


def _written_tokens(out: Path, work: Path, number: int, members: list[int], stamp: str) -> dict | None:
    """The record of a segment whose token, document and first-word files an earlier run of this build wrote
    (before its shards' token files were deleted): its shard offsets and length; None if they must be written."""
    try:
        saved = json.loads(_tokens_marker(work, number).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if saved.get("fingerprint") != stamp or saved.get("shards") != [members[0], members[-1] + 1]:
        return None
    name = out / "segments" / f"{number:05d}"
    tokens = name.with_suffix(".tokens")
    if not tokens.is_file() or tokens.stat().st_size != 4 * saved["length"]:
        return None
    if not (name.with_suffix(".first").is_file() and Path(f"{name}.docs.parquet").is_file()):
        return None
    return saved


def _counts_from_first(path: Path, size: int) -> np.ndarray:
    """The suffixes per first word back from a first-word table (`first_word_table`'s inverse)."""
    table = np.fromfile(path, dtype=np.int64)
    present = (len(table) - 1) // 2
    counts = np.zeros(size, dtype=np.int64)
    counts[table[:present]] = np.diff(table[present:])
    return counts


@dataclass(frozen=True)
class _Compaction:
    """What every segment of one build shares."""

    out: Path
    work: Path
    vocab: pa.Array
    execution: ExecSettings
    stamp: str  # the build's fingerprint and segment size: what the segment records and merge markers match
    progress: bool | None


def _build_segment(job: _Compaction, number: int, members: list[int], files: list[dict[str, Path]]) -> dict:
    out, work = job.out, job.work
    name = f"segments/{number:05d}"
    tokens_path = out / f"{name}.tokens"
    counts, offsets, docs = _segment_tokens(job, number, members, files)
    length = int(counts.sum())
    width = 4 if length < 2**31 else 8
    record = {
        "tokens_path": f"{name}.tokens",
        "sa_path": f"{name}.sa",
        "docs_path": f"{name}.docs.parquet",
        "first_path": f"{name}.first",
        "shards": [members[0], members[-1] + 1],
        "length": length,
        "sa_width": width,
        "sa_bytes": width * length,
        "docs": docs,
    }
    building = out / f"{name}.sa.building"
    merge_work = work / "merge" / f"{number:05d}"
    if not building.is_file() or building.stat().st_size != width * length:
        shutil.rmtree(merge_work, ignore_errors=True)  # its tasks' ranges are not in this file: redo them all
        _allocate(building, width * length)
    runs = tuple((str(f["sa"]), str(f["lcp"]), str(f["gfirst"]), o) for f, o in zip(files, offsets))
    merge = MergePart(str(tokens_path), runs, width, str(building))
    ranges = plan_merge(counts, MERGE_PART_ENTRIES)
    run_shards(
        merge,
        [Shard(name, a, b, int(counts[a:b].sum()) * width) for a, b in ranges],
        merge_work,
        execution=job.execution,
        fingerprint=job.stamp,
        suffix=".entries",
        progress=job.progress,
        description=f"index compaction {number + 1}",
    )
    building.replace(out / record["sa_path"])
    tokens = np.memmap(tokens_path, dtype=np.uint32, mode="r")
    sa = np.memmap(out / record["sa_path"], dtype=np.int32 if width == 4 else np.int64, mode="r")
    _check_sorted(tokens, sa, np.random.default_rng(number), 20_000, out / record["sa_path"])
    del tokens, sa
    _segment_marker(work, number).parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(_segment_marker(work, number)) as tmp:
        tmp.write_text(json.dumps({"fingerprint": job.stamp, "record": record}) + "\n", encoding="utf-8")
    return record


def _segment_tokens(
    job: _Compaction, number: int, members: list[int], files: list[dict[str, Path]]
) -> tuple[np.ndarray, list[int], int]:
    """Step 2 for one segment: its token file, document table and first-word table (or those an earlier run of this
    build wrote); then its shards' token files and document tables are deleted, since the merge reads the segment's
    tokens. Peak disk of a build: every shard's arrays (about 10 bytes a word) plus one segment's tokens and suffix
    array (8), not the shards' tokens twice."""
    out, work, vocab = job.out, job.work, job.vocab
    name = f"segments/{number:05d}"
    written = _written_tokens(out, work, number, members, job.stamp)
    if written is not None:
        counts = _counts_from_first(out / f"{name}.first", len(vocab) + 1)
        return counts, written["offsets"], written["docs"]
    counts, offsets = _write_segment_tokens(files, vocab, out / f"{name}.tokens")
    docs = _write_segment_docs(files, offsets, out / f"{name}.docs.parquet")
    write_array(first_word_table(np.arange(len(vocab) + 1), counts), out / f"{name}.first")
    marker = _tokens_marker(work, number)
    marker.parent.mkdir(parents=True, exist_ok=True)
    saved = {
        "fingerprint": job.stamp,
        "shards": [members[0], members[-1] + 1],
        "length": int(counts.sum()),
        "offsets": offsets,
        "docs": docs,
    }
    with atomic_path(marker) as tmp:
        tmp.write_text(json.dumps(saved) + "\n", encoding="utf-8")
    for shard in files:
        shard["tokens"].unlink(missing_ok=True)
        shard["docs"].unlink(missing_ok=True)
    return counts, offsets, docs


def _allocate(path: Path, size: int) -> None:
    try:
        with open(path, "wb") as handle:
            handle.truncate(size)
    except OSError as exc:
        raise_disk_error(exc, path)


# ------------------------------------------------------------------------------------------ verify / load


@dataclass
class LoadedShard:
    """One segment of a loaded index (what a query searches: a token array and its suffix array)."""

    tokens: np.ndarray  # uint32, memory-mapped
    sa: np.ndarray  # int32/int64, memory-mapped
    starts: np.ndarray  # int64: first token of each document
    docs: list[str]
    first_ids: np.ndarray  # int64: the first words present, ascending
    first_starts: np.ndarray  # int64: sa[first_starts[i]:first_starts[i + 1]] start with first_ids[i]
    parallel_reads: int = 1  # page faults a large gather keeps in flight (`gather`): > 1 for an index read from disk


@dataclass
class LoadedIndex:
    path: Path
    manifest: dict[str, Any]
    vocab: pa.Array
    shards: list[LoadedShard]  # the segments

    def spec(self, n: int) -> TokenSpec:
        return TokenSpec(n=n, **self.manifest["tokens"])


def _bad(path: Path, message: str) -> IndexFileError:
    return IndexFileError(message + "; build it again with `lotdata index build`", path=str(path))


class ReferenceChangedError(InputError):
    """A reference file differs from what the index was built from (exit 3, naming it)."""


def read_manifest(idx: str | Path) -> dict[str, Any]:
    idx = must_exist(idx, "index folder")
    path = idx / MANIFEST
    if not path.exists():
        partial = (
            " (a build was stopped before it finished: run it again to resume)" if (idx / ".build").exists() else ""
        )
        raise _bad(path, f"no manifest: not a complete lotdata index{partial}")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _bad(path, f"unreadable manifest ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("kind") != "overlap-index":
        raise _bad(path, "not the manifest of a lotdata overlap index")
    if manifest.get("lotdata_version") != __version__ or manifest.get("format") != FORMAT:
        raise _bad(
            path,
            f"an index from lotdata {manifest.get('lotdata_version')} (format {manifest.get('format')}); "
            f"this is lotdata {__version__} (format {FORMAT})",
        )
    return manifest


def check_references(manifest: dict[str, Any], *, trust: bool = False) -> list[str]:
    """Each reference's size and modification time against the manifest: a changed or missing one is refused
    (exit 3, naming it), or with `trust` listed and returned (the figures then describe the indexed bytes)."""
    changed = []
    for source in manifest["sources"]:
        path = Path(source["path"])
        try:
            stat = path.stat()
        except OSError:
            changed.append(f"{path}: missing (the index was built from {source['bytes']:,} bytes)")
            continue
        if stat.st_size != source["bytes"] or stat.st_mtime_ns != source["mtime_ns"]:
            what = "size" if stat.st_size != source["bytes"] else "modification time"
            changed.append(
                f"{path}: changed since the index was built ({what}: {stat.st_size:,} bytes now, "
                f"{source['bytes']:,} then)"
            )
    if changed and not trust:
        first = changed[0].split(": ", 1)
        more = f" (and {len(changed) - 1} more reference(s))" if len(changed) > 1 else ""
        raise ReferenceChangedError(
            f"{first[1]}{more}: its figures and byte offsets would describe the old text; rebuild the index, "
            "or pass --trust-references to use it as it is",
            path=first[0],
        )
    return changed


def verify_index(
    idx: str | Path, *, samples: int = 2000, seed: int = 0, full: bool = False, references: bool = False
) -> LoadedIndex:
    """The check every query runs: manifest, every file's size, the sha256 of the small files (vocabulary, first-
    word and document tables), sampled sortedness; `full`: the sha256 of every file against the manifest;
    `references`: each reference's size and mtime (`check_references`)."""
    idx = Path(idx)
    manifest = read_manifest(idx)
    if references:
        check_references(manifest)
    for rel, record in manifest["files"].items():
        path = idx / rel
        _check_exists(path)
        size = path.stat().st_size
        if size != record["bytes"]:
            raise _bad(path, f"{size:,} bytes, the manifest says {record['bytes']:,} (truncated?)")
        small = not rel.endswith((".tokens", ".sa"))
        if (full or small) and sha256_file(path) != record["sha256"]:
            raise _bad(path, "changed since the build (sha256 differs from the manifest's)")
    vocab = pq.read_table(idx / manifest["vocab"]["path"]).column("word").combine_chunks()
    rng = np.random.default_rng(seed)
    segments = []
    advice = map_advice(sum(r["sa_bytes"] + 4 * r["length"] for r in manifest["segments"]))
    for record in manifest["segments"]:
        tokens_path, sa_path, docs_path = (idx / record[k] for k in ("tokens_path", "sa_path", "docs_path"))
        if record["sa_bytes"] != record["sa_width"] * record["length"]:
            raise _bad(idx / MANIFEST, f"{sa_path.name}: the manifest's sizes disagree")
        first = np.fromfile(idx / record["first_path"], dtype=np.int64)
        k = (len(first) - 1) // 2
        tokens = random_access(np.memmap(tokens_path, dtype=np.uint32, mode="r"), advice)
        sa = random_access(
            np.memmap(sa_path, dtype=np.int32 if record["sa_width"] == 4 else np.int64, mode="r"), advice
        )
        if len(tokens) != record["length"] or len(sa) != record["length"]:
            raise _bad(tokens_path, "the token and suffix-array lengths differ from the manifest's")
        if len(tokens) and int(tokens[-1]) != SEP:
            raise _bad(tokens_path, "does not end with the separator (0): truncated or overwritten")
        _check_sorted(tokens, sa, rng, samples, sa_path)
        docs = pq.read_table(docs_path)
        segments.append(
            LoadedShard(
                tokens,
                sa,
                docs.column("start").to_numpy(),
                docs.column("doc").to_pylist(),
                first[:k],
                first[k:],
                PARALLEL_READS if advice is not None else 1,
            )
        )
    return LoadedIndex(idx, manifest, vocab, segments)


#: an index whose token and suffix-array files exceed this share of the machine's memory is mapped for random reads
RANDOM_ABOVE_MEMORY_SHARE = 0.5


def map_advice(index_bytes: int) -> int | None:
    """MADV_RANDOM for an index too large to stay in the page cache, else None (the kernel's read-ahead). Measured
    (bench/index_pagecache.md): at 16 GB of text (28 GB of index, 23.5 GiB of memory) read-ahead kept pushing out the
    pages the next query needed (8.9 s per test set, warm) where random reads settled at 0.90 s; at 1 GB (1.8 GB)
    read-ahead loads a cold index faster (0.73 s against 5.4 s for the first set) and both are alike warm."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    return getattr(mmap, "MADV_RANDOM", None) if index_bytes > RANDOM_ABOVE_MEMORY_SHARE * memory else None


#: page faults kept in flight by a large gather from an index mapped for random reads (`gather`)
PARALLEL_READS = 32
#: entries a thread of a gather gets at least (fewer threads for a smaller gather; one below twice this)
PARALLEL_GATHER_MIN = 512
#: the gather threads by (process, count): a forked child gets its own, its parent's threads are not in it
_pools: dict[tuple[int, int], ThreadPoolExecutor] = {}


def gather(array: np.ndarray, idx: np.ndarray, threads: int = 1) -> np.ndarray:
    """`array[idx]`; a large gather that meets the disk is split across `threads` threads. numpy's take releases the
    GIL, so the threads' page faults are served together instead of one after another (100,000 random entries of a
    cold 873 MB token file: 6.7 s in one thread, 1.5 s in 16, 1.1 s in 64). The first slice is read in this thread
    and the rest goes to the threads only if that slice faulted a page in: once the pages are in memory the threads
    only cost (at 16 GB of text, 1.18 s per set against 0.82 s in one thread, bench/index_pagecache.md)."""
    threads = min(threads, idx.size // PARALLEL_GATHER_MIN)
    if threads <= 1:
        return array[idx]
    flat = idx.reshape(-1)
    out = np.empty(flat.shape, dtype=array.dtype)
    bounds = np.linspace(0, len(flat), threads + 1).astype(np.int64)

    def part(i: int) -> None:
        np.take(array, flat[bounds[i] : bounds[i + 1]], out=out[bounds[i] : bounds[i + 1]])

    faults = _major_faults()
    part(0)
    if _major_faults() == faults:  # the probe found its pages in memory: the rest most likely too
        np.take(array, flat[bounds[1] :], out=out[bounds[1] :])
        return out.reshape(idx.shape)
    key = (os.getpid(), threads)
    pool = _pools.get(key) or _pools.setdefault(key, ThreadPoolExecutor(threads, "lotdata-gather"))
    for done in [pool.submit(part, i) for i in range(1, threads)]:
        done.result()
    return out.reshape(idx.shape)


def _major_faults() -> int:
    """Page faults of this process that had to read from disk so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_majflt


def random_access(array: np.memmap, advice: int | None = None) -> np.memmap:
    """`array` with its mapping advised `advice` (MADV_RANDOM for `map_advice`'s large index; None leaves the
    kernel's read-ahead): a binary search touches one page here and one there, and read-ahead (32 pages a fault by
    default) reads pages nobody asked for and, once an index outgrows memory, pushes out the ones the next query
    needs."""
    handle = getattr(array, "_mmap", None)
    if handle is not None and advice is not None and hasattr(handle, "madvise"):
        handle.madvise(advice)
    return array


def _check_exists(path: Path) -> None:
    if not path.is_file():
        raise _bad(path, "missing from the index folder")


def _check_sorted(
    tokens: np.ndarray, sa: np.ndarray, rng: np.random.Generator, samples: int, path: Path, depth: int = 32
) -> None:
    """Sampled neighbours of the suffix array are in order (first `depth` words, up to a separator: what a
    query reads) and point inside the text."""
    length = len(sa)
    if length < 2:
        return
    at = np.unique(rng.integers(0, length - 1, size=min(samples, length - 1)))
    left, right = np.asarray(sa[at], dtype=np.int64), np.asarray(sa[at + 1], dtype=np.int64)
    if left.min() < 0 or right.min() < 0 or max(left.max(), right.max()) >= length:
        raise _bad(path, "an offset points outside the text: a damaged suffix array")
    steps = np.arange(depth)
    a = tokens[np.minimum(left[:, None] + steps, length - 1)].astype(np.int64)
    b = tokens[np.minimum(right[:, None] + steps, length - 1)].astype(np.int64)
    ended = np.cumsum(a == SEP, axis=1) > 0  # after the separator: the key has ended (compaction's order)
    ended[:, 1:] = ended[:, :-1].copy()
    ended[:, 0] = False
    differ = (a != b) & ~ended
    first = differ.argmax(axis=1)
    rows = np.flatnonzero(differ.any(axis=1))
    wrong = rows[a[rows, first[rows]] > b[rows, first[rows]]]
    if len(wrong):
        raise _bad(
            path,
            f"not sorted: entries {int(at[wrong[0]]):,} and {int(at[wrong[0]]) + 1:,} are out of order "
            f"({len(wrong)} of {len(at)} sampled pairs)",
        )


__all__ = [
    "DEFAULT_SHARD_BYTES",
    "INDEX_SHARD_BYTES",
    "BuildShard",
    "IndexFileError",
    "LoadedIndex",
    "build_index",
    "read_manifest",
    "verify_index",
]
