"""The `lotdata index` curve against the reference size: build time, peak memory, index size, query time per
LOT-size test set; writes bench/index_scale.md (issue 36).

The reference is generated at bench time as `bench_index.py` does (CMRC 2017, CFT and C3 stories, each repetition
with its sentences shuffled by a seeded generator; no third-party text is shipped), once at the largest size; each
smaller size is its first N bytes, cut at a line end. Each size is built (`lotdata index build`, compaction
included), queried in a fresh process (the LOT OutGen dev stories and C3 dev slices of about 30,000 8-grams each),
then deleted. Up to `--stream-max-gb` the figures are compared with streaming `overlap`; with `--peer-python` (a
venv holding tokengrams) tokengrams is built and queried on each same reference. Build times are wall and CPU
(all processes: a build paused by someone else's benchmark keeps its CPU figure) with the load average at its start
and end. Without `--no-uncompacted` the smallest size is also built without compaction (one segment per 64 MB
shard, as before issue 36); the compaction figures of earlier runs (`--compare-mb`) are kept in the file.

    python benchmarks/bench_index_scale.py --sizes-gb 1 4 --no-uncompacted --peer-python /tmp/tg/bin/python
    python benchmarks/bench_index_scale.py --sizes-gb 0.05 0.2 --out /tmp/scale.md   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import ENV, LOT_DEV, LOTDATA, PY, REPO, c3_test_sets, prefix_copy, same_outputs  # noqa: E402
from bench_index_pagecache import drop_caches  # noqa: E402
from bench_overlap import base_texts, make_corpus  # noqa: E402
from machine import load_note, run_sampling_rss  # noqa: E402

_QUERY = r"""
import json, statistics, sys, time
from lotdata.overlap import TokenSpec, load_test_set
from lotdata.overlap.index import verify_index
from lotdata.overlap.lookup import measure_with_index
tests = {tests!r}
t = time.perf_counter(); index = verify_index({idx!r}); verify = time.perf_counter() - t
sets = [load_test_set(p) for p in tests]
rounds = []
for _ in range(3):
    times = []
    for s in sets:
        t = time.perf_counter(); measure_with_index([s], index, spec=TokenSpec()); times.append(time.perf_counter() - t)
    rounds.append(times)
t = time.perf_counter(); verify_index({idx!r}, full=True); full = time.perf_counter() - t
print(json.dumps({{"verify": verify, "verify_full": full, "rounds": rounds, "segments": len(index.shards)}}))
"""


_INTERLEAVED = r"""
import json, statistics, time
from lotdata.overlap import TokenSpec, load_test_set
from lotdata.overlap.index import verify_index
from lotdata.overlap.lookup import measure_with_index
indexes = {{name: verify_index(path) for name, path in {indexes!r}.items()}}
sets = [load_test_set(p) for p in {tests!r}]
times = {{name: [] for name in indexes}}
for round in range(4):
    for name, index in indexes.items():  # interleaved: a busy moment of the machine hits both layouts
        for s in sets:
            t = time.perf_counter(); measure_with_index([s], index, spec=TokenSpec()); took = time.perf_counter() - t
            if round:
                times[name].append(took)
print(json.dumps({{name: {{"median": statistics.median(v), "segments": len(indexes[name].shards)}}
                  for name, v in times.items()}}))
