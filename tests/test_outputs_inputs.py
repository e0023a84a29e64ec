"""Outputs never touch inputs (issue 23, class 1): every command and recipe step refuses, before any work,
an output that is, contains or lies inside an input or another output, and a recipe output outside its run folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.io import sha256_file
from lotdata.paths import PathClashError, check_inside, check_outputs

runner = CliRunner()


def _tree_digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): sha256_file(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def test_check_outputs_relations(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for out, relation in ((data, "is"), (tmp_path, "contains"), (data / "sub", "lies inside")):
        with pytest.raises(PathClashError, match=relation) as err:
            check_outputs({"--out": out}, {"PATH": data})
        assert str(data) in str(err.value) and err.value.exit_code == 1
    check_outputs({"--out": tmp_path / "other"}, {"PATH": data})  # a sibling is fine
    with pytest.raises(PathClashError, match="two outputs"):
        check_outputs({"--out": tmp_path / "a", "--export-hard": tmp_path / "a"}, {})
    (tmp_path / "link").symlink_to(data)
    with pytest.raises(PathClashError):  # a symlink to the input is the input
        check_outputs({"--out": tmp_path / "link"}, {"PATH": data})
    with pytest.raises(PathClashError, match="outside the run's folder"):
        check_inside(tmp_path / "run", tmp_path / "run" / "../../../../etc/x", "out")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A stories table and a small clozet dataset (imported SCT) the commands below read."""
    root = tmp_path_factory.mktemp("clash")
    stories = root / "stories.parquet"
    assert runner.invoke(app, ["read", "lotdata:sample", "--out", str(stories)]).exit_code == 0
    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    rows = "".join(
        f"s{i},Tom had a dog {i}.,It was old.,One day it ran.,Tom looked for it.,He found it {i}.,He ate a car {i}.,{1 + i % 2}\n"
        for i in range(40)
    )
    (root / "val.csv").write_text(header + rows, encoding="utf-8")
    (root / "test.csv").write_text(header + rows.replace("Tom", "Ann"), encoding="utf-8")
    sct = root / "sct"
    assert (
        runner.invoke(
            app,
            [
                "import",
                "storycloze",
                "--val",
                str(root / "val.csv"),
                "--test",
                str(root / "test.csv"),
                "--out",
                str(sct),
            ],
        ).exit_code
        == 0
    )
    return root


@pytest.mark.parametrize("case", ["export_hard_is_input", "export_hard_is_out", "out_is_input"])
def test_audit_bias_outputs_never_touch_inputs(sample, case):
    sct = sample / "sct"
    before = _tree_digest(sct)
    args = {
        "export_hard_is_input": ["--out", str(sample / "rep1"), "--export-hard", str(sct)],
        "export_hard_is_out": ["--out", str(sample / "rep2"), "--export-hard", str(sample / "rep2")],
        "out_is_input": ["--out", str(sct / "report")],
    }[case]
    result = runner.invoke(app, ["audit-bias", str(sct), *args, "--baseline", "random"])
    assert result.exit_code == 1, result.output
    assert "must not" in result.output
    assert _tree_digest(sct) == before
    assert not (sample / "rep1").exists() and not (sample / "rep2").exists()


def test_read_out_is_its_input(sample, tmp_path):
    copy = tmp_path / "s.parquet"
    shutil.copy(sample / "stories.parquet", copy)
    digest = sha256_file(copy)
    result = runner.invoke(app, ["read", str(copy), "--out", str(copy)])
    assert result.exit_code == 1 and "is the input" in result.output and str(copy) in result.output
    assert sha256_file(copy) == digest


def test_build_out_is_the_stories_folder(sample, tmp_path):
    folder = tmp_path / "clean"
    folder.mkdir()
    shutil.copy(sample / "stories.parquet", folder / "stories.parquet")
    before = _tree_digest(folder)
    result = runner.invoke(app, ["build", "outgen", "--stories", str(folder / "stories.parquet"), "--out", str(folder)])
    assert result.exit_code == 1 and "contains the input" in result.output
    assert _tree_digest(folder) == before


def test_import_storycloze_same_csv_twice_and_out(sample, tmp_path):
    same = runner.invoke(
        app,
        [
            "import",
            "storycloze",
            "--val",
            str(sample / "val.csv"),
            "--test",
            str(sample / "val.csv"),
            "--out",
            str(tmp_path / "x"),
        ],
    )
    assert same.exit_code == 1 and "same file" in same.output
    copy = tmp_path / "copy.csv"
    shutil.copy(sample / "val.csv", copy)  # the same bytes under another name
    bytes_twice = runner.invoke(
        app,
        ["import", "storycloze", "--val", str(sample / "val.csv"), "--test", str(copy), "--out", str(tmp_path / "y")],
    )
    assert bytes_twice.exit_code == 1 and not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def _recipe(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "recipe.toml"
    path.write_text(f'out = "{tmp_path / "run"}"\n[read]\ninputs = ["lotdata:sample"]\n' + body, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "body, words",
    [
        ('[[build]]\ntask = "outgen"\nout = "x"\n[[build]]\ntask = "plotcom"\nout = "x"\n', "two outputs"),
        ('[[build]]\ntask = "outgen"\nout = "../../../../etc/x"\n', "outside the run's folder"),
        ('[[build]]\ntask = "outgen"\nout = "stories.parquet"\n', "two outputs"),
    ],
)
def test_recipe_outputs_checked_before_any_step(tmp_path, body, words):
    result = runner.invoke(app, ["run", str(_recipe(tmp_path, body))])
    assert result.exit_code == 1, result.output
    assert words in result.output
    assert not (tmp_path / "run" / "stories.parquet").exists()  # refused before the read step ran
