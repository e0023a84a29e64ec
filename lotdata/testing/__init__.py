"""Conformance checks for every extension kind, shipped with lotdata so a plug-in in another package runs the same
checks in its own CI (as scikit-learn's `check_estimator` does for estimators):

    from lotdata.testing import check_command, check_format
    check_command(MY_COMMAND, tmp_path)   # raises AssertionError naming the broken guarantee
    check_format(MY_FORMAT, tmp_path)

One module per kind, each with `check_<kind>(record, folder)` running every check of the kind (each in a folder
of its own under `folder`), the checks themselves as functions `(record, folder)` and a tuple of them in the
order they run (for `pytest.mark.parametrize`):

| kind | record | check | the checks | sample |
|---|---|---|---|---|
| command | `lotdata.command.Command` | `check_command` | `CHECKS` | `sample(folder)`: CLI arguments of a run |
| stage | `lotdata.stage.Stage` | `check_stage` | `STAGE_CHECKS` | its parameters' defaults |
| task | `lotdata.datasets.registry.TaskSpec` | `check_task` | `TASK_CHECKS` | its builder or `demo_examples` on lotdata's sample corpus |
| annotation job | `lotdata.annotate.jobs.JobSpec` | `check_job` | `JOB_CHECKS` | `demo_rows()`, `simulate(task, rater)` |
| input format | `lotdata.datasets.formats.InputFormat` | `check_format` | `FORMAT_CHECKS` | `sample(folder)`: a small file |
| audit baseline | `lotdata.audit.baselines.BaselineSpec` | `check_baseline` | `BASELINE_CHECKS` | tiny choice items made here |
| check rule | `lotdata.annotate.checks.Rule` | `check_check_rule` | `CHECK_RULE_CHECKS` | `sample()`: bad and good rows |
| tokenizer | `lotdata.text.tokenize.TokenizerSpec` | `check_tokenizer` | `TOKENIZER_CHECKS` | fixed Chinese story text made here |

A record must be registered before its checks run (they find it where lotdata does, in its registry).
"""

from __future__ import annotations

from lotdata.testing.baselines import BASELINE_CHECKS, check_baseline
from lotdata.testing.check_rules import CHECK_RULE_CHECKS, check_check_rule
from lotdata.testing.commands import (
    CHECKS,
    check_command,
    check_execution_settings_not_fingerprinted,
    check_failure_keeps_previous_output,
    check_kill_and_resume,
    check_other_kinds_refused,
    check_outputs_never_touch_inputs,
    check_ranges_enforced,
    check_sample_runs,
    check_second_writer_refused,
    content,
    contents,
    digest,
    parse_args,
    sample_params,
)
from lotdata.testing.formats import FORMAT_CHECKS, check_format
from lotdata.testing.jobs import JOB_CHECKS, check_job
from lotdata.testing.stages import STAGE_CHECKS, check_stage
from lotdata.testing.tasks import TASK_CHECKS, check_task
from lotdata.testing.tokenizers import TOKENIZER_CHECKS, check_tokenizer

#: kind -> (its check, its checks): every kind `lotdata.testing` checks
KINDS = {
    "command": (check_command, CHECKS),
    "stage": (check_stage, STAGE_CHECKS),
    "task": (check_task, TASK_CHECKS),
    "annotation_job": (check_job, JOB_CHECKS),
    "format": (check_format, FORMAT_CHECKS),
    "baseline": (check_baseline, BASELINE_CHECKS),
    "check_rule": (check_check_rule, CHECK_RULE_CHECKS),
    "tokenizer": (check_tokenizer, TOKENIZER_CHECKS),
}

__all__ = [
    "BASELINE_CHECKS",
    "CHECKS",
    "CHECK_RULE_CHECKS",
    "FORMAT_CHECKS",
    "JOB_CHECKS",
    "KINDS",
    "STAGE_CHECKS",
    "TASK_CHECKS",
    "TOKENIZER_CHECKS",
    "check_baseline",
    "check_check_rule",
    "check_command",
    "check_execution_settings_not_fingerprinted",
    "check_failure_keeps_previous_output",
    "check_format",
    "check_job",
    "check_kill_and_resume",
    "check_other_kinds_refused",
    "check_outputs_never_touch_inputs",
    "check_ranges_enforced",
    "check_sample_runs",
    "check_second_writer_refused",
    "check_stage",
    "check_task",
    "check_tokenizer",
    "content",
    "contents",
    "digest",
    "parse_args",
    "sample_params",
]
