"""Where `lotdata clean` spends CPU and memory, per phase and per process (issue 18).

    PYTHONPATH=. python benchmarks/profile_clean.py --stories 6000 --workers 1 2

The stories are bench_sources.py's (CMRC 2017 validation + CFT and near-copies of them). Each run is a
subprocess; this process samples the RSS of it and of its workers every 20 ms (peak per process, peak of
their sum). CPU seconds per phase, of the driver and of its (reaped) workers, come from os.times() at each
lap of the phase clock: unlike wall seconds they hardly move when other jobs share the machine, so the
serial part (the driver's CPU outside the parallel phases) and the Amdahl bound can be read from them.
`--code DIR` profiles the lotdata found in DIR (an older checkout, for a before/after).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PARALLEL = ("clean_and_signatures", "buckets")  # the phases that run on the workers


def one_run(path: Path, workers: int, out: Path) -> dict:
    """In the profiled subprocess: clean `path`, CPU seconds per phase as a dict."""
    import lotdata.clean.files as files
    from lotdata.clean.step import CleanParams, load_lexicon
    from lotdata.exec import ExecSettings

    cpu: dict[str, dict[str, float]] = {}
    last = [os.times()]
    lap = files._Clock.lap

    def timed_lap(self, name: str) -> None:
        lap(self, name)
        now, before = os.times(), last[0]
        cpu[name] = {
            "driver": round(now.user + now.system - before.user - before.system, 3),
            "workers": round(
                now.children_user + now.children_system - before.children_user - before.children_system, 3
            ),
            "driver_peak_mib": _peak_mib_since_last_lap(),
        }
        last[0] = now

    files._Clock.lap = timed_lap
    params = CleanParams(lexicon=load_lexicon())
    started = time.perf_counter()
    last[0] = os.times()
    _peak_mib_since_last_lap()
    result = files.clean_files([path], out, params, execution=ExecSettings(workers=workers), progress=False)
    return {"wall": round(time.perf_counter() - started, 2), "cpu": cpu, "kept": result.kept, "removed": result.removed}


def _peak_mib_since_last_lap() -> int | None:
    """This process's peak RSS since the last call (VmHWM, then reset through clear_refs; Linux)."""
    try:
        status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return None
    return int(status["VmHWM"].split()[0]) // 1024


def sample(command: list[str], env: dict) -> tuple[str, float, list[float], float]:
    """Run `command`; its stdout, the peak RSS (MiB) of it, of each of its children and of their sum."""
    from machine import run_sampling_rss  # benchmarks/ is on sys.path (main)

    run = run_sampling_rss(command, env, every=0.02).check(command)
    peaks = dict(run.peak_by_pid)
    driver = peaks.pop(run.pid, 0)
    return run.stdout, driver / 2**20, [rss / 2**20 for rss in peaks.values()], run.peak_sum / 2**20


def profile(path: Path, workers: int, code: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out, driver_rss, children, total = sample(
            [sys.executable, __file__, "--one", str(path), str(workers), str(Path(tmp) / "o")],
            {**os.environ, "PYTHONPATH": str(code)},
        )
    run = json.loads(out.strip().splitlines()[-1])
    run["rss_driver"] = round(driver_rss)
    # pool workers only: forked helpers of a few MiB (the pool's resource tracker) are left out
    run["rss_workers"] = sorted((round(v) for v in children if v > 50), reverse=True)
    run["rss_sum_peak"] = round(total)
    driver = sum(c["driver"] for c in run["cpu"].values())
    parallel = sum(
        run["cpu"][p]["workers"] + (run["cpu"][p]["driver"] if workers == 1 else 0) for p in PARALLEL if p in run["cpu"]
    )
    run["cpu_total"] = round(driver + sum(c["workers"] for c in run["cpu"].values()), 2)
    # with 1 worker everything runs in the driver: its serial part is the driver's CPU outside the parallel phases
    run["cpu_serial"] = round(driver - (parallel if workers == 1 else 0), 2)
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stories", type=int, default=6000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--code", type=Path, default=REPO, help="the checkout whose lotdata is profiled")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(Path(args.one[0]), int(args.one[1]), Path(args.one[2]))))
        return
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_sources import write_dedup_inputs

    with tempfile.TemporaryDirectory() as tmp:
        path = write_dedup_inputs(args.stories, Path(tmp)) / "stories.parquet"
        for workers in args.workers:
            run = profile(path, workers, args.code.resolve())
            print(json.dumps({"workers": workers, **run}), flush=True)
    load = os.getloadavg()
    print(f"# load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores", flush=True)


if __name__ == "__main__":
    main()
