"""`lotdata annotate check | qualify | sct-csv` run through the one runner (issue 33): an output never replaces an
input (check.json never lands on an input of that name), an output of another kind is refused (exit 1, never 70),
and a run that fails at its very end (a full disk) exits 1 naming the file with the previous output byte-identical.
The qualify tests need the session's Label Studio server (labelstudio_support)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest
from labelstudio_support import lotdata
from typer.testing import CliRunner

from lotdata.annotate import commands
from lotdata.cli import app
from lotdata.command import builtin_commands
from lotdata.resources import asset_dir
from lotdata.testing import (
    check_failure_keeps_previous_output,
    check_other_kinds_refused,
    check_outputs_never_touch_inputs,
    check_ranges_enforced,
    check_sample_runs,
    check_second_writer_refused,
    digest,
)

runner = CliRunner()


def _cli(*args):
    return runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def _disk_full(text, path, *args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device", str(path))


# ---------------------------------------------------------------------------------------------- annotate check


def test_check_never_writes_over_its_input_or_a_file(tmp_path: Path) -> None:
    args = commands._check_sample(tmp_path)
    folder = tmp_path / "D"
    folder.mkdir()
    given = folder / "check.json"  # an input named like the summary check writes
    given.write_bytes((tmp_path / "subs.jsonl").read_bytes())
    before = given.read_bytes()
    over = _cli("annotate", "check", "story_write", "--input", given, "--out", folder)
    assert over.exit_code == 1 and "contains the input --input" in over.output
    assert given.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["check.json"]
    corpus = _cli("annotate", "check", *args[:-1], folder, "--corpus", given)  # --out around the --corpus
    assert corpus.exit_code == 1 and given.read_bytes() == before
    plain = tmp_path / "plain.txt"
    plain.write_text("mine\n")
    on_file = _cli("annotate", "check", *args[:-1], plain)
    assert on_file.exit_code == 1 and "is a file" in on_file.output and plain.read_text() == "mine\n"


def test_check_refuses_a_folder_of_other_files_and_keeps_it(tmp_path: Path) -> None:
    args = commands._check_sample(tmp_path)
    done = _cli("annotate", "check", *args)
    assert done.exit_code == 0, done.output
    out = tmp_path / "checked"
    assert sorted(p.name for p in out.iterdir()) == ["check.json", "flags.parquet"]
    again = _cli("annotate", "check", *args)  # its own folder: replaced
    assert again.exit_code == 0, again.output
    (out / "notes.txt").write_text("the user's\n")
    held = digest([out])
    refused = _cli("annotate", "check", *args)
    assert refused.exit_code == 1 and "did not write" in refused.output and digest([out]) == held


def test_check_full_disk_keeps_the_previous_flags_and_flagged_is_still_exit_5(tmp_path: Path, monkeypatch) -> None:
    import lotdata.io

    args = commands._check_sample(tmp_path)
    assert _cli("annotate", "check", *args).exit_code == 0
    out = tmp_path / "checked"
    before = digest([out])
    monkeypatch.setattr(lotdata.io, "write_text", _disk_full)  # check.json, the last file written
    failed = _cli("annotate", "check", *args)
    assert failed.exit_code == 1 and "check.json" in failed.output and "no space left" in failed.output
    assert digest([out]) == before
    monkeypatch.undo()
    subs = tmp_path / "subs.jsonl"
    row = json.loads(subs.read_text())
    subs.write_text(json.dumps({**row, "sentences": row["sentences"][:4]}) + "\n", encoding="utf-8")
    flagged = _cli("annotate", "check", *args)
    assert flagged.exit_code == commands.CHECK_FLAGGED_EXIT and "five_sentences" in flagged.output
    assert json.loads((out / "check.json").read_text())["flagged"] == 1  # published, then exit 5


# ---------------------------------------------------------------------------------------------- annotate sct-csv


def test_sct_csv_refuses_its_input_and_a_dataset_and_keeps_the_csvs_on_a_full_disk(tmp_path: Path, monkeypatch) -> None:
    import lotdata.io

    args = commands._sct_csv_sample(tmp_path)
    cases = tmp_path / "cases"
    held = digest([cases])
    for out in (cases, cases / "csv", tmp_path):
        refused = _cli("annotate", "sct-csv", "--input", cases, "--out", out)
        assert refused.exit_code == 1 and "--input" in refused.output, (out, refused.output)
    other = tmp_path / "other"
    _cli("import", "storycloze", "--test", tmp_path / "cases.csv", "--out", other)
    assert _cli("annotate", "sct-csv", "--input", cases, "--out", other).exit_code == 1
    assert digest([cases]) == held
    done = _cli("annotate", "sct-csv", *args)
    assert done.exit_code == 0, done.output
    out = tmp_path / "sct"
    assert sorted(p.name for p in out.iterdir()) == ["test.csv"]  # the summary names it, cut to the terminal width
    before = digest([out])
    monkeypatch.setattr(lotdata.io, "write_text", _disk_full)
    failed = _cli("annotate", "sct-csv", *args)
    assert failed.exit_code == 1 and "test.csv" in failed.output and digest([out]) == before


# ---------------------------------------------------------------------------------------------- annotate qualify


def test_qualify_quiz_folder_clash_and_full_disk(label_studio, conn, tmp_path: Path, monkeypatch) -> None:
    from lotdata.annotate import state as state_module

    state = tmp_path / "state"
    run = lambda *args: lotdata(label_studio, *map(str, args), "--state-dir", str(state))  # noqa: E731
    assert run("annotate", "raters", "add", "gatekeeper").exit_code == 0
    quiz = tmp_path / "quiz.jsonl"
    quiz.write_bytes((Path(asset_dir("annotation_templates")) / "quizzes" / "story_write.en.jsonl").read_bytes())
    folder = run("annotate", "qualify", "story_write", "--quiz", tmp_path)  # a folder: a message, not a crash
    assert folder.exit_code in (1, 3) and "--quiz" in folder.output and "Traceback" not in folder.output
    gate = state / "qualify" / "story_write.json"
    assert not gate.exists()
    sent = run("annotate", "qualify", "story_write", "--quiz", quiz)
    assert sent.exit_code == 0, sent.output
    before = gate.read_bytes()
    clash = run("annotate", "qualify", "story_write", "--quiz", gate)  # the gate as the quiz
    assert clash.exit_code == 1 and "STATE/qualify/JOB.json" in clash.output and gate.read_bytes() == before
    monkeypatch.setattr(state_module, "write_text", _disk_full)
    failed = run("annotate", "qualify", "story_write", "--quiz", quiz, "--retry-after", "0")
    assert failed.exit_code == 1 and "story_write.json" in failed.output and "no space left" in failed.output
    assert gate.read_bytes() == before and not (state / "qualify" / "story_write.json.lock").exists()
    monkeypatch.undo()
    bad = run("annotate", "qualify", "story_write", "--quiz", quiz, "--pass", "1.5")
    assert bad.exit_code == 1 and "--pass" in bad.output and gate.read_bytes() == before
    staged = gate.parent / ".story_write.json.lotdata-next" / "story_write.json"
    assert staged.exists()  # the failed run's parts stay apart from the published gate
    staged.write_text("half")  # a run starts from the published gate (published at every save), never from these
    again = run("annotate", "qualify", "story_write", "--quiz", quiz)
    assert again.exit_code == 0, again.output
    assert json.loads(gate.read_text())["raters"]["gatekeeper"] and not staged.parent.exists()


def test_a_qualify_cut_short_keeps_the_quizzes_it_sent(label_studio, tmp_path: Path, monkeypatch) -> None:
    """The gate is published at every save: a qualify cut short after one rater's quiz was sent has that quiz on
    disk, and the next run scores it instead of sending the rater a second quiz."""
    from lotdata.annotate import qualify as qualify_module
    from lotdata.errors import LotdataError

    state = tmp_path / "state"
    run = lambda *args: lotdata(label_studio, *map(str, args), "--state-dir", str(state))  # noqa: E731
    assert run("annotate", "raters", "add", "quiz-ann", "quiz-bob").exit_code == 0  # names no other test uses
    quiz = tmp_path / "quiz.jsonl"
    quiz.write_bytes((Path(asset_dir("annotation_templates")) / "quizzes" / "story_write.en.jsonl").read_bytes())
    real, sent = qualify_module._send, []

    def second_fails(conn, gate, name, questions):
        if sent:
            raise LotdataError("the server went away")
        sent.append(name)
        return real(conn, gate, name, questions)

    monkeypatch.setattr(qualify_module, "_send", second_fails)
    cut = run("annotate", "qualify", "story_write", "--quiz", quiz)
    assert cut.exit_code == 1 and "went away" in cut.output
    gate = state / "qualify" / "story_write.json"
    first = json.loads(gate.read_text())["raters"][sent[0]]
    assert len(first) == 1 and first[0]["project_id"]
    monkeypatch.undo()
    again = run("annotate", "qualify", "story_write", "--quiz", quiz)
    assert again.exit_code == 0, again.output
    raters = json.loads(gate.read_text())["raters"]
    assert raters[sent[0]] == first or raters[sent[0]][0]["project_id"] == first[0]["project_id"]
    assert len(raters[sent[0]]) == 1 and len(raters) == 2  # no second quiz for the first rater


# ---------------------------------------------------------------------------------------------- the runner's checks

#: the conformance checks that hold for a command with remote side effects (a rerun from scratch makes new projects
#: on the same server, so `check_kill_and_resume`'s "same output as an uninterrupted run" cannot hold)
REMOTE_CHECKS = (
    check_sample_runs,
    check_outputs_never_touch_inputs,
    check_other_kinds_refused,
    check_ranges_enforced,
    check_second_writer_refused,
    check_failure_keeps_previous_output,
)


@pytest.mark.parametrize("check", REMOTE_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("record", [c for c in builtin_commands() if c.service == "Label Studio"], ids=lambda c: c.name)
def test_label_studio_commands_pass_the_runners_checks(label_studio, record, check, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", label_studio.api_key)
    check(record, tmp_path)


# ---------------------------------------------------------------------------------------------- annotate push, raters add


def _job_file_of(args: list[str]) -> Path:
    from lotdata.annotate.state import JobState

    state, title = Path(args[args.index("--state-dir") + 1]), args[args.index("--project") + 1]
    return JobState.path_for(state, title)


def test_push_refuses_a_job_file_given_as_input_and_raters_add_waits_for_a_push(tmp_path: Path) -> None:
    """Refused before any account or project is made (no server is reached: the URL is a closed port)."""
    import os
    import socket

    from lotdata.io import lock_path_for

    env = {"LABEL_STUDIO_URL": "http://127.0.0.1:9", "LABEL_STUDIO_API_KEY": "x", "COLUMNS": "400"}
    state = tmp_path / "state"
    stories = tmp_path / "stories.parquet"
    stories.write_bytes(b"never read")
    args = ["story_filter", "--input", str(stories), "--project", "p", "--state-dir", str(state)]
    job_file = _job_file_of(args)
    job_file.parent.mkdir(parents=True)
    job_file.write_text('{"kept": true}\n')
    clash = runner.invoke(app, ["annotate", "push", *args, "--gold", str(job_file)], env=env)
    assert clash.exit_code == 1 and "STATE/jobs/PROJECT.json" in clash.output, clash.output
    assert job_file.read_text() == '{"kept": true}\n'
    lock = lock_path_for(job_file)  # a push of that title is running
    lock.write_text(json.dumps({"pid": 1 if os.getpid() != 1 else os.getppid(), "host": socket.gethostname()}))
    waits = runner.invoke(app, ["annotate", "raters", "add", "rita-waits", "--state-dir", str(state)], env=env)
    assert waits.exit_code == 1 and "another lotdata run" in waits.output, waits.output
    assert not (state / "team.json").exists() and job_file.read_text() == '{"kept": true}\n'


def test_push_cut_short_after_a_rater_has_published_what_the_server_holds(
    label_studio, conn, tmp_path: Path, monkeypatch
) -> None:
    """The job file is published before the first import and after each rater's project (`Run.checkpoint`): a push
    cut short between two raters leaves the first rater's project and the opaque ids on disk, so the next push
    finds them (it would otherwise refuse: a project exists that the state does not know)."""
    from lotdata.annotate import push as push_module
    from lotdata.annotate.client import ServerUnavailable, export_tasks
    from lotdata.annotate.state import JobState

    args = commands._push_sample(tmp_path) + ["--raters", "2"]
    state = Path(args[args.index("--state-dir") + 1])
    assert lotdata(label_studio, "annotate", "raters", "add", "cuta", "cutb", "--state-dir", str(state)).exit_code == 0
    real, done = push_module.push_to_rater, []

    def cut(conn, job_state, rater, **kwargs):
        if done:
            raise ServerUnavailable("the server went away")
        done.append(rater)
        return real(conn, job_state, rater, **kwargs)

    monkeypatch.setattr(push_module, "push_to_rater", cut)
    failed = lotdata(label_studio, "annotate", "push", *args)
    assert failed.exit_code == 1 and "the server went away" in failed.output, failed.output
    title = args[args.index("--project") + 1]
    first = JobState.find(state, title, label_studio.url)
    assert first is not None and list(first.projects) == ["cuta"] and first.tasks
    monkeypatch.undo()
    again = lotdata(label_studio, "annotate", "push", *args)
    assert again.exit_code == 0, again.output
    job = JobState.find(state, title, label_studio.url)
    assert job.salt == first.salt and job.projects["cuta"] == first.projects["cuta"] and "cutb" in job.projects
    for rater in ("cuta", "cutb"):  # nothing imported twice
        assert len(export_tasks(conn, job.projects[rater])) == len(job.tasks_for(rater)) > 0
    assert not list(state.rglob("*.lotdata-next")) and not list(state.rglob("*.lock"))


def test_raters_add_cut_short_keeps_the_new_account_in_the_team(
    label_studio, conn, tmp_path: Path, monkeypatch
) -> None:
    """team.json is published as soon as the accounts are made: a `raters add` cut short while it gives the new rater
    their projects still has the rater in the team (their password was shown once and exists nowhere else), and
    the next run gives the projects."""
    from lotdata.annotate import team as team_module
    from lotdata.annotate.client import ServerUnavailable
    from lotdata.annotate.state import JobState, Team

    args = commands._push_sample(tmp_path) + ["--raters", "2"]
    state = Path(args[args.index("--state-dir") + 1])
    add = lambda *names: lotdata(label_studio, "annotate", "raters", "add", *names, "--state-dir", str(state))  # noqa: E731
    assert add("adda", "addb").exit_code == 0
    assert lotdata(label_studio, "annotate", "push", *args).exit_code == 0
    title = args[args.index("--project") + 1]

    def cut(*args, **kwargs):
        raise ServerUnavailable("the server went away")

    monkeypatch.setattr(team_module, "push_to_rater", cut)
    failed = add("addc")
    assert failed.exit_code == 1 and "the server went away" in failed.output, failed.output
    assert "addc" in Team.load(state, label_studio.url).raters
    assert "addc" not in JobState.find(state, title, label_studio.url).projects
    monkeypatch.undo()
    again = add("addc")
    assert again.exit_code == 0 and "already in the team" in again.output and "password" not in again.output
    job = JobState.find(state, title, label_studio.url)
    assert sorted(job.projects) == ["adda", "addb", "addc"] and job.project_title("addc") in again.output


def test_pull_asks_the_jobs_record_whether_the_assembly_is_complete(label_studio, conn, tmp_path: Path) -> None:
    """A job's `check_complete` (human_perf's: every pushed item, every rater) decides; pull names no job."""
    from dataclasses import replace

    from lotdata.annotate.client import export_tasks, find_project
    from lotdata.annotate.commands import PushParams
    from lotdata.annotate.jobs import get_job, register_job, unregister_job
    from lotdata.annotate.push import push
    from lotdata.errors import InputError

    asked = []

    def short(assembled, job_state, allow_partial):
        asked.append(allow_partial)
        if not allow_partial:
            raise InputError("short of what was pushed", path=str(job_state.path))

    register_job(replace(get_job("story_filter"), name="short_filter", check_complete=short, order=999))
    try:
        args = commands._push_sample(tmp_path)
        state, title = args[args.index("--state-dir") + 1], args[args.index("--project") + 1]
        stories = args[args.index("--input") + 1]
        push(conn, PushParams(job="short_filter", input_path=stories, project=title, state=state))
        me = conn.call(conn.sdk.users.whoami).id
        accept = [{"from_name": "decision", "to_name": "story", "type": "choices", "value": {"choices": ["accept"]}}]
        for task in export_tasks(conn, find_project(conn, title).id):
            conn.sdk.annotations.create(id=task["id"], result=accept, completed_by=me, lead_time=10.0)
        out = tmp_path / "pulled"
        pull = ["annotate", "pull", "short_filter", "--project", title, "--out", str(out), "--state-dir", state]
        refused = lotdata(label_studio, *pull)
        assert refused.exit_code == 3 and "short of what was pushed" in refused.output, refused.output
        assert not out.exists() and asked == [False]
        allowed = lotdata(label_studio, *pull, "--allow-partial")
        assert allowed.exit_code == 0 and (out / "pull.json").exists() and asked == [False, True], allowed.output
    finally:
        unregister_job("short_filter")
