"""The compiled k-way merge of suffix-array runs (numba; imported only by a compaction task).

Each run is the slice of one shard's suffix array for a range of first words, as offsets into the segment's
token array (the shards' global word ids back to back, each shard ending with the separator 0). Suffixes are
compared word by word up to the first separator (a query never holds one, so that order answers every
query); equal keys keep the shard order, so the first occurrence of an n-gram is still the smallest offset.

A tournament (loser) tree picks the next suffix with log2(k) comparisons; the first eight words of each run's
head are kept packed in four integers, so most comparisons read no token (one cache miss per suffix output).
"""

from __future__ import annotations

import numba
import numpy as np

WORDS = 8  # words of each head kept packed, two to an integer


@numba.njit(cache=True, nogil=True)
def _load(tokens, at, keys, ended, r):
    """Pack the first WORDS words from `at` into keys[r] (zeros after a separator) and note if one was seen."""
    seen = False
    for i in range(WORDS // 2):
        hi = np.uint64(0)
        lo = np.uint64(0)
        if not seen:
            t = tokens[at + 2 * i]
            if t == 0:
                seen = True
            else:
                hi = np.uint64(t)
                t = tokens[at + 2 * i + 1]
                if t == 0:
                    seen = True
                else:
                    lo = np.uint64(t)
        keys[r, i] = (hi << np.uint64(32)) | lo
    ended[r] = seen


@numba.njit(cache=True, nogil=True)
def _less(tokens, runs, cur, keys, ended, done, a, b):
    """Whether run a's head sorts before run b's: an exhausted run after every other, ties by run number."""
    if done[a]:
        return False if not done[b] else a < b
    if done[b]:
        return True
    for i in range(WORDS // 2):
        if keys[a, i] != keys[b, i]:
            return keys[a, i] < keys[b, i]
    if ended[a]:  # equal keys that both stop at a separator
        return a < b
    x = runs[cur[a]] + WORDS
    y = runs[cur[b]] + WORDS
    while True:
        tx = tokens[x]
        ty = tokens[y]
        if tx != ty:
            return tx < ty
        if tx == 0:
            return a < b
        x += 1
        y += 1


@numba.njit(cache=True, nogil=True)
def _first_round(tokens, runs, cur, keys, ended, done, size):
    """Play the tournament once: the losers of each match (losers[node]) and the overall winner."""
    winners = np.empty(2 * size, dtype=np.int64)
    losers = np.empty(size, dtype=np.int64)
    for r in range(size):
        winners[size + r] = r
    for node in range(size - 1, 0, -1):
        a = winners[2 * node]
        b = winners[2 * node + 1]
        if _less(tokens, runs, cur, keys, ended, done, a, b):
            winners[node] = a
            losers[node] = b
        else:
            winners[node] = b
            losers[node] = a
    return losers, winners[1]


@numba.njit(cache=True, nogil=True)
def merge_runs(tokens, runs, bounds):
    """Merge the sorted runs runs[bounds[r]:bounds[r + 1]] (offsets into `tokens`) into one sorted array."""
    k = len(bounds) - 1
    total = bounds[k] - bounds[0]
    out = np.empty(total, dtype=np.int64)
    size = 1
    while size < k:
        size *= 2
    cur = np.zeros(size, dtype=np.int64)
    keys = np.zeros((size, WORDS // 2), dtype=np.uint64)
    ended = np.zeros(size, dtype=np.bool_)
    done = np.ones(size, dtype=np.bool_)
    for r in range(k):
        cur[r] = bounds[r]
        if bounds[r] < bounds[r + 1]:
            done[r] = False
            _load(tokens, runs[bounds[r]], keys, ended, r)
    losers, winner = _first_round(tokens, runs, cur, keys, ended, done, size)
    for j in range(total):
        r = winner
        out[j] = runs[cur[r]]
        cur[r] += 1
        if cur[r] == bounds[r + 1]:
            done[r] = True
        else:
            _load(tokens, runs[cur[r]], keys, ended, r)
        node = (size + r) // 2
        while node >= 1:
            other = losers[node]
            if _less(tokens, runs, cur, keys, ended, done, other, r):
                losers[node] = r
                r = other
            node //= 2
        winner = r
    return out
