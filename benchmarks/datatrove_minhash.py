"""datatrove's four MinHash stages on a folder of jsonl stories ({"id", "text"}), for bench_sources.py.

Run with the interpreter of a private venv that has datatrove (never the project's venv; datatrove 0.10.1 also
needs `regex tokenizers orjson "xxhash<4"` there):

    /work/venv-datatrove/bin/python benchmarks/datatrove_minhash.py INPUT_DIR WORK_DIR WORKERS

Shingles are 5 characters (a word tokenizer that returns the letters and digits of the text, so
datatrove's word 5-grams are lotdata's 5-character shingles); 14 buckets x 8 hashes (datatrove's
default, a threshold of about 0.8). Prints one JSON line: seconds per stage and the removed ids.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

from datatrove.executor import LocalPipelineExecutor
from datatrove.pipeline.dedup import MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupFilter, MinhashDedupSignature
from datatrove.pipeline.dedup.minhash import MinhashConfig
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter
from datatrove.utils.word_tokenizers import WordTokenizer


class CharTokenizer(WordTokenizer):
    def word_tokenize(self, text: str) -> list[str]:
        return [ch for ch in text if ch.isalnum()]

    def sent_tokenize(self, text: str) -> list[str]:
        return [text]

    def span_tokenize(self, text: str) -> list[tuple[int, int]]:
        return [(0, len(text))]


def main() -> None:
    data, work, workers = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    files = len(list(data.glob("*.jsonl")))
    config = MinhashConfig(n_grams=5, num_buckets=14, hashes_per_bucket=8)
    logs = work / "logs"
    stages = {
        "signatures": LocalPipelineExecutor(
            [
                JsonlReader(str(data)),
                MinhashDedupSignature(str(work / "sigs"), config=config, language=CharTokenizer()),
            ],
            tasks=files,
            workers=workers,
            logging_dir=str(logs / "1"),
        ),
        "buckets": LocalPipelineExecutor(
            [MinhashDedupBuckets(str(work / "sigs"), str(work / "buckets"), config=config)],
            tasks=config.num_buckets,
            workers=workers,
            logging_dir=str(logs / "2"),
        ),
        "clusters": LocalPipelineExecutor(
            [MinhashDedupCluster(str(work / "buckets"), str(work / "remove"), config=config)],
            tasks=1,
            workers=1,
            logging_dir=str(logs / "3"),
        ),
        "filter": LocalPipelineExecutor(
            [
                JsonlReader(str(data)),
                MinhashDedupFilter(str(work / "remove"), exclusion_writer=JsonlWriter(str(work / "removed"))),
            ],
            tasks=files,
            workers=workers,
            logging_dir=str(logs / "4"),
        ),
    }
    seconds = {}
    for name, executor in stages.items():
        started = time.perf_counter()
        executor.run()
        seconds[name] = time.perf_counter() - started
    removed = []
    for path in sorted((work / "removed").glob("*")):
        with (
            gzip.open(path, "rt", encoding="utf-8") if path.suffix == ".gz" else open(path, encoding="utf-8") as handle
        ):
            removed += [json.loads(line)["id"] for line in handle if line.strip()]
    print(json.dumps({"seconds": sum(seconds.values()), "stages": seconds, "removed": sorted(removed)}))


if __name__ == "__main__":
    main()
