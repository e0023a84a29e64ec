"""How precise LOT appendix 2.2d's antonym check is (`lotdata.annotate.checks.antonym_swap`: a wrong candidate must
not be its original with words swapped for antonyms, `lotdata.text.antonyms`), on real sentences.

- Planted swaps (recall): each held-out sentence holding a listed word, with that word replaced by its antonym.
- Other substitutions (false alarms): the same sentences with the listed word replaced by a listed word that is not
  its antonym (开心 -> 聪明), and real sentence pairs that are not swaps: each sentence against the next one of its
  story; in English also the two endings of each Story Cloze case (written apart, never as swaps of each other, yet
  a wrong ending may be one: every flag is printed to be read by hand).

Sets as benchmarks/clozet_entities_rate.py and benchmarks/shared_character_rate.py: Chinese tuning CMRC 2017 valid +
C3 train, held out CFT human + C3 dev/test + LOT OutGen dev; English tuning Story Cloze spring 2016 + ROCStories 5k,
held out winter 2018 cases in neither spring set. The Chinese pairs were written by hand before any measurement; the
English ones are WordNet's.

    .venv/bin/python benchmarks/antonym_swap_rate.py ../shared/data [--limit 400]
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from clozet_entities_rate import splits as zh_splits
from shared_character_rate import splits as en_splits

from lotdata.text import split_sentences
from lotdata.text.antonyms import antonym_pairs, antonym_swaps
from lotdata.text.tokenize import tokenize


def _bare(token: str, lang: str) -> str:
    return token if lang == "zh" else token.lower().strip(".,!?;:")


def _edits(sentences: list[str], lang: str, rng: random.Random) -> tuple[list, list]:
    """(original, planted swap) and (original, other substitution) for each sentence holding a listed word."""
    pairs = antonym_pairs(lang)
    words = sorted(pairs)
    swaps, others = [], []
    for sentence in sentences:
        tokens = tokenize(sentence, lang) if lang == "zh" else sentence.split()
        listed = [k for k, t in enumerate(tokens) if _bare(t, lang) in pairs]
        if not listed:
            continue
        k = rng.choice(listed)
        bare = _bare(tokens[k], lang)
        antonym = rng.choice(sorted(pairs[bare]))
        other = rng.choice([w for w in words if w not in pairs[bare] and w != bare])
        joiner = "" if lang == "zh" else " "
        swap = lambda new: joiner.join(tokens[:k] + [tokens[k].lower().replace(bare, new)] + tokens[k + 1 :])
        swaps.append((joiner.join(tokens), swap(antonym)))
        others.append((joiner.join(tokens), swap(other)))
    return swaps, others


def _report(name: str, sentences: list[str], neighbours: list[tuple[str, str]], lang: str, seed: int) -> None:
    swaps, others = _edits(sentences, lang, random.Random(seed))
    caught = sum(bool(antonym_swaps(a, b, lang)) for a, b in swaps)
    wrong = [(a, b) for a, b in others if antonym_swaps(a, b, lang)]
    real = [(a, b) for a, b in neighbours if antonym_swaps(a, b, lang)]
    print(
        f"{name}: planted swaps caught {caught}/{len(swaps)} ({caught / max(len(swaps), 1):.1%}); "
        f"other substitutions flagged {len(wrong)}/{len(others)}; real pairs flagged {len(real)}/{len(neighbours)}"
    )
    for a, b in (wrong + real)[:20]:
        print(f"  - {a} || {b} -> {antonym_swaps(a, b, lang)}")


def main(data: Path, limit: int = 400, seed: int = 0) -> None:
    for name, stories in zh_splits(data, limit).items():
        sentences, neighbours = [], []
        for text in stories:
            parts = split_sentences(text, "zh")
            sentences += parts
            neighbours += list(zip(parts, parts[1:]))
        _report(f"zh {name}", sentences, neighbours, "zh", seed)
    for name, cases in en_splits(data).items():
        sentences = [s for c in cases for s in (c.get("right_ending"), c.get("wrong_ending")) if s]
        neighbours = [(c["right_ending"], c["wrong_ending"]) for c in cases if c.get("wrong_ending")]
        neighbours += [(a, b) for c in cases for a, b in zip(c["context"], c["context"][1:])]
        _report(f"en {name}", sentences, neighbours, "en", seed)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(Path(args[0]), int(args[args.index("--limit") + 1]) if "--limit" in args else 400)
