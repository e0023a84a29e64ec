"""The annotation loop end to end, kept importable from here: push (`lotdata.annotate.push`), pull
(`lotdata.annotate.pull`) and the team of raters with their progress (`lotdata.annotate.team`). The commands that
write are records in `lotdata.annotate.commands` (`annotate push`, `pull`, `raters add`, ...)."""

from __future__ import annotations

from lotdata.annotate.jobs import HUMAN_PERF_FILE, table12_markdown
from lotdata.annotate.jobs.human_perf import check_human_perf_complete
from lotdata.annotate.pull import (
    Collected,
    collect,
    fetch_tasks,
    gather,
    gold_report,
    provenance,
    pull,
    task_url,
    versions_seen,
    write_assembled,
)
from lotdata.annotate.push import (
    job_load_options,
    load_gold,
    push,
    push_to_rater,
    qualified_raters,
    source_info,
)
from lotdata.annotate.team import add_raters, list_raters, status

__all__ = [
    "HUMAN_PERF_FILE",
    "Collected",
    "add_raters",
    "check_human_perf_complete",
    "collect",
    "fetch_tasks",
    "gather",
    "gold_report",
    "job_load_options",
    "list_raters",
    "load_gold",
    "provenance",
    "pull",
    "push",
    "push_to_rater",
    "qualified_raters",
    "source_info",
    "status",
    "table12_markdown",
    "task_url",
    "versions_seen",
    "write_assembled",
]
