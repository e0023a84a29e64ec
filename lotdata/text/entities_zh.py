"""Chinese roles, animals and places that `lotdata.text.characters`' reader of whole words misses (issue 34, LOT
appendix 2.2a), read by the part of speech of a word or of its pieces and by the head of the noun (its last
character), never by a list of the words themselves:

- a word jieba tags as a verb, an adjective or a phrase (搬运工 v, 伶人 a, 发明家 l, 吹鼓手 i) or as a verb and its
  object (养父: 养 + 父) is a noun when the first CC-CEDICT entry of the word has no verb sense and its first gloss
  names a role, an animal or a place (`lotdata.text.entity_classes`); one of two characters only where a noun
  stands (after 的 or a measure word, before 们, between 在 and 里, a clause's subject);
- a noun with a head (`HEADS`: 贩 户 工 匠 of people, 坊 棚 塘 亭 of places, 犬 兽 马 of animals) after a stem that
  is a noun or a verb and its object (菜贩, 养鸡户, 伐木工, 豆腐坊, 牛棚, 腊肠犬), where no dictionary reads the word
  otherwise;
- a noun jieba cut into pieces: a stem and a bound head (糕点 + 师, 洗衣 + 妇, 面 + 馆里, 赶车 + 人, 送 + 奶 + 工),
  or characters CC-CEDICT has together as a noun (大 + 副, 猎 + 隼, 树 + 屋);
- 老/小/大 before a role or an animal (老秀才, 小伙伴, 老黄牛), -子/-儿 after an animal CC-CEDICT glosses alone (獐子);
- a room (卧室, 手术室) is in the story's building only where a word of the story is one (家, 回家, 学校), not a
  character inside another word (大家, 国家, 专家);
- never a head after itself (户户 of 家家户户), a head that is the sentence's verb (黄沙 + 铺满了), nor a whole verb
  before a role's head (相信 + 师旷: a verb that takes a clause, no verb and its object);
- a word between a preposition of place and a locative (在水井里, 在三峡里) is a place where jieba tags it a place
  name or its first CC-CEDICT gloss names one read leniently (a head more often an adverb or a verb in English: well);
- a noun no dictionary has that ends in a word of two naming a role, an animal or a place, after a stem that is no
  verb, is that kind (教书先生; not 走亲戚);
- a noun CC-CEDICT lacks ending in a character most of CC-CEDICT's nouns ending in it are of a kind is that kind
  (盐商, 漆工: `entity_classes.cedict_heads_zh`), also where jieba cut it apart (众 + 臣, 高铁 + 站 in a place's slot);
  a place jieba cut apart in a place's slot is the word CC-CEDICT has (在 + 唐 + 山里);
- where a noun stands, a person WordNet has more often as a verb is a role (间谍 "spy", 向导 "guide"); a noun first
  with a verb sense as well is read there (参谋, 侍从); erhua after a role, an animal or a place (哥们儿), -仔/-崽 after
  an animal (猪仔);
- a word whose every sense in the thesaurus Tongyici Cilin is of one kind (`lotdata.text.thesaurus_zh`): a place in
  a place's slot (在水渠里), a role or an animal where a noun stands (凤凰看到了), two pieces Cilin has whole (阿 + 姐);
- a word no dictionary has in a place's slot ending in a place's head after any stem that is no verb (金 + 店里,
  在莲池里); pieces of a role or an animal no dictionary has, as a clause's subject, ending in a role's or an
  animal's head (妖 + 王看到了); an animal with 群 (鹿群); a word CC-CEDICT glosses with a domain note of its kind
  (鼩 + 鼱 "shrew (zoology)").

`new_entities_zh` is `characters.new_entities` for Chinese with these; the check rule `context_entities` uses it.
The rules were written from jieba's dictionary (which words it tags so, and which of them name something) and from
dev word lists planted on tuning documents only (benchmarks/context_entities_diagnosis.py), with the tuning
documents' real sentences watched for new flags at every step; see docs/explanation/check-rules.md.
"""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from lotdata.text import characters as ch

#: heads of a noun: the last character of a word that makes it a role, a place or an animal after a stem that is a
#: noun (菜贩, 牛棚) or a verb and its object of two characters or more (养鸡户, 录音棚). Left out: heads more often
#: a word of their own or a verb's object or suffix in stories (人 家 手 生 女 道 地 口 台 场: 让人, 回家, 心道,
#: 系统地, 开口, 上台), and heads of groups and spheres (圈 库: 朋友圈, 数据库)
HEADS = {
    **dict.fromkeys("贩户工匠佬", "role"),
    **dict.fromkeys("坊棚塘亭坡铺寨塔滩区营田林园馆庄口井窝", "place"),
    **dict.fromkeys("犬兽马牛羊猪鸡鸭鹅", "animal"),
}
#: heads that only name with a stem of two characters or more (the one-character stems are too often another word:
#: 田 屯田, 营 全营, 林 护林, 区 全区, 口 开口, 马 上马, 牛 吹牛)
LONG_HEADS = frozenset("工区营田林庄口马牛羊猪鸡鸭鹅")
#: heads that make a role, a place or an animal of any word that ends in them, even one CC-CEDICT glosses by a word
#: WordNet's lists lack (摊贩 stallkeeper, 柴犬 shiba inu, 凉亭 pavilion)
STRONG_HEADS = frozenset("贩匠佬犬兽棚坊寨亭")
#: heads jieba cuts off as a piece of its own (a bound morpheme: 糕点 + 师, 洗衣 + 妇, 采茶 + 女, 茶 + 童): the
#: endings of characters.py's lists as well as `HEADS`, after a noun, or after a verb and its object before a
#: role's head (人 only so: 赶车 + 人, never 欺负 + 人)
SPLIT_HEADS = {
    **{head: kind for head, kind in HEADS.items() if head != "田"},  # 结果 + 田忌
    **dict.fromkeys("师匠夫妇童郎翁娘婆女人僧队", "role"),
    **dict.fromkeys("馆院屋厅厂店庙湖河渠岛湾港峡潭溪", "place"),
}
#: jieba's tags of a stem (nouns, verbs, adjectives and phrases): never a function word, a pronoun or a number
STEM_TAGS = ("n", "v", "a", "l", "j", "b", "s", "z")
#: prefixes that only describe a role or an animal (老秀才, 小姑子, 老黄牛, 新警察)
PREFIXES = "老小大新"
#: tags whose words a CC-CEDICT noun may correct (jieba tags many nouns as verbs: 搬运工 v, 焊工 v, 要塞 v)
NOUN_TAGS_BY_CEDICT = ("v", "vn", "l")


def _stem_ok(stem: str, tag: str, long_only: bool) -> bool:
    """Whether a stem tagged `tag` can carry a head: a content word, of one character only if a noun and the head
    is not one of `LONG_HEADS`, never an idiom."""
    if not stem or not tag.startswith(STEM_TAGS) or stem in ch.NOT_ENTITIES_ZH:
        return False
    if len(stem) == 1:
        return not long_only and tag[:1] == "n"
    return not (len(stem) == 4 and len(set(stem)) < 4)


def _reduplicated(word: str) -> bool:
    """Whether a word's head follows itself (户户 of 家家户户, 人人): an AA or AABB reduplication, no noun's head."""
    return len(word) >= 2 and word[-1] == word[-2]


def head_kind_zh(word: str, stem_tag: str, heads: dict[str, str] = HEADS) -> str | None:
    """The class a word's head gives it (`HEADS`), where its stem (the word less its head, tagged `stem_tag` by
    jieba) can carry one and no dictionary reads the word, nor its last two characters, as something else (加工,
    经营: the head belongs to a word of the stem)."""
    from lotdata.text.entity_classes import kind_zh, known_word_zh, verb_word_zh

    kind = heads.get(word[-1:])
    if kind is None or len(word) < 2 or word in ch.NOT_ENTITIES_ZH or _reduplicated(word):
        return None
    if known_word_zh(word):
        return kind_zh(word) or (kind if word[-1] in STRONG_HEADS else None)
    if verb_word_zh(word):
        return None  # 夸海口 "to boast": a verb of CC-CEDICT's, not a noun with a head
    last = word[-2:]
    if len(word) > 2 and known_word_zh(last) and (verb_word_zh(last) or kind != "role" and not kind_zh(last)):
        return None  # 来料加工, 个体经营: the head ends a verb; 木工 (woodwork, woodworker) may end a role
    return kind if _stem_ok(word[:-1], stem_tag, word[-1] in LONG_HEADS) else None


