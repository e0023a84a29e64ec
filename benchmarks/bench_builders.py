"""Throughput and memory of reading, tokenising and the three task builders, side by side.

    python benchmarks/bench_builders.py --out bench/results.md [--repeats 5] [--outgen-repeats N]
                                        [--data PATH] [--no-tracemalloc]

Two corpora, both from ``../shared/data`` beside the repository (``--data`` to point elsewhere):

* ROCStories 5k (English): ``rocstories_diffusionlm_valid5k/datasets/ROCstory/roc_valid.json``, format ``roc_lines``;
* CMRC 2017 validation cloze stories (Chinese): ``cmrc2017_children_stories/validation/cloze.valid.doc_query``,
  format ``cmrc`` (2000 documents; documents repeating a story already read are dropped as duplicates).

Measurements, per corpus:

* ``read``     ``read_stories([path], fmt=...)`` (parsing + normalisation + language detection + sentence split);
* ``tokenise`` ``lotdata.text.tokenize.tokenize(text, lang)`` over every story text (jieba for zh, the regex
  tokenizer for en), the jieba dictionary loaded beforehand;
* ``senpos`` / ``plotcom`` / ``outgen``  ``build_examples(task, stories, seed=0)`` + ``split_examples`` with the
  default 80/10/10 split, after an untimed warm-up on one story (loads lazily-imported modules, jieba, RAKE).

Each measurement runs in a fresh subprocess of this script (``--one``), sequentially, so peak RSS
(``getrusage(RUSAGE_SELF).ru_maxrss``) is that measurement's own. The timed section is repeated
``--repeats`` times; the headline table shows medians, a second table min/median/max. After the timed runs
one extra, untimed run under ``tracemalloc`` gives the peak of Python allocations inside the measured call
(its own overhead is excluded from the RSS figures, which are taken before it).

Writes the Markdown tables to ``--out`` and the raw numbers to ``results.json`` beside it (both atomically),
and prints the Markdown.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

DEFAULT_DATA = REPO.parent / "shared" / "data"

CORPORA: dict[str, dict[str, str]] = {
    "rocstories": {
        "label": "ROCStories 5k (en)",
        "path": "rocstories_diffusionlm_valid5k/datasets/ROCstory/roc_valid.json",
        "fmt": "roc_lines",
        "lang": "en",
    },
    "cmrc2017": {
        "label": "CMRC 2017 valid cloze (zh)",
        "path": "cmrc2017_children_stories/validation/cloze.valid.doc_query",
        "fmt": "cmrc",
        "lang": "zh",
    },
}
KINDS = ("read", "tokenise", "senpos", "plotcom", "outgen")
BUILDERS = ("senpos", "plotcom", "outgen")
CHILD_TIMEOUT = 900  # seconds, per measurement subprocess
MIB = 1024 * 1024


# ---------------------------------------------------------------------------------------------
# child: one measurement


def _maxrss_mib() -> float:
    """Peak RSS of this process so far (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / MIB if sys.platform == "darwin" else peak / 1024


def _current_rss_mib() -> float | None:
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / MIB
    except (OSError, ValueError, IndexError):
        return None


def _read(corpus: dict[str, str], data: Path):
    from lotdata.sources.readers import read_stories

    return read_stories([data / corpus["path"]], fmt=corpus["fmt"])


def _measure(kind: str, corpus_name: str, data: Path, repeats: int, trace: bool) -> dict[str, Any]:
    import tracemalloc

    import lotdata
    from lotdata.text.tokenize import default_tokenizer, tokenize

    corpus = CORPORA[corpus_name]
    rss_start = _maxrss_mib()

    # jieba's dictionary is loaded in every measurement, outside the timing, so the processes are comparable
    tokenize("预热一下结巴分词的词典。", "zh")

    result = _read(corpus, data)  # the input of every measurement (and the warm-up of `read`)
    stories = result.stories
    read_counts = dict(result.counts)
    langs = sorted({s["lang"] for s in stories})
    if langs != [corpus["lang"]]:
        raise SystemExit(f"{corpus_name}: expected every story in {corpus['lang']!r}, got languages {langs}")
    n_stories = len(stories)
    info: dict[str, Any] = {"read_counts": read_counts}

    if kind == "read":
        del result, stories

        def run() -> tuple[int, dict[str, Any]]:
            res = _read(corpus, data)
            return 0, {"stories": len(res.stories)}

    elif kind == "tokenise":
        texts = [(s["text"], s["lang"]) for s in stories]

        def run() -> tuple[int, dict[str, Any]]:
            n_tokens = 0
            for text, lang in texts:
                n_tokens += len(tokenize(text, lang))
            return 0, {"tokens": n_tokens}

    elif kind in BUILDERS:
        from lotdata.datasets.splits import parse_split_spec
        from lotdata.tasks.build import DEFAULT_SPLIT, build_examples, split_examples

        spec = parse_split_spec(DEFAULT_SPLIT)
        build_examples(kind, stories[:1], seed=0)  # warm-up: lazy imports, tokenizers, stopword lists

        def run() -> tuple[int, dict[str, Any]]:
            t0 = time.perf_counter()
            examples, stats = build_examples(kind, stories, seed=0)
            t1 = time.perf_counter()
            by_split = split_examples(examples, spec, 0)
            t2 = time.perf_counter()
            return len(examples), {
                "build_seconds": t1 - t0,
                "split_seconds": t2 - t1,
                "rows_per_split": {k: len(v) for k, v in by_split.items()},
                "stats": stats.as_dict(),
            }

    else:
        raise SystemExit(f"unknown measurement {kind!r}; one of {', '.join(KINDS)}")

    gc.collect()
    rss_setup = _maxrss_mib()
    rss_setup_current = _current_rss_mib()
    seconds: list[float] = []
    n_examples = 0
    details: list[dict[str, Any]] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        n_examples, detail = run()
        seconds.append(time.perf_counter() - t0)
        details.append(detail)
        detail = None  # drop this run's output before the next one
        gc.collect()
    rss_peak = _maxrss_mib()

    traced_peak = None
    if trace:
        gc.collect()
        tracemalloc.start()
        tracemalloc.reset_peak()
        run()
        traced_peak = tracemalloc.get_traced_memory()[1] / MIB
        tracemalloc.stop()

    last = details[-1]
    if kind in BUILDERS:
        info["build_seconds"] = [d["build_seconds"] for d in details]
        info["split_seconds"] = [d["split_seconds"] for d in details]
        info["rows_per_split"] = last["rows_per_split"]
        info["build_stats"] = last["stats"]
    elif kind == "tokenise":
        info["tokens"] = last["tokens"]
    return {
        "corpus": corpus_name,
        "kind": kind,
        "stories": n_stories,
        "examples": n_examples,
        "repeats": repeats,
        "seconds": seconds,
        "rss_start_mib": rss_start,
        "rss_setup_peak_mib": rss_setup,
        "rss_setup_current_mib": rss_setup_current,
        "rss_peak_mib": rss_peak,
        "tracemalloc_peak_mib": traced_peak,
        "tokenizer": default_tokenizer(),
        "lotdata_version": lotdata.__version__,
        **info,
    }


def child_main(args: argparse.Namespace) -> int:
    corpus_name, kind = args.one
    out = _measure(kind, corpus_name, args.data, args.repeats, trace=not args.no_tracemalloc)
    Path(args.result).write_text(json.dumps(out), encoding="utf-8")
    return 0


# ---------------------------------------------------------------------------------------------
# parent: run every measurement, summarise, write


def _git_commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True, timeout=10
        )
        commit = out.stdout.strip()
        if out.returncode != 0 or not commit:
            return "unknown"
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "lotdata", "benchmarks"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return commit + ("+uncommitted" if dirty.returncode == 0 and dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _environment() -> dict[str, Any]:
    import lotdata

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "date": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "cpu_model": _cpu_model(),
        "lotdata_version": lotdata.__version__,
        "git_commit": _git_commit(),
    }


