"""Text normalisation for Chinese and English stories.

Punctuation policy (documented in README "Text normalisation"):

* NFKC is applied to everything *except* CJK full-width punctuation, which Chinese text keeps
  (plain NFKC would turn ，。！？：；（） into ASCII). So full-width letters and digits become ASCII
  (Ａ１ -> A1), compatibility ideographs and ligatures are folded, the ideographic space becomes a space.
* Chinese (`lang="zh"`): every whitespace run is deleted unless it separates two Latin letters or
  digits (as LOT did, "spaces are deleted from Chinese text"); ASCII , ! ? : ; next to a CJK character
  become ，！？：；; a "." between two ideographs becomes 。; "..." / "。。。" / "…" runs become "……";
  straight double quotes are paired into “ ” by context (see ``_pair_straight_quotes_zh``), an odd one
  left straight.
* English (`lang="en"`): whitespace runs (newlines included) collapse to one space; punctuation is kept.
* Zero-width characters and control characters are removed in both.
"""

from __future__ import annotations

import io
import re
import unicodedata

from lotdata.text import langid

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# CJK punctuation that Chinese text keeps in full width (NFKC would fold these to ASCII).
_KEEP_FULLWIDTH = set("，。！？：；（）《》〈〉【】「」『』“”‘’、…—～·")
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef“”‘’《》…—"
_ASCII_TO_FULL = {",": "，", "!": "！", "?": "？", ":": "：", ";": "；"}
_CJK_CHAR = re.compile(f"[{_CJK}]")


_KEPT_OR_NOT = re.compile(
    "[" + re.escape("".join(sorted(_KEEP_FULLWIDTH))) + "]+|[^" + re.escape("".join(sorted(_KEEP_FULLWIDTH))) + "]+"
)


_KEPT = re.compile("[" + re.escape("".join(sorted(_KEEP_FULLWIDTH))) + "]+")


def _nfkc_keep_cjk_punct(text: str) -> str:
    """NFKC of every character on its own, except the kept CJK punctuation. Runs, not characters: a run that
    is NFKC already (most text) is copied whole, so a 20 MB story does not become millions of str objects."""
    if unicodedata.is_normalized("NFKC", _KEPT.sub("", text)):
        return text  # every character of an NFKC text is NFKC on its own (checked over all of Unicode): no run changes
    out = io.StringIO()
    for match in _KEPT_OR_NOT.finditer(text):
        run = match.group()
        if run[0] in _KEEP_FULLWIDTH or unicodedata.is_normalized("NFKC", run):
            out.write(run)  # a normalised run: each of its characters is normalised on its own too
        else:
            for ch in run:
                out.write(unicodedata.normalize("NFKC", ch))
    return out.getvalue()


