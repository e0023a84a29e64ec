"""The word lists of the submission checks live in data files (`lotdata/data/`), read once by `lotdata.text.wordlists`;
the text heuristics live in `lotdata.text`, the readers in `lotdata.annotate.submissions`, and every name the checks
module had stays importable from `lotdata.annotate.checks` (issue 33, item 5)."""

from __future__ import annotations

import pytest

import lotdata.annotate.checks as checks
from lotdata.text import characters, story_split, style, wordlists

#: every word list a text heuristic reads, and an entry each must hold
LISTS = {
    "sentence_openers_en.txt": "finally",
    "abbreviations_extra_en.txt": "u.s.a",
    "leads_to_name_en.txt": "named",
    "before_i_en.txt": "because",
    "person_pronouns_en.txt": "their",
    "roles_en.txt": "teacher",
    "pronouns_zh.txt": "他们",
    "people_zh.txt": "妈妈",
    "role_endings_zh.txt": "夫",
    "animals_zh.txt": "驴",
    "place_endings_zh.txt": "村",
    "foods_wordnet_en.txt": "fish",
    "things_wordnet_en.txt": "spaghetti",
}


@pytest.mark.parametrize("name,entry", sorted(LISTS.items()))
def test_each_word_list_reads_without_comments_or_blanks(name, entry):
    words = wordlists.word_list(name)
    assert entry in words
    assert all(w and w == w.strip() and "#" not in w for w in words)
    assert len(set(words)) == len(words)
    assert wordlists.word_set(name) == frozenset(words)


def test_tables_map_each_key_to_its_value():
    assert characters.PRONOUN_CLASS_EN["themselves"] == "3pl"
    assert characters.PRONOUN_CLASS_EN["i"] == "1sg"
    assert characters.PLURAL_ROLES_EN["children"] == "child"
    with pytest.raises(TypeError):  # shared by every caller: read-only
        characters.PLURAL_ROLES_EN["oxen"] = "ox"


def test_a_table_line_without_a_tab_is_refused(tmp_path, monkeypatch):
    data = tmp_path / "lotdata" / "data"
    data.mkdir(parents=True)
    (data / "bad.tsv").write_text("# comment\nmen\tman\nwomen woman\n", encoding="utf-8")
    monkeypatch.setattr(wordlists.resources, "files", lambda package: tmp_path / package)
    with pytest.raises(ValueError, match="'women woman' is not key<TAB>value"):
        wordlists.word_table.__wrapped__("bad.tsv")  # not the cached one: nothing of the test stays


def test_the_lists_are_read_once():
    wordlists.word_list("roles_en.txt")
    before = wordlists.word_list.cache_info()
    assert wordlists.word_list("roles_en.txt") is wordlists.word_list("roles_en.txt")
    assert wordlists.word_list.cache_info().misses == before.misses


def test_the_heuristics_use_the_lists():
    assert story_split.split_submission_en("He moved to the U.S.A. in May. Then he left.") == [
        "He moved to the U.S.A. in May.",
        "Then he left.",
    ]
    assert story_split.missing_stops_en("We lost the game Finally we went home", set()) == [4]
    assert characters.new_entities("一个农夫走进了村子。", "小兔子在河边玩。", "zh")
    assert characters.new_entities("The teacher smiled.", "Sam went to school.", "en") == ["teacher"]
    assert characters.new_entities("The teacher smiled.", "Sam's teacher came.", "en") == []
    assert style.stray_punctuation("Don't stop: go!", "en", strict=True) == [":"]  # LOT appendix 1 to the letter
    assert style.stray_punctuation("Don't stop: go!", "en") == []  # ROCStories' stories use colons (issue 34)


def test_checks_keeps_every_name_it_had():
    for name in checks.__all__:
        assert hasattr(checks, name), name
    # one 2.2a reader: Chinese through entities_zh (the noun-head reader), English through characters
    from lotdata.text.entities_zh import new_entities_zh

    zh = ("面馆里的糕点师看到了这一切。", "小明去买早饭。")
    assert checks.new_entities(*zh, "zh") == new_entities_zh(*zh) and checks.new_entities(*zh, "zh")
    en = ("The barber laughed.", "Tom went to town.")
    assert checks.new_entities(*en, "en") == characters.new_entities(*en, "en")
    assert checks.split_submission is story_split.split_submission
    assert checks.stray_punctuation is style.stray_punctuation
    from lotdata.annotate import submissions

    assert checks.read_submissions is submissions.read_submissions
    # the rules stay registered where the registry finds them
    assert checks.get_check_rule("context_entities").row is checks.context_entities