"""


def compare_layouts(ref: Path, tmp: Path, tests: list[Path], workers: int, shard_mb: int) -> dict:
    """The same reference built with one segment per shard (the layout before compaction) and compacted into one
    segment, queried in one process, rounds interleaved."""
    paths = {}
    for name, segment_mb in (("per_shard", shard_mb), ("compacted", 8192)):
        paths[name] = str(tmp / f"cmp_{name}")
        build(ref, Path(paths[name]), workers, shard_mb, segment_mb)
    out = subprocess.run(
        [PY, "-c", _INTERLEAVED.format(indexes=paths, tests=[str(t) for t in tests])],
        env=ENV,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    for path in paths.values():
        shutil.rmtree(path)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _disk_used(folder: Path) -> int:
    """Bytes allocated on disk under `folder` (blocks, not sizes: a preallocated file counts as written)."""
    total = 0
    for root, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:  # deleted between the listing and the stat
                pass
    return total


class DiskSampler(threading.Thread):
    """The peak disk use of a folder, sampled every `every` seconds while a build runs."""

    def __init__(self, folder: Path, every: float = 1.0) -> None:
        super().__init__(daemon=True)
        self.folder, self.every, self.peak = folder, every, 0
        self.done = threading.Event()

    def run(self) -> None:
        # the build writes into a staging folder beside OUT and moves it into place at the end (lotdata's one path)
        staging = self.folder.parent / f".{self.folder.name}.lotdata-next"
        while not self.done.wait(self.every):
            self.peak = max(self.peak, _disk_used(self.folder) + _disk_used(staging))


def build(ref: Path, idx: Path, workers: int, shard_mb: int, segment_mb: int) -> dict:
    """Wall and CPU time (every process of the build, reaped: a paused build's CPU time does not grow), load
    average at the start and the end, the sampled peak RSS and the sampled peak disk use of the index folder."""
    load = os.getloadavg()[0]
    cpu = _cpu_children()
    started = time.perf_counter()
    disk = DiskSampler(idx)
    disk.start()
    run = run_sampling_rss(
        [
            *LOTDATA,
            "index",
            "build",
            str(ref),
            "--out",
            str(idx),
            "--workers",
            str(workers),
            "--shard-mb",
            str(shard_mb),
            "--segment-mb",
            str(segment_mb),
        ],
        env=ENV,
        stderr=subprocess.STDOUT,
    )
    disk.done.set()
    disk.join()
    run.check(["lotdata", "index", "build"])
    seconds = time.perf_counter() - started
    manifest = json.loads((idx / "manifest.json").read_text())
    return {
        "seconds": seconds,
        "cpu": _cpu_children() - cpu,
        "load": (load, os.getloadavg()[0]),
        "rss": run.peak_sum,
        "rss_one": max(run.peak_by_pid.values()),
        "disk": disk.peak,
        "manifest": manifest,
    }


# ------------------------------------------------------------------------------------------ the peer

_TG_BUILD = r"""
import codecs, sys, numpy as np
from tokengrams import MemmapIndex
ref, tokens, index = sys.argv[1:4]
with open(ref, encoding="utf-8") as src, open(tokens, "wb") as dst:  # streamed: 4 GB of text never held at once
    while block := src.read(1 << 24):
        dst.write(block.encode("utf-16-le"))
MemmapIndex.build(tokens, index, vocab=2**16, verbose=False)
"""

_TG_QUERY = r"""
import json, statistics, sys, time
from tokengrams import MemmapIndex
tokens, index, grams = sys.argv[1:4]
grams = json.load(open(grams))
t = time.perf_counter(); engine = MemmapIndex(tokens, index, vocab=2**16); load = time.perf_counter() - t
rounds = []
for _ in range(3):
    times = []
    for gs in grams:
        t = time.perf_counter()
        for g in gs: engine.count(g)
        times.append(time.perf_counter() - t)
    rounds.append(times)
print(json.dumps({"load": load, "rounds": rounds}))
"""


def peer_grams(tests: list[Path], out: Path) -> Path:
    """Each test set's word 8-grams as UTF-16 code units (tokengrams' ids: characters), for the peer's own venv."""
    import numpy as np
    from bench_index import test_ngrams

    grams = [
        [np.frombuffer("".join(g).encode("utf-16-le"), dtype=np.uint16).tolist() for g in gs]
        for gs in test_ngrams(tests)
    ]
    out.write_text(json.dumps(grams), encoding="utf-8")
    return out


def tokengrams_peer(python: str, ref: Path, tmp: Path, grams: Path) -> dict:
    """tokengrams (characters as ids) built and queried on the same reference, in its own venv."""
    tokens, index = tmp / "tg.tokens", tmp / "tg.idx"
    cpu, started = _cpu_children(), time.perf_counter()
    run = run_sampling_rss([python, "-c", _TG_BUILD, str(ref), str(tokens), str(index)], stderr=subprocess.STDOUT)
    if run.returncode:
        return {"error": run.stdout.strip().splitlines()[-1][:200] if run.stdout.strip() else "failed"}
    figures = {"seconds": time.perf_counter() - started, "cpu": _cpu_children() - cpu, "rss": run.peak_sum}
    figures["bytes"] = tokens.stat().st_size + index.stat().st_size
    out = subprocess.run([python, "-c", _TG_QUERY, str(tokens), str(index), str(grams)], capture_output=True, text=True)
    tokens.unlink()
    index.unlink()
    if out.returncode:
        return figures | {"error": out.stderr.strip().splitlines()[-1][:200]}
    query = json.loads(out.stdout.strip().splitlines()[-1])
    warm = [t for r in query["rounds"][1:] for t in r]
    return figures | {"first": query["rounds"][0][0], "median": statistics.median(warm), "load_s": query["load"]}


