"""The compiled k-way merge of suffix-array runs (numba; imported only by a compaction task).

Each run is the slice of one shard's suffix array for a range of first words, as offsets into the segment's
token array (the shards' global word ids back to back, each shard ending with the separator 0). Suffixes are
compared word by word up to the first separator (a query never holds one, so that order answers every
query); equal keys keep the shard order, so the first occurrence of an n-gram is still the smallest offset.
The first four words of each run's head are kept packed in two integers, so most comparisons read no token.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _head(tokens, at):
    """The first four words from `at` packed in two uint64 (zeros after a separator), and whether one was seen."""
    words = np.zeros(4, dtype=np.uint64)
    ended = False
    for i in range(4):
        t = tokens[at + i]
        if t == 0:
            ended = True
            break
        words[i] = np.uint64(t)
    return (words[0] << np.uint64(32)) | words[1], (words[2] << np.uint64(32)) | words[3], ended


@numba.njit(cache=True, nogil=True)
def _less(tokens, runs, cur, key1, key2, ended, r1, r2):
    """Whether run r1's head sorts before run r2's (ties: the earlier run)."""
    if key1[r1] != key1[r2]:
        return key1[r1] < key1[r2]
    if key2[r1] != key2[r2]:
        return key2[r1] < key2[r2]
    if ended[r1]:  # equal keys that both stop at a separator
        return r1 < r2
    a = runs[cur[r1]] + 4
    b = runs[cur[r2]] + 4
    while True:
        ta = tokens[a]
        tb = tokens[b]
        if ta != tb:
            return ta < tb
        if ta == 0:
            return r1 < r2
        a += 1
        b += 1


@numba.njit(cache=True, nogil=True)
def merge_runs(tokens, runs, bounds):
    """Merge the sorted runs runs[bounds[r]:bounds[r + 1]] (offsets into `tokens`) into one sorted array."""
    k = len(bounds) - 1
    total = bounds[k] - bounds[0]
    out = np.empty(total, dtype=np.int64)
    cur = bounds[:k].copy()
    key1 = np.zeros(k, dtype=np.uint64)
    key2 = np.zeros(k, dtype=np.uint64)
    ended = np.zeros(k, dtype=np.bool_)
    heap = np.empty(k, dtype=np.int64)
    size = 0
    for r in range(k):
        if cur[r] >= bounds[r + 1]:
            continue
        key1[r], key2[r], ended[r] = _head(tokens, runs[cur[r]])
        heap[size] = r
        i = size
        size += 1
        while i > 0:
            parent = (i - 1) // 2
            if _less(tokens, runs, cur, key1, key2, ended, heap[i], heap[parent]):
                heap[i], heap[parent] = heap[parent], heap[i]
                i = parent
            else:
                break
    for j in range(total):
        r = heap[0]
        out[j] = runs[cur[r]]
        cur[r] += 1
        if cur[r] == bounds[r + 1]:
            size -= 1
            heap[0] = heap[size]
        else:
            key1[r], key2[r], ended[r] = _head(tokens, runs[cur[r]])
        i = 0
        while True:
            left = 2 * i + 1
            if left >= size:
                break
            m = left
            if left + 1 < size and _less(tokens, runs, cur, key1, key2, ended, heap[left + 1], heap[left]):
                m = left + 1
            if _less(tokens, runs, cur, key1, key2, ended, heap[m], heap[i]):
                heap[i], heap[m] = heap[m], heap[i]
                i = m
            else:
                break
    return out
