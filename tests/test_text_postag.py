"""Part-of-speech tags without jieba (lotdata.text.postag) equal jieba.posseg's, HMM off, on real stories."""

from __future__ import annotations

from pathlib import Path

import pytest

from lotdata.clean.rules import glued_title
from lotdata.sources.readers import read_stories
from lotdata.text.postag import pos_words_nohmm

# what differs between jieba and jieba-rs: digits, ASCII runs, characters outside jieba's dictionary
# (traditional and rare ones, CJK extension A), symbols, words with ASCII punctuation in the dictionary
EDGES = [
    "小猴吃西瓜小猴跑到河边3.5个ABC123去了",
    "123个苹果",
    "50%的人",
    "C++和c#是AT&T的",
    "第1名a_b-c",
    "有一隻狐狸很自大，大家都不喜歡他",
    "狐狸大吼了一聲：「讓開",
    "妞狃说完",
    "㐀㐁是扩展字",
    "他说：“OK！”",
    "2023年5月1日，小明",
    "iPhone15Pro发布了",
    "——“你好”",
    "🐱猫咪",
    "x1y2 z3",
    "3.14159",
]


def _jieba(text: str) -> list[tuple[str, str]]:
    import jieba.posseg

    return [(w.word, w.flag) for w in jieba.posseg.lcut(text, HMM=False) if w.word.strip()]


def test_tags_equal_jieba_posseg_on_edge_cases() -> None:
    for text in EDGES:
        assert pos_words_nohmm(text) == _jieba(text), text
    assert ("狃", "x") in pos_words_nohmm("妞狃说完")  # outside jieba's dictionary: jieba-rs alone would guess "g"
    assert ("123", "eng") in pos_words_nohmm("123个苹果")  # jieba-rs alone says "m"


@pytest.fixture(scope="module")
def texts(shared_data: Path) -> list[str]:
    stories = read_stories(
        [
            shared_data / "cmrc2017_children_stories/validation/cloze.valid.doc_query",
            shared_data / "cft_children_fairy_tale/children_fairy_tale/cft.zip",
        ],
        lang="zh",
    ).stories
    return [row["text"] for row in stories]


def test_tags_equal_jieba_posseg_on_real_stories(texts: list[str]) -> None:
    sample = texts[::4]
    assert len(sample) > 500
    assert [text[:40] for text in sample if pos_words_nohmm(text) != _jieba(text)] == []


def test_glued_title_finds_what_it_found_with_jieba(texts: list[str], monkeypatch) -> None:
    import lotdata.clean.rules as rules

    found = [glued_title(text) for text in texts]
    monkeypatch.setattr(rules, "_pos_words", _jieba)
    assert found == [glued_title(text) for text in texts]
    assert sum(1 for title in found if title) > 50  # CFT's titles are glued to the first sentence


@pytest.mark.parametrize("text", ["", "，。！", " \n"])
def test_punctuation_and_blanks(text: str) -> None:
    assert pos_words_nohmm(text) == _jieba(text)
    assert all(tag == "x" for _, tag in pos_words_nohmm(text))


def test_the_tagger_leaves_rjieba_usable_in_the_same_process() -> None:
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from lotdata.text.postag import pos_words_nohmm\n"
        "words = [w for w, _ in pos_words_nohmm('小猴吃西瓜')]\n"
        "assert 'rjieba' not in sys.modules\n"
        "import rjieba\n"
        "print(words, rjieba.cut('小猴吃西瓜'), rjieba.Jieba is sys.modules['rjieba.rjieba'].Jieba)\n"
    )
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=repo, check=True)
    assert done.stdout.strip() == "['小', '猴', '吃', '西瓜'] ['小猴', '吃', '西瓜'] True"
