"""Text-layer rules checked against LOT's own data and the cases found on real CMRC/CFT text.

Example sentences here are written for the tests; LOT's official SenPos example is read from the shared data (the `shared_data` fixture).
"""

from __future__ import annotations

import json
from pathlib import Path

from lotdata.sources.story import make_story_row
from lotdata.tasks.common import inner_candidates, merged_sentences
from lotdata.tasks.senpos import SenposParams, reinsert, senpos_examples
from lotdata.text import count_chars, merge_short_sentences, normalize_text, split_sentences

SENPOS_EXAMPLE = Path("lot_official_examples") / "examples" / "senpos.jsonl"  # under the shared data


def zh(text: str) -> list[str]:
    return split_sentences(normalize_text(text), "zh")


def test_ten_character_rule_counts_punctuation() -> None:
    assert count_chars("“什么声音也没有。”") == 10
    sentences = ["他轻轻推开门走了进去。", "“什么声音也没有。”", "好。", "她说完就回到了自己的房间。"]
    # 10 characters with its quotes: kept; 好。 (2) joins the sentence before it
    assert merge_short_sentences(sentences, "zh", 10) == [
        "他轻轻推开门走了进去。",
        "“什么声音也没有。”好。",
        "她说完就回到了自己的房间。",
    ]
    assert inner_candidates(["一二三四五六七八九十。", "“什么声音也没有。”", "一二三四五六七八九十。"], 10) == [1]


def test_lot_official_senpos_example_is_segmented_as_lot_did(shared_data: Path) -> None:
    record = json.loads((shared_data / SENPOS_EXAMPLE).read_text(encoding="utf-8").splitlines()[0])
    lot_remaining = record["story"].split("[MASK]")
    lot_sentences = reinsert(lot_remaining, record["sentence"], record["label"])
    assert len(lot_sentences) == 10 and len(lot_remaining) - 1 == 8  # 10 sentences, 8 candidate gaps
    story = make_story_row("".join(lot_sentences), source="lot", lang="zh")
    assert story["sentences"] == lot_sentences
    merged = merged_sentences(story, 10)
    assert merged == lot_sentences  # “什么声音也没有。” stays a sentence of its own
    assert record["label"] in inner_candidates(merged, 10)
    for seed in range(5):
        (example,) = senpos_examples(story, SenposParams(), seed).examples
        assert len(example["sentences"]) == 9 and example["n_candidates"] == 8
        assert reinsert(example["sentences"], example["removed"], example["label"]) == lot_sentences


def test_no_cut_after_closing_quote_when_the_sentence_goes_on() -> None:
    assert zh("“千万不要害怕！”，它勇敢地冲上去。大家都笑了。") == [
        "“千万不要害怕！”，它勇敢地冲上去。",
        "大家都笑了。",
    ]
    assert zh("“快跑！”；它大喊着冲了出去。他没有回答。") == ["“快跑！”；它大喊着冲了出去。", "他没有回答。"]
    # a full stop after the closing quote ends the sentence after it
    assert zh("他大声说：“好！”。然后转身走了。") == ["他大声说：“好！”。", "然后转身走了。"]
    # unchanged: a quotation ending on a terminal mark and followed by words is cut after the quote
    assert zh("“我饿了。”小熊说。") == ["“我饿了。”", "小熊说。"]


def test_ellipsis_followed_by_a_terminal_mark_ends_the_sentence() -> None:
    assert zh("他想了又想……。最后还是走了……？真的吗？") == ["他想了又想……。", "最后还是走了……？", "真的吗？"]
    assert zh("他想了又想……最后还是走了。") == ["他想了又想……最后还是走了。"]  # a pause inside


def test_ascii_full_stop_between_chinese_characters() -> None:
    assert normalize_text("天黑了，他回家了.妈妈在门口等他。") == "天黑了，他回家了。妈妈在门口等他。"
    assert zh("天黑了，他回家了.妈妈在门口等他。") == ["天黑了，他回家了。", "妈妈在门口等他。"]
    assert normalize_text("他花了3.5元买了一本书。") == "他花了3.5元买了一本书。"  # a number stays
    assert normalize_text("版本是v1.2的") == "版本是v1.2的"


def test_straight_quotes_paired_by_context() -> None:
    assert normalize_text('他说:"你好。"她笑了。"我也好。"') == "他说：“你好。”她笑了。“我也好。”"
    # the opener of the first quotation is missing its closer: it stays straight, the rest pair
    text = normalize_text('他说:"你好。他走了。她说:"再见。"大家都笑了。"好啊!"')
    assert text == '他说："你好。他走了。她说：“再见。”大家都笑了。“好啊！”'
    # a closer without its opener (punctuation follows it) stays straight; later quotes are not flipped
    text = normalize_text('真好吃!",他说。"再来一碗。"妈妈笑了。')
    assert text == '真好吃！"，他说。“再来一碗。”妈妈笑了。'
    assert zh('真好吃!",他说。"再来一碗。"妈妈笑了。') == ['真好吃！"，他说。', "“再来一碗。”", "妈妈笑了。"]
    # an opener open at the end stays straight
    assert normalize_text('他想:"明天一定要早起。') == '他想："明天一定要早起。'
    for raw in ('他说:"你好。他走了。她说:"再见。"', '"好!""走吧。"', '"一"二"三'):
        once = normalize_text(raw)
        assert normalize_text(once) == once


def test_real_cmrc_and_cft_stories_normalise_once_and_split_losslessly(shared_data: Path) -> None:
    from lotdata.sources.readers import read_stories

    paths = [
        shared_data / "cmrc2017_children_stories" / "validation" / "cloze.valid.doc_query",
        shared_data / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip",
    ]
    stories = read_stories(paths, fmt="cmrc").stories
    assert len(stories) > 2000
    for story in stories:
        text = story["text"]
        assert normalize_text(text) == text
        assert "".join(split_sentences(text, "zh")) == text
    # straight quotes left unpaired are rare: one missing quote no longer flips the rest
    assert sum('"' in s["text"] for s in stories) < 0.05 * len(stories)
