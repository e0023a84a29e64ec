"""Conformance checks of an annotation job (a `lotdata.annotate.jobs.JobSpec` record), as scikit-learn's
`check_estimator`:

    from lotdata.testing import check_job
    check_job(MY_JOB, tmp_path)   # AssertionError naming the broken rule

The samples are the record's own: `demo_rows()` (input rows) and `simulate(task, rater)` (an answer a rater could
give). The job must be registered (`register_job`, or an entry point of `lotdata.annotation_jobs`): a pull writes
through the registry. Every check here is offline; `check_job_templates_with_label_studio` runs Label Studio's own
validator on the templates (it needs Label Studio installed, not a server) and is not in `JOB_CHECKS`. A push and a
pull against a live Label Studio stay in lotdata's own tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Callable, Sequence

from lotdata.annotate.jobs.base import LANGS, Annotation, JobSpec, get_job
from lotdata.testing._common import held as _held

__all__ = [
    "JOB_CHECKS",
    "check_job",
    "check_job_is_registered",
    "check_job_simulated_answers_parse_vote_assemble_and_are_written",
    "check_job_tasks_have_unique_uids_and_keep_hidden_values_off_the_server",
    "check_job_templates_per_language_have_the_same_controls",
    "check_job_templates_with_label_studio",
    "simulated_annotations",
    "template_path",
]


def simulated_annotations(job: JobSpec, tasks: list[dict[str, Any]], lang: str) -> list[Annotation]:
    """The job's `simulate` answers to `tasks`, from each of its `raters`, parsed as a pull parses them."""
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


def check_job_is_registered(job: JobSpec, folder: Path) -> None:
    """The job is the one the registry holds under its name; it has a summary and input help, and the check rules
    it names (`checks`) are registered."""
    from lotdata.annotate.checks import RULES

    held = _held(get_job, job.name)
    assert held is job, f"job {job.name!r}: not the record the registry holds under its name (register it first)"
    assert job.summary.strip() and job.input_help.strip(), f"job {job.name!r}: no summary or input_help (the help)"
    unknown = [rule for rule in job.checks if rule not in RULES]
    assert not unknown, f"job {job.name!r} names unknown check rules {unknown}"


def check_job_templates_per_language_have_the_same_controls(job: JobSpec, folder: Path) -> None:
    """A template per declared language, each with controls, the same in every language (an answer parses the
    same whichever screen it was given on); a language without a screen is refused naming the ones there are."""
    name = job.name
    assert job.lang in job.langs and set(job.langs) <= set(LANGS)
    controls = {lang: job.template_for(lang).controls for lang in job.langs}
    assert controls[job.lang], f"job {name!r}: its template has no controls"
    for lang, found in controls.items():
        assert {(c.name, c.kind, c.to_name, c.choices) for c in found.values()} == {
            (c.name, c.kind, c.to_name, c.choices) for c in controls[job.lang].values()
        }, (name, lang)
    try:
        job.pick_lang("fr")  # not among LANGS: no job has a screen in it
    except ValueError as exc:
        assert "screens in" in str(exc), f"job {name!r}: {exc}"
    else:
        raise AssertionError(f"job {name!r}: a screen in 'fr' was not refused")


def check_job_tasks_have_unique_uids_and_keep_hidden_values_off_the_server(job: JobSpec, folder: Path) -> None:
    """`to_tasks(demo_rows())` gives tasks with unique string uids, the same on a second call (a re-push imports
    nothing twice), plain-JSON data, and hidden values that never reach what Label Studio is sent."""
    from lotdata.annotate.state import JobState

    name = job.name
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for lang in job.langs:
        tasks = job.to_tasks(job.demo_rows(), seed=0, lang=lang)
        assert tasks, f"job {name!r}: demo_rows() gives no task"
        uids = [t["data"]["uid"] for t in tasks]
        assert len(uids) == len(set(uids)) and all(isinstance(u, str) and u for u in uids), uids
        assert tasks == job.to_tasks(job.demo_rows(), seed=0, lang=lang), f"job {name!r}: tasks differ between calls"
        for task in tasks:
            assert not set(task["hidden"]) & set(task["data"]), (name, sorted(task["hidden"]))
            json.dumps(task["data"])  # what Label Studio gets is plain JSON
        state = JobState.new(folder, "http://x", name, f"p-{lang}", job.raters, "shared", lang=lang)
        for task in tasks:
            state.add(task)
        pushed = json.dumps(state.visible_tasks(), ensure_ascii=False)
        assert '"hidden"' not in pushed and not any(u in pushed for u in uids if u.startswith(("clozet-", "demo")))


