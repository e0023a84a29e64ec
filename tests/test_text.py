from __future__ import annotations

import importlib

from hypothesis import given, settings
from hypothesis import strategies as st

from lotdata.text import (
    count_chars,
    count_words,
    join_sentences,
    merge_short_sentences,
    normalize_text,
    split_sentences,
    tokenize,
)
from lotdata.text.tokenize import compare_tokenizers, register_tokenizer, unregister_tokenizer


def test_zh_closing_quotes_stay_with_their_sentence():
    text = "小熊问：“你去哪儿？”小兔说：“我去河边。”它们一起走了。"
    assert split_sentences(text, "zh") == ["小熊问：“你去哪儿？”", "小兔说：“我去河边。”", "它们一起走了。"]


def test_zh_no_split_inside_quoted_speech():
    text = "“你好！今天天气真好。我们去河边吧？”他说。"
    sentences = split_sentences(text, "zh")
    assert sentences[0] == "“你好！今天天气真好。我们去河边吧？”"
    assert all(s.count("“") == s.count("”") for s in sentences)


def test_zh_repeated_marks_and_ellipsis():
    text = "真的吗？！我不信……“真的……”他想了想……还是走了。"
    assert split_sentences(text, "zh") == ["真的吗？！", "我不信……", "“真的……”", "他想了想……还是走了。"]


def test_zh_brackets_and_corner_quotes():
    text = "她读了「小王子」（一本书。）然后睡了。『晚安！』妈妈说。"
    assert split_sentences(text, "zh") == ["她读了「小王子」（一本书。）", "然后睡了。", "『晚安！』", "妈妈说。"]


def test_zh_unmatched_quote_does_not_swallow_the_story():
    text = "他说：“快跑。后来大家都跑了。天黑了。"
    assert len(split_sentences(text, "zh")) == 3


def test_en_splitter_abbreviations_and_quotes():
    text = 'Mr. Smith came home at 5 p.m. today. He said "Stop. Now." Then he left! Was it J. K. Rowling?'
    assert split_sentences(text, "en") == [
        "Mr. Smith came home at 5 p.m. today.",
        'He said "Stop. Now."',
        "Then he left!",
        "Was it J. K. Rowling?",
    ]


def test_en_splitter_no_and_single_letters():
    # "no." ends a sentence unless a number follows; a lower-case single letter is no initial
    assert split_sentences("They said no. So she went. See No. 5 now.", "en") == [
        "They said no.",
        "So she went.",
        "See No. 5 now.",
    ]
    assert split_sentences("She fixed the w. She smiled.", "en") == ["She fixed the w.", "She smiled."]
    assert split_sentences("Ask J. Smith. He knows.", "en") == ["Ask J. Smith.", "He knows."]


def test_normalise_zh_deletes_spaces_and_keeps_fullwidth_punctuation():
    assert normalize_text("小 猴 呢 ， 整天 从 这 棵 树 跳 到 那 棵 树 !") == "小猴呢，整天从这棵树跳到那棵树！"
    assert normalize_text("他用 iPhone 12 拍照，ＡＢＣ１２３") == "他用iPhone 12拍照，ABC123"
    assert normalize_text('他说:"走吧..."') == "他说：“走吧……”"
    assert normalize_text("共1,000元") == "共1,000元"


def test_normalise_en_collapses_whitespace():
    assert normalize_text("A  dog\n ran.\u200b", "en") == "A dog ran."


def test_merge_short_sentences_lot_footnote_3():
    sentences = ["好吧。", "小熊终于同意去森林里找朋友了。", "他说。", "天很快就黑下来了，它们回到了家。"]
    merged = merge_short_sentences(sentences, "zh", 10)
    assert merged == ["好吧。小熊终于同意去森林里找朋友了。他说。", "天很快就黑下来了，它们回到了家。"]
    assert all(count_chars(s) >= 10 for s in merged)


def test_tokenize_uses_jieba_and_drops_spaces():
    assert tokenize("我爱北京天安门") == ["我", "爱", "北京", "天安门"]
    assert tokenize("I don't know.", "en") == ["I", "don't", "know", "."]


def test_tokenizer_is_pluggable_and_checked_against_jieba():
    import jieba

    register_tokenizer("jieba-copy", lambda: lambda t: [w for w in jieba.lcut(t) if w.strip()])
    register_tokenizer("chars", _chars)
    try:
        texts = ["我爱北京天安门", "小猴子跳到树上"]
        assert compare_tokenizers("jieba-copy", texts) == {"same": 2, "differ": 0}
        assert compare_tokenizers("chars", texts)["differ"] == 2
    finally:
        unregister_tokenizer("jieba-copy")
        unregister_tokenizer("chars")


def _chars():
    return lambda t: [c for c in t if c.strip()]


def test_the_tokenizer_is_an_argument_not_process_state(tmp_path):
    """Words are counted with the tokenizer the caller names; a build with another one leaves nothing behind."""
    from lotdata.datasets.stats import Vocabulary
    from lotdata.io import read_manifest
    from lotdata.sources.read_stage import ReadParams, read_step
    from lotdata.tasks.build import build_dataset

    tokenize_module = importlib.import_module("lotdata.text.tokenize")  # `lotdata.text.tokenize` is also a function

    register_tokenizer("chars", _chars)
    try:
        text = "我爱北京天安门"
        assert count_words(text, "zh", "chars") == 7 and count_words(text, "zh") == 4
        assert Vocabulary("chars").words_of(text, "zh") == list(text)
        assert not any(hasattr(tokenize_module, name) for name in ("set_tokenizer", "using_tokenizer", "_current"))
        stories = tmp_path / "stories.parquet"
        read_step(["lotdata:sample"], stories, ReadParams(format="jsonl"))
        build_dataset("senpos", [stories], tmp_path / "chars", tokenizer="chars", card=False)
        assert read_manifest(tmp_path / "chars")["environment"]["tokenizer"] == "chars"
        assert tokenize(text) == ["我", "爱", "北京", "天安门"]  # the build did not change the default
    finally:
        unregister_tokenizer("chars")


_zh_chars = st.sampled_from(
    list("小猴熊兔子森林河边天黑了他说走吧我们的一只大象鼻子好朋友")
    + ["，", "。", "！", "？", "“", "”", "……", " ", "：", "；"]
)
_en_chars = st.sampled_from(list("abcde fgh ABC") + [". ", "! ", "? ", '"', ", ", "Mr. "])


@settings(max_examples=300, deadline=None)
@given(st.lists(_zh_chars, max_size=80).map("".join))
def test_zh_split_is_lossless_and_normalise_idempotent(raw):
    text = normalize_text(raw, "zh")
    assert normalize_text(text, "zh") == text
    sentences = split_sentences(text, "zh")
    assert join_sentences(sentences, "zh") == text
    assert all(sentences)
    merged = merge_short_sentences(sentences, "zh", 10)
    assert join_sentences(merged, "zh") == text
    if len(merged) > 1:
        assert all(count_chars(s) >= 10 for s in merged)


@settings(max_examples=300, deadline=None)
@given(st.lists(_en_chars, max_size=60).map("".join))
def test_en_split_is_lossless(raw):
    text = normalize_text(raw, "en")
    sentences = split_sentences(text, "en")
    assert join_sentences(sentences, "en") == text
    assert all(s == s.strip() and s for s in sentences)
