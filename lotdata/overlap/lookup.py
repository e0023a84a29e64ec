"""`lotdata overlap TEST... --index IDX`: the streaming figures, answered from a built index.

Every test position is one query: the test words from there to the end of their segment. A vectorised binary
search over each shard's suffix array (all queries of all test sets at once, numpy gathers from the memory-
mapped files) finds where the query would sit; the suffixes beside that place share the longest prefix with it.
With the query capped at n words this gives, for every position, whether its n-gram occurs (and every shorter
n'-gram: counts per n), and the first occurrence of each found n-gram (shard order, then text order: the
document streaming `overlap` names). The longest match per example is then searched without a cap from the
positions where a run of found n-grams starts, and from any other found position that could still beat it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lotdata.errors import LotdataError
from lotdata.overlap.contamination import Buckets
from lotdata.overlap.index import LoadedIndex, LoadedShard, gather
from lotdata.overlap.measure import (
    OverlapResult,
    Segment,
    _example_record,
    check_has_grams,
    index_test_set,
    split_summary,
)
from lotdata.overlap.testset import TestSet
from lotdata.overlap.texts import TokenSpec
from lotdata.schema import OVERLAP_EXAMPLES

UNKNOWN = np.int64(1 << 33)  # a test word the references never use: it matches nothing


# ------------------------------------------------------------------------------------------ searching


def _take(shard: LoadedShard, array: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """`array[idx]` with the shard's parallel reads (an index read from disk: the gathers' page faults served
    together)."""
    return gather(array, idx, shard.parallel_reads)


def _starts(shard: LoadedShard, slots: np.ndarray) -> np.ndarray:
    """The text offsets of suffix-array `slots`."""
    return np.asarray(_take(shard, shard.sa, slots), dtype=np.int64)


def _compare(
    shard: LoadedShard, starts: np.ndarray, query: np.ndarray, qpos: np.ndarray, caps: np.ndarray, skip: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(sign, lcp) of each suffix `starts[i]` against the query `query[qpos[i]: qpos[i] + caps[i]]`:
    sign -1 when the suffix sorts before the query, +1 after, 0 when the query is a prefix of the suffix.
    The first `skip` words are known to be equal."""
    tokens, length = shard.tokens, len(shard.tokens)
    m = len(starts)
    sign = np.zeros(m, dtype=np.int8)
    lcp = np.zeros(m, dtype=np.int64)
    active = np.arange(m)
    offset, block = skip, 2
    while len(active):
        steps = offset + np.arange(block)
        t = _take(shard, tokens, np.minimum(starts[active, None] + steps, length - 1)).astype(np.int64)
        q = query[np.minimum(qpos[active, None] + steps, len(query) - 1)]
        valid = steps[None, :] < caps[active, None]
        differ = (t != q) & valid
        stop = differ | ~valid
        has = stop.any(axis=1)
        j = stop.argmax(axis=1)
        done = active[has]
        jd = j[has]
        rows = np.flatnonzero(has)
        lcp[done] = offset + jd
        real = differ[rows, jd]
        sign[done[real]] = np.where(t[rows[real], jd[real]] < q[rows[real], jd[real]], -1, 1)
        active = active[~has]
        offset += block
        block = min(block * 2, 1024)  # long matches take few rounds
    return sign, lcp


