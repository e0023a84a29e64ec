"""Every registered annotation job passes the same checks (the idea of scikit-learn's `parametrize_with_checks`):
a template per declared language that Label Studio's own validator accepts, tasks with unique uids whose hidden
values never reach Label Studio, and a simulated answer that parses and assembles into written tables. A made-up
job registered here goes push -> answers -> pull -> its own output on a real Label Studio with no other file edited.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from labelstudio_support import STATE_DIRS, annotate, lotdata

from lotdata.annotate import server as ls_server
from lotdata.annotate.client import export_tasks, get_project
from lotdata.annotate.jobs import (
    BUILTIN_JOBS,
    LANGS,
    Annotation,
    JobSpec,
    Output,
    get_job,
    job_names,
    register_job,
    unregister_job,
)
from lotdata.annotate.jobs.base import by_uid, choice
from lotdata.annotate.state import JobState
from lotdata.annotate.workflow import write_assembled

JOB_NAMES = list(BUILTIN_JOBS)


def _annotations(job: JobSpec, tasks: list[dict], lang: str) -> list[Annotation]:
    anns, n = [], 0
    for task in tasks:
        for rater in range(job.raters):
            n += 1
            values = job.parse(job.simulate(task, rater), task["data"], task["hidden"], lang=lang)
            anns.append(
                Annotation(
                    uid=task["data"]["uid"],
                    data=task["data"],
                    annotator=f"r{rater}",
                    annotation_id=n,
                    created_at=f"2026-01-01T00:00:{n:02d}",
                    values=values,
                    hidden=task["hidden"],
                )
            )
    return anns


def test_the_registry_lists_every_builtin_job_first():
    assert job_names()[: len(BUILTIN_JOBS)] == JOB_NAMES
    with pytest.raises(ValueError, match="unknown annotation job 'nope'; known: story_filter"):
        get_job("nope")
    with pytest.raises(ValueError, match="registered twice"):
        register_job(JobSpec(**{**get_job("story_filter").__dict__, "summary": "another"}))


@pytest.mark.parametrize("name", JOB_NAMES)
def test_a_template_per_declared_language_with_the_same_controls(name):
    job = get_job(name)
    assert job.lang in job.langs and set(job.langs) <= set(LANGS)
    controls = {lang: job.template_for(lang).controls for lang in job.langs}
    assert controls[job.lang], name
    for lang, found in controls.items():  # an answer parses the same whichever screen it was given on
        assert {(c.name, c.kind, c.to_name, c.choices) for c in found.values()} == {
            (c.name, c.kind, c.to_name, c.choices) for c in controls[job.lang].values()
        }, (name, lang)
    with pytest.raises(ValueError, match="screens in"):
        job.pick_lang("fr")


def test_every_template_of_every_job_and_language_passes_label_studios_validator():
    files = sorted({str(_template_path(get_job(n), lang)) for n in JOB_NAMES for lang in get_job(n).langs})
    script = (
        "import os, sys, pathlib, label_studio\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'core.settings.label_studio')\n"
        "sys.path.insert(0, str(pathlib.Path(label_studio.__file__).parent))\n"
        "import django; django.setup()\n"
        "from label_studio.core.label_config import validate_label_config\n"
        "for path in sys.argv[1:]:\n"
        "    validate_label_config(pathlib.Path(path).read_text(encoding='utf-8')); print('valid', path)\n"
    )
    python = ls_server.label_studio_bin().parent / "python"
    env = {**os.environ, "LATEST_VERSION_CHECK": "false"}
    done = subprocess.run(
        [str(python), "-W", "ignore", "-c", script, *files], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("valid ") == len(files) >= len(JOB_NAMES)


def _template_path(job: JobSpec, lang: str) -> Path:
    from lotdata.resources import asset_dir

    where = job.templates[lang]
    return where if isinstance(where, Path) else Path(asset_dir("annotation_templates")) / f"{where}.xml"


@pytest.mark.parametrize("name", JOB_NAMES)
def test_tasks_have_unique_uids_and_keep_hidden_values_off_the_server(name, tmp_path):
    job = get_job(name)
    for lang in job.langs:
        tasks = job.to_tasks(job.demo_rows(), seed=0, lang=lang)
        assert tasks, name
        uids = [t["data"]["uid"] for t in tasks]
        assert len(uids) == len(set(uids)) and all(isinstance(u, str) and u for u in uids), uids
        assert tasks == job.to_tasks(job.demo_rows(), seed=0, lang=lang)  # stable: a re-push imports nothing twice
        for task in tasks:
            assert not set(task["hidden"]) & set(task["data"]), (name, sorted(task["hidden"]))
            json.dumps(task["data"])  # what Label Studio gets is plain JSON
        state = JobState.new(tmp_path, "http://x", name, f"p-{lang}", job.raters, "shared", lang=lang)
        for task in tasks:
            state.add(task)
        pushed = json.dumps(state.visible_tasks(), ensure_ascii=False)
        assert '"hidden"' not in pushed and not any(u in pushed for u in uids if u.startswith(("clozet-", "demo")))


@pytest.mark.parametrize("name", JOB_NAMES)
def test_a_simulated_answer_parses_votes_assembles_and_is_written(name, tmp_path):
    job = get_job(name)
    for lang in job.langs:
        tasks = job.to_tasks(job.demo_rows(), seed=0, lang=lang)
        for task in tasks:
            task["data"]["raters"] = job.raters
        anns = _annotations(job, tasks, lang)
        for ann in anns:
            votes = job.votes(ann.values)
            assert votes and all(isinstance(q, str) and hash(v) is not None for q, v in votes)
        assembled = job.assemble(anns)
        assert isinstance(assembled.get("stats"), dict), name
        assert assembled == job.assemble(list(reversed(anns)))  # the order a pull reads answers in changes nothing
        written = write_assembled(name, assembled, tmp_path / lang, {"job": name})
        assert written and any((tmp_path / lang).iterdir()), name


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
