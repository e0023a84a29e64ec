"""Throughput of the automatic submission checks (`lotdata annotate check`): submissions per second, medians.

    python benchmarks/bench_checks.py --out bench/checks.md [--repeats 5]

Three inputs, read once, checked `--repeats` times each (every rule of the job, near duplicates included):

* story_write, English: the 5,000 real ROCStories of ../shared/data/rocstories_diffusionlm_valid5k (joined text);
* story_write, Chinese: up to 5,000 runs of five consecutive sentences of the C3 passages (../shared/data);
* sct_write, English: the 1,871 cases of the Story Cloze Test spring 2016 val csv (four sentences, two endings).

The target (issue 24) is at least 1,000 submissions per second.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.machine import load_note  # noqa: E402
from lotdata.annotate.checks import ENDING_RULES, STORY_RULES, CheckOptions, read_submissions, run_checks  # noqa: E402

SHARED = REPO.parent / "shared" / "data"


def chinese_submissions(n: int) -> list[dict]:
    """Five consecutive sentences of the C3 reading passages (real Chinese text, mostly narratives), each a submission."""
    from lotdata.text import normalize_text, split_sentences

    pieces = []
    for name in ("c3-m-train.json", "c3-m-dev.json", "c3-m-test.json"):
        for item in json.loads((SHARED / "c3_mixed_genre" / "data" / name).read_text(encoding="utf-8")):
            sentences = split_sentences(normalize_text("".join(item[0]), "zh"), "zh")
            pieces += [sentences[k : k + 5] for k in range(0, len(sentences) - 4, 5)]
    return [{"id": str(i), "title": "标题", "sentences": p} for i, p in enumerate(pieces[:n])]


def measure(rows: list[dict], rules, lang: str, repeats: int) -> dict:
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        result = run_checks(rows, rules, CheckOptions(lang=lang))
        seconds.append(time.perf_counter() - started)
    median = statistics.median(seconds)
    return {
        "submissions": len(rows),
        "median_s": round(median, 3),
        "per_second": round(len(rows) / median),
        "flagged": result.flagged,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "checks.md")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    note = load_note()
    runs = {
        "story_write en (5,000 real ROCStories)": measure(
            read_submissions(SHARED / "rocstories_diffusionlm_valid5k" / "datasets" / "ROCstory" / "roc_valid.json"),
            STORY_RULES,
            "en",
            args.repeats,
        ),
        "story_write zh (five-sentence runs of the C3 passages)": measure(
            chinese_submissions(5000), STORY_RULES, "zh", args.repeats
        ),
        "sct_write en (1,871 Story Cloze val cases)": measure(
            read_submissions(SHARED / "storycloze_spring2016_labeled" / "val.csv"), ENDING_RULES, "en", args.repeats
        ),
    }
    lines = [
        f"# Submission checks: throughput ({dt.date.today()})",
        "",
        note,
        "",
        f"`python benchmarks/bench_checks.py --repeats {args.repeats}`; medians of {args.repeats} runs, one process.",
        "",
        "| input | submissions | median seconds | submissions / s | flagged |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, r in runs.items():
        lines.append(f"| {name} | {r['submissions']} | {r['median_s']} | {r['per_second']} | {r['flagged']} |")
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
