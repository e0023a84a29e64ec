"""`lotdata evaluate` and `lotdata baseline ...` run through the one runner (issue 33): an output never replaces an
input, an output of another kind is refused, and a run that fails at its very end (a full disk) exits 1 naming
the file and leaves the previous output byte-identical."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.models import commands
from lotdata.testing import digest

runner = CliRunner()


def _cli(*args):
    return runner.invoke(app, [str(a) for a in args])


def _disk_full(*args, **kwargs):
    """A library write that fails as on a full disk, naming the path it was given."""
    path = [a for a in args if isinstance(a, (Path, str)) and "\n" not in str(a)][-1]
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


# ---------------------------------------------------------------------------------------------- evaluate


def test_evaluate_json_over_an_input_is_refused_and_the_input_kept(tmp_path: Path) -> None:
    args = commands._evaluate_sample(tmp_path)
    gold = tmp_path / "gold.jsonl"
    before = gold.read_bytes()
    result = _cli("evaluate", *args[:-1], gold)  # --json names the predictions (= gold) file
    assert result.exit_code == 1 and "--json" in result.output and "gold.jsonl" in result.output
    assert gold.read_bytes() == before


def test_evaluate_json_naming_a_folder_or_a_device_is_refused(tmp_path: Path) -> None:
    args = commands._evaluate_sample(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "keep.txt").write_text("keep\n")
    result = _cli("evaluate", *args[:-1], tmp_path / "folder")
    assert result.exit_code == 1 and "is a folder" in result.output
    assert (tmp_path / "folder" / "keep.txt").read_text() == "keep\n"
    assert _cli("evaluate", *args[:-1], "/dev/null").exit_code == 1


def test_evaluate_full_disk_keeps_the_previous_scores(tmp_path: Path, monkeypatch) -> None:
    import lotdata.io

    args = commands._evaluate_sample(tmp_path)
    first = _cli("evaluate", *args)
    assert first.exit_code == 0, first.output
    scores = tmp_path / "scores.json"
    assert json.loads(scores.read_text())["accuracy"] == 1.0
    (tmp_path / "gold.jsonl").write_text(commands._clozet_lot_lines(4), encoding="utf-8")  # different scores now
    before = scores.read_bytes()
    monkeypatch.setattr(lotdata.io, "write_text", _disk_full)
    result = _cli("evaluate", *args)
    assert result.exit_code == 1 and "scores.json" in result.output and "no space left" in result.output
    assert scores.read_bytes() == before and not (tmp_path / "scores.json.lock").exists()


def test_evaluate_to_stdout_writes_no_file(tmp_path: Path) -> None:
    args = commands._evaluate_sample(tmp_path)
    result = _cli("evaluate", *args[:-1], "-")
    assert result.exit_code == 0 and json.loads(result.stdout)["accuracy"] == 1.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.jsonl"]


@pytest.mark.parametrize(
    "option,value,words",
    [("--definition", "nope", "choose from lot"), ("--human", "1,2", "comma-separated numbers")],
)
def test_evaluate_bad_options_are_exit_1_before_any_file(tmp_path: Path, option, value, words) -> None:
    args = commands._evaluate_sample(tmp_path)
    result = _cli("evaluate", *args, option, value)
    assert result.exit_code == 1 and words in result.output and option in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.jsonl"]  # no staging folder, no lock


# ---------------------------------------------------------------------------------------------- baseline table


def test_table_out_over_an_input_refused_full_disk_keeps_the_previous_table(tmp_path: Path, monkeypatch) -> None:
    import lotdata.io

    args = commands._table_sample(tmp_path)
    results = tmp_path / "run" / "results.json"
    before = results.read_bytes()
    inside = _cli("baseline", "table", tmp_path / "run", "--out", results)
    assert inside.exit_code == 1 and "results.json" in inside.output and results.read_bytes() == before
    assert _cli("baseline", "table", tmp_path / "run", "--out", tmp_path).exit_code == 1  # around the run folder
    (tmp_path / "t").mkdir()
    assert _cli("baseline", "table", tmp_path / "run", "--out", tmp_path / "t").exit_code == 1  # a folder
    done = _cli("baseline", "table", *args)
    assert done.exit_code == 0 and "| tiny |" in done.output
    table = tmp_path / "table.md"
    assert table.read_text(encoding="utf-8") in done.output
    previous = table.read_bytes()
    results.write_text(json.dumps({**json.loads(before), "model": "other"}), encoding="utf-8")
    monkeypatch.setattr(lotdata.io, "write_text", _disk_full)
    failed = _cli("baseline", "table", *args)
    assert failed.exit_code == 1 and "table.md" in failed.output and table.read_bytes() == previous


# ---------------------------------------------------------------------------------------------- training commands


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A tiny run folder of `baseline train` (its dataset and config beside it), trained once for the module."""
    pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("models")
    result = _cli("baseline", "train", *commands._train_sample(folder))
    assert result.exit_code == 0, result.output
    return folder


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_train_out_over_the_data_or_another_kind_is_refused(trained: Path, tmp_path: Path) -> None:
    folder = _copy(trained, tmp_path / "f")
    data = folder / "data"
    kept = digest([data])
    base = ["baseline", "train", "--config", folder / "tiny.toml", "--data", data, "--device", "cpu", "--out"]
    same = _cli(*base, data)
    assert same.exit_code == 1 and "--out" in same.output and "input --data" in same.output
    assert _cli(*base, data / "run").exit_code == 1  # inside the dataset
    other = folder / "other"  # a dataset folder is no run folder
    _cli("import", "lot", folder / "lot", "--task", "clozet", "--out", other)
    held = digest([other])
    wrong = _cli(*base, other)
    assert wrong.exit_code == 1 and "dataset" in wrong.output and digest([other]) == held
    assert digest([data]) == kept


