"""The overlap commands as records (`lotdata.command`): the CLI, the library call and the conformance checks
are derived from them, and the one runner gives each its checks, locks and atomic publication."""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.command import Command, Output, Run, execution_of, register_command
from lotdata.exec import ExecSettings
from lotdata.stage import param


def _tokenizers() -> list[str]:
    from lotdata.text.tokenize import tokenizer_names

    return tokenizer_names()


@dataclass(frozen=True, kw_only=True)
class IndexBuildParams(ExecSettings):
    references: list[str] = param(
        help="References: what `overlap --reference` reads (.txt/.jsonl/.parquet, .gz/.zst, folders, quoted globs).",
        path="input",
    )
    out: str = param(help="The index folder (built beside it and swapped in whole; a killed build run again resumes).")
    tokenizer: str | None = param(
        None,
        help="Chinese tokenizer from the registry (default rjieba; jieba for LOT's exact setting).",
        choices=_tokenizers,
    )
    lang: str = param("zh", help="zh or en.", choices=("zh", "en"))
    drop_punct: bool = param(False, help="Drop punctuation tokens (queries must then use it too).")
    shard_mb: int = param(
        64,
        help="Shard size (MB of text) of the first step: a worker's peak memory grows with it (measured: about 70 "
        "bytes a word of the shard, 1.0 GB per worker at 64 MB of Chinese text; a compaction task about 0.9 GB).",
        check=">0",
    )
    segment_mb: int = param(
        8192,
        help="Compaction: consecutive shards are merged into segments of about this many MB of text, "
        "memory-mapped; a query costs one binary search per segment (8192: 32-bit offsets for Chinese text).",
        check=">0",
    )


def _index_build(run: Run) -> dict[str, Any]:
    from lotdata.overlap import DEFAULT_TOKENIZER
    from lotdata.overlap.index import build_index
    from lotdata.overlap.texts import TokenSpec
    from lotdata.text.tokenize import get_tokenizer

    p: IndexBuildParams = run.params
    spec = TokenSpec(tokenizer=p.tokenizer or DEFAULT_TOKENIZER, lang=p.lang, drop_punct=p.drop_punct)
    get_tokenizer(spec.tokenizer)
    manifest = build_index(
        p.references,
        run.out("--out"),
        spec=spec,
        execution=execution_of(p),
        shard_bytes=p.shard_mb << 20,
        segment_bytes=p.segment_mb << 20,
    )
    totals = manifest["totals"]
    return {
        "documents": totals["docs"],
        "words": totals["tokens"],
        "characters": totals["chars"],
        "shards": len(manifest["shards"]),
        "segments": len(manifest["segments"]),
        "index MB": round(totals["index_bytes"] / 1e6, 1),
        "bytes per character": round(totals["index_bytes"] / max(totals["chars"], 1), 2),
        "seconds": manifest["build_seconds"],
    }


def _index_sample(folder: Path) -> list[str]:
    ref = folder / "ref.txt"
    ref.write_text("小明 今天 去 学校 上课 了 。\n他 很 高兴 地 回家 了 。\n", encoding="utf-8")
    return [str(ref), "--out", str(folder / "index"), "--tokenizer", "jieba"]