def check_job_simulated_answers_parse_vote_assemble_and_are_written(job: JobSpec, folder: Path) -> None:
    """Each simulated answer parses and votes; the assembled items do not depend on the order answers are read in
    and carry `stats`; `write` puts files under the output folder."""
    from lotdata.annotate.workflow import write_assembled

    name = job.name
    for lang in job.langs:
        tasks = job.to_tasks(job.demo_rows(), seed=0, lang=lang)
        for task in tasks:
            task["data"]["raters"] = job.raters
        anns = simulated_annotations(job, tasks, lang)
        for ann in anns:
            votes = job.votes(ann.values)
            assert votes and all(isinstance(q, str) and hash(v) is not None for q, v in votes), (name, votes)
        assembled = job.assemble(anns)
        assert isinstance(assembled.get("stats"), dict), f"job {name!r}: assemble gave no 'stats'"
        assert assembled == job.assemble(list(reversed(anns))), f"job {name!r}: the order of answers changes items"
        out = Path(folder) / lang
        out.mkdir(parents=True, exist_ok=True)  # as pull gives it: its output folder, made
        written = write_assembled(name, assembled, out, {"job": name})
        assert written and out.is_dir() and any(out.iterdir()), f"job {name!r}: write wrote nothing"


def template_path(job: JobSpec, lang: str) -> Path:
    """The file of the job's template in `lang` (a name in lotdata's templates or the record's own path)."""
    from lotdata.resources import asset_dir

    where = job.templates[lang]
    return where if isinstance(where, Path) else Path(asset_dir("annotation_templates")) / f"{where}.xml"


_VALIDATE = (
    "import os, sys, pathlib, label_studio\n"
    "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'core.settings.label_studio')\n"
    "sys.path.insert(0, str(pathlib.Path(label_studio.__file__).parent))\n"
    "import django; django.setup()\n"
    "from label_studio.core.label_config import validate_label_config\n"
    "for path in sys.argv[1:]:\n"
    "    validate_label_config(pathlib.Path(path).read_text(encoding='utf-8')); print('valid', path)\n"
)


def check_job_templates_with_label_studio(jobs: JobSpec | Sequence[JobSpec], folder: Path | None = None) -> None:
    """Label Studio's own validator accepts every template of every language of `jobs` (one job or several, checked
    in one process: starting Label Studio's Django takes seconds). Needs Label Studio installed
    (`LOTDATA_LABEL_STUDIO_BIN`), no server."""
    from lotdata.annotate import server

    jobs = [jobs] if isinstance(jobs, JobSpec) else list(jobs)
    files = sorted({str(template_path(job, lang)) for job in jobs for lang in job.langs})
    python = server.label_studio_bin().parent / "python"
    env = {**os.environ, "LATEST_VERSION_CHECK": "false"}
    done = subprocess.run(
        [str(python), "-W", "ignore", "-c", _VALIDATE, *files], env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("valid ") == len(files) >= len(jobs)


#: every offline check of a job, in the order `check_job` runs them
JOB_CHECKS: tuple[Callable[[JobSpec, Path], None], ...] = (
    check_job_is_registered,
    check_job_templates_per_language_have_the_same_controls,
    check_job_tasks_have_unique_uids_and_keep_hidden_values_off_the_server,
    check_job_simulated_answers_parse_vote_assemble_and_are_written,
)


def check_job(job: JobSpec, folder: Path) -> None:
    """Run every offline check on `job`, each in a folder of its own under `folder` (AssertionError on the first
    broken)."""
    for check in JOB_CHECKS:
        check(job, Path(folder) / check.__name__)
