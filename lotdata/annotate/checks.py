"""Automatic checks on crowd submissions as named rules (ROCStories §3.1 and §4.2, Table 1).

A rule is a name, a one-line description and a function. A per-row rule takes one submission and the check
options and returns the details of its violations (empty: none); a batch rule (near-duplicate) sees every
submission at once. A job declares the rules it runs (`Job.checks`); `lotdata annotate check JOB` runs them on
any file and pull runs them on every submission, which then goes to review with its flags (a flagged
submission is never dropped silently).

A submission is a dict: `id`, `lang`, `title` (absent: the title rule is skipped), `sentences` (the writer's
five fields, in order; absent: `text` is split), `text`; an ending-writing case has `context` (the four
sentences), `right_ending` and `wrong_ending`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from lotdata.registry import Registry
from lotdata.text import normalize_text
from lotdata.text.sentences import EN_ABBREVIATIONS, split_zh

Row = Mapping[str, Any]

#: ROCStories §3.1: "each sentence ... no longer than 70 characters"
MAX_SENTENCE_CHARS = 70
STORY_SENTENCES = 5
#: LOT appendix 1: the rewritten story differs from the segment by at most 100 字 (characters; words in English)
MAX_REWRITE_CHANGE = 100
#: a submission is a near copy of another when the MinHash estimate of their Jaccard similarity reaches this
NEAR_DUPLICATE_THRESHOLD = 0.8


@dataclass
class CheckOptions:
    lang: str = "en"
    max_chars: int = MAX_SENTENCE_CHARS
    sentences: int = STORY_SENTENCES
    near_duplicate: float = NEAR_DUPLICATE_THRESHOLD
    corpus: Sequence[str] = ()  # texts a submission must not copy (an existing corpus)
    corpus_ids: Sequence[str] = ()
    max_rewrite_change: int = (
        MAX_REWRITE_CHANGE  # story_filter: characters (words in English) a rewrite may add or drop
    )


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    row: Callable[[Row, CheckOptions], list[str]] | None = None
    batch: Callable[[Sequence[Row], CheckOptions], dict[int, list[str]]] | None = None
    needs: str | None = None  # a field without which the rule does not apply (reported as skipped)

    def __post_init__(self) -> None:
        if (self.row is None) == (self.batch is None):
            raise ValueError(
                f"check rule {self.name!r}: give exactly one of `row` (per submission) and `batch` (all at once)"
            )


# ---------------------------------------------------------------- sentences

#: the dataset splitter's abbreviations and more (months, degrees, "U.S.A."): only counts here, so a longer list
#: cannot change a built dataset's sentences
_EN_ABBREVIATIONS = EN_ABBREVIATIONS | {
    *"approx aug d.c dec dept feb fig jan nov oct ph.d sept u.k u.s.a".split(),
}
#: words that open a sentence: after an abbreviation with a final dot ("the U.S. He ...") they mark a new sentence,
#: and after a word without punctuation ("... the game His children ...") a sentence whose full stop is missing
_OPENERS = {
    "i",
    "he",
    "she",
    "they",
    "we",
    "it",
    "you",
    "his",
    "her",
    "their",
    "our",
    "my",
    "the",
    "this",
    "that",
    "there",
    "then",
    "when",
    "after",
    "one",
    "so",
    "but",
    "now",
    "later",
    "finally",
    "soon",
    "eventually",
    "unfortunately",
    "luckily",
    "thankfully",
    "suddenly",
    "everyone",
    "nobody",
    "today",
    "tomorrow",
    "yesterday",
    "afterwards",
    "next",
    "while",
    "since",
    "as",
    "at",
    "on",
    "in",
    "every",
    "still",
    "however",
    "also",
    "instead",
    "meanwhile",
    "everything",
    "nothing",
    "someone",
    "a",
    "an",
    "all",
    "some",
    "both",
    "if",
    "because",
    "once",
    "before",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "twenty",
    "several",
    "many",
    "few",
}
_EN_END = re.compile(r"""[.!?]+["'”’)\]]*(?=\s)""")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’.-]*")


def split_submission_en(text: str) -> list[str]:
    """English sentences of a submission: cut after . ! ? (and closing quotes) before a space, except after an
    abbreviation ("Mr.", "U.S.", "e.g.") or an initial ("J. K."), unless the next word opens a sentence
    ("... in the U.S. He moved ..."); a number's point ("3.5") is never followed by a space. Inside a balanced
    pair of straight quotes there is no cut. Lower-case after a full stop is still a new sentence (a writer's slip)."""
    text = " ".join(text.split())
    quotes_balanced = text.count('"') % 2 == 0
    sentences, start = [], 0
    for match in _EN_END.finditer(text):
        end = match.end()
        if quotes_balanced and text[start:end].count('"') % 2 == 1:
            continue
        before = text[start : match.start()].rsplit(" ", 1)[-1]
        after = text[end:].lstrip().split(" ", 1)[0]
        if match.group().startswith(".") and _abbreviation(before, after) and not _opens(after):
            continue
        sentences.append(text[start:end].strip())
        start = end
    if text[start:].strip():
        sentences.append(text[start:].strip())
    return sentences


def _opens(word: str) -> bool:
    word = word.strip("\"“'")
    return word[:1].isupper() and word.lower() in _OPENERS


def _abbreviation(word: str, next_word: str) -> bool:
    word = word.lstrip("\"“'(")
    if len(word) == 1:
        return word.isupper()  # an initial
    if word.lower() == "no":
        return next_word[:1].isdigit()  # "No. 5", but "she said no. Then"
    return word.lower() in _EN_ABBREVIATIONS or bool(re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word))


