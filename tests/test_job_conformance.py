"""Every registered annotation job passes the same checks (the idea of scikit-learn's `parametrize_with_checks`),
`lotdata.testing.jobs`': a template per declared language with the same controls, that Label Studio's own
validator accepts, tasks with unique uids whose hidden values never reach Label Studio, and a simulated answer that
parses and assembles into written tables. A made-up job registered here passes them and goes push -> answers ->
pull -> its own output on a real Label Studio with no other file edited (the server part stays here).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from labelstudio_support import STATE_DIRS, annotate, lotdata

from lotdata.annotate.client import export_tasks, get_project
from lotdata.annotate.jobs import (
    BUILTIN_JOBS,
    JobSpec,
    Output,
    get_job,
    job_names,
    register_job,
    unregister_job,
)
from lotdata.annotate.jobs.base import JOB_REGISTRY, by_uid, choice
from lotdata.annotate.state import JobState
from lotdata.testing.jobs import JOB_CHECKS, check_job, check_job_templates_with_label_studio

JOB_NAMES = list(BUILTIN_JOBS)


def test_the_registry_lists_every_builtin_job_first():
    assert job_names()[: len(BUILTIN_JOBS)] == JOB_NAMES
    with pytest.raises(ValueError, match="unknown annotation job 'nope'; known: story_filter"):
        get_job("nope")
    with pytest.raises(ValueError, match="registered twice"):
        register_job(JobSpec(**{**get_job("story_filter").__dict__, "summary": "another"}))


@pytest.mark.parametrize("check", JOB_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", JOB_NAMES)
def test_job_conformance(name, check, tmp_path):
    check(get_job(name), tmp_path)


def test_every_template_of_every_job_and_language_passes_label_studios_validator():
    check_job_templates_with_label_studio([get_job(n) for n in JOB_NAMES])


# ---------------------------------------------------------------- a made-up job, end to end

TEMPLATE = """<View>
  <Header value="{header}"/>
  <Text name="sentence" value="$sentence"/>
  <Choices name="length" toName="sentence" choice="single" required="true">
    <Choice value="{short}" alias="short" hotkey="1"/>
    <Choice value="{long}" alias="long" hotkey="2"/>
  </Choices>
</View>
"""


def _length_job(folder: Path) -> JobSpec:
    screens = {"zh": ("这句话长吗？", "短", "长"), "en": ("Is this sentence long?", "short", "long")}
    templates = {}
    for lang, (header, short, long) in screens.items():
        templates[lang] = folder / f"sentence_length.{lang}.xml"
        templates[lang].write_text(TEMPLATE.format(header=header, short=short, long=long), encoding="utf-8")

    def load(path, splits):
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def to_tasks(rows, *, seed=0, lang="en"):
        return [
            {"data": {"uid": f"len-{r['id']}", "sentence": r["text"]}, "hidden": {"words": len(r["text"].split())}}
            for r in rows
        ]

    def assemble(anns):
        decided = {
            uid: Counter(a.values["length"] for a in group).most_common(1)[0][0] for uid, group in by_uid(anns).items()
        }
        return {"lengths": decided, "stats": {"items": len(decided)}}

    def write(assembled, output: Output):
        (output.folder / "lengths.json").write_text(json.dumps(assembled["lengths"], sort_keys=True), encoding="utf-8")
        return {"lengths": len(assembled["lengths"])}

    return JobSpec(
        name="sentence_length",
        summary="is a sentence long",
        input_help="jsonl of id, text",
        load=load,
        to_tasks=to_tasks,
        check=lambda values, data, hidden: {"length": values["length"]},
        votes=lambda v: [("length", v["length"])],
        assemble=assemble,
        write=write,
        demo_rows=lambda: [{"id": 1, "text": "a b c d e f g h"}, {"id": 2, "text": "short"}],
        simulate=lambda task, rater: [
            choice("length", "sentence", ["long" if len(task["data"]["sentence"]) > 6 else "short"])
        ],
        templates=templates,
        lang="en",
    )


@pytest.fixture
def length_job(tmp_path):
    spec = register_job(_length_job(tmp_path))
    try:
        yield spec
    finally:
        unregister_job(spec.name)


def test_a_made_up_job_passes_the_job_checks(length_job, tmp_path):
    check_job(length_job, tmp_path)
    check_job_templates_with_label_studio(length_job)


def test_the_job_checks_catch_a_broken_job(length_job, tmp_path):
    leaky = replace(
        length_job,
        to_tasks=lambda rows, *, seed=0, lang="en": [
            {"data": {"uid": f"len-{r['id']}", "sentence": r["text"], "words": 1}, "hidden": {"words": 1}} for r in rows
        ],
    )
    with JOB_REGISTRY.override(leaky):
        with pytest.raises(AssertionError, match="words"):
            check_job(leaky, tmp_path)  # a hidden value sent to Label Studio
    unordered = replace(length_job, assemble=lambda anns: {"stats": {"first": anns[0].uid}})
    with JOB_REGISTRY.override(unordered):
        with pytest.raises(AssertionError, match="the order of answers changes items"):
            check_job(unordered, tmp_path / "b")


def test_a_made_up_job_goes_push_answers_pull_on_a_real_label_studio(
    label_studio, conn, annotators, length_job, tmp_path
):
    rows = tmp_path / "sentences.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in length_job.demo_rows()) + "\n", encoding="utf-8")
    assert "sentence_length" in job_names()
    pushed = lotdata(
        label_studio,
        "annotate",
        "push",
        "sentence_length",
        "--input",
        str(rows),
        "--project",
        "made-up job",
        "--lang",
        "zh",
    )
    assert pushed.exit_code == 0, pushed.output
    project = get_project(conn, "made-up job")
    assert "这句话长吗" in conn.sdk.projects.get(id=project.id).label_config  # --lang zh picked the Chinese screen
    state = JobState.find(STATE_DIRS[conn.url], "made-up job", conn.url)
    for task in export_tasks(conn, project.id):
        secret = state.tasks[task["data"]["uid"]]
        annotate(conn, task, annotators["ann1"], length_job.simulate({**task, "hidden": secret["hidden"]}, 0))
    out = tmp_path / "out"
    pulled = lotdata(label_studio, "annotate", "pull", "sentence_length", "--project", "made-up job", "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    assert json.loads((out / "lengths.json").read_text()) == {"len-1": "long", "len-2": "short"}
    summary = json.loads((out / "pull.json").read_text())
    assert summary["valid"] == 2 and summary["quarantined"] == 0 and summary["datasets"] == {"lengths": 2}
    again = lotdata(
        label_studio,
        "annotate",
        "push",
        "sentence_length",
        "--input",
        str(rows),
        "--project",
        "made-up job",
        "--lang",
        "en",
    )
    assert again.exit_code != 0 and "shows its tasks in 'zh'" in again.output
