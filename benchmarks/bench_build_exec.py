"""What running `build` on the executor costs, and what two workers give.

    python benchmarks/bench_build_exec.py --out bench/build_exec.md [--repeats 3] [--stories 3000] [--data PATH]

On the CMRC 2017 validation stories from ``../shared/data`` (Chinese), side by side in rounds (one of each per
round, after an untimed warm-up), medians of ``--repeats``, the example-building step of ``build senpos``:

* ``in process``   ``build_examples`` over the whole list (the step before the executor);
* ``1 worker``     ``build_examples_sharded(workers=1)``: shards of 500 stories, parts, done markers, combine;
* ``2 workers``    the same with a local pool of 2 processes.

Every variant's examples must equal the in-process ones (checked each round). The header gives the load
average at the start: on a shared machine the ratio of 2 workers to 1 is a lower bound.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lotdata.exec import ExecSettings  # noqa: E402
from lotdata.io import write_text  # noqa: E402
from lotdata.sources.readers import read_stories  # noqa: E402
from lotdata.tasks.build import build_examples, build_examples_sharded  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import load_note  # noqa: E402  (benchmarks/machine.py)

CMRC = "cmrc2017_children_stories/validation/cloze.valid.doc_query"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "build_exec.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stories", type=int, default=3000)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args()
    note = load_note()
    stories = read_stories([args.data / CMRC], fmt="cmrc").stories[: args.stories]
    reference, _ = build_examples("senpos", stories, seed=0)
    variants = {
        "in process": lambda work: build_examples("senpos", stories, seed=0)[0],
        "1 worker": lambda work: build_examples_sharded("senpos", stories, work, seed=0, shard_rows=500)[0],
        "2 workers": lambda work: build_examples_sharded(
            "senpos", stories, work, seed=0, execution=ExecSettings(workers=2), shard_rows=500
        )[0],
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.repeats):
        for name, run in variants.items():
            with tempfile.TemporaryDirectory() as tmp:
                started = time.perf_counter()
                examples = run(Path(tmp) / "work")
                times[name].append(time.perf_counter() - started)
            assert examples == reference, f"{name}: examples differ from the in-process build"
    base = statistics.median(times["in process"])
    lines = [
        "# build on the executor (`benchmarks/bench_build_exec.py`)",
        "",
        f"`build senpos` example step on {len(stories)} CMRC 2017 validation stories ({len(reference)} examples); "
        f"{platform.python_version()} · {platform.machine()} · medians of {args.repeats} · {note}",
        "",
        "| variant | seconds (median) | stories/s | vs in process |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, values in times.items():
        median = statistics.median(values)
        lines.append(f"| {name} | {median:.2f} | {len(stories) / median:.0f} | {base / median:.2f}x |")
    lines += ["", "Every variant gave the same examples as the in-process build, in the same order."]
    write_text("\n".join(lines) + "\n", args.out)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
