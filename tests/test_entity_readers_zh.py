"""The benchmark of other Chinese entity readers (benchmarks/entity_readers_zh.py): what it counts as a candidate, how
it labels one from the annotation, and how the re-scorer edits the reader's words."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import check_rule_data  # noqa: E402
import entity_readers_zh as readers  # noqa: E402

pytestmark = pytest.mark.skipif(not check_rule_data.available(), reason="needs ../shared/data")


def _candidate(span, word="猎人", tag="n"):
    return readers.Candidate("s1", span, word, tag, "<s>", "</s>", "<s>")


def test_a_candidate_is_marked_where_an_annotator_marked_an_entity_and_unlabelled_where_only_a_name():
    marks = {"s1": [("老猎人", "role", 0, 3), ("小明", "name", 5, 7)]}
    assert readers.label(_candidate((1, 3)), marks) == 1  # 猎人 inside 老猎人
    assert readers.label(_candidate((5, 7), "小明", "nr"), marks) is None  # the reader does not read names
    assert readers.label(_candidate((3, 5), "走进", "v"), marks) == 0


def test_nouns_verbs_place_words_and_idioms_are_candidates_but_not_particles():
    assert all(readers._candidate_tag(w, t) for w, t in [("森林", "n"), ("北京", "ns"), ("跑", "v"), ("里", "s")])
    assert readers._candidate_tag("一帆风顺", "i")
    assert not any(readers._candidate_tag(w, t) for w, t in [("的", "uj"), ("很", "d"), ("他", "r")])


def test_the_reader_edited_drops_what_the_rescorer_rules_out_and_adds_what_it_is_sure_of(monkeypatch):
    sentence = "猎人在银行门口遇见了狐狸"
    monkeypatch.setattr(readers, "_sentences", lambda: {"s1": sentence})
    monkeypatch.setattr(readers, "reader", lambda: {"s1": ("猎人", "银行")})
    scored = [
        (_candidate((0, 2)), 0.9),
        (_candidate((3, 5), "银行", "READ"), 0.01),
        (_candidate((10, 12), "狐狸"), 0.95),
        (_candidate((5, 7), "门口", "s"), 0.4),
    ]
    assert readers.edited(scored) == {"s1": ("猎人", "狐狸")}
    assert readers.edited(scored, drop=0.0, add=0.99) == {"s1": ("猎人", "银行")}
    assert readers._above(scored, 0.5) == {"s1": ("猎人", "狐狸")}
