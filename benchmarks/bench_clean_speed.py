"""`lotdata clean` beside datatrove's MinHash deduplication, in one run, interleaved (issue 37, item 1).

    LOTDATA_DATATROVE_PYTHON=.venv-datatrove/bin/python PYTHONPATH=. .venv/bin/python benchmarks/bench_clean_speed.py \
        [--stories 36200] [--rounds 2] [--before DIR] [--large 362000]    # writes bench/clean_speed.md

The input is bench_sources.py's (CMRC 2017 validation + CFT and near-copies of them, the 36,200 stories issue 37
measured). Each round runs, one after the other in this order: datatrove's four MinHash stages, `clean` as this
checkout has it, and, with `--before DIR` (a `git archive` of an older commit), `clean` as that commit had it; at
1 worker and then 2. Each run is a subprocess whose time is its wall clock and whose memory is the sampled peak of
the summed RSS of it and its children (bench_sources.tree_peak_rss). Medians over the rounds; the ratios are of
medians from this one run, the only figures that mean something on a shared, loaded machine (the load average is
printed with them). `--large N` adds, after the rounds, one round (`--large-rounds`) of datatrove and this checkout on
N stories (the issue's 10x larger input); the older checkout is left out there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_sources import DATATROVE_PY, _last_json, run_datatrove, tree_peak_rss, write_dedup_inputs  # noqa: E402

TROVE, NOW, BEFORE = "datatrove MinHash (4 stages)", "lotdata clean (this checkout)", "lotdata clean (before)"


def run_clean_code(path: Path, workers: int, code: Path) -> dict:
    """`clean` of the lotdata in `code` (its own benchmarks/bench_sources.py --one-clean) on `path`."""
    out, peak = tree_peak_rss(
        [sys.executable, str(code / "benchmarks" / "bench_sources.py"), "--one-clean", str(path), str(workers)],
        env={**os.environ, "PYTHONPATH": str(code)},
    )
    return {**_last_json(out), "peak_mib": peak}


def rule_profile(n: int = 3620) -> list[str]:
    """Microseconds a story per rule of clean_story, in this process, on `n` of the benchmark's stories (each rule
    timed alone over all of them, on the text it sees in clean_story)."""
    from bench_sources import dedup_rows

    from lotdata.clean import rules
    from lotdata.clean.pii import apply_pii, parse_pii_actions
    from lotdata.clean.step import CleanParams, clean_story, load_lexicon
    from lotdata.text import normalize_text, split_sentences
    from lotdata.text.langid import language_problem

    rows = dedup_rows(n)
    params = CleanParams(lexicon=load_lexicon())
    raw = [r["text"] for r in rows]
    stripped = [rules.strip_noise(t, "zh").text for t in raw]
    texts = [normalize_text(t, "zh") for t in stripped]
    from lotdata.text.langid import model_guess
    from lotdata.text.postag import pos_words_nohmm

    pos_words_nohmm("小猫钓鱼")  # the tagger and the model are loaded once per process: not a cost of one story
    model_guess("a story")
    actions = parse_pii_actions("mask")
    steps = {
        "strip_noise (links, e-mails, brackets, garbled, nav/ad segments, repeated punctuation)": lambda i: (
            rules.strip_noise(raw[i], "zh")
        ),
        "normalize_text": lambda i: normalize_text(stripped[i], "zh"),
        "pii": lambda i: apply_pii(texts[i], "zh", actions),
        "split_sentences": lambda i: split_sentences(texts[i], "zh"),
        "language (lotdata.text.langid)": lambda i: language_problem(texts[i], "zh"),
        "dialogue_share": lambda i: rules.dialogue_share(texts[i]),
        "classical": lambda i: rules.is_classical(texts[i]),
        "narrative_score": lambda i: rules.narrative_score(texts[i]),
        "glued_title (part-of-speech pass where a title could be)": lambda i: rules.glued_title(texts[i]),
        "lexicon": lambda i: [t for t in params.lexicon if t in texts[i]],
        "clean_story, all of it": lambda i: clean_story(rows[i], params),
    }
    lines = [
        f"Per rule, µs a story ({n:,} of the stories above, one process, each rule timed alone):",
        "",
        "| rule | µs / story |",
        "| --- | ---: |",
    ]
    for name, step in steps.items():
        started = time.perf_counter()
        for i in range(len(rows)):
            step(i)
        lines.append(f"| {name} | {1e6 * (time.perf_counter() - started) / len(rows):.0f} |")
    return lines


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} / {five:.1f} / {fifteen:.1f} (1, 5, 15 min) on {os.cpu_count()} cores"


def run_rounds(folder: Path, tools: dict[str, Path | None], rounds: int, loads: list[str]) -> dict:
    """`rounds` interleaved rounds of every tool at 1 then 2 workers on `folder`: (tool, workers) -> runs."""
    runs: dict[tuple[str, int], list[dict]] = {}
    for r in range(rounds):
        for workers in (1, 2):
            for name, code in tools.items():
                if code is None:
                    run = run_datatrove(folder, workers)
                else:
                    run = run_clean_code(folder / "stories.parquet", workers, code)
                runs.setdefault((name, workers), []).append(run)
                print(f"round {r + 1} {name} {workers}w: {run['seconds']:.1f} s {run['peak_mib']:.0f} MiB", flush=True)
        loads.append(_load())
    return runs


def table_lines(runs: dict[tuple[str, int], list[dict]]) -> list[str]:
    """The medians of `runs` as a Markdown table with the ratios to datatrove, then each tool's 2-worker speedup."""
    med = {
        k: (statistics.median(x["seconds"] for x in v), statistics.median(x["peak_mib"] for x in v))
        for k, v in runs.items()
    }
    lines = [
        "| tool | workers | wall s (median) | runs | peak MiB (median) | time / datatrove | memory / datatrove |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for (name, workers), (seconds, peak) in med.items():
        dt_seconds, dt_peak = med[(TROVE, workers)]
        each = ", ".join(f"{x['seconds']:.1f}" for x in runs[(name, workers)])
        lines.append(
            f"| {name} | {workers} | {seconds:.1f} | {each} | {peak:.0f} | {seconds / dt_seconds:.2f}x |"
            f" {peak / dt_peak:.2f}x |"
        )
    lines.append("")
    for name in dict.fromkeys(name for name, _ in med):
        if (name, 1) in med and (name, 2) in med:
            lines.append(f"- {name}: 2 workers {med[(name, 1)][0] / med[(name, 2)][0]:.2f}x faster than 1.")
    if (BEFORE, 1) in med:
        for workers in (1, 2):
            lines.append(
                f"- this checkout against the older one, {workers} worker(s): "
                f"{med[(BEFORE, workers)][0] / med[(NOW, workers)][0]:.2f}x faster."
            )
    return lines


def phase_lines(runs: dict[tuple[str, int], list[dict]]) -> list[str]:
    """The phases of the last 1- and 2-worker runs of this checkout."""
    lines = []
    for workers in (1, 2):
        phases = runs.get((NOW, workers), [{}])[-1].get("phases") or {}
        if phases:
            lines += ["", f"Phases of the last {workers}-worker run of this checkout (s): " + json.dumps(phases)]
    return lines


def large_lines(stories: int, rounds: int) -> list[str]:
    """One or more rounds of datatrove and this checkout on `stories` stories, as lines of the report."""
    loads = [_load()]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = write_dedup_inputs(stories, Path(tmp) / "in")
        runs = run_rounds(folder, {TROVE: None, NOW: REPO}, rounds, loads)
    return [
        "",
        f"## {stories:,} stories",
        "",
        f"The same tools on {stories:,} stories (`--large {stories}`, {rounds} round(s); the older checkout left out:"
        " its shards each decoded the one-group input from its first row). Load average at the start and after each"
        f" round: {'; '.join(loads)}. Wall {time.perf_counter() - started:.0f} s in all.",
        "",
        *table_lines(runs),
        *phase_lines(runs),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stories", type=int, default=36_200)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", type=Path, help="an older checkout (git archive) measured in the same rounds")
    parser.add_argument("--large", type=int, default=0, help="also one round on this many stories (the 10x input)")
    parser.add_argument("--large-rounds", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "clean_speed.md")
    parser.add_argument("--rules-only", action="store_true", help="print the per-rule table only")
    args = parser.parse_args()
    if args.rules_only:
        print("\n".join(rule_profile()))
        return
    if not DATATROVE_PY.exists():
        sys.exit(f"no datatrove interpreter at {DATATROVE_PY} (make {DATATROVE_PY} or LOTDATA_DATATROVE_PYTHON)")
    tools = {TROVE: None, NOW: REPO} | ({BEFORE: args.before.resolve()} if args.before else {})
    loads = [_load()]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        runs = run_rounds(write_dedup_inputs(args.stories, Path(tmp) / "in"), tools, args.rounds, loads)
    lines = [
        "# `lotdata clean` beside datatrove, one run",
        "",
        f"`benchmarks/bench_clean_speed.py --stories {args.stories} --rounds {args.rounds}"
        + (" --before DIR" if args.before else "")
        + (f" --large {args.large}" if args.large else "")
        + f"`: {args.stories:,} stories (CMRC 2017 validation + CFT and near-copies, as in issue 37), {args.rounds}"
        " interleaved rounds (datatrove, this checkout, the older checkout; 1 worker then 2), medians. `clean` runs"
        " every rule (the `pii` rule included in this checkout) and exact + near deduplication; datatrove only its"
        " four MinHash stages. Peak memory: sampled peak of the summed RSS of the process and its workers.",
        "",
        f"Machine: {os.cpu_count()} cores shared with other work; load average at the start and after each round:"
        f" {'; '.join(loads)}. Wall {time.perf_counter() - started:.0f} s in all.",
        "",
        *table_lines(runs),
        *phase_lines(runs),
    ]
    if args.large:
        lines += large_lines(args.large, args.large_rounds)
    lines += ["", *rule_profile(), "", f"Load average after the per-rule table: {_load()}."]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