INDEX_BUILD = register_command(
    Command(
        name="index build",
        params=IndexBuildParams,
        execute=_index_build,
        inputs=lambda p: {"REF": [r for r in p.references if "*" not in r and "?" not in r]},
        outputs=lambda p: [Output("--out", Path(p.out), kind="overlap-index")],
        summary="Tokenise REF once (as `overlap` does) and write word ids and suffix arrays, merged into a few "
        "large segments, with a manifest holding every file's sha256.",
        arguments=("references",),
        metavars={"references": "REF"},
        sample=_index_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# lotdata overlap

#: what `overlap --out` holds: the report and the resumable scan (several test sets: a folder of these each)
REPORT_ENTRIES = frozenset({"summary.json", "examples.parquet", "report.md", "scan"})


@dataclass(frozen=True, kw_only=True)
class OverlapParams(ExecSettings):
    paths: list[str] = param(
        help="TEST: a stories/task Parquet table, a dataset folder or LOT jsonl. Words after the first --reference "
        "value are more references (so a shell glob works); with --index every word is a test set.",
    )
    reference: list[str] | None = param(
        None,
        help="References: the same kinds, or corpora of any size (.txt/.jsonl/.parquet, .gz/.zst; quoted globs are expanded).",
        path="input",
    )
    index: str | None = param(
        None,
        help="A built index (`lotdata index build`) instead of --reference: any number of test sets, answered in one batch, with the longest match per example.",
        path="input",
    )
    out: str = param(help="Folder for summary.json, examples.parquet, report.md (and the resumable scan).")
    n: int = param(8, help="n-gram length in words.", check=">0")
    threshold: float = param(0.1, help="An example is 'overlapped' above this share of its n-grams.")
    tokenizer: str | None = param(
        None,
        help="Chinese tokenizer from the registry (default rjieba; jieba for LOT's exact setting).",
        choices=_tokenizers,
    )
    lang: str | None = param(
        None, help="zh or en for both sides (default: the test set's language).", choices=("zh", "en")
    )
    drop_punct: bool = param(False, help="Drop punctuation tokens before making n-grams.")
    write_filtered: str | None = param(
        None, help="Write the test set without the examples over the threshold here (a dataset folder)."
    )
    skip_bad: bool = param(
        False, help="Skip missing or unreadable references (listed in the summary) instead of stopping."
    )
    shard_mb: int = param(32, help="Shard size for big plain files and Parquet row groups.", check=">0")
    trust_references: bool = param(
        False,
        help="With --index: use the index although a reference changed (size or mtime) since it was built "
        "(refused by default, exit 3); the report lists the changed references.",
    )
    suspicious: float = param(
        0.1,
        help="With --index, contamination report v2: an example whose overlap ratio is above this is 'suspicious' "
        "(0.1: LOT's # Exam>10%).",
    )
    dirty: float = param(0.5, help="With --index: an example whose overlap ratio is at least this is 'dirty'.")
    bucket_on: str = param(
        "ratio",
        help="With --index: the measure the buckets read: ratio (matched n-grams / all) or idf_ratio (each n-gram "
        "weighed by the rarity of its words in the references).",
        choices=("ratio", "idf_ratio"),
    )
    dirty_longest: int = param(
        0, help="With --index: an example with a match of at least this many words is 'dirty' too (0: no such rule)."
    )

    def buckets(self):
        from lotdata.overlap.contamination import Buckets

        return Buckets(self.suspicious, self.dirty, self.bucket_on, self.dirty_longest)


def overlap_tests(p: OverlapParams) -> list[str]:
    """The test sets: every positional word with --index, else the first (the rest are references)."""
    return list(p.paths) if p.index is not None else list(p.paths[:1])


def overlap_references(p: OverlapParams) -> list[str]:
    return [] if p.index is not None else [*(p.reference or []), *p.paths[1:]]


def _expanded(patterns: list[str]) -> list[str]:
    """The paths a list of references names, quoted globs expanded (so each file is checked against the outputs)."""
    import glob

    found: list[str] = []
    for pattern in patterns:
        found += sorted(glob.glob(pattern, recursive=True)) if glob.has_magic(pattern) else [pattern]
    return found


def report_names(tests: list[str]) -> list[str]:
    """The report folder of each test set under --out when there are several: the file's name up to its first
    dot (a folder: its name), numbered apart when two are alike (`val`, `val_2`, never the name of another)."""
    names: list[str] = []
    for test in tests:
        path = Path(test)
        if path.is_dir():
            base = path.name if path.name not in ("", ".", "..") else Path(os.path.abspath(path)).name
        else:
            base = path.name.lstrip(".").split(".")[0]
        base = base or "test"
        name, k = base, 1
        while name in names or name in REPORT_ENTRIES:
            k += 1
            name = f"{base}_{k}"
        names.append(name)
    return names


def _is_report(folder: Path) -> bool:
    names = {p.name for p in folder.iterdir()}
    return bool(names) and names <= REPORT_ENTRIES


def overlap_report_owned(folder: Path) -> bool:
    """An overlap report folder (or one holding a report per test set): the files `overlap` writes, nothing else."""
    entries = list(folder.iterdir())
    if {p.name for p in entries} <= REPORT_ENTRIES:
        return True
    return all(p.is_dir() and _is_report(p) for p in entries)


def _filtered_owned(folder: Path) -> bool:
    from lotdata.command import folder_kind

    return folder_kind(folder) in ("dataset", "stories-splits")


def _overlap_inputs(p: OverlapParams) -> dict[str, Any]:
    if p.index is not None:
        return {"TEST": overlap_tests(p), "--index": p.index}
    return {"TEST": overlap_tests(p), "--reference": _expanded(overlap_references(p))}


def _overlap_outputs(p: OverlapParams) -> list[Output]:
    # the streaming scan is kept in --out: a re-run over the same references resumes from it (update)
    outputs = [Output("--out", Path(p.out), kind="folder", owned=overlap_report_owned, update=p.index is None)]
    if p.write_filtered is not None:
        outputs.append(Output("--write-filtered", Path(p.write_filtered), kind="dataset", owned=_filtered_owned))
    return outputs


def _overlap_check(p: OverlapParams) -> None:
    from lotdata.overlap.measure import check_threshold

    if not p.paths:
        raise ValueError("give a test set (TEST)")
    if p.index is not None and p.reference:
        raise ValueError("give --index or --reference, not both")
    if p.index is None and not p.reference:
        raise ValueError("give the references (--reference REF...) or a built index (--index IDX)")
    check_threshold(p.threshold)
    p.buckets().check()
    if p.index is not None and p.write_filtered is not None and len(p.paths) > 1:
        raise ValueError("--write-filtered takes one test set; give the test sets one call each")


def _command_line() -> str:
    return "lotdata overlap " + " ".join(shlex.quote(a) for a in sys.argv[2:])


def _keep_only(folder: Path, keep: set[str]) -> None:
    """Remove from a staged folder what an earlier run left there, but `keep` (the resumable parts)."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.name in keep:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _report(test: str, folder: Path, result: Any) -> dict[str, Any]:
    return {"test": test, "folder": str(folder), "splits": result.summary, "seconds": result.scan["seconds"]}


def _overlap(run: Run) -> dict[str, Any]:
    from lotdata.overlap import DEFAULT_TOKENIZER, TokenSpec, load_test_set, measure_overlap
    from lotdata.overlap.report import write_filtered, write_outputs
    from lotdata.text.tokenize import get_tokenizer

    p: OverlapParams = run.params
    if p.index is not None:
        return _overlap_with_index(run)
    test, references = p.paths[0], overlap_references(p)
    testset = load_test_set(Path(test))
    spec = TokenSpec(
        n=p.n, tokenizer=p.tokenizer or DEFAULT_TOKENIZER, lang=p.lang or testset.lang(), drop_punct=p.drop_punct
    )
    get_tokenizer(spec.tokenizer)  # an unknown name fails here, not in a worker
    out = run.out("--out")
    _keep_only(out, {"scan"})  # the scan resumes; a report of an earlier run never survives this one
    result = measure_overlap(
        testset,
        references,
        out / "scan",
        spec=spec,
        threshold=p.threshold,
        execution=execution_of(p),
        shard_bytes=p.shard_mb << 20,
        skip_bad=p.skip_bad,
    )
    write_outputs(result, out, test_path=str(test), references=list(references))
    kept = None
    if p.write_filtered is not None:
        kept = write_filtered(
            testset, result, run.out("--write-filtered"), command=_command_line(), inputs=testset.inputs
        )
    return {"reports": [_report(test, run.final("--out"), result)], "kept": kept, "skipped": result.skipped}


def _overlap_with_index(run: Run) -> dict[str, Any]:
    from lotdata.overlap import load_test_set
    from lotdata.overlap.index import check_references, verify_index
    from lotdata.overlap.lookup import measure_with_index, write_indexed
    from lotdata.overlap.report import write_filtered
    from lotdata.overlap.texts import TokenSpec

    p: OverlapParams = run.params
    loaded = verify_index(Path(p.index))
    changed = check_references(loaded.manifest, trust=p.trust_references)
    built = loaded.manifest["tokens"]
    tests = overlap_tests(p)
    testsets = [load_test_set(Path(t)) for t in tests]
    spec = TokenSpec(
        n=p.n,
        tokenizer=p.tokenizer or built["tokenizer"],
        lang=p.lang or built["lang"],
        drop_punct=p.drop_punct or built["drop_punct"],
    )
    for test, testset in zip(tests, testsets):
        if p.lang is None and testset.lang() != built["lang"]:
            raise ValueError(
                f"{test}: a {testset.lang()} test set, the index {p.index} holds {built['lang']} words (--lang to force)"
            )
    results = measure_with_index(testsets, loaded, spec=spec, threshold=p.threshold)
    names = [""] if len(tests) == 1 else report_names(tests)
    out, final = run.out("--out"), run.final("--out")
    reports = []
    for test, name, result in zip(tests, names, results):
        write_indexed(
            result,
            out / name if name else out,
            test_path=str(test),
            index=loaded,
            buckets=p.buckets(),
            changed_references=changed,
        )
        reports.append(_report(test, final / name if name else final, result))
    kept = None
    if p.write_filtered is not None:
        kept = write_filtered(
            testsets[0], results[0], run.out("--write-filtered"), command=_command_line(), inputs=testsets[0].inputs
        )
    return {"reports": reports, "kept": kept, "skipped": changed}


def _overlap_sample(folder: Path) -> list[str]:
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.story import make_story_row

    stories = [
        "The old fisherman rowed out to the middle of the lake every morning.",
        "One day he caught a golden carp that could speak and begged to go home.",
        "A small rabbit wanted to learn to swim, so it asked the frog for help.",
    ]
    rows = [{**make_story_row(s, source="sample", lang="en"), "status": "accepted"} for s in stories]
    write_parquet(table_from_rows(rows, STORIES), folder / "test.parquet")
    (folder / "ref.txt").write_text(
        "Long ago, one day he caught a golden carp that could speak and begged to go home.\n"
        "This line is about the new subway line in the city.\n",
        encoding="utf-8",
    )
    return [
        str(folder / "test.parquet"),
        "--reference",
        str(folder / "ref.txt"),
        "--out",
        str(folder / "report"),
        "--n",
        "4",
        "--write-filtered",
        str(folder / "filtered"),
    ]


OVERLAP = register_command(
    Command(
        name="overlap",
        params=OverlapParams,
        execute=_overlap,
        inputs=_overlap_inputs,
        outputs=_overlap_outputs,
        check=_overlap_check,
        summary="LOT Table 14 for each split of TEST against the references; --write-filtered gives the 'w/o overlap' set.",
        arguments=("paths",),
        metavars={"paths": "TEST [REF...]"},
        sample=_overlap_sample,
    )
)
