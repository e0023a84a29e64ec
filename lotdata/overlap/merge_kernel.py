"""The compiled k-way merge of suffix-array runs and the LCP arrays it uses (numba; imported by index tasks).

Each run is the slice of one shard's suffix array for a range of first words, as offsets into the segment's
token array (the shards' global word ids back to back, each shard ending with the separator 0). Suffixes are
compared word by word up to the first separator (a query never holds one, so that order answers every
query); equal keys keep the shard order, so the first occurrence of an n-gram is still the smallest offset.

The merge is an LCP-aware tournament (loser) tree (Bingmann, Eberle and Sanders' LCP merge): each shard brings
the longest common prefix of each suffix with the one before it (`lcp_array`, Kasai's algorithm stopping at a
separator), each node keeps its loser's common prefix with the node's winner, and a comparison starts after the
words two suffixes are known to share, or is decided by those lengths alone. Text with long repeated passages
(the generated benchmark text: adjacent suffixes share 30 words at the median) costs a word or two a comparison
instead of the whole shared passage read at random places (bench/index_scale.md). Lengths are capped at
`LCP_CAP` (a stored uint16); at the cap the words are compared again from the cap, so the order is exact
(the tests use a cap of a few words).
"""

from __future__ import annotations

import numba
import numpy as np

LCP_CAP = 65535


@numba.njit(cache=True, nogil=True)
def lcp_array(tokens, sa, cap=LCP_CAP):
    """lcp[k]: the words suffix sa[k] shares with sa[k - 1] before a separator (0 for k = 0), capped at `cap`."""
    n = len(sa)
    rank = np.empty(n, dtype=np.int64)
    for k in range(n):
        rank[sa[k]] = k
    lcp = np.zeros(n, dtype=np.uint16)
    h = 0
    for i in range(n):
        k = rank[i]
        if k == 0:
            h = 0
            continue
        j = sa[k - 1]
        while i + h < n and j + h < n and tokens[i + h] == tokens[j + h] and tokens[i + h] != 0:
            h += 1
        lcp[k] = min(h, cap)
        if h > 0:
            h -= 1
    return lcp


@numba.njit(cache=True, nogil=True)
def _match(tokens, runs, cur, done, a, b, h, cap):
    """Whether run a's head sorts before run b's, and their common prefix, comparing from word h (both share h
    words): an exhausted run after every other, equal keys by run number."""
    if done[a]:
        return (False if not done[b] else a < b), 0
    if done[b]:
        return True, 0
    x = runs[cur[a]] + h
    y = runs[cur[b]] + h
    while True:
        tx = tokens[x]
        ty = tokens[y]
        if tx != ty:
            return tx < ty, min(h, cap)
        if tx == 0:
            return a < b, min(h, cap)
        x += 1
        y += 1
        h += 1


@numba.njit(cache=True, nogil=True)
def _first_round(tokens, runs, cur, done, size, cap):
    """Play the tournament once: each node's loser and its common prefix with the node's winner; the winner."""
    winners = np.empty(2 * size, dtype=np.int64)
    losers = np.empty(size, dtype=np.int64)
    shared = np.zeros(size, dtype=np.int64)
    for r in range(size):
        winners[size + r] = r
    for node in range(size - 1, 0, -1):
        a = winners[2 * node]
        b = winners[2 * node + 1]
        first, h = _match(tokens, runs, cur, done, a, b, 0, cap)
        winners[node], losers[node] = (a, b) if first else (b, a)
        shared[node] = h
    return losers, shared, winners[1]


@numba.njit(cache=True, nogil=True)
def merge_runs(tokens, runs, lcps, bounds, cap=LCP_CAP):
    """Merge the sorted runs runs[bounds[r]:bounds[r + 1]] (offsets into `tokens`; lcps[i]: the common prefix of
    runs[i] with runs[i - 1] in its run, capped at `cap` as `lcp_array` caps it) into one sorted array."""
    k = len(bounds) - 1
    total = bounds[k] - bounds[0]
    out = np.empty(total, dtype=np.int64)
    size = 1
    while size < k:
        size *= 2
    cur = np.zeros(size, dtype=np.int64)
    done = np.ones(size, dtype=np.bool_)
    for r in range(k):
        cur[r] = bounds[r]
        done[r] = bounds[r] >= bounds[r + 1]
    losers, shared, winner = _first_round(tokens, runs, cur, done, size, cap)
    for j in range(total):
        r = winner
        out[j] = runs[cur[r]]
        cur[r] += 1
        done[r] = cur[r] == bounds[r + 1]
        h = 0 if done[r] else np.int64(lcps[cur[r]])  # the candidate's common prefix with the suffix just written
        node = (size + r) // 2
        while node >= 1:
            other = losers[node]
            held = shared[node]  # the loser's common prefix with the suffix just written
            if done[r]:
                if not done[other] or other < r:
                    losers[node], shared[node], r, h = r, 0, other, held
            elif held > h:  # the loser agrees longer with what was written: it comes first
                losers[node], shared[node], r, h = r, h, other, held
            elif held == h:
                first, common = _match(tokens, runs, cur, done, other, r, h, cap)
                shared[node] = common
                if first:
                    losers[node], r = r, other
            node //= 2  # held < h: the candidate comes first; the node keeps its loser
        winner = r
    return out
