"""Peak memory of `lotdata overlap` on one long line against the same text on many lines; writes
bench/overlap_long_lines.md.

Issue 16 found a valid 20 MB single-line reference peaking at 1.0 GB: a line was read, decoded and
tokenized whole. Lines are now read in pieces and tokenized in pieces with an n-gram carry. This runs
both shapes side by side (alternating, medians of `--repeats`), checks the figures are the same, and
records peak RSS (the CLI process and its workers) and seconds.

The reference text is built in a temporary folder from the CMRC 2017 validation stories (shared data);
the test side is the first 200 characters of 50 of those stories.

    python benchmarks/bench_long_lines.py --out bench/overlap_long_lines.md --mb 20 --repeats 3
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

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def stories() -> list[str]:
    from lotdata.sources.readers import read_stories

    folder = DATA / "cmrc2017_children_stories" / "validation"
    return [s["text"] for s in read_stories([folder / "cloze.valid.doc_query"], fmt="cmrc").stories]


def run_once(test: Path, reference: Path, out: Path) -> tuple[float, int, dict]:
    """Seconds, peak RSS in MB (the CLI and the workers it waited for), and the summary."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lotdata.cli",
            "overlap",
            str(test),
            "--reference",
            str(reference),
            "--out",
            str(out),
            "--workers",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"overlap failed: {proc.stderr.read().decode()}")
    summary = json.loads((out / "summary.json").read_text())
    return seconds, usage.ru_maxrss // 1024, summary


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "overlap_long_lines.md")
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from machine import load_note

    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.story import make_story_row

    note = load_note()
    texts = stories()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        test = tmp / "test.parquet"
        rows = [make_story_row(t[:200], source="bench", lang="zh") for t in texts[:50]]
        write_parquet(table_from_rows(rows, STORIES), test)
        joined, size = [], 0
        while size < args.mb << 20:
            for t in texts:
                joined.append(t)
                size += len(t.encode())
                if size >= args.mb << 20:
                    break
        (tmp / "one_line.txt").write_text("".join(joined) + "\n", encoding="utf-8")
        (tmp / "many_lines.txt").write_text("\n".join(joined) + "\n", encoding="utf-8")
        results: dict[str, list[tuple[float, int, dict]]] = {"one_line": [], "many_lines": []}
        for i in range(args.repeats):
            for shape in results:
                results[shape].append(run_once(test, tmp / f"{shape}.txt", tmp / f"out-{shape}-{i}"))
        sizes = {shape: (tmp / f"{shape}.txt").stat().st_size for shape in results}
    figures = {shape: [s["splits"] for _, _, s in runs] for shape, runs in results.items()}
    same = all(f == figures["one_line"][0] for runs in figures.values() for f in runs)
    lines = [
        "# overlap: one long line against many lines",
        "",
        f"`python benchmarks/bench_long_lines.py --mb {args.mb} --repeats {args.repeats}`; {note}",
        "",
        f"Reference: {args.mb} MB of CMRC 2017 validation stories, once as one line, once a story a line; test: 50 story "
        "openings. `--workers 1`; medians; peak RSS of the CLI process and the worker it waited for.",
        "",
        "| reference | bytes | seconds (median) | peak RSS MB (median) | percent overlapped |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for shape, runs in results.items():
        lines.append(
            f"| {shape.replace('_', ' ')} | {sizes[shape]:,} | {statistics.median(r[0] for r in runs):.1f} | "
            f"{statistics.median(r[1] for r in runs):.0f} | {100 * runs[0][2]['splits'][0]['percent']:.2f}% |"
        )
    lines += ["", f"Same figures for both shapes and every run: {'yes' if same else 'NO'}.", ""]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
