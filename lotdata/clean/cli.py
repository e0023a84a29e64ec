"""`lotdata clean`: a stories table in, clean stories + quarantine + summary out."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotdata.clikit import errors, out_console, summary_table


def clean_cmd(
    stories: List[Path] = typer.Argument(..., help="stories Parquet file(s); duplicates are found across all of them."),
    out: Path = typer.Option(..., "--out", help="Folder for stories.parquet, quarantine.parquet, summary.parquet, manifest.json."),
    t2s: bool = typer.Option(False, "--t2s", help="Convert traditional to simplified Chinese (OpenCC)."),
    min_chars: int = typer.Option(50, "--min-chars", help="Reject stories shorter than this after cleaning."),
    max_chars: int = typer.Option(20000, "--max-chars", help="Reject stories longer than this."),
    short_chars: int = typer.Option(100, "--short-chars", help="Flag too_short below this."),
    long_chars: int = typer.Option(1500, "--long-chars", help="Flag too_long above this."),
    lexicon: Optional[Path] = typer.Option(None, "--lexicon", help="Lexicon file (one term a line) of content to reject; default: the shipped list."),
    near_dup: float = typer.Option(0.8, "--near-dup", help="Estimated Jaccard at which a copy is removed."),
    cluster: float = typer.Option(0.5, "--cluster", help="Estimated Jaccard at which kept stories share a cluster_id."),
    seed: int = typer.Option(1, "--seed", help="MinHash seed."),
    workers: int = typer.Option(1, "--workers", help="Parallel workers for the clean, signature and bucket phases."),
    executor: str = typer.Option("local", "--executor", help="local (process pool) or ray."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Join this Ray cluster (default: start Ray locally)."),
    hold_out: Optional[Path] = typer.Option(None, "--hold-out", help="A test set (dataset folder or Story Cloze csv): remove every story that is the source of one of its val/test cases, by story id and by near copy (ROCStories 4.2)."),
    hold_out_split: str = typer.Option("val,test", "--hold-out-split", help="The splits of --hold-out whose source stories leave the corpus."),
    hold_out_near: float = typer.Option(0.8, "--hold-out-near", help="Estimated Jaccard from which a story is a near copy of a held-out case's story."),
) -> None:
    """Clean stories: strip noise, flag for annotators, reject by rule, remove exact and near-duplicates."""
    from lotdata.clean.dedup import DedupParams
    from lotdata.clean.files import clean_files
    from lotdata.clean.step import CleanParams, load_lexicon
    from lotdata.errors import InputError
    from lotdata.io import output_lock

    with errors():
        if not 0 < cluster <= near_dup <= 1:
            raise ValueError("need 0 < --cluster <= --near-dup <= 1")
        if workers < 1:
            raise ValueError(f"--workers {workers}: need at least 1")
        if min_chars > max_chars:
            raise ValueError(f"--min-chars {min_chars} is greater than --max-chars {max_chars}: no story could be kept")
        params = CleanParams(t2s=t2s, min_chars=min_chars, max_chars=max_chars, short_chars=short_chars,
                             long_chars=long_chars, lexicon=load_lexicon(lexicon),
                             dedup=DedupParams(cluster_threshold=cluster, reject_threshold=near_dup, seed=seed))
        cases = []
        if hold_out is not None:
            from lotdata.clean.heldout import read_held_out

            if not 0 < hold_out_near <= 1:
                raise ValueError(f"--hold-out-near {hold_out_near}: need 0 < value <= 1")
            cases = read_held_out(hold_out, [s.strip() for s in hold_out_split.split(",") if s.strip()])
        with output_lock(out):  # one run at a time per output folder
            result = clean_files(stories, out, params, executor=executor, workers=workers, ray_address=ray_address,
                                 hold_out=cases, hold_out_threshold=hold_out_near,
                                 hold_out_source=str(hold_out) if hold_out else None)
        if not result.kept:
            raise InputError(
                f"no story kept: {result.counts['stories_in']} read, {result.counts['removed']} removed; "
                f"see {out / 'quarantine.parquet'} and {out / 'summary.parquet'}",
                path=", ".join(map(str, stories)))
    out_console.print(summary_table(f"lotdata clean -> {out}", {k: v for k, v in result.counts.items() if k != "phase_seconds"}))
    table = summary_table("per source and rule", {})
    for row in result.summary:
        table.add_row(f"{row['source']} · {row['rule']} ({row['action']})", str(row["stories"]))
    out_console.print(table)
