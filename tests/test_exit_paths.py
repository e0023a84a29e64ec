"""Every exit code the README lists is reached by a real case (issue 23, class "errors"): 0, 1, 2, 3, 4, and 70 for
a bug: an exception lotdata did not raise on purpose is shown as a bug with a short trace, never as a plain error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.errors import BUG_EXIT_CODE, is_expected

runner = CliRunner()


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("exit") / "s.parquet"
    assert runner.invoke(app, ["read", "lotdata:sample", "--out", str(path)]).exit_code == 0
    return path


def test_exit_0_1_2_3(stories, tmp_path):
    assert runner.invoke(app, ["stats", "--help"]).exit_code == 0
    missing = runner.invoke(app, ["read", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o.parquet")])
    assert missing.exit_code == 1 and "not found" in missing.output
    assert runner.invoke(app, ["read", "--no-such-option"]).exit_code == 2
    (tmp_path / "bad.jsonl").write_text('{"story": null, "outline": ["a"], "title": "t"}\n', encoding="utf-8")
    bad = runner.invoke(
        app, ["import", "lot", str(tmp_path / "bad.jsonl"), "--task", "outgen", "--out", str(tmp_path / "d")]
    )
    assert bad.exit_code == 3 and "row 1" in bad.output and "'story' is null, not text" in bad.output


def test_exit_4_a_missing_optional_package(stories, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "label_studio_sdk", None)  # an import of it now fails as if not installed
    monkeypatch.setenv("LABEL_STUDIO_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", "x")
    result = runner.invoke(app, ["annotate", "push", "story_filter", "--input", str(stories), "--project", "p"])
    assert result.exit_code == 4 and "[labelstudio]'" in result.output and "pip install" in result.output


def test_an_installed_but_broken_optional_package_is_not_called_missing(tmp_path, monkeypatch):
    from lotdata.errors import MissingExtraError, require

    (tmp_path / "broken_extra_pkg.py").write_text("import no_such_dependency_of_it\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(MissingExtraError, match="installed but cannot be imported.*no_such_dependency_of_it") as err:
        require("broken_extra_pkg", "sources")
    assert err.value.exit_code == 4 and "--force-reinstall" in str(err.value)
    with pytest.raises(MissingExtraError, match="needs the optional package 'not_installed_pkg'"):
        require("not_installed_pkg", "sources")


def test_an_unexpected_exception_is_a_bug_exit_70_with_a_short_trace(stories, tmp_path, monkeypatch):
    import lotdata.tasks.build as build

    def broken(*args, **kwargs):
        return {}["no such key"]  # a KeyError nothing expects

    monkeypatch.setattr(build, "load_stories", broken)
    result = runner.invoke(app, ["build", "outgen", "--stories", str(stories), "--out", str(tmp_path / "og")])
    assert result.exit_code == BUG_EXIT_CODE, result.output
    assert "this is a bug" in result.output and "KeyError" in result.output and "Traceback" in result.output


def test_a_library_valueerror_or_oserror_is_a_bug_but_lotdatas_own_raise_is_not(tmp_path):
    try:
        json.loads("{")
    except ValueError as exc:  # raised inside the standard library: nothing lotdata checked
        assert not is_expected(exc)
    try:
        open(tmp_path, "rb")  # a folder opened as a file: the bug of issue 23 (build --stories FOLDER)
    except OSError as exc:
        assert not is_expected(exc)
    from lotdata.tasks.storycloze import train_from_val

    with pytest.raises(ValueError) as err:
        train_from_val([], 2.0)
    assert is_expected(err.value)  # lotdata raised it on purpose, with its message
    assert is_expected(PermissionError(13, "Permission denied"))  # the environment, not a bug


def test_build_from_a_clean_folder_records_the_stories_file_it_read(stories, tmp_path):
    clean = tmp_path / "clean"
    assert runner.invoke(app, ["clean", str(stories), "--out", str(clean)]).exit_code == 0
    result = runner.invoke(
        app, ["build", "outgen", "--stories", str(clean), "--out", str(tmp_path / "og"), "--n", "20"]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "og" / "manifest.json").read_text(encoding="utf-8"))
    assert [Path(i["path"]).name for i in manifest["inputs"]] == ["stories.parquet"]
    assert not (tmp_path / "og" / ".incomplete").exists()


def test_a_truncated_checkpoint_is_bad_input_before_any_work(tmp_path):
    from lotdata.errors import InputError
    from lotdata.io import check_weight_files

    work, tmp_path = tmp_path, tmp_path / "checkpoint"
    tmp_path.mkdir()

    header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode()
    whole = len(header).to_bytes(8, "little") + header + bytes(16)
    (tmp_path / "model.safetensors").write_bytes(whole)
    check_weight_files(tmp_path)
    (tmp_path / "model.safetensors").write_bytes(whole[:-5])
    with pytest.raises(InputError, match="truncated") as err:
        check_weight_files(tmp_path)
    assert err.value.exit_code == 3
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    (work / "sct").mkdir()
    result = runner.invoke(
        app, ["audit-bias", str(work / "sct"), "--out", str(work / "r"), "--model-path", str(tmp_path)]
    )
    assert result.exit_code == 3 and "model.safetensors" in result.output and not (work / "r").exists()


# ------------------------------------------------------------------ no exit 0 on an empty or degenerate result


def test_human_perf_from_fewer_raters_or_items_than_pushed_is_refused_unless_allowed(tmp_path):
    from lotdata.annotate.jobs import get_job
    from lotdata.annotate.state import JobState
    from lotdata.annotate.workflow import check_human_perf_complete, write_assembled
    from lotdata.errors import InputError
    from lotdata.metrics import load_human_performance

    job = get_job("human_perf")
    rows = [
        {
            "_task": "clozet",
            "example_id": f"c{i}",
            "split": "test",
            "context": "甲。<mask>丙。",
            "candidates": ["乙。", "丁。"],
            "label": 0,
        }
        for i in range(3)
    ]
    tasks = job.to_tasks(rows)
    state = JobState(
        path=tmp_path / "job.json",
        url="http://x",
        job="human_perf",
        title="perf",
        raters_per_task=3,
        mode="shared",
        salt="s",
        tasks={t["data"]["uid"]: {"hidden": t["hidden"], "gold": False} for t in tasks},
    )
    report = {
        "clozet": {"accuracy": 1.0, "fleiss_kappa": None, "n_items": 1, "n_raters": 1, "ties": 0, "n_raters_min": 1}
    }
    with pytest.raises(InputError, match="1 of 3 items answered.*1 of 3 raters"):
        check_human_perf_complete(report, state)
    check_human_perf_complete(report, state, allow_partial=True)
    assert report["clozet"]["partial"] is True and report["clozet"]["items_pushed"] == 3
    write_assembled("human_perf", {"human_perf": report}, tmp_path, {})
    with pytest.raises(InputError, match="partial"):
        load_human_performance(tmp_path / "human_perf.json")
    assert load_human_performance(tmp_path / "human_perf.json", allow_partial=True) == {("clozet", "accuracy"): 1.0}
    full = {"clozet": {**report["clozet"], "n_items": 3, "n_raters": 3, "n_raters_min": 3}}
    check_human_perf_complete(full, state)
    assert full["clozet"]["partial"] is False


def test_storycloze_with_no_usable_record_is_exit_3(tmp_path):
    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    row = "s{i},A {i}.,B.,C.,D.,E {i}.,F {i}.,{label}\n"
    cases = {
        "header_only": header,
        "label_3": header + "".join(row.format(i=i, label=3) for i in range(5)),
        "label_1.0": header + "".join(row.format(i=i, label="1.0") for i in range(5)),
        "same_endings": header + "s1,A.,B.,C.,D.,E.,E.,1\n",
    }
    for name, text in cases.items():
        (tmp_path / f"{name}.csv").write_text(text, encoding="utf-8")
        result = runner.invoke(
            app, ["import", "storycloze", "--val", str(tmp_path / f"{name}.csv"), "--out", str(tmp_path / name)]
        )
        assert result.exit_code == 3, (name, result.output)
        assert not (tmp_path / name / "manifest.json").exists()
    dup = header + row.format(i=1, label=1) + row.format(i=1, label=1) + row.format(i=2, label=2)
    (tmp_path / "dup.csv").write_text(dup, encoding="utf-8")
    assert (
        runner.invoke(
            app, ["import", "storycloze", "--val", str(tmp_path / "dup.csv"), "--out", str(tmp_path / "d")]
        ).exit_code
        == 0
    )
    manifest = json.loads((tmp_path / "d" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["splits"]["val"]["rows"] == 2 and manifest["stats"]["quarantined"] == 1


def test_overlap_with_no_test_ngram_or_blank_references_is_exit_3(stories, tmp_path):
    long_n = runner.invoke(
        app, ["overlap", str(stories), "--reference", str(stories), "--out", str(tmp_path / "o1"), "--n", "100000"]
    )
    assert long_n.exit_code == 3 and "no 100000-gram" in long_n.output
    (tmp_path / "blank.jsonl").write_text('{"text": ""}\n{"text": "   "}\n', encoding="utf-8")
    blank = runner.invoke(
        app, ["overlap", str(stories), "--reference", str(tmp_path / "blank.jsonl"), "--out", str(tmp_path / "o2")]
    )
    assert blank.exit_code == 3 and "no document with text" in blank.output, blank.output


def test_every_generated_output_empty_is_not_scored(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"story": "他走了。她来了。", "outline": ["他走了"], "title": "t"}\n', encoding="utf-8")
    pred = tmp_path / "pred.jsonl"
    pred.write_text('{"story": "", "outline": ["他走了"], "title": "t"}\n', encoding="utf-8")
    result = runner.invoke(app, ["evaluate", "outgen", "--pred", str(pred), "--gold", str(gold)])
    assert result.exit_code == 3 and "empty" in result.output, result.output


# ------------------------------------------------------------------ clear and early messages (class 5)


def test_a_text_plain_page_is_its_own_main_text():
    from lotdata.sources.extract import ExtractOptions, Page, page_to_story

    body = "小兔子的故事\n从前有一只小兔子，它住在森林里。它每天都去河边喝水。\n".encode("utf-8")
    row = page_to_story(
        Page(url="http://x/a.txt", body=body, content_type="text/plain; charset=utf-8"), ExtractOptions(source="t")
    )
    assert "它每天都去河边喝水" in row["text"] and row["extraction"].startswith("text/plain")


def test_a_zip_of_jsonl_says_why_nothing_was_read(tmp_path):
    import zipfile

    (tmp_path / "a.jsonl").write_text('{"text": "从前有一只小兔子，它住在森林里。"}\n', encoding="utf-8")
    with zipfile.ZipFile(tmp_path / "z.zip", "w") as archive:
        archive.write(tmp_path / "a.jsonl", "a.jsonl")
    result = runner.invoke(app, ["read", str(tmp_path / "z.zip"), "--out", str(tmp_path / "s.parquet")])
    assert result.exit_code == 3 and "unzip it" in result.output and ".jsonl" in result.output


def test_recipes_with_a_bom_a_bogus_tokenizer_and_a_failing_step(tmp_path, monkeypatch):
    recipe = tmp_path / "bom.toml"
    recipe.write_bytes(
        "\ufeff".encode()
        + b'[read]\ninputs = ["lotdata:sample"]\n[[build]]\ntask = "senpos"\nn = 5\nstatuses = "rejected"\n'
    )  # valid as written; at run time no story has that status
    monkeypatch.setenv("LOTDATA_TOKENIZER", "bogus")
    bogus = runner.invoke(app, ["run", str(recipe), "--out", str(tmp_path / "r")])
    assert bogus.exit_code == 1 and "LOTDATA_TOKENIZER=bogus" in bogus.output and not (tmp_path / "r").exists()
    monkeypatch.delenv("LOTDATA_TOKENIZER")
    failing = runner.invoke(app, ["run", str(recipe), "--out", str(tmp_path / "r")])
    assert failing.exit_code == 1, failing.output
    assert "step [[build]] 1 (senpos)" in failing.output and "▶ read" in failing.output


def test_progress_lines_in_a_log_without_a_terminal(capsys, monkeypatch):
    from lotdata import progress as progress_module

    monkeypatch.setenv("LOTDATA_LOG_EVERY", "0")
    with progress_module.progress() as bars:
        assert bars.disable  # pytest's stderr is no terminal
        task = bars.add_task("build senpos", total=4)
        for _ in range(4):
            bars.advance(task, 1)
    err = capsys.readouterr().err
    assert "build senpos: 1/4 (25%)" in err and "build senpos: 4/4 (100%)" in err


def test_annotate_push_of_an_unknown_split_or_no_row_sends_nothing(tmp_path):
    from lotdata.annotate.commands import PushParams
    from lotdata.annotate.workflow import push
    from lotdata.errors import InputError, LotdataError

    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    (tmp_path / "v.csv").write_text(header + "a,A b.,C d.,E f.,G h.,I j.,K l.,1\n", encoding="utf-8")
    assert (
        runner.invoke(
            app, ["import", "storycloze", "--val", str(tmp_path / "v.csv"), "--out", str(tmp_path / "sct")]
        ).exit_code
        == 0
    )
    with pytest.raises(LotdataError, match="--split bogus: not a split"):
        push(None, PushParams(job="cloze_verify", input_path=str(tmp_path / "sct"), project="p", split=["bogus"]))
    with pytest.raises(InputError, match="no row of split"):  # test is empty here; refused before any server call
        push(None, PushParams(job="cloze_verify", input_path=str(tmp_path / "sct"), project="p", split="test"))


def test_audit_bias_checks_the_tokenizer_before_any_sentence_is_scored(tmp_path, monkeypatch):
    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    (tmp_path / "test.csv").write_text(header + "a,A b.,C d.,E f.,G h.,I j.,K l.,1\n", encoding="utf-8")
    monkeypatch.setenv("LOTDATA_TOKENIZER", "bogus")
    result = runner.invoke(app, ["audit-bias", str(tmp_path / "test.csv"), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 1 and "LOTDATA_TOKENIZER=bogus" in result.output and not (tmp_path / "rep").exists()
