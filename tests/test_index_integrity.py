"""`lotdata index` integrity (issue 36): every file hashed by `verify --full`, a changed reference refused by the
query, no stale file after a rebuild, test sets named alike kept apart, a full disk naming the file."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import write_stories
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.exec import ExecSettings
from lotdata.overlap import TokenSpec
from lotdata.overlap import index as index_module
from lotdata.overlap.index import build_index, index_files, verify_index

LINE = "第{i}行：小猫在河边钓鱼，小狗在草地上追蝴蝶，{k}只鸟飞过。\n"


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(map(str, args)))
    return result.exit_code, result.output


def _reference(tmp_path: Path, lines: int = 3000) -> Path:
    ref = tmp_path / "ref.txt"
    ref.write_text("".join(LINE.format(i=i, k=i % 7) for i in range(lines)), encoding="utf-8")
    return ref


def _build(ref: Path, out: Path, *extra: str) -> dict:
    code, output = _cli("index", "build", ref, "--out", out, "--workers", "1", "--shard-mb", "1", *extra)
    assert code == 0, output
    return json.loads((out / "manifest.json").read_text())


def test_a_changed_byte_in_any_index_file_fails_verify_full(tmp_path: Path) -> None:
    ref = _reference(tmp_path)
    idx = tmp_path / "idx"
    manifest = _build(ref, idx, "--segment-mb", "1")
    files = sorted(manifest["files"])
    assert {Path(f).suffix for f in files} >= {".tokens", ".sa", ".first", ".parquet"}
    assert _cli("index", "verify", idx, "--full")[0] == 0
    for rel in files:
        path = idx / rel
        data = bytearray(path.read_bytes())
        at = len(data) // 2
        data[at] ^= 0x01  # one bit of one byte, same size: only a hash sees it
        path.write_bytes(bytes(data))
        code, output = _cli("index", "verify", idx, "--full")
        assert code == 3 and str(path) in output and "sha256" in output, (rel, output)
        data[at] ^= 0x01
        path.write_bytes(bytes(data))
    assert _cli("index", "verify", idx, "--full")[0] == 0


def test_a_reference_edited_after_indexing_is_refused_unless_trusted(tmp_path: Path) -> None:
    ref = _reference(tmp_path)
    idx = tmp_path / "idx"
    _build(ref, idx)
    write_stories(tmp_path / "test.parquet", ["小猫在河边钓鱼，小狗在草地上追蝴蝶，三只鸟飞过。"])
    query = ["overlap", tmp_path / "test.parquet", "--index", idx, "--out", tmp_path / "o", "--n", "4"]
    assert _cli(*query)[0] == 0
    text = ref.read_text(encoding="utf-8")
    ref.write_text(text.replace("小猫", "大猫", 1), encoding="utf-8")  # same size, new text
    code, output = _cli(*query)
    assert code == 3 and str(ref) in output and "changed since the index was built" in output
    assert "--trust-references" in output
    code, output = _cli("index", "verify", idx)
    assert code == 3 and str(ref) in output
    code, output = _cli(*query, "--trust-references")
    assert code == 0, output
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["references_changed_since_the_index"][0].startswith(str(ref))
    ref.unlink()
    code, output = _cli(*query)
    assert code == 3 and str(ref) in output and "missing" in output


def test_a_rebuild_leaves_no_stale_file(tmp_path: Path) -> None:
    ref = _reference(tmp_path, 20000)
    idx = tmp_path / "idx"
    many = _build(ref, idx, "--segment-mb", "1")
    assert len(many["segments"]) > 1
    fewer = _build(ref, idx)  # the same folder: one segment now
    assert len(fewer["segments"]) == 1
    on_disk = {p.relative_to(idx).as_posix() for p in idx.rglob("*") if p.is_file()}
    assert on_disk == index_files(fewer)
    # the library path builds in place: what an earlier build left there is removed too
    lib = tmp_path / "lib"
    build_index([str(ref)], lib, spec=TokenSpec(), execution=ExecSettings(workers=1), shard_bytes=1 << 20,
                segment_bytes=1 << 20, progress=False)  # fmt: skip
    (lib / "shards").mkdir()
    (lib / "shards" / "00007.sa").write_bytes(b"old")  # the layout before compaction
    manifest = build_index([str(ref)], lib, spec=TokenSpec(), execution=ExecSettings(workers=1), progress=False)
    on_disk = {p.relative_to(lib).as_posix() for p in lib.rglob("*")}
    assert on_disk == index_files(manifest) | {"segments"}
    verify_index(lib, full=True)


def test_two_test_sets_named_alike_get_two_reports(tmp_path: Path) -> None:
    ref = _reference(tmp_path)
    idx = tmp_path / "idx"
    _build(ref, idx)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    write_stories(tmp_path / "a" / "val.parquet", ["小猫在河边钓鱼，小狗在草地上追蝴蝶，三只鸟飞过。"])
    write_stories(tmp_path / "b" / "val.parquet", ["城市里新修的地铁线路，今天正式开通了。", "另一条新闻。"])
    code, output = _cli(
        "overlap", tmp_path / "a" / "val.parquet", tmp_path / "b" / "val.parquet", "--index", idx,
        "--out", tmp_path / "o", "--n", "4",
    )  # fmt: skip
    assert code == 0, output
    reports = sorted(p.name for p in (tmp_path / "o").iterdir())
    assert reports == ["val", "val_2"]
    tests = [json.loads((tmp_path / "o" / r / "summary.json").read_text())["test"] for r in reports]
    assert tests == [str(tmp_path / "a" / "val.parquet"), str(tmp_path / "b" / "val.parquet")]
    first = json.loads((tmp_path / "o" / "val" / "summary.json").read_text())["splits"][0]
    second = json.loads((tmp_path / "o" / "val_2" / "summary.json").read_text())["splits"][0]
    assert (first["n_examples"], second["n_examples"]) == (1, 2) and first["percent"] > second["percent"]


def test_a_full_disk_during_compaction_names_the_file(tmp_path: Path, monkeypatch) -> None:
    ref = _reference(tmp_path)
    real = index_module.write_bytes

    def full(handle, array):
        if ".tokens" in handle.name and "segments" in handle.name:  # the segment's token file
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(handle, array)

    monkeypatch.setattr(index_module, "write_bytes", full)
    code, output = _cli("index", "build", ref, "--out", tmp_path / "idx", "--workers", "1")
    assert code == 1 and "no space left" in output and "segments/00000.tokens" in output
    assert "requested" not in output


_BUILD = """
import sys
from lotdata.exec import ExecSettings
from lotdata.overlap import TokenSpec, index
index.MERGE_PART_ENTRIES = 5000  # many compaction tasks
index.build_index([sys.argv[1]], sys.argv[2], spec=TokenSpec(), execution=ExecSettings(workers=int(sys.argv[3])),
                  shard_bytes=100_000, progress=False)
