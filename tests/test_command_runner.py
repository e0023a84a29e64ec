"""The one runner (`lotdata.command.run_command`) on made-up commands: what it guarantees, and that
`lotdata.testing`'s checks catch a command that goes around it."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from lotdata.command import Command, Output, OutputKindError, Run, recover_swap, run_command
from lotdata.errors import InputError, LotdataError
from lotdata.stage import param
from lotdata.testing import CHECKS, check_command, check_failure_keeps_previous_output


@dataclass(frozen=True, kw_only=True)
class CopyParams:
    source: str = param(help="A text file.", path="input")
    out: str = param(help="A folder to write.")
    times: int = param(1, help="Copies.", check=">0")
    quarantine: bool = param(False, help="Also write OUT.quarantine.txt.")


def _write_copies(run: Run, into: Path) -> dict:
    p: CopyParams = run.params
    text = Path(p.source).read_text(encoding="utf-8")
    into.mkdir(parents=True, exist_ok=True)
    for i in range(p.times):
        (into / f"copy{i}.txt").write_text(text, encoding="utf-8")
    (into / "manifest.json").write_text(json.dumps({"kind": "copies", "times": p.times}))
    if p.quarantine:
        into.with_name(into.name + ".quarantine.txt").write_text("rejected\n")
    return {"copies": p.times}


def _sample(folder: Path) -> list[str]:
    (folder / "in.txt").write_text("小明去学校。\n", encoding="utf-8")
    return [str(folder / "in.txt"), "--out", str(folder / "copies"), "--times", "2", "--quarantine"]


def _outputs(p: CopyParams) -> list[Output]:
    out = Path(p.out)
    return [
        Output("--out", out, kind="copies"),
        Output("quarantine", out.with_name(out.name + ".quarantine.txt"), side=True, optional=True),
    ]


GOOD = Command(
    name="copy",
    params=CopyParams,
    execute=lambda run: _write_copies(run, run.out("--out")),
    inputs=lambda p: {"SOURCE": p.source},
    outputs=_outputs,
    summary="Copy a file.",
    arguments=("source",),
    sample=_sample,
)


def _both(run: Run) -> dict:
    import shutil

    shutil.rmtree(run.final("--out"), ignore_errors=True)  # as the old index build deleted its manifest first
    _write_copies(run, run.final("--out"))
    return _write_copies(run, run.out("--out"))


#: also writes straight into the published folder: every guarantee of publication is lost
BYPASS = Command(
    name="copy-bypass",
    params=CopyParams,
    execute=_both,
    inputs=GOOD.inputs,
    outputs=_outputs,
    summary="Copy a file, badly.",
    arguments=("source",),
    sample=_sample,
)


def test_a_command_through_the_runner_passes_every_check(tmp_path: Path) -> None:
    check_command(GOOD, tmp_path)


def test_the_checks_catch_a_command_that_writes_around_the_runner(tmp_path: Path) -> None:
    with pytest.raises(AssertionError, match="changed the previous output"):
        check_failure_keeps_previous_output(BYPASS, tmp_path)


def test_a_command_that_writes_only_around_the_runner_fails_its_sample(tmp_path: Path) -> None:
    from dataclasses import replace

    from lotdata.testing import check_sample_runs

    only_final = replace(BYPASS, execute=lambda run: _write_copies(run, run.final("--out")))
    with pytest.raises(AssertionError, match="wrote nothing there"):
        check_sample_runs(only_final, tmp_path)


def test_a_failing_check_is_reported_per_check(tmp_path: Path) -> None:
    failures = []
    for check in CHECKS:
        try:
            check(BYPASS, tmp_path / check.__name__)
        except AssertionError as exc:
            failures.append(check.__name__)
            assert "copy-bypass" in str(exc)
    assert "check_failure_keeps_previous_output" in failures


def _params(tmp_path: Path, **kw) -> CopyParams:
    (tmp_path / "in.txt").write_text("text\n", encoding="utf-8")
    return CopyParams(source=str(tmp_path / "in.txt"), out=str(kw.pop("out", tmp_path / "copies")), **kw)


def test_a_stale_side_output_is_removed_when_a_run_writes_none(tmp_path: Path) -> None:
    run_command(GOOD, _params(tmp_path, quarantine=True))
    side = tmp_path / "copies.quarantine.txt"
    assert side.exists()
    run_command(GOOD, _params(tmp_path, quarantine=False))
    assert not side.exists() and (tmp_path / "copies" / "copy0.txt").exists()


def test_a_rebuild_with_fewer_files_leaves_no_stale_file(tmp_path: Path) -> None:
    run_command(GOOD, _params(tmp_path, times=3))
    run_command(GOOD, _params(tmp_path, times=1))
    assert sorted(p.name for p in (tmp_path / "copies").iterdir()) == ["copy0.txt", "manifest.json"]


def test_a_named_pipe_as_output_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(OutputKindError, match="named pipe"):
        run_command(GOOD, _params(tmp_path, out=tmp_path / "pipe"))


def test_an_interrupted_swap_is_recovered(tmp_path: Path) -> None:
    out = tmp_path / "copies"
    old = tmp_path / ".copies.lotdata-old"
    old.mkdir()
    (old / "copy0.txt").write_text("previous\n")
    recover_swap(out)  # killed between the two renames: the previous output is put back
    assert (out / "copy0.txt").read_text() == "previous\n" and not old.exists()


def test_an_unreadable_input_is_exit_3_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_bytes(b"\xff\xfe\xfa not utf-8")
    with pytest.raises(InputError) as err:
        run_command(GOOD, CopyParams(source=str(tmp_path / "in.txt"), out=str(tmp_path / "copies")))
    assert err.value.exit_code == 3 and "in.txt" in str(err.value)
    assert not (tmp_path / "copies").exists()


def test_a_full_disk_names_the_file_and_exits_1(tmp_path: Path, monkeypatch) -> None:
    import errno

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    run_command(GOOD, _params(tmp_path))
    before = (tmp_path / "copies" / "copy0.txt").read_text()
    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(LotdataError) as err:
        run_command(GOOD, CopyParams(source=str(tmp_path / "in.txt"), out=str(tmp_path / "copies")))
    assert err.value.exit_code == 1 and "no space left" in str(err.value)
    assert f"{tmp_path / 'copies' / 'copy0.txt'}:" in str(err.value)  # the file it was to become, not the staged one
    monkeypatch.undo()
    assert (tmp_path / "copies" / "copy0.txt").read_text() == before


def test_a_range_is_refused_with_the_cli_flag(tmp_path: Path) -> None:
    with pytest.raises(LotdataError, match="--times must be an integer > 0") as err:
        run_command(GOOD, _params(tmp_path, times=0))
    assert err.value.exit_code == 1 and not (tmp_path / "copies").exists()


@dataclass(frozen=True, kw_only=True)
class LedgerParams:
    ledger: str = param(help="A ledger of what was done outside.")
    items: int = param(3, help="Items to do.", check=">0")
    fail_at: int = param(-1, help="Fail after this many items (-1: never).")


def _ledger(run: Run) -> dict:
    p: LedgerParams = run.params
    path = run.out("--ledger")
    done = json.loads(path.read_text()) if path.exists() else []
    for i in range(len(done), p.items):
        if i == p.fail_at:
            raise KeyboardInterrupt  # cut short after the world has changed
        done.append(i)  # e.g. a task imported on a server
        path.write_text(json.dumps(done))
        run.checkpoint("--ledger")
    return {"done": len(done)}


LEDGER = Command(
    name="ledger",
    params=LedgerParams,
    execute=_ledger,
    outputs=lambda p: [Output("--ledger", Path(p.ledger), update=True)],
    summary="Record what was done.",
)


def test_a_checkpoint_publishes_an_update_output_before_the_run_ends(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger.json"
    with pytest.raises(KeyboardInterrupt):
        run_command(LEDGER, LedgerParams(ledger=str(ledger), items=5, fail_at=2))
    assert json.loads(ledger.read_text()) == [0, 1]  # what happened outside is published, not only staged
    assert run_command(LEDGER, LedgerParams(ledger=str(ledger), items=5)) == {"done": 5}
    assert json.loads(ledger.read_text()) == [0, 1, 2, 3, 4] and not list(tmp_path.glob(".*lotdata*"))


def test_only_an_update_output_can_be_checkpointed(tmp_path: Path) -> None:
    from dataclasses import replace

    plain = replace(LEDGER, outputs=lambda p: [Output("--ledger", Path(p.ledger))])
    with pytest.raises(LotdataError, match="only an update output"):
        run_command(plain, LedgerParams(ledger=str(tmp_path / "ledger.json")))
    assert not (tmp_path / "ledger.json").exists()