def query(idx: Path, tests: list[Path]) -> dict:
    cold = drop_caches()  # the first set then reads the index from disk, as after a reboot
    out = subprocess.run(
        [PY, "-c", _QUERY.format(tests=[str(t) for t in tests], idx=str(idx))],
        env=ENV,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    warm = [t for r in figures["rounds"][1:] for t in r]
    figures["first"] = figures["rounds"][0][0]
    figures["cold"] = cold
    figures["median"] = statistics.median(warm)
    figures["max"] = max(warm)
    return figures


def cli_query(idx: Path, test: Path, out: Path) -> float:
    t = time.perf_counter()
    run = subprocess.run(
        [*LOTDATA, "overlap", str(test), "--index", str(idx), "--out", str(out)],
        env=ENV,
        capture_output=True,
        text=True,
    )
    if run.returncode:
        raise RuntimeError(run.stdout[-2000:] + run.stderr[-2000:])
    return time.perf_counter() - t


def streaming(ref: Path, test: Path, out: Path, workers: int) -> float:
    t = time.perf_counter()
    run = run_sampling_rss(
        [*LOTDATA, "overlap", str(test), "--reference", str(ref), "--out", str(out), "--workers", str(workers)],
        env=ENV,
        stderr=subprocess.STDOUT,
    )
    run.check(["lotdata", "overlap"])
    return time.perf_counter() - t


def _gb(value: float) -> str:
    return f"{value / 1e9:.2f} GB"


def _cold_words(rows: list[dict]) -> str:
    if rows and all(r["query"].get("cold") for r in rows):
        return "the page cache dropped before it: a cold start, the index read from disk"
    return "the page cache as the build left it, not dropped (dropping it needs root)"


def render(args, rows: list[dict], extra: dict, tests: list[Path], note: str) -> str:
    lines = [
        "# `lotdata index` at growing reference sizes (issue 36)",
        "",
        f"Written by `benchmarks/bench_index_scale.py` ({time.strftime('%Y-%m-%d')}). {note}",
        "",
        f"Reference: Chinese text generated by a seeded generator from CMRC 2017, CFT and C3 (stories with their "
        f"sentences shuffled), one story a line; each size is the first bytes of the largest. Test sets: "
        f"{', '.join(t.name for t in tests)} (LOT OutGen dev: 27,037 8-grams; C3 dev slices: about 30,000 each). "
        f"{args.workers} workers, {args.shard_mb} MB shards, segments of {args.segment_mb} MB. Query times are in "
        "process (`measure_with_index`: tokenising the test set, every 8-gram, counts per n, the longest match with "
        "its document), one test set at a time, after `verify_index`; 'first' is the first set of a fresh process "
        f"({_cold_words(rows)}), 'median' and 'max' are over two further rounds of every set.",
        "",
        "| reference | words | shards | segments | build (wall) | build (CPU, all processes) | load at start / end "
        "| of which compaction (wall) | peak RSS (all processes) | peak RSS (one process) | index size | bytes / char "
        "| peak disk (index folder, sampled) | verify | verify --full | query: first | query: median | query: max "
        "| CLI, one set |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        m = r["build"]["manifest"]
        q = r["query"]
        lines.append(
            f"| {_gb(r['bytes'])} | {m['totals']['tokens']:,} | {len(m['shards'])} | {len(m['segments'])} | "
            f"{r['build']['seconds']:.0f} s | {r['build']['cpu']:.0f} s | {r['build']['load'][0]:.1f} / "
            f"{r['build']['load'][1]:.1f} | {m['merge_seconds']:.0f} s | {_gb(r['build']['rss'])} | "
            f"{_gb(r['build']['rss_one'])} | {_gb(m['totals']['index_bytes'])} | "
            f"{m['totals']['index_bytes'] / max(1, m['totals']['chars']):.2f} | "
            f"{_gb(r['build']['disk']) if r['build'].get('disk') else ''} | {q['verify']:.2f} s | "
            f"{q.get('verify_full', float('nan')):.1f} s | "
            f"{q['first']:.2f} s | {q['median']:.2f} s | {q['max']:.2f} s | {r['cli']:.2f} s |"
        )
    lines += _peer_lines(rows)
    lines += ["", "## Figures", ""]
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        lines.append(
            f"- Query time per LOT-size test set, median: {a['query']['median']:.2f} s at {_gb(a['bytes'])}, "
            f"{b['query']['median']:.2f} s at {_gb(b['bytes'])}: x{b['query']['median'] / a['query']['median']:.2f} "
            f"for x{b['bytes'] / a['bytes']:.1f} the text (goal: within x2)."
        )
    for r in rows:
        m = r["build"]["manifest"]
        lines.append(
            f"- {_gb(r['bytes'])}: peak RSS per word of a shard: "
            f"{r['build']['rss_one'] / max(1, max(s['length'] for s in m['shards'])):.0f} bytes (the largest "
            "process's peak over the largest shard's words)."
        )
    for r in rows:
        if "stream" in r:
            s = r["stream"]
            lines.append(
                f"- Streaming `overlap` vs `overlap --index` at {_gb(r['bytes'])} on {s['test']}: "
                f"{'identical summary and examples' if s['identical'] else 'DIFFERENT'} ({s['seconds']:.0f} s "
                f"streaming, {r['cli']:.1f} s by the CLI with the index)."
            )
    if "uncompacted" in extra:
        u = extra["uncompacted"]
        lines.append(
            f"- Without compaction (`--segment-mb {args.shard_mb}`: one segment per shard, the layout before issue 36) "
            f"at {_gb(rows[0]['bytes'])}: {u['segments']} segments, query median {u['median']:.2f} s vs "
            f"{rows[0]['query']['median']:.2f} s compacted (build {u['seconds']:.0f} s vs "
            f"{rows[0]['build']['seconds']:.0f} s)."
        )
    if "layouts" in extra:
        lay = extra["layouts"]
        a, b = lay["per_shard"], lay["compacted"]
        lines.append(
            f"- Compaction, same reference ({lay['mb']} MB in {args.compare_shard_mb} MB shards), both layouts queried "
            f"in one process, rounds interleaved: {a['segments']} segments (one per shard, the layout before issue 36) "
            f"{a['median']:.2f} s per LOT-size test set (median), {b['segments']} segment {b['median']:.2f} s: "
            f"x{a['median'] / b['median']:.1f}."
        )
    lines += [f"- {line}" for line in extra.get("earlier", [])]
    lines.append("")
    return "\n".join(lines)


def _peer_lines(rows: list[dict]) -> list[str]:
    peers = [r for r in rows if r.get("peer")]
    if not peers:
        return []
    lines = [
        "",
        "Beside it, on each same reference: tokengrams 0.3 in its own venv (characters as UTF-16 ids; counts only, "
        "each test set's 8-grams counted one by one; its build reads the text as UTF-16 then sorts). infini-gram's "
        "query engine does not load here (bench/index.md), and its build took 14.6 min at 1 GB, so it is not run.",
        "",
        "| reference | tokengrams build (wall) | build (CPU) | peak RSS | index size | query: first | query: median "
        "| lotdata query: median |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in peers:
        p = r["peer"]
        if "error" in p:
            lines.append(f"| {_gb(r['bytes'])} | failed: {p['error']} | | | | | | {r['query']['median']:.2f} s |")
            continue
        lines.append(
            f"| {_gb(r['bytes'])} | {p['seconds']:.0f} s | {p['cpu']:.0f} s | {_gb(p['rss'])} | {_gb(p['bytes'])} | "
            f"{p['first']:.2f} s | {p['median']:.2f} s | {r['query']['median']:.2f} s |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "index_scale.md")
    parser.add_argument("--sizes-gb", type=float, nargs="+", default=[1, 4, 16])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--shard-mb", type=int, default=64)
    parser.add_argument("--segment-mb", type=int, default=8192)
    parser.add_argument("--c3-sets", type=int, default=2)
    parser.add_argument("--no-stream", action="store_true", help="skip the streaming comparison")
    parser.add_argument("--no-uncompacted", action="store_true", help="skip the build without compaction")
    parser.add_argument("--tmp", type=Path, default=None)
    parser.add_argument("--compare-mb", type=float, default=0, help="also compare the layouts on this many MB")
    parser.add_argument("--compare-shard-mb", type=int, default=8)
    parser.add_argument("--append", action="store_true", help="add this run's section under the file's contents")
    parser.add_argument("--peer-python", default="", help="python of a venv holding tokengrams: run it beside")
    parser.add_argument(
        "--keep-largest", type=Path, default=None, help="move the largest index here instead of deleting it"
    )
    parser.add_argument("--stream-max-gb", type=float, default=1, help="streaming `overlap` up to this size")
    args = parser.parse_args()
    args.sizes_gb = [g for g in args.sizes_gb if g > 0]
    if args.keep_largest and args.keep_largest.exists():
        parser.error(f"--keep-largest {args.keep_largest}: already exists (the index would be moved inside it)")
    before = (
        args.out.read_text(encoding="utf-8") + "\n\n## A further run\n\n" if args.append and args.out.exists() else ""
    )
    note = load_note()
    earlier = [  # each earlier figure once, however many runs the file already holds
        line[2:]
        for line in (args.out.read_text(encoding="utf-8").splitlines() if args.out.exists() else [])
        if line.startswith("- Compaction, same reference") and not args.compare_mb
    ]
    sizes = sorted(args.sizes_gb)
    tmp = Path(tempfile.mkdtemp(prefix="bench_index_scale_", dir=args.tmp))
    rows: list[dict] = []
    kept = [f"{e} (an earlier run, kept)" if "earlier run" not in e else e for e in earlier]
    extra: dict = {"earlier": list(dict.fromkeys(kept))}
    try:
        tests = [LOT_DEV, *c3_test_sets(tmp, args.c3_sets)]
        full = make_corpus(tmp / "ref_full.txt", max(sizes[-1] * 1000 if sizes else 0, args.compare_mb), base_texts())
        if args.compare_mb:
            small = prefix_copy(full, tmp / "ref_compare.txt", args.compare_mb)
            extra["layouts"] = {
                **compare_layouts(small, tmp, tests, args.workers, args.compare_shard_mb),
                "mb": args.compare_mb,
            }
            small.unlink()
            args.out.write_text(before + render(args, rows, extra, tests, note), encoding="utf-8")
        for size in sizes:
            ref = full if size == sizes[-1] else prefix_copy(full, tmp / f"ref_{size}.txt", size * 1000)
            idx = tmp / f"idx_{size}"
            print(f"[{time.strftime('%H:%M:%S')}] building {size} GB", flush=True)
            built = build(ref, idx, args.workers, args.shard_mb, args.segment_mb)
            print(f"[{time.strftime('%H:%M:%S')}] built in {built['seconds']:.0f} s; querying", flush=True)
            row = {"bytes": ref.stat().st_size, "build": built, "query": query(idx, tests)}
            row["cli"] = cli_query(idx, tests[0], tmp / "cli_out")
            if size <= args.stream_max_gb and not args.no_stream:
                seconds = streaming(ref, tests[0], tmp / "stream_out", args.workers)
                row["stream"] = {
                    "seconds": seconds,
                    "test": tests[0].name,
                    "identical": same_outputs(tmp / "stream_out", tmp / "cli_out"),
                }
                shutil.rmtree(tmp / "stream_out")
            shutil.rmtree(tmp / "cli_out", ignore_errors=True)
            if args.keep_largest and size == sizes[-1]:
                shutil.move(idx, args.keep_largest)
            else:
                shutil.rmtree(idx)
            if args.peer_python:
                grams = tmp / "grams.json"
                if not grams.exists():
                    peer_grams(tests, grams)
                print(f"[{time.strftime('%H:%M:%S')}] tokengrams at {size} GB", flush=True)
                row["peer"] = tokengrams_peer(args.peer_python, ref, tmp, grams)
            if size == sizes[0] and not args.no_uncompacted:
                flat = tmp / "idx_flat"
                flat_built = build(ref, flat, args.workers, args.shard_mb, args.shard_mb)
                flat_query = query(flat, tests)
                extra["uncompacted"] = {
                    "segments": flat_query["segments"],
                    "median": flat_query["median"],
                    "seconds": flat_built["seconds"],
                }
                shutil.rmtree(flat)
            rows.append(row)
            print(
                json.dumps({k: v for k, v in row.items() if k != "build"} | {"build_s": built["seconds"]}), flush=True
            )
            if ref != full:
                ref.unlink()
            text = render(args, rows, extra, tests, note)
            args.out.write_text(before + text, encoding="utf-8")  # each size as it lands
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(args.out.read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