def _search(
    shard: LoadedShard,
    query: np.ndarray,
    qpos: np.ndarray,
    caps: np.ndarray,
    *,
    right: bool,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """For each query, the first suffix-array slot whose suffix sorts after it (right) or not before it (left),
    searched inside its first word's range (or `bounds`)."""
    skip = 1 if bounds is None else 0  # inside a first word's range its first word is known to match
    if bounds is None:
        lo, hi = _first_word_range(shard, query[qpos])
        done = caps <= 1  # a one-word query: its range is the answer
        if right:
            lo[done] = hi[done]
        hi[done] = lo[done]
    else:
        lo, hi = bounds
    while True:
        idx = np.flatnonzero(lo < hi)
        if not len(idx):
            return lo
        mid = (lo[idx] + hi[idx]) // 2
        sign, _ = _compare(shard, _starts(shard, mid), query, qpos[idx], caps[idx], skip=skip)
        go_right = sign <= 0 if right else sign < 0
        lo[idx[go_right]] = mid[go_right] + 1
        hi[idx[~go_right]] = mid[~go_right]


def _first_word_range(shard: LoadedShard, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The slots of the suffix array whose suffixes start with each query's first word (empty: where it would be)."""
    k = np.searchsorted(shard.first_ids, first)
    present = k < len(shard.first_ids)
    present[present] = shard.first_ids[k[present]] == first[present]
    lo = shard.first_starts[k].copy()
    hi = np.where(present, shard.first_starts[np.minimum(k + 1, len(shard.first_starts) - 1)], lo)
    return lo, hi


def _upper(shard: LoadedShard, query: np.ndarray, qpos: np.ndarray, caps: np.ndarray, first: np.ndarray) -> np.ndarray:
    """The slot after the last suffix starting with each query, given `first`, the slot of the first one: galloping
    from there (1, 2, 4... slots), so an n-gram found k times costs about 2 log2(k) comparisons."""
    good, bad = first.copy(), np.full(len(first), len(shard.sa), dtype=np.int64)
    step = np.ones(len(first), dtype=np.int64)
    active = np.arange(len(first))
    while len(active):
        probe = good[active] + step[active]
        inside = probe < len(shard.sa)
        active, probe = active[inside], probe[inside]
        if not len(active):
            break
        sign, _ = _compare(shard, _starts(shard, probe), query, qpos[active], caps[active])
        match = sign == 0
        good[active[match]] = probe[match]
        step[active[match]] *= 2
        bad[active[~match]] = probe[~match]
        active = active[match]
    return _search(shard, query, qpos, caps, right=True, bounds=(good + 1, bad))


def _longest(
    shard: LoadedShard, query: np.ndarray, qpos: np.ndarray, caps: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(length, text offset) of the longest prefix (at most `caps`) of each query found in the shard, and the
    slot where the query would sit in the suffix array."""
    slot = _search(shard, query, qpos, caps, right=False)
    best = np.zeros(len(qpos), dtype=np.int64)
    where = np.full(len(qpos), -1, dtype=np.int64)
    for neighbour in (slot - 1, slot):
        ok = np.flatnonzero((neighbour >= 0) & (neighbour < len(shard.sa)))
        starts = _starts(shard, neighbour[ok])
        _, lcp = _compare(shard, starts, query, qpos[ok], caps[ok])
        better = lcp > best[ok]
        best[ok[better]] = lcp[better]
        where[ok[better]] = starts[better]
    return best, where, slot


def count(index: LoadedIndex, words: list[str]) -> int:
    """Occurrences of one word n-gram in the references (inside documents and segments)."""
    ids = _word_ids(index, words)
    qpos, caps = np.array([0]), np.array([len(ids)])
    total = 0
    for shard in index.shards:
        lo = _search(shard, ids, qpos, caps, right=False)
        if lo[0] < len(shard.sa) and _compare(shard, _starts(shard, lo), ids, qpos, caps)[0][0] == 0:
            total += int(_upper(shard, ids, qpos, caps, lo)[0] - lo[0])
    return total


def count_many(index: LoadedIndex, grams: list[list[str]]) -> np.ndarray:
    """Occurrences of each word n-gram (all of one length or not), answered together: one vectorised search."""
    if not grams:
        return np.zeros(0, dtype=np.int64)
    words = [w for g in grams for w in g]
    ids = np.concatenate([_word_ids(index, words), [UNKNOWN]])
    caps = np.asarray([len(g) for g in grams], dtype=np.int64)
    qpos = np.concatenate(([0], np.cumsum(caps)[:-1])).astype(np.int64)
    total = np.zeros(len(grams), dtype=np.int64)
    for shard in index.shards:
        lo = _search(shard, ids, qpos, caps, right=False)
        inside = np.flatnonzero(lo < len(shard.sa))
        sign, _ = _compare(shard, _starts(shard, lo[inside]), ids, qpos[inside], caps[inside])
        rows = inside[sign == 0]
        if len(rows):
            total[rows] += _upper(shard, ids, qpos[rows], caps[rows], lo[rows]) - lo[rows]
    return total


def word_counts(index: LoadedIndex, ids: np.ndarray) -> np.ndarray:
    """How often each word id occurs in the references (the size of its first-word range, over the segments)."""
    total = np.zeros(len(ids), dtype=np.int64)
    for seg in index.shards:
        if not len(seg.first_ids):
            continue
        k = np.minimum(np.searchsorted(seg.first_ids, ids), len(seg.first_ids) - 1)
        present = seg.first_ids[k] == ids
        total += np.where(present, seg.first_starts[k + 1] - seg.first_starts[k], 0)
    return total


def gram_weights(index: LoadedIndex, q: "Queries", n: int) -> np.ndarray:
    """Per query position, the weight of its n-gram: the mean idf of its words (`contamination.idf_of_counts`)."""
    from lotdata.overlap.contamination import idf_of_counts

    idf = idf_of_counts(word_counts(index, q.words), int(index.manifest["totals"]["tokens"]))
    cumulative = np.concatenate(([0.0], np.cumsum(idf)))
    end = np.minimum(q.pos + n, len(q.words))
    return (cumulative[end] - cumulative[q.pos]) / n


def _word_ids(index: LoadedIndex, words: list[str]) -> np.ndarray:
    """Global ids (int64) of test words; UNKNOWN for a word the references never use."""
    found = pc.fill_null(pc.index_in(pa.array(words, pa.string()), value_set=index.vocab), -1)
    ids = found.to_numpy(zero_copy_only=False).astype(np.int64)
    return np.where(ids < 0, UNKNOWN, ids + 1)


# ------------------------------------------------------------------------------------------ one batch


@dataclass
class Queries:
    """Every test position of every test set: its words to the end of its segment, in one array."""

    words: np.ndarray  # int64 ids, segments back to back
    pos: np.ndarray  # start of each query in `words`
    rest: np.ndarray  # words from there to the end of its segment
    gram: np.ndarray  # the test n-gram index at this position (-1: fewer than n words left)
    example: np.ndarray  # the example (running number over all test sets) the position belongs to


def _queries(index: LoadedIndex, segments_by_test: list[dict[str, list[list[Segment]]]], offsets: list[int]) -> Queries:
    tokens: list[str] = []
    pos, rest, gram, example = [], [], [], []
    number = 0
    for segments, gram_offset in zip(segments_by_test, offsets):
        for split_segments in segments.values():
            for segs in split_segments:
                for seg in segs:
                    start = len(tokens)
                    tokens.extend(seg.tokens)
                    k = len(seg.tokens)
                    pos.extend(range(start, start + k))
                    rest.extend(range(k, 0, -1))
                    grams = [g + gram_offset for g in seg.grams]
                    gram.extend(grams + [-1] * (k - len(grams)))
                    example.extend([number] * k)
                number += 1
    words = _word_ids(index, tokens) if tokens else np.zeros(0, dtype=np.int64)
    words = np.concatenate([words, [UNKNOWN]])  # a guard past the end
    as_array = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
    return Queries(words, as_array(pos), as_array(rest), as_array(gram), as_array(example))


@dataclass
class Found:
    prefix: np.ndarray  # per position: longest match, at most n words (counts per n)
    first: dict[int, tuple[int, int]]  # test n-gram -> (shard, text offset) of its first occurrence
    longest: np.ndarray  # per position: longest match (exact where it can be the example's longest)
    longest_at: np.ndarray  # per position: (shard << 40) + text offset of that match, -1 when none


def find_all(index: LoadedIndex, q: Queries, n: int) -> Found:
    """Counts per n, first occurrences and longest matches for every query, shard after shard."""
    caps = np.minimum(q.rest, n)
    prefix = np.zeros(len(q.pos), dtype=np.int64)
    prefix_at = np.full(len(q.pos), -1, dtype=np.int64)
    first: dict[int, tuple[int, int]] = {}
    for number, shard in enumerate(index.shards):
        rows = np.flatnonzero(prefix < caps)  # a position already matched in full needs no later shard
        if not len(rows):
            break
        best, where, slot = _longest(shard, q.words, q.pos[rows], caps[rows])
        better = best > prefix[rows]
        prefix[rows[better]] = best[better]
        prefix_at[rows[better]] = (number << 40) + where[better]
        grams = q.gram[rows]
        todo = [k for k in _distinct(grams, np.flatnonzero((best >= n) & (grams >= 0))) if int(grams[k]) not in first]
        if todo:
            local = np.asarray(todo, dtype=np.int64)
            found = rows[local]
            lo = slot[local]  # the query there is the n-gram itself: its first slot
            hi = _upper(shard, q.words, q.pos[found], caps[found], lo)
            for i, start in zip(found.tolist(), _range_min(shard.sa, lo, hi).tolist()):
                first[int(q.gram[i])] = (number, start)
    longest, longest_at = prefix.copy(), prefix_at.copy()
    _longest_matches(index, q, (prefix >= n) & (q.rest >= n), n, longest, longest_at)
    return Found(prefix, first, longest, longest_at)


def _distinct(gram: np.ndarray, rows: np.ndarray) -> list[int]:
    """One position per distinct n-gram among `rows`."""
    if not len(rows):
        return []
    _, keep = np.unique(gram[rows], return_index=True)
    return rows[keep].tolist()


def _range_min(sa: np.ndarray, lo: np.ndarray, hi: np.ndarray, small: int = 64, chunk: int = 1 << 22) -> np.ndarray:
    """min(sa[lo[i]:hi[i]]) for each (non-empty) range: the first occurrence in text order."""
    out = np.empty(len(lo), dtype=np.int64)
    short = np.flatnonzero(hi - lo <= small)
    if len(short):
        slots = lo[short, None] + np.arange(small)
        inside = slots < hi[short, None]
        values = np.asarray(sa[np.minimum(slots, len(sa) - 1)], dtype=np.int64)
        out[short] = np.where(inside, values, np.iinfo(np.int64).max).min(axis=1)
    for i in np.flatnonzero(hi - lo > small).tolist():
        a, b = int(lo[i]), int(hi[i])
        out[i] = min(int(np.min(sa[s : min(s + chunk, b)])) for s in range(a, b, chunk))
    return out


def _run_ends(q: Queries, found: np.ndarray, n: int) -> np.ndarray:
    """For each found position, where its run of consecutive found n-grams ends (+ n - 1 words)."""
    end = np.zeros(len(found), dtype=np.int64)
    next_end = 0
    for i in range(len(found) - 1, -1, -1):
        if not found[i]:
            continue
        same_run = i + 1 < len(found) and found[i + 1] and q.pos[i + 1] == q.pos[i] + 1 and q.rest[i] > 1
        next_end = next_end if same_run else int(q.pos[i]) + n
        end[i] = next_end
    return end


def _longest_matches(
    index: LoadedIndex, q: Queries, found_n: np.ndarray, n: int, longest: np.ndarray, at: np.ndarray
) -> None:
    """Extend `longest` (so far: at most n words) past n where a longer match may start: the start of each run of
    found n-grams first, then any found position whose run could still beat its example's longest."""
    if not found_n.any():
        return
    ends = _run_ends(q, found_n, n)
    caps = np.where(found_n, np.minimum(q.rest, ends - q.pos), 0)
    continues = np.concatenate(([False], found_n[:-1] & (q.rest[:-1] > 1)))
    starts = np.flatnonzero(found_n & ~continues)
    _extend(index, q, starts, caps, longest, at)
    best = np.zeros(int(q.example.max()) + 1, dtype=np.int64)
    np.maximum.at(best, q.example, longest)
    others = np.setdiff1d(np.flatnonzero(found_n & (caps > best[q.example])), starts)
    _extend(index, q, others, caps, longest, at)


def _extend(
    index: LoadedIndex, q: Queries, rows: np.ndarray, caps: np.ndarray, longest: np.ndarray, at: np.ndarray
) -> None:
    if not len(rows):
        return
    for number, shard in enumerate(index.shards):
        rows = rows[longest[rows] < caps[rows]]  # matched to its cap: no later shard can do better
        if not len(rows):
            return
        best, where, _ = _longest(shard, q.words, q.pos[rows], caps[rows])
        better = best > longest[rows]
        longest[rows[better]] = best[better]
        at[rows[better]] = (number << 40) + where[better]


# ------------------------------------------------------------------------------------------ the results


def _doc_of(shard: LoadedShard, offset: int) -> tuple[str, int]:
    """The document holding a text offset, and the offset in words from the document's start."""
    k = int(np.searchsorted(shard.starts, offset, side="right")) - 1
    return shard.docs[k], int(offset - shard.starts[k])


def check_spec(index: LoadedIndex, spec: TokenSpec) -> None:
    """A test set must be tokenised as the index was: the same tokenizer, language and punctuation rule."""
    built = index.manifest["tokens"]
    asked = {k: getattr(spec, k) for k in built}
    wrong = {k: (asked[k], built[k]) for k in built if asked[k] != built[k]}
    if wrong:
        said = "; ".join(f"{k} {a!r} here, {b!r} in the index" for k, (a, b) in wrong.items())
        raise LotdataError(
            f"{index.path / 'manifest.json'}: the test set would be tokenised differently from the index "
            f"({said}); use the index's settings or build another index"
        )


def measure_with_index(
    tests: list[TestSet], index: LoadedIndex, *, spec: TokenSpec, threshold: float = 0.1, count_ns: int | None = None
) -> list[OverlapResult]:
    """One OverlapResult per test set, all answered in one batch; the records carry the longest match too."""
    check_spec(index, spec)
    started = time.perf_counter()
    n = spec.n
    indexed = [index_test_set(test, spec) for test in tests]
    for test, (test_index, segments) in zip(tests, indexed):
        check_has_grams(test, test_index, segments, spec)
    offsets, total = [], 0
    for test_index, _ in indexed:
        offsets.append(total)
        total += len(test_index.grams)
    q = _queries(index, [segs for _, segs in indexed], offsets)
    found = find_all(index, q, n)
    weights = gram_weights(index, q, n)
    docs = {g: _doc_of(index.shards[s], off)[0] for g, (s, off) in found.first.items()}
    results = []
    position = 0
    seconds = time.perf_counter() - started
    for test, (test_index, segments), offset in zip(tests, indexed, offsets):
        hit_doc = {g - offset: d for g, d in docs.items() if offset <= g < offset + len(test_index.grams)}
        examples: dict[str, list[dict[str, Any]]] = {}
        for split, examples_of_split in test.splits.items():
            rows = []
            for ex, segs in zip(examples_of_split, segments[split]):
                record = _example_record(ex, segs, hit_doc, spec, threshold)
                size = sum(len(s.tokens) for s in segs)
                record.update(_extras(index, q, found, spec, segs, position, size, weights))
                position += size
                rows.append(record)
            examples[split] = rows
        summary = [split_summary(split, rows, threshold) for split, rows in examples.items()]
        manifest = index.manifest
        scan = {
            "index": str(index.path),
            "files": len(manifest["sources"]),
            "shards": len(index.shards),
            "shards_resumed": 0,
            "docs": manifest["totals"]["docs"],
            "chars": manifest["totals"]["chars"],
            "tokens": manifest["totals"]["tokens"],
            "bytes": manifest["totals"]["bytes"],
            "seconds": round(seconds, 3),
            "test_sets_in_batch": len(tests),
            "distinct_test_ngrams": len(test_index.grams),
            "distinct_test_ngrams_found": len(hit_doc),
        }
        results.append(OverlapResult(summary, examples, scan, [], spec, threshold))
    return results


def _extras(
    index: LoadedIndex,
    q: Queries,
    found: Found,
    spec: TokenSpec,
    segs: list[Segment],
    start: int,
    size: int,
    weights: np.ndarray,
) -> dict[str, Any]:
    """The longest match of one example (words, text, document, word offset), its counts per n and its
    idf-weighted share of overlapped n-grams."""
    n = spec.n
    sl = slice(start, start + size)
    by_n = []
    rest = q.rest[sl]
    prefix = found.prefix[sl]
    for k in range(1, n + 1):
        by_n.append({"n": k, "ngrams": int((rest >= k).sum()), "overlapped": int(((prefix >= k) & (rest >= k)).sum())})
    longest = found.longest[sl]
    valid = rest >= n
    weight = weights[sl]
    denominator = float(weight[valid].sum())
    idf_ratio = float(weight[valid & (prefix >= n)].sum()) / denominator if denominator > 0 else 0.0
    record = {
        "idf_ratio": idf_ratio,
        "longest_words": 0,
        "longest_text": "",
        "longest_doc": None,
        "longest_doc_word": None,
        "by_n": by_n,
    }
    if not size or int(longest.max()) == 0:
        return record
    i = int(longest.argmax())
    length = int(longest[i])
    words = [t for seg in segs for t in seg.tokens]
    record["longest_words"] = length
    record["longest_text"] = spec.join(words[i : i + length])
    at = int(found.longest_at[start + i])
    if at >= 0:
        doc, word = _doc_of(index.shards[at >> 40], at & ((1 << 40) - 1))
        record["longest_doc"], record["longest_doc_word"] = doc, word
    return record


# ------------------------------------------------------------------------------------------ writing

_BY_N = pa.struct([pa.field("n", pa.int64()), pa.field("ngrams", pa.int64()), pa.field("overlapped", pa.int64())])
#: examples.parquet of the index path: the streaming columns, then the longest match and the counts per n
INDEXED_EXAMPLES = pa.schema(
    [
        *OVERLAP_EXAMPLES,
        pa.field("longest_words", pa.int64(), nullable=False),  # the longest run of the example found in a reference
        pa.field("longest_text", pa.string(), nullable=False),
        pa.field("longest_doc", pa.string()),  # the reference document holding it (streaming's document ids)
        pa.field("longest_doc_word", pa.int64()),  # its first word's offset in that document, in words
        pa.field("by_n", pa.list_(_BY_N), nullable=False),  # n'-grams and overlapped n'-grams for n' = 1..n
        pa.field("idf_ratio", pa.float64(), nullable=False),  # the share, n-grams weighed by rarity (v2)
        pa.field("bucket", pa.string(), nullable=False),  # clean / suspicious / dirty (v2: --suspicious, --dirty)
    ],
    metadata=OVERLAP_EXAMPLES.metadata,
)


def split_by_n(result: OverlapResult) -> dict[str, list[dict[str, Any]]]:
    """Per split, for n' = 1..n: all n'-gram occurrences, the overlapped ones, and their share."""
    out = {}
    for split, rows in result.examples.items():
        totals = {}
        for row in rows:
            for item in row["by_n"]:
                t = totals.setdefault(item["n"], [0, 0])
                t[0] += item["ngrams"]
                t[1] += item["overlapped"]
        out[split] = [
            {"n": k, "ngrams": a, "overlapped": b, "percent": b / a if a else 0.0}
            for k, (a, b) in sorted(totals.items())
        ]
    return out


def longest_report(result: OverlapResult, top: int = 20) -> str:
    """The report's extra section: the examples with the longest match in a reference."""
    rows = sorted(
        ((split, r) for split, rs in result.examples.items() for r in rs if r["longest_words"]),
        key=lambda item: (-item[1]["longest_words"], item[0], item[1]["example_id"]),
    )[:top]
    lines = [
        "## Longest matches / 最长重叠 (from the index)",
        "",
        "| split | example | words | text | reference | word |",
        "| --- | --- | ---: | --- | --- | ---: |",
    ]
    for split, r in rows:
        text = r["longest_text"].replace("|", "\\|")
        lines.append(
            f"| {split} | {r['example_id']} | {r['longest_words']} | {text[:60]} | {r['longest_doc']} | "
            f"{r['longest_doc_word']} |"
        )
    return "\n".join(lines) + "\n"


def write_indexed(
    result: OverlapResult,
    out,
    *,
    test_path: str,
    index: LoadedIndex,
    buckets: Buckets | None = None,
    changed_references: list[str] | None = None,
):
    """Table 14, the longest matches and the contamination report v2 (`contamination`) of one test set."""
    from lotdata.overlap import contamination
    from lotdata.overlap.report import write_outputs

    buckets = buckets or contamination.Buckets()
    for rows in result.examples.values():
        for row in rows:
            row["bucket"] = buckets.of(row)
    v2 = contamination.summarise(result.examples, buckets)
    extra = {
        "by_n": split_by_n(result),
        "longest": {
            split: max((r["longest_words"] for r in rows), default=0) for split, rows in result.examples.items()
        },
    }
    if changed_references:
        extra["references_changed_since_the_index"] = changed_references  # used anyway: --trust-references
    return write_outputs(
        result,
        out,
        test_path=test_path,
        references=[s["path"] for s in index.manifest["sources"]],
        schema=INDEXED_EXAMPLES,
        extra_summary={"index": str(index.path), **extra, "contamination": v2},
        extra_report=contamination.render(v2, result.examples) + longest_report(result),
    )


__all__ = [
    "INDEXED_EXAMPLES",
    "count",
    "count_many",
    "check_spec",
    "gram_weights",
    "measure_with_index",
    "word_counts",
    "write_indexed",
]
