"""What the benchmarks share: how busy the machine was when one started (for the header of its table), and a\ncommand run while its process tree's memory is sampled."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field


def load_note() -> str:
    one_minute = os.getloadavg()[0]
    return (
        f"Load average when the run started: {one_minute:.1f} on {os.cpu_count()} cores "
        "(above about 1, other jobs shared the cores and every timing is an upper bound)."
    )


@dataclass
class SampledRun:
    """A command run to its end while the RSS of it and of its descendants was sampled."""

    stdout: str
    returncode: int
    peak_sum: int  # bytes: the largest sum of RSS over the process and its descendants at one sample
    peak_by_pid: dict[int, int] = field(default_factory=dict)  # bytes: each process's own peak
    pid: int = 0

    def check(self, command: list[str]) -> "SampledRun":
        if self.returncode:
            raise RuntimeError(f"{command[:3]} exited {self.returncode}: {self.stdout[-2000:]}")
        return self


def run_sampling_rss(
    command: list[str], env: dict | None = None, every: float = 0.05, stderr=subprocess.DEVNULL
) -> SampledRun:
    """Run `command`, sampling every `every` s the RSS of it and of every process below it (psutil).
    Its stdout goes through a file, not a pipe, which would fill up and block it."""
    import psutil

    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as stdout:
        proc = subprocess.Popen(command, stdout=stdout, stderr=stderr, text=True, env=env)
        root, peaks, peak_sum = psutil.Process(proc.pid), {}, 0
        while proc.poll() is None:
            total = 0
            try:
                for p in [root, *root.children(recursive=True)]:
                    rss = p.memory_info().rss
                    peaks[p.pid] = max(peaks.get(p.pid, 0), rss)
                    total += rss
            except psutil.Error:
                pass
            peak_sum = max(peak_sum, total)
            time.sleep(every)
        stdout.seek(0)
        return SampledRun(stdout.read(), proc.returncode, peak_sum, peaks, proc.pid)
