"""Every registered pipeline stage passes the same checks (in the spirit of scikit-learn's
`parametrize_with_checks` and tests/test_task_conformance.py): `lotdata.testing.stages`' checks (its parameters
carry a default and help, the recipe schema holds every one, a bad value is named with its table and key), and
here what needs lotdata's own CLI and files: its command exposes them with the same default, and
pipelines/README.md lists them. A made-up stage registered here runs end to end through `lotdata run` with no
other file edited.

Adding a stage: one module in its stage's folder (`stage.py` or `*_stage.py`, found by `lotdata.stage`) that
calls `register_stage`, and an entry in COMMANDS below (None for a stage without a command of its own).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import typer
from typer.testing import CliRunner

from lotdata import stage as stage_module
from lotdata.cli import app
from lotdata.exec import ExecSettings
from lotdata.io import write_parquet
from lotdata.schema import STORIES
from lotdata.stage import (
    Stage,
    StepContext,
    builtin_stage_modules,
    builtin_stages,
    files_of,
    param,
    params_of,
    recipe_schema,
    register_stage,
    render_readme,
    stages,
)
from lotdata.testing.stages import STAGE_CHECKS, check_stage

REPO = Path(__file__).resolve().parents[1]
#: stage -> the command that runs it alone (its words after `lotdata`); None: only in a recipe
COMMANDS: dict[str, list[str] | None] = {
    "crawl": ["crawl"],
    "extract": ["extract"],
    "read": ["read"],
    "clean": ["clean"],
    "build": ["build", "senpos"],
    "annotate": None,  # `annotate push` takes the job's own options (lotdata/annotate)
    "audit": ["audit-bias"],
}


def _command(words: list[str]) -> click.Command:
    command = typer.main.get_command(app)
    for word in words:
        command = command.commands[word]  # type: ignore[attr-defined]
    return command


BUILTIN = sorted(COMMANDS)


def test_every_registered_stage_has_a_conformance_entry():
    assert sorted(s.name for s in builtin_stages()) == BUILTIN
    assert len(builtin_stage_modules()) == len(BUILTIN)  # one module a stage, each registering one


@pytest.mark.parametrize("check", STAGE_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", BUILTIN)
def test_stage_conformance(name: str, check, tmp_path: Path):
    check(stage_module.get_stage(name), tmp_path)


@dataclass(frozen=True)
class _NoHelpParams:
    k: int = param(3, "", check=">0")


@dataclass(frozen=True)
class _HeadParams:
    k: int = param(3, "Stories kept.", check=">0")


@dataclass(frozen=True)
class _Lenient(Stage):
    """A stage whose recipe table takes anything (it never checks a value)."""

    def parse(self, table, where):
        return self.params(), ExecSettings()


def test_the_stage_checks_catch_a_broken_stage(tmp_path: Path):
    no_help = Stage(name="no_help", params=_NoHelpParams, run=lambda *a: None, order=46, summary="x", output="-")
    with pytest.raises(AssertionError, match="not the record the registry holds"):
        check_stage(no_help, tmp_path)  # not registered: a recipe would not find it
    with stage_module.STAGE_REGISTRY.override(no_help):
        with pytest.raises(AssertionError, match="no_help.k has no help"):
            check_stage(no_help, tmp_path / "a")
    lenient = _Lenient(name="lenient", params=_HeadParams, run=lambda *a: None, order=46, summary="x", output="-")
    with stage_module.STAGE_REGISTRY.override(lenient):
        with pytest.raises(AssertionError, match="k = .* was not refused"):
            check_stage(lenient, tmp_path / "b")


@pytest.mark.parametrize("name", sorted(n for n, words in COMMANDS.items() if words))
def test_the_command_exposes_every_parameter_with_its_default(name: str):
    stage = stage_module.get_stage(name)
    options = {opt: p for p in _command(COMMANDS[name]).params for opt in p.opts}
    infos = [p for p in params_of(stage.params) if p.cli] + (params_of(ExecSettings) if stage.executes else [])
    for info in infos:
        flag = info.flag.split("/")[0]
        assert flag in options, f"{name}: {flag} missing from `lotdata {' '.join(COMMANDS[name])}`"
        default = options[flag].default
        assert default == (list(info.default) if isinstance(info.default, tuple) else info.default), flag
        assert options[flag].help == info.help


@pytest.mark.parametrize("task", ["senpos", "plotcom", "outgen"])
def test_build_commands_take_the_builders_parameters_from_their_records(task: str):
    from lotdata.datasets.registry import get_task

    options = {opt: p for p in _command(["build", task]).params for opt in p.opts}
    for info in params_of(get_task(task).builder.params):
        if info.cli:
            flag = info.flag.split("/")[0]
            assert flag in options and options[flag].default == info.default and options[flag].help == info.help, flag


def test_pipelines_readme_tables_are_the_generated_ones():
    readme = (REPO / "pipelines" / "README.md").read_text(encoding="utf-8")
    assert render_readme(readme) == readme, "run: python -m lotdata.stage pipelines/README.md"
    for stage in builtin_stages():
        for info in stage.keys():
            assert f"| `{info.name}` |" in readme


def test_a_bad_value_is_named_with_its_table_and_key(tmp_path: Path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('[read]\ninputs = ["lotdata:sample"]\nworkers = 0\n', encoding="utf-8")
    result = CliRunner().invoke(app, ["run", str(recipe), "--out", str(tmp_path / "o")])
    assert result.exit_code == 3 and "[read]" in result.output and "'workers' must be an integer > 0" in result.output


def test_a_stage_check_holds_for_the_recipe_and_the_command_alike(tmp_path: Path):
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        '[read]\ninputs = ["lotdata:sample"]\n\n[clean]\ncluster = 0.9\nnear_dup = 0.8\n', encoding="utf-8"
    )
    runner = CliRunner()
    in_recipe = runner.invoke(app, ["run", str(recipe), "--out", str(tmp_path / "o")])
    command = runner.invoke(
        app,
        [
            "clean",
            str(tmp_path / "none.parquet"),
            "--out",
            str(tmp_path / "c"),
            "--cluster",
            "0.9",
            "--near-dup",
            "0.8",
        ],
    )
    assert in_recipe.exit_code == 3 and command.exit_code == 1  # bad recipe input; a bad parameter
    message = "need 0 < cluster (--cluster) <= near_dup (--near-dup) <= 1, not 0.9 and 0.8"
    assert message in in_recipe.output and message in command.output


# ---------------------------------------------------------------------------------------------
# a made-up stage, registered here only: the first K stories of the current table, sorted by id


@dataclass(frozen=True)
class HeadParams:
    k: int = param(3, "Stories kept.", check=">0")
    out: str = param("head.parquet", "stories table", cli=False)


def _run_head(ctx: StepContext, params: HeadParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    out = ctx.root / params.out
    fp = ctx.cached("head", {"head": table}, [f for s in ctx.stories for f in files_of(s)], [out])
    if fp is not None:
        rows = sorted((r for s in ctx.stories for r in pq.read_table(s).to_pylist()), key=lambda r: r["story_id"])
        write_parquet(pa.Table.from_pylist(rows[: params.k], schema=STORIES), out)
        ctx.done("head", fp, {"stories": min(params.k, len(rows))}, [out])
    ctx.stories = [out]


@pytest.fixture
def head_stage():
    stages()  # the built-in ones first
    registered = register_stage(
        Stage(
            name="head",
            params=HeadParams,
            run=_run_head,
            order=45,
            summary="the first K stories",
            output="`head.parquet`",
        )
    )
    yield registered
    stage_module.unregister_stage("head")


def test_a_made_up_stage_runs_through_a_recipe(head_stage, tmp_path: Path):
    recipe = tmp_path / "head.toml"
    recipe.write_text(
        '[read]\ninputs = ["lotdata:sample"]\nformat = "jsonl"\n\n[head]\nk = 4\n\n'
        '[[build]]\ntask = "senpos"\nsplit = "train=0.5,val=0.25,test=0.25"\n',
        encoding="utf-8",
    )
    runner = CliRunner()
    first = runner.invoke(app, ["run", str(recipe), "--out", str(tmp_path / "out")])
    assert first.exit_code == 0, first.output
    assert pq.read_table(tmp_path / "out" / "head.parquet").num_rows == 4
    manifest = (tmp_path / "out" / "senpos" / "manifest.json").read_text(encoding="utf-8")
    assert '"stories_in": 4' in manifest  # the build read the made-up stage's table
    again = runner.invoke(app, ["run", str(recipe), "--out", str(tmp_path / "out")])
    assert again.exit_code == 0 and "head: skipped (done)" in again.output
    recipe.write_text(recipe.read_text(encoding="utf-8").replace("k = 4", 'k = "four"'), encoding="utf-8")
    bad = runner.invoke(app, ["run", str(recipe), "--out", str(tmp_path / "out")])
    assert bad.exit_code == 3 and "[head]: 'k' must be an integer > 0" in bad.output
    assert recipe_schema()["head"]["k"].default == 3  # the derived schema knows it; the shipped README does not
    assert "`[head]`" not in stage_module.keys_table()