def split_submission(text: str, lang: str) -> list[str]:
    return list(_split_cached(text, lang))


@lru_cache(maxsize=65536)  # every rule asks for the same sentences
def _split_cached(text: str, lang: str) -> tuple[str, ...]:
    return tuple(split_zh(normalize_text(text, "zh")) if lang == "zh" else split_submission_en(text))


_SHOUTED_OPENERS = {"he", "she", "they", "we", "it"}


def missing_stops_en(sentence: str, names: set[str], *, strong_only: bool = False) -> list[int]:
    """Word positions in one English sentence where a new sentence seems to start with its full stop missing: after
    a word without punctuation (or a comma), a capitalised sentence opener ("He", "The", "Finally"). Weaker signs,
    used to count but not to point (`strong_only`): "I" after a word that does not lead into it, and a name that
    opens another sentence of the story ("... going home Sam's dog ...")."""
    words = sentence.split()
    shouting = sentence.isupper()  # a text in capitals: only pronouns count
    found = []
    for k, (before, word) in enumerate(zip(words, words[1:]), 1):
        bare = re.sub(r"['’]s?$", "", word.strip("\"“',"))
        joined = before[-1:].isalnum() or before.endswith(",")
        if shouting:
            if joined and bare.lower() in _SHOUTED_OPENERS:
                found.append(k)
            continue
        if bare == "I":
            weak_i = before[-1:].isalnum() and before.lower() not in _BEFORE_I
            if weak_i and not strong_only:
                found.append(k)
            continue
        if not joined or not bare[:1].isupper() or bare.isupper():
            continue
        if bare.lower() in _OPENERS or (bare.endswith("ly") and len(bare) > 4):
            found.append(k)
        elif bare in names and not strong_only and before.lower() not in _LEADS_TO_NAME:
            found.append(k)
    return found


#: words after which a name goes on the sentence
_LEADS_TO_NAME = {
    "and",
    "or",
    "but",
    "with",
    "to",
    "of",
    "at",
    "for",
    "by",
    "from",
    "that",
    "than",
    "as",
    "like",
    "named",
    "called",
    "about",
    "saw",
    "told",
    "asked",
    "helped",
    "met",
    "gave",
    "let",
    "made",
    "when",
    "while",
    "if",
    "because",
    "until",
    "whom",
    "whose",
    "on",
    "in",
    "into",
    "onto",
    "after",
    "before",
    "since",
}


#: words after which "I" goes on the sentence ("so I", "when I", "and I")
_BEFORE_I = {
    "and",
    "but",
    "or",
    "so",
    "when",
    "as",
    "because",
    "if",
    "that",
    "than",
    "until",
    "while",
    "where",
    "what",
    "after",
    "since",
    "then",
    "how",
    "why",
    "who",
    "which",
    "though",
    "although",
    "once",
    "unless",
    "whether",
    "nor",
    "yet",
    "me",
    "am",
    "did",
    "could",
    "would",
    "should",
    "do",
    "can",
    "will",
    "have",
    "had",
    "day",
    "night",
    "week",
    "month",
    "year",
    "morning",
    "evening",
    "afternoon",
    "ago",
    "today",
    "yesterday",
    "tomorrow",
    "now",
    "finally",
    "later",
    "soon",
    "eventually",
    "recently",
    "first",
    "think",
    "thought",
    "knew",
    "know",
    "said",
    "says",
    "realized",
    "decided",
    "felt",
    "hope",
    "hoped",
    "wish",
    "wished",
    "guess",
    "sure",
    "glad",
    "happy",
    "afraid",
    "time",
    "everything",
    "something",
    "all",
    "where",
    "whenever",
}


def story_names(sentences: Sequence[str]) -> set[str]:
    """Capitalised first words of the sentences that are not common openers: the story's characters' names."""
    return {
        re.sub(r"['’]s$", "", s.split()[0].strip("\"“'"))
        for s in sentences
        if s.split() and s.split()[0].strip("\"“'").lower() not in _OPENERS
    }


def pieces_en(sentence: str, names: set[str]) -> list[str]:
    """A sentence cut where a full stop seems missing."""
    words = sentence.split()
    cuts = [0, *missing_stops_en(sentence, names), len(words)]
    return [" ".join(words[a:b]) for a, b in zip(cuts, cuts[1:]) if b > a]


# ---------------------------------------------------------------- lexicons