def _cedict_noun_zh(word: str, tag: str, before: tuple[str, str], after: tuple[str, str]) -> str | None:
    """A word jieba tags as a verb, an adjective or a phrase (搬运工 v, 焊工 v, 伶人 a, 吹鼓手 i), or as a verb and
    its object (养父: 养 + 父), whose CC-CEDICT gloss names a role, an animal or a place (not a name: 开封, 保定 are
    verbs first in jieba, cities in CC-CEDICT; a person WordNet has more often as a verb counts: 向导 "guide"). A
    word of two characters tagged so, and any word CC-CEDICT has a verb sense of as well (参谋 "staff officer; to give
    advice", 侍从), must stand where a noun stands (`_noun_place`): 拿手 in 我的拿手绝活 or 把头 in 把头一缩 is none."""
    from lotdata.text.entity_classes import head_zh, role_in_slot_zh, verb_word_zh

    if len(word) < 2 or word in ch.NOT_ENTITIES_ZH:
        return None
    if verb_word_zh(word) and not (tag[:1] != "n" and _verb_as_noun_place(before, after)):
        return None  # a verb sense as well (参谋 "staff officer; to give advice", 侍从): read only where a noun stands
    if tag[:1] == "n":
        if not ch._verb_or_idiom_zh(word):
            return None
    elif len(word) >= 3:
        if not (tag in NOUN_TAGS_BY_CEDICT or tag == "i" and len(word) == 3):
            return None
    elif not (
        tag in ("v", "vn", "a", "b") and _verb_as_noun_place(before, after) or tag == "b" and before[1] in ("nr", "nrt")
    ):
        return None  # 主任 (b) after a person's name is a title: 刘小梅主任; not 鲁迅 + 翻译 (v) a book
    found = head_zh(word)
    if found is None and role_in_slot_zh(word):
        return "role"  # 向导 "guide", a person WordNet has more often as a verb
    return found[1] if found and not found[0].startswith("=") else None


#: words before a noun: the measure words and numerals are jieba's tags q and m
_BEFORE_NOUN = frozenset("的 这 那 这个 那个 一个 一位 这位 那位".split())
#: prepositions and verbs of place before a noun with a locative (在要塞里, 进了哨所)
_BEFORE_PLACE = frozenset("在 到 进 去 从 往 向 回 离开 走进 来到 回到 住在".split())


def _noun_place(before: tuple[str, str], after: tuple[str, str]) -> bool:
    """Whether a word between `before` and `after` (jieba's (word, tag), ("", "") at an end) stands where a noun
    stands: after 的, a measure word, a numeral or a demonstrative, or before 们, or between 在 and a locative, or
    as a clause's subject (after a mark, before a verb); never before a noun (a modifier: 拿手绝活) or an aspect
    particle (常住了)."""
    word, tag = after
    if tag[:1] == "n" or word in ("了", "着", "过", "一"):
        return False
    if word == "们" or before[0] in _BEFORE_NOUN or before[1][:1] in ("q", "m"):
        return True
    return _place_slot(before, after) or _subject_slot(before, after)


def _person_not_time(before: tuple[str, str], after: tuple[str, str]) -> bool:
    """Whether a word jieba tags as a time stands as a person (一个青年, 的青年, 这些青年, 好青年, 青年们): after a
    measure word, a numeral, a demonstrative, 的 or an adjective, or before 们, and no noun after it (青年时期)."""
    if after[1][:1] == "n" and ch.entity_kind_zh(*after) != "role" and after[0] not in GENERAL_PEOPLE_ZH:
        return False  # 青年时期; but 青年女性
    return after[0] == "们" or before[0] in _BEFORE_NOUN or before[0] in ("这些", "那些") or before[1][:1] in "qma"


def _subject_slot(before: tuple[str, str], after: tuple[str, str]) -> bool:
    """Whether a word between `before` and `after` stands as a clause's subject or its owner: after a mark (or at
    the start), before a verb or 的 (伤兵的处境)."""
    return before[1] in ("", "x") and (after[1][:1] == "v" or after[0] == "的")


def _verb_as_noun_place(before: tuple[str, str], after: tuple[str, str]) -> bool:
    """`_noun_place` for a word jieba tags as a verb: not as the owner at a clause's start (翻译的过程: the act)."""
    return _noun_place(before, after) and not (before[1] in ("", "x") and after[0] == "的")


def _place_slot(before: tuple[str, str], after: tuple[str, str]) -> bool:
    """Whether a word between `before` and `after` stands where a place does: after a preposition or verb of place
    and before a locative (在要塞里, 走进哨所中, 在河边)."""
    word, tag = after
    return before[0] in _BEFORE_PLACE and (word[:1] in ch.LOCATIVES_ZH or word == "边" or tag == "f")


def _prefixed_zh(word: str, tag: str) -> str | None:
    """老秀才, 小姑子, 老黄牛: a describing prefix before a noun of two characters or more that names a role or an
    animal."""

    if len(word) < 3 or word[0] not in PREFIXES or not tag.startswith(("n", "x")):
        return None
    kind = _kind_of_zh(word[1:])
    return kind if kind in ("role", "animal") else None


def _diminutive_zh(word: str, tag: str) -> str | None:
    """獐子, 麂子: an animal or a role CC-CEDICT glosses as its one character, with -子 or -儿, where CC-CEDICT lacks
    the whole word; 猪仔, 狗崽: an animal with -仔 or -崽 ("young animal"; not 牛仔, a cowboy CC-CEDICT has)."""
    from lotdata.text.entity_classes import kind_zh, known_word_zh

    if len(word) < 2 or word[-1] not in "子儿仔崽" or not tag.startswith(("n", "x")) or known_word_zh(word):
        return None
    stem = word[:-1]
    if word[-1] in "仔崽":
        return "animal" if _kind_of_zh(stem) == "animal" else None
    kind = kind_zh(stem) if len(stem) == 1 else None
    return kind if kind in ("role", "animal") else None


def _erhua_zh(word: str, tag: str) -> str | None:
    """哥们儿, 老伴儿: a word CC-CEDICT lacks with 儿 after one that names a role, an animal or a place."""
    from lotdata.text.entity_classes import known_word_zh

    if len(word) < 3 or word[-1] != "儿" or not tag.startswith(("n", "x")) or known_word_zh(word):
        return None
    return _kind_of_zh(word[:-1])


def _herd_zh(word: str, tag: str) -> str | None:
    """兽群, 鹿群, 狼群: a noun CC-CEDICT has no gloss of, an animal with 群 ("herd, flock"): the animals are new to
    a story that has none of them."""
    from lotdata.text.entity_classes import known_word_zh

    if len(word) < 2 or word[-1] != "群" or not tag.startswith("n") or known_word_zh(word):
        return None
    return "animal" if _kind_of_zh(word[:-1]) == "animal" else None


def _pair_zh(word: str, tag: str) -> str | None:
    """兄弟俩, 姐妹俩: a role with 俩 ("the two of them"), a word jieba keeps whole and CC-CEDICT lacks."""
    if len(word) < 3 or word[-1] != "俩" or not tag.startswith("n"):
        return None
    return "role" if ch.entity_kind_zh(word[:-1], "n") == "role" else None


def _kind_of_zh(word: str) -> str | None:
    """What a word names read as a noun: by characters.py's lists and endings, else by its CC-CEDICT gloss."""
    from lotdata.text.entity_classes import kind_zh

    return ch.entity_kind_zh(word, "n") or kind_zh(word)


def word_kind_zh(
    word: str, tag: str, before: tuple[str, str] = ("", ""), after: tuple[str, str] = ("", "")
) -> str | None:
    """What one of jieba's words (between the words `before` and `after`) names by the rules of this module (None
    where characters.py reads it already); a substance, a part of the body or a shape (`characters.made_thing_zh`)
    only where a place stands (在礁石里), a made thing never (`_in_place_slot_zh`: 在刷子上)."""
    if ch.entity_kind_zh(word, tag):
        return None
    if tag == "t" and ch.person_tagged_time_zh(word):
        return "role" if _person_not_time(before, after) else None  # 一个青年, 这些青年, 青年们; not 青年时期
    if ch.made_thing_zh(word):
        return _in_place_slot_zh(word, tag, before, after)
    return (
        _cedict_noun_zh(word, tag, before, after)
        or _prefixed_zh(word, tag)
        or _diminutive_zh(word, tag)
        or _erhua_zh(word, tag)
        or _herd_zh(word, tag)
        or _pair_zh(word, tag)
        or (head_kind_zh(word, "n") if _head_tag(word, tag) and not _head_is_verb(word, after) else None)
        or _cedict_head_zh(word, tag, after)
        or _compound_zh(word, tag)
        or _in_place_slot_zh(word, tag, before, after)
        or _in_noun_slot_zh(word, tag, before, after)
    )


def _head_tag(word: str, tag: str) -> bool:
    """Whether jieba's tag lets a word's head make it a noun: a noun's, or a phrase's of three characters ending in
    a strong head (斗牛犬 i)."""
    return tag[:1] == "n" or tag in ("i", "l") and len(word) == 3 and word[-1] in STRONG_HEADS


def _cedict_head_zh(word: str, tag: str, after: tuple[str, str]) -> str | None:
    """盐商, 堂主, 书商: a noun CC-CEDICT lacks that ends in a character most of CC-CEDICT's nouns ending in it are of
    a kind (`entity_classes.cedict_heads_zh`: 商 臣 of roles, 郊 of places), after nouns; a role's head also after one
    character jieba keeps in a noun with it (漆工, 使臣: jieba's dictionary has the word as a noun, CC-CEDICT no verb
    of it), never a verb's head before its object (当官)."""
    from lotdata.text.entity_classes import cedict_heads_zh, in_cedict_zh

    kind = cedict_heads_zh().get(word[-1:])
    if kind is None or tag[:1] != "n" or not 2 <= len(word) <= 4 or word in ch.NOT_ENTITIES_ZH:
        return None
    if in_cedict_zh(word) or _reduplicated(word) or _head_is_verb(word, after):
        return None
    if kind == "role" and len(word) == 2 and word[0] not in ch.VERB_HEADS_ZH:
        return kind  # not a verb and its object (当官)
    return _head_after_nouns(word, (kind,))


