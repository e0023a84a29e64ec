"""Issue 26: departures from LOT that the builders and the audit now follow, or document."""

from __future__ import annotations

from lotdata.datasets.stats import split_stats
from lotdata.datasets.registry import get_task


def test_senpos_counts_sentences_before_merging_as_lot_table_3_does():
    # the second unit is a short sentence merged with the next one: LOT's figure counts it (positions + 1.5)
    row = {"example_id": "e", "story_id": "s", "split": "test", "removed": "被拿走的这一句也足够长。", "label": 1,
           "n_candidates": 2, "refined": False, "lang": "zh",
           "sentences": ["这是第一个很长的句子啊。", "短。这是第二个长句子呀。", "第三个句子也很长很长。"]}
    stats = split_stats("senpos", [row])
    assert stats["avg_candidate_positions"] == 2
    assert stats["avg_sents_input"] == 4  # merged units would give 3, always positions + 1


def test_the_senpos_card_says_that_short_source_paragraphs_are_joined():
    limitations = " ".join(get_task("senpos").card_limitations)
    assert "joined to the next one" in limitations and "span a paragraph" in limitations