@lru_cache(maxsize=None)
def informal_lexicon(lang: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """Our slang / informal-language list (`lotdata/data/informal_LANG.txt`): one term per line, `#` comments."""
    path = Path(__file__).resolve().parents[1] / "data" / f"informal_{lang}.txt"
    terms = {line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()}
    terms.discard("")
    words = sorted(terms, key=len, reverse=True)
    if lang == "zh":
        pattern = re.compile("|".join(re.escape(t) for t in words))
    else:
        pattern = re.compile(
            r"(?<![A-Za-z'’.-])(?:" + "|".join(re.escape(t) for t in words) + r")(?![A-Za-z'’-]|\.[A-Za-z])",
            re.IGNORECASE,
        )
    return pattern, frozenset(terms)


# ---------------------------------------------------------------- the rules of a story


def story_sentences(row: Row, lang: str) -> list[str]:
    """The writer's sentences: the fields when the form had them, else the text split."""
    fields = row.get("sentences")
    if fields is not None:
        return [str(s or "").strip() for s in fields]
    return split_submission(str(row.get("text") or ""), lang)


def story_text(row: Row) -> str:
    fields = row.get("sentences")
    if fields is not None:
        return " ".join(str(s or "").strip() for s in fields if s)
    return str(row.get("text") or "")


def _lang(row: Row, options: CheckOptions) -> str:
    return options.lang or str(row.get("lang") or "en")


def five_sentences(row: Row, options: CheckOptions) -> list[str]:
    """Exactly five sentences. Typed in five fields: none empty, none holding two. Given as one text: counted by the
    splitter; a text with too few whose full stops seem missing ("... the game His children ...") is left to
    `end_punctuation` (a missing stop is not a missing sentence)."""
    lang = _lang(row, options)
    want = options.sentences
    if row.get("sentences") is not None:
        fields = story_sentences(row, lang)
        problems = [f"sentence {k} is empty" for k, s in enumerate(fields, 1) if not s]
        if len(fields) != want:
            problems.append(f"{len(fields)} sentence fields, expected {want}")
        for k, sentence in enumerate(fields, 1):
            parts = split_submission(sentence, lang) if sentence else []
            if len(parts) > 1:
                problems.append(f"sentence {k} holds {len(parts)} sentences")
        return problems
    sentences = split_submission(story_text(row), lang)
    if len(sentences) == want:
        return []
    if len(sentences) < want and lang == "en" and _missing_stops(sentences):
        return []
    return [f"{len(sentences)} sentences, expected {want}"]


def _missing_stops(sentences: Sequence[str], *, strong_only: bool = False) -> list[tuple[int, str]]:
    """(sentence number, word) where a full stop seems missing before the word."""
    names = story_names(sentences)
    return [
        (k, s.split()[w])
        for k, s in enumerate(sentences, 1)
        for w in missing_stops_en(s, names, strong_only=strong_only)
    ]


_EN_FINAL = re.compile(r"""[.!?]["'”’)\]]*$""")
_ZH_FINAL = re.compile(r"[。！？!?…][”’」』）)]*$")


def end_punctuation(row: Row, options: CheckOptions) -> list[str]:
    """Each sentence ends with a final mark (. ! ? / 。！？……); in a text with fewer sentences than asked, the places
    where a full stop seems missing."""
    lang = _lang(row, options)
    sentences = story_sentences(row, lang)
    problems = [
        f"sentence {k} has no final punctuation"
        for k, s in enumerate(sentences, 1)
        if s and not (_ZH_FINAL.search(s) or _EN_FINAL.search(s))
    ]
    if (
        row.get("sentences") is None
        and lang == "en"
        and len(sentences) < options.sentences
        and _missing_stops(sentences)
    ):
        strong = _missing_stops(sentences, strong_only=True)
        problems += [f"a full stop seems missing before {word!r} in sentence {k}" for k, word in strong] or [
            f"{len(sentences)} sentences where {options.sentences} are written: a full stop seems missing"
        ]
    return problems


def measured_sentences(row: Row, lang: str) -> list[str]:
    """The sentences whose length is measured: the fields, or the text's sentences cut where a stop is missing."""
    sentences = story_sentences(row, lang)
    if row.get("sentences") is not None or lang != "en" or len(sentences) >= STORY_SENTENCES:
        return sentences
    names = story_names(sentences)
    return [piece for s in sentences for piece in pieces_en(s, names)]


def sentence_length(row: Row, options: CheckOptions) -> list[str]:
    return [
        f"sentence {k}: {len(s)} characters (at most {options.max_chars})"
        for k, s in enumerate(measured_sentences(row, _lang(row, options)), 1)
        if len(s) > options.max_chars
    ]


def has_title(row: Row, options: CheckOptions) -> list[str]:
    title = str(row.get("title") or "").strip()
    if not title:
        return ["no title"]
    if len(title) > options.max_chars:
        return [f"title: {len(title)} characters (at most {options.max_chars})"]
    return []


_QUOTES_EN = re.compile(r"(?<![0-9])\"|[“”«»]|(?<![A-Za-z])'(?=[A-Za-z][^']*'(?![A-Za-z]))")
_QUOTES_ZH = re.compile(r"[\"“”「」『』‘’«»]")


def no_quotations(row: Row, options: CheckOptions) -> list[str]:
    lang = _lang(row, options)
    pattern = _QUOTES_ZH if lang == "zh" else _QUOTES_EN
    found = [(k, m.group()) for k, s in enumerate(_texts(row, lang), 1) for m in pattern.finditer(s)]
    return [f"quotation mark {mark!r} in {where}" for where, mark in _first_per_field(found, row)]


def _texts(row: Row, lang: str) -> list[str]:
    if row.get("right_ending") is not None or row.get("wrong_ending") is not None:
        return [str(row.get("right_ending") or ""), str(row.get("wrong_ending") or "")]
    return [str(row.get("title") or ""), *story_sentences(row, lang)]


def _first_per_field(found: list[tuple[int, str]], row: Row) -> list[tuple[str, str]]:
    seen: dict[int, str] = {}
    for k, mark in found:
        seen.setdefault(k, mark)
    ending = row.get("right_ending") is not None or row.get("wrong_ending") is not None
    names = {1: "the right ending", 2: "the wrong ending"} if ending else {1: "the title"}
    return [(names.get(k, f"sentence {k - 1}"), mark) for k, mark in seen.items()]


def no_informal(row: Row, options: CheckOptions) -> list[str]:
    lang = _lang(row, options)
    pattern, _ = informal_lexicon(lang)
    text = " ".join(_texts(row, lang))
    hits = list(dict.fromkeys(m.group().lower() for m in pattern.finditer(text)))
    return [f"informal: {', '.join(hits)}"] if hits else []


_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def language(row: Row, options: CheckOptions) -> list[str]:
    """English: letters all Latin (at most 5% CJK); Chinese: at least 60% of the letters CJK ideographs."""
    lang = _lang(row, options)
    text = " ".join(_texts(row, lang))
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    letters = sum(ch.isalpha() for ch in text)
    if not letters:
        return ["no letters"]
    if lang == "en" and (cjk / letters > 0.05 or latin / letters < 0.9):
        return [f"not English: {latin} Latin letters of {letters}"]
    if lang == "en":
        words = re.findall(r"[a-z]+", text.lower())
        common = sum(w in _english_stopwords() for w in words)
        if len(words) >= 8 and common / len(words) < 0.15:  # Latin letters, but few English function words
            return [f"not English: {common} of {len(words)} words are common English words"]
    if lang == "zh" and cjk / letters < 0.6:
        return [f"not Chinese: {cjk} Chinese characters of {letters} letters"]
    return []


@lru_cache(maxsize=1)
def _english_stopwords() -> frozenset[str]:
    from lotdata.tasks.outline import load_stopwords

    return load_stopwords("en")


def near_duplicates(rows: Sequence[Row], options: CheckOptions) -> dict[int, list[str]]:
    """A submission that is a near copy (MinHash, lotdata.clean.dedup) of an earlier one or of the given corpus."""
    from lotdata.clean.dedup import DedupParams, find_near_duplicates

    texts = [*options.corpus, *(story_text(r) or _ending_text(r) for r in rows)]
    if len(texts) < 2:
        return {}
    langs = [options.lang or "en"] * len(texts)
    n_corpus = len(options.corpus)
    params = DedupParams(
        shingle=3 if langs[0] == "en" else 5,
        reject_threshold=options.near_duplicate,
        cluster_threshold=min(0.5, options.near_duplicate),
    )
    found = find_near_duplicates([t.lower() for t in texts], langs, rank=lambda i: (i,), params=params)
    flags: dict[int, list[str]] = {}
    for i, of in enumerate(found.duplicate_of):
        if i < n_corpus or of is None or of < 0:
            continue
        if of < n_corpus:
            name = options.corpus_ids[of] if of < len(options.corpus_ids) else f"corpus story {of + 1}"
            what = f"near copy of {name} in the corpus"
        else:
            what = f"near copy of submission {rows[of - n_corpus].get('id')}"
        flags[i - n_corpus] = [f"{what} (similarity {found.similarity[i]:.2f})"]
    return flags


def _ending_text(row: Row) -> str:
    return " ".join(str(row.get(k) or "") for k in ("context_text", "right_ending", "wrong_ending"))


# ---------------------------------------------------------------- the rules of a Story Cloze case (§4.2)

_PRONOUNS_EN = {
    "he",
    "she",
    "they",
    "i",
    "we",
    "his",
    "her",
    "him",
    "them",
    "their",
    "my",
    "me",
    "our",
    "us",
    "you",
    "your",
}
#: English nouns that name a person or an animal of a story (its roles), singular
_ROLES_EN = frozenset(
    "mom dad mother father brother sister son daughter wife husband friend teacher doctor neighbor boss uncle aunt "
    "grandma grandpa grandmother grandfather cousin girlfriend boyfriend man woman boy girl baby police officer "
    "dog cat horse donkey deer cow pig sheep goat chicken duck bird fish wolf fox bear lion tiger rabbit mouse "
    "monkey snake frog owl king queen prince princess wizard witch goblin devil ghost "
    "employee librarian driver student classmate coworker manager customer waiter waitress nurse cop clerk cashier "
    "player coach guest owner stranger kid child parent family team crowd audience puppy kitten fiance "
    "roommate landlord judge lawyer firefighter pilot chef baker farmer dentist vet".split()
)
_PLURAL_ROLES_EN = {"men": "man", "women": "woman", "children": "child", "people": "person", "wives": "wife"}
#: a person pronoun's class: which references in the four sentences it can stand for
_PRONOUN_CLASS_EN = {
    **dict.fromkeys(("i", "me", "my", "mine", "myself"), "1sg"),
    **dict.fromkeys(("we", "us", "our", "ours", "ourselves"), "1pl"),
    **dict.fromkeys(("you", "your", "yours", "yourself"), "2"),
    **dict.fromkeys(("he", "him", "his", "himself", "she", "her", "hers", "herself"), "3sg"),
    **dict.fromkeys(("they", "them", "their", "theirs", "themselves"), "3pl"),
    **dict.fromkeys(("everyone", "everybody"), "all"),
}
_CONTRACTION = re.compile(r"['’](?:m|re|ll|ve|d|s)$")


def _references_en(text: str) -> set[tuple[str, str]]:
    """Who an English text refers to: ("name", Karen), ("role", teacher), ("role+", friend) for a plural role, and
    ("pronoun", 3sg) for a person pronoun by its class."""
    refs: set[tuple[str, str]] = set()
    for word in _WORD.findall(text):
        bare = _CONTRACTION.sub("", word.rstrip(".")).lower()
        if bare in _PRONOUN_CLASS_EN:
            refs.add(("pronoun", _PRONOUN_CLASS_EN[bare]))
        elif bare in _ROLES_EN:
            refs.add(("role", bare))
        elif bare in _PLURAL_ROLES_EN or (bare.endswith("s") and bare[:-1] in _ROLES_EN):
            refs.add(("role+", _PLURAL_ROLES_EN.get(bare, bare[:-1])))
    refs |= {("name", name.lower()) for name in _characters(text, "en") if name.lower() not in _PRONOUN_CLASS_EN}
    return refs


def _shares_character_en(context: set[tuple[str, str]], ending: set[tuple[str, str]]) -> bool:
    """Whether an ending refers to someone of the four sentences: the same name or role, or a pronoun that can
    stand for one of them (he for a name, they for a plural or for two people, I for a first-person narrator)."""
    pronouns = {key for kind, key in context if kind == "pronoun"}
    names = {key for kind, key in context if kind == "name"}
    roles = {key for kind, key in context if kind == "role"}
    plural_roles = {key for kind, key in context if kind == "role+"}
    people = len(names) + len(roles) + len(plural_roles)
    stands_for = {
        "1sg": bool(pronouns & {"1sg", "1pl"}),
        "1pl": bool(pronouns & {"1sg", "1pl"}),
        "2": "2" in pronouns,
        "3sg": "3sg" in pronouns or bool(names or roles),
        "3pl": "3pl" in pronouns or bool(plural_roles) or people >= 2,
        "all": bool(pronouns or people),
    }
    for kind, key in ending:
        if kind == "name" and key in names:
            return True
        if kind in ("role", "role+") and key in roles | plural_roles:
            return True
        if kind == "pronoun" and stands_for[key]:
            return True
    return False


_PRONOUNS_ZH = ("他们", "她们", "我们", "咱们", "你们", "他", "她", "我", "你", "俺")


def _characters(text: str, lang: str) -> set[str]:
    """Who a text names: pronouns standing for people, and names (capitalised words not opening a sentence, or
    names that open one and recur; Chinese: person names by jieba's part-of-speech tags)."""
    if lang == "zh":
        found = {p for p in _PRONOUNS_ZH if p in text}
        found |= {p for p in _PEOPLE_ZH if p in text}
        found |= _zh_names(text)
        return found
    words = _WORD.findall(text)
    found = {w.lower() for w in words if w.lower() in _PRONOUNS_EN}
    found |= {
        w.rstrip(".'’s")
        for w in words
        if w[:1].isupper() and w.lower() not in _OPENERS and w.lower() not in _PRONOUNS_EN
    }
    return found


@lru_cache(maxsize=4096)
def _zh_names(text: str) -> frozenset[str]:
    from lotdata.text.postag import pos_words_nohmm

    names = {word for word, tag in pos_words_nohmm(text) if 2 <= len(word) <= 4 and tag in ("nr", "nrfg", "nrt")}
    # a nickname jieba does not know (小兰, 老张, 阿明): 小/老/阿 and one or two characters
    names |= set(re.findall(r"(?:小|老|阿)[\u4e00-\u9fff]", text))
    return frozenset(names)


#: people a Chinese story names by role rather than by name
_PEOPLE_ZH = frozenset(
    "妈妈 爸爸 母亲 父亲 奶奶 爷爷 外婆 外公 姥姥 老师 同学 朋友 哥哥 姐姐 弟弟 妹妹 儿子 女儿 妻子 丈夫 "
    "老板 医生 邻居 孩子 小狗 小猫 主人 老人 司机 警察 店主 同事 室友 男孩 女孩".split()
)


def shared_character(row: Row, options: CheckOptions) -> list[str]:
    lang = _lang(row, options)
    context = " ".join(row.get("context") or [])
    people = _characters(context, lang) if lang == "zh" else _references_en(context)
    problems = []
    for role in ("right_ending", "wrong_ending"):
        ending = str(row.get(role) or "")
        found = _zh_shared(people, ending) if lang == "zh" else _shares_character_en(people, _references_en(ending))
        if ending and not found:
            problems.append(f"{role.replace('_', ' ')} names no character of the first four sentences")
    return problems


def _zh_shared(people: set[str], ending: str) -> set[str]:
    """The people of `people` an ending names; a one-character pronoun counts as a word of its own (他, not 吉他)."""
    from lotdata.text import tokenize

    words = set(tokenize(ending, "zh"))
    return {p for p in people if (p in words if len(p) == 1 else p in ending)}


def endings_differ(row: Row, options: CheckOptions) -> list[str]:
    right = " ".join(str(row.get("right_ending") or "").lower().split())
    wrong = " ".join(str(row.get("wrong_ending") or "").lower().split())
    return ["the two endings are the same"] if right and right.rstrip(".!?。！？") == wrong.rstrip(".!?。！？") else []


def ending_length(row: Row, options: CheckOptions) -> list[str]:
    """Each ending: one sentence, 2 to `max_chars` characters."""
    lang = _lang(row, options)
    problems = []
    for role in ("right_ending", "wrong_ending"):
        ending = str(row.get(role) or "").strip()
        name = role.replace("_", " ")
        if len(ending) < 2:
            problems.append(f"{name} is empty")
        elif len(ending) > options.max_chars:
            problems.append(f"{name}: {len(ending)} characters (at most {options.max_chars})")
        elif len(split_submission(ending, lang)) > 1:
            problems.append(f"{name} holds {len(split_submission(ending, lang))} sentences")
    return problems


# ---------------------------------------------------------------- LOT's rater rules (appendix 1 and 2)

#: LOT appendix 1, Other Requirements 1: the only punctuation a story may use
ALLOWED_PUNCTUATION_SHOWN = {"zh": "？。，！……；《》", "en": ". , ? ! ; …"}  # as the screen lists them
ALLOWED_PUNCTUATION = {lang: frozenset(shown.replace(" ", "")) for lang, shown in ALLOWED_PUNCTUATION_SHOWN.items()}
#: inside an English word an apostrophe or a hyphen is spelling, not punctuation (don't, well-known)
_IN_WORD = re.compile(r"(?<=[A-Za-z])['’-](?=[A-Za-z])")


def rewrite_change(rewritten: str, segment: str, lang: str) -> int:
    """How much longer or shorter a rewrite is than its segment: characters (字, whitespace aside) for Chinese,
    words for English."""
    if lang == "zh":
        return abs(len("".join(rewritten.split())) - len("".join(segment.split())))
    return abs(len(rewritten.split()) - len(segment.split()))


def rewrite_length(row: Row, options: CheckOptions) -> list[str]:
    lang = _lang(row, options)
    change = rewrite_change(story_text(row), str(row.get("segment") or ""), lang)
    unit = "characters" if lang == "zh" else "words"
    return (
        [f"{change} {unit} longer or shorter than the segment (at most {options.max_rewrite_change})"]
        if change > options.max_rewrite_change
        else []
    )


def stray_punctuation(text: str, lang: str) -> list[str]:
    """The punctuation marks of `text` outside the allowed set, in order of first use."""
    import unicodedata

    allowed = ALLOWED_PUNCTUATION["zh" if lang == "zh" else "en"]
    text = normalize_text(text, "zh") if lang == "zh" else _IN_WORD.sub("", text)
    found = [ch for ch in text if unicodedata.category(ch)[0] in "PS" and ch not in allowed]
    return list(dict.fromkeys(found))


def punctuation(row: Row, options: CheckOptions) -> list[str]:
    lang = _lang(row, options)
    stray = stray_punctuation(story_text(row), lang)
    allowed = ALLOWED_PUNCTUATION_SHOWN["zh" if lang == "zh" else "en"]
    return [f"punctuation {' '.join(stray)} used; only {allowed} are allowed (LOT appendix 1)"] if stray else []


#: Chinese nouns that name a role (a person or an animal) by their last character, and the animals by any
_ROLE_ENDINGS_ZH = frozenset("人者师生长王官兵夫妇婆爷奶妈爸哥姐弟妹叔姨舅友匠商贼盗怪妖神仙魔主翁娘")
_ANIMALS_ZH = frozenset("驴马牛羊猪狗猫鸡鸭鹅鹿狼虎狮熊兔鼠猴象蛇鱼鸟狐龟蛙鹰雀燕鹤蜂蚁蝶鲸豹狸獾鸽鹦鹉")
_PLACE_ENDINGS_ZH = frozenset("村镇城市国省州县乡山岭峰河江湖海岛洋林庄寺庙宫殿府街路桥店院园堡洞谷岸港湾")


def _role_or_place_zh(word: str, tag: str) -> bool:
    """jieba's dictionary tags many plain words as names or places (明白 nr, 东西 ns, 太阳 ns), so a tag alone
    is not enough: a place must end like one (北京城, 村), a role like one (农夫, 猎人), and animals count by
    any character (驴子, 马)."""
    if not tag.startswith("n"):
        return False
    if any(ch in _ANIMALS_ZH for ch in word):
        return True
    if tag in ("ns", "nt"):
        return word[-1] in _PLACE_ENDINGS_ZH
    return len(word) >= 2 and word[-1] in _ROLE_ENDINGS_ZH


def _core_zh(word: str) -> set[str]:
    """What must appear for `word` to count as already there: the word, or its animals (小驴 -> 驴), or the word
    without a diminutive or a suffix (小明 -> 明, 驴子 -> 驴)."""
    animals = {ch for ch in word if ch in _ANIMALS_ZH}
    if animals:
        return animals
    return {word, word.lstrip("小老大阿").rstrip("子儿们") or word}


def new_entities(candidate: str, given: str, lang: str) -> list[str]:
    """The roles (people, animals) and places a candidate names that `given` (the context, with the original
    sentence: LOT appendix 2.2a lets a candidate bring in what the original brought in) does not. Chinese by
    jieba's part-of-speech tags, the same tagger as the Story Cloze checks, plus role words and animals; English
    by capitalised names and a lexicon of roles and animals. Things are not checked: a tagger cannot tell a new
    object from a part of a known one (the horse's hooves), so those stay with the reviewers."""
    if lang == "zh":
        from lotdata.text.postag import pos_words_nohmm

        found = [w for w, tag in pos_words_nohmm(candidate) if _role_or_place_zh(w, tag)]
        found += [p for p in _PEOPLE_ZH if p in candidate and not any(p in w for w in found)]
        return list(dict.fromkeys(w for w in found if not any(core in given for core in _core_zh(w))))
    given_words = {w.lower().rstrip(".'’s") for w in _WORD.findall(given)}
    found = [w for w in _WORD.findall(candidate) if w.lower().rstrip("s") in _ROLES_EN or w.lower() in _ROLES_EN]
    found += [w for w in _characters(candidate, "en") if w[:1].isupper()]
    return list(
        dict.fromkeys(w for w in found if w.lower().rstrip(".'’s") not in given_words and w.lower() not in given_words)
    )


def context_entities(row: Row, options: CheckOptions) -> list[str]:
    """LOT appendix 2.2a on a written candidate (`candidate`) of a story (`context`: its other sentences, and
    `original`: the sentence it replaces)."""
    lang = _lang(row, options)
    given = " ".join([*(row.get("context") or []), str(row.get("original") or "")])
    new = new_entities(str(row.get("candidate") or ""), given, lang)
    return [f"the candidate names {', '.join(new)}, which the story does not (LOT 2.2a)"] if new else []


#: every check rule: the built-in ones (registered below), then those registered later or by a package's
#: `lotdata.check_rules` entry point; a job names the ones it runs in `checks`
CHECK_RULE_REGISTRY: Registry[Rule] = Registry("check_rule", modules=("annotate/checks.py",))
#: every check rule by name (a read-only view of the registry)
RULES: Mapping[str, Rule] = CHECK_RULE_REGISTRY.view()


def register_check_rule(rule: Rule) -> Rule:
    """Add a check rule; a name another record holds is a RegistryError."""
    return CHECK_RULE_REGISTRY.register(rule, stacklevel=2)


def unregister_check_rule(name: str) -> None:
    """Forget a check rule registered at run time (a test's made-up one)."""
    CHECK_RULE_REGISTRY.unregister(name)


def get_check_rule(name: str) -> Rule:
    """The rule `name` (RegistryError naming the rules when there is none)."""
    return CHECK_RULE_REGISTRY.get(name)


def check_rule_names() -> list[str]:
    return CHECK_RULE_REGISTRY.names()


for _rule in (
    Rule("five_sentences", "exactly five sentences (one per field)", row=five_sentences),
    Rule("end_punctuation", "each sentence ends with . ! ? (Chinese 。！？……)", row=end_punctuation),
    Rule("sentence_length", "each sentence at most --max-chars characters (70)", row=sentence_length),
    Rule("title", "a title, at most --max-chars characters", row=has_title, needs="title"),
    Rule("no_quotations", "no quotation marks (ROCStories Table 1: no quotations)", row=no_quotations),
    Rule("informal", "no slang or informal language (our lexicon, lotdata/data/informal_LANG.txt)", row=no_informal),
    Rule("language", "written in the job's language and script", row=language),
    Rule("near_duplicate", "not a near copy of another submission or of --corpus (MinHash)", batch=near_duplicates),
    Rule("shared_character", "each ending names a character of the first four sentences", row=shared_character),
    Rule("endings_differ", "the right and the wrong ending differ", row=endings_differ),
    Rule("ending_length", "each ending one sentence of 2 to --max-chars characters", row=ending_length),
    Rule(
        "rewrite_length",
        "a rewrite differs from its segment by at most 100 characters (words in English; LOT appendix 1)",
        row=rewrite_length,
        needs="segment",
    ),
    Rule(
        "punctuation",
        "only ？。，！……；《》 as punctuation (English . , ? ! ; …; LOT appendix 1, other requirements)",
        row=punctuation,
    ),
    Rule(
        "context_entities",
        "every role and place of a candidate appears in the story or the original sentence (LOT 2.2a)",
        row=context_entities,
        needs="candidate",
    ),
):
    register_check_rule(_rule)


def row_problems(row: Row, rules: Sequence[str], options: CheckOptions) -> list[str]:
    """What the row rules `rules` find in one row (a job's check at pull, which refuses the answer)."""
    return [problem for name in rules for problem in RULES[name].row(row, options)]


STORY_RULES = (
    "five_sentences",
    "end_punctuation",
    "sentence_length",
    "title",
    "no_quotations",
    "informal",
    "language",
    "near_duplicate",
)
ENDING_RULES = ("shared_character", "endings_differ", "ending_length", "no_quotations", "informal", "language")


@dataclass
class CheckResult:
    flags: list[dict[str, Any]] = field(default_factory=list)  # id, rule, detail
    counts: dict[str, int] = field(default_factory=dict)  # rule -> flagged submissions
    skipped: dict[str, str] = field(default_factory=dict)  # rule -> why
    submissions: int = 0

    @property
    def flagged(self) -> int:
        return len({f["id"] for f in self.flags})


def run_checks(rows: Sequence[Row], rules: Iterable[str], options: CheckOptions) -> CheckResult:
    """Every rule on every submission: one flag per (submission, rule, violation)."""
    result = CheckResult(submissions=len(rows))
    for name in rules:
        rule = RULES[name]
        if rule.needs and rows and all(rule.needs not in r for r in rows):
            result.skipped[name] = f"no {rule.needs!r} field in the input"
            continue
        if rule.batch:
            found = rule.batch(rows, options)
        else:
            found = {i: details for i, row in enumerate(rows) if (details := rule.row(row, options))}
        for i in sorted(found):
            result.flags += [{"id": str(rows[i].get("id")), "rule": name, "detail": d} for d in found[i]]
        result.counts[name] = len(found)
    return result


def flags_by_id(result: CheckResult) -> dict[str, list[dict[str, str]]]:
    out: dict[str, list[dict[str, str]]] = {}
    for flag in result.flags:
        out.setdefault(flag["id"], []).append({"rule": flag["rule"], "detail": flag["detail"]})
    return out


# ---------------------------------------------------------------- reading submissions

SENTENCE_FIELDS = tuple(f"sentence{k}" for k in range(1, 6))
_ENDING_CSV = (
    "InputSentence1",
    "InputSentence2",
    "InputSentence3",
    "InputSentence4",
    "RandomFifthSentenceQuiz1",
    "RandomFifthSentenceQuiz2",
    "AnswerRightEnding",
)


def read_submissions(path: str | Path) -> list[dict[str, Any]]:
    """Submissions from a file: JSON lines or Parquet (`id`, `title`, `sentences` or `sentence1..5` or `text`;
    an ending case: `context`, `right_ending`, `wrong_ending`), a ROCStories csv (storyid, storytitle,
    sentence1..5), a Story Cloze csv, or Diffusion-LM's `["story"]` lines. Bad input: InputError naming the row."""
    from lotdata.errors import InputError, must_exist

    path = must_exist(path, "--input")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            raw = pq.read_table(path).to_pylist()
        except Exception as exc:  # a damaged or non-Parquet file is bad input, not a crash
            raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from None
        return [{**_submission(r, n, path), "row": n} for n, r in enumerate(raw, 1)]
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path=str(path)) from None
    if path.suffix == ".csv":
        return _read_csv(text, path)
    import json

    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON ({exc.msg})", path=str(path), row=n) from None
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            value = {"id": str(n), "text": value[0]}
        if not isinstance(value, dict):
            raise InputError("a line is a JSON object (or a one-story list)", path=str(path), row=n)
        rows.append({**_submission(value, n, path), "row": n})
    return rows


