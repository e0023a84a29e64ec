"""How often LOT rule 2.2a's check (`lotdata.annotate.checks.new_entities`: roles and places) fires on a real
story's own sentence, left out of its context.

A real story's middle sentence is right by definition, yet it may bring in a role or place of its own. At pull the
check sees the context *and* the original sentence, so a candidate that keeps the original's roles passes; this
measures the other case: how often a real, good sentence names a role or place its context does not, i.e. how often
the rule would quarantine a sound candidate that does what real stories do.

Three sets: LOT's own 111 OutGen development stories and the first 300 CMRC 2017 validation children's stories
(the place endings and the rule against jieba's bare name tags were chosen after reading the words flagged on
these two: tuned), and the next 300 CMRC validation stories, which were not looked at (held out).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/clozet_entities_rate.py /work/shared/data [--limit 300]
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from lotdata.annotate.checks import new_entities
from lotdata.text import split_sentences


def rate(stories: list[str]) -> tuple[int, int, Counter]:
    flagged = total = 0
    words: Counter = Counter()
    for text in stories:
        sentences = split_sentences(text, "zh")
        for i in range(1, len(sentences) - 1):  # ClozeT masks a middle sentence (never the first or the last)
            context = "".join(sentences[:i] + sentences[i + 1 :])
            missing = new_entities(sentences[i], context, "zh")
            total += 1
            flagged += bool(missing)
            words.update(missing)
    return flagged, total, words


def main(data: Path, limit: int = 300) -> None:
    from lotdata.datasets.folder import load_stories
    from lotdata.sources.read_stage import ReadParams, read_step

    lot = [
        json.loads(line)["story"]
        for line in (data / "lot_outgen_dev/dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stories.parquet"
        read_step([data / "cmrc2017_children_stories/validation/cloze.valid.doc_query"], out, ReadParams(lang="zh"))
        cmrc = [s["text"] for s in load_stories([out])]
    sets = (
        ("LOT OutGen dev (tuned)", lot),
        (f"CMRC 2017 valid, first {limit} (tuned)", cmrc[:limit]),
        (f"CMRC 2017 valid, next {limit} (held out)", cmrc[limit : 2 * limit]),
    )
    for name, stories in sets:
        flagged, total, words = rate(stories)
        print(
            f"{name}: {flagged}/{total} middle sentences flagged ({flagged / max(total, 1):.1%}); "
            f"most frequent new words: {', '.join(w for w, _ in words.most_common(12))}"
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    main(Path(args[0]), int(args[args.index("--limit") + 1]) if "--limit" in args else 300)