#: jieba's tags of a character alone that may still be a noun's stem: a measure word (堂), a morpheme, a modifier
_ODD_NOUN_TAGS = ("q", "g", "ng", "zg", "b")


def _head_after_nouns(word: str, kinds: tuple[str, ...]) -> str | None:
    """The kind of a word CC-CEDICT lacks whose last character is a head of one of `kinds` (`cedict_heads_zh`) after
    nouns (`_noun_stem_zh`): 盐商, 高铁站."""
    from lotdata.text.entity_classes import cedict_heads_zh

    kind = cedict_heads_zh().get(word[-1:])
    return kind if kind in kinds and len(word) >= 2 and _noun_stem_zh(word[:-1]) else None


def _noun_stem_zh(stem: str) -> bool:
    """Whether a stem is nouns only: jieba's (not a name's) or, for one character, one jieba tags a noun (a
    surname's tag included: 布 nr) or a measure word or a bound morpheme where CC-CEDICT reads it first as a noun
    (堂 q "hall"; never a verb: 当, 刨, 游)."""
    from lotdata.text.entity_classes import known_word_zh, verb_first_zh
    from lotdata.text.postag import pos_words_nohmm

    tags = [t for _, t in pos_words_nohmm(stem)] if stem else []
    if not tags:
        return False
    if len(stem) == 1:
        return tags[0][:1] == "n" or tags[0] in _ODD_NOUN_TAGS and known_word_zh(stem) and not verb_first_zh(stem)
    return all(t[:1] == "n" and t not in ("nr", "nrfg", "nrt") for t in tags)


#: jieba's tags of a word that stands in a place's slot and names one: a noun, a place name, a place word (城郊 s),
#: or a word jieba's dictionary lacks and guesses (首尔 d, 戈壁 nr); any other tag where CC-CEDICT's first entry has
#: no verb sense (保定 v, 平遥 a: cities)
_SLOT_TAGS = ("n", "ns", "nr", "nz", "d", "s")


def _in_place_slot_zh(word: str, tag: str, before: tuple[str, str], after: tuple[str, str]) -> str | None:
    """在水井里, 在三峡里, 在首尔里, 在水渠里, 在莲池里: a word in a place's slot (`_place_slot`) is a place where
    jieba tags it a place name (ns), CC-CEDICT's first gloss names one read leniently
    (`entity_classes.place_in_slot_zh`), Cilin reads it as one (`thesaurus_zh.cilin_kind_zh`), or, where neither
    has it, it ends in a place's head (`_slot_head_place_zh`)."""
    from lotdata.text.entity_classes import place_in_slot_zh, verb_word_zh
    from lotdata.text.thesaurus_zh import cilin_artefact_zh, cilin_kind_zh

    if len(word) < 2 or word in ch.NOT_ENTITIES_ZH:
        return None
    if tag == "s" and before[0] in _BEFORE_PLACE and place_in_slot_zh(word):
        return "place"  # 在门口, 到郊外: jieba's place word needs no locative after it
    if not _place_slot(before, after):
        return None
    if tag not in _SLOT_TAGS and (tag in ch._FUNCTION_TAGS or verb_word_zh(word)):
        return None
    if cilin_artefact_zh(word):
        return None  # 在刷子上: Cilin files the brush with tools only (WordNet's first "brush" is a thicket)
    if tag == "ns" or place_in_slot_zh(word) or cilin_kind_zh(word, slot=True) == "place":
        return "place"
    return "place" if _slot_head_place_zh(word) else None


def _in_noun_slot_zh(word: str, tag: str, before: tuple[str, str], after: tuple[str, str]) -> str | None:
    """间谍看到了, 一个向导, 凤凰看到了: a noun with no verb sense where a noun stands (`_noun_place`) is a role
    where CC-CEDICT's first gloss names a person read leniently (`entity_classes.role_in_slot_zh`: "spy", "guide"),
    or the role or animal Cilin reads it as (`thesaurus_zh.cilin_role_or_animal_zh`), a name's tag included."""
    from lotdata.text.entity_classes import role_in_slot_zh, verb_word_zh
    from lotdata.text.thesaurus_zh import cilin_role_or_animal_zh, cilin_role_or_doer_zh

    if tag[:1] != "n" or len(word) < 2 or word in ch.NOT_ENTITIES_ZH or verb_word_zh(word):
        return None
    if not _noun_place(before, after):
        return None
    if role_in_slot_zh(word) or cilin_role_or_doer_zh(word):
        return "role"  # 主管 where a noun stands: the manager
    return cilin_role_or_animal_zh(word)


def _compound_zh(word: str, tag: str) -> str | None:
    """教书先生: a noun of three characters or more that no dictionary has, ending in a noun of two that names a
    role, an animal or a place (CC-CEDICT's first gloss or characters.py's lists), after a stem that is no verb (not
    a name either: jieba's nr is a person's)."""
    from lotdata.text.entity_classes import kind_zh, known_word_zh
    from lotdata.text.postag import pos_words_nohmm

    if len(word) < 3 or tag[:1] != "n" or tag in ("nr", "nrfg", "nrt") or known_word_zh(word):
        return None
    if word in ch.NOT_ENTITIES_ZH or _reduplicated(word) or ch.counted_people_zh(word):
        return None  # 几百 + 人: a count of people names nobody
    stem, last = word[:-2], word[-2:]
    if pos_words_nohmm(stem)[0][1][:1] == "v" or pos_words_nohmm(last)[0][1][:1] != "n":
        return None  # a verb and its object (走亲戚, 横行乡里), or a verb's noun (人员伤亡: 伤亡 "casualties")
    return kind_zh(last) or ch.entity_kind_zh(last, "n")


#: what follows a verb and never a noun: aspect particles and the one-character complements of result and
#: direction (铺满, 铺在, 铺上, 铺开)
_AFTER_VERB = frozenset("了 着 过 满 在 上 下 成 开 到 好 完 住 遍".split())


def _head_is_verb(word: str, after: tuple[str, str]) -> bool:
    """Whether a word's head is a verb of the sentence rather than a noun's head: a character jieba reads alone as
    a verb (铺 "to spread", 贩) followed by an aspect particle or a verb's complement (黄沙铺满了路: 黄沙 + 铺 满,
    not the place name jieba's dictionary has)."""
    from lotdata.text.postag import pos_words_nohmm

    return after[0] in _AFTER_VERB and pos_words_nohmm(word[-1])[0][1][:1] == "v"


def more_entity_words_zh(text: str) -> list[str]:
    """The roles, animals and places of a Chinese text that `characters.entity_words_zh` does not read: jieba's
    words by `word_kind_zh`, and a stem jieba cut from its head (`SPLIT_HEADS`), with a locative glued to the head
    left out (面 + 馆里 -> 面馆)."""
    from lotdata.text.postag import pos_words_nohmm

    tokens = pos_words_nohmm(text)
    found: list[str] = []
    i = 0
    while i < len(tokens):
        word, tag = tokens[i]
        before, after = tokens[i - 1] if i else ("", ""), tokens[i + 1] if i + 1 < len(tokens) else ("", "")
        if word_kind_zh(word, tag, before, after) or word in GENERAL_PEOPLE_ZH or general_animal_zh(word):
            found.append(word)
        elif named := _named_place_zh(tokens, i):
            found.append(named[0])
            i += named[1] - 1
        elif more := _place_home_school_or_ruler_zh(tokens, i):
            found += more[0]
            i += more[1] - 1
        elif _cicada_zh(tokens, i):
            found.append("知了")
            i += 1
        elif i + 1 < len(tokens) and tokens[i + 1] == ("者", "k") and len(word) >= 2 and tag[:1] in "nvlab":
            found.append(word + "者")  # 游泳 + 者, 看门 + 者, 戒烟 + 者: one who does it (jieba's suffix k)
            i += 1
        elif span := _place_span_zh(tokens, i) or _subject_span_zh(tokens, i):
            found.append(span[0])
            i += span[1] - 1
        elif i + 2 < len(tokens) and (joined := _split3_noun_zh(tokens[i : i + 3])):
            found.append(joined)
            i += 2
        elif i + 1 < len(tokens) and (joined := _split_noun_zh(word, tag, *tokens[i + 1])):
            found.append(joined)
            i += 1
        i += 1
    return list(dict.fromkeys(found))


def _cicada_zh(tokens: list[tuple[str, str]], i: int) -> bool:
    """知了 "cicada", which jieba cuts into 知 + 了 ("knew"): read where no one is the subject of knowing, at a
    clause's start, after a place or a time, 的, a measure word or 了 (知了在树上叫, 夏天里知了最快乐, 树上的知了,
    一只知了; not 我知了)."""
    if tokens[i : i + 2] != [("知", "v"), ("了", "ul")]:
        return False
    return not i or tokens[i - 1][1] in ("x", "f", "t", "s", "uj", "q", "m", "ul")


