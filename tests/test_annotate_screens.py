"""What a rater sees and whose answer counts (issue: screens without traps, answers credited to the right person),
without a server: every template in every language read for the screen rules, cloze_verify's version assignment,
and the pull's check of who created and who last changed an answer."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from lotdata.annotate.assign import extend_assignment, raters_with_two_versions
from lotdata.annotate.client import hidden_columns
from lotdata.annotate.jobs import BUILTIN_JOBS, get_job
from lotdata.annotate.state import JobState
from lotdata.annotate.workflow import collect
from lotdata.schema import MASK_TOKENS

CJK = re.compile("[\u4e00-\u9fff]")
SCREENS = [(name, lang) for name in BUILTIN_JOBS for lang in get_job(name).langs]
URL = "http://127.0.0.1:1"


def in_language(text: str, lang: str) -> bool:
    return bool(CJK.search(text)) if lang == "zh" else bool(re.search("[A-Za-z]{3}", text)) and not CJK.search(text)


#: the ROCStories jobs (issue 24) are English by default; the LOT jobs Chinese
ROCSTORIES_JOBS = ("story_write", "story_review", "sct_write", "story_reorder", "review")
#: screens where the rater writes or drags, with no choice to make
NO_CHOICES = ("story_write", "sct_write", "story_reorder")


def test_every_lot_job_has_a_chinese_default_and_an_english_screen():
    assert all(set(get_job(name).langs) == {"zh", "en"} for name in BUILTIN_JOBS)
    assert all(get_job(name).lang == ("en" if name in ROCSTORIES_JOBS else "zh") for name in BUILTIN_JOBS)


@pytest.mark.parametrize("name, lang", SCREENS)
def test_single_choices_are_radio_buttons_and_required_controls_say_why_in_the_screen_language(name, lang):
    root = ET.fromstring(get_job(name).template_for(lang).xml)
    choices = list(root.iter("Choices"))
    assert choices or name in NO_CHOICES
    for control in choices:
        assert control.get("choice") in ("single-radio", "multiple"), (
            name,
            lang,
            control.get("name"),
            control.get("choice"),
        )
    required = [c for c in root.iter() if c.get("required") == "true"]
    assert required or name == "story_reorder", name  # an untouched order is an answer too (the order shown)
    for control in required:
        message = control.get("requiredMessage") or ""
        assert in_language(message, lang), (name, lang, control.get("name"), message)
        assert f'"{control.get("name")}"' not in message and not re.search(
            r"\w_\w", message
        )  # words, not internal names
    for option in root.iter("Choice"):
        assert option.get("alias") and in_language(option.get("value"), lang), (name, lang, option.attrib)
    for view in root.iter("View"):  # every text shown is introduced by a label in the screen's language
        children = list(view)
        for i, child in enumerate(children):
            if child.tag == "Text" and child.get("name") != "title":
                assert i > 0 and children[i - 1].tag == "Header", (name, lang, child.attrib)
                assert children[i - 1].get("value", "").startswith("$") or in_language(
                    children[i - 1].get("value"), lang
                )


@pytest.mark.parametrize("name, lang", SCREENS)
def test_hotkeys_are_the_numbers_shown(name, lang):
    """A fixed option with a digit hotkey has it at its position; where options are numbered from the task's data,
    no fixed option takes a digit (Label Studio gives numbered options the free keys 1, 2, ... in order), and the
    options a task offers are 1, 2, ... n, so pressing k picks the option labelled k."""
    job = get_job(name)
    root = ET.fromstring(job.template_for(lang).xml)
    dynamic = [c.get("value")[1:] for c in root.iter("Choices") if (c.get("value") or "").startswith("$")]
    for control in root.iter("Choices"):
        for position, option in enumerate(control.iter("Choice"), 1):
            key = option.get("hotkey")
            assert key, (name, option.attrib)
            if key.isdigit():
                assert not dynamic and key == str(position % 10), (name, lang, option.attrib)
    for task in job.to_tasks(job.demo_rows(), seed=0, lang=lang):
        for field in dynamic:
            values = [item["value"] for item in task["data"][field]]
            assert values == [str(k) for k in range(1, len(values) + 1)], (name, field, values)
            assert len(values) <= 9  # one key each


@pytest.mark.parametrize("name, lang", SCREENS)
def test_no_internal_token_reaches_a_screen_and_the_task_list_hides_every_internal_column(name, lang):
    job = get_job(name)
    xml = job.template_for(lang).xml
    tasks = job.to_tasks(job.demo_rows(), seed=0, lang=lang)
    for token in MASK_TOKENS.values():
        assert token not in xml and token.replace("<", "&lt;").replace(">", "&gt;") not in xml
        assert not any(token in json.dumps(task["data"], ensure_ascii=False) for task in tasks), (name, token)
    hidden = hidden_columns(tasks)
    assert {f"tasks:data.{key}" for task in tasks for key in task["data"]} <= set(hidden)
    assert {"tasks:data.uid", "tasks:predictions_results"} <= set(hidden)
    description = job.description(lang)
    assert description != f"lotdata {name}" and in_language(description, lang) and len(description) > 40
    assert "lotdata" not in description and name not in description, (
        description
    )  # the job in words, not its internal name


def test_clozet_write_offers_every_sentence_but_the_first():
    job = get_job("clozet_write")
    row = {
        "story_id": "s",
        "split": "val",
        "lang": "zh",
        "sentences": ["甲。", "乙。", "丙。", "丁。", "戊。"],
        "license": None,
    }
    [task] = job.to_tasks([row])
    lines = task["data"]["numbered"].splitlines()
    # LOT appendix 2: the sentence "may appear at the end or middle of the story", never at the beginning
    assert [line.split("] ")[0] + "]" for line in lines if line.startswith("[")] == ["[1]", "[2]", "[3]", "[4]"]
    assert lines[0] == "· 甲。" and lines[-1] == "[4] 戊。" and lines[1] == "[1] 乙。"
    assert [c["value"] for c in task["data"]["sentence_choices"]] == ["1", "2", "3", "4"]
    assert task["predictions"][0]["result"][1]["value"]["choices"] == [
        "2"
    ]  # the heuristic's middle sentence 丙, shown as [2]


def test_human_perf_draws_the_blank_as_a_gap_in_both_languages():
    job = get_job("human_perf")
    rows = [r for r in job.demo_rows() if r["_task"] == "clozet"][:1]
    zh, en = (job.to_tasks(rows, lang=lang)[0]["data"] for lang in ("zh", "en"))
    assert (
        "＿＿＿＿" in zh["question"]
        and "＿＿＿＿" in zh["instruction"]
        and "<mask>" not in json.dumps(zh, ensure_ascii=False)
    )
    assert "_____" in en["question"] and "Option 1:" in en["question"] and not CJK.search(en["instruction"])


# ---------------------------------------------------------------- cloze_verify: versions of a case to different raters


def versions(cases: int) -> list[tuple[str, str]]:
    return [(f"t{c:03d}{v}", f"case{c}") for c in range(cases) for v in "rw"]


def test_with_enough_raters_no_rater_gets_both_versions_and_each_gets_its_raters():
    tasks = versions(20) + [("gold1", None)]
    assignment = extend_assignment({}, tasks, [f"r{i}" for i in range(6)], 3, seed="s")
    case_of = dict(tasks)
    assert raters_with_two_versions(assignment, case_of) == []
    per_task = Counter(token for tokens in assignment.values() for token in tokens)
    assert all(per_task[token] == 3 for token, case in tasks if case) and per_task["gold1"] == 6
    loads = sorted(len(tokens) for tokens in assignment.values())
    assert loads[-1] - loads[0] <= 1  # balanced
    assert assignment == extend_assignment({}, tasks, [f"r{i}" for i in range(6)], 3, seed="s")  # seeded
    # a later push extends: nothing given moves, the new cases follow the same rule
    more = extend_assignment(assignment, tasks + versions(25)[40:], [f"r{i}" for i in range(6)], 3, seed="s")
    assert all(more[r][: len(assignment[r])] == assignment[r] for r in assignment)
    assert raters_with_two_versions(more, dict(tasks + versions(25))) == []


def test_with_too_few_raters_both_versions_stand_far_apart():
    tasks = versions(10)
    assignment = extend_assignment({}, tasks, ["a", "b", "c"], 3, seed="s")
    case_of = dict(tasks)
    assert raters_with_two_versions(assignment, case_of) == ["a", "b", "c"]  # 3 raters, 3 per story: unavoidable
    for tokens in assignment.values():
        assert len(tokens) == 20
        where: dict[str, list[int]] = {}
        for position, token in enumerate(tokens):
            where.setdefault(case_of[token], []).append(position)
        assert min(b - a for a, b in where.values()) == 10  # half the list apart, for every case
        assert len({token[-1] for token in tokens[:10]}) == 2  # the first half mixes right and wrong stories
    four = extend_assignment({}, tasks, ["a", "b", "c", "d"], 3, seed="s")
    overlap = sum(len(tokens) - len({case_of[t] for t in tokens}) for tokens in four.values())
    assert overlap == 10 * (2 * 3 - 4)  # only as many doubles as 4 raters force: 2 per case


# ---------------------------------------------------------------- whose answer it is


def _exported(state: JobState, token: str, annotations: list[dict]) -> list[dict]:
    return [{"id": 11, "data": state.tasks[token]["task"]["data"], "annotations": annotations}]


def test_an_answer_created_or_last_changed_by_another_account_is_quarantined_naming_both(tmp_path):
    job = get_job("cloze_verify")
    state = JobState.new(tmp_path, URL, "cloze_verify", "v", 1, "per_rater")
    token = state.add(job.to_tasks(job.demo_rows())[0])
    rating = [{"from_name": "rating", "to_name": "story", "type": "choices", "value": {"choices": ["1"]}}]
    names = {1: "admin@x", 2: "wang@x", 3: "li@x"}
    own = collect(
        "cloze_verify",
        _exported(state, token, [{"id": 1, "completed_by": 2, "updated_by": 2, "result": rating}]),
        names,
        URL,
        state,
        project_id=5,
        owner=2,
    )
    assert len(own.valid) == 1 and not own.quarantine and not own.not_by_the_rater
    edited = collect(
        "cloze_verify",
        _exported(state, token, [{"id": 2, "completed_by": 2, "updated_by": 3, "result": rating}]),
        names,
        URL,
        state,
        project_id=5,
        owner=2,
    )
    [bad] = edited.quarantine
    assert not edited.valid and "wang@x's answer was created or last changed by li@x" in bad["reason"]
    assert edited.not_by_the_rater == [
        {"annotation_id": 2, "rater": "wang@x", "created_by": "wang@x", "changed_by": "li@x"}
    ]
    assert edited.per_project[5]["not_by_the_rater"] == 1 and edited.per_project[5]["quarantined"] == 1
    by_admin = collect(
        "cloze_verify",
        _exported(state, token, [{"id": 3, "completed_by": {"id": 1}, "updated_by": 1, "result": rating}]),
        names,
        URL,
        state,
        project_id=5,
        owner=2,
    )
    assert "answered by admin@x in wang@x's own project" in by_admin.quarantine[0]["reason"]
    shared = collect(
        "cloze_verify",
        _exported(state, token, [{"id": 4, "completed_by": 2, "updated_by": 3, "result": rating}]),
        names,
        URL,
        state,
        project_id=5,
    )
    assert len(shared.valid) == 1  # a shared project has no rater of its own to hold answers to


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_qualification_quiz_screen_follows_the_same_rules(lang):
    from lotdata.annotate.qualify import RULES_SHOWN, quiz_description
    from lotdata.annotate.template import load_template

    root = ET.fromstring(load_template("quiz" if lang == "zh" else "en/quiz").xml)
    [verdict] = root.iter("Choices")
    assert verdict.get("choice") == "single-radio" and in_language(verdict.get("requiredMessage"), lang)
    assert all(in_language(c.get("value"), lang) and not c.get("hotkey").isdigit() for c in verdict.iter("Choice"))
    assert in_language(RULES_SHOWN[lang], lang)
    for job in ("story_write", "sct_write"):
        description = quiz_description(job, lang)
        assert in_language(description, lang) and job not in description