def _run_child(
    script: Path, corpus: str, kind: str, repeats: int, data: Path, trace: bool, tmpdir: Path
) -> dict[str, Any]:
    result_file = tmpdir / f"{corpus}-{kind}.json"
    cmd = [
        sys.executable,
        str(script),
        "--one",
        corpus,
        kind,
        "--repeats",
        str(repeats),
        "--data",
        str(data),
        "--result",
        str(result_file),
    ]
    if not trace:
        cmd.append("--no-tracemalloc")
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT, cwd=REPO)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"measurement {corpus}/{kind} took over {CHILD_TIMEOUT}s; giving up") from None
    if proc.returncode != 0 or not result_file.exists():
        tail = "\n".join(proc.stderr.strip().splitlines()[-25:])
        raise SystemExit(f"measurement {corpus}/{kind} failed (exit {proc.returncode}):\n{tail}")
    out = json.loads(result_file.read_text(encoding="utf-8"))
    out["wall_seconds"] = time.perf_counter() - started
    return out


def _summarise(m: dict[str, Any]) -> dict[str, Any]:
    secs = m["seconds"]
    med = statistics.median(secs)
    m["median_seconds"] = med
    m["min_seconds"] = min(secs)
    m["max_seconds"] = max(secs)
    m["stories_per_second"] = m["stories"] / med if med else None
    m["examples_per_second"] = m["examples"] / med if (med and m["kind"] in BUILDERS) else None
    return m


