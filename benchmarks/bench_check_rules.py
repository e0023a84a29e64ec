"""Every check rule's false-alarm rate on real accepted data and its recall on planted violations, on a tuning set and
a held-out set kept apart (issue 34 item 1; DESIGN.md, "How a gate earns trust").

    .venv/bin/python benchmarks/bench_check_rules.py [--out bench/check_rules.md] [--planted 300]
    .venv/bin/python benchmarks/bench_check_rules.py --rule context_entities [--lang en]   # printed, nothing written

The sets are `benchmarks/check_rule_data.py`'s (real published rows shaped as each rule's input). For each built-in
rule (`lotdata.annotate.checks.CHECK_RULE_REGISTRY`, run as it is now: re-running picks up any change to a rule):

- false alarms: the share of real rows the rule flags (every row is published, accepted data; a flag is a false
  alarm by that convention), with the default options (the published data's conventions) and, for the rules the
  option changes, with `strict_paper` (the papers' letter);
- planted recall: up to `--planted` rows the rule passes, drawn with a fixed seed, each given one violation of that
  rule by a program (`PLANTERS` below: a sentence dropped, a final mark removed, a sentence run past the limit, a
  quotation, a word of the informal lexicon, a field in the other language, a one-word-edited copy, an ending from
  another story, the two endings the same, an ending of two sentences, a rewrite 100+ longer, a mark outside the
  allowed set, a role or place the story does not have; English: a role, an animal or another case's protagonist's
  name), and the share the rule catches;
- blind recall, where a held-out figure stopped being blind (its plants were read or its list used while the rule was
  fixed): a list written and committed before its only run, planted on held-out rows no other figure used, shown as
  a row of its own (antonym_swap zh: `BLIND_ANTONYMS_ZH`; context_entities: `context_entities_blind_zh.txt`, a
  second list, `context_entities_blind2_zh.txt`, written before the CC-CEDICT/WordNet class lexicon: fields
  `blind2_*`, and a third, `context_entities_blind3_zh.txt`, written before the noun-head change
  (`lotdata.text.entities_zh`): fields `blind3_*`, and a fourth, `context_entities_blind4_zh.txt`, written before the
  place-slot and WordNet-roots change of 2026-11-27: fields `blind4_*`, and a fifth, `context_entities_blind5_zh.txt`,
  written before the radical change of 2026-11-27: fields `blind5_*`, and a sixth, `context_entities_blind6_zh.txt`,
  written before the Cilin change of 2026-11-27: fields `blind6_*`, and a seventh, `context_entities_blind7_zh.txt`,
  written after it and run once: fields `blind7_*`, and an eighth, `context_entities_blind8_zh.txt`, written with dev
  list 5 before the slot-head change of 2026-11-27: fields `blind8_*`, and a ninth, `context_entities_blind9_zh.txt`,
  written after it and run once: fields `blind9_*`). `--no-blind` (with `--rule`, nothing
  written) leaves the blind lists unplanted, for diagnoses.

A measure is "deciding" where the data was written under the rule's instruction (English stories and cases for the
ROCStories / Story Cloze rules; Chinese text for language, informal and LOT's rules); the others are proxies (Chinese
five-sentence runs of children's stories were not written under ROCStories' instructions) and are shown but do not
set the level. A rule whose false-alarm rate on a deciding held-out set is above `WARN_ABOVE` is advised to warn
rather than refuse; `tests/test_check_rule_figures.py` holds the registered levels to that advice.

Writes `bench/check_rules.md` (the table) and `lotdata/data/check_rule_figures.json` (the figures, no text of the
data: counts and set names), which `lotdata annotate check --rules` lists. `--rule X [--lang L] --update` writes only
those figures into both files and the docs' table (the others kept as measured; the tables' head names the update).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
for path in (str(REPO), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import check_rule_data as data  # noqa: E402

from lotdata.annotate.checks import RULES, CheckOptions, run_checks  # noqa: E402
from lotdata.io import atomic_path  # noqa: E402

Row = dict[str, Any]

#: a rule whose false alarms on a deciding held-out set exceed this share warns instead of refusing: one real,
#: acceptable submission in twenty sent to review is more than a small team will keep reading
WARN_ABOVE = 0.05
#: the recall a rule must reach on planted violations (issue 34: "caught >= 95% each")
RECALL_TARGET = 0.95
FIGURES = REPO / "lotdata" / "data" / "check_rule_figures.json"
SEED = 34


@dataclass(frozen=True)
class Measure:
    lang: str
    kind: str  # check_rule_data kind: story, case, rewrite, candidate, pair
    deciding: bool = True
    note: str = ""


_ZH_STORY = "proxy: the first five sentences of a Chinese document (no published Chinese five-sentence corpus)"
_ZH_CASE = "proxy: sentences 1-4 of a Chinese document, sentence 5 as right and 6 as wrong ending"
_PAIR = "original: a real middle sentence; candidate: the story's next sentence"
_REWRITE = "no source segments are published: the segment is the story itself (false alarms 0 by construction)"

MEASURES: dict[str, tuple[Measure, ...]] = {
    "five_sentences": (Measure("en", "story"), Measure("zh", "story", False, _ZH_STORY)),
    "end_punctuation": (Measure("en", "story"), Measure("zh", "story", False, _ZH_STORY)),
    "sentence_length": (Measure("en", "story"), Measure("zh", "story", False, _ZH_STORY)),
    "title": (
        Measure("en", "story", note="no published English titles in these sets: false alarms not measured"),
        Measure("zh", "story", note="real titles: CFT's .auto documents only (held out)"),
    ),
    "no_quotations": (Measure("en", "story"), Measure("en", "case")),
    "informal": (
        Measure("en", "story"),
        Measure("en", "case"),
        Measure("zh", "story", note=_ZH_STORY.replace("proxy: ", "")),
        Measure("zh", "case", False, _ZH_CASE),
    ),
    "language": (
        Measure("en", "story"),
        Measure("en", "case"),
        Measure("zh", "story", note=_ZH_STORY.replace("proxy: ", "")),
        Measure("zh", "case", note=_ZH_CASE.replace("proxy: ", "")),
    ),
    "near_duplicate": (Measure("en", "story"), Measure("zh", "story", False, _ZH_STORY)),
    "shared_character": (Measure("en", "case"), Measure("zh", "case", False, _ZH_CASE)),
    "endings_differ": (Measure("en", "case"), Measure("zh", "case", False, _ZH_CASE)),
    "ending_length": (Measure("en", "case"), Measure("zh", "case", False, _ZH_CASE)),
    "rewrite_length": (Measure("zh", "rewrite", note=_REWRITE), Measure("en", "rewrite", False, _REWRITE)),
    "punctuation": (
        Measure("zh", "rewrite", note="LOT OutGen dev set the convention: counted with the tuning data"),
        Measure("en", "rewrite"),
    ),
    "context_entities": (
        Measure("zh", "candidate", note="a real middle sentence as the candidate"),
        Measure("en", "candidate", note="sentence 2, 3 or 4 as the candidate; English reads roles and names"),
    ),
    "antonym_swap": (
        Measure("zh", "pair", note=_PAIR),
        Measure("en", "pair", note=_PAIR),
    ),
}
#: sources that set a rule's convention (benchmarks/conventions.py) count as that rule's tuning data
CONVENTION_SOURCES = {"punctuation": ("lot/dev",)}
#: the rules `strict_paper` changes: their false alarms are measured both ways
STRICT_RULES = ("sentence_length", "title", "ending_length", "punctuation")


# ---------------------------------------------------------------- planting one violation


_FINAL = {"en": re.compile(r"""[.!?…]+["'”’)\]]*$"""), "zh": re.compile(r"[。！？!?…]+[”’」』）)]*$")}
_JOIN = {"en": " ", "zh": ""}


