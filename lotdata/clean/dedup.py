"""Exact and near-duplicate detection across sources (MinHash LSH, datasketch).

Two thresholds on the estimated Jaccard similarity of character shingles:

- at or above `reject_threshold` a story is a near-copy of a better one and is rejected;
- at or above `cluster_threshold` stories are related (two retellings of one fable, say): all are
  kept and share a `cluster_id`, which the builders use to keep a cluster inside one split.

Clusters are connected components of the LSH candidate pairs whose estimated similarity passes
the threshold; the id of a cluster is the story_id of its best copy, so it is stable across runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from lotdata.errors import require


@dataclass(frozen=True)
class DedupParams:
    shingle: int = 5  # characters per shingle (Chinese); words for English
    num_perm: int = 128
    cluster_threshold: float = 0.5
    reject_threshold: float = 0.8
    seed: int = 1


def shingles(text: str, lang: str, size: int) -> set[str]:
    if lang == "en":
        words = text.lower().split()
        grams = {" ".join(words[i:i + size]) for i in range(max(1, len(words) - size + 1))}
    else:
        chars = "".join(ch for ch in text if ch.isalnum())  # punctuation differences do not count
        grams = {chars[i:i + size] for i in range(max(1, len(chars) - size + 1))}
    return {g for g in grams if g}


def minhashes(texts: Sequence[str], langs: Sequence[str], params: DedupParams) -> list:
    datasketch = require("datasketch", "sources")
    out = []
    for text, lang in zip(texts, langs):
        m = datasketch.MinHash(num_perm=params.num_perm, seed=params.seed)
        grams = shingles(text, lang, params.shingle)
        if grams:
            m.update_batch([g.encode("utf-8") for g in grams])
        out.append(m)
    return out


@dataclass
class NearDuplicates:
    """For each story (by position): its cluster root position and the similarity to that root."""

    cluster_of: list[int]  # position of the best copy of its cluster (itself when alone or best)
    duplicate_of: list[int | None]  # position of the better copy it near-duplicates, if rejected
    similarity: list[float | None]  # estimated Jaccard with that better copy


def find_near_duplicates(texts: Sequence[str], langs: Sequence[str], rank: Callable[[int], tuple],
                         params: DedupParams = DedupParams()) -> NearDuplicates:
    """Cluster near-duplicates. `rank(i)` orders copies: the smallest rank is the best copy."""
    datasketch = require("datasketch", "sources")
    hashes = minhashes(texts, langs, params)
    # LSH below the threshold so pairs just above it are rarely missed; each candidate is then checked
    lsh = datasketch.MinHashLSH(threshold=max(0.1, params.cluster_threshold - 0.2), num_perm=params.num_perm)
    for i, m in enumerate(hashes):
        lsh.insert(i, m, check_duplication=False)
    parent = list(range(len(texts)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, m in enumerate(hashes):
        for j in lsh.query(m):
            if j <= i:
                continue
            if hashes[i].jaccard(hashes[j]) >= params.cluster_threshold:
                a, b = find(i), find(j)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    members: dict[int, list[int]] = {}
    for i in range(len(texts)):
        members.setdefault(find(i), []).append(i)
    cluster_of = list(range(len(texts)))
    duplicate_of: list[int | None] = [None] * len(texts)
    similarity: list[float | None] = [None] * len(texts)
    for group in members.values():
        ordered = sorted(group, key=rank)
        best = ordered[0]
        kept: list[int] = [best]
        for i in group:
            cluster_of[i] = best
        for i in ordered[1:]:
            # a copy goes if it is a near-copy of any better copy that stays
            sims = [(hashes[i].jaccard(hashes[k]), k) for k in kept]
            sim, k = max(sims)
            if sim >= params.reject_threshold:
                duplicate_of[i], similarity[i] = k, round(float(sim), 3)
            else:
                kept.append(i)
    return NearDuplicates(cluster_of, duplicate_of, similarity)
