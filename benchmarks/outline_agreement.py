"""How well lotdata's RAKE outlines reproduce LOT's own OutGen outlines.

    python benchmarks/outline_agreement.py [--data PATH] [--tokenizer NAME|default] [--long-phrases MODE]
                                           [--metric ratio|degree|frequency] [--ties MODE] [--no-repeated]

PATH is a jsonl file of {"story": ..., "outline": [...]} (default: ../shared/data/lot_outgen_dev/dev.jsonl
beside the repository). Prints a small table, then the agreement dict as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from lotdata.tasks.outline import DEFAULT_CONFIG, Metric, outline_agreement, with_config  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data" / "lot_outgen_dev" / "dev.jsonl"
METRICS = {
    "ratio": Metric.DEGREE_TO_FREQUENCY_RATIO,
    "degree": Metric.WORD_DEGREE,
    "frequency": Metric.WORD_FREQUENCY,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--tokenizer", default=DEFAULT_CONFIG.tokenizer,
                        help="registered Chinese tokenizer, or 'default' for lotdata's current one")
    parser.add_argument("--long-phrases", default=DEFAULT_CONFIG.long_phrases,
                        choices=["truncate", "truncate_end", "drop", "split"])
    parser.add_argument("--metric", default="ratio", choices=sorted(METRICS))
    parser.add_argument("--ties", default=DEFAULT_CONFIG.ties, choices=["position", "last", "rake"])
    parser.add_argument("--no-repeated", action="store_true", help="count each repeated phrase once")
    args = parser.parse_args(argv)

    if not args.data.is_file():
        print(f"no data at {args.data}", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    stories = [row["story"] for row in rows]
    references = [list(row["outline"]) for row in rows]
    config = with_config(
        tokenizer=None if args.tokenizer == "default" else args.tokenizer,
        long_phrases=args.long_phrases,
        metric=METRICS[args.metric],
        ties=args.ties,
        repeated=not args.no_repeated,
    )
    started = time.perf_counter()
    result = outline_agreement(stories, references, config=config)
    seconds = time.perf_counter() - started

    print(f"data: {args.data}  ({len(rows)} stories, {seconds:.1f}s)")
    print(f"config: {config}")
    width = max(len(k) for k in result)
    for key, value in result.items():
        shown = f"{value:.4f}" if isinstance(value, float) else str(value)
        print(f"  {key:<{width}}  {shown:>8}")
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
