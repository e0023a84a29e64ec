"""A word n-gram index of reference corpora, built once and queried by every test set (`lotdata index build`).

The references are read by the readers of streaming `overlap` (`corpus.iter_documents`) and tokenised by the
same `TokenSpec.words`, piece by piece as the streaming scan reads them. Every word becomes an id (>= 1) in
`vocab.parquet` (words sorted by code point, id = row + 1); id 0 separates documents, the texts of a document
and mask-split segments, so no n-gram crosses them (the pieces of one long line are joined without a
separator: the streaming scan carries n-1 words across them). Each shard of the references (byte ranges, row
groups, compressed files whole: `corpus.plan_shards`) becomes

- `shards/NNNNN.tokens`: its word ids, uint32, ending with a 0;
- `shards/NNNNN.sa`: the suffix array of those ids (int32 offsets; libdivsufsort through `pydivsufsort`);
- `shards/NNNNN.docs.parquet`: each document's first token offset and its id as streaming `overlap` names
  it (`file@byte`, `file:line`, `file:row`, `file#N`).

Any n can be queried: a suffix array answers every prefix length. The build runs in two steps:
(1) on the executor, each shard is tokenised with a vocabulary of its own, sorted, so its suffix array over
local ids is also the suffix array over global ids (the local-to-global map keeps the order); (2) here, the
shard vocabularies are merged and each shard's ids are mapped to global ids, one shard at a time. Memory is
bounded by the shard size. Step 1 leaves a done marker per shard in `IDX/.build/` (a killed build resumes);
`manifest.json` is written last, atomically, after every file is in place: a folder without it is never read.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from lotdata import __version__
from lotdata.errors import InputError, LotdataError, must_exist, require
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

FORMAT = 1
MANIFEST = "manifest.json"
VOCAB = "vocab.parquet"
SEP = 0  # the id between documents, texts and segments: never a word
INDEX_SHARD_BYTES = 64 << 20
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
    """The one place index bytes reach the disk (tests make it fail like a full disk)."""
    array.tofile(handle)


def _write_table(table: pa.Table, path: Path) -> None:
    with atomic_path(path) as tmp:
        try:
            pq.write_table(table, tmp, compression="zstd")
        except OSError as exc:
            raise_disk_error(exc, path)


# ------------------------------------------------------------------------------------------ step 1: shards


def shard_files(part: Path) -> dict[str, Path]:
    """The files of one built shard beside its part (`NNNNN.tokens`): local ids, suffix array, vocab, docs."""
    stem = part.with_suffix("")
    return {
        "tokens": part,
        "sa": stem.with_suffix(".sa"),
        "vocab": stem.with_suffix(".vocab.parquet"),
        "docs": stem.with_suffix(".docs.parquet"),
    }


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
        _write_table(pa.table({"word": sorted_words.cast(pa.string())}, schema=_VOCAB_SCHEMA), files["vocab"])
        _write_table(pa.table({"start": starts, "doc": doc_ids}, schema=_DOCS_SCHEMA), files["docs"])
        write_array(np.asarray(sa, dtype=np.int32 if len(local) < 2**31 else np.int64), files["sa"])
        write_array(local, files["tokens"])  # last: run_shards checks this part exists
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


def _sorted_ids(words: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Word ids (uint32, 0 for a separator) numbered in the code-point order of the words, and those words."""
    encoded = pc.dictionary_encode(words.combine_chunks())
    dictionary = encoded.dictionary
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.zeros(len(dictionary) + 1, dtype=np.uint32)  # dictionary index + 1 -> sorted id
    rank[order + 1] = np.arange(1, len(dictionary) + 1, dtype=np.uint32)
    indices = pc.fill_null(encoded.indices, -1).to_numpy().astype(np.int64)
    return rank[indices + 1], dictionary.take(pa.array(order))


# ------------------------------------------------------------------------------------------ step 2: merge


def _global_vocab(vocab_files: list[Path]) -> pa.Array:
    """The union of the shard vocabularies, sorted by code point (Arrow: no Python set of every word)."""
    merged: pa.Array | None = None
    for path in vocab_files:
        words = pq.read_table(path).column("word").combine_chunks()
        merged = words if merged is None else pc.unique(pa.concat_arrays([merged, words]))
    if merged is None:
        return pa.array([], pa.string())
    return merged.take(pc.sort_indices(merged))


