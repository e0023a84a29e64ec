"""lotdata.exec.run_shards: shard-order results, done markers, errors naming the shard, local vs workers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lotdata.errors import InputError
from lotdata.exec import Shard, ShardError, openmp_loaded, run_shards, start_method


def count_words(shard: Shard, part: Path) -> dict:
    """A per-shard function: count the words of a byte range of a text file."""
    data = Path(shard.path).read_bytes()[shard.start : shard.stop]
    if b"BAD" in data:
        raise InputError("planted bad record", path=shard.path)
    words = len(data.split())
    part.write_text(json.dumps({"words": words}))
    return {"words": words}


def _shards(tmp_path: Path, n_files: int = 4) -> list[Shard]:
    shards = []
    for i in range(n_files):
        path = tmp_path / f"in{i}.txt"
        path.write_text(" ".join(["w"] * (i + 1) * 10) + "\n")
        shards.append(Shard(str(path), 0, None, path.stat().st_size))
    return shards


def test_results_in_shard_order_and_equal_for_one_or_two_workers(tmp_path: Path) -> None:
    shards = _shards(tmp_path)
    one = run_shards(count_words, shards, tmp_path / "one", workers=1)
    two = run_shards(count_words, shards, tmp_path / "two", workers=2)
    assert [r.stats["words"] for r in one] == [10, 20, 30, 40]
    assert [r.stats for r in two] == [r.stats for r in one]
    assert [r.index for r in two] == [0, 1, 2, 3]
    assert [json.loads(r.part.read_text()) for r in two] == [r.stats for r in one]


def test_workers_are_forked_unless_an_openmp_runtime_is_loaded(tmp_path: Path, monkeypatch) -> None:
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /usr/lib/libc.so.6\n")
    assert not openmp_loaded(maps)
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /site-packages/pydivsufsort.libs/libgomp-e985bcbb.so.1.0.0\n")
    assert openmp_loaded(maps)
    assert not openmp_loaded(tmp_path / "absent")
    monkeypatch.setattr("lotdata.exec.openmp_loaded", lambda: False)
    assert start_method() == "fork"
    monkeypatch.setattr("lotdata.exec.openmp_loaded", lambda: True)
    assert start_method() == "forkserver"
    two = run_shards(count_words, _shards(tmp_path), tmp_path / "two", workers=2)  # a pool from the fork server
    assert [r.stats["words"] for r in two] == [10, 20, 30, 40]


def test_done_markers_make_a_rerun_skip_and_a_new_fingerprint_rerun(tmp_path: Path) -> None:
    shards = _shards(tmp_path, 2)
    first = run_shards(count_words, shards, tmp_path / "w", workers=1, fingerprint="a")
    assert not any(r.skipped for r in first)
    assert sorted(p.name for p in (tmp_path / "w" / "done").iterdir()) == ["00000.json", "00001.json"]
    again = run_shards(count_words, shards, tmp_path / "w", workers=1, fingerprint="a")
    assert all(r.skipped for r in again) and [r.stats for r in again] == [r.stats for r in first]
    changed = run_shards(count_words, shards, tmp_path / "w", workers=1, fingerprint="b")
    assert not any(r.skipped for r in changed)
    (tmp_path / "w" / "parts" / "00001.parquet").unlink()  # a lost part is redone even with a marker
    assert [r.skipped for r in run_shards(count_words, shards, tmp_path / "w", workers=1, fingerprint="b")] == [
        True,
        False,
    ]


def test_a_failing_shard_is_named_or_skipped_and_retried(tmp_path: Path) -> None:
    shards = _shards(tmp_path, 3)
    Path(shards[1].path).write_text("one BAD two\n")
    with pytest.raises(ShardError, match="in1.txt.*planted bad record") as info:
        run_shards(count_words, shards, tmp_path / "w", workers=2)
    assert info.value.exit_code == 3
    results = run_shards(count_words, shards, tmp_path / "w", workers=2, on_error="skip")
    assert [r.error is not None for r in results] == [False, True, False]
    assert not (tmp_path / "w" / "done" / "00001.json").exists()
    Path(shards[1].path).write_text("fixed now\n")
    rerun = run_shards(count_words, shards, tmp_path / "w", workers=1, on_error="skip")
    assert [r.skipped for r in rerun] == [True, False, True] and rerun[1].stats == {"words": 2}


def test_unknown_executor_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="unknown executor 'slurm'"):
        run_shards(count_words, _shards(tmp_path, 1), tmp_path / "w", executor="slurm")


_SLOW_JOB = """
import sys, time
from pathlib import Path
from lotdata.exec import Shard, run_shards

def slow(shard, part):
    Path(sys.argv[2], f"{__import__('os').getpid()}.pid").write_text("")
    time.sleep(60)
    part.write_text("late")
    return {}

if __name__ == "__main__":
    run_shards(slow, [Shard(f"s{i}") for i in range(4)], Path(sys.argv[1]), executor="local", workers=2, progress=False)
"""


def test_workers_die_when_the_job_is_killed(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    script, pids = tmp_path / "job.py", tmp_path / "pids"
    script.write_text(_SLOW_JOB)
    pids.mkdir()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    job = subprocess.Popen([sys.executable, str(script), str(tmp_path / "out"), str(pids)], env=env)
    deadline = time.monotonic() + 60
    while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    workers = [int(p.stem) for p in pids.iterdir()]
    assert len(workers) == 2, "the two workers never started"
    job.send_signal(signal.SIGKILL)
    job.wait()

    def alive(pid: int) -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except OSError:
            return False
        return state != "Z"

    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(pid) for pid in workers), "a worker outlived the killed job"
    assert not list((tmp_path / "out").glob("parts/*")) or all(
        p.read_text() != "late" for p in (tmp_path / "out").glob("parts/*")
    )


@pytest.mark.parametrize("address", ["127.0.0.1:1", "not-an-address"])
def test_a_ray_address_nobody_answers_is_a_clear_error_not_minutes_of_retries(tmp_path: Path, address: str) -> None:
    import time

    from lotdata.errors import LotdataError

    pytest.importorskip("ray", reason="the ray extra is part of the test extra")
    started = time.monotonic()
    with pytest.raises(LotdataError, match="--ray-address"):
        run_shards(count_words, [Shard("a")], tmp_path / "out", executor="ray", ray_address=address, progress=False)
    assert time.monotonic() - started < 30