def _is_latin_or_digit(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


_WHITESPACE = re.compile(r"\s+")  # the same characters as str.isspace()


def _drop_spaces_zh(text: str) -> str:
    """Delete whitespace except between two Latin letters/digits (kept as one space)."""

    def keep(match: re.Match) -> str:
        start, end = match.span()
        between = (
            0 < start and end < len(text) and _is_latin_or_digit(text[start - 1]) and _is_latin_or_digit(text[end])
        )
        return " " if between else ""

    return _WHITESPACE.sub(keep, text)


def _is_ideograph(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" or "\uf900" <= ch <= "\ufaff"


_ASCII_MARK = re.compile(r"[.,!?:;]")


def _fullwidth_punct_zh(text: str) -> str:
    changed: dict[int, str] = {}  # a mark already made full width is what the next mark sees before it

    def mark(match: re.Match) -> str:
        i, ch = match.start(), match.group()
        prev = changed.get(i - 1, text[i - 1]) if i > 0 else ""
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if ch == "." and prev and nxt and _is_ideograph(prev) and _is_ideograph(nxt):
            changed[i] = "。"  # 回家了.妈妈 : a full stop typed in ASCII
        elif ch in _ASCII_TO_FULL:
            # a digit on both sides is a number (1,000 / 3:30): leave it
            if not (prev.isdigit() and nxt.isdigit()) and (
                _CJK_CHAR.match(prev or " ") or _CJK_CHAR.match(nxt or " ") or not nxt
            ):
                changed[i] = _ASCII_TO_FULL[ch]
        return changed.get(i, ch)

    return _ASCII_MARK.sub(mark, text)


_FOLLOWS_CLOSER = set("，。！？、；：…,.!?;:")
_PRECEDES_OPENER = set("：:")


def _pair_straight_quotes_zh(text: str) -> str:
    """Turn straight double quotes into “ ” by context, leaving an odd one straight.

    Scanning left to right with the quotes already curly taken as they are: a straight quote opens
    unless punctuation follows it (then it is a closer without its opener: left alone); while a quote
    is open, a straight quote closes it unless it follows a colon and no punctuation follows it (a
    new quotation: the open straight quote lost its closer and is left alone). A straight quote still
    open at the end is left alone. So one missing quote changes nothing beyond its own quotation, and
    normalising twice changes nothing more.
    """
    if '"' not in text:
        return text
    out: dict[int, str] = {}  # the quotes changed, by position (a list of every character would not fit a huge story)
    open_at: int | None = None  # index of the straight quote now open, if the open quote is straight
    is_open = False
    for match in _QUOTES.finditer(text):
        i, ch = match.start(), match.group()
        if ch == "“":
            if open_at is not None:
                out[open_at] = '"'
            open_at, is_open = None, True
        elif ch == "”":
            open_at, is_open = None, False
        elif ch == '"':
            prev = text[i - 1] if i > 0 else ""
            nxt = text[i + 1] if i + 1 < len(text) else ""
            closer = nxt == "" or nxt in _FOLLOWS_CLOSER
            opener = prev == "" or prev in _PRECEDES_OPENER
            if not is_open:
                if closer and not opener:
                    continue
                out[i], open_at, is_open = "“", i, True
            elif opener and not closer:
                if open_at is not None:
                    out[open_at] = '"'
                out[i], open_at = "“", i
            else:
                out[i], open_at, is_open = "”", None, False
    if open_at is not None:
        out[open_at] = '"'
    pieces, last = [], 0
    for i in sorted(out):
        pieces += [text[last:i], out[i]]
        last = i + 1
    return "".join(pieces) + text[last:]


_QUOTES = re.compile('[“”"]')


_ELLIPSIS_ZH = re.compile(r"(?:\.{3,}|。{3,}|…+)")


def normalize_text(text: str, lang: str = "zh") -> str:
    """Normalise a story's text; idempotent: normalize_text(normalize_text(x)) == normalize_text(x)."""
    text = _ZERO_WIDTH.sub("", text)
    text = _CONTROL.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _nfkc_keep_cjk_punct(text)
    if lang == "zh":
        text = _drop_spaces_zh(text)
        text = _ELLIPSIS_ZH.sub("……", text)
        text = _pair_straight_quotes_zh(text)  # first: ASCII marks next to a paired quote become full width
        text = _fullwidth_punct_zh(text)
    else:
        text = re.sub(r"\s+", " ", text)
    return text.strip()


# the language of a text and whether it is the language it is stored as: one identifier (lotdata.text.langid)
# for read, clean (verified reads) and the `language` check rule
detect_lang = langid.detect_lang
language_problem = langid.language_problem
#: the languages lotdata builds benchmarks in
LANGUAGES = langid.LANGUAGES


def count_chars(text: str) -> int:
    """Length of a normalised sentence in characters, punctuation included: ``len(text)``.

    This is the length LOT's 10-character rule is measured in (merging short sentences, choosing the
    removed one): LOT's official SenPos example keeps “什么声音也没有。” (10 characters with its quotes
    and full stop, 7 without) as a sentence of its own.
    """
    return len(text)
