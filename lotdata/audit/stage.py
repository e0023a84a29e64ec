"""The `audit` stage: `audit-bias` on a dataset folder (a recipe's `[[audit]]`; the command is
`lotdata audit-bias`). A stopped step resumes its finished shards."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.audit.stats import AUDIT_NEEDS
from lotdata.command import get_command
from lotdata.exec import ExecSettings
from lotdata.stage import Stage, StepContext, command_params, param, register_stage


@dataclass(frozen=True)
class AuditParams:
    input: str = param("", "dataset to audit: a `[[build]]` out or a path", path="step", required=True, cli=False)
    out: str | None = param(None, "report folder (default: `audit-<input>`)", cli=False)
    task: str | None = param(None, "clozet or senpos, for LOT jsonl whose fields do not tell.")
    train_split: str | None = param(
        None, "Split the learning baselines fit on (SCT: val); it must exist. Default: train, where there is one."
    )
    seed: int = param(0, "Seed of the random baselines and of the runs.")
    runs: int = param(10, "Seeded runs averaged for random choices and ties.", check=">0")
    baselines: list[str] | None = param(None, "Run only these (repeatable); default: all.", flag="--baseline")
    model_path: str | None = param(
        None,
        "Local pretrained checkpoint folder (e.g. bert-base-chinese) for "
        "bert_wo_context / bert_wo_long; without it they are skipped rows.",
    )
    aflite: bool = param(False, "Also run AFLite filtering and list the easiest items.")
    sentiment: str = param(
        "snownlp",
        "Chinese sentiment: snownlp (exact, LOT's) or snownlp-jieba (same classifier on jieba words, ~20x faster).",
        choices=("snownlp", "snownlp-jieba"),
    )


def audit_arguments(params: AuditParams, out: Path) -> dict[str, Any]:
    """`audit()`'s keywords from the stage's parameters, for the CLI and the recipe step alike."""
    from lotdata.audit.work import WORK_DIR

    return {
        "task": params.task,
        "train_split": params.train_split,
        "seed": params.seed,
        "runs": params.runs,
        "baselines": params.baselines,
        "model_path": params.model_path,
        "aflite": params.aflite,
        "sentiment": params.sentiment,
        "work": out / WORK_DIR,
        "sentiment_cache": out / "sentiment_cache.parquet",
    }


def run(ctx: StepContext, params: AuditParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    """`lotdata audit-bias INPUT --out RUN/OUT`, through its record (a stopped step resumes its finished shards:
    the report folder is an update output, its work folder kept)."""
    AUDIT_BIAS = get_command("audit-bias")
    target = ctx.step_input(params.input)
    out = ctx.root / (params.out or f"audit-{target.name}")
    name = f"audit-{out.name}"
    given = command_params(AUDIT_BIAS, params, execution, input=str(target), out=str(out))
    ctx.command_step(name, AUDIT_BIAS, given, [out / "results.json"], summary=_accuracies)


def _accuracies(summary: dict[str, Any]) -> dict[str, Any]:
    """What the done marker keeps of an audit: each baseline's accuracy."""
    return {r["id"]: round(r["accuracy"], 4) for r in summary["records"]}


STAGE = register_stage(
    Stage(
        name="audit",
        params=AuditParams,
        run=run,
        order=70,
        many=True,
        executes=True,
        summary="`audit-bias` on a dataset folder",
        output="`audit-<input>/`",
        needs=AUDIT_NEEDS,
        where=lambda params, table: params.out or f"audit-{Path(params.input).name}",
    )
)
