"""Sentence splitting and short-sentence merging, Chinese and English.

The splitters are lossless: ``join_sentences(split_sentences(t, lang), lang) == t`` for normalised
text ``t`` (Chinese joins with "", English with one space). That is what lets a builder remove a
sentence and a test put it back to get the paragraph exactly.

Chinese rules:
* a sentence ends after 。！？!? (a run of them counts once: ！？！, 。。) and after the closing
  quotes and brackets that follow (”’」』）》);
* inside a matched pair of quotes or brackets there is no boundary, so “你好！今天真好。”他说。
  is never cut into the fragment “你好！; the quoted speech ends its sentence when it closes on a
  terminal mark (…叫唤。” | 她说…);
* a closing quote followed by ，、；： does not end the sentence (“千万不要害怕！”，它勇敢地冲上去。
  is one sentence); followed by 。！？ the sentence ends after those;
* …… ends a sentence when 。！？ follow it (……。 / ……？) or when a closing quote, an opening quote or
  the end of the text follows it; elsewhere it is a pause inside the sentence;
* a "." between two Chinese characters was normalised to 。 (``normalize_text``), so it ends a sentence;
* unmatched quotes (common in crawled text) are ignored for this purpose rather than swallowing
  the rest of the story.
"""

from __future__ import annotations

import re

from lotdata.text.normalize import count_chars

