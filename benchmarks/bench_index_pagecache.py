"""Query time of an index larger than the machine's memory, with and without read-ahead on its maps (issue 36).

At 16 GB of Chinese text the index is 28 GB, more than this machine's 24 GiB, so a query's binary searches fault
pages in from disk. The kernel reads 32 pages ahead of each fault unless the map is advised for random reads; a
binary search touches one page here and one there, so read-ahead reads what nobody asked for and pushes the pages
the next query needs out of the page cache. `lotdata` advises the maps of an index larger than half of memory
MADV_RANDOM (`index.map_advice`) and splits each large gather across threads (`index.gather`: numpy's take
releases the GIL, so the disk serves many page faults at once). This benchmark queries one existing index each way
(`WAYS`), each in fresh processes after the page cache is dropped (root: /proc/sys/vm/drop_caches), alternating, and
counts major page faults beside the times.

    python benchmarks/bench_index_pagecache.py IDX [--rounds 2] [--ways normal,random,parallel] [--out bench/index_pagecache.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_index import ENV, LOT_DEV, PY, REPO, c3_test_sets  # noqa: E402
from machine import load_note  # noqa: E402

_RUN = r"""
import json, mmap, resource, sys, time
from lotdata.overlap import TokenSpec, load_test_set
from lotdata.overlap.index import PARALLEL_READS, random_access, verify_index
from lotdata.overlap.lookup import measure_with_index
index = verify_index({idx!r})
advice = mmap.MADV_NORMAL if {advice!r} == "normal" else mmap.MADV_RANDOM  # every way whatever lotdata chooses
for seg in index.shards:
    random_access(seg.tokens, advice); random_access(seg.sa, advice)
    seg.parallel_reads = PARALLEL_READS if {advice!r} == "parallel" else 1
sets = [load_test_set(p) for p in {tests!r}]
times, faults = [], []
for _ in range({passes}):
    for s in sets:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        t = time.perf_counter(); measure_with_index([s], index, spec=TokenSpec()); times.append(time.perf_counter() - t)
        faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before)
print(json.dumps({{"times": times, "faults": faults}}))
"""


#: the ways an index can be read: the kernel's read-ahead, random reads one page fault at a time, random reads with
#: the gathers split across threads (what lotdata does for an index larger than half of memory)
WAYS = {
    "normal": "MADV_NORMAL (read-ahead)",
    "random": "MADV_RANDOM, one thread",
    "parallel": "MADV_RANDOM, parallel reads when a gather faults (lotdata's choice above half of memory)",
}


def drop_caches() -> bool:
    try:
        subprocess.run(["sync"], check=True)
        Path("/proc/sys/vm/drop_caches").write_text("1\n")
        return True
    except OSError:
        return False


def one_process(idx: Path, tests: list[Path], advice: str, passes: int) -> dict:
    code = _RUN.format(idx=str(idx), tests=[str(t) for t in tests], advice=advice, passes=passes)
    out = subprocess.run([PY, "-c", code], env=ENV, capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


def table_rows(results: dict[str, list[dict]], sets: int) -> list[str]:
    """One row per way: the first pass over the sets of each process (cold cache) apart from the later ones (the
    steady state of an index that keeps serving queries)."""
    rows = []
    for advice, runs in results.items():
        cold = [t for r in runs for t in r["times"][:sets]]
        cold_faults = [f for r in runs for f in r["faults"][:sets]]
        warm = [t for r in runs for t in r["times"][sets:]]
        warm_faults = [f for r in runs for f in r["faults"][sets:]]
        name = WAYS[advice]
        later = (
            f"{statistics.median(warm):.2f} s | {max(warm):.2f} s | {statistics.median(warm_faults):,.0f}"
            if warm
            else "| |"
        )
        rows.append(f"| {name} | {statistics.median(cold):.2f} s | {statistics.median(cold_faults):,.0f} | {later} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("idx", type=Path)
    parser.add_argument("--rounds", type=int, default=2, help="fresh processes per way, alternating")
    parser.add_argument("--passes", type=int, default=2, help="passes over the test sets in each process")
    parser.add_argument("--ways", default="normal,random,parallel", help=f"among {', '.join(WAYS)}")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "index_pagecache.md")
    args = parser.parse_args()
    unknown = [way for way in args.ways.split(",") if way not in WAYS]
    if unknown:
        parser.error(f"--ways: {', '.join(unknown)} unknown; choose among {', '.join(WAYS)}")
    if not (args.idx / "manifest.json").is_file():
        parser.error(f"{args.idx}: no manifest.json (build it with `lotdata index build`)")
    manifest = json.loads((args.idx / "manifest.json").read_text())
    note = load_note()
    results: dict[str, list[dict]] = {way: [] for way in args.ways.split(",")}
    with tempfile.TemporaryDirectory() as tmp:
        tests = [LOT_DEV, *c3_test_sets(Path(tmp), 2)]
        dropped = True
        for _ in range(args.rounds):
            for advice in results:
                dropped = drop_caches() and dropped
                print(f"[{time.strftime('%H:%M:%S')}] {advice}", flush=True)
                results[advice].append(one_process(args.idx, tests, advice, args.passes))
    rows = table_rows(results, len(tests))
    size = manifest["totals"]["index_bytes"]
    text = "\n".join(
        [
            "# An index larger than memory: read-ahead or not (issue 36)",
            "",
            f"Written by `benchmarks/bench_index_pagecache.py` ({time.strftime('%Y-%m-%d')}). {note}",
            "",
            f"Index: {manifest['totals']['bytes'] / 1e9:.2f} GB of generated Chinese text (as bench_index_scale.py "
            f"makes it), {len(manifest['segments'])} segments, {size / 1e9:.2f} GB on disk; memory "
            f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.1f} GiB. Test sets: "
            f"{', '.join(t.name for t in tests)}. {args.rounds} fresh processes per way, alternating, the page "
            f"cache dropped before each ({'done' if dropped else 'NOT possible here: runs share a warm cache'}); "
            f"{args.passes} passes over the sets in each. Times per LOT-size test set (in process, "
            "`measure_with_index`); major page faults per test set.",
            "",
            "| maps | pass 1, cold cache: per set (median) | pass 1: major faults per set (median) "
            "| later passes: per set (median) | later passes: per set (max) | later passes: major faults per set |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
            *rows,
            "",
            "Raw: " + json.dumps(results),
            "",
        ]
    )
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
