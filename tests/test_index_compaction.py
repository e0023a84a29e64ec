"""Compaction of `lotdata index` (issue 36): the LCP-aware merge gives the order of a plain sort, and a build
deletes each segment's shards once the segment is written, resuming without rebuilding them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lotdata.exec import ExecSettings
from lotdata.overlap import TokenSpec
from lotdata.overlap import index as index_module
from lotdata.overlap.index import build_index, suffix_array, verify_index
from lotdata.overlap.merge_kernel import LCP_CAP, lcp_array, merge_runs


def _key(tokens: np.ndarray, at: int) -> tuple[int, ...]:
    end = at
    while tokens[end] != 0:
        end += 1
    return tuple(int(t) for t in tokens[at:end])


def _shards(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Word ids with many repeated passages (the case the LCP merge is for), each shard ending with 0."""
    passages = [rng.integers(1, 6, size=int(rng.integers(1, 40))) for _ in range(12)]
    shards = []
    for s in range(count):
        docs = [np.concatenate([passages[i] for i in rng.integers(0, 12, size=int(rng.integers(1, 5)))])]
        docs += [rng.integers(1, 6, size=int(rng.integers(0, 6))) for _ in range(int(rng.integers(0, 4)))]
        parts = [np.zeros(1, dtype=np.uint32)]
        for doc in docs:
            parts += [doc.astype(np.uint32), np.zeros(1, dtype=np.uint32)]
        shards.append(np.concatenate(parts))
    return shards


@pytest.mark.parametrize("seed, cap", [(0, LCP_CAP), (1, LCP_CAP), (2, 3), (3, 1), (4, 5)])
def test_the_lcp_merge_equals_a_sort_by_key_with_ties_in_shard_order(seed: int, cap: int) -> None:
    # small caps: common prefixes past the cap (the uint16 one in real text) are compared again, the order exact
    rng = np.random.default_rng(seed)
    shards = _shards(rng, 5)
    tokens = np.concatenate(shards)
    runs, lcps, bounds, offset = [], [], [0], 0
    for shard in shards:
        sa = suffix_array(shard, int(shard.max()))
        lcp = lcp_array(shard, sa, cap)
        for k in range(1, len(sa)):  # each LCP is the key's common prefix with the one before, capped
            a, b = _key(shard, int(sa[k - 1])), _key(shard, int(sa[k]))
            common = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            assert lcp[k] == min(common, cap)
        runs.append(sa.astype(np.int64) + offset)
        lcps.append(lcp)
        bounds.append(bounds[-1] + len(sa))
        offset += len(shard)
    merged = merge_runs(tokens, np.concatenate(runs), np.concatenate(lcps), np.asarray(bounds, dtype=np.int64), cap)
    rank = {int(p): (r, i) for r, run in enumerate(runs) for i, p in enumerate(run)}
    expected = sorted(rank, key=lambda p: (_key(tokens, p), rank[p]))
    assert merged.tolist() == expected


_LINE = "第{i}行：小猫在河边钓鱼，小狗在草地上追蝴蝶，{k}只鸟飞过。\n"


def test_each_segment_deletes_its_shards_and_a_stopped_build_resumes_without_them(tmp_path: Path, monkeypatch) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(_LINE.format(i=i, k=i % 7) for i in range(6000)), encoding="utf-8")
    options = {"spec": TokenSpec(), "execution": ExecSettings(workers=1), "shard_bytes": 40_000, "progress": False}
    fresh = build_index([str(ref)], tmp_path / "fresh", segment_bytes=120_000, **options)
    assert len(fresh["segments"]) >= 3
    real, seen = index_module._build_segment, []

    def stop_at_the_second(job, number, members, files):
        if number == 1:
            parts = sorted((job.work / "parts").iterdir())
            seen.extend(p.name for p in parts)
            raise OSError(28, "No space left on device")
        return real(job, number, members, files)

    monkeypatch.setattr(index_module, "_build_segment", stop_at_the_second)
    with pytest.raises(OSError):
        build_index([str(ref)], tmp_path / "idx", segment_bytes=120_000, **options)
    first = fresh["segments"][0]["shards"]
    kept = {name.split(".", 1)[1] for name in seen if int(name[:5]) < first[1]}
    assert kept == {"vocab.parquet"}  # the first segment's shards: only their vocabulary left
    assert any(name.endswith(".tokens") and int(name[:5]) >= first[1] for name in seen)
    monkeypatch.setattr(index_module, "_build_segment", real)
    resumed = build_index([str(ref)], tmp_path / "idx", segment_bytes=120_000, **options)
    assert resumed["shards_resumed"] == len(resumed["shards"])  # no shard built twice
    assert resumed["files"] == fresh["files"]  # every file's sha256
    verify_index(tmp_path / "idx", full=True)
    # a stopped build resumed with another segment size: the deleted shards are built again
    monkeypatch.setattr(index_module, "_build_segment", stop_at_the_second)
    with pytest.raises(OSError):
        build_index([str(ref)], tmp_path / "again", segment_bytes=120_000, **options)
    monkeypatch.setattr(index_module, "_build_segment", real)
    one = build_index([str(ref)], tmp_path / "again", segment_bytes=8 << 30, **options)
    assert len(one["segments"]) == 1 and 0 < one["shards_resumed"] < len(one["shards"])
    verify_index(tmp_path / "again", full=True)
    assert one["files"] == build_index([str(ref)], tmp_path / "one", segment_bytes=8 << 30, **options)["files"]


