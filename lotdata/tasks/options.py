"""The options every `lotdata build TASK` command shares with a recipe's `[[build]]` table: declared once here,
read by the build commands' records (`lotdata.tasks.commands`) and the `build` stage (`lotdata.tasks.stage`)."""

from __future__ import annotations

from dataclasses import dataclass

from lotdata.stage import param


@dataclass(frozen=True)
class BuildOptions:
    """The options every `lotdata build TASK` command shares with a recipe's [[build]] table."""

    n: int | None = param(
        None,
        "At most this many examples in all (whole stories, seeded order; only the stories "
        "needed are built); with --clozet, the automatic (train) examples only.",
        check=">0",
        meaning="cap, as `--n`",
    )
    train_n: int | None = param(
        None,
        "At most this many training examples (whole stories, seeded order).",
        check=">0",
        meaning="cap, as `--train-n`",
    )
    seed: int = param(0, "Seed of the splits and of every random choice.")
    split: str | None = param(
        None,
        "Ratios (train=0.8,val=0.1,test=0.1, the default) or val/test sizes in examples "
        "(val=800,test=863); train takes the rest.",
    )
    lot_jsonl: bool = param(True, "Also write OUT/lot/{split}.jsonl in the official LOT format.")
    statuses: str | list[str] | None = param(
        None,
        "Story statuses to take, e.g. accepted,rewritten (default: all but rejected; OutGen: accepted,rewritten "
        "when the stories carry them).",
    )
    tokenizer: str | None = param(
        None,
        "Chinese tokenizer for word counts (default LOTDATA_TOKENIZER, else rjieba: "
        "jieba's tokens, faster; jieba: LOT's exact setting).",
    )
