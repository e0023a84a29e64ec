"""Text normalisation for Chinese and English stories.

Punctuation policy (documented in README "Text normalisation"):

* NFKC is applied to everything *except* CJK full-width punctuation, which Chinese text keeps
  (plain NFKC would turn ，。！？：；（） into ASCII). So full-width letters and digits become ASCII
  (Ａ１ -> A1), compatibility ideographs and ligatures are folded, the ideographic space becomes a space.
* Chinese (`lang="zh"`): every whitespace run is deleted unless it separates two Latin letters or
  digits (as LOT did, "spaces are deleted from Chinese text"); ASCII , ! ? : ; next to a CJK character
  become ，！？：；; "..." / "。。。" / "…" runs become "……"; straight double quotes are paired into “ ”.
* English (`lang="en"`): whitespace runs (newlines included) collapse to one space; punctuation is kept.
* Zero-width characters and control characters are removed in both.
"""

from __future__ import annotations

import re
import unicodedata

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# CJK punctuation that Chinese text keeps in full width (NFKC would fold these to ASCII).
_KEEP_FULLWIDTH = set("，。！？：；（）《》〈〉【】「」『』“”‘’、…—～·")
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef“”‘’《》…—"
_ASCII_TO_FULL = {",": "，", "!": "！", "?": "？", ":": "：", ";": "；"}
_CJK_CHAR = re.compile(f"[{_CJK}]")


def _nfkc_keep_cjk_punct(text: str) -> str:
    out = []
    for ch in text:
        if ch in _KEEP_FULLWIDTH:
            out.append(ch)
        else:
            out.append(unicodedata.normalize("NFKC", ch))
    return "".join(out)


def _is_latin_or_digit(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _drop_spaces_zh(text: str) -> str:
    """Delete whitespace except between two Latin letters/digits (kept as one space)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            j = i
            while j < n and text[j].isspace():
                j += 1
            before = out[-1] if out else ""
            after = text[j] if j < n else ""
            if before and after and _is_latin_or_digit(before) and _is_latin_or_digit(after):
                out.append(" ")
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _fullwidth_punct_zh(text: str) -> str:
    chars = list(text)
    for i, ch in enumerate(chars):
        if ch in _ASCII_TO_FULL:
            prev = chars[i - 1] if i > 0 else ""
            nxt = chars[i + 1] if i + 1 < len(chars) else ""
            # a digit on both sides is a number (1,000 / 3:30): leave it
            if prev.isdigit() and nxt.isdigit():
                continue
            if _CJK_CHAR.match(prev or " ") or _CJK_CHAR.match(nxt or " ") or not nxt:
                chars[i] = _ASCII_TO_FULL[ch]
    return "".join(chars)


def _pair_straight_quotes_zh(text: str) -> str:
    if '"' not in text:
        return text
    out, opening = [], True
    for ch in text:
        if ch == '"':
            out.append("“" if opening else "”")
            opening = not opening
        else:
            out.append(ch)
    return "".join(out)


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
        text = _fullwidth_punct_zh(text)
        text = _pair_straight_quotes_zh(text)
    else:
        text = re.sub(r"\s+", " ", text)
    return text.strip()


def detect_lang(text: str) -> str:
    """'zh' when CJK ideographs make up at least 20% of the letters, else 'en'."""
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf")
    letters = sum(1 for ch in text if ch.isalpha())
    return "zh" if letters and cjk / letters >= 0.2 else "en"


def count_chars(text: str) -> int:
    """Characters that carry content: letters, digits and ideographs (punctuation and spaces excluded).

    This is the length LOT's "at least 10 Chinese characters" rule is measured in.
    """
    return sum(1 for ch in text if ch.isalnum())
