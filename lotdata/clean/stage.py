"""The `clean` stage: noise stripped, stories flagged for annotators, rejected by rule, exact and near
duplicates removed, over every stories table before it (`lotdata clean`, a recipe's `[clean]`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lotdata.clean.dedup import DedupParams
from lotdata.clean.heldout import HEAD_NEAR, ID_COLUMNS
from lotdata.clean.step import CLEAN_NEEDS, CleanParams
from lotdata.command import get_command
from lotdata.errors import InputError
from lotdata.exec import ExecSettings
from lotdata.stage import Stage, StepContext, check_value, command_params, param, params_of, register_stage

#: the key of `lotdata clean`'s summary that holds the per source and rule rows (the CLI prints them as a second
#: table; a recipe's done marker leaves them out)
PER_SOURCE = "per_source_and_rule"


@dataclass(frozen=True)
class CleanStepParams:
    out: str = param("clean", "clean folder", cli=False)
    t2s: bool = param(CleanParams.t2s, "Convert traditional to simplified Chinese (OpenCC).")
    min_chars: int = param(CleanParams.min_chars, "Reject stories shorter than this after cleaning.", check=">=0")
    max_chars: int = param(CleanParams.max_chars, "Reject stories longer than this.", check=">0")
    short_chars: int = param(CleanParams.short_chars, "Flag too_short below this.", check=">=0")
    long_chars: int = param(CleanParams.long_chars, "Flag too_long above this.", check=">0")
    lexicon: str | None = param(
        None, "Lexicon file (one term a line) of content to reject; default: the shipped list.", path="file"
    )
    near_dup: float = param(
        DedupParams.reject_threshold, "Estimated Jaccard at which a copy is removed.", check="share"
    )
    cluster: float = param(
        DedupParams.cluster_threshold, "Estimated Jaccard at which kept stories share a cluster_id.", check="share"
    )
    seed: int = param(DedupParams.seed, "MinHash seed.")
    pii: str = param(
        CleanParams.pii,
        "Personal information (phone, id, email, qq, wechat, address): mask (a typed placeholder such as [PHONE]), "
        "quarantine or off, for all kinds or per kind, e.g. 'mask,id=quarantine,address=off'.",
    )
    language_check: bool = param(
        CleanParams.language_check,
        "Reject a story whose cleaned text is not in its lang (or has no letters, or mixes scripts beyond 10% of its "
        "clauses), by the identifier read uses.",
    )
    hold_out: str | None = param(
        None,
        "A test set (dataset folder or Story Cloze csv, labelled or blind): remove every story that is the source "
        "of one of its val/test cases, by id, by its first sentences and by near copy (ROCStories 4.2).",
        path="input",
    )
    hold_out_split: str = param("val,test", "The splits of --hold-out whose source stories leave the corpus.")
    hold_out_near: float = param(
        0.8, "Estimated Jaccard from which a story is a near copy of a held-out case's story.", check="share"
    )
    hold_out_head: float = param(
        HEAD_NEAR,
        "Jaccard (character 5-grams) from which a story less its last sentence is a copy of a held-out case's "
        "context (its first four sentences): finds a source whose ending the case replaced.",
        check="share",
    )
    hold_out_id: str = param(
        "source_id",
        "Stories columns (comma-separated) whose value is matched against the held-out cases' ids (InputStoryid); "
        f"story_id always is. One of: {', '.join(ID_COLUMNS)}.",
    )

    def check(self) -> None:
        """The ranges and combinations a recipe and `lotdata clean` refuse alike (ValueError)."""
        for info in params_of(CleanStepParams):  # the ranges the record declares, in a recipe's words
            if info.check:
                try:
                    check_value(info, getattr(self, info.name), "lotdata clean")
                except InputError as exc:
                    raise ValueError(str(exc).replace(f"'{info.name}'", info.flag, 1)) from None
        if not 0 < self.cluster <= self.near_dup <= 1:
            raise ValueError(
                f"need 0 < cluster (--cluster) <= near_dup (--near-dup) <= 1, not {self.cluster} and {self.near_dup}"
            )
        from lotdata.clean.pii import parse_pii_actions

        parse_pii_actions(self.pii)  # ValueError naming the kinds and actions
        unknown = [c for c in self.hold_out_id_columns() if c not in ID_COLUMNS]
        if unknown:
            raise ValueError(f"hold_out_id (--hold-out-id): {unknown} not among {', '.join(ID_COLUMNS)}")
        if self.min_chars > self.max_chars:
            raise ValueError(
                f"min_chars (--min-chars) {self.min_chars} is greater than max_chars (--max-chars) "
                f"{self.max_chars}: no story could be kept"
            )

    def hold_out_settings(self) -> dict[str, Any]:
        """`clean_files`' held-out keywords: the cases of `hold_out`'s splits (none without it)."""
        if self.hold_out is None:
            return {}
        from lotdata.clean.heldout import HoldOut, read_held_out

        splits = [s.strip() for s in self.hold_out_split.split(",") if s.strip()]
        cases = read_held_out(self.hold_out, splits)
        return {
            "hold_out": HoldOut(
                cases, self.hold_out_near, self.hold_out_head, self.hold_out_id_columns(), str(self.hold_out)
            )
        }

    def hold_out_id_columns(self) -> tuple[str, ...]:
        return tuple(c.strip() for c in self.hold_out_id.split(",") if c.strip())

    def clean_params(self) -> CleanParams:
        from lotdata.clean.step import load_lexicon

        return CleanParams(
            t2s=self.t2s,
            min_chars=self.min_chars,
            max_chars=self.max_chars,
            short_chars=self.short_chars,
            long_chars=self.long_chars,
            lexicon=load_lexicon(self.lexicon),
            dedup=DedupParams(cluster_threshold=self.cluster, reject_threshold=self.near_dup, seed=self.seed),
            pii=self.pii,
            language_check=self.language_check,
        )


def run(ctx: StepContext, params: CleanStepParams, execution: ExecSettings, table: dict[str, Any], index: int) -> None:
    """`lotdata clean STORIES --out RUN/OUT` over every stories table before it, through its record."""
    CLEAN = get_command("clean")
    out = ctx.root / params.out
    given = command_params(
        CLEAN,
        params,
        execution,
        stories=[str(s) for s in ctx.stories],
        out=str(out),
        lexicon=str(ctx.relative(params.lexicon)) if params.lexicon else None,
        hold_out=str(ctx.relative(params.hold_out)) if params.hold_out else None,
    )
    manifest = out / "manifest.json"
    ctx.command_step(
        "clean", CLEAN, given, [manifest], summary=lambda s: {k: v for k, v in s.items() if k != PER_SOURCE}
    )
    ctx.stories = [out / "stories.parquet"]


STAGE = register_stage(
    Stage(
        name="clean",
        params=CleanStepParams,
        run=run,
        order=40,
        executes=True,
        check=CleanStepParams.check,
        summary="noise, flags, rejects, exact and near-duplicates, on all the stories above",
        output="`clean/`",
        needs=CLEAN_NEEDS,
    )
)
