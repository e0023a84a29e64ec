"""How well lotdata's outlines reproduce LOT's own OutGen outlines (`make outline-agreement`).

    python benchmarks/outline_agreement.py [--data PATH] [--stopwords FILE ...] [--seeds N]
                                           [--extractor lot-rake|rake-nltk] [--json FILE]

PATH is a jsonl file of {"story": ..., "outline": [...]} (default: ../shared/data/lot_outgen_dev/dev.jsonl
beside the repository). Each stopword list is measured: the shipped default, LOT's reference list
(../shared/data/lot_rake_stopwords, when present) and any --stopwords FILE. The rows are split into a fixed
tuning half (even rows: what choices were made on) and a held-out half (odd rows), reported apart and
together. LOT filled short outlines at random, so every figure is the median over N seeds of our filling
(min-max shown). recall = LOT phrases reproduced exactly / LOT phrases; precision = the same / our phrases.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lotdata.tasks.outline import EXTRACTORS, dev_halves, outline_agreement, with_config  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
DEFAULT_DATA = SHARED / "lot_outgen_dev" / "dev.jsonl"
REFERENCE_LIST = SHARED / "lot_rake_stopwords" / "stopwords_zh_5k.txt"


def measure(rows: list[dict], stopwords: str | None, extractor: str, seeds: int) -> dict:
    """Median (and range) over seeds of recall and precision, per half and in all."""
    config = with_config(extractor=extractor, stopwords=stopwords)
    tuning, held_out = dev_halves(rows)
    result = {}
    for part, part_rows in (("tuning", tuning), ("held-out", held_out), ("all", rows)):
        runs = [
            outline_agreement(
                [r["story"] for r in part_rows], [list(r["outline"]) for r in part_rows], config=config, seed=seed
            )
            for seed in range(seeds)
        ]
        result[part] = {
            "stories": len(part_rows),
            "phrases": runs[0]["phrases"],
            "reproduced": statistics.median(r["reproduced"] for r in runs),
            "recall": statistics.median(r["share"] for r in runs),
            "recall_min": min(r["share"] for r in runs),
            "recall_max": max(r["share"] for r in runs),
            "precision": statistics.median(r["precision"] for r in runs),
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--stopwords", type=Path, nargs="*", default=[], help="more stopword lists to measure")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of the random filling (median reported)")
    parser.add_argument("--extractor", default="lot-rake", choices=EXTRACTORS)
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    if not args.data.is_file():
        print(f"no data at {args.data}", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    lists: list[tuple[str, str | None]] = [("ours (lotdata/data/stopwords_zh.txt)", None)]
    if REFERENCE_LIST.is_file():
        lists.append(("LOT reference (lot_rake_stopwords)", str(REFERENCE_LIST)))
    lists += [(str(p), str(p)) for p in args.stopwords]

    started = time.perf_counter()
    figures = {name: measure(rows, path, args.extractor, args.seeds) for name, path in lists}
    seconds = time.perf_counter() - started
    print(f"data: {args.data} ({len(rows)} stories; tuning = even rows, held-out = odd rows)")
    print(f"extractor: {args.extractor}; median over {args.seeds} seeds of the random filling; {seconds:.1f}s\n")
    print("| stopword list | part | stories | LOT phrases | reproduced | recall (min-max) | precision |")
    print("| --- | --- | ---: | ---: | ---: | --- | ---: |")
    for name, result in figures.items():
        for part, f in result.items():
            print(
                f"| {name} | {part} | {f['stories']} | {f['phrases']} | {f['reproduced']:.0f} "
                f"| {f['recall']:.1%} ({f['recall_min']:.1%}-{f['recall_max']:.1%}) | {f['precision']:.1%} |"
            )
    if args.json:
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
