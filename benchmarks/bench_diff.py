"""What `lotdata diff` costs: time beside datacompy on the same pair, peak memory, and a ~1 GB pair.

    python benchmarks/bench_diff.py --out bench/diff.md [--repeats 3] [--examples 20000] [--big-mb 1000] [--skip-big]

Pairs are generated at bench time into a temporary folder (random Chinese text, nothing from shared data):

* ``20k``: two 20,000-example SenPos dataset folders, B = A with planted changes (37 removed, 23 added, 11 edits
  of `removed`, 5 of `label`, 3 val stories moved to test). lotdata diff (the whole report: manifests, per-split
  distributions and lengths, stories, samples) against datacompy 1.x (`PandasCompare(df1, df2, join_columns=
  "example_id")` + `.report()`, on the three split files read into pandas, list columns joined into strings since
  datacompy cannot compare lists): each in its own process, side by side in rounds, medians of ``--repeats``.
  Both must find the same numbers of rows only in A, only in B and with a changed column (checked every round).
* ``big``: two dataset folders of about ``--big-mb`` MB each (Parquet on disk, row groups of 4,096 rows), the same
  kinds of changes scaled; lotdata diff only, once; its peak RSS must stay under 1 GB.

Peak RSS is the child's `ru_maxrss` (imports included; the row "after imports" gives that floor).
datacompy is a bench peer, not a dependency: `pip install datacompy` into the venv that runs this.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

SPLIT_OF = ("train",) * 8 + ("val", "test")
NOTE = (
    "Peak RSS is the child's `ru_maxrss`; where it equals the RSS after imports, the diff itself never went above "
    "what importing lotdata took (pandas, pyarrow, jieba's dictionary)."
)


def _random_text(rng: np.random.Generator, chars: int) -> str:
    return rng.integers(0x4E00, 0x9FA5, size=chars, dtype=np.uint32).tobytes().decode("utf-32-le")


def _example(rng: np.random.Generator, story: int, part: int, split: str, sentence_chars: int) -> dict:
    n = int(rng.integers(4, 10))
    sentences = [
        _random_text(rng, int(rng.integers(sentence_chars // 2, sentence_chars * 3 // 2))) + "。" for _ in range(n)
    ]
    return {
        "example_id": f"senpos-s{story:07d}-{part}",
        "story_id": f"s{story:07d}",
        "split": split,
        "sentences": sentences,
        "removed": _random_text(rng, int(rng.integers(10, 40))) + "。",
        "label": int(rng.integers(1, n)),
        "n_candidates": n - 1,
        "refined": False,
        "lang": "zh",
    }


def write_pair(root: Path, examples: int, sentence_chars: int, rows_per_group: int) -> dict:
    """Folders root/a and root/b, written piece by piece (memory: one piece); returns the planted changes."""
    import pyarrow.parquet as pq

    from lotdata.io import manifest_dict, write_manifest
    from lotdata.schema import SENPOS, table_from_rows

    rng = np.random.default_rng(0)
    stories = examples // 4
    # planted changes, scaled from the 20k pair: removals, additions, edits, stories moved val -> test
    scale = max(1, examples // 20_000)
    train_ids = [s for s in range(stories) if SPLIT_OF[s % 10] == "train"]
    picked = rng.choice(len(train_ids) * 4, size=(37 + 16) * scale, replace=False)
    cells = [(train_ids[i // 4], i % 4) for i in picked.tolist()]
    removed, text_edit, label_edit = (
        set(cells[: 37 * scale]),
        set(cells[37 * scale : 48 * scale]),
        set(cells[48 * scale :]),
    )
    moved = {s for s in range(stories) if SPLIT_OF[s % 10] == "val"}
    moved = set(sorted(moved)[: 3 * scale])
    writers, moving = {}, []
    for side in ("a", "b"):
        (root / side).mkdir(parents=True)
        for split in ("train", "val", "test"):
            writers[side, split] = pq.ParquetWriter(root / side / f"{split}.parquet", SENPOS, compression="zstd")
    buffers: dict[tuple[str, str], list[dict]] = {k: [] for k in writers}

    def put(side: str, split: str, row: dict) -> None:
        buffers[side, split].append(row)
        if len(buffers[side, split]) >= rows_per_group:
            writers[side, split].write_table(table_from_rows(buffers[side, split], SENPOS))
            buffers[side, split].clear()

    for story in range(stories):
        split = SPLIT_OF[story % 10]
        for part in range(4):
            row = _example(rng, story, part, split, sentence_chars)
            put("a", split, row)
            cell = (story, part)
            if cell in removed:
                continue
            if cell in text_edit:
                row = {**row, "removed": row["removed"] + "改"}
            if cell in label_edit:
                row = {**row, "label": row["label"] % row["n_candidates"] + 1}
            if story in moved:
                moving.append({**row, "split": "test"})
                continue
            put("b", split, row)
    for i in range(23 * scale):
        put("b", "train", _example(rng, stories + i, 0, "train", sentence_chars))
    for row in moving:
        put("b", "test", row)
    for key, writer in writers.items():
        if buffers[key]:
            writer.write_table(table_from_rows(buffers[key], SENPOS))
        writer.close()
    for side in ("a", "b"):
        files = {s: root / side / f"{s}.parquet" for s in ("train", "val", "test")}
        write_manifest(
            root / side,
            manifest_dict(
                kind="dataset", task="senpos", command="bench", params={"seed": 0}, inputs=[], files=files, stats={}
            ),
        )
    return {"removed": 37 * scale, "added": 23 * scale, "edited": 16 * scale, "moved_examples": len(moving)}


# ---------------------------------------------------------------- the measured children


def child_lotdata(a: str, b: str) -> dict:
    from lotdata.datasets.diff import diff_paths, render_markdown

    floor = _maxrss()
    started = time.perf_counter()
    report = diff_paths(a, b)
    render_markdown(report)
    seconds = time.perf_counter() - started
    counts = report["tables"][0]["counts"]
    return {
        "seconds": seconds,
        "maxrss": _maxrss(),
        "floor": floor,
        "only_a": counts["removed"],
        "only_b": counts["added"],
        "changed": counts["changed"],
        "moved_stories": report["tables"][0]["stories"]["counts"]["stories_moved"],
    }


def child_datacompy(a: str, b: str) -> dict:
    import datacompy
    import pandas as pd
    import pyarrow.parquet as pq

    floor = _maxrss()
    started = time.perf_counter()
    frames = []
    for side in (a, b):
        frame = pd.concat(
            [pq.read_table(Path(side) / f"{s}.parquet").to_pandas() for s in ("train", "val", "test")],
            ignore_index=True,
        )
        frame["sentences"] = frame["sentences"].map("\x1e".join)
        frames.append(frame)
    compare = datacompy.PandasCompare(frames[0], frames[1], join_columns="example_id", df1_name="a", df2_name="b")
    compare.report()
    seconds = time.perf_counter() - started
    changed = len(compare.all_mismatch())
    return {
        "seconds": seconds,
        "maxrss": _maxrss(),
        "floor": floor,
        "only_a": len(compare.df1_unq_rows),
        "only_b": len(compare.df2_unq_rows),
        "changed": changed,
    }


def _maxrss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def measure(tool: str, a: Path, b: Path) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--child", tool, str(a), str(b)], capture_output=True, text=True, cwd=REPO
    )
    if done.returncode:
        raise RuntimeError(f"{tool} failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _mb(value: float) -> str:
    return f"{value / 2**20:.0f} MB"


def _folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.glob("*.parquet"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "diff.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--examples", type=int, default=20_000)
    parser.add_argument("--big-mb", type=int, default=1000)
    parser.add_argument("--skip-big", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("TOOL", "A", "B"))
    args = parser.parse_args()
    if args.child:
        tool, a, b = args.child
        print(json.dumps((child_lotdata if tool == "lotdata" else child_datacompy)(a, b)))
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from machine import load_note

    try:
        import datacompy
    except ImportError:
        sys.exit("bench_diff needs its peer: pip install 'datacompy>=1.1,<2' (not a dependency of lotdata)")

    note = load_note()
    lines = [
        "# `lotdata diff`",
        "",
        f"`python benchmarks/bench_diff.py --repeats {args.repeats}` on {platform.machine()}, "
        f"{platform.python_version()}, datacompy {datacompy.__version__}. {note}",
        "",
    ]
    with tempfile.TemporaryDirectory(prefix="bench-diff-") as tmp:
        root = Path(tmp) / "small"
        planted = write_pair(root, args.examples, 40, 4096)
        runs: dict[str, list[dict]] = {"lotdata diff": [], "datacompy": []}
        for _ in range(args.repeats):
            for name, tool in (("lotdata diff", "lotdata"), ("datacompy", "datacompy")):
                runs[name].append(measure(tool, root / "a", root / "b"))
            ours, theirs = runs["lotdata diff"][-1], runs["datacompy"][-1]
            same = (ours["only_a"], ours["only_b"], ours["changed"]) == (
                theirs["only_a"],
                theirs["only_b"],
                theirs["changed"],
            )
            expected = (planted["removed"], planted["added"], planted["edited"] + planted["moved_examples"])
            if not same or (ours["only_a"], ours["only_b"], ours["changed"]) != expected:
                raise RuntimeError(f"the counts disagree: lotdata {ours}, datacompy {theirs}, planted {planted}")
        lines += [
            f"## {args.examples:,}-example SenPos pair ({_mb(_folder_mb(root / 'a'))} + {_mb(_folder_mb(root / 'b'))} "
            f"of Parquet)",
            "",
            f"Planted: {planted}. Both tools found {expected[0]} only in A, {expected[1]} only in B, {expected[2]} "
            "changed, every round.",
            "",
            "| tool | median seconds | runs | peak RSS (median) | RSS after imports |",
            "| --- | ---: | --- | ---: | ---: |",
        ]
        for name, results in runs.items():
            secs = [r["seconds"] for r in results]
            lines.append(
                f"| {name} | {statistics.median(secs):.2f} | {', '.join(f'{s:.2f}' for s in secs)} | "
                f"{_mb(statistics.median(r['maxrss'] for r in results))} | {_mb(results[0]['floor'])} |"
            )
        ratio = statistics.median(r["seconds"] for r in runs["lotdata diff"]) / statistics.median(
            r["seconds"] for r in runs["datacompy"]
        )
        lines += [
            "",
            f"lotdata diff / datacompy time: {ratio:.2f} (goal: at most 2). lotdata diff does more: manifests, "
            "per-split distributions and length statistics before and after, stories moved, seeded samples.",
            "",
        ]
        if not args.skip_big:
            big = Path(tmp) / "big"
            # about 1.8 KB of Parquet per example with 120-character sentences (measured)
            examples = int(args.big_mb * 2**20 / 1800) // 4 * 4
            started = time.perf_counter()
            planted = write_pair(big, examples, 120, 4096)
            made = time.perf_counter() - started
            result = measure("lotdata", big / "a", big / "b")
            lines += [
                f"## ~{args.big_mb} MB pair: {examples:,} examples a side ({_mb(_folder_mb(big / 'a'))} + "
                f"{_mb(_folder_mb(big / 'b'))} of Parquet, row groups of 4,096 rows; generated in {made:.0f} s)",
                "",
                f"Planted: {planted}; found {result['only_a']} only in A, {result['only_b']} only in B, "
                f"{result['changed']} changed, {result['moved_stories']} stories moved.",
                "",
                "| tool | seconds | peak RSS | RSS after imports | goal |",
                "| --- | ---: | ---: | ---: | --- |",
                f"| lotdata diff | {result['seconds']:.1f} | {_mb(result['maxrss'])} | {_mb(result['floor'])} | "
                f"under 1 GB: {'yes' if result['maxrss'] < 2**30 else 'NO'} |",
                "",
                NOTE,
                "",
            ]
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
