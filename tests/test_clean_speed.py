"""The shortcuts that made clean's per-story rules cheaper (issue 37 item 1) give what the long way gives: each fast
path against the computation it skips. The whole chain is pinned by tests/test_golden_outputs.py."""

from __future__ import annotations

import io
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lotdata.clean import rules
from lotdata.clean.dedup import _pairs_in
from lotdata.text import normalize
from lotdata.text.sentences import split_zh


def _nfkc_long_way(text: str) -> str:
    out = io.StringIO()
    for match in normalize._KEPT_OR_NOT.finditer(text):
        run = match.group()
        if run[0] in normalize._KEEP_FULLWIDTH or unicodedata.is_normalized("NFKC", run):
            out.write(run)
        else:
            for ch in run:
                out.write(unicodedata.normalize("NFKC", ch))
    return out.getvalue()


@settings(max_examples=400, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("小猫钓鱼，。！？“”（）ＡＢ１２ｱｲ①ﬁé\u0301e\u1100\u1161 \u3000…—A1"), max_size=40)
)
def test_the_nfkc_fast_path_gives_the_runs_result(text):
    assert normalize._nfkc_keep_cjk_punct(text) == _nfkc_long_way(text)


@pytest.mark.parametrize("length", [3, 4, 7, 50])
def test_bucket_pairs_are_triu_indices(length):
    i, j = _pairs_in(length)
    want_i, want_j = np.triu_indices(length, k=1)
    assert np.array_equal(i, want_i) and np.array_equal(j, want_j)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("小猫钓鱼猫妈妈带着一天，从前有只兔子。！“”（）…"), max_size=60))
def test_the_splitter_is_lossless_and_cuts_where_it_did(text):
    sentences = split_zh(text)
    assert "".join(sentences) == text
    assert all(s for s in sentences)


def test_the_pos_gate_never_hides_a_glued_title(shared_data):
    """On real first sentences: wherever glued_title finds a title, the gate lets the sentence through."""
    from lotdata.sources.readers import get_format
    from lotdata.text import normalize_text

    parse = get_format("cmrc").parse
    folder = shared_data / "cmrc2017_children_stories" / "validation"
    texts = [normalize_text(r.text, "zh") for r in parse(folder / "cloze.valid.doc_query") if r.text]
    planted = ["小猴吃西瓜小猴跑到河边。", "新房子一天，小熊盖了一座新房子。", "小猫钓鱼从前，猫妈妈带着小猫去钓鱼。"]
    for text in texts[:800] + planted:
        sentence = rules._SENTENCE_END.split(text, maxsplit=1)[0]
        if len(sentence) >= 6 and not rules._may_glue(sentence):
            rules._may_glue, keep = (lambda s: True), rules._may_glue
            try:
                assert rules.glued_title(text) is None, sentence
            finally:
                rules._may_glue = keep
    assert all(rules._may_glue(rules._SENTENCE_END.split(t, maxsplit=1)[0]) for t in planted)
