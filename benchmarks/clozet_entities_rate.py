"""How often LOT rule 2.2a's check (`lotdata.annotate.checks.new_entities`: the roles, animals and places of a
written candidate must appear in the story) fires on a real story's own sentence, left out of its context, and how
often it catches a planted candidate that names a new role, animal or place.

A real story's middle sentence is right by definition, yet it may bring in a role or place of its own. At pull the
check sees the context *and* the original sentence, so a candidate that keeps the original's roles passes; this
measures the other case: how often a real, good sentence names a role or place its context does not, i.e. how often
the rule would flag a sound candidate that does what real stories do. Every flag is a word the rule calls a role, an
animal or a place: a flag on a word that is none of these (产生, 现象, 吹牛) is a false alarm of the lexicon.

Sets, kept apart (the word lists and the rules were chosen by reading flags of the tuning sets only):

- tuning: CMRC 2017 validation children's stories and C3 (mixed genre) train;
- held out: CFT (children's fairy tales, human test), C3 dev + test, LOT's own 111 OutGen development stories.

Planted violations (recall): each held-out story's second sentence given one new role, animal or place word that
the story does not hold (PLANTED, written before the word lists were revised and not taken from them): the
sentence's first person pronoun is replaced by the word, or "<word>也在那里。" is added after it.

    .venv/bin/python benchmarks/clozet_entities_rate.py ../shared/data [--limit 400] [--show 30] [--seed 0]
"""

from __future__ import annotations

import json
import random
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lotdata.annotate.checks import new_entities
from lotdata.text import split_sentences

#: new roles, animals and places for the planted candidates: ordinary words of children's stories and of C3
PLANTED = (
    "猎人 农夫 老师 警察 医生 国王 公主 渔夫 商人 士兵 邮递员 乞丐 和尚 裁缝 厨师 司机 船长 巫婆 强盗 护士 "
    "狐狸 老虎 兔子 大象 猴子 乌鸦 狼 熊 青蛙 松鼠 骆驼 蚂蚁 孔雀 山羊 老鼠 燕子 鳄鱼 熊猫 蜜蜂 狮子 "
    "北京 上海 巴黎 杭州 小镇 医院 学校 森林 山洞 沙漠 村庄 城堡 寺庙 海岛 火车站 图书馆 动物园 公园 码头 皇宫"
).split()
PRONOUN = re.compile("他们|她们|它们|他|她|它")


def middle_flags(stories: list[str]) -> tuple[int, list[tuple[str, str, list[str]]]]:
    """The number of middle sentences, and (story, sentence, new words) for each one flagged."""
    total, flagged = 0, []
    for text in stories:
        sentences = split_sentences(text, "zh")
        for i in range(1, len(sentences) - 1):  # ClozeT masks a middle sentence (never the first or the last)
            context = "".join(sentences[:i] + sentences[i + 1 :])
            missing = new_entities(sentences[i], context, "zh")
            total += 1
            if missing:
                flagged.append((text, sentences[i], missing))
    return total, flagged


def planted(stories: list[str], seed: int = 0) -> list[tuple[str, str, str]]:
    """(context, planted candidate, the new word) for each story of three or more sentences."""
    rng = random.Random(seed)
    out = []
    for text in stories:
        sentences = split_sentences(text, "zh")
        if len(sentences) < 3:
            continue
        words = [w for w in PLANTED if w not in text]
        word = rng.choice(words)
        sentence = sentences[1]
        candidate = PRONOUN.sub(word, sentence, count=1) if PRONOUN.search(sentence) else sentence + f"{word}也在那里。"
        out.append(("".join(sentences[:1] + sentences[2:]), candidate, word))
    return out


def _cmrc(data: Path) -> list[str]:
    from lotdata.datasets.folder import load_stories
    from lotdata.sources.read_stage import ReadParams, read_step

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "stories.parquet"
        read_step([data / "cmrc2017_children_stories/validation/cloze.valid.doc_query"], out, ReadParams(lang="zh"))
        return [s["text"] for s in load_stories([out])]


def _c3(data: Path, part: str) -> list[str]:
    docs = json.loads((data / f"c3_mixed_genre/data/c3-m-{part}.json").read_text(encoding="utf-8"))
    return ["".join(doc[0]) for doc in docs]


def _cft(data: Path) -> list[str]:
    from lotdata.sources.readers import read_stories

    stories = read_stories([data / "cft_children_fairy_tale/children_fairy_tale/cft.zip"], lang="zh").stories
    return [s["text"] for s in stories if "human" in str(s.get("url", ""))] or [s["text"] for s in stories]


def _lot(data: Path) -> list[str]:
    lines = (data / "lot_outgen_dev/dev.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["story"] for line in lines if line.strip()]


def splits(data: Path, limit: int = 400) -> dict[str, list[str]]:
    """The tuning and held-out sets by name (each cut to its first `limit` documents; 0: all)."""
    cut = (lambda items: items[:limit]) if limit else (lambda items: items)
    return {
        "tuning: CMRC 2017 valid": cut(_cmrc(data)),
        "tuning: C3 train": cut(_c3(data, "train")),
        "held out: CFT human": cut(_cft(data)),
        "held out: C3 dev+test": cut(_c3(data, "dev") + _c3(data, "test")),
        "held out: LOT OutGen dev": _lot(data),
    }


def main(data: Path, limit: int = 400, show: int = 30, seed: int = 0) -> None:
    sets = splits(data, limit)
    held_out_flags = []
    for name, stories in sets.items():
        total, flagged = middle_flags(stories)
        words = Counter(w for _, _, new in flagged for w in new)
        print(
            f"{name}: {len(flagged)}/{total} middle sentences flagged ({len(flagged) / max(total, 1):.1%}); "
            f"most frequent words: {', '.join(w for w, _ in words.most_common(15))}"
        )
        if name.startswith("held out"):
            held_out_flags += flagged
    plants = [p for name, stories in sets.items() if name.startswith("held out") for p in planted(stories, seed)]
    caught = sum(word in new_entities(candidate, context, "zh") for context, candidate, word in plants)
    print(f"planted (held out): {caught}/{len(plants)} caught ({caught / max(len(plants), 1):.1%})")
    missed = Counter(w for c, cand, w in plants if w not in new_entities(cand, c, "zh"))
    if missed:
        print(f"  missed words: {', '.join(f'{w} {n}' for w, n in missed.most_common())}")
    if show:
        print(f"\n{min(show, len(held_out_flags))} held-out flags drawn at random (seed {seed}), to read by hand:")
        for _, sentence, new in random.Random(seed).sample(held_out_flags, min(show, len(held_out_flags))):
            print(f"- {'/'.join(new)}: {sentence}")


if __name__ == "__main__":
    args = sys.argv[1:]
    option = lambda name, default: int(args[args.index(name) + 1]) if name in args else default
    main(Path(args[0]), option("--limit", 400), option("--show", 30), option("--seed", 0))
