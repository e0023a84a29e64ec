"""lotdata index build / verify and overlap --index: the streaming figures, longest matches against brute force,
counts per n, a damaged or foreign index refused, a full disk, a killed build resumed, two builds at once."""

from __future__ import annotations

import errno
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from helpers import write_stories
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.errors import InputError
from lotdata.exec import ExecSettings
from lotdata.overlap import TokenSpec, corpus, load_test_set, measure_overlap
from lotdata.overlap import index as index_module
from lotdata.overlap.index import build_index, verify_index
from lotdata.overlap.lookup import count, count_many, measure_with_index

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]
WORDS = ["ant", "bee", "cat", "dog", "elk"]
BASE = ["split", "example_id", "ngrams", "overlapped", "share", "over_threshold", "spans"]


def _base(record: dict) -> dict:
    return {k: record[k] for k in BASE if k in record}


def brute_longest(test_words: list[list[str]], ref_lines: list[list[str]]) -> int:
    """The longest run of words of one test segment found inside one reference line."""
    best = 0
    for seg in test_words:
        for i in range(len(seg)):
            for j in range(i + best + 1, len(seg) + 1):
                piece = seg[i:j]
                if any(
                    piece == line[k : k + len(piece)] for line in ref_lines for k in range(len(line) - len(piece) + 1)
                ):
                    best = j - i
                else:
                    break
    return best


def _with_parallel_reads(test_set, loaded, spec: TokenSpec):
    """The figures with every gather split across threads (as for an index larger than half of memory)."""
    for segment in loaded.shards:
        segment.parallel_reads = 3
    smallest, faults = index_module.PARALLEL_GATHER_MIN, index_module._major_faults
    index_module.PARALLEL_GATHER_MIN = 1
    index_module._major_faults = itertools.count().__next__  # every probe "read from disk": the threads' path
    try:
        result = measure_with_index([test_set], loaded, spec=spec)[0]
    finally:
        index_module.PARALLEL_GATHER_MIN, index_module._major_faults = smallest, faults
    return result.summary, result.examples


@pytest.mark.parametrize("from_disk", [True, False])
def test_gather_splits_a_large_gather_and_keeps_its_shape_and_order(monkeypatch, from_disk: bool) -> None:
    faults = itertools.count() if from_disk else itertools.repeat(0)
    monkeypatch.setattr(index_module, "_major_faults", faults.__next__)
    submitted = []
    monkeypatch.setattr(index_module.ThreadPoolExecutor, "submit", _recording(submitted))
    index_module._pools.clear()
    array = np.arange(10_000, dtype=np.uint32)[::-1].copy()
    idx = np.random.default_rng(0).integers(0, len(array), size=(3000, 4))
    assert np.array_equal(index_module.gather(array, idx, threads=5), array[idx])
    assert len(submitted) == (4 if from_disk else 0)  # the probe slice in this thread, the rest in 4 only from disk
    assert np.array_equal(index_module.gather(array, idx[:10], threads=5), array[idx[:10]])  # small: one thread
    index_module._pools.clear()


def _recording(calls: list):
    submit = index_module.ThreadPoolExecutor.submit

    def record(self, fn, *args, **kwargs):
        calls.append(args)
        return submit(self, fn, *args, **kwargs)

    return record


def test_an_index_larger_than_half_of_memory_reads_in_parallel(tmp_path: Path, monkeypatch) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text("ant bee cat\ndog elk ant\n")
    build_index([str(ref)], tmp_path / "idx", spec=TokenSpec(n=2, lang="en"), progress=False)
    assert {s.parallel_reads for s in verify_index(tmp_path / "idx").shards} == {1}
    monkeypatch.setattr(index_module, "map_advice", lambda size: index_module.mmap.MADV_RANDOM)
    assert {s.parallel_reads for s in verify_index(tmp_path / "idx").shards} == {index_module.PARALLEL_READS}


sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tests=st.lists(sentence.filter(str.strip), min_size=1, max_size=5),
    refs=st.lists(sentence, max_size=8),
    n=st.integers(1, 4),
    shard_bytes=st.sampled_from([7, 40, 1 << 20]),
    segment_bytes=st.sampled_from([1, 60, 8 << 30]),  # a segment per shard, a few shards each, all in one
)
def test_index_equals_streaming_and_brute_force(tests, refs, n, shard_bytes, segment_bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        write_stories(tmp / "test.parquet", tests, lang="en")
        ref = tmp / "ref.txt"
        ref.write_text("".join(line + "\n" for line in refs))
        spec = TokenSpec(n=n, lang="en")
        if not any(r.strip() for r in refs):
            with pytest.raises(InputError, match="no word"):
                build_index(
                    [str(ref)],
                    tmp / "idx",
                    spec=spec,
                    execution=ExecSettings(workers=1),
                    shard_bytes=shard_bytes,
                    progress=False,
                )
            assert not (tmp / "idx" / "manifest.json").exists()
            return
        test_set = load_test_set(tmp / "test.parquet")
        if max(len(t.split()) for t in tests) < n:  # no test n-gram: both paths refuse (issue 23), naming n
            with pytest.raises(InputError, match=f"no {n}-gram"):
                measure_overlap(test_set, [str(ref)], tmp / "work", execution=ExecSettings(workers=1), spec=spec)
            build_index([str(ref)], tmp / "idx", spec=spec, execution=ExecSettings(workers=1), progress=False)
            with pytest.raises(InputError, match=f"no {n}-gram"):
                measure_with_index([test_set], verify_index(tmp / "idx"), spec=spec)
            return
        streaming = measure_overlap(
            test_set, [str(ref)], tmp / "work", execution=ExecSettings(workers=1), spec=spec, shard_bytes=shard_bytes
        )
        build_index(
            [str(ref)],
            tmp / "idx",
            spec=spec,
            execution=ExecSettings(workers=1),
            shard_bytes=shard_bytes,
            segment_bytes=segment_bytes,
            progress=False,
        )
        indexed = measure_with_index([test_set], verify_index(tmp / "idx"), spec=spec)[0]
        assert indexed.summary == streaming.summary
        assert _with_parallel_reads(test_set, verify_index(tmp / "idx"), spec) == (indexed.summary, indexed.examples)
        assert [_base(r) for r in indexed.examples["test"]] == [_base(r) for r in streaming.examples["test"]]
        lines = [line.split() for line in refs]
        loaded = verify_index(tmp / "idx")
        grams = sorted({tuple(t.split()[i : i + n]) for t in tests for i in range(len(t.split()) - n + 1)})
        expected = [sum(list(g) == w[i : i + n] for w in lines for i in range(len(w) - n + 1)) for g in grams]
        assert [count(loaded, list(g)) for g in grams] == expected
        assert count_many(loaded, [list(g) for g in grams]).tolist() == expected
        for ex, record in zip(test_set.splits["test"], indexed.examples["test"]):
            segments = [text.split() for _, text in ex.texts]
            assert record["longest_words"] == brute_longest(segments, lines)
            if record["longest_words"]:
                doc, word = record["longest_doc"], record["longest_doc_word"]
                line = ref.read_bytes()[int(doc.rsplit("@", 1)[1]) :].split(b"\n")[0].decode().split()
                assert " ".join(line[word : word + record["longest_words"]]) == record["longest_text"]
            for item in record["by_n"]:
                k = item["n"]
                grams = [tuple(s[i : i + k]) for s in segments for i in range(len(s) - k + 1)]
                ref_grams = {tuple(w[i : i + k]) for w in lines for i in range(len(w) - k + 1)}
                assert (item["ngrams"], item["overlapped"]) == (len(grams), sum(g in ref_grams for g in grams))


@pytest.mark.parametrize("segment_bytes, segments", [(8 << 30, 1), (3000, 5)])
def test_count_matches_a_scan_of_the_words(tmp_path: Path, segment_bytes: int, segments: int) -> None:
    rng = np.random.default_rng(3)
    lines = [" ".join(rng.choice(WORDS, size=int(rng.integers(1, 30)))) for _ in range(200)]
    (tmp_path / "ref.txt").write_text("\n".join(lines) + "\n")
    build_index(
        [str(tmp_path / "ref.txt")],
        tmp_path / "idx",
        spec=TokenSpec(lang="en"),
        execution=ExecSettings(workers=1),
        shard_bytes=500,
        segment_bytes=segment_bytes,
        progress=False,
    )
    loaded = verify_index(tmp_path / "idx", full=True)
    # many small shards, compacted into one segment (or a few): a query searches the segments only
    assert len(loaded.manifest["shards"]) > 20 and len(loaded.shards) == segments
    for gram in (["ant"], ["ant", "bee"], ["cat", "cat", "dog"], ["elk"] * 4, ["yak"], ["ant", "yak"]):
        k = len(gram)
        expected = sum(line.split()[i : i + k] == gram for line in lines for i in range(len(line.split()) - k + 1))
        assert count(loaded, gram) == expected


def test_long_lines_masks_and_multi_text_documents_give_the_streaming_figures(tmp_path: Path, monkeypatch) -> None:
    """A line read in pieces (joined across them), texts of a jsonl record and mask-split segments (never joined)."""
    monkeypatch.setattr(corpus, "LINE_PIECE_BYTES", 64)
    rng = np.random.default_rng(5)
    words = lambda k: " ".join(rng.choice(WORDS, size=k))  # noqa: E731
    long_line = words(300)
    records = [{"title": words(6), "text": words(12) + " [MASK] " + words(9)} for _ in range(20)]
    (tmp_path / "long.txt").write_text(long_line + "\n" + words(20) + "\n")
    (tmp_path / "recs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    tests = [long_line.split()[50 + 9 * i : 50 + 9 * i + 14] for i in range(10)]
    tests += [records[0]["title"].split()[-3:] + records[0]["text"].split()[:6]]  # across title and text: not one run
    write_stories(tmp_path / "test.parquet", [" ".join(t) for t in tests], lang="en")
    refs = [str(tmp_path / "long.txt"), str(tmp_path / "recs.jsonl")]
    test_set = load_test_set(tmp_path / "test.parquet")
    for n in (3, 6):
        spec = TokenSpec(n=n, lang="en")
        streaming = measure_overlap(
            test_set, refs, tmp_path / f"w{n}", execution=ExecSettings(workers=1), spec=spec, shard_bytes=200
        )
        build_index(
            refs, tmp_path / f"idx{n}", spec=spec, execution=ExecSettings(workers=1), shard_bytes=200, progress=False
        )
        indexed = measure_with_index([test_set], verify_index(tmp_path / f"idx{n}"), spec=spec)[0]
        assert indexed.summary == streaming.summary
        assert [_base(r) for r in indexed.examples["test"]] == [_base(r) for r in streaming.examples["test"]]
        assert [r["longest_words"] for r in indexed.examples["test"][:10]] == [14] * 10
        assert indexed.examples["test"][10]["longest_words"] < 9


# ------------------------------------------------------------------------------ the shared corpora, through the CLI


def _cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


@pytest.mark.slow  # about 30 s on the shared 2-core machine: two streaming scans of a 3.7 MB CMRC file
def test_cli_figures_equal_streaming_on_the_shared_corpora(shared_data: Path, tmp_path: Path) -> None:
    """LOT OutGen dev and 150 CMRC user-validation stories, in one --index call, against CMRC validation: the streaming figures."""
    cmrc = shared_data / "cmrc2017_children_stories"
    ref = str(cmrc / "validation" / "cloze.valid.doc_query")
    code, output = _cli(
        "read",
        "--format",
        "cmrc",
        str(cmrc / "validation" / "user.valid.doc_query"),
        "--out",
        str(tmp_path / "user.parquet"),
    )
    assert code == 0, output
    pq.write_table(pq.read_table(tmp_path / "user.parquet").slice(0, 150), tmp_path / "cmrc_test.parquet")
    tests = [str(shared_data / "lot_outgen_dev" / "dev.jsonl"), str(tmp_path / "cmrc_test.parquet")]
    code, output = _cli("index", "build", ref, "--out", str(tmp_path / "idx"), "--workers", "1")
    assert code == 0, output
    code, output = _cli("overlap", *tests, "--index", str(tmp_path / "idx"), "--out", str(tmp_path / "via_index"))
    assert code == 0, output
    for test, name in zip(tests, ("dev", "cmrc_test")):
        code, output = _cli("overlap", test, "--reference", ref, "--out", str(tmp_path / f"s_{name}"), "--workers", "1")
        assert code == 0, output
        streamed = json.loads((tmp_path / f"s_{name}" / "summary.json").read_text())
        indexed = json.loads((tmp_path / "via_index" / name / "summary.json").read_text())
        assert indexed["splits"] == streamed["splits"]
        a = pq.read_table(tmp_path / f"s_{name}" / "examples.parquet")
        b = pq.read_table(tmp_path / "via_index" / name / "examples.parquet")
        assert b.select(a.column_names).equals(a)
        assert "Longest matches" in (tmp_path / "via_index" / name / "report.md").read_text()
    dev = pq.read_table(tmp_path / "via_index" / "dev" / "examples.parquet").to_pylist()
    assert json.loads((tmp_path / "s_dev" / "summary.json").read_text())["splits"][0]["examples_over"] > 0
    top = max(dev, key=lambda r: r["longest_words"])
    assert top["longest_words"] > 100 and top["longest_doc"].startswith(ref + "#")  # a retold fable, located


# ------------------------------------------------------------------------------ bad input


def _small_index(tmp_path: Path, name: str = "idx") -> Path:
    (tmp_path / "ref.txt").write_text(
        "".join(f"第{i}行。小猫在河边钓鱼，小狗在草地上追蝴蝶。\n" for i in range(50)), encoding="utf-8"
    )
    code, output = _cli(
        "index", "build", str(tmp_path / "ref.txt"), "--out", str(tmp_path / name), "--workers", "1", "--shard-mb", "1"
    )
    assert code == 0, output
    return tmp_path / name


def test_empty_references_are_refused_and_leave_no_index(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "blank.jsonl").write_text('{"text": ""}\n{"text": "   "}\n')
    for name in ("empty.txt", "blank.jsonl"):
        code, output = _cli(
            "index", "build", str(tmp_path / name), "--out", str(tmp_path / f"i_{name}"), "--workers", "1"
        )
        assert code == 3 and name in output and "no word" in output
        assert not (tmp_path / f"i_{name}").exists()  # a failed build publishes nothing
        code, output = _cli("index", "verify", str(tmp_path / f".i_{name}.lotdata-next" / f"i_{name}"))
        assert code == 3 and "no manifest" in output


def test_another_tokenizer_or_version_is_refused_naming_the_manifest(tmp_path: Path) -> None:
    idx = _small_index(tmp_path)
    write_stories(tmp_path / "test.parquet", ["小猫在河边钓鱼，小狗在草地上追蝴蝶。"])
    code, output = _cli(
        "overlap",
        str(tmp_path / "test.parquet"),
        "--index",
        str(idx),
        "--out",
        str(tmp_path / "o"),
        "--tokenizer",
        "jieba",
    )
    assert code == 1 and "manifest.json" in output and "jieba" in output and not (tmp_path / "o").exists()
    manifest = json.loads((idx / "manifest.json").read_text())
    manifest["lotdata_version"] = "0.0.1"
    (idx / "manifest.json").write_text(json.dumps(manifest))
    code, output = _cli("overlap", str(tmp_path / "test.parquet"), "--index", str(idx), "--out", str(tmp_path / "o"))
    assert code == 3 and "manifest.json" in output and "0.0.1" in output


def test_a_truncated_or_unsorted_index_is_refused_naming_the_file(tmp_path: Path) -> None:
    idx = _small_index(tmp_path)
    assert _cli("index", "verify", str(idx))[0] == 0
    tokens = idx / "segments" / "00000.tokens"
    data = tokens.read_bytes()
    tokens.write_bytes(data[:-8])
    code, output = _cli("index", "verify", str(idx))
    assert code == 3 and str(tokens) in output and "truncated" in output
    tokens.write_bytes(data)
    sa_path = idx / "segments" / "00000.sa"
    sa = np.fromfile(sa_path, dtype=np.int32)
    sa[: len(sa) // 2] = sa[: len(sa) // 2][::-1].copy()  # half of it reversed
    sa.tofile(sa_path)
    code, output = _cli("index", "verify", str(idx))
    assert code == 3 and str(sa_path) in output and "not sorted" in output
    write_stories(tmp_path / "test.parquet", ["小猫在河边钓鱼。"])
    code, output = _cli("overlap", str(tmp_path / "test.parquet"), "--index", str(idx), "--out", str(tmp_path / "o"))
    assert code == 3 and "not sorted" in output


def test_a_full_disk_names_the_file_and_the_next_build_resumes(tmp_path: Path, monkeypatch) -> None:
    lines = "".join(f"第{i}行：小猫在河边钓鱼，小狗在草地上追蝴蝶，{i % 7}只鸟飞过。\n" for i in range(30000))
    (tmp_path / "ref.txt").write_text(lines, encoding="utf-8")
    real, written = index_module.write_bytes, []

    def fill_up(handle, array):  # the third shard's suffix array finds the disk full (after 2 x sa, lcp, tokens)
        if len(written) == 6:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written.append(handle.name)
        real(handle, array)

    monkeypatch.setattr(index_module, "write_bytes", fill_up)
    build = [
        "index",
        "build",
        str(tmp_path / "ref.txt"),
        "--out",
        str(tmp_path / "idx"),
        "--workers",
        "1",
        "--shard-mb",
        "1",
    ]
    code, output = _cli(*build)
    assert code == 1 and "no space left" in output and "00002.sa" in output
    assert not (tmp_path / "idx" / "manifest.json").exists()
    monkeypatch.setattr(index_module, "write_bytes", real)
    code, output = _cli(*build)
    assert code == 0, output
    manifest = verify_index(tmp_path / "idx").manifest
    assert manifest["shards_resumed"] == 2 and len(manifest["shards"]) == 3 and manifest["totals"]["docs"] == 30000


def test_a_second_build_into_the_same_folder_is_locked_out(tmp_path: Path) -> None:
    (tmp_path / "ref.txt").write_text("小猫在河边钓鱼。\n", encoding="utf-8")
    lock = tmp_path / "idx.lock"
    lock.write_text(json.dumps({"pid": os.getppid(), "host": __import__("socket").gethostname()}))
    code, output = _cli("index", "build", str(tmp_path / "ref.txt"), "--out", str(tmp_path / "idx"))
    assert code == 1 and str(lock) in output and not (tmp_path / "idx" / "manifest.json").exists()


def test_a_killed_build_resumes(tmp_path: Path) -> None:
    lines = "".join(
        f"第{i}行：小猫在河边钓鱼，小狗在草地上追蝴蝶，{i % 11}只鸟飞过{i % 13}座山。\n" for i in range(40000)
    )
    (tmp_path / "ref.txt").write_text(lines, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [
        sys.executable,
        "-c",
        "from lotdata.cli import main; main()",
        "index",
        "build",
        str(tmp_path / "ref.txt"),
        "--out",
        str(tmp_path / "idx"),
        "--workers",
        "1",
        "--shard-mb",
        "1",
    ]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    staging = tmp_path / ".idx.lotdata-next" / "idx"  # a build writes beside its output, swapped in when complete
    done = staging / ".build" / "done"
    deadline = time.time() + 60
    # a finished shard's marker (00000.json), not the temporary file its atomic write renames into place
    while time.time() < deadline and not (done.exists() and any(done.glob("[0-9]*.json"))):
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert done.exists() and not (tmp_path / "idx").exists()
    code, output = _cli("index", "verify", str(staging))
    assert code == 3 and "resume" in output
    finished = subprocess.run(command, env=env, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    assert manifest["shards_resumed"] >= 1 and manifest["totals"]["docs"] == 40000
    assert not (tmp_path / "idx" / ".build").exists() and not staging.parent.exists()


def test_ray_executor_builds_the_same_index(tmp_path: Path, ray_local) -> None:
    (tmp_path / "ref.txt").write_text(
        "".join(f"第{i}行。小猫在河边钓鱼，小狗在草地上追蝴蝶。\n" for i in range(3000)), encoding="utf-8"
    )
    a = build_index(
        [str(tmp_path / "ref.txt")],
        tmp_path / "a",
        spec=TokenSpec(),
        execution=ExecSettings(workers=1),
        shard_bytes=30_000,
        progress=False,
    )
    b = build_index(
        [str(tmp_path / "ref.txt")],
        tmp_path / "b",
        spec=TokenSpec(),
        execution=ExecSettings(executor="ray", workers=2),
        shard_bytes=30_000,
        progress=False,
    )
    for x, y in zip(a["segments"], b["segments"], strict=True):
        assert (tmp_path / "a" / x["sa_path"]).read_bytes() == (tmp_path / "b" / y["sa_path"]).read_bytes()
        assert (tmp_path / "a" / x["tokens_path"]).read_bytes() == (tmp_path / "b" / y["tokens_path"]).read_bytes()


def test_several_test_sets_get_a_folder_each_and_write_filtered_takes_one(tmp_path: Path) -> None:
    idx = _small_index(tmp_path)
    write_stories(
        tmp_path / "a.parquet", ["小猫在河边钓鱼，小狗在草地上追蝴蝶。", "今天的天气很好，我们一起去公园散步吧。"]
    )
    write_stories(tmp_path / "b.parquet", ["完全无关的一句话，讲的是城市里的交通和新修的地铁线路。"])
    code, output = _cli(
        "overlap",
        str(tmp_path / "a.parquet"),
        str(tmp_path / "b.parquet"),
        "--index",
        str(idx),
        "--out",
        str(tmp_path / "o"),
        "--n",
        "4",
    )
    assert code == 0, output
    a = json.loads((tmp_path / "o" / "a" / "summary.json").read_text())["splits"][0]
    b = json.loads((tmp_path / "o" / "b" / "summary.json").read_text())["splits"][0]
    assert (a["n_examples"], a["examples"], b["examples"]) == (2, 1, 0)
    code, output = _cli(
        "overlap",
        str(tmp_path / "a.parquet"),
        str(tmp_path / "b.parquet"),
        "--index",
        str(idx),
        "--out",
        str(tmp_path / "o2"),
        "--write-filtered",
        str(tmp_path / "f"),
    )
    assert code == 1 and "one test set" in output
    code, output = _cli(
        "overlap",
        str(tmp_path / "a.parquet"),
        "--index",
        str(idx),
        "--out",
        str(tmp_path / "o3"),
        "--n",
        "4",
        "--write-filtered",
        str(tmp_path / "f"),
    )
    assert code == 0, output
    kept = load_test_set(tmp_path / "f")
    assert sum(len(v) for v in kept.splits.values()) == 1
    code, output = _cli(
        "overlap",
        str(tmp_path / "a.parquet"),
        "--index",
        str(idx),
        "--reference",
        str(tmp_path / "ref.txt"),
        "--out",
        str(tmp_path / "o4"),
    )
    assert code == 2 and "not both" in output