def _read_csv(text: str, path: Path) -> list[dict[str, Any]]:
    import csv
    import io

    from lotdata.errors import InputError

    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    rows = []
    if all(c in header for c in _ENDING_CSV):
        for n, rec in enumerate(reader, 1):
            right = 1 if rec["AnswerRightEnding"].strip() == "1" else 2
            rows.append(
                {
                    "row": n,
                    "id": rec.get("InputStoryid") or str(n),
                    "context": [rec[f"InputSentence{k}"] for k in range(1, 5)],
                    "right_ending": rec[f"RandomFifthSentenceQuiz{right}"],
                    "wrong_ending": rec[f"RandomFifthSentenceQuiz{3 - right}"],
                }
            )
        return rows
    if not all(c in header for c in SENTENCE_FIELDS):
        raise InputError(
            f"a csv of stories has the columns {', '.join(SENTENCE_FIELDS)} (ROCStories) or a Story Cloze "
            f"csv's; found {header}",
            path=str(path),
        )
    for n, rec in enumerate(reader, 1):
        row = {"row": n, "id": rec.get("storyid") or str(n), "sentences": [rec[c] for c in SENTENCE_FIELDS]}
        if "storytitle" in header:
            row["title"] = rec["storytitle"]
        rows.append(row)
    return rows