def _fmt_rate(x: float | None) -> str:
    if x is None:
        return "–"
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 100:
        return f"{x:.0f}"
    return f"{x:.1f}"


def _fmt_s(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.2f}"


def _fmt_mib(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}"


def _markdown(
    env: dict[str, Any], results: list[dict[str, Any]], args: argparse.Namespace, total_seconds: float
) -> str:
    by = {(r["corpus"], r["kind"]): r for r in results}
    lines = [
        "# lotdata builder benchmark",
        "",
        f"{env['date']} · Python {env['python']} ({env['implementation']}) · {env['cpu_count']} CPUs "
        f"({env['cpus_usable']} usable{', ' + env['cpu_model'] if env['cpu_model'] else ''}) · "
        f"lotdata {env['lotdata_version']} · git {env['git_commit']} · {env['platform']}",
        "",
        "Medians over the repeats (column *n*); stories/s and examples/s use the median time. "
        "*× tokenise* = builder median time / tokenisation median time on the same corpus. "
        "*Peak RSS* = `ru_maxrss` of the measurement's own subprocess (input stories loaded, jieba dictionary "
        "warm); *+Δ* = how far it rose during the timed runs. *tracemalloc* = peak Python allocations in one "
        "extra untimed run of the measured call.",
        "",
        "| corpus | measurement | n | stories | examples | median s | stories/s | examples/s "
        "| × tokenise | peak RSS MiB (+Δ) | tracemalloc MiB |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for corpus in CORPORA:
        tok = by.get((corpus, "tokenise"))
        for kind in KINDS:
            r = by.get((corpus, kind))
            if r is None:
                continue
            ratio = "–"
            if kind in BUILDERS and tok and tok["median_seconds"]:
                ratio = f"{r['median_seconds'] / tok['median_seconds']:.1f}×"
            delta = r["rss_peak_mib"] - r["rss_setup_peak_mib"]
            examples = f"{r['examples']:,}" if kind in BUILDERS else "–"
            lines.append(
                f"| {CORPORA[corpus]['label']} | {kind} | {r['repeats']} | {r['stories']:,} | "
                f"{examples} | {_fmt_s(r['median_seconds'])} | {_fmt_rate(r['stories_per_second'])} | "
                f"{_fmt_rate(r['examples_per_second'])} | {ratio} | "
                f"{_fmt_mib(r['rss_peak_mib'])} (+{delta:.0f}) | {_fmt_mib(r['tracemalloc_peak_mib'])} |"
            )
    lines += [
        "",
        "## Spread (seconds per timed run)",
        "",
        "| corpus | measurement | n | min | median | max | builder / split (median s) |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    for corpus in CORPORA:
        for kind in KINDS:
            r = by.get((corpus, kind))
            if r is None:
                continue
            parts = "–"
            if kind in BUILDERS:
                parts = (
                    f"{_fmt_s(statistics.median(r['build_seconds']))} / {_fmt_s(statistics.median(r['split_seconds']))}"
                )
            lines.append(
                f"| {CORPORA[corpus]['label']} | {kind} | {r['repeats']} | {_fmt_s(r['min_seconds'])} | "
                f"{_fmt_s(r['median_seconds'])} | {_fmt_s(r['max_seconds'])} | {parts} |"
            )
    notes = []
    for corpus, spec in CORPORA.items():
        r = by.get((corpus, "read"))
        if r:
            c = r["read_counts"]
            notes.append(
                f"{spec['label']}: `{spec['path']}` (format `{spec['fmt']}`): {c.get('read', '?'):,} "
                f"records read, {c.get('kept', '?'):,} stories kept, {c.get('duplicates', 0):,} duplicates, "
                f"{c.get('quarantined', 0):,} quarantined."
            )
    for corpus, spec in CORPORA.items():
        r = by.get((corpus, "tokenise"))
        if r and r.get("tokens") is not None:
            notes.append(
                f"{spec['label']}: tokenise produces {r['tokens']:,} tokens "
                f"({r['tokens'] / r['median_seconds']:,.0f} tokens/s)."
            )
    tokenizers = sorted({r["tokenizer"] for r in results})
    notes.append(
        f"Chinese tokenizer for `tokenise`, SenPos and PlotCom word counts: {', '.join(tokenizers)} "
        "(HMM on); OutGen's RAKE outline uses jieba without HMM (`jieba-nohmm`)."
    )
    reduced = [k for k in KINDS if any(r["kind"] == k and r["repeats"] != args.repeats for r in results)]
    if reduced:
        notes.append(f"Repeats reduced for {', '.join(reduced)} (see column *n*) to keep the run short.")
    notes.append(
        f"Builders run with seed 0 and the default split `train=0.8,val=0.1,test=0.1`. "
        f"Total benchmark wall time: {total_seconds:.0f} s."
    )
    lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def parent_main(args: argparse.Namespace) -> int:
    from lotdata.io import write_text

    data: Path = args.data
    if not data.is_dir():
        print(
            f"error: benchmark data not found: {data} (expected ../shared/data beside the repository at "
            f"{REPO}; pass --data PATH)",
            file=sys.stderr,
        )
        return 2
    missing = [str(data / c["path"]) for c in CORPORA.values() if not (data / c["path"]).is_file()]
    if missing:
        print("error: benchmark corpus file(s) missing:\n  " + "\n  ".join(missing), file=sys.stderr)
        return 2
    if args.repeats < 1 or (args.outgen_repeats is not None and args.outgen_repeats < 1):
        print("error: repeats must be at least 1", file=sys.stderr)
        return 2

    out = Path(args.out)
    json_out = out.with_suffix(".json") if out.suffix else out.with_name(out.name + ".json")
    env = _environment()
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    script = Path(__file__).resolve()
    with tempfile.TemporaryDirectory(prefix="lotdata-bench-") as tmp:
        for corpus in CORPORA:
            for kind in KINDS:
                repeats = args.outgen_repeats if (kind == "outgen" and args.outgen_repeats) else args.repeats
                print(f"[bench] {corpus:<10} {kind:<8} x{repeats} ...", end="", file=sys.stderr, flush=True)
                r = _summarise(_run_child(script, corpus, kind, repeats, data, not args.no_tracemalloc, Path(tmp)))
                print(f" median {r['median_seconds']:.3f}s ({r['wall_seconds']:.1f}s wall)", file=sys.stderr)
                results.append(r)
    total = time.perf_counter() - started

    markdown = _markdown(env, results, args, total)
    payload = {
        "environment": env,
        "args": {
            "repeats": args.repeats,
            "outgen_repeats": args.outgen_repeats or args.repeats,
            "data": str(data),
            "tracemalloc": not args.no_tracemalloc,
        },
        "total_seconds": total,
        "corpora": CORPORA,
        "results": results,
    }
    write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", json_out)
    write_text(markdown, out)
    print(markdown)
    print(f"wrote {out} and {json_out} in {total:.1f}s", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=str(REPO / "bench" / "results.md"), help="Markdown output file")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats per measurement (median reported)")
    parser.add_argument(
        "--outgen-repeats", type=int, default=None, help="timed repeats for the outgen builder (default: --repeats)"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the shared data folder")
    parser.add_argument("--no-tracemalloc", action="store_true", help="skip the extra tracemalloc run")
    parser.add_argument("--one", nargs=2, metavar=("CORPUS", "KIND"), help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        return child_main(args)
    return parent_main(args)


if __name__ == "__main__":
    sys.exit(main())
