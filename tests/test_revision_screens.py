"""Revision screens that help (issue 35, item 4), as task data and templates; tests/test_story_browser.py opens them.

A story_write revision says it is one, shows the comment and starts its boxes with the last version (Label Studio's
`value="$field"` on a TextArea); story_filter's rewrite box starts with the segment (or the last rewrite); a title or
sentence of only spaces (Label Studio's `required` takes a space) goes straight back to its writer at pull; the
reorder screen names the keys that move a sentence; the Chinese clozet_write screen shows no internal name and never
offers a speech tag (小渔说。) as a sentence of its own."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from labelstudio_support import annotation

from lotdata.annotate.jobs import get_job
from lotdata.annotate.jobs.base import Annotation, Output
from lotdata.annotate.jobs.clozet_write import PRESELECTED, attach_speech_tags
from lotdata.annotate.jobs.story_write import LAST_FIELDS
from lotdata.annotate.template import load_template
from lotdata.errors import InputError
from lotdata.text import join_sentences, split_sentences

STORY = [
    "Maria signed up to bake cookies for the school sale.",
    "She stayed up late mixing dough in her kitchen.",
    "In the morning the first tray came out burnt.",
    "She quickly baked a second tray with a timer on.",
    "The cookies sold out before noon.",
]


def _prefilled(template: str) -> dict[str, str]:
    """TextArea name -> the task field its box starts with."""
    root = ET.fromstring(load_template(template).xml)
    return {el.get("name"): el.get("value") for el in root.iter("TextArea") if el.get("value")}


def test_a_story_write_revision_says_so_shows_the_comment_and_starts_with_the_last_version():
    for template in ("story_write", "en/story_write"):
        assert _prefilled(template) == {
            "title": "$last_title",
            **{f"sentence{k}": f"$last_sentence{k}" for k in range(1, 6)},
        }
    job = get_job("story_write")
    revision = {
        "story": "st1",
        "writer": "wes@x",
        "feedback": "Box 5 holds two sentences.",
        "previous": "Cookies\n" + "\n".join(f"{k}. {s}" for k, s in enumerate(STORY, 1)),
        "last": {"title": "Cookies", "sentences": STORY},
        "version": 2,
    }
    for lang, word in (("en", "Revise your story"), ("zh", "修改你的故事")):
        [task] = job.to_tasks([revision], lang=lang)
        assert task["data"]["prompt"].startswith(word) and "Write a new" not in task["data"]["prompt"]
        assert task["data"]["feedback"] == "Box 5 holds two sentences."
        assert [task["data"][f] for f in LAST_FIELDS] == ["Cookies", *STORY]
    # a revisions.jsonl of an older lotdata (no `last`): the boxes are read back from the text shown
    [old] = job.to_tasks([{k: v for k, v in revision.items() if k != "last"}], lang="en")
    assert [old["data"][f] for f in LAST_FIELDS] == ["Cookies", *STORY]
    # a new story: every box empty, and the fields there (Label Studio refuses a task without a field its screen uses)
    [new] = job.to_tasks(job.slots(1), lang="en")
    assert [new["data"][f] for f in LAST_FIELDS] == [""] * 6 and new["data"]["prompt"].startswith("Write a new")


def _written(task: dict, writer: str, title: str, sentences: list[str], n: int) -> Annotation:
    job = get_job("story_write")
    result = [
        {"from_name": "title", "to_name": "prompt", "type": "textarea", "value": {"text": [title]}},
        *(
            {"from_name": f"sentence{k}", "to_name": "prompt", "type": "textarea", "value": {"text": [s]}}
            for k, s in enumerate(sentences, 1)
        ),
    ]
    return annotation(task, writer, job.parse(result, task["data"], task["hidden"], lang="en"), n)


def test_a_title_or_sentence_of_only_spaces_goes_back_to_its_writer_at_pull_never_to_review(tmp_path):
    job = get_job("story_write")
    first, second = job.to_tasks(job.slots(2), lang="en")
    anns = [
        _written(first, "wes@x", " ", STORY, 1),
        _written(second, "ann@x", "Keys", [*STORY[:2], "   ", *STORY[3:]], 2),
    ]
    assembled = job.assemble(anns)
    assert assembled["stats"]["returned_to_rater"] == 2
    by_writer = {r["writer"]: r for r in assembled["revisions"]}
    assert by_writer["wes@x"]["feedback"] == "The title is empty (only spaces): write a title."
    assert by_writer["ann@x"]["feedback"] == "Sentence 3 is empty (only spaces): write it."
    assert by_writer["ann@x"]["last"]["sentences"][3] == STORY[3] and by_writer["ann@x"]["version"] == 2
    out = tmp_path / "w"
    job.write(assembled, Output(folder=out, job="story_write", params={}, command="test"))
    assert get_job("story_review").load(out, None) == []  # nothing blank goes to review
    [back] = job.to_tasks(job.load(out / "revisions.jsonl", None)[:1], lang="en")
    assert back["hidden"]["writer"] in {"wes@x", "ann@x"} and "empty (only spaces)" in back["data"]["feedback"]
    # wes writes the title in her revision: the blank first version still never goes to review, the new one does
    fixed = _written(job.to_tasks([by_writer["wes@x"]], lang="en")[0], "wes@x", "Cookies", STORY, 3)
    again = job.assemble([*anns, fixed])
    assert [r["writer"] for r in again["revisions"]] == ["ann@x"]
    job.write(again, Output(folder=out, job="story_write", params={}, command="test"))
    assert [(r["writer"], r["version"]) for r in get_job("story_review").load(out, None)] == [("wes@x", 2)]
    # a submissions.jsonl line that is not JSON: bad input naming the file and the line, not a traceback
    subs = out / "submissions.jsonl"
    subs.write_text(subs.read_text(encoding="utf-8") + "{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match="not JSON") as bad:
        get_job("story_review").load(out, None)
    assert bad.value.path == str(subs) and bad.value.row == len(again["submissions"]) + 1


def test_story_filters_rewrite_box_starts_with_the_segment_or_the_last_rewrite():
    for template in ("story_filter", "en/story_filter"):
        assert _prefilled(template) == {"rewritten": "$draft"}
    job = get_job("story_filter")
    row = job.demo_rows()[0]
    [task] = job.to_tasks([row], lang="zh")
    assert task["data"]["draft"] == task["data"]["text"]
    revision = {
        "segment_id": "seg1",
        "title": "",
        "text": "小兔子种了胡萝卜。",
        "reference": "小兔子种了胡萝卜。",
        "story": {},
        "writer": "ann@x",
        "feedback": "有引号",
        "previous": "小兔子种了胡萝卜。它喊：【谁？】",
        "version": 2,
    }
    [again] = job.to_tasks([revision], lang="zh")
    assert again["data"]["draft"] == "小兔子种了胡萝卜。它喊：【谁？】"


def test_the_reorder_screen_names_the_keys_that_move_a_sentence():
    for template, keys in (("en/story_reorder", ("Space", "arrow keys", "Tab")), ("story_reorder", ("空格", "方向键"))):
        help_text = next(el.get("value") for el in ET.fromstring(load_template(template).xml).iter("Text"))
        assert all(k in help_text for k in keys), help_text


def test_chinese_clozet_write_shows_no_internal_name_and_keeps_a_speech_tag_with_its_speech():
    xml = load_template("clozet_write").xml
    shown = " ".join(
        el.get(a) or ""
        for el in ET.fromstring(xml).iter()
        for a in ("value", "hint")
        if not (el.get(a) or "$").startswith("$")
    )
    assert "ClozeT" not in shown and "lotdata" not in shown
    job = get_job("clozet_write")
    assert "ClozeT" not in job.description("zh")
    text = (
        "孙女小渔从城里赶来照顾他。“爷爷，您的腿还没好。今天就歇一晚吧？海上说不定没有船呢。”小渔说。"
        "老爷爷摇摇头说：“只要有一条船看不见路，这盏灯就不能灭。”小渔想了想，扶着爷爷坐下。"
    )
    split = split_sentences(text, "zh")
    assert "小渔说。" in split  # LOT's splitter leaves it alone
    merged = attach_speech_tags(split, "zh")
    assert "小渔说。" not in merged and merged[1].endswith("”小渔说。") and join_sentences(merged, "zh") == text
    assert attach_speech_tags(["他饿了。", "他哭了。", "妈妈来了。"], "zh") == ["他饿了。", "他哭了。", "妈妈来了。"]
    row = {"story_id": "s1", "split": "test", "lang": "zh", "sentences": merged}
    [task] = job.to_tasks([row], lang="zh")
    assert task["predictions"][0]["model_version"] == PRESELECTED["zh"]
    assert not re.search(r"[A-Za-z]{4,}", task["predictions"][0]["model_version"])
    assert "] 小渔说。" not in task["data"]["numbered"] and "”小渔说。" in task["data"]["numbered"]