@lru_cache(maxsize=1)
def single_places_zh() -> frozenset[str]:
    """Characters that are a place of their own where a place stands (`_single_place_zh`): the endings and heads of
    places (place_endings_zh.txt, `HEADS`) that CC-CEDICT's first gloss names a place (河 "river", 桥 "bridge", 田
    "field") or that are a story's building (家, 屋, 院), and 村 and 城 (WordNet's first "village" is its people,
    CC-CEDICT's first 城 the city walls); not those more often a measure word, a sphere or a unit (场 一场, 国 国内,
    局, 省, 州, 洲, 室, 区, 口); 池 "pond" too, which ends no place's word (电池 "battery")."""
    from lotdata.text.entity_classes import place_in_slot_zh

    places = {c for c in ch.PLACE_ENDINGS_ZH if len(c) == 1} | {h for h, kind in HEADS.items() if kind == "place"}
    found = {c for c in places if place_in_slot_zh(c)} | {b for b in ch.BUILDINGS_ZH if len(b) == 1}
    return frozenset((found | set("村城池")) - set("场国局省州洲室区口"))


#: verbs of motion (and 在) that take a place as their object in one of jieba's words (上山, 回家, 进城, 过河,
#: 在家; not 出家 "become a monk" nor 下海 "go into business": 出 and 海 after 下 are left out)
_MOTION_HEADS = "上下进回到过入在爬登"
#: places of one character read only glued to a locative (路上, 路边, 地里), with those locatives: alone the word is
#: as often a way or a means (路) or the ground (地上)
_GLUED_PLACES = {"路": "上边旁", "地": "里"}
#: measure words of places after a demonstrative or a numeral (这条街, 一座山, 那间屋)
_PLACE_MEASURES = "座条间片所栋幢"


def _single_place_zh(tokens: list[tuple[str, str]], i: int) -> str | None:
    """A place of one character (`single_places_zh`) where a place stands: in one of jieba's words
    (`_place_in_word_zh`: 河里, 村子, 上山, 她家), a home or a village read by the words around it
    (`_home_or_village_zh`), or alone where a place stands (`_alone_place_zh`)."""
    word, tag = tokens[i]
    if ch.entity_kind_zh(word, tag):
        return None  # 上海, 河里 of a word read whole
    if len(word) == 2:
        own = word == "自家" and _home_one_is_at(tokens, i)  # 自家 "one's own home", not 自家兄弟
        return _place_in_word_zh(word, tag) or _home_in_word_zh(word, tag) or ("家" if own else None)
    if len(word) == 3 and word[1] in "面子" and word[-1] in ch.LOCATIVES_ZH and tag[:1] in "ns":
        return _place_in_word_zh(word[:-1], tag)  # 河面上, 屋子里: a locative glued to jieba's word of two
    if len(word) > 2:
        return _home_in_word_zh(word, tag)
    return _home_or_village_zh(tokens, i) or _alone_place_zh(tokens, i)


#: verbs of going to or leaving a home that jieba keeps in one word with 家 and more (带回家, 回家吧, 离家出走, 离家近)
_HOME_MOVES = ("回家", "离家", "到家")


def _home_in_word_zh(word: str, tag: str) -> str | None:
    """家 inside one of jieba's words of two characters or more: after a verb of going home or leaving it (带回家,
    离家出走), or before 门口 (家门口: the home's door). A role's home (邻居家) is `_holders_home_zh`."""
    if tag in ("nr", "nrt", "nz") or "家" not in word:
        return None
    if any(move in word for move in _HOME_MOVES):
        return "家"
    return word if word.endswith("门口") and word[:-2] in single_places_zh() else None


def _home_or_village_zh(tokens: list[tuple[str, str]], i: int) -> str | None:
    """家 after 的 or its holder (我的家, 小猪 + 家) or jieba's measure word 家 where nothing is counted (回到 + 家。);
    jieba's bound 村 after 老 or before a side (老 + 村, 村 + 西); 路 after a place's measure word (这条 + 路)."""
    word, tag = tokens[i]
    if word == "家" and tag in ("q", "n") and i and (tokens[i - 1][0] == "的" or _home_holder_zh(*tokens[i - 1])):
        return "家"  # 我爱我的家, 往小猪家打电话
    if word == "家" and tag in ("q", "n") and i and _people_pronoun(tokens[i - 1][0]) and _home_one_is_at(tokens, i):
        return "家"  # 你们家着火了, 向自己家跑去; not 我们家有三口人, 我们家的规矩 (the family)
    if word == "家" and tag == "q" and i and tokens[i - 1][0].endswith("在"):
        return "家"  # 正在 + 家 + 玩儿游戏: where one is, whatever noun follows (not a measure word: 在一家)
    if word == "家" and tag == "q" and _uncounted(tokens, i) and not _before_noun(tokens, i) and not _family(tokens, i):
        return "家"  # 回到 + 家。, 无 + 家 + 可回: jieba's measure word where nothing is counted
    if word in single_places_zh() and tag in _BOUND_TAGS and i and tokens[i - 1][0] in _PLACE_MODIFIERS:
        return word  # 老 + 村 (jieba's bound 村 zg): the old village
    if word in _SETTLEMENTS and tag in _BOUND_TAGS and i + 1 < len(tokens) and tokens[i + 1][0][:1] in _SIDES:
        return word  # 村 + 西, 村 + 尾 (jieba's bound 村 zg): a side or an end of the village
    if word in _GLUED_PLACES and tag[:1] == "n" and _after_place_measure(tokens, i):
        return word  # 这条 + 路, 一片 + 地: a road, a field (alone 路 is as often a way)
    return None


def _alone_place_zh(tokens: list[tuple[str, str]], i: int) -> str | None:
    """A place of one character alone before a locative (桥 + 上), after a preposition or verb of place (在/到/过了 +
    桥), after a demonstrative or a numeral and a place's measure word (这条 + 街), or ending a clause after 是 or 的
    (后面是山，)."""
    word, tag = tokens[i]
    after = tokens[i + 1] if i + 1 < len(tokens) else ("", "")
    if word in STANDALONE_PLACES_ZH and tag in _STANDALONE_TAGS and not _piece_of_a_name(tokens, i):
        return word  # 远处的塔、, 海并不是, 村前: a place alone as jieba's noun, bound morpheme or name
    if len(word) != 1 or word not in single_places_zh() or tag[:1] not in "ns":
        return None
    j = i - 1 if i and tokens[i - 1][0] != "了" else i - 2
    before = tokens[j] if j >= 0 else ("", "")
    if after[1] == "f" or after[0] in ("里", "上", "中", "边") or _after_place_measure(tokens, j + 1):
        return word
    if before[0] in ("是", "的") and after[1] == "x":
        return word  # 后面是山，白的屋，: a place of one character alone where a noun ends a clause
    return word if before[0] in _BEFORE_PLACE or before[0] == "过" else None


#: places of one character that name a place wherever jieba leaves them alone as a noun, a bound morpheme or a
#: name (塔 j, 村 zg, 海 n): not those as often a hole, a bridge in a figure, a nest or a verb (洞, 桥, 窝, 站, 铺)
STANDALONE_PLACES_ZH = frozenset("塔村田江洋井巷屋店厅湖海山河潭溪池岛")
#: jieba's tags of such a place alone (its name's tag nr is a surname's as often: 老江, 江明)
_STANDALONE_TAGS = ("n", "ns", "j", "zg", "ng", "g", "ag", "s")
#: common surnames of one character, before which or after which a place's character is a person's name (张 + 海, 何 + 山)
SURNAMES_ZH = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟"
    "谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
#: characters before a surname or after it that make it a person's (老江, 小田, 姓江, 江某, 江家, 田氏)
_NAME_BEFORE = frozenset("老小姓")
_NAME_AFTER = frozenset("某家氏")
#: adverbs jieba tags as a morpheme (山 + 很 + 高): never a piece of a name
_ADVERBS_ZH = frozenset("很真太最挺好更也都就又还可不没却才")