def _split(text: str, lang: str) -> list[str]:
    from lotdata.text import split_sentences

    return [s.strip() for s in split_sentences(text, lang) if s.strip()]


def sentences_of(row: Row, lang: str) -> list[str]:
    return list(row["sentences"]) if row.get("sentences") is not None else _split(str(row.get("text") or ""), lang)


def with_sentences(row: Row, sentences: list[str], lang: str) -> Row:
    if row.get("sentences") is not None:
        return {**row, "sentences": sentences}
    return {**row, "text": _JOIN[lang].join(sentences)}


def body(sentence: str, lang: str) -> tuple[str, str]:
    """A sentence without its final marks, and those marks."""
    m = _FINAL[lang].search(sentence)
    return (sentence[: m.start()], m.group()) if m else (sentence, "")


@dataclass
class Pools:
    """What plants borrow: other stories' sentences and endings, in each language, of the same split."""

    split: str
    _cache: dict[str, Any]

    def get(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def sentences(self, lang: str) -> list[str]:
        def make() -> list[str]:
            rows = data.rows("story", lang, self.split)
            return [s for r in rows[:2000] for s in sentences_of(r, lang) if 8 <= len(s) <= 60]

        return self.get(f"sentences/{lang}", make)

    def endings_naming_others(self, lang: str) -> list[tuple[str, str]]:
        """(ending, what it names) of other cases: English endings that start with their story's protagonist and use no
        pronoun; Chinese endings that use no pronoun."""
        return self.get(f"endings/{lang}", lambda: _endings_naming_others(data.rows("case", lang, self.split), lang))


_PRONOUNS_EN = set(
    "he she they i we you him her his hers them their theirs me my mine us our ours himself herself themselves "
    "myself ourselves yourself everyone everybody someone somebody nobody people family friends friend it its".split()
)
_PRONOUNS_ZH = re.compile(r"[他她它我你咱俺]")


def _endings_naming_others(cases: list[Row], lang: str) -> list[tuple[str, str]]:
    out = []
    for case in cases:
        for ending in (case["right_ending"], case["wrong_ending"]):
            if lang == "zh":
                if not _PRONOUNS_ZH.search(ending) and 6 <= len(ending) <= 40:
                    out.append((ending, ""))
                continue
            words = re.findall(r"[A-Za-z']+", ending)
            first = (case["context"][0].split() or [""])[0]
            if (
                words
                and words[0] == first
                and first[:1].isupper()
                and first.lower() not in _COMMON_FIRST
                and not any(w.lower() in _PRONOUNS_EN for w in words)
            ):
                out.append((ending, first))
    return out


_COMMON_FIRST = set(
    "the a an i it this that there one after when then so but and finally eventually my our his her their we he she "
    "they yesterday today last every once".split()
)


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)}