def test_train_full_disk_at_the_end_keeps_the_previous_run(trained: Path, tmp_path: Path, monkeypatch) -> None:
    from lotdata.models import runs

    folder = _copy(trained, tmp_path / "f")
    run = folder / "run"
    before = digest([run])
    monkeypatch.setattr(runs, "_write_results", _disk_full)
    args = ["--config", folder / "tiny.toml", "--data", folder / "data", "--out", run, "--device", "cpu"]
    for extra in ([], ["--restart"]):
        result = _cli("baseline", "train", *args, *extra)
        assert result.exit_code == 1 and "run" in result.output and "no space left" in result.output, result.output
        assert digest([run]) == before, extra
    monkeypatch.undo()
    again = _cli("baseline", "train", *args)  # the next run completes from the staged parts and publishes
    assert again.exit_code == 0, again.output
    assert not (folder / ".run.lotdata-next").exists() and (run / "results.json").exists()


def test_predict_refuses_to_write_over_the_run_and_keeps_results_on_a_full_disk(
    trained: Path, tmp_path: Path, monkeypatch
) -> None:
    from lotdata.models import runs

    folder = _copy(trained, tmp_path / "f")
    run, data = folder / "run", folder / "data"
    held = digest([run, data])
    base = ["baseline", "predict", "--run", run, "--data", data, "--device", "cpu", "--out"]
    for clash in (run / "best", run / "history.jsonl", data / "test.parquet", run):
        refused = _cli(*base, clash)
        assert refused.exit_code == 1, (clash, refused.output)
    assert digest([run, data]) == held
    pred = run / "pred.jsonl"  # predictions may go inside the run folder (README)
    done = _cli(*base, pred)
    assert done.exit_code == 0, done.output
    assert "baseline predict" in done.output  # the title names the path, cut to the terminal's width
    results = json.loads((run / "results.json").read_text())
    assert "test" in results["scores"] and len(pred.read_text().splitlines()) == 4
    published = [pred, run / "results.json", run / "best", run / "last"]
    before = digest(published)
    monkeypatch.setattr(runs, "write_text", _disk_full)  # RUN/results.json, the last write
    failed = _cli(*base, pred)
    assert failed.exit_code == 1 and "results.json" in failed.output and "no space left" in failed.output
    assert digest(published) == before  # the failed run's parts stay in run/.pred.jsonl.lotdata-next/
    monkeypatch.undo()
    again = _cli(*base, pred)  # a failed run's half-written staged results.json is not resumed from
    assert again.exit_code == 0, again.output
    assert json.loads((run / "results.json").read_text())["scores"] == results["scores"]


def test_curve_and_cartography_refuse_a_dataset_as_out_and_keep_the_previous_on_a_full_disk(
    trained: Path, tmp_path: Path, monkeypatch
) -> None:
    from lotdata.models import cartography, runs

    folder = _copy(trained, tmp_path / "f")
    data = folder / "data"
    kept = digest([data])
    for name, sample, out, library, function in (
        ("curve", commands._curve_sample, folder / "curve", runs, "plot_curve"),
        ("cartography", commands._cartography_sample, folder / "map", cartography, "plot_map"),
    ):
        args = sample(folder)
        i = args.index("--out")
        same = _cli("baseline", name, *args[:i], "--out", data, *args[i + 2 :])
        assert same.exit_code == 1 and "input --data" in same.output, same.output
        done = _cli("baseline", name, *args)
        assert done.exit_code == 0, done.output
        before = digest([out])
        monkeypatch.setattr(library, function, _disk_full)
        failed = _cli("baseline", name, *args)
        assert failed.exit_code == 1 and "no space left" in failed.output, failed.output
        assert digest([out]) == before
        monkeypatch.undo()
    summary = json.loads((folder / "map" / "cartography.json").read_text())
    assert summary["table"] == str(folder / "map" / "cartography.parquet")  # the published path, not the staged one
    assert digest([data]) == kept


def test_the_records_module_imports_without_torch() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['transformers'] = None\n"
        "import lotdata.models.commands, lotdata.models.cli\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
