"""`audit-bias` on the executor: the same report for 1 worker, 2 workers and Ray; a stopped audit resumes.

Real data: the labelled Story Cloze Test csv files in ../shared/data (English: the sentiment phase scores
about 20,000 unique sentences with VADER, cut here into shards of 1,000 to have many)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.audit import baselines as audit_baselines
from lotdata.audit import work as audit_work
from lotdata.audit.baselines import BaselineSpec
from lotdata.audit.run import audit, write_audit
from lotdata.audit.work import WORK_DIR
from lotdata.cli import app
from lotdata.errors import LotdataError
from lotdata.exec import ExecSettings

pytestmark = pytest.mark.slow

#: a learner, a stochastic one, the sentiment phase, a heuristic with ties and the options-only classifier
NAMES = ["constant_first", "random", "length", "sentiment_last", "frequency", "ending_only"]
FILES = ["results.json", "predictions.parquet", "scan.json", "quarantine.parquet"]


@pytest.fixture(scope="module")
def sct(shared_data) -> Path:
    return shared_data / "storycloze_spring2016_labeled"


@pytest.fixture(autouse=True)
def small_sentiment_shards(monkeypatch):
    monkeypatch.setitem(audit_work.SENTENCES_PER_SHARD, "en", 1000)  # the plan is made in the caller, Ray included


def _report(sct: Path, out: Path, **run) -> tuple[dict[str, float], dict[str, bytes]]:
    result = audit(sct, train_split="val", seed=0, baselines=NAMES, **run)  # 10 runs, as the README figures
    write_audit(result, out)
    return {r["id"]: r["accuracy"] for r in result.records}, {name: (out / name).read_bytes() for name in FILES}


def test_one_worker_two_workers_and_ray_give_the_same_report(sct: Path, tmp_path: Path, ray_local):
    one, one_files = _report(sct, tmp_path / "one")
    two, two_files = _report(sct, tmp_path / "two", execution=ExecSettings(workers=2))
    on_ray, ray_files = _report(sct, tmp_path / "ray", execution=ExecSettings(workers=2, executor="ray"))
    assert one_files == two_files == ray_files
    # the figures the audit gave before it ran on the executor (README, ROCStories Table 6 for constant_first)
    assert round(one["constant_first/val"], 3) == 0.514 and round(one["constant_first/test"], 3) == 0.513
    assert round(100 * one["sentiment_last/val"], 1) == 55.7 and round(100 * one["sentiment_last/test"], 1) == 56.0
    assert round(100 * one["frequency/test"], 1) == 57.6 and round(100 * one["ending_only/test"], 1) == 71.4
    assert round(100 * one["length/test"], 1) == 53.7
    assert "frequency/val" not in one and one == two == on_ray


class _Broken(audit_baselines.Length):
    def scores(self, items):
        raise ValueError("disk on fire")


def _markers(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("done/*.json")}


def test_a_stopped_audit_resumes_its_finished_shards(sct: Path, tmp_path: Path):
    work = tmp_path / "work"
    names = ["constant_first", "length", "sentiment_last"]
    with audit_baselines.BASELINE_REGISTRY.override(BaselineSpec("length", _Broken)):
        with pytest.raises(LotdataError, match="shard length: ValueError: disk on fire"):
            audit(sct, train_split="val", baselines=names, work=work)
    first = _markers(work)
    # the sentiment shards and the baseline before the broken one are done; nothing after it ran
    assert sum(1 for m in first if m.startswith("sentiment/")) > 10
    assert [m for m in first if m.startswith("jobs/")] == ["jobs/done/00000.json"]

    assert audit_baselines.get_baseline("length").make is audit_baselines.Length  # the built-in one is back
    seen: list[tuple[str, bool]] = []
    again = audit(sct, train_split="val", baselines=names, work=work, on_step=lambda n, r: seen.append((n, r)))
    assert again.resumed == ["constant_first"] and ("constant_first", True) in seen and ("length", False) in seen
    after = _markers(work)
    assert all(after[m] == first[m] for m in first)  # a finished shard is not redone
    assert set(after) - set(first) == {"jobs/done/00001.json", "jobs/done/00002.json", "jobs/done/00003.json"}
    fresh = audit(sct, train_split="val", baselines=names)
    assert again.records == fresh.records and again.scan == fresh.scan

    # other parameters are another job: every baseline shard runs again
    other = audit(sct, train_split="val", baselines=names, work=work, seed=1)
    assert other.resumed == []


def test_cli_resumes_a_stopped_report_and_removes_its_work_folder(sct: Path, tmp_path: Path):
    runner = CliRunner()
    out = tmp_path / "rep"
    args = [
        "audit-bias",
        str(sct),
        "--out",
        str(out),
        "--train-split",
        "val",
        "--workers",
        "1",
        "--seed",
        "2",
        "--baseline",
        "constant_first",
        "--baseline",
        "length",
    ]
    with audit_baselines.BASELINE_REGISTRY.override(BaselineSpec("length", _Broken)):
        stopped = runner.invoke(app, args)
    assert stopped.exit_code == 3 and "disk on fire" in stopped.output
    staged = tmp_path / ".rep.lotdata-next" / "rep"  # a stopped report is never published; its parts wait there
    assert not out.exists() and (staged / WORK_DIR / "jobs" / "done" / "00000.json").exists()
    done = runner.invoke(app, args)
    assert done.exit_code == 0, done.output
    assert "constant_first (done by an earlier run)" in done.output
    assert not (out / ".incomplete").exists() and not (out / WORK_DIR).exists() and not staged.parent.exists()
    meta = json.loads((out / "audit.json").read_text())
    assert meta["resumed"] == ["constant_first"] and meta["params"]["seed"] == 2
    ids = {r["id"] for r in json.loads((out / "results.json").read_text())}
    assert {"constant_first/val", "constant_first/test", "length/val", "length/test"} <= ids


def test_cli_executor_options(sct: Path, tmp_path: Path):
    runner = CliRunner()
    base = ["audit-bias", str(sct), "--train-split", "val", "--baseline", "constant_first"]
    ok = runner.invoke(app, base + ["--out", str(tmp_path / "a"), "--workers", "2", "--executor", "local"])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(app, base + ["--out", str(tmp_path / "b"), "--executor", "spark"])
    assert bad.exit_code == 1 and "unknown executor 'spark'" in bad.output
    zero = runner.invoke(app, base + ["--out", str(tmp_path / "c"), "--workers", "0"])
    assert zero.exit_code == 1 and "--workers" in zero.output
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()  # refused before any work
    nobody = runner.invoke(
        app, base + ["--out", str(tmp_path / "d"), "--executor", "ray", "--ray-address", "127.0.0.1:1"]
    )
    assert nobody.exit_code == 1 and "--ray-address 127.0.0.1:1" in nobody.output and "Traceback" not in nobody.output
