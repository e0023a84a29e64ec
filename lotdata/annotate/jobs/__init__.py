"""The annotation jobs: one module per job, each registering a `JobSpec` record (see `base.py`).

A job is its template(s) per language, the rows it reads, `to_tasks` (stable `uid`, pre-annotations), `check`
(job rules on top of the template), `votes` (what agreement is measured on), `assemble` (decided items -> final
tables) and `write` (the files a pull leaves). Adding a job is one module that calls `register_job` (a third-party
package: the `lotdata.annotation_jobs` entry-point group) plus its template, checked by
`tests/test_job_conformance.py`.
"""

from __future__ import annotations

from collections.abc import Mapping

from lotdata.annotate.jobs.base import (
    BUILTIN_JOBS,
    JOB_REGISTRY,
    LANGS,
    Annotation,
    JobSpec,
    Output,
    all_jobs,
    get_job,
    job_names,
    opaque_uid,
    register_job,
    sample_rows,
    unregister_job,
)
from lotdata.annotate.jobs.cloze_verify import VERIFY_READING
from lotdata.annotate.jobs.clozet_write import balance_labels, mask_guess, negation_only_edit, wrong_candidate_problem
from lotdata.annotate.jobs.human_eval import ASPECTS, EVAL_SLOTS, sign_test, table12_markdown
from lotdata.annotate.jobs.human_perf import HUMAN_PERF_FILE
from lotdata.annotate.jobs.story_filter import REJECT_REASONS
from lotdata.annotate.template import InvalidResult, Template

#: the record type under its old name
Job = JobSpec


#: every registered job by name (a live view of the registry: jobs registered later appear in it)
JOBS: Mapping[str, JobSpec] = JOB_REGISTRY.view()

__all__ = [
    "ASPECTS",
    "BUILTIN_JOBS",
    "EVAL_SLOTS",
    "HUMAN_PERF_FILE",
    "JOBS",
    "JOB_REGISTRY",
    "LANGS",
    "REJECT_REASONS",
    "VERIFY_READING",
    "Annotation",
    "InvalidResult",
    "Job",
    "JobSpec",
    "Output",
    "Template",
    "all_jobs",
    "balance_labels",
    "get_job",
    "job_names",
    "mask_guess",
    "negation_only_edit",
    "opaque_uid",
    "register_job",
    "sample_rows",
    "sign_test",
    "table12_markdown",
    "unregister_job",
    "wrong_candidate_problem",
]