_ZH_TERMINAL = set("。！？!?")
_ELLIPSIS = "…"
_OPENERS = {"“": "”", "‘": "’", "「": "」", "『": "』", "（": "）", "(": ")", "《": "》", "【": "】"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
# punctuation after a closing quote that carries the sentence on
_CONTINUES = set("，、；：,;:")
# the characters the splitters look at; every other character is passed over in one regular-expression search
_QUOTES = re.compile("[" + re.escape("".join(_OPENERS) + "".join(_CLOSERS)) + "]")
_SPECIAL = re.compile(
    "[" + re.escape("".join(_OPENERS) + "".join(_CLOSERS) + "".join(sorted(_ZH_TERMINAL)) + _ELLIPSIS) + "]"
)


def join_sentences(sentences: list[str], lang: str) -> str:
    return ("" if lang == "zh" else " ").join(sentences)


def _matched_pairs(text: str) -> set[int]:
    """Positions of quote/bracket characters that belong to a matched pair."""
    stack: list[int] = []
    matched: set[int] = set()
    for quote in _QUOTES.finditer(text):
        i, ch = quote.start(), quote.group()
        if ch in _OPENERS:
            stack.append(i)
        elif ch in _CLOSERS:
            # pop until the matching opener; openers skipped over were never closed
            for depth in range(len(stack) - 1, -1, -1):
                if text[stack[depth]] == _CLOSERS[ch]:
                    matched.add(stack[depth])
                    matched.add(i)
                    del stack[depth:]
                    break
    return matched


def split_zh(text: str) -> list[str]:
    matched = _matched_pairs(text)
    sentences: list[str] = []
    start, depth, i, n = 0, 0, 0, len(text)

    def cut(end: int) -> None:
        nonlocal start
        if end > start:
            sentences.append(text[start:end])
        start = end

    while i < n:
        ch = text[i]
        if ch in _OPENERS and i in matched:
            depth += 1
        elif ch in _CLOSERS and i in matched:
            depth -= 1
            if depth == 0 and _ends_on_terminal(text, start, i):
                j = _skip_closers(text, i + 1)
                if j < n and text[j] in _ZH_TERMINAL:  # “好！”。 : the full stop after the quote ends it
                    i = j  # (the terminal branch cuts after it)
                    continue
                if j < n and text[j] in _CONTINUES:  # “千万不要害怕！”，它… : the sentence goes on
                    i = j
                    continue
                cut(j)
                i = j
                continue
        elif depth == 0 and ch in _ZH_TERMINAL:
            j = i
            while j < n and text[j] in _ZH_TERMINAL:
                j += 1
            marks_end = j
            j = _skip_unmatched_closers(text, j, matched)
            if j < n and text[j] == '"' and (j + 1 >= n or text[j + 1] in _CONTINUES):
                j += 1  # a straight quote left unpaired by normalisation, closing: 好！"，他说
            if j > marks_end and j < n and text[j] in _CONTINUES:
                i = j  # 。”， with an unmatched closer: the sentence goes on
                continue
            cut(j)
            i = j
            continue
        elif depth == 0 and ch == _ELLIPSIS:
            j = i
            while j < n and text[j] in (_ELLIPSIS, *_ZH_TERMINAL):
                j += 1
            ends = any(c in _ZH_TERMINAL for c in text[i:j])  # ……。 / ……？ end a sentence
            if ends or j >= n or text[j] in _OPENERS or text[j] in _CLOSERS:
                j = _skip_unmatched_closers(text, j, matched)
                cut(j)
                i = j
                continue
            i = j
            continue
        i = _next_special(text, i + 1)  # nothing between i and the next special character changes anything
    cut(n)
    return sentences


def _next_special(text: str, i: int) -> int:
    """Where the next quote, bracket, terminal mark or ellipsis is from `i` on (the end of the text if none)."""
    special = _SPECIAL.search(text, i)
    return special.start() if special else len(text)


def _ends_on_terminal(text: str, start: int, close_at: int) -> bool:
    """True when the characters before the closing quote at `close_at` end on a terminal mark."""
    k = close_at - 1
    while k >= start and text[k] in _CLOSERS:
        k -= 1
    return k >= start and (text[k] in _ZH_TERMINAL or text[k] == _ELLIPSIS)


def _skip_closers(text: str, j: int) -> int:
    while j < len(text) and text[j] in _CLOSERS:
        j += 1
    return j


def _skip_unmatched_closers(text: str, j: int, matched: set[int]) -> int:
    while j < len(text) and text[j] in _CLOSERS and j not in matched:
        j += 1
    return j


EN_ABBREVIATIONS = frozenset(
    {
        "mr",
        "mrs",
        "ms",
        "dr",
        "st",
        "jr",
        "sr",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "u.s",
        "a.m",
        "p.m",
        "mt",
        "prof",
        "inc",
        "ltd",
        "co",
        "ave",
        "sgt",
        "capt",
        "gen",
        "col",
        "lt",
    }
)
_EN_BOUNDARY = re.compile(r"""[.!?]+["'”’)\]]*(?=\s+\S)""")


#: words that start a sentence after a full stop even when written in lower case ("... all pulled. i had ...", a
#: writer's slip: 31 real Story Cloze contexts), and that, capitalised, start one after an abbreviation that can end
#: a sentence ("... at 8 P.M. He got ready", "... his iPhone X. He walked"): pronouns and determiners, which neither
#: go on a sentence after "etc." nor follow a title ("Dr.", "St.")
SENTENCE_STARTERS_EN = frozenset(
    "i he she they we it you my his her their our its the this these those there then when after".split()
)
#: abbreviations a name follows: never the end of a sentence
_TITLES_EN = frozenset({"mr", "mrs", "ms", "dr", "st", "mt", "prof", "sgt", "capt", "gen", "col", "lt", "vs"})


def _starts_sentence(word: str) -> bool:
    return word.strip("\"“'(").lower() in SENTENCE_STARTERS_EN


def _is_abbreviation(word: str, next_char: str) -> bool:
    """Whether `word` followed by "." is an abbreviation rather than the end of a sentence.

    "No." counts only before a number ("No. 5"), so "She said no. Then..." still splits; a single
    letter counts only in upper case (an initial: "J. K. Rowling"), so a cut word ("w.") does not.
    """
    lower = word.lower()
    if lower == "no":
        return next_char.isdigit()
    if len(word) == 1:
        return word.isalpha() and word.isupper()
    return lower in EN_ABBREVIATIONS


def split_en(text: str) -> list[str]:
    quote_balanced = text.count('"') % 2 == 0
    sentences: list[str] = []
    start = 0
    for match in _EN_BOUNDARY.finditer(text):
        end = match.end()
        if quote_balanced and text[start:end].count('"') % 2 == 1 and not match.group().endswith('"'):
            continue  # inside a quotation
        prefix = text[start : match.start()]
        last_word = re.split(r"\s", prefix)[-1] if prefix else ""
        next_word = text[end:].split(maxsplit=1)[0]
        nxt = next_word[:1]
        if match.group().startswith(".") and _is_abbreviation(last_word, nxt):
            ends = nxt.isupper() and _starts_sentence(next_word) and last_word.lower().strip("(") not in _TITLES_EN
            if not ends:
                continue
        if nxt.islower() and not (len(match.group().rstrip("\"'”’)]")) == 1 and _starts_sentence(next_word)):
            continue
        sentences.append(text[start:end])
        start = end
        while start < len(text) and text[start].isspace():
            start += 1
    if start < len(text):
        sentences.append(text[start:])
    return sentences


def split_sentences(text: str, lang: str) -> list[str]:
    """Split normalised text into sentences (lossless; see the module docstring)."""
    if not text:
        return []
    return split_zh(text) if lang == "zh" else split_en(text)


def merge_short_sentences(sentences: list[str], lang: str, min_chars: int = 10) -> list[str]:
    """Merge every sentence under `min_chars` characters (punctuation counted: `count_chars`) into its neighbour.

    A short sentence joins the one before it (speech tags such as 他说。 and replies such as 好吧。
    belong to what precedes them); a short first sentence joins the one after it (LOT footnote 3).
    """
    sep = "" if lang == "zh" else " "
    out: list[str] = []
    for sentence in sentences:
        if out and count_chars(sentence) < min_chars:
            out[-1] = out[-1] + sep + sentence
        else:
            out.append(sentence)
    if len(out) >= 2 and count_chars(out[0]) < min_chars:
        out[1] = out[0] + sep + out[1]
        del out[0]
    return out


def paragraph_breaks(raw_text: str, text: str, sentences: list[str], lang: str) -> list[int] | None:
    """Where the paragraphs of `raw_text` start in `sentences` (indices > 0); None without a break.

    Normalisation deletes newlines (the text, and so the story id, stays the same); this keeps what
    they said. Each non-empty line of the raw text is a paragraph, found again in the normalised
    `text`; a break that falls inside a sentence (a line without final punctuation) is not one, and a
    line that normalises differently alone than in the whole text gives up (None).
    """
    from lotdata.text.normalize import normalize_text

    # streamed, positions only: a 20 MB story has 10^5 lines and sentences, kept as ints, not as strings
    line_starts, pos = [], 0
    for raw_line in re.finditer(r"[^\n]+", raw_text.replace("\r\n", "\n").replace("\r", "\n")):
        line = normalize_text(raw_line.group(), lang)
        if not line:
            continue
        at = text.find(line, pos)
        if at < 0:
            return None
        line_starts.append(at)
        pos = at + len(line)
    if len(line_starts) < 2:
        return None
    paragraph_starts = set(line_starts[1:])
    del line_starts
    breaks, pos = [], 0
    for i, sentence in enumerate(sentences):
        at = text.find(sentence, pos)
        if at < 0:
            return None
        if i > 0 and at in paragraph_starts:
            breaks.append(i)
        pos = at + len(sentence)
    return breaks or None


def split_paragraphs(sentences: list[str], breaks: list[int] | None) -> list[list[str]]:
    """The sentences cut at the paragraph breaks (one paragraph when there are none)."""
    if not sentences:
        return []
    cuts = [0, *sorted(b for b in (breaks or ()) if 0 < b < len(sentences)), len(sentences)]
    return [sentences[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]