def _submission(value: Mapping[str, Any], n: int, path: Path) -> dict[str, Any]:
    from lotdata.errors import InputError

    row: dict[str, Any] = {"id": str(value.get("id") or value.get("story_id") or value.get("uid") or n)}
    for key in ("lang", "title", "right_ending", "wrong_ending", "segment", "original", "candidate"):
        if key in value:
            row[key] = value[key]
    if "context" in value:
        context = value["context"]
        row["context"] = (
            split_submission(context, value.get("lang") or "en") if isinstance(context, str) else list(context)
        )
    if isinstance(value.get("sentences"), (list, tuple)):
        row["sentences"] = [str(s or "") for s in value["sentences"]]
    elif any(k in value for k in SENTENCE_FIELDS):
        row["sentences"] = [str(value.get(k) or "") for k in SENTENCE_FIELDS if k in value]
    elif "text" in value:
        row["text"] = str(value["text"] or "")
    elif "context" not in value:
        raise InputError(
            "no story: give `sentences`, `sentence1`..`sentence5` or `text` (or `context` and the endings)",
            path=str(path),
            row=n,
        )
    return row


def check_file(path: str | Path, rules: Sequence[str], out: str | Path, options: CheckOptions) -> dict[str, Any]:
    """Run `rules` on the submissions of `path`; write `flags.parquet` (id, rule, detail) and `check.json` (counts
    per rule, rules skipped) under `out`, each atomically. Returns the summary."""
    import json
    import time

    from lotdata.io import write_parquet, write_text
    from lotdata.schema import CHECK_FLAGS, table_from_rows

    rows = read_submissions(path)
    started = time.perf_counter()
    result = run_checks(rows, rules, options)
    seconds = time.perf_counter() - started
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_parquet(table_from_rows(result.flags, CHECK_FLAGS), out / "flags.parquet")
    summary = {
        "input": str(path),
        "submissions": result.submissions,
        "flagged": result.flagged,
        "flags": len(result.flags),
        "per_rule": result.counts,
        "skipped": result.skipped,
        "lang": options.lang,
        "max_chars": options.max_chars,
        "seconds": round(seconds, 3),
    }
    write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", out / "check.json")
    rows_of = {str(r["id"]): r.get("row") for r in rows}
    summary["examples"] = [
        f"{path} row {rows_of.get(f['id'])} (id {f['id']}): {f['rule']}: {f['detail']}" for f in result.flags[:10]
    ]
    return summary


def job_rules(job_name: str) -> tuple[str, ...]:
    """The rules job `job_name` declares (`checks` on its record); ValueError when it declares none."""
    from lotdata.annotate.jobs.base import get_job  # not the package: its jobs import these checks (no cycle)

    spec = get_job(job_name)
    rules = tuple(getattr(spec, "checks", ()) or ())
    if not rules:
        raise ValueError(
            f"job {job_name} declares no automatic checks (jobs with checks: {', '.join(jobs_with_checks()) or 'none'})"
        )
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        raise ValueError(f"job {job_name} names unknown rules {unknown}; rules: {', '.join(RULES)}")
    return rules


def jobs_with_checks() -> list[str]:
    from lotdata.annotate.jobs.base import all_jobs

    return [job.name for job in all_jobs() if getattr(job, "checks", ())]
