"""Who and what a short story text names: its characters (names, roles, person pronouns), and the roles and places a
new sentence brings in. Heuristics for the crowd-submission checks (`lotdata.annotate.checks`: the Story Cloze
shared-character rule, ROCStories §4.2, and LOT appendix 2.2a's new-entity rule).

English by capitalised words, word lists and a role lexicon drawn from WordNet 3.0 (people, animals and social
groups: `roles_wordnet_en.tsv`, built by benchmarks/build_roles_en.py), Chinese by jieba's part-of-speech tags
(`lotdata.text.postag`) and word lists. The word lists are data files under `lotdata/data/`:
`person_pronouns_en.txt`, `pronoun_classes_en.tsv`, `roles_en.txt`, `role_plurals_en.tsv`, `roles_wordnet_en.tsv`,
`collectives_en.txt`, `foods_wordnet_en.txt`, `things_wordnet_en.txt`, `pronouns_zh.txt`, `people_zh.txt`,
`role_endings_zh.txt`, `animals_zh.txt`, `place_endings_zh.txt`, `general_words_zh.tsv`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from lotdata.text.story_split import OPENERS_EN
from lotdata.text.wordlists import word_list, word_set, word_table

#: an English word (with its inner apostrophes, dots and hyphens)
WORD_EN = re.compile(r"[A-Za-z][A-Za-z'’.-]*")
#: English pronouns that stand for a person
PRONOUNS_EN = set(word_set("person_pronouns_en.txt"))
#: English nouns that name a person or an animal of a story (its roles), singular
ROLES_EN = word_set("roles_en.txt")
#: irregular plurals of the roles (a regular one adds -s)
PLURAL_ROLES_EN = word_table("role_plurals_en.tsv")
#: English nouns whose most frequent sense is a person, an animal or a social group (WordNet 3.0; see
#: benchmarks/build_roles_en.py): word -> kind|senses|hypernyms, read by `role_sense_en`
ROLES_WORDNET_EN = "roles_wordnet_en.tsv"
#: two-word pronouns: "no one" as nobody (all), "each other" and "one another" as they (3pl)
PHRASE_PRONOUNS_EN = {"no one": "all", "each other": "3pl", "one another": "3pl"}
_PHRASE_PRONOUN = re.compile(r"\b(no one|each other|one another)\b", re.IGNORECASE)
#: English function words (with, during, after): a capitalised one opens a sentence, it names nobody
STOPWORDS_EN = word_set("stopwords_en.txt")
#: nouns that can name several people of a story together (the kids, the family), singular
COLLECTIVES_EN = word_set("collectives_en.txt")
#: a person pronoun's class: which references in the four sentences it can stand for
PRONOUN_CLASS_EN = word_table("pronoun_classes_en.tsv")
_CONTRACTION = re.compile(r"['’](?:m|re|ll|ve|d|s)$")

#: Chinese pronouns that stand for people
PRONOUNS_ZH = word_list("pronouns_zh.txt")
#: people a Chinese story names by role rather than by name
PEOPLE_ZH = word_set("people_zh.txt")
#: Chinese words read whole (LOT 2.2a): the last characters of roles, animals and places, the words listed as
#: each whatever their last character, and the words that end like one but name none
ROLE_ENDINGS_ZH = word_set("role_endings_zh.txt")
ANIMALS_ZH = word_set("animals_zh.txt")
PLACE_ENDINGS_ZH = word_set("place_endings_zh.txt")
ROLES_ZH = word_set("roles_zh.txt") | PEOPLE_ZH
ANIMAL_WORDS_ZH = word_set("animal_words_zh.txt")
PLACES_ZH = word_set("places_zh.txt")
NOT_ENTITIES_ZH = word_set("not_entities_zh.txt")
VERB_HEADS_ZH = word_set("verb_heads_zh.txt")
#: role words that name the same person (妈妈 -> 母亲)
ROLE_SYNONYMS_ZH = word_table("role_synonyms_zh.tsv")
#: general words that can name the story's own narrower ones (父母 for its 妈妈, 城市 for its 城)
GENERAL_WORDS_ZH = word_table("general_words_zh.tsv")


def role_sense_en(word: str) -> tuple[str, frozenset[str], frozenset[str]] | None:
    """A singular role noun's kind (person, animal, group; "/verb" or "/other" when it is more often a verb, or an
    adjective or adverb), its most frequent role sense, and that sense with its hypernyms (WordNet 3.0,
    `lotdata/data/roles_wordnet_en.tsv`); the hand list's roles (mom, grandma) stand for themselves; None for a word
    that is no role, and for the beings the list holds for the Chinese rule only (dragon, fairy)."""
    value = word_table(ROLES_WORDNET_EN).get(word)
    if value == "none||":
        return None
    if value is not None and value.startswith("being"):  # dragon, fairy: the Chinese 2.2a rule's only
        value = None
    itself = "=" + word  # the word stands for itself too; "=" keeps it apart from the synset ids (cat, ape)
    if value is None:
        return ("person", frozenset({itself}), frozenset({itself})) if word in ROLES_EN else None
    kind, sense, up = value.split("|")
    return kind, frozenset({sense, itself}), frozenset(up.split()) | {sense, itself}


def role_en(word: str, strict: bool = False, precise: bool = False) -> tuple[str, bool] | None:
    """The role noun a lowercase word is, singular, and whether the word names several (a plural or a group):
    teacher -> (teacher, False), barbers -> (barber, True), choir -> (choir, True), mice -> (mouse, True).
    `strict`: people and animals only, and only nouns used more often as nouns (not cook, young, blind).
    `precise` (LOT 2.2a's reading, `roles_in_en`): a plural whose likeliest singular is a common word and no role
    is none (cookies: cookie, not cooky, WordNet's cook; wolves: wolf before the verb calve)."""
    if word_table(ROLES_WORDNET_EN).get(word) == "none||":  # checkers (the game), glasses: no plural of a role
        return None
    for form, plural in _singulars(word, wolf_first=precise):
        sense = role_sense_en(form)
        if precise and sense is None and form != word and word_table(WORDS_WORDNET_EN).get(form) == "common":
            return None
        if sense is None or (strict and sense[0] not in ("person", "animal")):
            continue
        return form, plural or sense[0].startswith("group")
    return None


def _singulars(word: str, wolf_first: bool = False) -> list[tuple[str, bool]]:
    """The singulars a word can be the plural of: the irregular plural's, the word itself, then the regular ones;
    `wolf_first`: a -ves word's -f and -fe forms before its -ve one (wolves: wolf, not the verb calve's calves)."""
    forms = [(PLURAL_ROLES_EN[word], True)] if word in PLURAL_ROLES_EN else []
    forms.append((word, False))
    if word.endswith("s") and len(word) > 3:
        ves = [(word[:-3] + "f", True), (word[:-3] + "fe", True)] if word.endswith("ves") else []
        forms += ves if wolf_first else []
        forms.append((word[:-1], True))
        if word.endswith("ies"):
            forms.append((word[:-3] + "y", True))
        forms += [] if wolf_first else ves
        if word.endswith("es"):
            forms.append((word[:-2], True))
    if word.endswith("men") and len(word) > 4:
        forms.append((word[:-3] + "man", True))
    return forms


def same_role_en(ending: str, context: str) -> bool:
    """Whether an ending's role noun can name a role of the context: the same word, a synonym (the kids for the
    children) or a more general word (the bird for a parrot, the person for the plumber), by their most frequent
    senses; not the other way round (the kid is not any animal of the story)."""
    if ending == context:
        return True
    a, b = role_sense_en(ending), role_sense_en(context)
    return bool(a and b and a[1] & b[2])


def references_en(text: str) -> set[tuple[str, str]]:
    """Who an English text refers to: ("name", Karen), ("role", teacher), ("role+", friend) for a plural role or a
    group, and ("pronoun", 3sg) for a person pronoun by its class."""
    refs: set[tuple[str, str]] = set()
    previous = ""
    for word in WORD_EN.findall(text):
        bare = _CONTRACTION.sub("", word.rstrip(".")).lower()
        role = None if _pronoun_en(bare) else _role_in_text(word, bare, previous)
        if bare in PRONOUN_CLASS_EN:
            refs.add(("pronoun", PRONOUN_CLASS_EN[bare]))
        elif bare in ("it", "its", "itself"):
            refs.add(("pronoun", "it"))
        elif role:
            refs.add(("role+" if role[1] else "role", role[0]))
        previous = word.lower()
    names = [name for name in characters(text, "en") if not _pronoun_en(name.lower())]  # Somebody: nobody in particular
    refs |= {("name", (name.split("-")[0] if _hyphen_glued(name) else name).lower()) for name in names}
    refs |= {("pronoun", PHRASE_PRONOUNS_EN[p.lower()]) for p in _PHRASE_PRONOUN.findall(text)}
    return refs


def _hyphen_glued(name: str) -> bool:
    """Whether a capitalised word is a name glued to a lowercase word by a hyphen, as a typo does ("Tory-backed out
    of his driveway"): the name is its first part, a listed first name or a word of four letters or more that is no
    English word WordNet has (not Half-asleep, Well-known, Anti-war, Pre-dawn; Jean-Luc and Coca-Cola stay whole)."""
    first, _, rest = name.partition("-")
    if not (rest.isalpha() and rest.islower()):
        return False
    return first.lower() in FIRST_NAMES_EN or len(first) >= 4 and first.lower() not in word_table(WORDS_WORDNET_EN)


#: words after which a noun is used as a noun: "the cook", "her guide" (not "to cook", "a young age")
DETERMINERS_EN = frozenset("the a an his her my their our your its this that these those every each".split())


def _role_in_text(word: str, bare: str, previous: str, precise: bool = False) -> tuple[str, bool] | None:
    """The role a word of a text names. A capitalised word is a name (Colleen, Bill) unless a plural or a group
    (People, Customers) or one of the hand list (Mom); a word more often a verb or adjective (cook, young) names a
    role only after a determiner or a possessive (the cook, Tom's guide); `precise` (`role_en`'s, and a verb's past
    that is a role too, dove, fed, chased, the accused, the same way)."""
    role = role_en(bare, precise=precise)
    if role is None:
        return None
    kind = (role_sense_en(role[0]) or ("",))[0]
    if word[:1].isupper() and not role[1] and role[0] not in ROLES_EN:
        return None
    verb_like = kind.endswith(("/other", "/verb")) or (precise and (bare in VERB_FORMS_EN or bare.endswith("ed")))
    if verb_like and not (previous in DETERMINERS_EN or previous.endswith(("'s", "’s"))):
        return None  # she wanted to cook; Tom dove in (a dove, the dove: the bird)
    return role


#: role nouns that are also an irregular past or participle (dove, fed, smelt, chosen): in LOT 2.2a's reading,
#: roles only after a determiner or a possessive, as the words more often verbs are and those ending in -ed (WordNet
#: lists chased, accused, departed as nouns of their own, never met as verbs: "Ruth chased the bat")
VERB_FORMS_EN = frozenset({"dove", "fed", "smelt", "chosen"})
#: subject pronouns: the word after one is its verb (she dove, he fed), never a role
SUBJECTS_EN = frozenset({"i", "he", "she", "they"})


def _role_in_candidate(word: str, bare: str, previous: str, following: str) -> tuple[str, bool] | None:
    """The role a word names in LOT 2.2a's precise reading (`roles_in_en`): `_role_in_text(precise=True)`, and none
    right after a subject pronoun (she dove) nor, singular, right before a noun it modifies (`following`, the next
    word when only a space parts them: baby clothes, dog food; a plural there is mostly a possessive without its
    apostrophe, her parents house, except after "a": a girls night, a beginners class). `shared_character` keeps
    the plain reading (`references_en`): any word that can name someone of the story lets an ending refer to
    them."""
    if previous in SUBJECTS_EN:
        return None
    role = _role_in_text(word, bare, previous, precise=True)
    if role and following and not role[1] and heads_compound_en(following):
        return None  # baby clothes, dog food
    if role and role[1] and previous in ("a", "an") and (heads_compound_en(following) or following in ADVERB_NOUNS_EN):
        return None  # a girls night, a beginners class: after "a", a plural modifies the noun after it
    return role


def _words_en(text: str) -> list[tuple[str, str]]:
    """(word, the next word without its full stop when only one space parts them and the word is no possessive,
    else "") for each word of an English text; "" too when the next word is a verb in -s before its object (my son
    works at, his mom comforts him: `_VERB_OBJECTS_EN`)."""
    found = list(WORD_EN.finditer(text))
    words = [m.group(0) for m in found] + ["", ""]
    out = []
    for i, m in enumerate(found):
        joined = i + 1 < len(found) and text[m.end() : found[i + 1].start()] == " "
        following = words[i + 1].rstrip(".") if joined and not words[i].endswith(_NO_MODIFIER_EN) else ""
        if (
            following.endswith("s")
            and not following.endswith("ss")
            and words[i + 2].lower().rstrip(".") in _VERB_OBJECTS_EN
        ):
            following = ""
        out.append((words[i], following))
    return out


#: a word ending so modifies nothing after it: the end of a sentence, a possessive (the dog's food)
_NO_MODIFIER_EN = (".", "'s", "’s", "'", "’")


#: words that follow a verb in -s and not a noun: its object or "at" (my son works at, his mom comforts him, the
#: grandma plants a garden); after a compound's head come a verb, a preposition, a mark or "the" (baby names for,
#: the monkey bars the most)
_VERB_OBJECTS_EN = frozenset("him her them me us herself himself themselves myself a an his my their at".split())


#: nouns that can head a compound (WordNet 3.0, benchmarks/build_names_en.py): more often nouns than anything else
NOUNS_WORDNET_EN = "nouns_wordnet_en.txt"
#: nouns that stand as adverbs after a role noun (took the dog home, called her mom today): no compound
ADVERB_NOUNS_EN = frozenset("home today tonight tomorrow yesterday morning afternoon evening night week".split())


def heads_compound_en(word: str) -> bool:
    """Whether a word right after a role noun can head a compound with it (clothes, food, toys, points): a lowercase
    word WordNet's tagged corpus met more often as a noun (`NOUNS_WORDNET_EN`, no verb's inflected form: thought),
    or a plural of one, not a function word, a participle (-ing, -ed) nor one of the nouns that stand as adverbs
    (home, today)."""
    if not word.islower() or word in STOPWORDS_EN or word in ADVERB_NOUNS_EN or word.endswith(("ing", "ed")):
        return False  # a man selling, the dog tired: a participle
    nouns = word_set(NOUNS_WORDNET_EN)
    if word in nouns:
        return True
    return word.endswith("s") and (word[:-1] in nouns or (word.endswith("ies") and word[:-3] + "y" in nouns))


def shares_character_en(context: set[tuple[str, str]], ending: set[tuple[str, str]]) -> bool:
    """Whether an ending refers to someone of the four sentences: the same name, the same role or one that can
    name it (`same_role_en`: the bird for a parrot), or a pronoun that can stand for one of them (he for a name,
    they for a plural or for two people, I for a first-person narrator, it for an animal); a collective noun (the kids, the family,
    `lotdata/data/collectives_en.txt`) stands for several of them as "they" does."""
    pronouns = {key for kind, key in context if kind == "pronoun"}
    names = {key for kind, key in context if kind == "name"}
    roles = {key for kind, key in context if kind in ("role", "role+")}
    plural_roles = {key for kind, key in context if kind == "role+"}
    people = len(names) + len(roles)
    stands_for = {
        "1sg": bool(pronouns & {"1sg", "1pl"}),
        "1pl": bool(pronouns & {"1sg", "1pl"}),
        "2": "2" in pronouns,
        "3sg": "3sg" in pronouns or bool(names or roles),
        "3pl": "3pl" in pronouns or bool(plural_roles) or people >= 2,
        "all": bool(pronouns - {"it"} or people),
        "it": any((role_sense_en(role) or ("",))[0].startswith("animal") for role in roles),  # the cat: it
    }
    for kind, key in ending:
        if kind == "name" and key in names:
            return True
        if kind in ("role", "role+") and any(same_role_en(key, role) for role in roles):
            return True
        if kind == "role+" and key in COLLECTIVES_EN and stands_for["3pl"]:  # the kids, the family: all of them
            return True
        if kind == "pronoun" and stands_for[key]:
            return True
    return False


def characters(text: str, lang: str) -> set[str]:
    """Who a text names: pronouns standing for people, and names (capitalised words not opening a sentence, or
    names that open one and recur; Chinese: person names by jieba's part-of-speech tags)."""
    if lang == "zh":
        found = {p for p in PRONOUNS_ZH if p in text}
        found |= {p for p in PEOPLE_ZH if p in text}
        found |= zh_names(text)
        return found
    words = WORD_EN.findall(text)
    found = {w.lower() for w in words if w.lower() in PRONOUNS_EN}
    found |= {
        w.rstrip(".'’s")
        for w in words
        if w[:1].isupper() and w.lower() not in OPENERS_EN and w.lower() not in PRONOUNS_EN
    }
    return found


@lru_cache(maxsize=4096)
def zh_names(text: str) -> frozenset[str]:
    """Person names in a Chinese text: jieba's person tags, and nicknames (小兰, 老张, 阿明)."""
    from lotdata.text.postag import pos_words_nohmm

    names = {word for word, tag in pos_words_nohmm(text) if 2 <= len(word) <= 4 and tag in ("nr", "nrfg", "nrt")}
    # a nickname jieba does not know (小兰, 老张, 阿明): 小/老/阿 and one or two characters
    names |= set(re.findall(r"(?:小|老|阿)[\u4e00-\u9fff]", text))
    return frozenset(names)


def zh_shared(people: set[str], ending: str) -> set[str]:
    """The people of `people` an ending names; a one-character pronoun counts as a word of its own (他, not 吉他)."""
    from lotdata.text.tokenize import tokenize

    words = set(tokenize(ending, "zh"))
    return {p for p in people if (p in words if len(p) == 1 else p in ending)}


def entity_kind_zh(word: str, tag: str) -> str | None:
    """What a Chinese word (one of jieba's words, with its tag) names: "role" (a person: 农夫, 猎人, 老师, 孩子们),
    "animal" (驴子, 小马, 蝴蝶), "place" (村庄, 医院, 北京) or None. Read by the whole word, never by a character
    inside it (产生, 现象, 吹牛, 马马虎虎 name nothing): a listed word (roles_zh.txt, animal_words_zh.txt,
    places_zh.txt), or a noun ending like one (role_endings_zh.txt, animals_zh.txt, place_endings_zh.txt) and not
    listed as none of them (not_entities_zh.txt), nor filed by Cilin as a made thing or a shape only
    (`made_thing_zh`). jieba tags many plain words as names or places (明白 nr, 东西 ns), and some roles as plain
    words, so its tag only says that the word is a noun."""
    from lotdata.text.thesaurus_zh import cilin_concrete_place_zh

    if word in NOT_ENTITIES_ZH:
        return None
    if word in ROLES_ZH:
        return "role"
    if made_thing_zh(word):
        return None  # 烤鸭 "roast duck", 棉被 "comforter": Cilin files every sense under made things or shapes
    if word in ANIMAL_WORDS_ZH or (_ends_in_animal(word) and not _verb_or_idiom_zh(word)):  # not 捕鱼, 养鸡
        return "animal"
    if _ends_in_rare_animal(word, tag):
        return "animal"
    if word in PLACES_ZH or tag == "ns" and len(word) >= 3 and word[-1] in ROAD_ENDINGS_ZH:
        return "place"  # 北京; 芙蓉路, 韶山路 (a road's name: 路 alone ends 出路 and 思路 too)
    if tag in _ODD_PLACE_TAGS and len(word) >= 2 and word[-1] not in _POSITIONS and cilin_concrete_place_zh(word):
        return "place"  # 十字路口 l, 终点站 m: Cilin's concrete places whatever jieba's tag (not 山上, 水边: their 山)
    if not (tag[:1] in "nj" or tag == "l") or len(word) < 2 or _verb_or_idiom_zh(word):  # j, l: 工商局, 高等学校
        return None
    stem = word[:-1] if word.endswith("们") and len(word) > 2 else word
    if stem in ROLES_ZH:
        return "role"
    return _kind_by_ending_zh(word, stem) or (_class_zh(word, stem, tag) if tag[:1] in "nj" else None)


#: jieba's tags of a word that is no noun's but may be a place's all the same (十字路口 l, 终点站 m)
_ODD_PLACE_TAGS = ("l", "m", "s")
#: characters of a position after a place (山上, 山下, 水边, 河岸, 桥堍): the place is read without them
_POSITIONS = "上下里中内外边旁前后岸沿畔堍"


def person_tagged_time_zh(word: str) -> bool:
    """Whether a word jieba tags as a time is a person all the same: Cilin files one of its senses with people (A)
    and CC-CEDICT's first gloss is a role's (青年 "youth"; not 老年 "old age", 童年)."""
    from lotdata.text.entity_classes import kind_zh
    from lotdata.text.thesaurus_zh import cilin_codes_zh

    people = any(code.startswith("A") for code in cilin_codes_zh().get(word, ()))
    return len(word) >= 2 and people and kind_zh(word) == "role"


def _ethnic_group_zh(word: str) -> bool:
    """Whether a word ending in 族 is an ethnic group, its people (Cilin's Di04B: 哈萨克族, 汉族; not 民族 and 中华民族,
    people in general, nor 家族, 水族)."""
    from lotdata.text.thesaurus_zh import cilin_only_in

    return len(word) >= 2 and word[-1] == "族" and not word.endswith("民族") and cilin_only_in(word, ("Di04B",))


def counted_people_zh(word: str) -> bool:
    """Whether a word is a number of people (上千人, 几百人): bare 人 counted, which names nobody (not 一家人)."""
    from lotdata.text.postag import pos_words_nohmm

    count = word[:-1]
    return (
        len(word) >= 3 and word[-1] == "人" and count[-1] in "十百千万亿" and pos_words_nohmm(count) == [(count, "m")]
    )


def _kind_by_ending_zh(word: str, stem: str) -> str | None:
    """The role or the place a noun's last character makes it (猎人, 村庄; 族 of an ethnic group), unless CC-CEDICT's
    gloss says it is no noun (`_no_noun_gloss_zh`: 亮堂 "bright", 宜人 "nice", 春秋战国 "... periods"), it counts
    people (上千人) or it is a verb and its object (`_verb_and_its_place_zh`: 裁员 "to lay off staff", 买房)."""
    if _ethnic_group_zh(word):
        return "role"  # 哈萨克族, 蒙古族: the people
    if _no_noun_gloss_zh(word) or counted_people_zh(stem):
        return None
    if len(stem) >= 2 and stem[-1] in ROLE_ENDINGS_ZH and not _ends_in_none_zh(stem):
        return None if _verb_and_its_role_zh(stem) else "role"
    if word[-1] in PLACE_ENDINGS_ZH and not _verb_and_its_place_zh(word):
        return "place"
    return None


def _verb_and_its_role_zh(word: str) -> bool:
    """Whether a word of two characters CC-CEDICT lacks is a verb and its object (裁员 "to lay off staff"), not one who
    does it (败者) nor a person Cilin has (伤兵, 学友)."""
    from lotdata.text.thesaurus_zh import cilin_kind_zh

    if len(word) != 2 or word[1] == "者" or not _verb_and_its_place_zh(word):
        return False
    return cilin_kind_zh(word, slot=True) != "role"


def _no_noun_gloss_zh(word: str) -> bool:
    """Whether CC-CEDICT's first gloss says a word is no noun of a character or a place, whatever its ending: a time
    (春秋战国 "... periods"), or an adjective's or a verb's one word (亮堂 "bright", 宜人 "nice") where Cilin files
    the word only under properties, acts and states too (not 乡村 "rustic", 马夫 "groom")."""
    from lotdata.text.entity_classes import adjective_gloss_zh, time_gloss_zh
    from lotdata.text.thesaurus_zh import cilin_no_noun_zh

    return time_gloss_zh(word) or adjective_gloss_zh(word) and cilin_no_noun_zh(word)


def made_thing_zh(word: str) -> bool:
    """Whether a word of two characters or more names a made thing or a shape, whatever its ending or its English
    gloss: Cilin files every sense of it so (`thesaurus_zh.cilin_thing_zh`: 烤鸭, 棉被, 五边形); not a figure of a
    person or one who is (机器人, 雪人, 稻草人; 死者, which Cilin files with the body) nor an animal with a describing
    character (大鱼, 小鸡: Cilin's food)."""
    from lotdata.text.thesaurus_zh import cilin_thing_zh

    if len(word) < 2 or not cilin_thing_zh(word):
        return False
    return not (word[-1] in "人者" or len(word) == 2 and word[0] in ANIMAL_MODIFIERS_ZH and _animal_char(word[1]))


def _ends_in_none_zh(word: str) -> bool:
    """Whether a word is, or ends in, a word of not_entities_zh.txt: its ending then belongs to that word (帮别人,
    下苦功夫: 别人 and 功夫, not a role's 人 and 夫); not 人员 and 人士, which make the personnel of a field (科技人员,
    饮酒人士), 有人 and 二人 (持有人 "holder"), nor a word CC-CEDICT reads as one."""
    from lotdata.text.entity_classes import kind_zh

    last = word[-2:]
    if word in NOT_ENTITIES_ZH:
        return True
    kept = ("人员", "人士", "有人", "二人")  # 科技人员, 饮酒人士, 持有人 "holder", not 帮别人
    return len(word) > 2 and last in NOT_ENTITIES_ZH and last not in kept and kind_zh(word) is None


def _verb_and_its_place_zh(word: str) -> bool:
    """Whether a word CC-CEDICT has no noun of is a verb and its object: its first character's (two characters) or
    its first two characters' (four or more) first CC-CEDICT gloss is a verb's (买房 "to buy a house", 面向 + 全国;
    牢房 and 住房 are CC-CEDICT's nouns; 教育局 of three is a bureau named by what it does)."""
    from lotdata.text.entity_classes import known_word_zh, verb_first_zh

    if known_word_zh(word) or len(word) < 2:
        return False
    return verb_first_zh(word[0]) if len(word) == 2 else len(word) >= 4 and verb_first_zh(word[:2])


#: endings of a road's name, read where jieba tags the word a place's name (芙蓉路, 王府井大街)
ROAD_ENDINGS_ZH = "路街巷"
#: endings left out of role_endings_zh.txt as ambiguous in two characters (国家, 对手) that name a person in a longer
#: noun CC-CEDICT does not gloss otherwise (陶艺家, 小号手)
LONG_ROLE_ENDINGS_ZH = "家手"


#: jieba's tags of a noun whose class Cilin may give where CC-CEDICT's gloss gives none: not a name's (刘邦 nr,
#: 河水 ns: jieba's names include plain words Cilin files under other senses)
CILIN_TAGS_ZH = ("n", "nz", "nt", "j")


def _class_zh(word: str, stem: str, tag: str) -> str | None:
    """The class CC-CEDICT's first gloss and WordNet give a noun no list has (`lotdata.text.entity_classes`), else
    the role or animal Cilin gives it (`lotdata.text.thesaurus_zh`: 羊倌, 跳鼠) where jieba's tag is no name's."""
    from lotdata.text.entity_classes import kind_zh, known_word_zh
    from lotdata.text.thesaurus_zh import cilin_concrete_place_zh, cilin_division_zh, cilin_role_or_animal_zh

    kind = kind_zh(word) or (kind_zh(stem) if stem != word else None)
    if kind is None and tag in CILIN_TAGS_ZH and (found := cilin_role_or_animal_zh(stem)):
        return found  # 羊倌, 跳鼠: Cilin's general places are read only where a place stands (entities_zh)
    if kind is None and tag == "ns" and (cilin_division_zh(word) or _region_name_zh(word)):
        return "place"  # 广西: Cilin files it with provinces, counties and cities only; 西域 "Western Regions"
    cilin_tag = tag in CILIN_TAGS_ZH or _place_tagged_name_zh(word, tag)  # 麦田 nr
    if kind is None and cilin_tag and (found := cilin_concrete_place_zh(stem)):
        return found  # 房间, 坟墓, 人行道: a building, a land or a road of Cilin's
    if kind is None and len(stem) >= 3 and stem[-1] in LONG_ROLE_ENDINGS_ZH and not known_word_zh(stem):
        field = stem[:-1]  # 陶艺 of 陶艺家: a thing CEDICT glosses, not a person (邻居家) nor a verb (带回家)
        return "role" if known_word_zh(field) and not kind_zh(field) and field not in ROLES_ZH else None
    return kind


#: what CC-CEDICT's gloss of a place's name calls it (西域 "Western Regions (...)", 汶川 "Wenchuan County ...")
_REGION_GLOSS = re.compile(
    r"\b(regions?|county|province|prefecture|city|town|village|district|river|lake|mountains?|island|kingdom|state)\b",
    re.IGNORECASE,
)


def _region_name_zh(word: str) -> bool:
    """Whether a word jieba tags as a place's name is one by CC-CEDICT: a name's entry whose first gloss calls it a
    region, a division, a river, a lake, a mountain or a state (西域 "Western Regions"); jieba's ns alone is not
    enough (东西, 太阳, 刚跑)."""
    from lotdata.text.entity_classes import cedict_name_zh, first_gloss_zh

    if len(word) < 2 or word[-1] in _ADVERB_ENDS or not cedict_name_zh(word):
        return False  # 花都 of 花都白白送人了: a noun and an adverb jieba's dictionary has as a district
    return bool(_REGION_GLOSS.search(first_gloss_zh(word)))


#: adverbs that jieba glues to the noun before them where its dictionary has the pair as a name (花 + 都)
_ADVERB_ENDS = "都也就才还又却"


def _place_tagged_name_zh(word: str, tag: str) -> bool:
    """Whether a word jieba tags as a person's name is a place's common noun: Cilin files it, and only under lands,
    buildings, places and times (麦田 "wheat field", Bn12), and CC-CEDICT has no name's entry of it."""
    from lotdata.text.entity_classes import cedict_name_zh
    from lotdata.text.thesaurus_zh import cilin_only_in

    if tag not in ("nr", "nrt", "nrfg") or len(word) < 2:
        return False
    return cilin_only_in(word, ("Bn", "Be", "C")) and not cedict_name_zh(word)


def _verb_or_idiom_zh(word: str) -> bool:
    """上山, 骗人, 住院 (a verb and its object: verb_heads_zh.txt; not 回族, 满族, ethnic groups), 马马虎虎, 人山人海
    (an idiom repeating a character)."""
    verb_head = len(word) == 2 and word[0] in VERB_HEADS_ZH and not _ethnic_group_zh(word)
    return verb_head or (len(word) == 4 and len(set(word)) < 4)


def _animal_stem(word: str) -> str:
    """A word without the 们, 子 or 儿 after an animal (兔子们 -> 兔, 鸟儿 -> 鸟)."""
    stem = word.rstrip("们")
    return stem[:-1] if len(stem) > 1 and stem[-1] in "子儿" else stem


def _ends_in_animal(word: str) -> bool:
    """驴, 小驴, 狐狸, 驴子, 鸟儿, 兔子们: the last character names an animal (or the one before 子/儿/们)."""
    stem = _animal_stem(word)
    return bool(stem) and (stem[-1] in ANIMALS_ZH or stem in ANIMAL_WORDS_ZH)


def _ends_in_rare_animal(word: str, tag: str) -> bool:
    """黑尾鹬 (jieba's 鹬 alone), 赤麂, 蝾螈们: a character that names an animal by its radical and its gloss
    (`entity_classes.animal_char_zh`: 鹬 "snipe", 麂 "muntjac") ends a noun, or stands alone; a noun CC-CEDICT has
    counts where its gloss names nothing of the lists (锦鲤 "koi"; 狼狈 "in a difficult situation" is no noun), and
    an ambiguous animal's character (象) after a noun of two characters (亚洲象)."""
    from lotdata.text.entity_classes import AMBIGUOUS_ANIMAL_CHARS, animal_char_zh, in_cedict_zh, kind_zh, verb_word_zh
    from lotdata.text.postag import pos_words_nohmm

    stem = _animal_stem(word)
    if not stem or not tag or tag[0] == "v" or len(word) > 1 and (tag[0] not in "nj" or _verb_or_idiom_zh(word)):
        return False
    if len(word) == 1:
        return animal_char_zh(word)
    if in_cedict_zh(word):  # read by its gloss where that names something (狼狈: no noun)
        return kind_zh(word) is None and not verb_word_zh(word) and animal_char_zh(stem[-1])
    if stem[-1] in AMBIGUOUS_ANIMAL_CHARS:  # 亚洲象, 猛犸象: after a noun of two characters, never 现象's 象
        if in_cedict_zh(stem[-2:]):
            return kind_zh(stem[-2:]) == "animal"  # 非洲大象, not 城市形象 (形象 "image")
        return len(stem) >= 3 and all(t[:1] == "n" for _, t in pos_words_nohmm(stem[:-1]))
    return animal_char_zh(stem[-1])


def role_or_place_zh(word: str, tag: str) -> bool:
    """Whether a Chinese word names a role, an animal or a place (`entity_kind_zh`)."""
    return entity_kind_zh(word, tag) is not None


def core_zh(word: str) -> set[str]:
    """What must appear for `word` to count as already there: the word, the word without a diminutive, a describing
    prefix, a plural or a suffix (小明 -> 明, 新警察 -> 警察, 驴子 -> 驴, 孩子们 -> 孩子), the role it counts as (妈妈 ->
    母亲), or its animal (小驴 -> 驴)."""
    stem = word.rstrip("们") or word
    found = {word, stem, stem.lstrip("小老大阿新").rstrip("子儿") or stem}
    if len(word) == 2 and word[1] == "边":
        found.add(word[0])  # 河边: beside the story's 河
    found |= {ROLE_SYNONYMS_ZH[w] for w in found if w in ROLE_SYNONYMS_ZH}
    found |= {k for k, v in ROLE_SYNONYMS_ZH.items() if v in found}
    if _ends_in_animal(word):
        bare = _animal_stem(word)
        if all(ch in ANIMAL_MODIFIERS_ZH for ch in bare[:-1]) and _animal_char(bare[-1]):
            found.add(bare[-1])  # 小白兔 -> 兔, 野牛 -> 牛; not 鲸鱼 -> 鱼 nor 孔雀 -> 雀
        elif not _animal_char(bare[-1]):
            found.add(bare.lstrip("小大老"))  # 大象 -> 象
    return found


def _animal_char(ch: str) -> bool:
    return ch in ANIMALS_ZH or ch in ANIMAL_WORDS_ZH


#: characters before an animal's last character that only describe the animal (小白兔, 大灰狼, 老黄牛, 母鸡): such a
#: word names the animal of its last character; after any other (鲸鱼, 企鹅, 孔雀, 猫头鹰) it names a kind of its own
ANIMAL_MODIFIERS_ZH = frozenset("小大老白黑灰红黄花青绿金银母公野恶饿胖瘦肥丑笨馋懒")
#: locative characters jieba glues to a place word (车站里, 城堡中); a river, sea, hill ... with 边 is a place (海边)
LOCATIVES_ZH = "里上中内外"


def entity_words_zh(text: str) -> list[str]:
    """The roles, animals and places of a Chinese text (`entity_kind_zh`), each as the word that names it: a word
    jieba glues to a locative is read without it (车站里 -> 车站), and X边 where X alone ends a place (海边, 河边) is
    a place."""
    from lotdata.text.postag import pos_words_nohmm

    found = []
    tokens = pos_words_nohmm(text)
    skip = False
    for i, (word, tag) in enumerate(tokens):
        if skip:
            skip = False
        elif entity_kind_zh(word, tag):
            if not _other_sense_zh(tokens, i):
                found.append(word)
        elif len(word) > 2 and word[-1] in LOCATIVES_ZH and _glued_tag(word, tag) and entity_kind_zh(word[:-1], "n"):
            found.append(word[:-1])
        elif len(word) == 2 and word[1] == "边" and word[0] in PLACE_ENDINGS_ZH and word not in NOT_ENTITIES_ZH:
            found.append(word)
        elif merged := _merged_zh(tokens, i):
            found.append(merged)
            skip = True
    return found


#: degree adverbs, before which 牛 is the slang "awesome" (最牛的, 很牛)
_DEGREE_ZH = frozenset("最 很 太 真 超 挺 好 特别 非常 多么".split())
#: modal verbs jieba glues to the next character as a role (也 + 会长 + 大: 会 + 长大)
_MODALS_ZH = "会能要可"
#: verbs of handling a tent, after which it is a thing (自带 + 帐篷, 支起 + 帐篷)
_HANDLING_ZH = frozenset("带 自带 带着 支 支起 起 搭 搭起 撑 撑起 扎 收 收起 买 卖 扛 背 拿 借 租".split())


def _other_sense_zh(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether jieba's word at `i`, read as a role, an animal or a place, is used in another sense or cut across two
    words: a tent (`thesaurus_zh.cilin_tent_zh`) after a verb of handling it (自带帐篷), an animal of the zodiac's
    year or month not counted (羊 + 年, 马 + 月; not 一只羊年年), 牛 after a degree adverb (最牛的), a role whose
    second character makes a verb with the next word's first (长得, 长大) where its first makes a word with the
    character before it or is a modal (头 + 部长 + 得, 也 + 会长 + 大), never at a clause's start or after 的."""
    from lotdata.text.entity_classes import in_cedict_zh, verb_word_zh
    from lotdata.text.thesaurus_zh import cilin_tent_zh

    word = tokens[i][0]
    before, before_tag = tokens[i - 1] if i else ("", "")
    after = tokens[i + 1][0] if i + 1 < len(tokens) else ""
    following = tokens[i + 2][0] if i + 2 < len(tokens) else ""
    if before in _HANDLING_ZH and cilin_tent_zh(word):
        return True  # 自带 + 帐篷, 支起 + 帐篷: a tent carried or put up is a thing
    if len(word) == 1:
        counted = before_tag[:1] in ("m", "q") or before in ("只", "头", "匹")
        zodiac = after in ("年", "月") and following != after and not counted  # not 羊年年 "every year", 一只羊
        return zodiac or word == "牛" and before in _DEGREE_ZH
    if len(word) != 2 or not after or not verb_word_zh(word[1] + after[0]):
        return False
    if not before or before_tag in ("x", "uj"):
        return False  # 会长大声说话, 我们的会长: the role opens its clause or is owned
    return word[0] in _MODALS_ZH or in_cedict_zh(before[-1] + word[0])


def _glued_tag(word: str, tag: str) -> bool:
    """Whether jieba's tag of a word ending in a locative lets the word before it be read: a noun's, a place's or an
    idiom's (车站里 s), or a verb's where the locative is 上 or 里 (jieba's 操场上 v: the playground)."""
    return tag[:1] in "nsl" or tag == "v" and word[-1] in "上里"


#: jieba's tags of function words, never the first part of a noun jieba split (在, 的, 和, 他, 一)
_FUNCTION_TAGS = ("p", "u", "c", "r", "d", "m", "q", "y", "x", "f", "uj", "ul", "e", "o")


def _merged_zh(tokens: list[tuple[str, str]], i: int) -> str | None:
    """A noun jieba's dictionary lacks and splits (瞭望 + 塔里): two words that together, without a locative, are a
    word CC-CEDICT glosses as a role, an animal or a place (`lotdata.text.entity_classes`), of three characters or
    more."""
    from lotdata.text.entity_classes import kind_zh

    if i + 1 >= len(tokens) or tokens[i][1] in _FUNCTION_TAGS or tokens[i + 1][1] in _FUNCTION_TAGS:
        return None
    first, second = tokens[i][0], tokens[i + 1][0]
    if len(second) > 1 and second[-1] in LOCATIVES_ZH and not kind_zh(first + second):
        second = second[:-1]
    joined = first + second
    if len(joined) < 3 or joined in NOT_ENTITIES_ZH or not kind_zh(joined):
        return None
    return joined


#: role words a story puts after a character's name to address or call it (河狸先生, 蝴蝶妹妹, 笔帽大哥, 王老师)
TITLES_ZH = frozenset(
    "先生 小姐 女士 夫人 太太 姐姐 妹妹 哥哥 弟弟 大哥 大姐 小弟 老弟 小妹 伯伯 大伯 大叔 叔叔 阿姨 大婶 婶婶 爷爷 奶奶 "
    "公公 婆婆 姑姑 姑娘 大王 老师 博士 医生 大夫 师傅".split()
)


def _titles_of_known_zh(candidate: str, given: str, words: set[str]) -> set[str]:
    """The title words of a candidate that follow a noun the story has (河狸先生 where the story has 河狸): they
    name that character, not a new one."""
    from lotdata.text.postag import pos_words_nohmm

    found, previous = set(), ("", "")
    for word, tag in pos_words_nohmm(candidate):
        if word in TITLES_ZH and previous[1][:1] == "n" and known_zh(previous[0], given, words):
            found.add(word)
        previous = (word, tag)
    return found


def known_zh(word: str, given: str, given_words: set[str]) -> bool:
    """Whether `given` already names what `word` names (`core_zh`): a core of two characters or more anywhere in
    the text, a core of one (驴, 象, 鱼) only as a word of it or the core of one of its roles and animals
    (`given_words_zh`): 象 is not in 现象, 虎 not in 马虎, 鱼 not in 鲸鱼."""
    if any(core in given if len(core) > 1 else core in given_words for core in core_zh(word)):
        return True
    if len(word) >= 2 and word[0] in DEICTIC_ZH:
        return True  # 那山洞, 本市, 全城: the place the story is already in or has named
    if word[-1] in ROOM_ENDINGS_ZH and any(building in given for building in BUILDINGS_ZH):
        return True  # a room (卧室, 厨房, 客厅) of the story's house, school or shop is no new place
    if any(narrow in given for narrow in GENERAL_WORDS_ZH.get(word, "").split()):
        return True
    from lotdata.text.entity_classes import same_thing_zh

    # 屋子 where the story has 房子 (both "house" in CC-CEDICT); a title (先生: "teacher" first) names no kind
    return same_thing_zh(word, given_words - TITLES_ZH)


#: a first character that points back at what the story has (那山洞, 这座城) or at all of its place (全城, 本市)
DEICTIC_ZH = "那这本全整该此"
#: the last characters of a room's name, and the words of a story that give the rooms a building to be in
ROOM_ENDINGS_ZH = "室厅房间"
BUILDINGS_ZH = ("家", "房子", "屋", "楼", "宫", "府", "院", "店", "馆", "学校", "公司", "宿舍", "酒店", "宾馆")


def given_words_zh(given: str) -> set[str]:
    """The words of a Chinese text and the cores of its roles, animals and places (`known_zh`)."""
    from lotdata.text.postag import pos_words_nohmm

    words = {word for word, _ in pos_words_nohmm(given)}
    for word in entity_words_zh(given):
        words |= core_zh(word)
        bare = word.rstrip("们").rstrip("子儿") or word
        # the story's 鲸鱼 is a 鱼 too and its 狐狸 a 狐: a candidate may name them so (not the other way)
        words |= {ch for ch in (bare[-1], bare[0] if len(bare) == 2 else "") if ch and _animal_char(ch)}
    return words


def unknown_entities_zh(
    candidate: str, given: str, found: Iterable[str], known: Callable[[str, str, set[str]], bool] = known_zh
) -> list[str]:
    """The words of `found` (the roles, animals and places read in a Chinese `candidate`) that `given` does not name
    (`known`), nor a title of one it names, each once in order."""
    words = given_words_zh(given)
    titles = _titles_of_known_zh(candidate, given, words)
    return list(dict.fromkeys(w for w in found if w not in titles and not known(w, given, words)))


def new_entities(candidate: str, given: str, lang: str) -> list[str]:
    """The roles (people, animals) and places a candidate names that `given` (the context, with the original
    sentence: LOT appendix 2.2a lets a candidate bring in what the original brought in) does not. Chinese by
    jieba's part-of-speech tags, the same tagger as the Story Cloze checks, plus role words and animals; English
    by capitalised names and a lexicon of roles and animals. Things are not checked: a tagger cannot tell a new
    object from a part of a known one (the horse's hooves), so those stay with the reviewers."""
    if lang == "zh":  # the rule reads Chinese with more words (`annotate.checks.new_entities`, `entities_zh`)
        return unknown_entities_zh(candidate, given, entity_words_zh(candidate))
    given_words = {w.lower().rstrip(".'’s") for w in WORD_EN.findall(given)}
    given_roles = {role for _, role in roles_in_en(given)}
    found = [
        w for w, role in roles_in_en(candidate, strict=True) if not any(same_role_en(role, g) for g in given_roles)
    ]
    found += [w for w in _names_en(candidate, given) if not roles_in_en(w, strict=True)]
    return list(
        dict.fromkeys(w for w in found if w.lower().rstrip(".'’s") not in given_words and w.lower() not in given_words)
    )


def _names_en(text: str, given: str = "") -> list[str]:
    """The names of an English candidate (`names_en`, with `given`, the rest of the story, telling which words are
    used as names), less what only opens it as an adverb or a preposition would ("Afterward, ...", "Lately, ...",
    "During the summer": a first word followed by a comma, a stopword) and the contractions of a pronoun (I've)."""
    first = WORD_EN.match(text.lstrip(" \"'“‘"))
    opener = first.group(0) if first and text.lstrip(" \"'“‘")[first.end() : first.end() + 1] == "," else None
    return [
        w
        for w in names_en(text, known_names_en(f"{given} {text}"))
        if w != opener and w.lower() not in STOPWORDS_EN and _CONTRACTION.sub("", w).lower() not in PRONOUN_CLASS_EN
    ]


#: English words that tell a name from a capitalised common word (WordNet 3.0, benchmarks/build_names_en.py):
#: word -> common (a lowercase word WordNet's tagged corpus met) or other (only capitalised, never a person or a place)
WORDS_WORDNET_EN = "words_wordnet_en.tsv"
#: capitalised words that name no role and no place (holidays, sites, brands) that WordNet lacks
NOT_NAMES_EN = word_set("not_names_en.txt")
#: common first names: a name wherever they stand (Bill, Grace, Karen)
FIRST_NAMES_EN = word_set("first_names_en.txt")
_BASES_EN = (("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("ied", "y"), ("ies", "y"), ("es", ""), ("s", ""))
_BASES_EN += (("ily", "y"), ("ly", ""), ("er", ""), ("est", ""))


#: words after which a capitalised word is a name (Mr. Baker, Aunt May, Officer Brown)
_TITLES_EN = {"mr", "mrs", "ms", "dr", "prof", "aunt", "uncle", "officer", "coach", "grandma", "grandpa", "sir"}


def common_word_en(word: str) -> bool:
    """Whether a lowercase English word, or the word it is inflected from (hanging -> hang, tried -> try), is a
    common word: WordNet writes it in lowercase and its tagged corpus met it (words_wordnet_en.tsv), or a stopword."""
    table = word_table(WORDS_WORDNET_EN)
    if table.get(word) == "common" or word in STOPWORDS_EN:
        return True
    for suffix, then in _BASES_EN:
        base = word[: -len(suffix)] + then
        if not word.endswith(suffix) or len(base) < 3:  # using -> use, tried -> try; not us, be
            continue
        if table.get(base) == "common" or (not then and base[-1] == base[-2] and table.get(base[:-1]) == "common"):
            return True  # stopped -> stop
    return False


def _capitalised_en(text: str) -> list[tuple[str, bool]]:
    """(word, follows a title: Mr. Baker, Aunt May) for each capitalised word of an English text, acronyms (TV, NA,
    NASA's) left out."""
    out, previous = [], ""
    for m in WORD_EN.finditer(text):
        word = m.group(0)
        bare = _POSSESSIVE.sub("", word)
        if word[:1].isupper() and not (len(bare) > 1 and bare.isupper()):
            out.append((word, previous.lower().rstrip(".") in _TITLES_EN))
        previous = word
    return out


def known_names_en(text: str) -> frozenset[str]:
    """The capitalised words a text uses as names whatever they are: those it capitalises twice or more (Bill went
    home. ... Bill slept.), the possessive and the bare word together."""
    counts: dict[str, int] = {}
    for word, _ in _capitalised_en(text):
        bare = _POSSESSIVE.sub("", word)
        counts[bare] = counts.get(bare, 0) + 1
    return frozenset(w for w, n in counts.items() if n > 1)


def names_en(text: str, known: frozenset[str] = frozenset()) -> list[str]:
    """The names of an English text: a capitalised word of two letters or more that is a listed first name
    (first_names_en.txt) or follows a title (Mr., Aunt), or else is no pronoun, opener or stopword, nor a word that
    never names a role or a place (Christmas, Chinese, Monday: WordNet's kind other; not_names_en.txt), nor a
    common word (Hanging, Determined, Right; Valentine's Day) unless `known` (`known_names_en`: the text
    capitalises it again). Acronyms (TV, NA) are none."""
    found = []
    for word, after_title in _capitalised_en(text):
        bare = _CONTRACTION.sub("", word.rstrip(".")).rstrip("'’")
        low = bare.lower()
        if len(bare) < 2 or low in OPENERS_EN or low in PRONOUNS_EN or _pronoun_en(low) or low in NOT_NAMES_EN:
            continue
        if low in FIRST_NAMES_EN or after_title or _name_by_place(bare, _POSSESSIVE.sub("", word) in known):
            found.append(_POSSESSIVE.sub("", word))
    return list(dict.fromkeys(found))


def _name_by_place(bare: str, known: bool) -> bool:
    """Whether a capitalised word no list names is a name: not a word WordNet writes only capitalised for something
    else (Christmas), and not a common word (Hanging, Determined, Right at a sentence's start; Valentine's Day, a T
    Shirt inside one) nor a thing's (`thing_word_en`: Spaghetti, Novocaine) unless the text capitalises it again
    (`known`: Bill ... Bill); a hyphenated word only when each part could be a name (Mary-Anne, not Kool-Aid)."""
    if word_table(WORDS_WORDNET_EN).get(bare) == "other":
        return False
    if known:
        return True
    parts = bare.lower().split("-")
    return all(len(p) > 1 and (p in FIRST_NAMES_EN or not (common_word_en(p) or thing_word_en(p))) for p in parts)


#: lowercase words that name only things (acts, artifacts, foods, processes ...), seven letters or more, that
#: WordNet's tagged corpus never met (benchmarks/build_things_en.py): capitalised, no name
THINGS_WORDNET_EN = "things_wordnet_en.txt"


def thing_word_en(word: str) -> bool:
    """Whether a lowercase English word, or the singular of its plural, names only things in WordNet 3.0
    (`THINGS_WORDNET_EN`: spaghetti, novocaine, lacrosse, photosynthesis)."""
    things = word_set(THINGS_WORDNET_EN)
    return any(form in things for form, _ in _singulars(word))


_POSSESSIVE = re.compile(r"(?:['’]s?|\.)$")


#: indefinite pronouns WordNet has as persons: never a role of a story (as 有人 and 别人 are not in Chinese)
INDEFINITE_PRONOUNS_EN = frozenset("someone somebody anyone anybody".split())


def _pronoun_en(low: str) -> bool:
    """Whether a lowercase English word is a personal pronoun (`PRONOUN_CLASS_EN`) or an indefinite one (someone:
    nobody in particular), never a role or a name."""
    return low in PRONOUN_CLASS_EN or low in INDEFINITE_PRONOUNS_EN


def roles_in_en(text: str, strict: bool = False) -> list[tuple[str, str]]:
    """(word, role) for each word of an English text that names a role (`role_en`; the barbers -> barber);
    `strict`: people and animals only, not the groups nor words more often verbs or adjectives. LOT 2.2a's reading
    (`_role_in_candidate`): no modifier (baby clothes, a girls night), no plural of a common word (cookies), no verb
    (she dove), no animal eaten (ate fish: `eaten_en`)."""
    found, previous = [], ""
    for (word, following), eaten in zip(_words_en(text), eaten_en(text)):
        bare = _CONTRACTION.sub("", word.rstrip(".")).lower()
        role = None if _pronoun_en(bare) or eaten else _role_in_candidate(word, bare, previous, following)
        kind = role and (role_sense_en(role[0]) or ("",))[0]
        if role and not (strict and kind not in ("person", "animal")):
            found.append((_CONTRACTION.sub("", word.rstrip(".")), role[0]))
        previous = word.lower()
    return found


#: animal words WordNet gives a food sense too (fish, beef, chicken, anchovy, turkey; benchmarks/build_things_en.py)
FOODS_WORDNET_EN = "foods_wordnet_en.txt"
#: words that say the food word after them is eaten: eating, cooking, serving or ordering it, and how it is cooked
FOOD_CUES_EN = frozenset(
    "eat eats ate eaten eating cook cooks cooked cooking fry fries fried frying grill grills grilled grilling bake "
    "bakes baked baking roast roasts roasted roasting broil broiled barbecue barbecued smoked boiled steamed raw "
    "canned serve serves served serving order orders ordered ordering taste tastes tasted tasting".split()
)
#: meals: a food word right before one is eaten (fish for dinner)
MEALS_EN = frozenset("breakfast brunch lunch dinner supper meal".split())
#: words that part a food word from a cue before them (cooked dinner for her mate: the mate is not cooked)
_FOOD_STOPS_EN = frozenset("for with to by at from and or but when while who that which".split())
_CLAUSE_END = re.compile(r"[,;:!?()\"“”]")


def eaten_en(text: str) -> list[bool]:
    """For each word of an English text (`WORD_EN`), whether it is an animal eaten, no role (LOT 2.2a): a word of
    `FOODS_WORDNET_EN` (or its plural) with a cue in its clause, among the three words before it and with no
    preposition or conjunction between (ate fish, cooking a turkey, fried chicken, ate lots of anchovies) or a meal
    among the two after it (fish for dinner)."""
    found = list(WORD_EN.finditer(text))
    words = [m.group(0).lower() for m in found]
    foods = word_set(FOODS_WORDNET_EN)
    out = []
    for i, word in enumerate(words):
        bare = word.rstrip(".")
        food = any(form in foods for form, _ in _singulars(bare))
        out.append(food and (_cue_before(text, found, words, i) or _meal_after(text, found, words, i)))
    return out


def _joined(text: str, found: list[re.Match[str]], j: int) -> bool:
    """Whether words j and j + 1 stand in one clause: no full stop after word j and no mark between them."""
    return not found[j].group(0).endswith(".") and not _CLAUSE_END.search(text[found[j].end() : found[j + 1].start()])


def _cue_before(text: str, found: list[re.Match[str]], words: list[str], i: int) -> bool:
    for j in range(i - 1, max(i - 4, -1), -1):
        if not _joined(text, found, j) or words[j] in _FOOD_STOPS_EN:
            return False
        if words[j] in FOOD_CUES_EN:
            return True
    return False


def _meal_after(text: str, found: list[re.Match[str]], words: list[str], i: int) -> bool:
    for k in range(i + 1, min(i + 3, len(words))):
        if not _joined(text, found, k - 1):
            return False
        if words[k].rstrip(".") in MEALS_EN or (words[k - 1] in _BE_EN and words[k].rstrip(".") in FOOD_CUES_EN):
            return True  # fish for dinner; the beef was cooked
    return False


_BE_EN = frozenset("is are was were be been".split())
