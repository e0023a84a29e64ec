"""OutGen outline extraction: speed of the extractors side by side, and agreement with LOT's outlines.

    python benchmarks/bench_outline.py --out bench/outline.md [--repeats 3] [--stories N] [--seeds 5]

Speed: outlines per second on the Chinese CMRC 2017 validation cloze stories (``../shared/data``), for
LOT's Chinese RAKE with our shipped stopword list, with LOT's reference list, and rake-nltk (the former
default), each timed ``--repeats`` times round robin with the POS-tagging cache cleared (median, min-max), jieba's
dictionary loaded before. Agreement: the table of ``benchmarks/outline_agreement.py`` (recall and
precision of LOT's 850 dev phrases, tuning vs held-out halves, median over filling seeds).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from machine import load_note  # benchmarks/machine.py

from benchmarks.outline_agreement import DEFAULT_DATA, REFERENCE_LIST, SHARED, measure  # noqa: E402
from lotdata.io import write_text  # noqa: E402
from lotdata.sources.readers import read_stories  # noqa: E402
from lotdata.tasks import outline  # noqa: E402

CMRC = SHARED / "cmrc2017_children_stories" / "validation" / "cloze.valid.doc_query"


def _time(stories: list[str], config: outline.OutlineConfig, repeats: int) -> list[float]:
    rates = []
    for _ in range(repeats):
        outline._pos_tagged.cache_clear()
        started = time.perf_counter()
        for i, text in enumerate(stories):
            outline.extract_outline(text, "zh", rng=random.Random(i), config=config)
        rates.append(len(stories) / (time.perf_counter() - started))
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "outline.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--stories", type=int, default=300, help="CMRC stories timed")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    if not CMRC.is_file() or not DEFAULT_DATA.is_file():
        print(f"needs {CMRC} and {DEFAULT_DATA}", file=sys.stderr)
        return 2
    stories = [s["text"] for s in read_stories([CMRC], fmt="cmrc").stories][: args.stories]
    outline.extract_outline(stories[0], "zh")  # loads jieba's dictionary and the POS model
    outline.extract_outline(stories[0], "zh", config=outline.with_config(extractor="rake-nltk"))
    chars = sum(len(s) for s in stories) / len(stories)
    runs = {
        "lot-rake, our list": outline.with_config(),
        "lot-rake, LOT reference list": outline.with_config(stopwords=str(REFERENCE_LIST)),
        "rake-nltk (jieba no HMM), our list": outline.with_config(extractor="rake-nltk"),
    }
    lines = [
        "# OutGen outlines: speed and agreement with LOT",
        "",
        load_note() + " Compare",
        f"rows of one run. `python benchmarks/bench_outline.py` ({args.repeats} repeats, medians).",
        "",
        f"## Speed on {len(stories)} CMRC 2017 validation stories (mean {chars:.0f} characters)",
        "",
        "| extractor | outlines/s (median) | min-max | relative to lot-rake, our list |",
        "| --- | ---: | --- | ---: |",
    ]
    rates_of: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):  # round robin, so a burst of load on the machine hits every row alike
        for name, config in runs.items():
            rates_of[name] += _time(stories, config, 1)
    base = None
    for name, rates in rates_of.items():
        median = statistics.median(rates)
        base = base or median
        lines.append(f"| {name} | {median:.1f} | {min(rates):.1f}-{max(rates):.1f} | {median / base:.2f} |")
    rows = [json.loads(line) for line in DEFAULT_DATA.read_text(encoding="utf-8").splitlines() if line]
    lines += [
        "",
        f"## Agreement with LOT's outlines ({len(rows)} dev stories, {sum(len(r['outline']) for r in rows)} phrases)",
        "",
        f"Exact phrase recall and precision, median over {args.seeds} seeds of the random filling; tuning = even",
        "rows (the stopword list was chosen on it), held-out = odd rows.",
        "",
        "| stopword list | part | recall (min-max) | precision |",
        "| --- | --- | --- | ---: |",
    ]
    for name, path in (("ours", None), ("LOT reference", str(REFERENCE_LIST))):
        for part, f in measure(rows, path, "lot-rake", args.seeds).items():
            lines.append(
                f"| {name} | {part} | {f['recall']:.1%} ({f['recall_min']:.1%}-{f['recall_max']:.1%}) "
                f"| {f['precision']:.1%} |"
            )
    text = "\n".join(lines) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_text(text, args.out)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