def _piece_of_a_name(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether a character alone at `i` is a piece of a name or of a word jieba cut apart: a surname before a title, a
    role or a name (江 + 老师), or beside one character that is a noun or a morpheme (田 + 仲, 江 + 森, 河 + 螺, 孙 +
    山: names and words no dictionary has), a surname's neighbour (`SURNAMES_ZH`: 张 + 海, 江 + 明, 老江, 江某); a
    locative after it is no piece (塔 + 上, 村 + 前), nor an adverb (山 + 很 + 高), nor a character CC-CEDICT reads
    first as a verb (村 + 成了花园)."""
    from lotdata.text.entity_classes import verb_first_zh

    word = tokens[i][0]
    after = tokens[i + 1] if i + 1 < len(tokens) else ("", "")
    before = tokens[i - 1] if i else ("", "")
    if after[0] in ch.TITLES_ZH or after[1] in ("nr", "nrt") or ch.entity_kind_zh(*after) == "role":
        return True
    if before[0] in _NAME_BEFORE or after[0] in _NAME_AFTER or before[0] in SURNAMES_ZH and before[1] in _NAME_TAGS:
        return True  # 老江, 姓江, 江某, 张 + 海, 何 + 山
    if word in SURNAMES_ZH and len(after[0]) == 1 and after[1] in ("a", "nr", "n", "ng", "zg"):
        return after[0] not in _NO_PIECES  # 江 + 明, 田 + 仲
    piece = [before, after] if not verb_first_zh(after[0]) else [before]  # 村 + 成了花园: a verb is its predicate
    return any(len(w) == 1 and t in _PIECE_TAGS and w not in _NO_PIECES for w, t in piece)


#: jieba's tags of a surname before a given name (张 nr, 何 r, 张 q)
_NAME_TAGS = ("nr", "r", "q", "n")


#: characters beside a place of one character that are no piece of a name: characters.py's positions after a place
#: (村前, 山下, 屋外), its ends and sides (村头, 村东), and adverbs
_NO_PIECES = frozenset(ch._POSITIONS + "头口尾东西南北") | _ADVERBS_ZH


def _uncounted(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether the word at `i` has no numeral, demonstrative, measure word or position before it (一家, 这家, 每家,
    300余家, 18家: jieba tags digits eng; 上家 "the previous player")."""
    before = tokens[i - 1][0] if i else ""
    return not i or tokens[i - 1][1][:1] not in "mrqf" and before[-1:] not in "每各几哪余多" and not before.isdigit()


#: verbs before 家 that make it a family or a move, not a home one is at (有家了 "has a family", 搬 + 完 + 家)
_NOT_AT_HOME = ("有", "完", "成")


def _family(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether 家 at `i` follows a verb that makes it a family or a move (`_NOT_AT_HOME`: 有 + 家, 搬完 + 家)."""
    return bool(i) and tokens[i - 1][0] in _NOT_AT_HOME


def _before_noun(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether a noun, a noun's attribute or a describing phrase and its noun follows the word at `i` (家 + 商店, 家 +
    省级, 家 + 便宜的 + 旅馆: a measure word; not 家 + 的 + 时候, whose 家 owns what follows)."""
    rest = tokens[i + 1 :]
    if not rest or rest[0][0] == "的":
        return False
    if rest[0][1][:1] in ("n", "b"):
        return True
    if not i or tokens[i - 1][1][:1] != "v" and tokens[i - 1][0] != "了":
        return False  # 把家搬到了农家小院的猪圈: only a verb's object counts a 家 (找了 + 家 + 便宜的旅馆)
    clause = list(itertools.takewhile(lambda t: t[1] != "x", rest))
    return any(w == "的" and nxt[1][:1] == "n" for (w, _), nxt in zip(clause, clause[1:]))


#: places of one character that have sides and ends (村东, 城南, 村 + 尾), and those sides and ends
_SETTLEMENTS = "村城"
_DIRECTIONS = "东西南北"
_SIDES = (*_DIRECTIONS, "头", "尾", "口")


def _after_place_measure(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether a place's measure word stands right before the word at `i`, after a demonstrative or a numeral (这条,
    jieba's 一座 m)."""
    before = tokens[i - 1] if i > 0 else ("", "")
    if before[1][:1] == "m":
        return before[0][-1:] in _PLACE_MEASURES
    return before[0] in _PLACE_MEASURES and i >= 2 and tokens[i - 2][1][:1] in ("r", "m")


#: jieba's tags of a bound character (a morpheme)
_BOUND_TAGS = ("zg", "g", "ng")
#: characters that only describe a place of one character before it (老村, 新村, 古城)
_PLACE_MODIFIERS = frozenset("老新古旧")


def _home_holder_zh(word: str, tag: str) -> bool:
    """Whether a word before 家 is whose home it is: a role or an animal (小猪 + 家, 农民 + 家) or a person's name of
    two characters or more."""
    return ch.entity_kind_zh(word, tag) in ("role", "animal") or tag in ("nr", "nrt") and len(word) >= 2


def _people_pronoun(word: str) -> bool:
    return word in ch.PRONOUNS_ZH or word == "自己"


#: verbs after a pronoun's 家 that make it the family, not the home (我们家有三口人, 我们家是农民, 我们家姓王)
_FAMILY_VERBS = frozenset("有 是 姓 没有 就是 都是".split())


def _home_one_is_at(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether 家 at `i`, after a pronoun, is a home something happens at or in: a preposition or verb of place before
    it (在自家住宿), a verb after it (着火, 跑去) but none of having or being (`_FAMILY_VERBS`), a locative, or it ends a
    clause."""
    after = tokens[i + 1] if i + 1 < len(tokens) else ("", "x")
    j = i - 1
    if j >= 0 and _people_pronoun(tokens[j][0]):
        j -= 1  # the word before the pronoun: 来到 + 我们 + 家
    if after[1] in ("x", "f") or after[0] in ch.LOCATIVES_ZH or j >= 0 and tokens[j][0] in _BEFORE_PLACE:
        return True
    return after[1][:1] == "v" and after[0] not in _FAMILY_VERBS


def _place_in_word_zh(word: str, tag: str) -> str | None:
    """A place of one character inside one of jieba's words of two: glued to a locative (河里, 家里, 街上), its end
    or the way into it (村头, 洞口), with its noun suffix (村子, 院子), after a verb of motion (上山, 回家, 进城), a
    person's home (她家), the road where one is (路上, 路边)."""
    from lotdata.text.entity_classes import head_zh

    places = single_places_zh()
    if tag in ("nr", "nrt", "nz") or (head_zh(word) or ("",))[0].startswith("="):
        return None  # a name: 河内 Hanoi, 村上 Murakami
    noun = tag[:1] in "nsf"
    if noun and word[0] in places and word[1] in "里上中内边旁":
        return word[0]  # 河里, 井边
    if noun and word[0] in places and word[1] in "头口尾" and word[0] != "家":
        return word  # 村头, 村口, 桥头 (not 家口 "family members")
    if word[1] == "家" and word[0] in "我你他她咱" and tag == "r":
        return "家"  # 在她家吃饭: the home of a person the pronoun names
    if side_or_surface := _side_or_surface_zh(word, tag):
        return side_or_surface
    if noun and word[1] in _GLUED_PLACES.get(word[0], ""):
        return word[0]  # 路上, 路边, 地里: the road where one is, not the way of 无路, 出路, 人生的路
    if word[0] == "满" and word[1] in places and tag[:1] in "nsa":
        return word[1]  # 满屋, 满山: the whole room, the whole hill
    if word[1] == "子" and word[0] in places and tag[:1] == "n":
        return word  # 村子, 院子, 铺子
    if word[1] in places and word[0] in _MOTION_HEADS and word not in ("下海", "上家", "下家", "上铺", "下铺"):
        return word[1]  # not 下海 "go into business", 上家 "the previous player", 上铺 "the upper bunk"
    return None


def _place_home_school_or_ruler_zh(tokens: list[tuple[str, str]], i: int) -> tuple[list[str], int] | None:
    """The words read at `i`, and how many of jieba's words they take: a place of one character (`_single_place_zh`),
    a role's home (`_holders_home_zh`: 邻居家), a school one attends (`_school_attended_zh`: 上 + 小学), a ruler jieba
    cut apart (`_ruler_zh`: 齐 + 王)."""
    word, tag = tokens[i]
    if single := _single_place_zh(tokens, i):
        return [single], 1
    if home := _holders_home_zh(word, tag):
        return list(home), 1
    if _school_attended_zh(tokens, i):
        return [word], 1
    ruler = _ruler_zh(tokens, i)
    return ([ruler], 2) if ruler else None


def _holders_home_zh(word: str, tag: str) -> tuple[str, str] | None:
    """邻居家, 外婆家: a word jieba keeps whole, CC-CEDICT lacks, of a role and 家: the role and its home (not 老人家
    nor 姑娘家, words CC-CEDICT has for the person)."""
    from lotdata.text.entity_classes import in_cedict_zh

    if len(word) < 3 or not word.endswith("家") or tag[:1] != "n" or in_cedict_zh(word):
        return None
    stem = word[:-1]
    if len(stem) >= 3 and stem.endswith("人") or stem.endswith("孩子"):
        return None  # 大户人家, 普通人家 (a household), 女孩子家 ("as a girl")
    return (stem, "家") if ch.entity_kind_zh(stem, "n") == "role" else None


#: titles of a ruler or a lord after a state or a surname of one character (齐 + 王, 吴 + 王, 徐 + 公)
_RULERS = ("王", "公")


def _ruler_zh(tokens: list[tuple[str, str]], i: int) -> str | None:
    """齐王, 吴王, 徐公, which jieba cuts into two characters: a ruler or a lord named by a state or a surname, where
    the first is jieba's name, adjective or noun, but no verb jieba tags a noun (问 + 王僧虔), and 老 + 王 and 小 + 王
    are a person's names (老王, 小王)."""
    from lotdata.text.entity_classes import verb_first_zh

    word, tag = tokens[i]
    after = tokens[i + 1] if i + 1 < len(tokens) else ("", "")
    if len(word) != 1 or word in "老小大" or tag not in ("nr", "a", "ns", "j", "n", "ng"):
        return None
    if tag == "n" and verb_first_zh(word):
        return None  # 问 + 王僧虔: jieba's noun 问 is the verb "to ask" before a name
    if after[0] not in _RULERS or after[1] not in ("nr", "n"):
        return None
    rest = tokens[i + 2] if i + 2 < len(tokens) else ("", "x")
    given = len(rest[0]) == 1 and rest[1] in ("a", "nr", "n", "ng", "zg") and not verb_first_zh(rest[0])
    if rest[1][:1] == "m" or given:
        return None  # 班 + 王 + 强 (王强 cut apart), 李 + 王 + 两家 (two surnames); not 齐王 + 问
    return word + after[0]


#: schools one attends (上小学, 在读小学, 考上大学), and the verbs of attending or going to them
SCHOOLS_ZH = frozenset("小学 中学 大学 高中 初中 幼儿园 学校 中专 大专 技校".split())
_ATTENDING = frozenset("上 读 在读 念 考上 考进 考入 进入 来到 回到 去 到 进".split())


def _school_attended_zh(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether the word at `i` is a school one attends or goes to, after a verb of it (上 + 小学, 读 + 大学): a place
    there (the annotators mark it so); elsewhere a school is as often the institution (学校减少了)."""
    word = tokens[i][0]
    if word not in SCHOOLS_ZH or not i or tokens[i - 1][0] not in _ATTENDING:
        return False
    return not (tokens[i - 1][0] == "到" and any(w == "从" for w, _ in tokens[max(0, i - 4) : i - 1]))  # 从小学到大学


def _side_or_surface_zh(word: str, tag: str) -> str | None:
    """山下, 屋外, 屋前 (jieba's place word of a place of one character and a side of it): the place; 村东, 城南 (a side
    of the village or the town) and 河面, 湖面 (the surface of a water; 水面 is any water's): places of their own."""
    if tag == "s" and word[0] in single_places_zh() and word[1] in "下外前后" and word not in ch.NOT_ENTITIES_ZH:
        return word[0]  # not 海外 "abroad"
    if tag[:1] in "nsf" and word[0] in _SETTLEMENTS and word[1] in _DIRECTIONS:
        return word
    return word if word[1] == "面" and word[0] in _WATERS else None


#: waters whose surface (河面, 湖面, 海面, 江面) is a place
_WATERS = "河湖海江"


#: general words of an area jieba glues to a place's name (北京地区, 北京郊区, 长江一带)
_AREA_SUFFIXES = ("地区", "郊区", "市区", "城区", "一带", "境内", "附近")


def _named_area_zh(word: str, tag: str) -> str | None:
    """北京地区, 北京郊区 -> 北京: a place name jieba keeps whole with a general word of an area after it, where the
    name alone is read as a place (the name is what a story would have named)."""
    suffix = next((end for end in _AREA_SUFFIXES if word.endswith(end) and len(word) > len(end)), None)
    name = word[: -len(suffix)] if suffix else ""
    return name if name and tag[:1] in "ns" and ch.entity_kind_zh(name, "ns") == "place" else None


def _named_place_zh(tokens: list[tuple[str, str]], i: int) -> tuple[str, int] | None:
    """A place's name read with the words around it, and how many of jieba's words it takes: a named area
    (`_named_area_zh`: 北京地区), a city's name before 市 (`_named_city_zh`), an ancient state (`_state_zh`)."""
    word, tag = tokens[i]
    after = tokens[i + 1] if i + 1 < len(tokens) else ("", "")
    area = _named_area_zh(word, tag) or _named_city_zh(word, after)
    return (area, 1) if area else _state_zh(tokens, i)


def _named_city_zh(word: str, after: tuple[str, str]) -> str | None:
    """首尔 + 市: a place's name CC-CEDICT glosses as one before a division (市, 省, 县), whatever jieba's tag of the
    name (首尔 d)."""
    from lotdata.text.entity_classes import head_zh

    named = len(word) >= 2 and after[0] in ("市", "省", "县") and (head_zh(word) or ("",))[0].startswith("=")
    return word if named and head_zh(word)[1] == "place" else None


#: jieba's tags that end a place's span: marks, prepositions, conjunctions, particles, pronouns, numerals and measure
#: words (an adverb, a locative or a verb may be a piece jieba cut: 都 + 城里, 前 + 院里, 高铁 + 站)
_SPAN_STOP_TAGS = ("x", "p", "c", "r", "m", "q", "y", "e", "o", "u", "uj", "ul", "uv", "ud", "ug", "uz")


def _place_span_zh(tokens: list[tuple[str, str]], i: int) -> tuple[str, int] | None:
    """A place jieba cut into pieces in a place's slot (`_place_slot`): 在 + 唐 + 山里, 在 + 偏 + 房里, 在 + 岳 + 阳 +
    里: the pieces from `tokens[i]` up to the locative, two before a locative of its own, two or three where jieba
    glued the locative to the last, joined into one place (`_slot_place_zh`). Returns (the place, how many tokens
    it took)."""
    if not i or tokens[i - 1][0] not in _BEFORE_PLACE:
        return None
    span, first = "", tokens[i]
    for k in range(i, min(i + 3, len(tokens))):
        word, tag = tokens[k]
        if k > i and (tag == "f" or word in ch.LOCATIVES_ZH):
            return (span, k - i) if k - i >= 2 and _slot_place_zh(span, first) else None
        if word in ch.LOCATIVES_ZH:
            return None
        if len(word) >= 2 and word[-1] in ch.LOCATIVES_ZH and tag[:1] in "sn":  # 山里, 房里, 店里: the locative glued
            span += word[:-1]
            return (span, k - i + 1) if k > i and _slot_place_zh(span, first) else None
        if tag in _SPAN_STOP_TAGS:
            return None
        span += word
    return None


def _slot_place_zh(span: str, first: tuple[str, str]) -> bool:
    """Whether the joined pieces of `_place_span_zh` are one place: one CC-CEDICT has (a name of two characters or
    more) whose first gloss names a place read leniently, one Cilin reads as a place, or a word neither has ending
    in a place's head after nouns (高铁 + 站: `_head_after_nouns`) or, where the first piece (`first`: jieba's word
    and tag) is no verb by jieba's tag or CC-CEDICT's first sense, after any stem (金 + 店里, `_slot_head_place_zh`;
    not 问 + 森林)."""
    from lotdata.text.entity_classes import in_cedict_zh, place_in_slot_zh, verb_first_zh
    from lotdata.text.thesaurus_zh import cilin_kind_zh, in_cilin_zh

    if not 2 <= len(span) <= 4 or span in ch.NOT_ENTITIES_ZH:
        return False
    if in_cedict_zh(span):
        return place_in_slot_zh(span)
    if in_cilin_zh(span):
        return cilin_kind_zh(span, slot=True) == "place"
    if _head_after_nouns(span, ("place",)):
        return True
    return not (first[1].startswith("v") or verb_first_zh(first[0])) and _slot_head_place_zh(span)


def _slot_head_place_zh(word: str) -> bool:
    """Whether a word no dictionary has, standing where a place stands (在莲池里, 在灵 + 泉里), ends in a place's
    head: a character CC-CEDICT glosses alone as a place, read leniently (泉 "spring", 池, 潭, 道 "road"), or one most
    of CC-CEDICT's nouns ending in it are places (`entity_classes.cedict_heads_zh`: 店, 馆), or a place's ending of
    characters.py's lists (城, 堂). The slot is the evidence a stem of any kind may carry it (a name's, a morpheme's)."""
    from lotdata.text.entity_classes import cedict_heads_zh, in_cedict_zh, place_in_slot_zh

    if not 2 <= len(word) <= 5 or word in ch.NOT_ENTITIES_ZH or _reduplicated(word):
        return False
    if _in_a_dictionary(word):
        return False  # a dictionary's reading of the whole word decides (`_in_place_slot_zh`)
    last = word[-2:]
    if len(word) > 2 and in_cedict_zh(last) and not place_in_slot_zh(last):
        return False  # the head ends another word (新闻 + 报道, 消化 + 管道)
    head = word[-1]
    return place_in_slot_zh(head) or cedict_heads_zh().get(head) == "place" or head in ch.PLACE_ENDINGS_ZH


def _subject_span_zh(tokens: list[tuple[str, str]], i: int) -> tuple[str, int] | None:
    """A role or an animal no dictionary has that jieba cut into pieces, standing as a clause's subject
    (`_subject_slot`): 妖 + 王看到了. Two or three pieces from `tokens[i]`, the last one character that heads roles
    or animals (characters.py's role endings, `entity_classes.cedict_heads_zh`'s role and animal heads; never 人 or
    者, nor a verb first), the others nouns, morphemes or modifiers (`_SUBJECT_TAGS`). Returns (the word, how many
    tokens it took)."""
    from lotdata.text.entity_classes import cedict_heads_zh, verb_first_zh

    before = tokens[i - 1] if i else ("", "")
    for n in (2, 3):
        pieces, after = tokens[i : i + n], tokens[i + n] if i + n < len(tokens) else ("", "")
        if (
            len(pieces) < n
            or not _subject_slot(before, after)
            or not all(t.startswith(_SUBJECT_TAGS) for _, t in pieces)
        ):
            continue
        head = pieces[-1][0]
        joined = "".join(w for w, _ in pieces)
        if len(head) != 1 or not 2 <= len(joined) <= 4 or joined in ch.NOT_ENTITIES_ZH or _reduplicated(joined):
            continue
        if _in_a_dictionary(joined):
            continue  # a dictionary's reading decides
        if head in _COMMON_HEADS or verb_first_zh(head):
            continue  # 没 + 人, 让 + 人, 一旦 + 使: a word of its own
        if head in ch.ROLE_ENDINGS_ZH or cedict_heads_zh().get(head) in ("role", "animal"):
            return joined, n
    return None


#: jieba's tags of a subject's pieces (`_subject_span_zh`): nouns, morphemes, adjectives and modifiers, never a verb
#: or an adverb before a head (派 + 人, 太 + 让人)
_SUBJECT_TAGS = ("n", "g", "zg", "j", "b", "a", "k")
#: heads too often a word of their own after a subject's modifier: 人 (没人, 有人), 者 (小者 "the small ones")
_COMMON_HEADS = frozenset("人者")


def _in_a_dictionary(word: str) -> bool:
    """Whether CC-CEDICT or Cilin has the word: then its reading decides, not a head."""
    from lotdata.text.entity_classes import in_cedict_zh
    from lotdata.text.thesaurus_zh import in_cilin_zh

    return in_cedict_zh(word) or in_cilin_zh(word)


def _split3_noun_zh(tokens: list[tuple[str, str]]) -> str | None:
    """A noun jieba cut into three characters: a verb and its object before a role's head (送 + 奶 + 工), or a word
    CC-CEDICT has as a noun (小 + 矮 + 人)."""
    (first, tag1), (second, tag2), (head, head_tag) = tokens
    if len(first) != 1 or len(second) != 1 or len(head) != 1 or head_tag[:1] in "vu":
        return None
    if any(tag in ch._FUNCTION_TAGS for tag in (tag1, tag2, head_tag)):
        return None
    joined = first + second + head
    if _known_noun_zh(joined):
        return joined
    return _split_noun_zh(first + second, "v", head, head_tag) if _verb_object(first + second) else None


def _verb_object(stem: str) -> bool:
    """赶车, 送奶, 养蜂: two characters, a verb and a noun: the first a verb by its first sense in CC-CEDICT, the second
    a noun by its first sense and jieba's tag (刺激, 欺负: two verbs; 低于: a verb and a preposition; 聘冯: a name)."""
    from lotdata.text.entity_classes import known_word_zh, verb_first_zh
    from lotdata.text.postag import pos_words_nohmm

    if len(stem) != 2 or not verb_first_zh(stem[0]) or not known_word_zh(stem[1]) or verb_first_zh(stem[1]):
        return False
    tag = pos_words_nohmm(stem[1])[0][1]
    return tag not in ch._FUNCTION_TAGS and tag[:1] not in "vpu" and tag not in ("nr", "nrfg", "nrt")


def _whole_verb(stem: str) -> bool:
    """Whether a verb stem is a whole verb rather than a verb and its object that a role's head binds (采茶 + 女,
    洗衣 + 妇): CC-CEDICT reads it first as a verb ("to believe": 相信, 认为, 觉得, which take a clause, 相信 + 师旷)
    and its characters are no verb and its object (`_verb_object`: 赶车 is one)."""
    from lotdata.text.entity_classes import verb_first_zh

    return verb_first_zh(stem) and not _verb_object(stem)


#: words of people that make a role after the field they work in (科技人员 is jieba's one word, 医疗 + 人员 two)
_PERSONNEL = ("人员", "人士")
#: jieba's tags of a field: a noun, a verb's noun (服务 vn), an abbreviation (环保 j)
_FIELD_TAGS = ("n", "vn", "nz", "j")


def _split_noun_zh(stem: str, tag: str, head: str, head_tag: str) -> str | None:
    """A noun jieba cut into a stem and its head (糕点 + 师, 茶 + 童, 面 + 馆里): the stem a noun (or, before a role's
    head, a verb and its object: 采茶 + 女), the head a bound character (`SPLIT_HEADS`) jieba does not read as a
    verb (门口 + 站) or a function word; a locative glued to the head is left out. 人员 and 人士 after a field
    make its personnel (`_PERSONNEL`)."""
    from lotdata.text.entity_classes import known_word_zh

    if head in _PERSONNEL:  # 医疗 + 人员, 服务 + 人员, 环保 + 人士: the personnel of a field (not 造成 + 人员伤亡)
        return stem + head if tag in _FIELD_TAGS and stem not in ch.NOT_ENTITIES_ZH else None
    if found := _scientist_zh(stem, tag, head):
        return found
    if len(head) == 2 and head[1] in ch.LOCATIVES_ZH:
        head = head[0]
    if len(head) != 1 or head_tag[:1] in "vu" or head_tag in ch._FUNCTION_TAGS or tag in ch._FUNCTION_TAGS:
        return None
    joined = stem + head
    if _reduplicated(joined):
        return None
    if head not in SPLIT_HEADS:
        return joined if len(stem) == 1 and _bound_pair(tag, head_tag) and _bound_noun_zh(joined) else None
    if known_word_zh(joined) and tag not in ch._FUNCTION_TAGS:  # a word CC-CEDICT has (树 + 屋, 柴 + 犬)
        return joined if head_kind_zh(joined, tag, SPLIT_HEADS) else None
    nominal = (tag[:1] == "n" and tag not in ("nr", "nrfg", "nrt") or tag == "j") and _stem_fits(stem, head)
    verbal = tag[:1] == "v" and len(stem) >= 2 and SPLIT_HEADS[head] == "role" and not _whole_verb(stem)
    verbal = verbal and head not in _NOUN_HEADS  # 分好 + 队: lining up
    if head == "人":  # only after a verb and its object (赶车 + 人, 养蜂 + 人), never after a verb (欺负 + 人)
        return joined if tag[:1] == "v" and _verb_object(stem) and not known_word_zh(joined) else None
    if not (nominal or verbal) or ch.entity_kind_zh(stem, tag):
        return None
    return joined if head_kind_zh(joined, "n" if nominal else tag, SPLIT_HEADS) else None


def _scientist_zh(stem: str, tag: str, head: str) -> str | None:
    """流行病学 + 家: a scientist of a field (jieba's measure word 家; not 北京大学 nt + 家)."""
    if head == "家" and len(stem) >= 3 and stem[-1] == "学" and tag == "n":
        return stem + head
    return None


def _state_zh(tokens: list[tuple[str, str]], i: int) -> tuple[str, int] | None:
    """An ancient state named by one character, and how many of jieba's words it takes: jieba's place name X国 (虞国,
    whose 虞 is also "to expect": not a verb and its object) or a name's character + 国 (虢 + 国); never where a
    character follows that makes it a person's name (许国 + 强, 郭 + 国 + 栋); not a verb CC-CEDICT has (回国)."""
    from lotdata.text.entity_classes import verb_word_zh

    word, tag = tokens[i]
    if (
        len(word) == 2
        and word[1] == "国"
        and tag == "ns"
        and not verb_word_zh(word)
        and not ch.entity_kind_zh(word, tag)
    ):
        found = (word, 1)
    elif len(word) == 1 and tag in ("nr", "ns", "j") and tokens[i + 1 : i + 2] == [("国", "n")]:
        found = (word + "国", 2)
    else:
        return None
    after = tokens[i + found[1]] if i + found[1] < len(tokens) else ("", "x")
    named = after[1] in _STATE_ENDS or after[0] in ("是", "和", "与") or after[1][:1] == "n" and len(after[0]) > 1
    return found if named else None


#: what may follow a state's name and never a person's given name: marks, 的, prepositions, conjunctions, locatives
#: (and a noun of two characters or more: 虢国 + 国君)
_STATE_ENDS = ("x", "uj", "p", "c", "f", "ul", "y")


#: role heads read only after a noun of two characters or more (捕鲸 + 队; not 分好 + 队, 站 + 成 + 队)
_NOUN_HEADS = "队"


def _stem_fits(stem: str, head: str) -> bool:
    """Whether a stem is long enough for its head: two characters or more before `_NOUN_HEADS` (not 成 + 队)."""
    return head not in _NOUN_HEADS or len(stem) >= 2


#: jieba's tags of a character it cut off a word it does not know: a morpheme, a name's or a noun's (闺 + 蜜, 阿 + 嬷,
#: 鮟 + 鱇); not an adjective before a noun, most often a phrase of two words (大 + 汗 "heavy sweat")
_PIECE_TAGS = ("g", "ng", "b", "zg", "n", "nr", "j")


def _bound_pair(tag: str, head_tag: str) -> bool:
    """Whether two characters jieba cut apart may be one word: the head a bound morpheme (大 + 副, 猎 + 隼), or both
    pieces of the kinds jieba gives the characters of a word it does not know (`_PIECE_TAGS`)."""
    return head_tag in ("g", "ng", "b") or tag in _PIECE_TAGS and head_tag in _PIECE_TAGS


def _bound_noun_zh(joined: str) -> bool:
    """Whether two characters jieba cut apart are one noun naming a role, an animal or a place: one CC-CEDICT has
    (大 + 副, 猎 + 隼, 闺 + 蜜, 鼩 + 鼱 "shrew (zoology)"), one it lacks that Cilin reads as a role or an animal (阿 +
    姐; its places only in a place's slot), or one neither has ending in a role's or a place's head CC-CEDICT's nouns
    give (众 + 臣, 翼 + 楼: `_head_after_nouns`; an animal's character names one alone, and joins words that are two:
    猴哥 + 猴)."""
    from lotdata.text.entity_classes import in_cedict_zh
    from lotdata.text.thesaurus_zh import cilin_role_or_animal_zh

    if in_cedict_zh(joined):
        return _known_noun_zh(joined)
    return bool(cilin_role_or_animal_zh(joined) or _head_after_nouns(joined, ("role", "place")))


def _known_noun_zh(word: str) -> bool:
    """A word CC-CEDICT has, with no verb sense, that names a role, an animal or a place by its first gloss (not a
    name, nor a head too general: `entity_classes.GENERAL_HEADS`)."""
    from lotdata.text.entity_classes import head_zh, verb_word_zh

    found = head_zh(word)
    if not found or found[0].startswith("=") and found[0] not in _NOTE_KINDS:
        return False
    return not verb_word_zh(word) and word not in ch.NOT_ENTITIES_ZH


#: what `entity_classes.gloss_head` gives a gloss whose domain note says the kind (鼩鼱 "shrew (zoology)"): no name
_NOTE_KINDS = frozenset({"=animal", "=place"})


def _has_building(given: str) -> bool:
    """Whether a story names a building its rooms can be in (characters.BUILDINGS_ZH), read by its words: 家 alone,
    家里, 回家, 娘家, not 大家, 国家 or 专家; the longer buildings (房子, 学校) anywhere."""
    from lotdata.text.postag import pos_words_nohmm

    if any(building in given for building in ch.BUILDINGS_ZH if len(building) > 1):
        return True
    short = "".join(b for b in ch.BUILDINGS_ZH if len(b) == 1)
    for word, tag in pos_words_nohmm(given):
        bare = word[:-1] if len(word) > 1 and word[-1] in ch.LOCATIVES_ZH else word
        if bare in short or bare[:1] in short and tag[:1] in "nsf" and not ch.entity_kind_zh(word, tag):
            return True  # 家, 家里, 楼上, 屋子, 院子
        if len(bare) == 2 and bare[1] in short and (tag[:1] == "v" or bare[0] in ch.VERB_HEADS_ZH or bare[0] in "在离"):
            return True  # 回家, 到家, 在家, 进屋
        if len(bare) >= 2 and bare[-1] in short and ch.entity_kind_zh(bare, "n") == "place":
            return True  # 农家, 宫殿 (a place by its ending: 宾馆, 饭店)
    return False


#: people in general, nouns all the same (LOT 2.2a: "all the things, roles, and places" of a candidate are in the
#: story): new only to a story that names no people (`known_zh`); 大家, 别人, 有人 are pronouns (not_entities_zh.txt)
GENERAL_PEOPLE_ZH = frozenset(
    "人们 人类 百姓 老百姓 人民 群众 人群 民众 公众 世人 众人 民族 中华民族 少数民族 女性 男性 人员".split()
)
#: animals in general: new only to a story that names no animal
GENERAL_ANIMALS_ZH = frozenset({"动物", "冷血动物", "温血动物"})
#: CC-CEDICT's glosses of animals in general (哺乳动物 "mammal", 爬行动物 "reptile")
_GENERAL_ANIMAL_GLOSSES = frozenset("animal animals mammal mammals reptile reptiles amphibian amphibians".split())


def general_animal_zh(word: str) -> bool:
    """Whether a word names animals in general: 动物 and 冷血动物, or a word of two characters or more whose first
    CC-CEDICT gloss is a class of them in one word (哺乳动物 "mammal"; not 海兽 "sea animal", a kind of its own)."""
    from lotdata.text.entity_classes import first_gloss_zh

    return word in GENERAL_ANIMALS_ZH or len(word) > 1 and first_gloss_zh(word).lower() in _GENERAL_ANIMAL_GLOSSES


#: where a story's people come from (家乡 "hometown", 家园 "homeland"): a place, but one every story has (its people's
#: home); they were listed as none before they were read (故乡 stays a place a story may lack, as before)
HOMELANDS_ZH = frozenset("家乡 家园".split())


def _names_building_zh(given_words: set[str], char: str) -> bool:
    """Whether a story's words (`characters.given_words_zh`) hold a building's character (家, 屋) in a word that is
    not a pronoun's, a country's, nor the ending of a role: 回家, 家里, 家人, 邻居家, 屋顶 count; 大家, 人家, 专家,
    作家, 国家 do not."""
    for word in given_words:
        if char not in word or word in ch.NOT_ENTITIES_ZH or word in _NOT_A_HOME:
            continue
        if not (word.endswith(char) and len(word) > 1 and ch.entity_kind_zh(word, "n") == "role"):
            return True  # not the role ending of 专家, 作家 (家人 and 家长 have a home)
    return False


#: words with 家 that name no home of the story (a country: 国家)
_NOT_A_HOME = frozenset({"国家", "家伙"})


def known_zh(word: str, given: str, given_words: set[str]) -> bool:
    """`characters.known_zh` with a room's building read by the story's words (`_has_building`): 卧室 in a story
    that says 大家 is a new place, in one that says 回家 a room of that home. People in general are known to a story
    with 人 or a plural 们 in it, animals in general to one with an animal, its people's home to every story."""
    if word in HOMELANDS_ZH:
        return True
    if word in GENERAL_PEOPLE_ZH:
        if "人" in given or "们" in given or any(other in given for other in GENERAL_PEOPLE_ZH):
            return True
        return bool(ch.zh_names(given)) or any(ch.entity_kind_zh(w, "n") == "role" for w in given_words)
    if general_animal_zh(word):  # the story's animals are in its words by their character (马虎 is one word)
        return word in given or any(len(w) == 1 and ch._animal_char(w) for w in given_words)
    if word in single_places_zh():  # 家 where the story says 回家 or 家里, not 大家; 河 where it says 小河 or 河水
        return _names_building_zh(given_words, word) if word in ch.BUILDINGS_ZH else word in given
    if word[-1] in ch.ROOM_ENDINGS_ZH and not _has_building(given):
        short = {building for building in ch.BUILDINGS_ZH if len(building) == 1}
        return ch.known_zh(word, "".join(c for c in given if c not in short), given_words)
    return ch.known_zh(word, given, given_words)


def entity_words_in_zh(text: str) -> list[str]:
    """The roles, animals and places the rule reads in a Chinese text: `characters.entity_words_zh` and
    `more_entity_words_zh`, a place of one character left out where places read with it hold it wherever it stands
    (地洞 and 洞口, not 洞; but 家 beside the role 家长, 河 beside the animal 河马), and none that stands only in a
    work's title (《尚书》) or only as the world in general (地球上, `_WORLDS`)."""
    found = [*ch.entity_words_zh(text), *more_entity_words_zh(text)]
    titles = [m.group() for m in _TITLE.finditer(text)]
    found = [w for w in found if not (titles and _always_held(text, w, titles))]
    found = [w for w in found if not (w in _WORLDS and _always_generic(text, w))]
    places = single_places_zh()
    holders = [o for o in found if len(o) > 1 and _kind_of_zh(o) not in ("role", "animal")]
    return [w for w in found if w not in places or not _always_held(text, w, holders)]


#: the earth, a place where one goes or looks at it (重返地球, 看地球), but the world in general on it or before a
#: noun it describes (地球上最聪明的动物 "the cleverest animal on earth", 保护地球生态环境)
_WORLDS = frozenset({"地球"})


def _always_generic(text: str, word: str) -> bool:
    """Whether every time `word` stands in `text` a locative 上 or a noun of two characters or more follows it (地球上,
    地球生态环境; not jieba's noun 飞 of 绕着地球飞), and no verb of place before it (来到了地球上)."""
    from lotdata.text.postag import pos_words_nohmm

    tokens = pos_words_nohmm(text)
    at = [i for i, (w, _) in enumerate(tokens) if w == word]
    if any(_after_place_verb(tokens, i) for i in at):
        return False  # 来到了地球上, 降落在地球上: where one goes
    after = [tokens[i + 1] if i + 1 < len(tokens) else ("", "") for i in at]
    return bool(after) and all(a[0] == "上" or a[1][:1] in ("n", "l") and len(a[0]) > 1 for a in after)


def _after_place_verb(tokens: list[tuple[str, str]], i: int) -> bool:
    """Whether a verb of arriving stands before the word at `i`, a 了 or 在 between them allowed (来到了 + 地球, 降落 +
    在 + 地球; not 在地球上 alone, "on earth")."""
    j = i - 2 if i >= 2 and tokens[i - 1][0] in ("了", "在") else i - 1
    return j >= 0 and tokens[j][0] in _ARRIVALS


#: verbs of arriving somewhere
_ARRIVALS = frozenset("来到 回到 到达 抵达 飞到 飞回 返回 重返 降落 落到 登陆".split())


#: the title of a book, a song or a film (《尚书》): what it names is no one and nowhere of the story
_TITLE = re.compile(r"《[^《》]*》")


def _always_held(text: str, word: str, holders: list[str]) -> bool:
    """Whether every place `word` stands in `text` is inside one of `holders` (洞 of 地洞 and 洞口; not 村 of 新村 where
    the text also says 老 + 村)."""
    covered = {k for h in holders if word in h for at in word_starts(text, h) for k in range(at, at + len(h))}
    return all(at in covered for at in word_starts(text, word))


def word_starts(text: str, word: str) -> list[int]:
    """Where a word starts in a text, every time (none for an empty word)."""
    found, at = [], text.find(word) if word else -1
    while at >= 0:
        found.append(at)
        at = text.find(word, at + 1)
    return found


def new_entities_zh(candidate: str, given: str) -> list[str]:
    """`characters.new_entities` in Chinese with the words of `more_entity_words_zh` and `known_zh`: the roles,
    animals and places of a candidate that `given` (the story and the original sentence) does not name."""
    found = entity_words_in_zh(candidate)
    return ch.unknown_entities_zh(candidate, given, found, known_zh)