"""


_ONE_THEN_TWO = """
import json, sys
from lotdata.exec import ExecSettings, start_method
from lotdata.overlap import TokenSpec, index
files = []
for workers in (1, 2):  # 1 worker runs libdivsufsort (OpenMP) here; then a pool of 2 starts
    manifest = index.build_index([sys.argv[1]], f"{sys.argv[2]}/w{workers}", spec=TokenSpec(),
                                 execution=ExecSettings(workers=workers), shard_bytes=100_000, progress=False)
    files.append(manifest["files"])
print(json.dumps({"same": files[0] == files[1], "method": start_method(), "shards": len(manifest["shards"])}))
"""


def test_a_pool_after_a_one_worker_build_in_the_same_process_does_not_hang(tmp_path: Path) -> None:
    # before: the pool forked after libdivsufsort's OpenMP had run here, and the first worker to sort hung for good
    ref = _reference(tmp_path, 8000)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _ONE_THEN_TWO, str(ref), str(tmp_path)],
            env=env,
            timeout=180,
            capture_output=True,
            text=True,
        )
    except subprocess.TimeoutExpired as exc:
        raise AssertionError("a 2-worker build after a 1-worker build in one process hung") from exc
    assert done.returncode == 0, done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["shards"] > 3 and figures["method"] == "forkserver"
    assert figures["same"]  # every file's sha256 equal: the start method changes nothing in the index


def test_compaction_is_byte_identical_for_any_worker_count(tmp_path: Path) -> None:
    # each build in a fresh process, so the 2-worker one forks (the test above covers the fork server)
    ref = _reference(tmp_path, 8000)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    manifests = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        done = subprocess.run([sys.executable, "-c", _BUILD, str(ref), str(out), str(workers)], env=env, timeout=600)
        assert done.returncode == 0
        manifests.append(json.loads((out / "manifest.json").read_text()))
    one, two = manifests
    assert len(one["shards"]) > 3 and len(one["segments"]) == 1
    assert one["files"] == two["files"]  # every file's sha256


def test_a_loaded_index_maps_its_arrays_for_random_reads(tmp_path: Path, monkeypatch) -> None:
    # read-ahead on a binary search's scattered pages evicts the pages the next query needs once an index outgrows
    # memory (measured at 16 GB: docs/how-to/index-at-scale.md); every segment's tokens and suffix array go through it
    import mmap

    from lotdata.overlap import index as index_module

    advised = []
    real = index_module.random_access
    monkeypatch.setattr(index_module, "random_access", lambda a, advice=None: advised.append(a) or real(a, advice))
    ref = tmp_path / "ref.txt"
    ref.write_text("小明去学校。他遇到了老师。\n" * 50, encoding="utf-8")
    build_index([str(ref)], tmp_path / "idx", spec=TokenSpec(), progress=False)
    index = verify_index(tmp_path / "idx")
    assert {id(a) for a in advised} == {id(x) for s in index.shards for x in (s.tokens, s.sa)}
    if hasattr(mmap, "MADV_RANDOM"):  # a small index keeps the kernel's read-ahead; one larger than half of memory not
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        assert index_module.map_advice(1 << 20) is None
        assert index_module.map_advice(int(0.6 * memory)) == mmap.MADV_RANDOM
