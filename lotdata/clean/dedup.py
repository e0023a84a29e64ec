"""Exact and near-duplicate detection across sources (MinHash LSH), in datatrove's four phases.

Two thresholds on the estimated Jaccard similarity of character shingles:

- at or above `reject_threshold` a story is a near-copy of a better one and is rejected;
- at or above `cluster_threshold` stories are related (two retellings of one fable, say): all are
  kept and share a `cluster_id`, which the builders use to keep a cluster inside one split.

The phases (datatrove's MinHash stages: signatures -> buckets -> clusters -> filter):

1. :func:`signatures`: a MinHash signature per story (a row of a ``uint32`` matrix; per shard of stories);
2. :func:`band_pairs`: LSH banding; stories with an identical band are candidate pairs (per range of bands);
3. :func:`cluster_and_filter`: every candidate pair is checked (estimated Jaccard >= `cluster_threshold`),
   clusters are the connected components of the checked pairs, and inside a cluster a copy is rejected
   only when its estimated Jaccard with a *better copy that stays* is >= `reject_threshold` (datatrove
   drops all but one member of a cluster, unchecked, and keeps an arbitrary one).

The id of a cluster is its best copy, so it is stable across runs, shardings and worker counts.
Signatures come from Rust MinHash (`rensa`, about 40x faster than `datasketch` on CMRC/CFT stories;
bench/sources.md); `backend="datasketch"` computes them with datasketch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from lotdata.errors import LotdataError, require

BACKENDS = ("rensa", "datasketch")
_NOT_ALNUM = re.compile(r"[\W_]+")  # \w is str.isalnum() plus "_"


@dataclass(frozen=True)
class DedupParams:
    shingle: int = 5  # characters per shingle (Chinese); words for English
    num_perm: int = 128
    cluster_threshold: float = 0.5
    reject_threshold: float = 0.8
    seed: int = 1
    backend: str = "rensa"  # MinHash implementation: rensa (Rust) or datasketch


def shingles(text: str, lang: str, size: int) -> set[str]:
    if lang == "en":
        words = text.lower().split()
        grams = {" ".join(words[i : i + size]) for i in range(max(1, len(words) - size + 1))}
    else:
        chars = _NOT_ALNUM.sub("", text)  # punctuation differences do not count
        grams = {chars[i : i + size] for i in range(max(1, len(chars) - size + 1))}
    return {g for g in grams if g}


def shingle_list(text: str, lang: str, size: int) -> list[str]:
    """The shingles of `shingles`, repeats left in: a MinHash value is a minimum over them, which a repeat does not
    change, and a list is built in half the time of a set (tests/test_clean_speed.py: same signatures)."""
    if lang == "en":
        words = text.lower().split()
        return [" ".join(words[i : i + size]) for i in range(max(1, len(words) - size + 1))] if words else []
    chars = _NOT_ALNUM.sub("", text)
    return [chars[i : i + size] for i in range(max(1, len(chars) - size + 1))] if chars else []


def signatures(texts: Sequence[str], langs: Sequence[str], params: DedupParams = DedupParams()) -> np.ndarray:
    """Phase 1: the MinHash signatures of `texts`, one ``uint32`` row of `num_perm` values per text."""
    if params.backend not in BACKENDS:
        raise LotdataError(f"unknown MinHash backend {params.backend!r}; use one of {', '.join(BACKENDS)}")
    if not texts:
        return np.zeros((0, params.num_perm), dtype=np.uint32)
    if params.backend == "rensa":
        rensa = require("rensa", "sources")
        # one object a story, not rensa's batch call: that starts a Rust thread pool, and a process forked
        # after it (the local executor forks its workers) hangs on its first batch call
        rows = np.empty((len(texts), params.num_perm), dtype=np.uint32)
        for k, (text, lang) in enumerate(zip(texts, langs)):
            m = rensa.RMinHash(params.num_perm, params.seed)
            m.update(shingle_list(text, lang, params.shingle))
            rows[k] = m.digest()
        return rows
    datasketch = require("datasketch", "sources")
    rows = []
    for grams in (shingles(text, lang, params.shingle) for text, lang in zip(texts, langs)):
        m = datasketch.MinHash(num_perm=params.num_perm, seed=params.seed)
        if grams:
            m.update_batch([g.encode("utf-8") for g in grams])
        rows.append(m.hashvalues)
    return np.asarray(rows, dtype=np.uint32)  # datasketch's values are < 2**32


@lru_cache(maxsize=32)
def lsh_bands(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows per band) minimising false positives + false negatives around `threshold` (as datasketch)."""
    grid = np.linspace(0.0, 1.0, 1001)
    best, best_error = (1, num_perm), float("inf")
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            hit = 1.0 - (1.0 - grid**rows) ** bands  # probability that a pair of similarity s is a candidate
            below, above = grid <= threshold, grid >= threshold
            error = _area(hit[below], grid[below]) + _area(1.0 - hit[above], grid[above])
            if error < best_error:
                best, best_error = (bands, rows), error
    return best


