"""`read` and `clean` on the executor: byte-identical output for 1 worker, 2 workers and Ray; resume;
the phased dedup equals the in-memory one; Rust MinHash (rensa) finds the clusters datasketch finds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import lotdata.clean.files as clean_files_module
from lotdata.clean.dedup import DedupParams, band_pairs, find_near_duplicates
from lotdata.clean.files import clean_files
from lotdata.clean.step import CleanParams, clean_rows
from lotdata.cli import app
from lotdata.exec import ExecSettings
from lotdata.io import write_parquet
from lotdata.resources import sample_corpus_path
from lotdata.schema import STORIES, STORIES_QUARANTINE, table_from_rows
from lotdata.sources.read_stage import ReadParams, read_step
from lotdata.sources.readers import read_stories

ray = pytest.importorskip("ray", reason="the ray extra is part of the test extra")

CLEAN_PARAMS = CleanParams(min_chars=40, dedup=DedupParams(cluster_threshold=0.3, reject_threshold=0.7))


def _sample_rows() -> list[dict]:
    return [json.loads(line) for line in sample_corpus_path().read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> dict[str, Path]:
    """Three jsonl files (a story repeated across files, a bad record) and a stories table with copies."""
    folder = tmp_path_factory.mktemp("corpus")
    rows = _sample_rows()
    files = []
    for k in range(3):
        path = folder / f"part{k}.jsonl"
        chunk = rows[k * 13 : (k + 1) * 13] + [rows[0]]  # rows[0] is read from every file: kept once
        lines = [
            json.dumps({"id": r["id"], "title": r.get("title"), "text": r["text"]}, ensure_ascii=False) for r in chunk
        ]
        path.write_text("\n".join(lines + ["{not json"]) + "\n", encoding="utf-8")
        files.append(path)
    stories = folder / "stories.parquet"
    read_step(files, stories)
    table = pq.read_table(stories).to_pylist()
    copies = []
    for i, row in enumerate(table[:12]):  # exact copies from another source, near copies, a short story
        copies.append({**row, "source": "mirror", "url": f"mirror#{i}"})
        text = row["text"]
        copies.append(
            {
                **row,
                "text": text[: len(text) // 2] + "。" + text[len(text) // 2 + 2 :],
                "source": "near",
                "url": f"near#{i}",
            }
        )
    copies.append({**table[0], "text": "太短了。", "source": "short", "url": "short#0"})
    with_copies = folder / "with_copies.parquet"
    write_parquet(table_from_rows(table + copies, STORIES), with_copies)
    return {"files": files, "stories": stories, "with_copies": with_copies}


def _bytes(paths: list[Path]) -> list[bytes]:
    return [p.read_bytes() for p in paths]


def test_read_is_byte_identical_for_1_and_2_workers_and_ray(corpus, tmp_path: Path, ray_local) -> None:
    outs = {}
    for name, kwargs in {
        "one": {},
        "two": {"execution": ExecSettings(workers=2)},
        "ray": {"execution": ExecSettings(executor="ray", workers=2)},
    }.items():
        out = tmp_path / f"{name}.parquet"
        summary = read_step(corpus["files"], out, **kwargs)
        outs[name] = (_bytes([out, out.with_name(f"{name}.quarantine.parquet")]), summary)
        assert not out.with_name(out.name + ".work").exists()  # parts removed after success
    assert outs["two"] == outs["one"] and outs["ray"] == outs["one"]
    summary = outs["one"][1]
    # rows[0] twice in the first file, once in each other: kept once; one bad line a file
    assert summary["quarantine"] == 3 and summary["duplicates"] == 3 and summary["stories"] == 13 * 3
    serial = read_stories(corpus["files"])  # all files in one process, as before the executor
    assert pq.read_table(tmp_path / "one.parquet").to_pylist() == table_from_rows(serial.stories, STORIES).to_pylist()
    assert serial.counts == {k: summary[k] for k in serial.counts}


def test_clean_is_byte_identical_for_1_and_2_workers_and_ray_and_equals_in_memory(
    corpus, tmp_path: Path, ray_local
) -> None:
    names = ("stories.parquet", "quarantine.parquet", "summary.parquet")
    runs = {}
    for name, kwargs in {
        "one": {},
        "two": {"execution": ExecSettings(workers=2)},
        "ray": {"execution": ExecSettings(executor="ray", workers=2)},
        "big_shards": {"rows_per_shard": 10_000},
    }.items():
        out = tmp_path / name
        result = clean_files([corpus["with_copies"]], out, CLEAN_PARAMS, **{"rows_per_shard": 7, **kwargs})
        runs[name] = _bytes([out / n for n in names])
        assert not (out / ".work").exists()
    assert runs["two"] == runs["one"] and runs["ray"] == runs["one"] and runs["big_shards"] == runs["one"]
    memory = clean_rows(pq.read_table(corpus["with_copies"]).to_pylist(), CLEAN_PARAMS)
    kept = pq.read_table(tmp_path / "one" / "stories.parquet").to_pylist()
    quarantine = pq.read_table(tmp_path / "one" / "quarantine.parquet").to_pylist()
    assert kept == table_from_rows(memory.kept, STORIES).to_pylist()
    assert quarantine == table_from_rows(memory.quarantine, STORIES_QUARANTINE).to_pylist()
    rules = [r["rule"] for r in quarantine]
    assert rules.count("exact_duplicate") == 12 and rules.count("near_duplicate") >= 10 and "length_min" in rules
    for row in quarantine:  # each dropped copy names the kept copy and, for near copies, the similarity
        if row["rule"] == "near_duplicate":
            assert float(row["evidence"].split()[1]) >= 0.7
            kept_id = row["evidence"].split()[3]
            assert kept_id in {r["story_id"] for r in kept}
    assert result.kept == len(kept) and result.counts["stories_in"] == 39 + 25


def test_killed_clean_resumes_from_its_done_shards(corpus, tmp_path: Path, monkeypatch) -> None:
    calls: list[int] = []
    real_shard = clean_files_module.clean_shard

    def failing(shard, part, params):
        calls.append(shard.start)
        if shard.start == 14:
            raise OSError("killed")
        return real_shard(shard, part, params)

    monkeypatch.setattr(clean_files_module, "clean_shard", failing)
    with pytest.raises(Exception, match="killed"):
        clean_files([corpus["with_copies"]], tmp_path / "resumed", CLEAN_PARAMS, rows_per_shard=7)
    assert calls == [0, 7, 14] and (tmp_path / "resumed" / ".work" / "clean" / "done" / "00001.json").exists()
    calls.clear()
    monkeypatch.setattr(
        clean_files_module,
        "clean_shard",
        lambda shard, part, params: (calls.append(shard.start), real_shard(shard, part, params))[1],
    )
    clean_files([corpus["with_copies"]], tmp_path / "resumed", CLEAN_PARAMS, rows_per_shard=7)
    clean_files([corpus["with_copies"]], tmp_path / "fresh", CLEAN_PARAMS, rows_per_shard=7)
    assert calls[:2] == [14, 21]  # shards 0 and 7 were not cleaned again
    for name in ("stories.parquet", "quarantine.parquet", "summary.parquet"):
        assert (tmp_path / "resumed" / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes()


def test_clean_and_read_cli_take_the_executor_options(corpus, tmp_path: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(
        app,
        [
            "clean",
            str(corpus["with_copies"]),
            "--out",
            str(tmp_path / "c"),
            "--workers",
            "2",
            "--seed",
            "3",
            "--min-chars",
            "40",
        ],
    )
    assert ok.exit_code == 0, ok.output
    assert json.loads((tmp_path / "c" / "manifest.json").read_text())["params"]["dedup"]["seed"] == 3
    bad = runner.invoke(app, ["clean", str(corpus["with_copies"]), "--out", str(tmp_path / "d"), "--executor", "spark"])
    assert bad.exit_code == 1 and "unknown executor 'spark'" in bad.output
    zero = runner.invoke(app, ["read", str(corpus["files"][0]), "--out", str(tmp_path / "r.parquet"), "--workers", "0"])
    assert zero.exit_code == 1 and "--workers 0" in zero.output
    two = runner.invoke(
        app, ["read", *map(str, corpus["files"]), "--out", str(tmp_path / "r.parquet"), "--workers", "2"]
    )
    assert two.exit_code == 0, two.output
    assert (tmp_path / "r.parquet").read_bytes() == (tmp_path / "r.parquet").read_bytes()


def test_real_rensa_and_datasketch_find_the_same_near_duplicates(shared_data: Path, tmp_path: Path) -> None:
    stories = tmp_path / "stories.parquet"
    read_step(
        [
            shared_data / "cmrc2017_children_stories/validation/cloze.valid.doc_query",
            shared_data / "cft_children_fairy_tale/children_fairy_tale/cft.zip",
        ],
        stories,
        ReadParams(lang="zh"),
        execution=ExecSettings(workers=2),
    )
    rows = pq.read_table(stories, columns=["text"]).column("text").to_pylist()
    found = {}
    for backend in ("rensa", "datasketch"):
        near = find_near_duplicates(rows, ["zh"] * len(rows), lambda i: (i,), DedupParams(backend=backend))
        found[backend] = (
            {i for i, d in enumerate(near.duplicate_of) if d is not None},
            {i for i, c in enumerate(near.cluster_of) if c != i},
        )
    removed_r, clustered_r = found["rensa"]
    removed_d, clustered_d = found["datasketch"]
    assert len(removed_d) > 20  # CMRC and CFT retell the same fables
    # estimates of two hash families differ only for pairs at a threshold: at most 5% of the ids
    assert len(removed_r ^ removed_d) <= 0.05 * len(removed_d | removed_r)
    assert len(clustered_r ^ clustered_d) <= 0.05 * len(clustered_d | clustered_r)


def test_band_pairs_equal_plain_bucketing_and_split_over_band_ranges() -> None:
    rng = np.random.default_rng(0)
    sigs = rng.integers(0, 50, size=(300, 12), dtype=np.uint32)  # few values: many shared bands
    sigs[10] = sigs[3]
    expected = set()
    for band in range(4):
        buckets: dict[tuple, list[int]] = {}
        for i, row in enumerate(sigs[:, band * 3 : (band + 1) * 3].tolist()):
            buckets.setdefault(tuple(row), []).append(i)
        expected |= {(a, b) for members in buckets.values() for k, a in enumerate(members) for b in members[k + 1 :]}
    pairs = band_pairs(sigs, 3, range(4))
    assert pairs.tolist() == [list(p) for p in sorted(expected)] and (3, 10) in expected  # sorted, unique
    halves = np.unique(np.concatenate([band_pairs(sigs, 3, range(0, 2)), band_pairs(sigs, 3, range(2, 4))]), axis=0)
    assert np.array_equal(halves, pairs)


def test_clean_writes_its_outputs_a_run_of_rows_at_a_time_with_the_same_rows(
    corpus, tmp_path: Path, monkeypatch
) -> None:
    whole = clean_files([corpus["with_copies"]], tmp_path / "whole", CLEAN_PARAMS, rows_per_shard=7)
    monkeypatch.setattr(clean_files_module, "OUTPUT_ROWS", 5)
    runs = clean_files([corpus["with_copies"]], tmp_path / "runs", CLEAN_PARAMS, rows_per_shard=7)
    assert (runs.kept, runs.removed) == (whole.kept, whole.removed)
    for name in ("stories.parquet", "quarantine.parquet"):
        small = pq.ParquetFile(tmp_path / "runs" / name)
        assert small.metadata.num_row_groups == -(-small.metadata.num_rows // 5) > 1
        assert small.read().to_pylist() == pq.read_table(tmp_path / "whole" / name).to_pylist()
