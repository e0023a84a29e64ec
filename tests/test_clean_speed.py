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


_NAV_PIECES = [
    "上一篇",
    "下一",
    "点击",
    "查看",
    "首页",
    " > ",
    "当前位置：",
    "微信号",
    "QQ群",
    "qq",
    "Qq号",
    "qQ号",
    "copyright",
    "COPYRIGHT",
    "Click here",
    "read More",
    "share this",
    "ſhare this",
    "clic\u212a here",
    "ad",
    "vertisement",
    "all rights reserved",
    "小猫",
    "。",
    "a",
    "Q",
    "群",
    "号",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_NAV_PIECES), max_size=8).map("".join))
def test_is_nav_ad_is_the_nav_ad_pattern(text):
    assert rules.is_nav_ad(text) == (rules.NAV_AD.search(text) is not None)


def test_the_two_letters_class_is_what_a_letter_matches_ignoring_case():
    import re
    import sys

    letters = re.compile("[a-z]", re.I)
    folding = {chr(c) for c in range(sys.maxunicode + 1) if letters.fullmatch(chr(c))}
    assert folding == {chr(c) for c in range(sys.maxunicode + 1) if rules._TWO_LETTERS.fullmatch(chr(c) * 2)}


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("。.…！？，、～~；!?-—_=*小猫"), max_size=30))
def test_fix_repeated_is_every_substitution_in_turn(text):
    long_way = text
    for pattern, repl in rules.REPEATED:
        long_way = pattern.sub(repl, long_way)
    assert rules.fix_repeated(text) == long_way


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("说问道喊叫答想：:对小猫了他她研究?？%第一，比如"), max_size=40))
def test_the_narrative_patterns_find_what_their_character_classes_found(text):
    import re

    narrative = rules._NARRATIVE.pattern.replace(
        "|".join(c + "[：:]" for c in "说问道喊叫答想"), "[说问道喊叫答想][：:]"
    )
    expository = rules._EXPOSITORY.pattern.replace(r"\?|？", "[?？]")
    assert "[说问道喊叫答想]" in narrative and "[?？]" in expository  # the replacements took
    assert re.findall(narrative, text) == rules._NARRATIVE.findall(text)
    assert re.findall(expository, text) == rules._EXPOSITORY.findall(text)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(["很久很久以前，", "一天早上，", "从前,", "星期天，", "小猫", "钓", "鱼", "新房子", "，"]),
        max_size=8,
    ).map("".join)
)
def test_may_glue_searches_openers_as_the_matches_at_each_position_did(text):
    import re

    alternatives = re.sub(r"\(\?:(春\|夏\|秋\|冬)\)天", "春天", rules._OPENERS.pattern)  # the longest spellings
    longest = max(len(a) for a in re.sub(r"星期\[[^]]*\]", "星期一", alternatives)[4:-6].split("|")) + 1
    assert rules._OPENER_LONGEST == longest
    if len(text) < 2 or any(ch.isspace() for ch in text[:16]):
        return
    bigrams = [text[k : k + 2] for k in range(min(13, len(text) - 1))]
    long_way = len(set(bigrams)) < len(bigrams) or any(rules._OPENER_AT.match(text, k) for k in range(2, 13))
    assert rules._may_glue(text) == long_way


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("之乎者也曰吾的了是们这a1，。"), max_size=60))
def test_is_classical_shortcut_gives_the_scores_verdict(text):
    classical, modern = rules.classical_score(text)
    assert rules.is_classical(text) == (classical >= 0.08 and modern < 0.02)


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("小猫钓鱼猫妈妈，。ab1 "), max_size=30),
    st.sampled_from(["zh", "en"]),
)
def test_signatures_from_shingle_lists_are_those_of_the_shingle_sets(text, lang):
    import rensa

    from lotdata.clean.dedup import DedupParams, shingles, signatures

    params = DedupParams(num_perm=16)
    m = rensa.RMinHash(params.num_perm, params.seed)
    m.update(list(shingles(text, lang, params.shingle)))
    assert signatures([text], [lang], params)[0].tolist() == m.digest()


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(0, 500)), st.sets(st.integers(0, 500)))
def test_merge_sorted_is_union1d(a, b):
    from lotdata.clean.dedup import merge_sorted

    left, right = np.array(sorted(a), dtype=np.int64), np.array(sorted(b), dtype=np.int64)
    assert np.array_equal(merge_sorted(left, right), np.union1d(left, right))


def test_a_cluster_filtered_at_once_keeps_what_one_copy_at_a_time_kept(monkeypatch):
    from lotdata.clean import dedup

    rng = np.random.default_rng(3)
    base = rng.integers(0, 2**32, size=(6, 64), dtype=np.uint32)
    sigs = np.repeat(base, 9, axis=0)  # 6 families of 9 copies, each copy changed in a few places
    for row in range(len(sigs)):
        sigs[row, rng.choice(64, size=int(rng.integers(0, 20)), replace=False)] = rng.integers(
            0, 2**32, dtype=np.uint32
        )
    pairs = np.array([(i, j) for i in range(len(sigs)) for j in range(i + 1, len(sigs))])
    params = dedup.DedupParams(num_perm=64, cluster_threshold=0.3, reject_threshold=0.8)
    at_once = dedup.cluster_and_filter(sigs, pairs, lambda i: (i % 5, i), params)
    monkeypatch.setattr(dedup, "GROUP_AT_ONCE", 0)
    one_by_one = dedup.cluster_and_filter(sigs, pairs, lambda i: (i % 5, i), params)
    assert at_once == one_by_one
    assert 0 < sum(d is not None for d in at_once.duplicate_of) < len(sigs) - 6  # some copies go, some stay


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))
    )
)
def test_components_are_the_roots_of_a_union_find(graph):
    from lotdata.clean.dedup import components

    n, edges = graph
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            i = parent[i]
        return i

    for i, j in edges:
        a, b = find(i), find(j)
        parent[max(a, b)] = min(a, b)
    got = components(n, np.array(edges, dtype=np.int64).reshape(-1, 2))
    assert got.tolist() == [find(i) for i in range(n)]