def _area(y: np.ndarray, x: np.ndarray) -> float:
    return float(np.sum((y[1:] + y[:-1]) * np.diff(x)) / 2)


def lsh_threshold(params: DedupParams) -> float:
    # LSH below the threshold so pairs just above it are rarely missed; each candidate is then checked
    return max(0.1, params.cluster_threshold - 0.2)


def pair_keys(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """Pairs (i, j) of positions below `n` as one int64 each, ordered as the pairs are (i first, then j)."""
    return i.astype(np.int64) * n + j.astype(np.int64)


def pairs_of(keys: np.ndarray, n: int) -> np.ndarray:
    """The (len(keys), 2) pairs of `pair_keys`, as 32-bit positions where `n` allows (half the memory: a 10x input
    has millions of candidate pairs), computed a block of keys at a time."""
    pairs = np.empty((len(keys), 2), dtype=np.int32 if n < 2**31 else np.int64)
    for lo in range(0, len(keys), 1 << 20):
        block = keys[lo : lo + (1 << 20)]
        pairs[lo : lo + len(block), 0], pairs[lo : lo + len(block), 1] = np.divmod(block, n)
    return pairs


def band_pairs(sigs: np.ndarray, rows: int, bands: range) -> np.ndarray:
    """Phase 2: the candidate pairs (i < j, sorted, unique) that share a bucket in one of `bands`."""
    return pairs_of(band_pair_keys(sigs, rows, bands), len(sigs))


@lru_cache(maxsize=256)
def _pairs_in(length: int) -> tuple[np.ndarray, np.ndarray]:
    """np.triu_indices(length, k=1): every pair of a bucket of `length` stories (computed once per length)."""
    return np.triu_indices(length, k=1)


def band_pair_keys(sigs: np.ndarray, rows: int, bands: range) -> np.ndarray:
    """`band_pairs` as sorted unique `pair_keys`, merged a band at a time (a 1-D sort of the band's pairs, then a
    linear merge): never every band's copies at once, nor a copy per row."""
    merged = np.zeros(0, dtype=np.int64)
    for band in bands:
        merged = merge_sorted(merged, _band_keys(sigs, rows, band))
    return merged


def merge_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.union1d of two sorted, unique arrays, in linear time: a stable sort (timsort) merges the two runs it finds."""
    merged = np.concatenate((a, b))
    merged.sort(kind="stable")
    return merged[np.concatenate(([True], merged[1:] != merged[:-1]))] if len(merged) else merged


def _band_keys(sigs: np.ndarray, rows: int, band: int) -> np.ndarray:
    """The sorted unique `pair_keys` of the stories that share a bucket in `band`."""
    n = len(sigs)
    found: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
    # a 64-bit key per band: a collision only adds a candidate, and every candidate is checked later
    keys = np.zeros(len(sigs), dtype=np.uint64)
    for column in range(band * rows, (band + 1) * rows):
        keys = keys * np.uint64(0x9E3779B97F4A7C15) + sigs[:, column].astype(np.uint64)
    _, inverse, sizes = np.unique(keys, return_inverse=True, return_counts=True)
    shared = np.flatnonzero(sizes[inverse] > 1)
    if not len(shared):
        return found[0]
    order = shared[np.argsort(inverse[shared], kind="stable")]
    starts = np.flatnonzero(np.diff(inverse[order], prepend=-1))
    lengths = np.diff(starts, append=len(order))
    two = starts[lengths == 2]  # most buckets hold a pair: no loop for them
    found.append(pair_keys(order[two], order[two + 1], n))
    for start, length in zip(starts[lengths > 2].tolist(), lengths[lengths > 2].tolist()):
        group = order[start : start + length]
        i, j = _pairs_in(length)
        found.append(pair_keys(group[i], group[j], n))
    return np.unique(np.concatenate(found))


PAIRS_AT_ONCE = 1 << 12  # candidate pairs checked at a time: 2 x 4,096 x num_perm signature values (4 MiB)


def similarity(sigs: np.ndarray, i: np.ndarray | int, j: np.ndarray | int) -> np.ndarray:
    """Estimated Jaccard: the share of equal signature values."""
    return (sigs[i] == sigs[j]).mean(axis=-1)


@dataclass
class NearDuplicates:
    """For each story (by position): its cluster root position and the similarity to that root."""

    cluster_of: list[int]  # position of the best copy of its cluster (itself when alone or best)
    duplicate_of: list[int | None]  # position of the better copy it near-duplicates, if rejected
    similarity: list[float | None]  # estimated Jaccard with that better copy


def cluster_and_filter(
    sigs: np.ndarray, pairs: np.ndarray, rank: Callable[[int], tuple], params: DedupParams = DedupParams()
) -> NearDuplicates:
    """Phases 3 and 4: clusters of the checked candidate pairs; reject each copy too close to a better kept one."""
    n = len(sigs)
    checked = [np.zeros((0, 2), dtype=pairs.dtype)]
    for lo in range(0, len(pairs), PAIRS_AT_ONCE):  # a run at a time: each pair's two signatures are gathered
        run = pairs[lo : lo + PAIRS_AT_ONCE]
        checked.append(run[similarity(sigs, run[:, 0], run[:, 1]) >= params.cluster_threshold])
    members: dict[int, list[int]] = {}
    for i, root in enumerate(components(n, np.concatenate(checked)).tolist()):
        members.setdefault(root, []).append(i)
    near = NearDuplicates(list(range(n)), [None] * n, [None] * n)
    for group in members.values():
        if len(group) > 1:
            _filter_cluster(sigs, sorted(group, key=rank), params.reject_threshold, near)
    return near


def components(n: int, edges: np.ndarray) -> np.ndarray:
    """For each of `n` positions, the smallest position connected to it by `edges` (k x 2 positions): the root a
    union-find that always hangs the larger root under the smaller finds, computed for every edge at once."""
    labels = np.arange(n, dtype=edges.dtype)
    while len(edges):
        # each position takes the smallest label among its own and its neighbours' (a label stays in the component)
        low = np.minimum(labels[edges[:, 0]], labels[edges[:, 1]])
        new = labels.copy()
        np.minimum.at(new, edges[:, 0], low)
        np.minimum.at(new, edges[:, 1], low)
        while not np.array_equal(new[new], new):  # pointer jumping: to the label of the label
            new = new[new]
        if np.array_equal(new, labels):
            break
        labels = new
    return labels


GROUP_AT_ONCE = 256  # a cluster up to this size has its similarities computed at once (256 x 256 x num_perm bytes)


def _filter_cluster(sigs: np.ndarray, ordered: list[int], threshold: float, near: NearDuplicates) -> None:
    """One cluster, best copy first: each copy goes if it is a near-copy of a better copy that stays (`near` gains its
    cluster root, and for a copy that goes, that better copy and their similarity)."""
    # the similarities of every pair at once where the cluster is small: the values similarity() gives one by one
    group = sigs[ordered] if len(ordered) <= GROUP_AT_ONCE else None
    table = (group[:, None, :] == group[None, :, :]).mean(axis=-1) if group is not None else None
    kept = [0]  # positions in `ordered`
    positions = np.asarray(ordered)  # once: a large cluster's copies index it one by one
    for i in ordered:
        near.cluster_of[i] = ordered[0]
    for k in range(1, len(ordered)):
        scores = table[k, kept] if table is not None else similarity(sigs, ordered[k], positions[kept])
        best = int(np.argmax(scores))
        if scores[best] >= threshold:
            near.duplicate_of[ordered[k]], near.similarity[ordered[k]] = (
                ordered[kept[best]],
                round(float(scores[best]), 3),
            )
        else:
            kept.append(k)


def find_near_duplicates(
    texts: Sequence[str], langs: Sequence[str], rank: Callable[[int], tuple], params: DedupParams = DedupParams()
) -> NearDuplicates:
    """All phases in this process. `rank(i)` orders copies: the smallest rank is the best copy."""
    sigs = signatures(texts, langs, params)
    bands, rows = lsh_bands(lsh_threshold(params), params.num_perm)
    return cluster_and_filter(sigs, band_pairs(sigs, rows, range(bands)), rank, params)
