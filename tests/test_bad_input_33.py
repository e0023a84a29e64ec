"""Issue 33: bad input that exited 70 ("this is a bug") now exits 3 (malformed input, naming the file and the row
or key) or 1 (a wrong path or parameter, a full disk naming the file); and a recipe step is never re-run for a
change of execution settings alone."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.errors import InputError, LotdataError
from lotdata.stage import expected, params_of

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def error_line(result) -> str:
    """The one-line message (the first line that starts with "error:")."""
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert lines, result.output
    return lines[0]


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("s") / "s.parquet"
    result = invoke("read", "lotdata:sample", "--out", path)
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def dataset(stories, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("d") / "ds"
    result = invoke("build", "senpos", "--stories", stories, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


# --- 1. diff of a truncated Parquet file ---------------------------------------------------------------------


def test_diff_of_a_truncated_split_file_is_bad_input_naming_it(dataset, tmp_path):
    import shutil

    copy = tmp_path / "ds2"
    shutil.copytree(dataset, copy)
    _truncate(copy / "train.parquet")
    for a, b in ((dataset, copy), (copy, dataset)):
        result = invoke("diff", a, b)
        assert result.exit_code == 3, result.output
        assert str(copy / "train.parquet") in error_line(result) and "not a readable Parquet file" in result.output


def test_diff_of_a_truncated_table_is_bad_input_naming_it(stories, tmp_path):
    table = tmp_path / "t.parquet"
    table.write_bytes(stories.read_bytes())
    _truncate(table)
    result = invoke("diff", stories, table)
    assert result.exit_code == 3 and str(table) in error_line(result)


# --- 2. qualify --quiz naming a folder -----------------------------------------------------------------------


def test_qualify_quiz_naming_a_folder_is_a_wrong_path(tmp_path, monkeypatch):
    import lotdata.annotate.client as client

    monkeypatch.setattr(client, "connect", lambda *a, **k: object())  # no server: the quiz is read first
    folder = tmp_path / "quizzes"
    folder.mkdir()
    result = invoke("annotate", "qualify", "story_write", "--quiz", folder, "--state-dir", tmp_path / "state")
    assert result.exit_code == 1, result.output
    assert str(folder) in error_line(result) and "is a folder" in error_line(result)


def test_a_binary_quiz_is_bad_input_naming_the_line(tmp_path):
    from lotdata.annotate.qualify import load_quiz

    quiz = tmp_path / "quiz.jsonl"
    quiz.write_bytes(b'{"id": 1, "item": "x", "answer": "acceptable"}\n\xff\xfe\x00\n')
    with pytest.raises(InputError, match="row 2") as caught:
        load_quiz(quiz)
    assert caught.value.exit_code == 3 and str(quiz) in str(caught.value)


# --- 3. a stories table whose `sentences` is a string --------------------------------------------------------


@pytest.fixture(scope="module")
def string_sentences(stories, tmp_path_factory) -> Path:
    table = pq.read_table(stories)
    column = pa.array([json.dumps(v, ensure_ascii=False) for v in table.column("sentences").to_pylist()])
    table = table.set_column(table.schema.get_field_index("sentences"), pa.field("sentences", pa.string()), column)
    path = tmp_path_factory.mktemp("bad") / "string_sentences.parquet"
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize("command", ["build", "clean"])
def test_sentences_stored_as_a_string_is_bad_input_naming_file_and_column(string_sentences, tmp_path, command):
    args = ["build", "senpos", "--stories"] if command == "build" else ["clean"]
    result = invoke(*args, string_sentences, "--out", tmp_path / "out")
    assert result.exit_code == 3, result.output
    line = error_line(result)
    assert str(string_sentences) in line and "'sentences'" in line and "bug" not in result.output


# --- 4. a recipe whose top-level stories names a dataset folder ----------------------------------------------


def test_recipe_stories_naming_a_folder_is_refused_before_any_step(dataset, tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text(f'stories = "{dataset}"\n[[build]]\ntask = "senpos"\n', encoding="utf-8")
    result = invoke("run", recipe, "--out", tmp_path / "o")
    assert result.exit_code == 1, result.output
    line = error_line(result)
    assert str(dataset) in line and "is a folder" in line and str(recipe) in line and "stories" in line
    assert not (tmp_path / "o" / "senpos").exists()


# --- 5. a model config whose width is not a multiple of its heads --------------------------------------------


def test_a_hidden_size_not_a_multiple_of_the_heads_is_refused_when_read_before_torch(dataset, tmp_path):
    from lotdata.resources import asset_dir

    tiny = (Path(asset_dir("baselines")) / "tiny.toml").read_text(encoding="utf-8")
    assert "hidden_size = 64" in tiny and "num_attention_heads = 2" in tiny
    bad = tmp_path / "bad.toml"
    bad.write_text(tiny.replace("hidden_size = 64", "hidden_size = 66").replace("heads = 2", "heads = 4"), "utf-8")
    code = (
        "import sys\nfrom typer.testing import CliRunner\nfrom lotdata.cli import app\n"
        f"r = CliRunner().invoke(app, ['baseline', 'train', '--config', {str(bad)!r}, '--data', {str(dataset)!r}, "
        f"'--out', {str(tmp_path / 'run')!r}])\n"
        "print(r.exit_code, 'torch' in sys.modules, 'transformers' in sys.modules)\nprint(r.output)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    status, output = done.stdout.split("\n", 1)
    assert status == "3 False False", done.stdout + done.stderr
    assert str(bad) in output and "hidden_size = 66" in output and "num_attention_heads = 4" in output


@pytest.mark.parametrize(
    ("architecture", "model", "named"),
    [
        ("gpt2", {"n_embd": 100, "n_head": 12}, "n_embd = 100"),
        ("bart", {"d_model": 96, "encoder_attention_heads": 8, "decoder_attention_heads": 5}, "decoder_attention"),
        ("t5", {"hidden_size": 100, "num_attention_heads": 12}, "hidden_size = 100"),
    ],
)
def test_each_architectures_own_keys_are_checked(architecture, model, named):
    from lotdata.models.config import config_from_dict

    with pytest.raises(InputError, match=named) as caught:
        config_from_dict({"name": "x", "architecture": architecture, "model": model}, "x.toml")
    assert caught.value.exit_code == 3 and "x.toml" in str(caught.value)


def test_shapes_that_split_evenly_or_have_their_own_head_size_are_accepted():
    from lotdata.models.config import config_from_dict, load_config

    for name in ("bert", "gpt2", "longlm", "mt5", "roberta", "tiny", "vanilla_transformer"):
        load_config(name)
    model = {"d_model": 100, "num_heads": 12, "d_kv": 8}  # T5 with its own head size: any width
    assert config_from_dict({"name": "x", "architecture": "t5", "model": model}).model == model


# --- 6. the work folder beside the output exists as a file ---------------------------------------------------


def test_read_with_a_file_where_its_work_folder_goes(tmp_path):
    out = tmp_path / "o.parquet"
    work = tmp_path / "o.parquet.work"
    work.write_text("x")
    result = invoke("read", "lotdata:sample", "--out", out)
    assert result.exit_code == 1, result.output
    assert str(work) in error_line(result) and work.read_text() == "x" and not out.exists()


def test_a_recipe_read_step_with_a_file_where_its_work_folder_goes(tmp_path):
    recipe = tmp_path / "r.toml"
    recipe.write_text('[read]\ninputs = ["lotdata:sample"]\n', encoding="utf-8")
    (tmp_path / "o").mkdir()
    work = tmp_path / "o" / "stories.parquet.work"
    work.write_text("x")
    result = invoke("run", recipe, "--out", tmp_path / "o")
    assert result.exit_code == 1, result.output
    # the run folder holds a file no run wrote: refused before any step (it names the folder and what is there)
    assert "holds files no recipe run wrote" in error_line(result) and work.read_text() == "x"


def test_clean_with_a_file_where_its_work_folder_goes(stories, tmp_path):
    from lotdata.clean.files import clean_files

    out = tmp_path / "c"
    out.mkdir()
    (out / ".work").write_text("x")
    with pytest.raises(LotdataError, match="is a file") as caught:
        clean_files([stories], out)
    assert caught.value.exit_code == 1 and str(out / ".work") in str(caught.value)
    result = invoke("clean", stories, "--out", out)  # the command: a clear refusal or a clean run, never a crash
    assert result.exit_code in (0, 1) and "this is a bug" not in result.output, result.output


# --- 7. clean --hold-out-near refuses what the recipe key refuses --------------------------------------------


@pytest.mark.parametrize("value", ["1.5", "80", "0"])
def test_clean_hold_out_near_out_of_range_is_refused_as_the_recipe_refuses_it(stories, dataset, tmp_path, value):
    from lotdata.clean.stage import CleanStepParams

    [info] = [p for p in params_of(CleanStepParams) if p.name == "hold_out_near"]
    words = f"must be {expected(info)}"  # the record's range, in the recipe's words
    result = invoke("clean", stories, "--out", tmp_path / "c", "--hold-out", dataset, "--hold-out-near", value)
    assert result.exit_code == 1, result.output
    assert "--hold-out-near" in error_line(result) and words in error_line(result)
    assert not (tmp_path / "c").exists()
    recipe = tmp_path / "r.toml"
    recipe.write_text(f'stories = "{stories}"\n[clean]\nhold_out_near = {value}\n', encoding="utf-8")
    from_recipe = invoke("run", recipe, "--out", tmp_path / "o")
    assert from_recipe.exit_code == 3 and "hold_out_near" in error_line(from_recipe)
    assert words in error_line(from_recipe)


# --- 8. a full disk names the file it could not write --------------------------------------------------------


def _full_disk(with_errno: bool):
    def write(*args, **kwargs):
        if with_errno:
            raise OSError(errno.ENOSPC, "No space left on device")
        # pyarrow's own OSError carries the errno only in its text
        raise OSError("[Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device")

    return write


def _assert_names_a_file_under(result, out: Path) -> None:
    assert result.exit_code == 1, result.output
    line = error_line(result)
    assert "no space left" in line.lower() and out.name in line and "None" not in line, line


@pytest.mark.parametrize("with_errno", [True, False])
def test_a_full_disk_during_build_names_the_file(stories, tmp_path, monkeypatch, with_errno):
    monkeypatch.setattr(pq, "write_table", _full_disk(with_errno))
    out = tmp_path / "built"
    result = invoke("build", "senpos", "--stories", stories, "--out", out)
    _assert_names_a_file_under(result, out)
    assert ".parquet" in error_line(result)


@pytest.mark.parametrize("with_errno", [True, False])
def test_a_full_disk_during_index_build_names_the_file(stories, tmp_path, monkeypatch, with_errno):
    monkeypatch.setattr(pq, "write_table", _full_disk(with_errno))
    out = tmp_path / "index"
    result = invoke("index", "build", stories, "--out", out)
    _assert_names_a_file_under(result, out)
    assert ".parquet" in error_line(result)


def test_a_full_disk_writing_index_arrays_names_the_file(stories, tmp_path, monkeypatch):
    import lotdata.overlap.index as index

    monkeypatch.setattr(index, "write_bytes", _full_disk(True))
    out = tmp_path / "index"
    result = invoke("index", "build", stories, "--out", out)
    _assert_names_a_file_under(result, out)


def test_a_full_disk_inside_a_shard_is_exit_1_not_bad_input(tmp_path):
    from lotdata.exec import Shard, run_shards

    def shard_fn(shard, part):
        raise OSError(errno.ENOSPC, "No space left on device", str(part))

    with pytest.raises(LotdataError) as caught:
        run_shards(shard_fn, [Shard("x", 0, None, 1)], tmp_path / "work")
    assert caught.value.exit_code == 1 and "00000" in str(caught.value) and "no space left" in str(caught.value)


# --- execution settings never re-run a recipe step -----------------------------------------------------------


def _recipe(path: Path, workers: int, seed: int = 0) -> Path:
    tables = [
        '[read]\ninputs = ["lotdata:sample"]',
        "[clean]",
        f'[[build]]\ntask = "senpos"\nseed = {seed}',
        '[[audit]]\ninput = "senpos"\nbaselines = ["random"]',
    ]
    path.write_text("\n".join(f"{t}\nworkers = {workers}\n" for t in tables), encoding="utf-8")
    return path


def _steps(result) -> dict[str, str]:
    """step -> "done" or "skipped (done)", from the "✓ NAME: STATUS" lines of a run."""
    found = {}
    for line in result.output.splitlines():
        if line.startswith("✓ "):
            name, _, status = line[2:].partition(": ")
            found[name] = status.strip()
    return found


def test_changing_only_execution_settings_re_runs_no_step(tmp_path):
    out = tmp_path / "o"
    first = invoke("run", _recipe(tmp_path / "r.toml", 1), "--out", out)
    assert first.exit_code == 0, first.output
    assert set(_steps(first).values()) == {"done"} and len(_steps(first)) == 4, first.output
    second = invoke("run", _recipe(tmp_path / "r.toml", 2), "--out", out)
    assert second.exit_code == 0, second.output
    assert _steps(second) == {name: "skipped (done)" for name in _steps(first)}, second.output
    # a parameter that changes the data still re-runs its step (and what reads it)
    third = invoke("run", _recipe(tmp_path / "r.toml", 2, seed=7), "--out", out)
    steps = _steps(third)
    assert steps["read"] == steps["clean"] == "skipped (done)" and steps["build-senpos"] == "done", third.output


def test_the_fingerprint_rule_is_one_place(tmp_path):
    from lotdata.stage import StepContext

    ctx = StepContext(recipe={}, path=tmp_path / "r.toml", root=tmp_path)
    plain = ctx.cached("x", {"x": {"seed": 1}}, [], [])
    assert plain == ctx.cached("x", {"x": {"seed": 1, "workers": 8, "executor": "ray", "ray_address": "h:1"}}, [], [])
    assert plain != ctx.cached("x", {"x": {"seed": 2}}, [], [])
