"""Issue 33: every number parameter has its range on the record, checked the same way for the CLI and the recipe.

The CLI refuses an out-of-range option with exit 1 naming it, before any work (nothing written); a recipe refuses
an out-of-range key of a [[build]] table (its `params` table and its `split` included) with exit 3 naming the key
when it is validated, before its first step runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.models.commands import _TINY_CONFIG as TINY_CONFIG
from lotdata.models.config import SETTING_CHECKS, config_from_dict
from lotdata.stage import params_of

runner = CliRunner()

_TINY = TINY_CONFIG  # the records' own sample config


def _invoke(args: list[str]):
    return runner.invoke(app, args, catch_exceptions=False)


def _left(folder: Path) -> list[str]:
    """What a refused command left in `folder` besides the inputs the test made."""
    return sorted(p.name for p in folder.iterdir() if p.name not in {"tiny.toml", "data", "stories.parquet"})


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(_TINY, encoding="utf-8")
    (tmp_path / "data").mkdir()  # the runner refuses the option before it reads the dataset
    return path


@pytest.mark.parametrize(
    "option, value",
    [
        ("--epochs", "0"),
        ("--batch-size", "0"),
        ("--batch-size", "-4"),
        ("--lr", "-1"),
        ("--lr", "0"),
        ("--patience", "-1"),
        ("--train-size", "0"),
        ("--grad-accum", "0"),
        ("--max-length", "0"),
        ("--gpu-batch-size", "0"),
    ],
)
def test_baseline_train_refuses_out_of_range_options(tmp_path: Path, config: Path, option: str, value: str) -> None:
    out = tmp_path / "bt"
    args = ["baseline", "train", "--config", str(config), "--data", str(tmp_path / "data"), "--out", str(out)]
    result = _invoke([*args, "--device", "cpu", option, value])
    assert result.exit_code == 1, result.output
    assert option in result.output
    assert _left(tmp_path) == []


@pytest.mark.parametrize("option, value", [("--epochs", "0"), ("--sizes", "1.5"), ("--sizes", "0.5,-2")])
def test_baseline_curve_refuses_out_of_range_options(tmp_path: Path, config: Path, option: str, value: str) -> None:
    args = [
        "baseline",
        "curve",
        "--config",
        str(config),
        "--data",
        str(tmp_path / "data"),
        "--out",
        str(tmp_path / "c"),
    ]
    result = _invoke([*args, "--device", "cpu", option, value])
    assert result.exit_code == 1, result.output
    assert option in result.output
    assert _left(tmp_path) == []


def test_train_options_carry_the_configs_ranges() -> None:
    """One source: each option of `baseline train` that sets a config value has the range the config holds it to,
    and the config refuses what the option refuses."""
    from lotdata.models.commands import TrainParams

    names = {"lr": "learning_rate"}
    checks = {p.name: p.check for p in params_of(TrainParams)}
    for option in ("epochs", "batch_size", "gpu_batch_size", "grad_accum", "max_length", "lr", "patience"):
        assert checks[option] == SETTING_CHECKS[names.get(option, option)], option
    base = {"name": "t", "architecture": "bert"}
    for key, value in (("epochs", 0), ("grad_accum", 0), ("learning_rate", -1.0), ("learning_rate", 0)):
        with pytest.raises(Exception, match=key):
            config_from_dict({**base, "train": {key: value}})
    assert config_from_dict({**base, "train": {"seed": -3, "weight_decay": 0.0}}).train.seed == -3


@pytest.fixture
def stories(tmp_path: Path) -> Path:
    from lotdata.tasks.commands import sample_stories

    return sample_stories(tmp_path / "stories.parquet")


@pytest.mark.parametrize(
    "task, option, value",
    [
        ("senpos", "--max-words", "-1"),
        ("senpos", "--min-candidates", "0"),
        ("plotcom", "--max-words", "-2"),
        ("outgen", "--max-phrases", "0"),
        ("outgen", "--max-phrase-words", "-3"),
    ],
)
def test_build_refuses_out_of_range_options(tmp_path: Path, stories: Path, task: str, option: str, value: str) -> None:
    result = _invoke(["build", task, "--stories", str(stories), "--out", str(tmp_path / "b"), option, value])
    assert result.exit_code == 1, result.output
    assert option in result.output
    assert "too_few_sentences" not in result.output
    assert _left(tmp_path) == []


def _recipe(tmp_path: Path, build: str) -> Path:
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(f'[read]\ninputs = ["lotdata:sample"]\n\n[[build]]\n{build}\n', encoding="utf-8")
    return recipe


@pytest.mark.parametrize(
    "build, key",
    [
        ('task = "senpos"\nparams = { max_words = -1 }', "max_words"),
        ('task = "plotcom"\nparams = { max_words = -5 }', "max_words"),
        ('task = "outgen"\nparams = { max_phrases = 0 }', "max_phrases"),
        ('task = "outgen"\nparams = { max_words = -3 }', "max_words"),
        ('task = "senpos"\nparams = { max_words = "many" }', "max_words"),
        ('task = "senpos"\nparams = { max_wordz = 3 }', "max_wordz"),
        ('task = "senpos"\nsplit = "train=0.8,val=1.5,test=0.1"', "split"),
        ('task = "senpos"\nsplit = "train=0.5,val=0.1,test=0.1"', "split"),
        ('task = "plotcom"\nclozet_split = "val=0.5,test=0.5"', "clozet_split"),
    ],
)
def test_recipe_refuses_out_of_range_build_keys_before_any_step(tmp_path: Path, build: str, key: str) -> None:
    out = tmp_path / "run"
    result = _invoke(["run", str(_recipe(tmp_path, build)), "--out", str(out)])
    assert result.exit_code == 3, result.output
    assert f"'{key}'" in result.output
    assert "[[build]]" in result.output
    assert not (out / "stories.parquet").exists()  # [read] did not run
    assert not out.exists() or not any(out.iterdir())


def test_recipe_accepts_in_range_build_keys(tmp_path: Path) -> None:
    """The check refuses only what is out of range: `max_words = 0` (no limit) and a good split run."""
    build = 'task = "senpos"\nparams = { max_words = 0 }\nsplit = "train=0.8,val=0.1,test=0.1"\nn = 30'
    out = tmp_path / "run"
    result = _invoke(["run", str(_recipe(tmp_path, build)), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "senpos" / "manifest.json").is_file()
