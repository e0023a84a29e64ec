"""The sentences of a story a writer typed (a crowd submission), and where its full stops seem missing.

Only the submission checks (`lotdata.annotate.checks`) count with these, so the word lists may grow without
changing a built dataset's sentences (the datasets are split by `lotdata.text.sentences`); `split_exactly_en` also
gives `annotate sct-csv` the four sentences of a context the dataset splitter finds another number in. The word lists are data
files: `lotdata/data/sentence_openers_en.txt`, `abbreviations_extra_en.txt`, `leads_to_name_en.txt`,
`before_i_en.txt`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from lotdata.text.normalize import normalize_text
from lotdata.text.sentences import EN_ABBREVIATIONS, split_zh
from lotdata.text.wordlists import word_set

#: the dataset splitter's abbreviations and more (months, degrees, "U.S.A.")
SUBMISSION_ABBREVIATIONS_EN = EN_ABBREVIATIONS | word_set("abbreviations_extra_en.txt")
#: words that open a sentence: after an abbreviation with a final dot ("the U.S. He ...") they mark a new sentence,
#: and after a word without punctuation ("... the game His children ...") a sentence whose full stop is missing
OPENERS_EN = set(word_set("sentence_openers_en.txt"))
#: words after which a name goes on the sentence
LEADS_TO_NAME_EN = set(word_set("leads_to_name_en.txt"))
#: words after which "I" goes on the sentence ("so I", "when I", "and I")
BEFORE_I_EN = set(word_set("before_i_en.txt"))
#: in a text written in capitals only these openers count
_SHOUTED_OPENERS = {"he", "she", "they", "we", "it"}

_EN_END = re.compile(r"""[.!?]+["'”’)\]]*(?=\s)""")


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
    return word[:1].isupper() and word.lower() in OPENERS_EN


def _abbreviation(word: str, next_word: str) -> bool:
    word = word.lstrip("\"“'(")
    if len(word) == 1:
        return word.isupper()  # an initial
    if word.lower() == "no":
        return next_word[:1].isdigit()  # "No. 5", but "she said no. Then"
    return word.lower() in SUBMISSION_ABBREVIATIONS_EN or bool(re.fullmatch(r"(?:[A-Za-z]\.)+[A-Za-z]", word))


def split_submission(text: str, lang: str) -> list[str]:
    """A submission's sentences: Chinese by the dataset splitter (after normalising), English by
    `split_submission_en`."""
    return list(_split_cached(text, lang))


@lru_cache(maxsize=65536)  # every rule asks for the same sentences
def _split_cached(text: str, lang: str) -> tuple[str, ...]:
    return tuple(split_zh(normalize_text(text, "zh")) if lang == "zh" else split_submission_en(text))


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
            weak_i = before[-1:].isalnum() and before.lower() not in BEFORE_I_EN
            if weak_i and not strong_only:
                found.append(k)
            continue
        if not joined or not bare[:1].isupper() or bare.isupper():
            continue
        if bare.lower() in OPENERS_EN or (bare.endswith("ly") and len(bare) > 4):
            found.append(k)
        elif bare in names and not strong_only and before.lower() not in LEADS_TO_NAME_EN:
            found.append(k)
    return found


def story_names(sentences: Sequence[str]) -> set[str]:
    """Capitalised first words of the sentences that are not common openers: the story's characters' names."""
    return {
        re.sub(r"['’]s$", "", s.split()[0].strip("\"“'"))
        for s in sentences
        if s.split() and s.split()[0].strip("\"“'").lower() not in OPENERS_EN
    }


def pieces_en(sentence: str, names: set[str]) -> list[str]:
    """A sentence cut where a full stop seems missing."""
    words = sentence.split()
    cuts = [0, *missing_stops_en(sentence, names), len(words)]
    return [" ".join(words[a:b]) for a, b in zip(cuts, cuts[1:]) if b > a]


def missing_stops(sentences: Sequence[str], *, strong_only: bool = False) -> list[tuple[int, str]]:
    """(sentence number, word) where a full stop seems missing before the word, in a story's English sentences."""
    names = story_names(sentences)
    return [
        (k, s.split()[w])
        for k, s in enumerate(sentences, 1)
        for w in missing_stops_en(s, names, strong_only=strong_only)
    ]


