"""The `pii` clean rule (issue 37): what it masks, what it leaves (a story's own numbers), its actions per kind,
its counts in the summary and the manifest. Measured precision and false alarms on real corpora: bench/pii.md."""

from __future__ import annotations

import json

import pytest

from lotdata.clean.pii import KINDS, apply_pii, find_pii, id_number_valid, parse_pii_actions
from lotdata.clean.step import CleanParams, clean_rows
from lotdata.sources.story import make_story_row

MASK = parse_pii_actions("mask")
STORY = (
    "从前有一只小狐狸住在山脚下。它每天早上都去河边喝水，看见河里的小鱼游来游去。有一天，它想学游泳，结果掉进了水里。"
)


def _id_with_check(first17: str) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return first17 + "10X98765432"[sum(int(d) * w for d, w in zip(first17, weights)) % 11]


@pytest.mark.parametrize(
    ("text", "lang", "masked"),
    [
        ("我的电话是13812345678，有事找我。", "zh", "我的电话是[PHONE]，有事找我。"),
        ("请拨打010-62345678。", "zh", "请拨打[PHONE]。"),
        ("请拨打+86 138 1234 5678。", "zh", "请拨打[PHONE]。"),
        (f"身份证号{_id_with_check('11010519491231002')}，请核对。", "zh", "身份证号[ID]，请核对。"),
        ("加我QQ：123456789吧。", "zh", "加我QQ：[QQ]吧。"),
        ("微信号：fox_2020ab，欢迎。", "zh", "微信号：[WECHAT]，欢迎。"),
        ("写信给fox@example.com吧。", "zh", "写信给[EMAIL]吧。"),
        ("他住在北京市海淀区中关村大街27号3单元501室。", "zh", "他住在[ADDRESS]。"),
        ("She lives at 221 Baker Street and her number is (212) 555-0123.", "en", None),
    ],
)
def test_planted_values_are_masked(text, lang, masked):
    out = apply_pii(text, lang, MASK).text
    if masked is None:
        assert "[ADDRESS]" in out and "[PHONE]" in out and "221" not in out and "555" not in out
    else:
        assert out == masked


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("1998年，他18岁，花了15000000000元，走了12345678步。", "zh"),
        ("小猴子数了数，一共有13800000000颗星星。", "zh"),
        ("他沿着小路走了三里路，来到一间小屋。", "zh"),
        ("In 2019 he was 35 years old and paid 1200 dollars for 3 tickets on May 5.", "en"),
        ("He drove 100 miles down the road to 4 Main Places.", "en"),
    ],
)
def test_a_storys_own_numbers_survive(text, lang):
    assert find_pii(text, lang) == []


def test_the_id_checksum_decides():
    good = _id_with_check("11010519491231002")
    assert id_number_valid(good)
    bad = good[:17] + ("0" if good[17] != "0" else "1")
    assert not id_number_valid(bad)
    assert not id_number_valid("110105194913310021")  # month 13
    assert find_pii(f"号码{bad}。") == []


def test_actions_parse_per_kind_and_refuse_unknown_words():
    assert parse_pii_actions("mask,id=quarantine,address=off") == {
        **dict.fromkeys(KINDS, "mask"),
        "id": "quarantine",
        "address": "off",
    }
    assert set(parse_pii_actions("off").values()) == {"off"}
    with pytest.raises(ValueError, match="kind 'ssn'"):
        parse_pii_actions("ssn=mask")
    with pytest.raises(ValueError, match="action 'hide'"):
        parse_pii_actions("phone=hide")


def test_clean_masks_quarantines_and_counts():
    rows = [
        make_story_row(STORY + "它的电话是13812345678。", source="s", lang="zh"),
        make_story_row(
            STORY.replace("小狐狸", "小熊") + f"身份证号{_id_with_check('11010519491231002')}。", source="s", lang="zh"
        ),
        make_story_row(STORY.replace("小狐狸", "小兔") + "那年它3岁。", source="s", lang="zh"),
    ]
    result = clean_rows(rows, CleanParams(pii="mask,id=quarantine", short_chars=0))
    texts = [r["text"] for r in result.kept]
    assert any(t.endswith("它的电话是[PHONE]。") for t in texts)
    assert any(t.endswith("那年它3岁。") for t in texts)
    assert [(q["rule"], q["evidence"]) for q in result.quarantine] == [("pii_quarantine", "id 1")]
    assert "stripped_pii" in next(r["flags"] for r in result.kept if "[PHONE]" in r["text"])
    assert result.counts["pii"]["found"] == {"phone": {"values": 1, "stories": 1}, "id": {"values": 1, "stories": 1}}
    summary = {(r["rule"], r["action"]): r["stories"] for r in result.summary}
    assert summary[("pii", "stripped")] == 1 and summary[("pii_quarantine", "removed")] == 1
    off = clean_rows(rows, CleanParams(pii="off", short_chars=0))
    assert off.counts["pii"]["found"] == {} and len(off.kept) == 3


def test_the_manifest_counts_what_the_rule_found(tmp_path):
    from lotdata.clean.files import clean_files
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows

    rows = [
        make_story_row(STORY.replace("小狐狸", f"小狐狸{i}号") + "电话13812345678。", source="s", lang="zh")
        for i in range(3)
    ]
    stories = tmp_path / "stories.parquet"
    write_parquet(table_from_rows(rows, STORIES), stories)
    clean_files([stories], tmp_path / "clean", CleanParams(), rows_per_shard=2, progress=False)
    manifest = json.loads((tmp_path / "clean" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["params"]["pii"] == "mask"
    assert manifest["stats"]["pii"]["found"]["phone"] == {"values": 3, "stories": 3}


def test_the_card_reports_what_the_rule_found():
    from lotdata.datasets.release import _pii_checked

    stats = {"pii": {"actions": {"phone": "mask", "id": "quarantine"}, "found": {"phone": {"values": 4, "stories": 3}}}}
    (line,) = _pii_checked({"kind": "clean", "stats": stats})
    assert "phone mask, id quarantine" in line and "phone 4 values in 3 stories" in line
    assert _pii_checked({"kind": "clean", "stats": {}}) == []  # a clean run made before the rule


def test_clean_rejects_a_story_not_in_its_language_by_the_one_identifier():
    """Issue 37 item 3: clean's `language` rule is lotdata.text.langid's verdict (no identifier of its own)."""
    from lotdata.text.langid import language_problem

    english = "The fox lived at the foot of the hill. Every morning it went down to the river to drink water."
    rows = [
        make_story_row(STORY, source="s", lang="zh"),
        {**make_story_row(english, source="s", lang="en"), "lang": "zh"},  # stored as Chinese
    ]
    result = clean_rows(rows, CleanParams(short_chars=0))
    ((rule, evidence),) = [(q["rule"], q["evidence"]) for q in result.quarantine]
    assert rule == "language" and evidence == language_problem(result.quarantine[0]["text"], "zh")
    assert len(clean_rows(rows, CleanParams(short_chars=0, language_check=False)).kept) == 2
