"""What a story's writing may use, measured on the text: informal words (our lexicons,
`lotdata/data/informal_LANG.txt`), punctuation outside LOT's allowed set, and how much a rewrite changed the length
of its segment. Heuristics for the crowd-submission checks (`lotdata.annotate.checks`)."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from lotdata.text.normalize import normalize_text
from lotdata.text.wordlists import word_list

#: LOT appendix 1, Other Requirements 1: the only punctuation a story may use
ALLOWED_PUNCTUATION_SHOWN = {"zh": "？。，！……；《》", "en": ". , ? ! ; …"}  # as the screen lists them
ALLOWED_PUNCTUATION = {lang: frozenset(shown.replace(" ", "")) for lang, shown in ALLOWED_PUNCTUATION_SHOWN.items()}
#: what the published data uses beyond that list (issue 34): every mark of LOT's 111 OutGen dev stories; every mark
#: of the English tuning stories (ROCStories 5k first half, Story Cloze spring 2016). Measured, with counts per mark,
#: by benchmarks/conventions.py (bench/conventions.md); the rule follows it unless `strict` (the paper's letter)
CONVENTION_EXTRA_PUNCTUATION = {"zh": "“”‘’：、—―·（）%-", "en": "'\"-:()$%&/`+"}
CONVENTION_PUNCTUATION = {
    lang: ALLOWED_PUNCTUATION[lang] | frozenset(extra) for lang, extra in CONVENTION_EXTRA_PUNCTUATION.items()
}
CONVENTION_PUNCTUATION_SHOWN = {
    lang: f"{shown} {' '.join(CONVENTION_EXTRA_PUNCTUATION[lang])}" for lang, shown in ALLOWED_PUNCTUATION_SHOWN.items()
}
#: inside an English word an apostrophe or a hyphen is spelling, not punctuation (don't, well-known)
_IN_WORD = re.compile(r"(?<=[A-Za-z])['’-](?=[A-Za-z])")


@lru_cache(maxsize=None)
def informal_lexicon(lang: str) -> tuple[re.Pattern[str], frozenset[str]]:
    """Our slang / informal-language list (`lotdata/data/informal_LANG.txt`): one term per line, `#` comments."""
    terms = set(word_list(f"informal_{lang}.txt"))
    words = sorted(terms, key=len, reverse=True)
    if lang == "zh":
        pattern = re.compile("|".join(re.escape(t) for t in words))
    else:
        pattern = re.compile(
            r"(?<![A-Za-z'’.-])(?:" + "|".join(re.escape(t) for t in words) + r")(?![A-Za-z'’-]|\.[A-Za-z])",
            re.IGNORECASE,
        )
    return pattern, frozenset(terms)


#: a straight quote is the keyboard's form of a curly one
_TYPED_AS = {'"': "“”", "'": "‘’"}
#: a point or comma between digits is part of the number (3.5, 1,000)
_IN_NUMBER = re.compile(r"(?<=[0-9])[.,](?=[0-9])")


@lru_cache(maxsize=None)
def _convention_allows(mark: str, lang: str) -> bool:
    """Under the convention a mark counts as the allowed mark it is typed for: its half- or full-width form (NFKC:
    ( for （, : for ：) or the curly quote a straight one stands for."""
    allowed = CONVENTION_PUNCTUATION[lang]
    if mark in allowed:
        return True
    forms = {unicodedata.normalize("NFKC", a) for a in allowed}
    return unicodedata.normalize("NFKC", mark) in forms or any(q in allowed for q in _TYPED_AS.get(mark, ""))


def stray_punctuation(text: str, lang: str, *, strict: bool = False) -> list[str]:
    """The punctuation marks of `text` outside the allowed set, in order of first use: the published data's
    convention (`CONVENTION_PUNCTUATION`, a mark's other width and a straight quote for a curly one counting as the
    mark, a point between digits as part of the number), or with `strict` LOT appendix 1's list to the letter."""
    key = "zh" if lang == "zh" else "en"
    text = normalize_text(text, "zh") if lang == "zh" else _IN_WORD.sub("", text)
    marks = [ch for ch in text if unicodedata.category(ch)[0] in "PS"]
    if strict:
        found = [ch for ch in marks if ch not in ALLOWED_PUNCTUATION[key]]
    else:
        found = [ch for ch in _IN_NUMBER.sub("", text) if unicodedata.category(ch)[0] in "PS"]
        found = [ch for ch in found if not _convention_allows(ch, key)]
    return list(dict.fromkeys(found))


def rewrite_change(rewritten: str, segment: str, lang: str) -> int:
    """How much longer or shorter a rewrite is than its segment: characters (字, whitespace aside) for Chinese,
    words for English."""
    if lang == "zh":
        return abs(len("".join(rewritten.split())) - len("".join(segment.split())))
    return abs(len(rewritten.split()) - len(segment.split()))