_TERMINAL_EN = re.compile(r"""[.!?]+["'”’)\]]*(?=\s)""")


def split_exactly_en(text: str, n: int) -> list[str] | None:
    """`text` cut into exactly `n` sentences, for a text known to hold `n` (a Story Cloze context is four) that the
    dataset splitter cuts otherwise: its cuts first, then, a tier at a time until there are `n`, a full stop before a
    capitalised word that it read as an abbreviation or an initial ("... make an A. Sally studied ..."), a missing
    full stop before a sentence opener ("... of Hawaii They drove ...", `missing_stops_en`), then the weaker signs of
    one ("... to be pink I asked ..."), then a full stop before a lower-case word. Within the tier that reaches `n`,
    the cuts that leave the shortest piece longest are taken; too many sentences are merged, shortest pair first.
    None when no tier reaches `n`. The pieces joined by one space are the text with its spaces normalised."""
    from lotdata.text.sentences import split_sentences

    words = text.split()
    if len(words) < n:
        return None
    starts = _word_starts(words)  # character offset of each word in the normalised text
    normal = " ".join(words)
    cuts = {_word_at(starts, len(" ".join(s.split())), len(words)) for s in _prefixes(split_sentences(normal, "en"))}
    cuts.discard(len(words))
    names = story_names(_pieces(words, cuts))
    tiers = [
        {_word_at(starts, m.end(), len(words)) for m in _TERMINAL_EN.finditer(normal) if _upper_after(normal, m.end())},
        {w for w in _stops(words, cuts, names, strong_only=True)},
        {w for w in _stops(words, cuts, names, strong_only=False)},
        {_word_at(starts, m.end(), len(words)) for m in _TERMINAL_EN.finditer(normal)},
    ]
    for tier in tiers:
        if len(cuts) + 1 >= n:
            break
        extra = sorted(tier - cuts - {0, len(words)})
        if len(cuts) + 1 + len(extra) <= n:
            cuts |= set(extra)
        else:
            cuts |= _balanced(words, cuts, extra, n - 1 - len(cuts))
    while len(cuts) + 1 > n:  # merge the shortest pair of neighbours
        ordered = [0, *sorted(cuts), len(words)]
        k = min(range(1, len(ordered) - 1), key=lambda i: ordered[i + 1] - ordered[i - 1])
        cuts.discard(ordered[k])
    return _pieces(words, cuts) if len(cuts) + 1 == n else None


def _word_starts(words: list[str]) -> list[int]:
    starts, at = [], 0
    for word in words:
        starts.append(at)
        at += len(word) + 1
    return starts


def _word_at(starts: list[int], offset: int, count: int) -> int:
    """The index of the first word at or after character `offset` of the normalised text."""
    import bisect

    return min(bisect.bisect_left(starts, offset), count)


def _prefixes(sentences: list[str]) -> list[str]:
    return [" ".join(sentences[: k + 1]) for k in range(len(sentences))]


def _upper_after(text: str, end: int) -> bool:
    return text[end:].lstrip()[:1].isupper()


def _pieces(words: list[str], cuts: set[int]) -> list[str]:
    ordered = [0, *sorted(c for c in cuts if 0 < c < len(words)), len(words)]
    return [" ".join(words[a:b]) for a, b in zip(ordered, ordered[1:]) if b > a]


def _stops(words: list[str], cuts: set[int], names: set[str], *, strong_only: bool) -> set[int]:
    """Word indexes where a full stop seems missing, inside the current pieces."""
    ordered = [0, *sorted(cuts), len(words)]
    found = set()
    for a, b in zip(ordered, ordered[1:]):
        found |= {a + w for w in missing_stops_en(" ".join(words[a:b]), names, strong_only=strong_only)}
    return found


def _balanced(words: list[str], cuts: set[int], extra: list[int], want: int) -> set[int]:
    """`want` of `extra` added to `cuts` one at a time, each the one that leaves the shortest piece longest."""
    chosen: set[int] = set()
    for _ in range(want):

        def shortest(c: int) -> int:
            ordered = [0, *sorted(cuts | chosen | {c}), len(words)]
            return min(b - a for a, b in zip(ordered, ordered[1:]))

        best = max((c for c in extra if c not in chosen), key=shortest)
        chosen.add(best)
    return chosen