def plant_five_sentences(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    sentences = sentences_of(row, lang)
    if len(sentences) != 5:
        return None
    how = rng.choice(["drop", "add", "merge"] if row.get("sentences") is not None else ["drop", "add"])
    if how == "drop":
        sentences.pop(rng.randrange(5))
    elif how == "add":
        sentences.insert(rng.randrange(1, 6), rng.choice(pools.sentences(lang)))
    else:
        k = rng.randrange(4)
        sentences[k : k + 2] = [_JOIN[lang].join(sentences[k : k + 2])]
    return with_sentences(row, sentences, lang)


def plant_end_punctuation(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    sentences = sentences_of(row, lang)
    k = rng.randrange(len(sentences))
    text, marks = body(sentences[k], lang)
    if not marks:
        return None
    sentences[k] = text
    return with_sentences(row, sentences, lang)


def _lengthen(sentence: str, others: list[str], most: int, lang: str, rng: random.Random) -> str:
    text, marks = body(sentence, lang)
    others = [body(s, lang)[0] for s in others if s] or [text]
    target = most + rng.randint(1, 30)
    while len(text) + len(marks or ".") <= target:
        more = rng.choice(others)
        if lang == "zh":
            text += "，" + more
        else:
            more = more if more.startswith("I ") else more[:1].lower() + more[1:]
            text += ", and " + more
    return text + (marks or ("。" if lang == "zh" else "."))


def plant_sentence_length(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    sentences = sentences_of(row, lang)
    k = rng.randrange(len(sentences))
    most = CheckOptions(lang=lang).chars(lang)
    sentences[k] = _lengthen(sentences[k], sentences[:k] + sentences[k + 1 :], most, lang, rng)
    return with_sentences(row, sentences, lang)


def plant_title(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    if rng.random() < 0.5:
        return {**row, "title": ""}
    most = CheckOptions(lang=lang).chars(lang)
    first = sentences_of(row, lang)[0]
    return {**row, "title": body(_lengthen(first, sentences_of(row, lang), most, lang, rng), lang)[0]}


def _ending_field(row: Row, rng: random.Random) -> str:
    return rng.choice(["right_ending", "wrong_ending"])


def _quote(sentence: str, lang: str, rng: random.Random) -> str | None:
    text, marks = body(sentence, lang)
    if lang == "zh":
        if len(text) < 4:
            return None
        i = rng.randrange(0, len(text) - 2)
        j = rng.randrange(i + 2, len(text) + 1)
        return text[:i] + "“" + text[i:j] + "”" + text[j:] + marks
    words = text.split()
    if len(words) < 3:
        return None
    i = rng.randrange(1, len(words) - 1)
    j = rng.randrange(i, len(words))
    left, right = ('"', '"') if rng.random() < 0.7 else ("“", "”")
    words[i], words[j] = left + words[i], words[j] + right
    return " ".join(words) + marks


def _in_a_field(row: Row, rng: random.Random, lang: str, change: Callable[[str], str | None]) -> Row | None:
    """`change` applied to one text field: an ending of a case, a sentence of a story."""
    if row.get("right_ending") is not None:
        which = _ending_field(row, rng)
        new = change(str(row[which]))
        return None if new is None else {**row, which: new}
    sentences = sentences_of(row, lang)
    k = rng.randrange(len(sentences))
    new = change(sentences[k])
    if new is None:
        return None
    sentences[k] = new
    return with_sentences(row, sentences, lang)


def plant_no_quotations(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    return _in_a_field(row, rng, lang, lambda s: _quote(s, lang, rng))


def _insert_word(sentence: str, word: str, lang: str, rng: random.Random) -> str:
    text, marks = body(sentence, lang)
    if lang == "zh":
        i = rng.randrange(0, len(text) + 1)
        return text[:i] + word + text[i:] + marks
    words = text.split()
    words.insert(rng.randrange(1, len(words) + 1), word)
    return " ".join(words) + marks


#: informal words written down for this benchmark, not taken from the lexicon: how much of everyday slang the lexicon
#: knows (a coverage figure beside the planted recall, which draws from the lexicon and so measures the matcher)
INFORMAL_PROBES = {
    ("en", "tuning"): "gonna wanna kinda lol omg dude yeah nope bro dunno ain't cuz sucks freaking y'all".split(),
    ("en", "held-out"): "sorta lemme gimme tbh idk yup nah bruh legit sus btw wtf gotta coz ya".split(),
    ("zh", "tuning"): "卧槽 牛逼 屌丝 逗比 神马 酱紫 木有 吃瓜 打call 666 绝绝子 yyds 躺平 内卷 给力".split(),
    ("zh", "held-out"): "我靠 尼玛 装逼 有木有 肿么 蓝瘦香菇 真香 奥利给 凡尔赛 破防 集美 种草 emmm 韭菜 佛系".split(),
}


def informal_coverage(rows: list[Row], lang: str, split: str, options: CheckOptions) -> dict[str, Any]:
    """Each probe word inserted into a real row the rule passes: the share flagged."""
    rng = random.Random(f"{SEED}:informal-probe:{lang}:{split}")
    words = INFORMAL_PROBES[(lang, split)]
    check = RULES["informal"].row
    missed = []
    for word in words:
        row = rng.choice(rows)
        bad = _in_a_field(row, rng, lang, lambda s: _insert_word(s, word, lang, rng))
        if bad is not None and not check(bad, options):
            missed.append(word)
    return {"probe_words": len(words), "probe_caught": len(words) - len(missed), "probe_missed": len(missed)}


def plant_informal(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    from lotdata.text.style import informal_lexicon

    terms = sorted(informal_lexicon(lang)[1])
    return _in_a_field(row, rng, lang, lambda s: _insert_word(s, rng.choice(terms), lang, rng))


def plant_language(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    other = pools.sentences("zh" if lang == "en" else "en")
    if row.get("right_ending") is not None:
        return {**row, _ending_field(row, rng): rng.choice(other)}
    sentences = sentences_of(row, lang)
    start = rng.choice([0, 2])  # the whole story, or its last three sentences
    for k in range(start, len(sentences)):
        sentences[k] = rng.choice(other)
    return with_sentences(row, sentences, "zh" if start == 0 and lang == "en" else lang)


def near_copy(row: Row, rng: random.Random, lang: str) -> Row | None:
    """The row with one word (one character in Chinese) replaced by another of the same story."""
    sentences = sentences_of(row, lang)
    k = rng.randrange(len(sentences))
    if lang == "zh":
        text = sentences[k]
        spots = [i for i, ch in enumerate(text) if "\u4e00" <= ch <= "\u9fff"]
        pool = [ch for s in sentences for ch in s if "\u4e00" <= ch <= "\u9fff"]
        if not spots:
            return None
        i = rng.choice(spots)
        sentences[k] = text[:i] + rng.choice(pool) + text[i + 1 :]
    else:
        words = sentences[k].split()
        pool = [w for s in sentences for w in s.split()]
        i = rng.randrange(len(words))
        words[i] = rng.choice(pool)
        sentences[k] = " ".join(words)
    return {**with_sentences(row, sentences, lang), "id": f"copy-of-{row['id']}"}


def plant_shared_character(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    context = " ".join(row["context"])
    pool = pools.endings_naming_others(lang)
    for _ in range(50):
        ending, name = rng.choice(pool)
        if lang == "zh":
            if ending in (row["right_ending"], row["wrong_ending"]) or _bigrams(ending) & _bigrams(context):
                continue
        elif re.search(rf"\b{re.escape(name)}\b", context, re.IGNORECASE):
            continue
        return {**row, _ending_field(row, rng): ending}
    return None


def plant_endings_differ(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    right = str(row["right_ending"])
    how = rng.choice(["same", "case", "mark", "spaces"])
    wrong = {
        "same": right,
        "case": right.upper() if lang == "en" else right,
        "mark": body(right, lang)[0],
        "spaces": "  ".join(right.split(" ")) if lang == "en" else right,
    }[how]
    return {**row, "wrong_ending": wrong}


def plant_ending_length(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    which = _ending_field(row, rng)
    ending = str(row[which])
    if rng.random() < 0.5:
        if not body(ending, lang)[1]:
            return None
        new = ending + _JOIN[lang] + rng.choice(row["context"])  # two sentences
    else:
        most = CheckOptions(lang=lang).chars(lang)
        new = _lengthen(ending, list(row["context"]), most, lang, rng)
    return {**row, which: new}


def plant_rewrite_length(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    from lotdata.text.style import rewrite_change

    limit = CheckOptions(lang=lang).max_rewrite_change
    segment = str(row["segment"])
    sentences = _split(segment, lang)
    target = limit + rng.randint(1, 100)
    if lang == "zh" and rng.random() < 0.5 and len(segment) > target + 30:  # a rewrite that drops too much
        kept = list(sentences)
        while kept and rewrite_change(_JOIN[lang].join(kept), segment, lang) <= target:
            kept.pop(rng.randrange(len(kept)))
        if kept:
            return {**row, "text": _JOIN[lang].join(kept)}
    text = segment
    while rewrite_change(text, segment, lang) <= target:
        text += _JOIN[lang] + rng.choice(pools.sentences(lang))
    return {**row, "text": text}


_PLANT_MARKS = "【】#*@^|[]{}<>=_~\\"


def plant_punctuation(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    from lotdata.text.style import CONVENTION_PUNCTUATION

    marks = [m for m in _PLANT_MARKS if m not in CONVENTION_PUNCTUATION[lang]]
    text = str(row["text"])
    i = rng.randrange(1, len(text))
    return {**row, "text": text[:i] + rng.choice(marks) + text[i:]}


#: roles, animals and places a plant brings into a ClozeT candidate: one list per split, so the held-out recall is
#: on words the tuning never planted
_NEW_ENTITIES = {
    "tuning": "警察 医生 老师 国王 农夫 士兵 猎人 老虎 狐狸 大象 熊猫 狮子 北京 学校 医院 城堡".split(),
    "held-out": "护士 司机 商人 皇帝 渔夫 厨师 老鹰 猴子 骆驼 企鹅 孔雀 上海 公园 超市 山洞 沙漠".split(),
}
_PLACES = set("北京 学校 医院 城堡 上海 公园 超市 山洞 沙漠".split())


def _head_zh(word: str) -> str:
    """A planted word without its affixes (猴子 -> 猴, 老鹰 -> 鹰, 大象 -> 象): a story that holds it already has that
    animal or role (小猴, 小象), so the word would bring nothing new in."""
    return word.lstrip("小老大阿").rstrip("子儿") or word


def plant_context_entities(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    if lang == "en":
        return _plant_entity_en(row, rng, pools)
    return _plant_entity(row, rng, _NEW_ENTITIES[pools.split], _PLACES)


#: English roles and animals a plant brings into a candidate (LOT 2.2a), one list per split, written before the run
_NEW_ROLES_EN = {
    "tuning": "nurse farmer pilot soldier baker lawyer sheriff horse rabbit owl fox donkey".split(),
    "held-out": "plumber dentist janitor sailor cashier librarian mechanic firefighter goat parrot tiger snake".split(),
}


def _plant_entity_en(row: Row, rng: random.Random, pools: Pools) -> Row | None:
    """`row`'s candidate with a role or animal (`_NEW_ROLES_EN`) or a real protagonist's name of another case of the
    split that the story does not hold brought in: "..., and a plumber saw it.", "... with Maria.", or a name
    opening a sentence of its own ("Maria was there too.", where a capital says least)."""
    story = " ".join([*row["context"], str(row["candidate"])]).lower()
    roles = [w for w in _NEW_ROLES_EN[pools.split] if w not in story]
    names = sorted({n for _, n in pools.endings_naming_others("en") if n.lower() not in story})
    text, marks = body(str(row["candidate"]), "en")
    form = rng.randrange(3)
    if form == 0 and roles:
        role = rng.choice(roles)
        return {**row, "candidate": f"{text}, and {'an' if role[0] in 'aeiou' else 'a'} {role} saw it{marks or '.'}"}
    if not names:
        return None
    name = rng.choice(names)
    return {**row, "candidate": f"{text} with {name}{marks or '.'}" if form == 1 else f"{name} was there too."}


def _plant_entity(row: Row, rng: random.Random, entities: list[str], places: set[str]) -> Row | None:
    """`row`'s candidate with one of `entities` the story does not hold (nor its head) brought in: a place as where
    it happens (在X里，...), a role or animal as a witness (...，X看到了这一切。); None when the story holds them all."""
    story = " ".join([*row["context"], str(row["candidate"])])
    words = [w for w in entities if w not in story and _head_zh(w) not in story]
    if not words:
        return None
    word = rng.choice(words)
    text, marks = body(str(row["candidate"]), "zh")
    if word in places:
        new = f"在{word}里，{text}{marks or '。'}"
    else:
        new = f"{text}，{word}看到了这一切{marks or '。'}"
    return {**row, "candidate": new}


#: a third word list for a blind held-out context_entities figure (issue 34): the held-out list above stopped being
#: blind when it was planted on tuning documents while the detector was fixed. Written by hand on the date below and
#: committed with its seed (in the file) before its first run; planted on held-out candidates the figure above does
#: not use. Never change the detector or its lexicons by reading its misses: write another list to measure again.
BLIND_ENTITIES_ZH = HERE / "context_entities_blind_zh.txt"
#: a fourth list (issue 34), written and committed (5eb3696) before any run on it and before the detector's
#: CC-CEDICT/WordNet class lexicon was written; planted by the same code with its own seed: fields blind2_*
BLIND_ENTITIES_ZH_2 = HERE / "context_entities_blind2_zh.txt"
#: a fifth list (issue 34), written and committed (630e0f1) before any run on it and before the noun-head change
#: (`lotdata.text.entities_zh`, diagnosed on dev list 3 only); planted by the same code with its own seed: blind3_*
BLIND_ENTITIES_ZH_3 = HERE / "context_entities_blind3_zh.txt"
#: a sixth list (issue 34), written and committed (78b5ce3) before any run on it and before the change of 2026-11-27
#: (rooms, roads, enclosures and lands as WordNet places, a place's slot, compounds ending in a role; diagnosed on
#: dev list 3 only); planted by the same code with its own seed: blind4_*
BLIND_ENTITIES_ZH_4 = HERE / "context_entities_blind4_zh.txt"
#: a seventh list (issue 34), written and committed (71e63df) before any run on it and before the radical change of
#: 2026-11-27 (animals by radical, heads read from CC-CEDICT's nouns, places cut apart in a slot, WordNet's wider
#: places, persons more often verbs, supernatural beings; diagnosed on dev list 4 only): blind5_*
BLIND_ENTITIES_ZH_5 = HERE / "context_entities_blind5_zh.txt"
#: an eighth list (issue 34), written and committed (136821f) before any run on it and before the Cilin change of
#: 2026-11-27 (word classes from the thesaurus Tongyici Cilin where CC-CEDICT's gloss gives none; diagnosed on dev
#: lists only); 82.3% (247/300) on the code before that change, measured once in a worktree: blind6_*
BLIND_ENTITIES_ZH_6 = HERE / "context_entities_blind6_zh.txt"
#: a ninth list (issue 34), written and committed (6d4b683) after the Cilin change, before any run on it, for a
#: change that joins pieces jieba cut apart into a dictionary's word; that change was tried on the dev lists and
#: dropped (+0.3 points on dev list 4 and new flags on ordinary words: 大汗 "heavy sweat", 鹿群), so the list's one
#: run measures the Cilin change's code: blind7_*
BLIND_ENTITIES_ZH_7 = HERE / "context_entities_blind7_zh.txt"
#: a tenth list (issue 34), written and committed (597e3b3) with dev list 5 from one draft (the dev list drawn after
#: it, its overlaps dropped) before any run on it and before the slot-head change of 2026-11-27 (diagnosed on dev
#: list 5 only); 81.0% (243/300) on the code before that change, measured once in a worktree: blind8_*
BLIND_ENTITIES_ZH_8 = HERE / "context_entities_blind8_zh.txt"
#: an eleventh list (issue 34), written and committed (83602c4) after the slot-head change and its review, before any
#: run on it, for a change that would read the apposition after a name of several words in a CC-CEDICT gloss (a god,
#: a legendary creature); that change names some ten words of CC-CEDICT's and was dropped, so the list's one run
#: measures the code of the slot-head change: blind9_*
BLIND_ENTITIES_ZH_9 = HERE / "context_entities_blind9_zh.txt"
#: the lists after the first, by the prefix of their fields
MORE_BLIND_ENTITIES_ZH = {
    "blind2": BLIND_ENTITIES_ZH_2,
    "blind3": BLIND_ENTITIES_ZH_3,
    "blind4": BLIND_ENTITIES_ZH_4,
    "blind5": BLIND_ENTITIES_ZH_5,
    "blind6": BLIND_ENTITIES_ZH_6,
    "blind7": BLIND_ENTITIES_ZH_7,
    "blind8": BLIND_ENTITIES_ZH_8,
    "blind9": BLIND_ENTITIES_ZH_9,
}
#: when each blind list was written: the label of its row ("held-out, blind list (written DATE, run once)")
BLIND_WRITTEN = {"antonym_swap": "2026-11-26", "context_entities": "2026-11-26"}
#: the rows' labels where a rule has several blind lists: all nine were re-run after the changes the seventh
#: hand-annotated sample's dev half and the adjudicated flags led to (benchmarks/entity_gold_zh.py), the third session
#: of 2026-11-27 (their misses never read, so still blind for the detector)
_RERUN = "re-run after the eleventh sample's changes"
BLIND_LABELS = {
    ("context_entities", "blind"): f"blind list 1 (written 2026-11-26), {_RERUN}",
    ("context_entities", "blind2"): f"blind list 2 (written 2026-11-26), {_RERUN}",
    ("context_entities", "blind3"): f"blind list 3 (written 2026-11-26, before the noun-head change), {_RERUN}",
    ("context_entities", "blind4"): f"blind list 4 (written 2026-11-27, before the place-slot change), {_RERUN}",
    ("context_entities", "blind5"): f"blind list 5 (written 2026-11-27, before the radical change: 86.0% after it), "
    f"{_RERUN}",
    ("context_entities", "blind6"): "blind list 6 (written 2026-11-27, before the Cilin change: 82.3% before it, "
    f"86.0% after it), {_RERUN}",
    ("context_entities", "blind7"): f"blind list 7 (written 2026-11-27 after the Cilin change: 77.0% on it), {_RERUN}",
    ("context_entities", "blind8"): "blind list 8 (written 2026-11-27, before the slot-head change: 81.0% before "
    f"it), {_RERUN}",
    ("context_entities", "blind9"): "blind list 9 (written 2026-11-27 after the slot-head change: 69.0% on it), "
    f"{_RERUN}",
}
#: whether `measure` plants the blind lists (`--no-blind`: not, so that a diagnosis never sees them)
PLANT_BLIND = True


def blind_entities_zh(path: Path = BLIND_ENTITIES_ZH) -> tuple[list[str], set[str], str]:
    """The blind list's words, the places among them (its `# places` section) and its seed (`# seed: ...`)."""
    words: list[str] = []
    places: set[str] = set()
    seed, section = "", ""
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("# seed:"):
            seed = line.split(":", 1)[1].strip()
        elif line.startswith("#"):
            head = line[1:].split(":")[0].strip()
            section = head if head in ("roles", "animals", "places") else section
        elif line:
            words.append(line)
            if section == "places":
                places.add(line)
    if not seed or not words:
        raise ValueError(f"{path}: no seed or no words")
    return words, places, seed


def blind_context_entities_recall(
    m: Measure, rows: list[Row], flags: dict, options: CheckOptions, n: int, path: Path = BLIND_ENTITIES_ZH
) -> dict[str, Any]:
    """context_entities' blind held-out figure (issue 34): the blind list planted, as `plant_context_entities` plants,
    into up to `n` held-out candidates the rule passes and the held-out plants of `plant` did not use (its draw
    repeated), in an order drawn with the list's seed."""
    words, places, seed = blind_entities_zh(path)
    passing = [r for r in rows if str(r["id"]) not in flags]
    used_rng = random.Random(f"{SEED}:context_entities:{m.lang}:{m.kind}:held-out")  # plant()'s draw, repeated
    drawn = list(passing)
    used_rng.shuffle(drawn)
    used: set[str] = set()
    for row in drawn:
        if len(used) >= n:
            break
        if _plant_entity(dict(row), used_rng, _NEW_ENTITIES["held-out"], _PLACES) is not None:
            used.add(str(row["id"]))
    unused = [r for r in passing if str(r["id"]) not in used]
    rng = random.Random(seed)
    rng.shuffle(unused)
    check = RULES["context_entities"].row
    planted = caught = 0
    for row in unused:
        if planted >= n:
            break
        bad = _plant_entity(dict(row), rng, words, places)
        if bad is None:
            continue
        planted += 1
        caught += bool(check(bad, options))
    recall = round(caught / planted, 4) if planted else None
    return {"blind_planted": planted, "blind_caught": caught, "blind_recall": recall}


#: antonym pairs a plant swaps (our list, not the rule's lexicon): one list per split, so the held-out recall is on
#: pairs the tuning never planted
_ANTONYMS = {
    ("zh", "tuning"): "高兴/难过 喜欢/讨厌 成功/失败 开始/结束 记得/忘记 得到/失去 安全/危险 聪明/愚蠢 同意/反对 "
    "增加/减少 干净/肮脏 热闹/安静 快乐/痛苦 勇敢/胆小 进来/出去",
    ("zh", "held-out"): "开心/伤心 美丽/丑陋 答应/拒绝 相信/怀疑 出发/到达 富有/贫穷 胜利/失败 热情/冷淡 "
    "简单/复杂 容易/困难 温暖/寒冷 整齐/杂乱 诚实/虚伪 节约/浪费 上来/下去",
    ("en", "tuning"): "happy/sad good/bad big/small hot/cold early/late first/last loved/hated won/lost "
    "open/closed fast/slow old/new long/short easy/hard always/never win/lose",
    ("en", "held-out"): "rich/poor strong/weak high/low loud/quiet full/empty clean/dirty safe/dangerous "
    "light/dark young/old best/worst tall/short love/hate right/wrong cheap/expensive warm/cool",
}


#: a third Chinese list for a blind held-out figure (issue 34): written on 2026-11-26 by a helper who had not read
#: `lotdata/data/antonyms_zh.tsv` nor any antonym_swap result, and committed before it was first run; planted on a
#: slice of the held-out documents the other lists never used (`BLIND_SEED`, chosen with the list). Never add its
#: pairs to the lexicon by reading its misses: the figure would stop being blind (make a fourth list instead).
BLIND_ANTONYMS_ZH = (
    "干燥/潮湿 光明/黑暗 骄傲/谦虚 粗心/细心 懒惰/勤劳 坚强/软弱 善良/邪恶 宽阔/狭窄 明亮/昏暗 进步/退步 "
    "轻松/紧张 快乐/悲伤 清楚/模糊 熟悉/陌生 真实/虚假 光滑/粗糙 前进/后退 上升/下降 出现/消失 提高/降低 "
    "扩大/缩小 接受/拒绝 表扬/批评 喜爱/厌恶 高大/矮小 强大/弱小 公开/秘密 集中/分散 平静/激动 晴朗/阴沉 "
    "出生/死亡 关心/冷漠 正确/错误 白天/黑夜 天堂/地狱 主动/被动 积极/消极 优点/缺点 里面/外面 前面/后面 "
    "古代/现代 打开/关上 靠近/远离 甜蜜/苦涩 美好/糟糕 幸运/倒霉 热爱/憎恨 朋友/敌人 老实/狡猾 认真/马虎 "
    "欢笑/哭泣 站着/坐着 醒来/睡着"
)
BLIND_SEED = "34-blind-2026-11-26"


def plant_antonym_swap(row: Row, rng: random.Random, lang: str, pools: Pools) -> Row | None:
    original = str(row["original"])
    swaps = []
    for pair in _ANTONYMS[(lang, pools.split)].split():
        a, b = pair.split("/")
        for x, y in ((a, b), (b, a)):
            if lang == "zh" and x in original:
                swaps.append((x, y))
            elif lang == "en" and re.search(rf"\b{x}\b", original):
                swaps.append((x, y))
    if not swaps:
        return None
    x, y = rng.choice(swaps)
    new = original.replace(x, y, 1) if lang == "zh" else re.sub(rf"\b{x}\b", y, original, count=1)
    return {**row, "candidate": new}


def _swap_zh(original: str, pairs: str, rng: random.Random) -> str | None:
    """`original` with one word of `pairs` ("a/b c/d") replaced by its antonym, or None when it holds none."""
    swaps = [
        (x, y) for pair in pairs.split() for a, b in [pair.split("/")] for x, y in ((a, b), (b, a)) if x in original
    ]
    if not swaps:
        return None
    x, y = rng.choice(swaps)
    return original.replace(x, y, 1)


def _unused_held_out_sentences() -> list[str]:
    """The held-out documents' sentences that `check_rule_data.pairs` never made an original or a candidate of (its
    seed and draw repeated): a slice of the held-out set no antonym figure has used."""
    rng = random.Random("0:pairs:zh:held-out")  # check_rule_data.pairs' draw, repeated to know what it used
    out = []
    for doc in data.chinese_documents("held-out"):
        sentences = data._zh_sentences(doc.text)
        if len(sentences) < 4:
            out += sentences
            continue
        i = rng.randrange(1, len(sentences) - 2)
        out += [s for k, s in enumerate(sentences) if k not in (i, i + 1)]
    return out


def blind_antonym_recall(options: CheckOptions, n: int) -> dict[str, Any]:
    """antonym_swap's blind held-out figure (issue 34): `BLIND_ANTONYMS_ZH`, a list nobody tuned the lexicon on,
    swapped into up to `n` sentences of the unused held-out slice drawn with `BLIND_SEED`."""
    rng = random.Random(BLIND_SEED)
    sentences = [s for s in _unused_held_out_sentences() if _swap_zh(s, BLIND_ANTONYMS_ZH, rng)]
    rng.shuffle(sentences)
    check = RULES["antonym_swap"].row
    planted = caught = 0
    for original in sentences[:n]:
        candidate = _swap_zh(original, BLIND_ANTONYMS_ZH, rng)
        planted += 1
        caught += bool(check({"original": original, "candidate": candidate, "lang": "zh"}, options))
    recall = round(caught / planted, 4) if planted else None
    return {"blind_planted": planted, "blind_caught": caught, "blind_recall": recall}


PLANTERS: dict[str, Callable[[Row, random.Random, str, Pools], Row | None]] = {
    "antonym_swap": plant_antonym_swap,
    "five_sentences": plant_five_sentences,
    "end_punctuation": plant_end_punctuation,
    "sentence_length": plant_sentence_length,
    "title": plant_title,
    "no_quotations": plant_no_quotations,
    "informal": plant_informal,
    "language": plant_language,
    "shared_character": plant_shared_character,
    "endings_differ": plant_endings_differ,
    "ending_length": plant_ending_length,
    "rewrite_length": plant_rewrite_length,
    "punctuation": plant_punctuation,
    "context_entities": plant_context_entities,
}


# ---------------------------------------------------------------- measuring


def real_rows(rule: str, measure: Measure, split: str) -> list[Row]:
    moved = CONVENTION_SOURCES.get(rule, ())
    rows = [r for r in data.rows(measure.kind, measure.lang, split) if r.get("source") not in moved]
    if split == "tuning" and moved:
        rows += [r for r in data.rows(measure.kind, measure.lang, "held-out") if r.get("source") in moved]
    return rows


def flagged_ids(rule: str, rows: list[Row], options: CheckOptions) -> dict[str, list[str]]:
    result = run_checks(rows, [rule], options)
    out: dict[str, list[str]] = {}
    for flag in result.flags:
        out.setdefault(flag["id"], []).append(flag["detail"])
    return out


def _detail_kind(detail: str) -> str:
    """A flag's detail with its numbers and its quoted words taken out: what kind of flag it is."""
    detail = re.sub(r"\d+", "N", detail)
    return re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", detail)[:90]


def measure(rule: str, m: Measure, split: str, planted: int) -> dict[str, Any]:
    options = CheckOptions(lang=m.lang)
    rows = real_rows(rule, m, split)
    started = time.perf_counter()
    real = [r for r in rows if r.get("title")] if rule == "title" else rows  # a title rule needs real titles
    flags = flagged_ids(rule, real, options) if real else {}
    out: dict[str, Any] = {
        "lang": m.lang,
        "input": m.kind,
        "split": split,
        "set": data.SET_NAMES[(m.lang, split)],
        "deciding": m.deciding,
        "note": m.note,
        "rows": len(real),
        "false_alarms": len(flags),
        "false_alarm_rate": round(len(flags) / len(real), 4) if real else None,
    }
    by_source: dict[str, list[int]] = {}
    for r in real:
        entry = by_source.setdefault(str(r.get("source", "")), [0, 0])
        entry[0] += 1
        entry[1] += str(r["id"]) in flags
    out["by_source"] = by_source
    out["flag_kinds"] = Counter(_detail_kind(d) for details in flags.values() for d in details).most_common(4)
    if rule in STRICT_RULES and real:
        strict = flagged_ids(rule, real, replace(options, strict_paper=True))
        out["false_alarms_strict"] = len(strict)
        out["false_alarm_rate_strict"] = round(len(strict) / len(real), 4)
    out.update(plant(rule, m, split, rows, flags, planted, options))
    if rule == "antonym_swap" and m.lang == "zh" and split == "held-out" and PLANT_BLIND:
        out.update(blind_antonym_recall(options, planted))
    if rule == "context_entities" and m.lang == "zh" and split == "held-out" and PLANT_BLIND:
        out.update(blind_context_entities_recall(m, rows, flags, options, planted))
        for key, path in MORE_BLIND_ENTITIES_ZH.items():
            found = blind_context_entities_recall(m, rows, flags, options, planted, path)
            out.update({k.replace("blind_", key + "_"): v for k, v in found.items()})
    if rule == "informal":
        out.update(informal_coverage([r for r in rows if str(r["id"]) not in flags], m.lang, split, options))
    out["seconds"] = round(time.perf_counter() - started, 2)
    return out


def plant(rule: str, m: Measure, split: str, rows: list[Row], flags: dict, n: int, options: CheckOptions) -> dict:
    rng = random.Random(f"{SEED}:{rule}:{m.lang}:{m.kind}:{split}")
    passing = [r for r in rows if str(r["id"]) not in flags]
    rng.shuffle(passing)
    pools = Pools(split, _POOL_CACHE.setdefault(split, {}))
    if rule == "near_duplicate":
        copies = [c for r in passing[:n] if (c := near_copy(r, rng, m.lang))]
        found = flagged_ids(rule, [*rows, *copies], options)
        caught = sum(str(c["id"]) in found for c in copies)
        return {"planted": len(copies), "caught": caught, "recall": round(caught / len(copies), 4) if copies else None}
    planter = PLANTERS[rule]
    check = RULES[rule].row
    planted = caught = 0
    missed: Counter = Counter()
    for row in passing:  # in a random order, until `n` are planted (a row may offer no place for the violation)
        if planted >= n:
            break
        bad = planter(dict(row), rng, m.lang, pools)
        if bad is None:
            continue
        planted += 1
        if check(bad, options):
            caught += 1
        else:
            missed[str(row.get("source", "")).split("/")[0]] += 1
    return {
        "planted": planted,
        "caught": caught,
        "recall": round(caught / planted, 4) if planted else None,
        "missed_by_source": dict(missed),
    }


_POOL_CACHE: dict[str, dict] = {}


def advised_level(figures: list[dict]) -> str:
    rates = [f["false_alarm_rate"] for f in figures if f["split"] == "held-out" and f["deciding"]]
    return "warn" if any(r is not None and r > WARN_ABOVE for r in rates) else "refuse"


def run(planted: int, only: list[str] | None = None, lang: str | None = None) -> dict[str, Any]:
    from lotdata.annotate.checks import check_rule_names

    rules: dict[str, Any] = {}
    for name in check_rule_names():
        if name not in MEASURES or (only and name not in only):
            continue
        measures = [m for m in MEASURES[name] if lang in (None, m.lang)]
        figures = [measure(name, m, split, planted) for m in measures for split in data.SPLITS]
        rules[name] = {
            "description": RULES[name].description,
            "level": RULES[name].level,
            "advised_level": advised_level(figures),
            "figures": figures,
        }
        print(f"{name}: {sum(f['seconds'] for f in figures):.1f}s", file=sys.stderr)
    return {
        "generated": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "warn_above": WARN_ABOVE,
        "recall_target": RECALL_TARGET,
        "planted_per_set": planted,
        "sets": {f"{lang} {split}": name for (lang, split), name in data.SET_NAMES.items()},
        "convention_sources": {k: list(v) for k, v in CONVENTION_SOURCES.items()},
        "rules": rules,
    }


def _blind(f: dict, key: str = "blind") -> str:
    return f"{_pct(f[key + '_recall'])} ({f[key + '_caught']}/{f[key + '_planted']})"


def _blind_keys(f: dict) -> list[str]:
    """The blind figures a row carries: "blind", and those of `MORE_BLIND_ENTITIES_ZH` where more lists were
    planted."""
    return [key for key in ("blind", *MORE_BLIND_ENTITIES_ZH) if key + "_planted" in f]


#: why a rule's held-out recall is not blind, and what its blind list is
_BLIND_WHY = {
    "antonym_swap": "pairs added after its plants were read; the blind list: a third pair list on held-out sentences "
    "no figure used",
    "context_entities": "its word list was planted on tuning documents while the detector was fixed; the blind lists: "
    "benchmarks/context_entities_blind_zh.txt (1), context_entities_blind2_zh.txt (2), "
    "context_entities_blind3_zh.txt (3), context_entities_blind4_zh.txt (4), context_entities_blind5_zh.txt (5), context_entities_blind6_zh.txt (6), context_entities_blind7_zh.txt "
    "(7), context_entities_blind8_zh.txt (8) and context_entities_blind9_zh.txt (9), "
    "each planted on held-out candidates the row above did not use",
}


def _blind_label(rule: str, key: str = "blind") -> str:
    return BLIND_LABELS.get((rule, key)) or f"blind list (written {BLIND_WRITTEN[rule]}, run once)"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def table(report: dict[str, Any]) -> str:
    lines = [
        "# Check rules: false alarms on real accepted data, recall on planted violations",
        "",
        f"Generated {report['generated']} by `benchmarks/bench_check_rules.py` (sets: `benchmarks/check_rule_data.py`; "
        f"planted: up to {report['planted_per_set']} rows per set, one violation each). A rule whose false-alarm rate "
        f"on a deciding held-out set is above {100 * report['warn_above']:.0f}% warns instead of refusing. "
        '"strict": the false alarms with `--strict-paper` (the papers\' letter). Deciding: the data was written under '
        "the rule's instruction; a proxy row (no) is shown, not counted for the level." + _updated(report),
        "",
        "| set | name |",
        "| --- | --- |",
        *(f"| {k} | {v} |" for k, v in report["sets"].items()),
        "",
        "| rule | level | lang | input | split | rows | false alarms | rate | strict | planted | recall | deciding |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, rule in report["rules"].items():
        level = rule["level"] + (
            "" if rule["level"] == rule["advised_level"] else f" (advised: {rule['advised_level']})"
        )
        for f in rule["figures"]:
            strict = _pct(f["false_alarm_rate_strict"]) if "false_alarm_rate_strict" in f else ""
            recall = f"{_pct(f['recall'])} ({f['caught']}/{f['planted']})"
            flag = "" if f["recall"] is None or f["recall"] >= report["recall_target"] else " **below target**"
            lines.append(
                f"| {name} | {level} | {f['lang']} | {f['input']} | {f['split']} | {f['rows']} | {f['false_alarms']} | "
                f"{_pct(f['false_alarm_rate'])} | {strict} | {f['planted']} | {recall}{flag} | "
                f"{'yes' if f['deciding'] else 'no'} |"
            )
            for key in _blind_keys(f):  # recall only: the real rows' false alarms are the row above's
                blind_flag = "" if (f[key + "_recall"] or 0) >= report["recall_target"] else " **below target**"
                lines.append(
                    f"| {name} | {level} | {f['lang']} | {f['input']} | {f['split']}, {_blind_label(name, key)} "
                    f"| | | | | {f[key + '_planted']} | {_blind(f, key)}{blind_flag} | "
                    f"{'yes' if f['deciding'] else 'no'} |"
                )
    lines += ["", "## Notes and flags by kind", ""]
    for name, rule in report["rules"].items():
        lines.append(f"### {name}: {rule['description']}")
        lines.append("")
        for f in rule["figures"]:
            sources = ", ".join(f"{s} {flagged}/{n}" for s, (n, flagged) in f["by_source"].items())
            kinds = "; ".join(f"{k} ({n})" for k, n in f.get("flag_kinds", []))
            parts = [f"flagged by source: {sources or 'none'}"]
            parts += [f"kinds: {kinds}"] if kinds else []
            if "blind_planted" in f:
                blind = "; ".join(f"{_blind_label(name, key)}: {_blind(f, key)}" for key in _blind_keys(f))
                parts.append(f"the recall above is not blind ({_BLIND_WHY[name]}); {blind}")
            if "probe_words" in f:
                parts.append(f"informal words not from the lexicon caught: {f['probe_caught']}/{f['probe_words']}")
            parts += [f["note"]] if f["note"] else []
            lines.append(f"- {f['lang']} {f['input']} {f['split']}: " + "; ".join(parts))
        lines.append("")
    return "\n".join(lines) + "\n"


DOC = REPO / "docs" / "explanation" / "check-rules.md"
_START, _END = "<!-- figures:start (written by benchmarks/bench_check_rules.py) -->", "<!-- figures:end -->"


def doc_table(report: dict[str, Any]) -> str:
    """The figures as the user documentation shows them: a row per rule, language and input, the two splits side by
    side."""
    lines = [
        f"Measured {report['generated']}. False alarms: flagged real rows / rows (with `--strict-paper` where it "
        "differs). Recall: planted violations caught / planted. *proxy*: shown, not deciding the level."
        + _updated(report),
        "",
        "| rule | level | lang | input | false alarms, tuning | false alarms, held-out | recall, tuning "
        "| recall, held-out |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, rule in report["rules"].items():
        seen: dict[tuple[str, str], dict[str, dict]] = {}
        for f in rule["figures"]:
            seen.setdefault((f["lang"], f["input"]), {})[f["split"]] = f
        for (lang, kind), by in seen.items():
            cells = []
            for split in data.SPLITS:
                f = by[split]
                cell = f"{_pct(f['false_alarm_rate'])} ({f['false_alarms']}/{f['rows']})"
                strict = f.get("false_alarm_rate_strict")
                if strict is not None and strict != f["false_alarm_rate"]:
                    cell += f"; strict {_pct(strict)}"
                cells.append(cell)
            for split in data.SPLITS:
                f = by[split]
                blind = "".join(f"; {_blind_label(name, key)}: {_blind(f, key)}" for key in _blind_keys(f))
                blind = f"; not blind{blind}" if blind else ""
                cells.append(f"{_pct(f['recall'])} ({f['caught']}/{f['planted']}){blind}")
            proxy = "" if by["held-out"]["deciding"] else " *proxy*"
            lines.append(f"| {name} | {rule['level']} | {lang} | {kind}{proxy} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


README = REPO / "README.md"
_README_START = "<!-- rule-figures:start (written by benchmarks/bench_check_rules.py) -->"
_README_END = "<!-- rule-figures:end -->"


def readme_table(report: dict[str, Any]) -> str:
    """One row per rule for the README: its level, and per language the held-out false alarms and planted recall of
    the sets written under its instruction (the highest rate and the lowest recall where it checks several inputs;
    the range of its blind lists beside; proxies: the docs)."""
    lines = [
        "| rule | level | false alarms, held out (en / zh) | planted caught, held out (en / zh) |",
        "| --- | --- | --- | --- |",
    ]
    for name, rule in report["rules"].items():
        rates, recalls = [], []
        for lang in ("en", "zh"):
            held = [f for f in rule["figures"] if f["lang"] == lang and f["split"] == "held-out" and f["deciding"]]
            rated = [f["false_alarm_rate"] for f in held if f["false_alarm_rate"] is not None]
            caught = [f["recall"] for f in held if f["recall"] is not None]
            blind = [f[key + "_recall"] for f in held for key in _blind_keys(f) if f[key + "_recall"] is not None]
            rates.append(_pct(max(rated)) if rated else "–")
            recall = _pct(min(caught)) if caught else "–"
            recalls.append(f"{recall} (blind {_span(blind)})" if blind else recall)
        lines.append(f"| {name} | {rule['level']} | {' / '.join(rates)} | {' / '.join(recalls)} |")
    return "\n".join(lines)


def _span(values: list[float]) -> str:
    """The lowest and the highest of some rates, or the one rate."""
    low, high = _pct(min(values)), _pct(max(values))
    return low if low == high else f"{low}-{high}"


def write_doc(report: dict[str, Any], path: Path = DOC, readme: Path = README) -> None:
    """The figures into the user docs and the README, between their markers (a file without them is left alone)."""
    for where, start, end, text_of in (
        (path, _START, _END, doc_table),
        (readme, _README_START, _README_END, readme_table),
    ):
        if not where.is_file():
            continue
        text = where.read_text(encoding="utf-8")
        if start not in text or end not in text:
            continue
        head, rest = text.split(start, 1)
        tail = rest.split(end, 1)[1]
        with atomic_path(where) as tmp:  # a committed file, whole or not at all
            tmp.write_text(f"{head}{start}\n{text_of(report)}\n{end}{tail}", encoding="utf-8")


def _strip(report: dict[str, Any]) -> None:
    """The figures file keeps counts and names only, no word of the data."""
    for rule in report["rules"].values():
        for f in rule["figures"]:
            f.pop("flag_kinds", None)
            f.pop("seconds", None)  # a re-run on other data changes the file, a re-run on the same does not


def update(part: dict[str, Any], figures_path: Path = FIGURES, out: Path | None = None) -> dict[str, Any]:
    """Put the figures of a partial run (`--rule`, maybe `--lang`) into the figures file, the table and the user
    docs, keeping every other rule's and language's figures as they were measured; the table's head says which were
    re-measured when. The table's notes (flags by kind: words of the data, not in the figures file) are replaced for
    the measured rows only."""
    report = json.loads(figures_path.read_text(encoding="utf-8"))
    measured = {(name, f["lang"], f["input"]) for name, rule in part["rules"].items() for f in rule["figures"]}
    for name, rule in part["rules"].items():
        old = report["rules"].get(name, {**rule, "figures": []})
        new = {(f["lang"], f["input"], f["split"]): f for f in rule["figures"]}
        keys = [(f["lang"], f["input"], f["split"]) for f in old["figures"]]
        merged = [new.pop(key, f) for key, f in zip(keys, old["figures"])] + list(new.values())
        report["rules"][name] = {**rule, "advised_level": advised_level(merged), "figures": merged}
        what = ", ".join(sorted({lang for n, lang, _ in measured if n == name}))
        report.setdefault("updated", {})[name] = f"{part['generated']} ({what})"
    if out is not None and out.is_file():
        out.write_text(_splice_table(out.read_text(encoding="utf-8"), report, part, measured), encoding="utf-8")
    write_doc(report)
    _strip(report)
    figures_path.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return report


def _updated(report: dict[str, Any]) -> str:
    """The head's note on rules re-measured after the full run (`update`)."""
    done = report.get("updated") or {}
    return "".join(f" `{name}` re-measured {when} (`--update`)." for name, when in done.items())


def _splice_table(text: str, report: dict[str, Any], part: dict[str, Any], measured: set) -> str:
    """The table of `text` with the rows of the updated rules written again from the merged `report` and their
    notes for the measured (rule, language, input) replaced by `part`'s."""
    rules = {name: report["rules"][name] for name in part["rules"]}
    full = table({**report, "rules": rules}).splitlines()
    notes = table(part).splitlines()
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("Generated "))
    lines[head] = next(line for line in full if line.startswith("Generated "))
    for name in rules:
        rows = [line for line in full if line.startswith(f"| {name} |")]
        at = [i for i, line in enumerate(lines) if line.startswith(f"| {name} |")]
        lines[at[0] : at[-1] + 1] = rows
        for _, lang, kind in (key for key in measured if key[0] == name):
            prefix = f"- {lang} {kind} "
            new = [line for line in notes if line.startswith(prefix)]
            start = lines.index(next(line for line in lines if line.startswith(f"### {name}:")))
            end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("### ")), len(lines))
            old = [i for i in range(start, end) if lines[i].startswith(prefix)]
            lines[old[0] : old[-1] + 1] = new
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "check_rules.md")
    parser.add_argument("--figures", type=Path, default=FIGURES)
    parser.add_argument("--planted", type=int, default=300, help="planted violations per rule and set")
    parser.add_argument("--rule", action="append", help="only this rule (repeatable; figures file not written)")
    parser.add_argument("--no-blind", action="store_true", help="plant no blind list (with --rule only)")
    parser.add_argument("--lang", choices=("en", "zh"), help="only this language's measures (with --rule only)")
    parser.add_argument(
        "--update",
        action="store_true",
        help="with --rule: write those rules' figures (and --lang's only) into the figures file, the table and the "
        "docs, the other figures kept",
    )
    args = parser.parse_args()
    if args.update and (not args.rule or args.no_blind):
        parser.error("--update writes a partial run: give --rule, and keep the blind lists planted")
    if args.no_blind and not args.rule:
        parser.error("--no-blind measures a diagnosis: give --rule (the figures file keeps the blind rows)")
    if args.lang and not args.rule:
        parser.error("--lang measures part of a rule: give --rule (the figures file keeps every language)")
    global PLANT_BLIND
    PLANT_BLIND = not args.no_blind
    if not data.available():
        raise SystemExit(f"no shared data at {data.DATA}")
    report = run(args.planted, args.rule, args.lang)
    text = table(report)
    print(text)
    if args.update:
        update(report, args.figures, args.out)
    if args.rule:
        return
    args.out.write_text(text, encoding="utf-8")
    write_doc(report)
    _strip(report)
    args.figures.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
