"""`lotdata overlap TEST --reference REF... --out DIR`: share of test n-grams found in references."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import List, Optional

import typer

from lotdata.clikit import command_of, console, errors, out_console, stage_options, summary_table
from lotdata.exec import ExecSettings


@stage_options(execution=ExecSettings)
def overlap_cmd(
    paths: List[str] = typer.Argument(
        ...,
        metavar="TEST [REF...]",
        help="TEST: a stories/task Parquet table, a dataset folder or LOT jsonl. Words after the first --reference value are more references (so a shell glob works); with --index every word is a test set.",
    ),
    reference: Optional[List[str]] = typer.Option(
        None,
        "--reference",
        "-r",
        help="References: the same kinds, or corpora of any size (.txt/.jsonl/.parquet, .gz/.zst; quoted globs are expanded).",
    ),
    index: Optional[Path] = typer.Option(
        None,
        "--index",
        help="A built index (`lotdata index build`) instead of --reference: any number of test sets, answered in one batch, with the longest match per example.",
    ),
    out: Path = typer.Option(
        ..., "--out", help="Folder for summary.json, examples.parquet, report.md (and the resumable scan)."
    ),
    n: int = typer.Option(8, "--n", min=1, help="n-gram length in words."),
    threshold: float = typer.Option(
        0.1, "--threshold", help="An example is 'overlapped' above this share of its n-grams."
    ),
    tokenizer: Optional[str] = typer.Option(
        None, "--tokenizer", help="Chinese tokenizer from the registry (default rjieba; jieba, jieba-nohmm, ...)."
    ),
    lang: Optional[str] = typer.Option(
        None, "--lang", help="zh or en for both sides (default: the test set's language)."
    ),
    drop_punct: bool = typer.Option(False, "--drop-punct", help="Drop punctuation tokens before making n-grams."),
    write_filtered: Optional[Path] = typer.Option(
        None,
        "--write-filtered",
        help="Write the test set without the examples over the threshold here (a dataset folder).",
    ),
    skip_bad: bool = typer.Option(
        False, "--skip-bad", help="Skip missing or unreadable references (listed in the summary) instead of stopping."
    ),
    shard_mb: int = typer.Option(
        32, "--shard-mb", min=1, help="Shard size for big plain files and Parquet row groups."
    ),
    *,
    execution: ExecSettings,
) -> None:
    """LOT Table 14 for each split of TEST against the references; --write-filtered gives the 'w/o overlap' set."""
    from lotdata.io import check_output_dir, output_lock
    from lotdata.overlap import DEFAULT_TOKENIZER, TokenSpec, load_test_set, measure_overlap
    from lotdata.overlap.measure import check_threshold
    from lotdata.overlap.report import write_filtered as write_filtered_set
    from lotdata.overlap.report import write_outputs
    from lotdata.paths import check_outputs
    from lotdata.text.tokenize import get_tokenizer

    if index is not None:
        if reference:
            raise typer.BadParameter("give --index or --reference, not both", param_hint="--index")
        return _overlap_with_index(
            [Path(p) for p in paths],
            index,
            out,
            n=n,
            threshold=threshold,
            tokenizer=tokenizer,
            lang=lang,
            drop_punct=drop_punct,
            write_filtered=write_filtered,
        )
    if not reference:
        raise typer.BadParameter(
            "give the references (--reference REF...) or a built index (--index IDX)", param_hint="--reference"
        )
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
        spec = TokenSpec(
            n=n, tokenizer=tokenizer or DEFAULT_TOKENIZER, lang=lang or testset.lang(), drop_punct=drop_punct
        )
        get_tokenizer(spec.tokenizer)  # an unknown name fails here, not in a worker
        with output_lock(out):
            result = measure_overlap(
                testset,
                reference,
                out / "scan",
                spec=spec,
                threshold=threshold,
                execution=execution,
                shard_bytes=shard_mb << 20,
                skip_bad=skip_bad,
            )
            write_outputs(result, out, test_path=str(test), references=list(reference))
            if write_filtered is not None:
                command = "lotdata overlap " + " ".join(shlex.quote(a) for a in sys.argv[2:])
                with output_lock(write_filtered):
                    kept = write_filtered_set(testset, result, write_filtered, command=command, inputs=testset.inputs)
    for s in result.summary:
        out_console.print(
            summary_table(
                f"lotdata overlap {s['split']} ({n}-grams)",
                {
                    "examples": s["n_examples"],
                    "percent": f"{100 * s['percent']:.2f}%",
                    f"# {n}-grams": s["ngrams"],
                    "# exam": s["examples"],
                    f"# exam>{threshold:.0%}": s["examples_over"],
                    "max percent": f"{100 * s['max_percent']:.2f}%",
                },
            )
        )
    if write_filtered is not None:
        out_console.print(f"w/o overlap -> {write_filtered}: {kept}")
    for line in result.skipped:
        console.print(f"[yellow]skipped:[/] {line}")
    out_console.print(f"{out}/summary.json, {out}/examples.parquet, {out}/report.md")


def _print_summary(result, n: int, threshold: float, title: str) -> None:
    for s in result.summary:
        out_console.print(
            summary_table(
                f"{title} {s['split']} ({n}-grams)",
                {
                    "examples": s["n_examples"],
                    "percent": f"{100 * s['percent']:.2f}%",
                    f"# {n}-grams": s["ngrams"],
                    "# exam": s["examples"],
                    f"# exam>{threshold:.0%}": s["examples_over"],
                    "max percent": f"{100 * s['max_percent']:.2f}%",
                },
            )
        )


def _output_folders(tests: List[Path], out: Path) -> List[Path]:
    """One test set: OUT itself (as the streaming path); several: OUT/<name of each>, numbered when names repeat."""
    if len(tests) == 1:
        return [out]
    folders, seen = [], {}
    for test in tests:
        name = test.name.split(".")[0] if test.is_file() else test.name or "test"
        seen[name] = seen.get(name, 0) + 1
        folders.append(out / (name if seen[name] == 1 else f"{name}_{seen[name]}"))
    return folders


def _overlap_with_index(
    tests: List[Path],
    index: Path,
    out: Path,
    *,
    n: int,
    threshold: float,
    tokenizer: Optional[str],
    lang: Optional[str],
    drop_punct: bool,
    write_filtered: Optional[Path],
) -> None:
    from lotdata.io import check_output_dir, output_lock
    from lotdata.overlap import load_test_set
    from lotdata.overlap.index import verify_index
    from lotdata.overlap.lookup import measure_with_index, write_indexed
    from lotdata.overlap.measure import check_threshold
    from lotdata.overlap.report import write_filtered as write_filtered_set
    from lotdata.overlap.texts import TokenSpec
    from lotdata.paths import check_outputs

    with errors():
        if lang not in (None, "zh", "en"):
            raise ValueError(f"--lang must be zh or en, not {lang!r}")
        check_threshold(threshold)
        check_outputs({"--out": out, "--write-filtered": write_filtered}, {"TEST": tests, "--index": index})
        check_output_dir(out)
        if write_filtered is not None and len(tests) > 1:
            raise ValueError("--write-filtered takes one test set; give the test sets one call each")
        loaded = verify_index(index)
        built = loaded.manifest["tokens"]
        testsets = [load_test_set(t) for t in tests]
        spec = TokenSpec(
            n=n,
            tokenizer=tokenizer or built["tokenizer"],
            lang=lang or built["lang"],
            drop_punct=drop_punct or built["drop_punct"],
        )
        for test, testset in zip(tests, testsets):
            if lang is None and testset.lang() != built["lang"]:
                raise ValueError(
                    f"{test}: a {testset.lang()} test set, the index {index} holds {built['lang']} words "
                    "(--lang to force)"
                )
        results = measure_with_index(testsets, loaded, spec=spec, threshold=threshold)
        folders = _output_folders(tests, out)
        with output_lock(out):
            for test, folder, result in zip(tests, folders, results):
                write_indexed(result, folder, test_path=str(test), index=loaded)
            if write_filtered is not None:
                command = "lotdata overlap " + " ".join(shlex.quote(a) for a in sys.argv[2:])
                with output_lock(write_filtered):
                    kept = write_filtered_set(
                        testsets[0], results[0], write_filtered, command=command, inputs=testsets[0].inputs
                    )
                out_console.print(f"w/o overlap -> {write_filtered}: {kept}")
    for test, folder, result in zip(tests, folders, results):
        _print_summary(result, n, threshold, f"lotdata overlap --index {test}")
        out_console.print(
            f"{folder}/summary.json, {folder}/examples.parquet, {folder}/report.md "
            f"({result.scan['seconds']:.2f} s for {len(tests)} test set(s))"
        )


index_app = typer.Typer(
    help="A word n-gram index of reference corpora: build once, query with `overlap --index`.", no_args_is_help=True
)


from lotdata.overlap.commands import INDEX_BUILD  # noqa: E402

index_app.command("build")(
    command_of(
        INDEX_BUILD,
        lambda summary, params: out_console.print(summary_table(f"lotdata index build -> {params.out}", summary)),
    )
)


@index_app.command("verify")
def index_verify_cmd(idx: Path = typer.Argument(..., metavar="IDX", help="An index folder.")) -> None:
    """The check every query runs: manifest, version, sizes, sha256 of the small files, sampled sortedness."""
    from lotdata.overlap.index import verify_index

    with errors():
        loaded = verify_index(idx)
    m = loaded.manifest
    out_console.print(
        summary_table(
            f"lotdata index verify {idx}: ok",
            {
                "lotdata": m["lotdata_version"],
                "tokens": m["tokens"],
                "shards": len(m["shards"]),
                "words": m["totals"]["tokens"],
                "vocabulary": m["vocab"]["words"],
                "sources": len(m["sources"]),
            },
        )
    )
