"""Cleaning rules for one story: strip noise (links, e-mails, ad and navigation text, garbled
characters, bracketed noise, repeated punctuation) and compute the flags annotators judge.

Every function is pure and takes the already-normalised text of a `stories` row (Chinese text has
no spaces or line breaks any more, so ad and navigation *lines* are found as sentence segments).

Every rule `lotdata clean` applies is a named record (:class:`CleanRule`) in the clean-rule registry, in the
order `clean` applies them: the names the quarantine's `rule` column, the summary and the flags use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from lotdata.registry import Registry
from lotdata.text import split_sentences

# --------------------------------------------------------------------------------------------
# noise

URL = re.compile(r"(?:https?://|ftp://|www\.)[^\s，。！？；、“”‘’（）()【】<>《》\u4e00-\u9fff]+", re.I)
EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}")
# navigation, advertising and site boilerplate that never belongs to a story
NAV_AD = re.compile(
    r"上一篇|下一篇|上一章|下一章|返回目录|返回首页|返回列表|回到顶部|点击(?:查看|阅读|下载|进入|这里|此处)|阅读全文|查看全文|"
    r"更多精彩|更多(?:故事|内容)请|关注(?:微信)?公众号|微信公众号|扫(?:描)?二维码|扫码|本文(?:来源|来自|出处)|"
    r"转载请注明|版权(?:所有|归|声明)|免责声明|责任编辑|分享到|收藏本站|加入书架|推荐阅读|相关阅读|相关文章|猜你喜欢|"
    r"热门(?:故事|文章|推荐)|广告位|广告联系|登录注册|首页\s*[>›»|/]|当前位置[:：]|(?:QQ|qq|微信)(?:群|号)[:：]?\d*|"
    r"copyright|all rights reserved|click here|read more|share this|advertisement",
    re.I,
)
# NAV_AD in two parts for speed, found where NAV_AD is found: its alternatives without a letter (no case to ignore:
# 2 µs on a story where NAV_AD's case-folding scan takes 33) and those with letters, looked for only where two
# letters stand together (every one of them starts so; the class holds what [a-z] matches ignoring case)
_NAV_AD_HAN = re.compile(
    r"上一篇|下一篇|上一章|下一章|返回目录|返回首页|返回列表|回到顶部|点击(?:查看|阅读|下载|进入|这里|此处)|阅读全文|查看全文|"
    r"更多精彩|更多(?:故事|内容)请|关注(?:微信)?公众号|微信公众号|扫(?:描)?二维码|扫码|本文(?:来源|来自|出处)|"
    r"转载请注明|版权(?:所有|归|声明)|免责声明|责任编辑|分享到|收藏本站|加入书架|推荐阅读|相关阅读|相关文章|猜你喜欢|"
    r"热门(?:故事|文章|推荐)|广告位|广告联系|登录注册|首页\s*[>›»|/]|当前位置[:：]|微信(?:群|号)"
)
_NAV_AD_LATIN = re.compile(
    r"(?:QQ|qq)(?:群|号)|copyright|all rights reserved|click here|read more|share this|advertisement", re.I
)
_TWO_LETTERS = re.compile("[A-Za-z\u0130\u0131\u017f\u212a]{2}")


def is_nav_ad(text: str) -> bool:
    """Whether NAV_AD matches somewhere in `text` (tests/test_clean_speed.py holds the two to each other)."""
    return _NAV_AD_HAN.search(text) is not None or (
        _TWO_LETTERS.search(text) is not None and _NAV_AD_LATIN.search(text) is not None
    )


NAV_MAX_CHARS = 80  # a navigation or ad segment is short; a long sentence with such a word is story text
# (图) 【广告】 [1] （本文完） （来源：……） and the like: brackets whose content is noise
BRACKETED = re.compile(
    r"[（(【\[［〔]\s*(?:图片?|插图|配图|广告|推广|来源[^）)】\]］〕]{0,30}|作者[^）)】\]］〕]{0,20}|编辑[^）)】\]］〕]{0,20}|"
    r"转载[^）)】\]］〕]{0,30}|完|全文完|本文完|未完待续|待续|注\d*|\d{1,3}|img|image|ad|pic)\s*[）)】\]］〕]",
    re.I,
)
EMPTY_BRACKETS = re.compile(r"[（(]\s*[）)]|【\s*】|\[\s*\]|［\s*］")
# U+FFFD, private use, unassigned-looking boxes, the classic GBK/UTF-8 mojibake runs, Latin-1 mojibake
GARBLED = re.compile(
    r"[\ufffd\ue000-\uf8ff\u25a1\u25a0]+|(?:锟斤拷)+|(?:烫)+烫|(?:屯)+屯|(?:[\u00c0-\u00ff][\u0080-\u00bf]{1,2}){2,}|"
    r"(?:[ÃÂâ][\u0080-\u00ff]){2,}"
)
REPEATED = [
    (re.compile(r"(?:。){2,}|(?:\.{3,})|(?:…){3,}|(?:…+。+|。+…+)"), "……"),
    (re.compile(r"！{2,}"), "！"),
    (re.compile(r"？{2,}"), "？"),
    (re.compile(r"，{2,}"), "，"),
    (re.compile(r"、{2,}"), "、"),
    (re.compile(r"～{2,}|~{2,}"), "～"),
    (re.compile(r"；{2,}"), "；"),
    (re.compile(r"!{2,}"), "!"),
    (re.compile(r"\?{2,}"), "?"),
    (re.compile(r"-{3,}|—{3,}|_{3,}|={3,}|\*{3,}"), ""),
]
#: what each pattern of REPEATED cannot match without (one of these strings): a text without them skips its
#: substitution (a few substring tests where "……", in most Chinese stories, made one shared gate let all ten run)
_REPEATED_NEEDS = (
    ("。。", "...", "………", "…。", "。…"),
    ("！！",),
    ("？？",),
    ("，，",),
    ("、、",),
    ("～～", "~~"),
    ("；；",),
    ("!!",),
    ("??",),
    ("---", "———", "___", "===", "***"),
)
#: what each pattern stripped by strip_noise cannot match without: a text without it skips the pattern's search
_NEEDS = {
    "link": re.compile(r"://|[Ww][Ww][Ww]\."),  # what r"://|www\." ignoring case matches (no other letter folds to w)
    "email": re.compile("@"),
    "bracketed_noise": re.compile(r"[（(【\[［〔]"),
    "garbled": re.compile(r"[\ufffd\ue000-\uf8ff\u25a1\u25a0锟烫屯\u00c0-\u00ff]"),
}


@dataclass
class Stripped:
    text: str
    removed: dict[str, list[str]] = field(default_factory=dict)  # rule -> removed snippets (evidence)
    # the text that was split into sentences, and its sentences: a caller splitting the same text again reuses them
    split: tuple[str, list[str]] | None = None

    def note(self, rule: str, snippets: list[str]) -> None:
        if snippets:
            self.removed.setdefault(rule, []).extend(s[:60] for s in snippets)


def _sub(pattern: re.Pattern, text: str, repl: str = "") -> tuple[str, list[str]]:
    found = [m.group(0) for m in pattern.finditer(text)]
    return (pattern.sub(repl, text), found) if found else (text, [])


def strip_noise(text: str, lang: str = "zh") -> Stripped:
    """Remove links, e-mails, nav/ad segments, bracketed noise and garbled runs; fix repeated
    punctuation. Returns the new text and what each rule removed."""
    result = Stripped(text)
    for rule, pattern in (("link", URL), ("email", EMAIL), ("bracketed_noise", BRACKETED), ("garbled", GARBLED)):
        if _NEEDS[rule].search(result.text):
            result.text, found = _sub(pattern, result.text)
            result.note(rule, found)
    if _NEEDS["bracketed_noise"].search(result.text):
        result.text, found = _sub(EMPTY_BRACKETS, result.text)
        result.note("bracketed_noise", found)
    sentences = split_sentences(result.text, lang) if result.text else []
    result.split = (result.text, sentences)
    if is_nav_ad(result.text):  # a segment that matches is part of the text: no match there, no segment to test
        is_nav = [len(s) <= NAV_MAX_CHARS and is_nav_ad(s) for s in sentences]
        result.note("nav_ad", [s for s, nav in zip(sentences, is_nav) if nav])
        kept = [s for s, nav in zip(sentences, is_nav) if not nav]
    else:
        kept = sentences
    result.text = "".join(kept) if lang == "zh" else " ".join(s.strip() for s in kept)
    before = result.text
    result.text = fix_repeated(result.text)
    if result.text != before:
        result.note("repeated_punct", ["fixed"])
    result.text = result.text.strip()
    return result


def fix_repeated(text: str) -> str:
    """The substitutions of REPEATED, one after the other, each only where its pattern can match."""
    for (pattern, repl), needs in zip(REPEATED, _REPEATED_NEEDS):
        if any(need in text for need in needs):
            text = pattern.sub(repl, text)
    return text


@lru_cache(maxsize=1)
def _t2s():
    from lotdata.errors import require

    opencc = require("opencc", "sources")
    try:
        return opencc.OpenCC("t2s")
    except Exception:  # the official OpenCC package names its configs with .json
        return opencc.OpenCC("t2s.json")


def to_simplified(text: str) -> str:
    """Traditional -> simplified Chinese with OpenCC (optional dependency, extra 'sources')."""
    return _t2s().convert(text)


# --------------------------------------------------------------------------------------------
# flags (annotators judge them; nothing is dropped for a flag)

_QUOTED = re.compile(r"“[^“”]*”|「[^「」]*」|『[^『』]*』|\"[^\"]*\"")


def dialogue_share(text: str) -> float:
    """Share of the characters that sit inside quotation marks (direct speech)."""
    if not text:
        return 0.0
    return sum(len(m.group(0)) for m in _QUOTED.finditer(text)) / len(text)


_CLASSICAL = set("之乎者也矣焉哉曰兮尔吾汝其乃遂亦皆莫弗勿夫盖故而于以")
_MODERN = set("的了是们这那么吗呢吧着很就都没")


_NOT_HAN = re.compile("[^\u4e00-\u9fff]+")
# every classical and modern function character is a Han character: counted in the text, they are counted in its Han
_CLASSICAL_CHAR = re.compile("[" + "".join(sorted(_CLASSICAL)) + "]")
_MODERN_CHAR = re.compile("[" + "".join(sorted(_MODERN)) + "]")


def classical_score(text: str) -> tuple[float, float]:
    """(classical function characters, modern function characters) per character of Chinese text."""
    han = len(_NOT_HAN.sub("", text))
    if not han:
        return 0.0, 0.0
    return len(_CLASSICAL_CHAR.findall(text)) / han, len(_MODERN_CHAR.findall(text)) / han


def is_classical(text: str) -> bool:
    # modern function characters over the whole length are at most their share of the Han characters (the rounded
    # quotients keep that order): at 2% of the length the text is modern without counting its Han characters
    if text and len(_MODERN_CHAR.findall(text)) / len(text) >= 0.02:
        return False
    classical, modern = classical_score(text)
    return classical >= 0.08 and modern < 0.02


# Narrative vs expository: markers of told events against markers of explanation and argument.
_NARRATIVE = re.compile(
    r"有一天|一天|有一次|从前|很久以前|很久很久以前|后来|那天|这天|当时|于是|突然|忽然|终于|只见|不料|连忙|赶紧|"
    r"说[：:]|问[：:]|道[：:]|喊[：:]|叫[：:]|答[：:]|想[：:]|笑着|回答|决定|看见|看到|听到|来到|走进|走过|跑到|拿起|带着|告诉|"
    r"对.{1,6}说"
)
_EXPOSITORY = re.compile(
    r"研究|科学|专家|调查|表明|证明|数据|%|百分之|是一种|一般|通常|可以|应该|我们|人们|如果|因此|首先|其次|"
    r"第[一二三四]，|总之|例如|比如|有利于|影响|方法|问题|健康|特点|作用|原因|世界上|越来越|重要|需要|必须|能够|"
    r"具有|主要|之一|对于|不仅|此外|随着|提高|发展|社会|往往|容易|导致|能力|有助于|专门|根据|其中|大约|左右|"
    r"\?|？"
)
# every alternative of _NARRATIVE and _EXPOSITORY starts with a literal character (no class), so the regex engine
# skips to the next possible first character instead of trying each alternative at every position (3x faster)
_PRONOUNS = re.compile(r"[他她它]")


def narrative_score(text: str) -> float:
    """Per 100 characters: narrative markers (and third-person pronouns, 了) minus expository
    markers. Low values are explanation or argument rather than a story."""
    if not text:
        return 0.0
    narrative = len(_NARRATIVE.findall(text)) + 0.3 * len(_PRONOUNS.findall(text)) + 0.3 * text.count("了")
    expository = len(_EXPOSITORY.findall(text))
    return 100.0 * (narrative - expository) / len(text)


# a time phrase and a comma: how a story's first sentence starts ("一天，" "从前，" "星期天，")
_OPENERS = re.compile(
    r"^(?:有一天|一天|有一次|从前|很久以前|很久很久以前|古时候|(?:春|夏|秋|冬)天|今天|昨天|早上|清晨|傍晚|晚上|"
    r"星期[一二三四五六日天]|这天|那天|这一天|一天早上|一天晚上)[，,]"
)
_TITLE_END_BAD = set("的地得了着在是和与把被从向")
_TITLE_START_BAD = set("一有在这那我你他她它从很每当")
_NOUN_PHRASE_POS = ("n", "a", "b", "c", "uj", "m", "q")  # POS prefixes a title's words may have
_SENTENCE_END = re.compile(r"[。！？!?]")


def glued_title(text: str, title: str | None = None) -> str | None:
    """The title glued to the first sentence ("小猫钓鱼猫妈妈带着小猫……"), if the text seems to
    start with one; None otherwise.

    A known title at the very start is certain. Otherwise a prefix of 2-12 characters ending on a
    noun counts when what follows it opens a story ("新房子|一天，", the prefix a noun phrase) or
    starts again with a noun of the prefix ("小猴吃西瓜|小猴跑到"). Tuned for precision (about 1 in
    600 CMRC stories, which have no titles, is flagged): titles without such a seam are missed."""
    if title and text.startswith(title) and len(text) > len(title) and text[len(title)] not in "，。！？：；、”":
        return title
    sentence = _SENTENCE_END.split(text, maxsplit=1)[0]
    if len(sentence) < 6 or not _may_glue(sentence):
        return None
    tagged = _pos_words(sentence)
    prefix = ""
    prefix_words: list[str] = []
    noun_phrase = True  # every word so far could be part of a noun-phrase title
    for i, (word, pos) in enumerate(tagged[:-1]):
        if not any(ch.isalnum() for ch in word):  # a title holds no punctuation
            break
        noun_phrase = noun_phrase and pos.startswith(_NOUN_PHRASE_POS)
        prefix += word
        prefix_words.append(word)
        if len(prefix) > 12:
            break
        if len(prefix) < 2 or prefix[0] in _TITLE_START_BAD or prefix[-1] in _TITLE_END_BAD or not pos.startswith("n"):
            continue  # a title starts with content and ends on a noun
        rest = sentence[len(prefix) :]
        if len(rest) < 2:
            break
        next_word, next_pos = tagged[i + 1]
        if noun_phrase and _OPENERS.match(rest):
            return prefix
        # "小猴吃西瓜|小猴跑到……": a noun of the title starts the story again, with no punctuation between
        if len(next_word) >= 2 and next_word in prefix_words and next_pos.startswith("n"):
            return prefix
    return None


# the openers matched at a position of the sentence rather than at its start
_OPENER_AT = re.compile(_OPENERS.pattern.removeprefix("^"))
_OPENER_LONGEST = 7  # "很久很久以前，" (tests/test_clean_speed.py checks it against the alternatives)


def _may_glue(sentence: str) -> bool:
    """False when `glued_title` cannot find a title in `sentence` whatever its words and tags: no story opener starts
    at characters 2-12 and no two characters starting at 0-12 repeat (a title of 2-12 characters is followed by an
    opener or by one of its own words). Then the part-of-speech pass is skipped; the result is the same."""
    if any(ch.isspace() for ch in sentence[:16]):  # blank words leave the tagger's words: positions would shift
        return True
    bigrams = [sentence[k : k + 2] for k in range(min(13, len(sentence) - 1))]
    if len(set(bigrams)) < len(bigrams):
        return True
    # the first opener starting at 2 or later, within reach of position 12 (an opener and its comma: at most 7)
    opener = _OPENER_AT.search(sentence, 2, 12 + _OPENER_LONGEST)
    return opener is not None and opener.start() <= 12


def _pos_words(text: str) -> list[tuple[str, str]]:
    # jieba.posseg's words and tags (HMM off) without jieba: half the memory a worker needs, in Rust
    from lotdata.text.postag import pos_words_nohmm

    return pos_words_nohmm(text)


# --------------------------------------------------------------------------------------------
# the rules, by name

#: what a clean rule does to a story: its text loses the noise, the story goes to the quarantine, or it gets a flag
CLEAN_ACTIONS = ("stripped", "removed", "flagged")


@dataclass(frozen=True)
class CleanRule:
    """One named rule of `lotdata clean`: what it does (`action`, one of CLEAN_ACTIONS) and when (`description`).
    `flag`: the flag a stripped rule leaves on the story (default `stripped_<name>`); `judgement`: a flag that
    counts against a copy when the best of duplicates is chosen (and that annotators judge)."""

    name: str
    action: str
    description: str
    flag: str | None = None
    judgement: bool = False

    def __post_init__(self) -> None:
        if self.action not in CLEAN_ACTIONS:
            raise ValueError(f"clean rule {self.name!r}: action must be one of {CLEAN_ACTIONS}, not {self.action!r}")
        if self.flag is None and self.action == "stripped":
            object.__setattr__(self, "flag", f"stripped_{self.name}")
        if self.flag is None and self.action == "flagged":
            object.__setattr__(self, "flag", self.name)


#: every clean rule: the built-in ones (below, in the order `clean` applies them), then those registered later or by
#: a package's `lotdata.clean_rules` entry point
CLEAN_RULE_REGISTRY: Registry[CleanRule] = Registry("clean_rule", modules=("clean/rules.py",))


def register_clean_rule(rule: CleanRule) -> CleanRule:
    """Add a clean rule; a name another record holds is a RegistryError."""
    return CLEAN_RULE_REGISTRY.register(rule, stacklevel=2)


def unregister_clean_rule(name: str) -> None:
    """Forget a clean rule registered at run time (a test's made-up one)."""
    CLEAN_RULE_REGISTRY.unregister(name)


def get_clean_rule(name: str) -> CleanRule:
    """The clean rule `name` (RegistryError naming the rules when there is none)."""
    return CLEAN_RULE_REGISTRY.get(name)


def clean_rules() -> list[CleanRule]:
    """Every clean rule, in the order `clean` applies them."""
    return CLEAN_RULE_REGISTRY.all()


BUILTIN_CLEAN_RULES = (
    CleanRule("link", "stripped", "links (http://, ftp://, www.) removed from the text"),
    CleanRule("email", "stripped", "e-mail addresses removed from the text"),
    CleanRule(
        "nav_ad", "stripped", f"navigation, ad and site boilerplate segments (at most {NAV_MAX_CHARS} characters)"
    ),
    CleanRule("garbled", "stripped", "garbled characters (U+FFFD, private use, mojibake runs)"),
    CleanRule(
        "bracketed_noise", "stripped", "bracketed noise: (图) 【广告】 [1] （本文完） （来源：……） and empty brackets"
    ),
    CleanRule(
        "repeated_punct", "stripped", "repeated punctuation made single (。。。 -> ……, ！！ -> ！)", flag="fixed_punct"
    ),
    CleanRule(
        "pii",
        "stripped",
        "personal information masked with a typed placeholder ([PHONE] [ID] [EMAIL] [QQ] [WECHAT] [ADDRESS]), "
        "per kind as `pii` says",
    ),
    CleanRule("length_min", "removed", "fewer than `min_chars` characters after cleaning"),
    CleanRule("length_max", "removed", "more than `max_chars` characters"),
    CleanRule("lexicon", "removed", "a term of the lexicon occurs (evidence: the terms)"),
    CleanRule(
        "language",
        "removed",
        "the cleaned text is not in the story's `lang`, has no letters, or more than 10% of its clauses are written "
        "in another script (lotdata.text.langid, the identifier `read` uses; `language_check`)",
    ),
    CleanRule(
        "pii_quarantine",
        "removed",
        "personal information of a kind whose `pii` action is quarantine (evidence: the kinds and counts, no value)",
    ),
    CleanRule("exact_duplicate", "removed", "the same cleaned text as a better copy"),
    CleanRule("near_duplicate", "removed", "estimated Jaccard >= `near_dup` with a better copy"),
    CleanRule("held_out", "removed", "the source story of a held-out val/test case (`hold_out`), by id or near copy"),
    CleanRule("has_dialogue", "flagged", "quoted speech"),
    CleanRule("dialogue_heavy", "flagged", "quoted speech over `dialogue_share` of the text", judgement=True),
    CleanRule("classical", "flagged", "classical Chinese (function characters of 文言 dominate)", judgement=True),
    CleanRule(
        "non_narrative", "flagged", "expository or argumentative (narrative score below threshold)", judgement=True
    ),
    CleanRule("too_short", "flagged", "fewer than `short_chars` characters", judgement=True),
    CleanRule("too_long", "flagged", "more than `long_chars` characters", judgement=True),
    CleanRule("title_glued", "flagged", "a title seems glued to the first sentence", judgement=True),
    CleanRule(
        "near_duplicate_cluster",
        "flagged",
        "kept, but estimated Jaccard >= `cluster` with another kept story: both get the `cluster_id`",
    ),
)
for _rule in BUILTIN_CLEAN_RULES:
    register_clean_rule(_rule)
#: the flags that count against a copy when the best of duplicates is chosen
JUDGEMENT_FLAGS = tuple(rule.name for rule in BUILTIN_CLEAN_RULES if rule.judgement)
