"""`lotdata overlap TEST --reference REF... --out DIR`: share of test n-grams found in references."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import List, Optional

import typer

from lotdata.clikit import console, errors, out_console, stage_options, summary_table
from lotdata.exec import ExecSettings


@stage_options(execution=ExecSettings)
def overlap_cmd(
    paths: List[str] = typer.Argument(..., metavar="TEST [REF...]", help="TEST: a stories/task Parquet table, a dataset folder or LOT jsonl. Words after the first --reference value are more references (so a shell glob works)."),
    reference: List[str] = typer.Option(..., "--reference", "-r", help="References: the same kinds, or corpora of any size (.txt/.jsonl/.parquet, .gz/.zst; quoted globs are expanded)."),
    out: Path = typer.Option(..., "--out", help="Folder for summary.json, examples.parquet, report.md (and the resumable scan)."),
    n: int = typer.Option(8, "--n", min=1, help="n-gram length in words."),
    threshold: float = typer.Option(0.1, "--threshold", help="An example is 'overlapped' above this share of its n-grams."),

    tokenizer: Optional[str] = typer.Option(None, "--tokenizer", help="Chinese tokenizer from the registry (default rjieba; jieba, jieba-nohmm, ...)."),
    lang: Optional[str] = typer.Option(None, "--lang", help="zh or en for both sides (default: the test set's language)."),
    drop_punct: bool = typer.Option(False, "--drop-punct", help="Drop punctuation tokens before making n-grams."),
    write_filtered: Optional[Path] = typer.Option(None, "--write-filtered", help="Write the test set without the examples over the threshold here (a dataset folder)."),
    skip_bad: bool = typer.Option(False, "--skip-bad", help="Skip missing or unreadable references (listed in the summary) instead of stopping."),
    shard_mb: int = typer.Option(32, "--shard-mb", min=1, help="Shard size for big plain files and Parquet row groups."),
    *, execution: ExecSettings,
) -> None:
    """LOT Table 14 for each split of TEST against the references; --write-filtered gives the 'w/o overlap' set."""
    from lotdata.overlap import DEFAULT_TOKENIZER, TokenSpec, load_test_set, measure_overlap
    from lotdata.overlap.report import write_filtered as write_filtered_set, write_outputs
    from lotdata.text.tokenize import get_tokenizer

    from lotdata.io import check_output_dir, output_lock
    from lotdata.paths import check_outputs
    from lotdata.overlap.measure import check_threshold

    test, reference = Path(paths[0]), [*reference, *paths[1:]]
    with errors():
        if lang not in (None, "zh", "en"):
            raise ValueError(f"--lang must be zh or en, not {lang!r}")
        check_threshold(threshold)
        check_outputs({"--out": out, "--write-filtered": write_filtered}, {"TEST": test, "--reference": reference})
        check_output_dir(out)
        if write_filtered is not None:  # checked now, not after the whole scan
            check_output_dir(write_filtered, "--write-filtered")
        testset = load_test_set(test)
        spec = TokenSpec(n=n, tokenizer=tokenizer or DEFAULT_TOKENIZER, lang=lang or testset.lang(), drop_punct=drop_punct)
        get_tokenizer(spec.tokenizer)  # an unknown name fails here, not in a worker
        with output_lock(out):
            result = measure_overlap(testset, reference, out / "scan", spec=spec, threshold=threshold, execution=execution,
                                     shard_bytes=shard_mb << 20, skip_bad=skip_bad)
            write_outputs(result, out, test_path=str(test), references=list(reference))
            if write_filtered is not None:
                command = "lotdata overlap " + " ".join(shlex.quote(a) for a in sys.argv[2:])
                with output_lock(write_filtered):
                    kept = write_filtered_set(testset, result, write_filtered, command=command, inputs=testset.inputs)
    for s in result.summary:
        out_console.print(summary_table(f"lotdata overlap {s['split']} ({n}-grams)", {
            "examples": s["n_examples"], "percent": f"{100 * s['percent']:.2f}%", f"# {n}-grams": s["ngrams"],
            "# exam": s["examples"], f"# exam>{threshold:.0%}": s["examples_over"],
            "max percent": f"{100 * s['max_percent']:.2f}%",
        }))
    if write_filtered is not None:
        out_console.print(f"w/o overlap -> {write_filtered}: {kept}")
    for line in result.skipped:
        console.print(f"[yellow]skipped:[/] {line}")
    out_console.print(f"{out}/summary.json, {out}/examples.parquet, {out}/report.md")