def _map_shard(files: dict[str, Path], vocab: pa.Array, out_tokens: Path, out_first: Path) -> None:
    """Rewrite one shard's local ids as global ids (order-preserving, so its suffix array stays valid), and
    write where each first word's range of the suffix array starts."""
    local_words = pq.read_table(files["vocab"]).column("word").combine_chunks()
    to_global = np.zeros(len(local_words) + 1, dtype=np.uint32)
    to_global[1:] = pc.index_in(local_words, value_set=vocab).to_numpy(zero_copy_only=False).astype(np.uint32) + 1
    local = np.fromfile(files["tokens"], dtype=np.uint32)
    counts = np.bincount(local, minlength=len(local_words) + 1)  # local ids keep the global order
    del local
    write_array(first_word_table(to_global, counts), out_first)
    local = np.fromfile(files["tokens"], dtype=np.uint32)
    write_array(to_global[local], out_tokens)


def first_word_table(ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """int64 [k ids present..., k + 1 range starts...]: the suffixes starting with ids[i] fill
    sa[starts[i]:starts[i + 1]] (a query's search starts inside its first word's range)."""
    present = np.flatnonzero(counts)
    starts = np.concatenate(([0], np.cumsum(counts[present])))
    return np.concatenate((ids[present].astype(np.int64), starts.astype(np.int64)))


# ------------------------------------------------------------------------------------------ the build


def _sources(files: list[Path]) -> list[dict[str, Any]]:
    return [{"path": str(f), "bytes": f.stat().st_size, "sha256": sha256_file(f)} for f in files]


def build_index(
    references: list[str],
    out: str | Path,
    *,
    spec: TokenSpec,
    execution: ExecSettings = ExecSettings(),
    shard_bytes: int = INDEX_SHARD_BYTES,
    progress: bool | None = None,
) -> dict[str, Any]:
    """Build the index of `references` (files, globs, folders) into the folder `out`; returns the manifest."""
    started = time.perf_counter()
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
    fingerprint = hashlib.sha256(
        json.dumps(
            {
                "format": FORMAT,
                "version": __version__,
                "spec": token_spec,
                "sources": sources,
                "shard_bytes": shard_bytes,
            },
            sort_keys=True,
        ).encode()
    ).hexdigest()[:16]
    shards = plan_shards(expanded.files, shard_bytes)
    work = out / ".build"
    results = run_shards(
        BuildShard(spec),
        shards,
        work,
        execution=execution,
        fingerprint=fingerprint,
        suffix=".tokens",
        progress=progress,
        description="index build",
    )
    totals = {key: sum(r.stats.get(key, 0) for r in results) for key in ("docs", "chars", "tokens", "bytes")}
    if not totals["tokens"]:
        raise InputError(
            "the references hold no word (empty files, blank lines or empty texts only): nothing to index",
            path=", ".join(str(f) for f in expanded.files[:5]),
        )
    merge_started = time.perf_counter()
    vocab = _global_vocab([shard_files(r.part)["vocab"] for r in results])
    (out / "shards").mkdir(exist_ok=True)
    shard_records = []
    for r in results:
        files = shard_files(r.part)
        name = f"{r.index:05d}"
        final = {
            "tokens": out / "shards" / f"{name}.tokens",
            "sa": out / "shards" / f"{name}.sa",
            "docs": out / "shards" / f"{name}.docs.parquet",
            "first": out / "shards" / f"{name}.first",
        }
        _map_shard(files, vocab, final["tokens"], final["first"])
        _copy(files["sa"], final["sa"])
        _copy(files["docs"], final["docs"])
        sa_width = 4 if final["tokens"].stat().st_size // 4 < 2**31 else 8
        shard_records.append(
            {
                "shard": r.shard.describe(),
                "tokens_path": f"shards/{name}.tokens",
                "sa_path": f"shards/{name}.sa",
                "docs_path": f"shards/{name}.docs.parquet",
                "first_path": f"shards/{name}.first",
                "first_sha256": sha256_file(final["first"]),
                "length": final["tokens"].stat().st_size // 4,
                "sa_bytes": final["sa"].stat().st_size,
                "sa_width": sa_width,
                "docs": r.stats["docs"],
                "docs_sha256": sha256_file(final["docs"]),
                "tokens": r.stats["tokens"],
                "chars": r.stats["chars"],
                "bytes": r.shard.size,
                "seconds": round(r.seconds, 3),  # 0 for a shard an earlier run built
            }
        )
    _write_table(pa.table({"word": vocab}, schema=_VOCAB_SCHEMA), out / VOCAB)
    manifest = {
        "kind": "overlap-index",
        "format": FORMAT,
        "lotdata_version": __version__,
        "tokens": token_spec,
        "n": "any (a suffix array answers every n; overlap's default is 8)",
        "sources": sources,
        "shard_bytes": shard_bytes,
        "shards": shard_records,
        "vocab": {"path": VOCAB, "words": len(vocab), "sha256": sha256_file(out / VOCAB)},
        "totals": {**totals, "index_bytes": 0},
        "build_seconds": 0.0,
        "shards_resumed": sum(r.skipped for r in results),
    }
    manifest["totals"]["index_bytes"] = sum(
        (out / p).stat().st_size
        for s in shard_records
        for p in (s["tokens_path"], s["sa_path"], s["docs_path"], s["first_path"])
    )
    manifest["totals"]["index_bytes"] += (out / VOCAB).stat().st_size
    manifest["build_seconds"] = round(time.perf_counter() - started, 3)
    manifest["merge_seconds"] = round(time.perf_counter() - merge_started, 3)
    with atomic_path(out / MANIFEST) as tmp:  # last: only now does the folder read as an index
        tmp.write_text(json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    return manifest


def _copy(src: Path, dst: Path) -> None:
    """Move a finished shard file into the index (a resumed finalisation finds it moved already)."""
    if src.exists():
        try:
            os.replace(src, dst)
        except OSError as exc:
            raise_disk_error(exc, dst)
    elif not dst.exists():
        raise LotdataError(f"{src}: a built shard's file is missing; delete {src.parent.parent} and build again")


# ------------------------------------------------------------------------------------------ verify / load


@dataclass
class LoadedShard:
    tokens: np.ndarray  # uint32, memory-mapped
    sa: np.ndarray  # int32/int64, memory-mapped
    starts: np.ndarray  # int64: first token of each document
    docs: list[str]
    first_ids: np.ndarray  # int64: the first words present, ascending
    first_starts: np.ndarray  # int64: sa[first_starts[i]:first_starts[i + 1]] start with first_ids[i]


@dataclass
class LoadedIndex:
    path: Path
    manifest: dict[str, Any]
    vocab: pa.Array
    shards: list[LoadedShard]

    def spec(self, n: int) -> TokenSpec:
        return TokenSpec(n=n, **self.manifest["tokens"])


def _bad(path: Path, message: str) -> IndexFileError:
    return IndexFileError(message + "; build it again with `lotdata index build`", path=str(path))


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


def verify_index(idx: str | Path, *, samples: int = 2000, seed: int = 0) -> LoadedIndex:
    """The cheap check every query runs: manifest, sizes, sha256 of the small files, sampled sortedness."""
    idx = Path(idx)
    manifest = read_manifest(idx)
    vocab_path = idx / manifest["vocab"]["path"]
    _check_exists(vocab_path)
    if sha256_file(vocab_path) != manifest["vocab"]["sha256"]:
        raise _bad(vocab_path, "vocabulary changed since the build (sha256 differs)")
    vocab = pq.read_table(vocab_path).column("word").combine_chunks()
    rng = np.random.default_rng(seed)
    shards = []
    for record in manifest["shards"]:
        tokens_path, sa_path, docs_path = (idx / record[k] for k in ("tokens_path", "sa_path", "docs_path"))
        for path in (tokens_path, sa_path, docs_path):  # the first-word table: below
            _check_exists(path)
        if tokens_path.stat().st_size != 4 * record["length"]:
            raise _bad(
                tokens_path,
                f"{tokens_path.stat().st_size:,} bytes, the manifest says {4 * record['length']:,} (truncated?)",
            )
        if sa_path.stat().st_size != record["sa_bytes"] or record["sa_bytes"] != record["sa_width"] * record["length"]:
            raise _bad(
                sa_path, f"{sa_path.stat().st_size:,} bytes, the manifest says {record['sa_bytes']:,} (truncated?)"
            )
        if sha256_file(docs_path) != record["docs_sha256"]:
            raise _bad(docs_path, "document table changed since the build (sha256 differs)")
        first_path = idx / record["first_path"]
        _check_exists(first_path)
        if sha256_file(first_path) != record["first_sha256"]:
            raise _bad(first_path, "first-word table changed since the build (sha256 differs)")
        first = np.fromfile(first_path, dtype=np.int64)
        k = (len(first) - 1) // 2
        tokens = np.memmap(tokens_path, dtype=np.uint32, mode="r")
        sa = np.memmap(sa_path, dtype=np.int32 if record["sa_width"] == 4 else np.int64, mode="r")
        if len(tokens) and int(tokens[-1]) != SEP:
            raise _bad(tokens_path, "does not end with the separator (0): truncated or overwritten")
        _check_sorted(tokens, sa, rng, samples, sa_path)
        docs = pq.read_table(docs_path)
        shards.append(
            LoadedShard(
                tokens, sa, docs.column("start").to_numpy(), docs.column("doc").to_pylist(), first[:k], first[k:]
            )
        )
    return LoadedIndex(idx, manifest, vocab, shards)


def _check_exists(path: Path) -> None:
    if not path.is_file():
        raise _bad(path, "missing from the index folder")


def _check_sorted(
    tokens: np.ndarray, sa: np.ndarray, rng: np.random.Generator, samples: int, path: Path, depth: int = 32
) -> None:
    """Sampled neighbours of the suffix array are in order (first `depth` words) and point inside the text."""
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
    differ = a != b
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