def test_a_shard_that_lost_its_lcp_array_is_built_again_on_resume(tmp_path: Path, monkeypatch) -> None:
    # a stopped build whose shard lacks a file compaction reads (one built before LCP arrays were, same version)
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(_LINE.format(i=i, k=i % 7) for i in range(3000)), encoding="utf-8")
    options = {"spec": TokenSpec(), "execution": ExecSettings(workers=1), "shard_bytes": 40_000, "progress": False}

    def stop(job, number, members, files):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(index_module, "_build_segment", stop)
    with pytest.raises(OSError):
        build_index([str(ref)], tmp_path / "idx", **options)
    lcps = sorted((tmp_path / "idx" / ".build" / "parts").glob("*.lcp"))
    assert len(lcps) > 1
    lcps[1].unlink()
    monkeypatch.undo()
    resumed = build_index([str(ref)], tmp_path / "idx", **options)
    assert resumed["shards_resumed"] == len(resumed["shards"]) - 1
    assert resumed["files"] == build_index([str(ref)], tmp_path / "fresh", **options)["files"]


def _stop_in_the_second_merge(monkeypatch) -> None:
    real = index_module.run_shards

    def run_shards(task, shards, work, **kwargs):
        if kwargs.get("description") == "index compaction 2":
            raise OSError(28, "No space left on device")
        return real(task, shards, work, **kwargs)

    monkeypatch.setattr(index_module, "run_shards", run_shards)


def test_a_segment_written_deletes_its_shards_tokens_and_a_build_stopped_in_its_merge_resumes(
    tmp_path: Path, monkeypatch
) -> None:
    # the disk peak of a large build: once a segment's token file is written its shards' token files go, so a
    # build never holds the shards' tokens twice; a build stopped in that segment's merge resumes without them
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(_LINE.format(i=i, k=i % 7) for i in range(6000)), encoding="utf-8")
    options = {"spec": TokenSpec(), "execution": ExecSettings(workers=1), "shard_bytes": 40_000, "progress": False}
    fresh = build_index([str(ref)], tmp_path / "fresh", segment_bytes=120_000, **options)
    second = range(*fresh["segments"][1]["shards"])
    for folder in ("idx", "lost"):
        _stop_in_the_second_merge(monkeypatch)
        with pytest.raises(OSError):
            build_index([str(ref)], tmp_path / folder, segment_bytes=120_000, **options)
        monkeypatch.undo()
    parts = tmp_path / "idx" / ".build" / "parts"
    kinds = {p.name.split(".", 1)[1] for p in parts.iterdir() if int(p.name[:5]) in second}
    assert kinds == {"vocab.parquet", "sa", "lcp", "gfirst"}  # no .tokens, no .docs.parquet
    assert any(p.name.endswith(".tokens") for p in parts.iterdir() if int(p.name[:5]) > second[-1])
    resumed = build_index([str(ref)], tmp_path / "idx", segment_bytes=120_000, **options)
    assert resumed["shards_resumed"] == len(resumed["shards"])  # no shard built twice
    assert resumed["files"] == fresh["files"]
    verify_index(tmp_path / "idx", full=True)
    # a merge file of such a shard lost by hand: the segment's shards are built again, tokens included
    (tmp_path / "lost" / ".build" / "parts" / f"{second[0]:05d}.lcp").unlink()
    again = build_index([str(ref)], tmp_path / "lost", segment_bytes=120_000, **options)
    assert again["shards_resumed"] == len(again["shards"]) - len(second)
    assert again["files"] == fresh["files"]
