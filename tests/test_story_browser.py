"""Building a Story Cloze test in a real browser (Debian chromium + selenium) on the real Label Studio of the session:
a writer fails then passes the quiz, writes a story with a title of one space (Label Studio takes it: the pull sends it
straight back with the reason) and two sentences in one box (a check flags it); her revision starts with her last
version in the boxes; a reviewer (never the writer: her own review project stays empty) refuses it with a comment, the
writer sees the comment, edits only the box it names and sends a new version, which is approved and pulled; the writer
writes endings that three other raters verify in the browser (none of them given to her) and the case is assembled
into a Story Cloze csv; a rater other than the writer reorders the shuffled story with the keyboard (Space, arrows,
Space, as the screen says). Every new screen is also opened in Chinese: clozet_write shows no internal name and keeps
“……”小渔说。 as one sentence; story_filter's rewrite box starts with the segment.
Screenshots: the test's tmp dir, or $LOTDATA_BROWSER_SHOTS. About a minute and a half (a browser, many pages)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pyarrow.parquet as pq
from labelstudio_support import lotdata
from test_annotate_browser import PASSWORD, Rater, browser, wait_for_annotation  # noqa: F401  (the browser fixture)

from lotdata.annotate.client import export_tasks
from lotdata.annotate.jobs import get_job
from lotdata.annotate.qualify import Gate
from lotdata.annotate.state import JobState
from lotdata.annotate.template import load_template
from lotdata.annotate.workflow import add_raters
from lotdata.resources import asset_dir

QUIZ = Path(asset_dir("annotation_templates")) / "quizzes" / "story_write.en.jsonl"
#: a story of our own, for the Chinese screens of the ROCStories jobs (a screen in Chinese shows Chinese text)
FIVE_ZH = "小林报名给学校义卖烤饼干。她在厨房里和面到深夜。早上第一盘饼干烤焦了。她定好闹钟又烤了一盘。中午还没到，饼干就卖光了。"

STORY = [
    "Maria signed up to bake cookies for the school sale.",
    "She stayed up late mixing dough in her kitchen.",
    "In the morning the first tray came out burnt.",
    "She quickly baked a second tray with a timer on.",
    "The cookies sold out before noon.",
]


def _switch(rater: Rater, email: str) -> None:
    rater.chrome.delete_all_cookies()
    rater.login(email)


def _answer_quiz(rater: Rater, conn, gate: Gate, project_id: int, right: bool) -> None:
    xml = load_template("en/quiz").xml
    for task in export_tasks(conn, project_id):
        truth = gate.questions[task["data"]["uid"]]["answer"]
        rater.open_task(project_id, task["id"], f"quiz-{'right' if right else 'wrong'}")
        verdict = truth if right else ("acceptable" if truth == "not_acceptable" else "not_acceptable")
        rater.choose(xml, "verdict", verdict)
        rater.submit("quiz")
        wait_for_annotation(conn, project_id, task["id"])


def _type(rater: Rater, name: str, value: str) -> None:
    """Fill a one-line TextArea (Label Studio draws it as an input; Enter adds the text as the answer)."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = rater.chrome.find_element(By.CSS_SELECTOR, f'input[name="{name}"], textarea[name="{name}"]')
    rater.chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    time.sleep(0.2)
    box.click()
    box.send_keys(value)
    box.send_keys(Keys.SHIFT, Keys.ENTER) if box.tag_name == "textarea" else box.send_keys(Keys.ENTER)
    time.sleep(0.2)


def _write_story(rater: Rater, title: str, sentences: list[str]) -> None:
    _type(rater, "title", title)
    for k, sentence in enumerate(sentences, 1):
        _type(rater, f"sentence{k}", sentence)


def _box(rater: Rater, name: str) -> str:
    """What a one-line box holds before it is submitted (a pre-filled value, or what was typed)."""
    from selenium.webdriver.common.by import By

    return rater.chrome.find_element(By.CSS_SELECTOR, f'input[name="{name}"], textarea[name="{name}"]').get_attribute(
        "value"
    )


def _retype(rater: Rater, name: str, value: str) -> None:
    """Replace what a pre-filled box holds."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = rater.chrome.find_element(By.CSS_SELECTOR, f'input[name="{name}"], textarea[name="{name}"]')
    rater.chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    box.click()
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    time.sleep(0.2)
    assert _box(rater, name) == ""
    _type(rater, name, value)


def _holder(job_state: JobState, token: str) -> str:
    """The one rater a task was given to."""
    [rater] = [name for name, tokens in (job_state.assignment or {}).items() if token in tokens]
    return rater


def _nothing_for(rater: Rater, conn, project_id: int, name: str) -> None:
    """The writer's own project of a judging job holds no task: her task list in the browser is empty too."""
    assert export_tasks(conn, project_id) == []
    rater.chrome.get(f"{rater.url}/projects/{project_id}/data")  # an empty project draws no task table
    rater.wait("body")
    time.sleep(2.5)
    rater.keep(f"{name}-task-list")


def test_story_cloze_from_nothing_in_a_browser(label_studio, conn, browser, tmp_path, stories):  # noqa: F811
    sample_stories = stories  # the sample stories (Chinese), for the Chinese screens of clozet_write and story_filter
    state = tmp_path / "state"
    shots = Path(os.environ.get("LOTDATA_BROWSER_SHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    names = ["wes", "rev", "vic", "kim"]
    team = {e["rater"]: e for e in add_raters(conn, names, state=state, password=lambda: PASSWORD)}
    rater = Rater(browser, label_studio.url, shots)

    # the quiz: wes fails it, gets a new one, passes
    assert (
        run("annotate", "qualify", "story_write", "--quiz", str(QUIZ), "--rater", "wes", "--retry-after", "0").exit_code
        == 0
    )
    gate = Gate.find(state, "story_write", label_studio.url)
    rater.login(team["wes"]["email"])
    _answer_quiz(rater, conn, gate, gate.raters["wes"][-1]["project_id"], right=False)
    assert (
        run("annotate", "qualify", "story_write", "--quiz", str(QUIZ), "--rater", "wes", "--retry-after", "0").exit_code
        == 0
    )
    gate = Gate.find(state, "story_write", label_studio.url)
    assert gate.raters["wes"][0]["passed"] is False and len(gate.raters["wes"]) == 2
    _answer_quiz(rater, conn, gate, gate.raters["wes"][-1]["project_id"], right=True)
    assert run("annotate", "qualify", "story_write", "--quiz", str(QUIZ), "--rater", "wes").exit_code == 0
    assert Gate.find(state, "story_write", label_studio.url).qualified() == ["wes"]

    # wes writes a story with a title of one space (Label Studio's `required` takes it) whose last box holds two
    # sentences: the pull sends it straight back to her with the reason, never to review
    assert run("annotate", "push", "story_write", "--n", "1", "--project", "bw stories").exit_code == 0
    write_project = JobState.find(state, "bw stories", label_studio.url).projects["wes"]
    (task,) = export_tasks(conn, write_project)
    rater.open_task(write_project, task["id"], "story-write-en")
    _write_story(rater, " ", [*STORY[:4], STORY[4] + " Maria was proud."])
    rater.submit("story-write")
    wait_for_annotation(conn, write_project, task["id"])
    assert (
        run("annotate", "pull", "story_write", "--project", "bw stories", "--out", str(tmp_path / "w")).exit_code == 0
    )
    [blank] = [json.loads(line) for line in (tmp_path / "w" / "revisions.jsonl").read_text().splitlines()]
    assert blank["feedback"] == "The title is empty (only spaces): write a title."
    assert (
        run(
            "annotate",
            "push",
            "story_write",
            "--input",
            str(tmp_path / "w" / "revisions.jsonl"),
            "--project",
            "bw stories",
        ).exit_code
        == 0
    )
    # her revision says so, shows the reason and starts with her last version: she only writes the title
    revision = next(t for t in export_tasks(conn, write_project) if t["data"]["feedback"])
    rater.open_task(write_project, revision["id"], "story-write-blank-title-en")
    assert "Revise your story" in rater.chrome.page_source and "The title is empty" in rater.chrome.page_source
    assert [_box(rater, f"sentence{k}") for k in range(1, 6)] == [*STORY[:4], STORY[4] + " Maria was proud."]
    _type(rater, "title", "Cookies")
    rater.submit("story-write-blank-title")
    wait_for_annotation(conn, write_project, revision["id"])
    assert (
        run("annotate", "pull", "story_write", "--project", "bw stories", "--out", str(tmp_path / "w")).exit_code == 0
    )
    assert {f["rule"] for f in pq.read_table(tmp_path / "w" / "flags.parquet").to_pylist()} >= {"five_sentences"}

    # the review goes to anyone but wes (her own review project stays empty); the reviewer refuses it with a comment
    assert (
        run("annotate", "push", "story_review", "--input", str(tmp_path / "w"), "--project", "bw review").exit_code == 0
    )
    review = JobState.find(state, "bw review", label_studio.url)
    [token] = review.tasks
    reviewer = _holder(review, token)
    assert reviewer != "wes"
    _nothing_for(rater, conn, review.projects["wes"], "story-review-wes-own")
    review_project = review.projects[reviewer]
    _switch(rater, team[reviewer]["email"])
    (task,) = export_tasks(conn, review_project)
    rater.open_task(review_project, task["id"], "story-review-en")
    assert "five_sentences" in rater.chrome.page_source
    rater.choose(load_template("en/story_review").xml, "decision", "refuse")
    _type(rater, "comment", "Box 5 holds two sentences: keep one.")
    rater.submit("story-review")
    wait_for_annotation(conn, review_project, task["id"])
    assert (
        run("annotate", "pull", "story_review", "--project", "bw review", "--out", str(tmp_path / "r")).exit_code == 0
    )

    # the second round: wes sees the comment, her last version is in the boxes; she edits box 5 only
    assert (
        run(
            "annotate",
            "push",
            "story_write",
            "--input",
            str(tmp_path / "r" / "revisions.jsonl"),
            "--project",
            "bw stories",
        ).exit_code
        == 0
    )
    _switch(rater, team["wes"]["email"])
    revision = next(t for t in export_tasks(conn, write_project) if "Box 5" in t["data"]["feedback"])
    rater.open_task(write_project, revision["id"], "story-write-revision-en")
    assert (
        "Box 5 holds two sentences: keep one." in rater.chrome.page_source
        and "Maria was proud." in rater.chrome.page_source
    )
    assert _box(rater, "title") == "Cookies" and _box(rater, "sentence1") == STORY[0]
    _retype(rater, "sentence5", STORY[4])
    rater.submit("story-write-revision")
    wait_for_annotation(conn, write_project, revision["id"])
    assert (
        run("annotate", "pull", "story_write", "--project", "bw stories", "--out", str(tmp_path / "w")).exit_code == 0
    )
    latest = [json.loads(line) for line in (tmp_path / "w" / "submissions.jsonl").read_text().splitlines()][-1]
    assert (latest["version"], latest["title"], latest["sentences"]) == (3, "Cookies", STORY)
    assert (
        run("annotate", "push", "story_review", "--input", str(tmp_path / "w"), "--project", "bw review").exit_code == 0
    )
    review = JobState.find(state, "bw review", label_studio.url)
    [token] = [t for t in review.tasks if t != token]
    reviewer = _holder(review, token)
    assert reviewer != "wes" and export_tasks(conn, review.projects["wes"]) == []
    _switch(rater, team[reviewer]["email"])
    task = next(t for t in export_tasks(conn, review.projects[reviewer]) if not t["annotations"])
    rater.open_task(review.projects[reviewer], task["id"], "story-review-approve-en")
    rater.choose(load_template("en/story_review").xml, "decision", "approve")
    rater.submit("story-review-approve")
    wait_for_annotation(conn, review.projects[reviewer], task["id"])
    assert (
        run("annotate", "pull", "story_review", "--project", "bw review", "--out", str(tmp_path / "r")).exit_code == 0
    )
    versions = [json.loads(line) for line in (tmp_path / "r" / "story_versions.jsonl").read_text().splitlines()]
    assert [(v["version"], v["decision"]) for v in versions] == [(2, "refuse"), (3, "approve")]
    stories = tmp_path / "r" / "stories.parquet"
    assert pq.read_table(stories).num_rows == 1

    # wes writes the endings; three other raters verify them in their own projects, none given to her
    assert (
        run(
            "annotate", "push", "sct_write", "--input", str(stories), "--project", "bw endings", "--split", "test"
        ).exit_code
        == 0
    )
    sct_project = JobState.find(state, "bw endings", label_studio.url).projects[""]
    _switch(rater, team["wes"]["email"])
    (task,) = export_tasks(conn, sct_project)
    rater.open_task(sct_project, task["id"], "sct-write-en")
    _type(rater, "right_ending", "Maria gave the last cookie to her teacher.")
    _type(rater, "wrong_ending", "Maria decided she would never bake again.")
    rater.submit("sct-write")
    wait_for_annotation(conn, sct_project, task["id"])
    assert run("annotate", "pull", "sct_write", "--project", "bw endings", "--out", str(tmp_path / "s")).exit_code == 0
    assert (
        run(
            "annotate",
            "push",
            "cloze_verify",
            "--input",
            str(tmp_path / "s" / "clozet"),
            "--project",
            "bw verify",
            "--lang",
            "en",
            "--split",
            "test",
        ).exit_code
        == 0
    )
    verify = JobState.find(state, "bw verify", label_studio.url)
    xml = load_template("en/cloze_verify").xml
    _switch(rater, team["wes"]["email"])
    _nothing_for(rater, conn, verify.projects["wes"], "cloze-verify-wes-own")
    for name in ("vic", "kim", "rev"):  # in their own projects: an answer the admin's key wrote there is quarantined
        _switch(rater, team[name]["email"])
        for task in export_tasks(conn, verify.projects[name]):
            rating = "1" if verify.tasks[task["data"]["uid"]]["hidden"]["role"] == "right" else "0"
            rater.open_task(verify.projects[name], task["id"], f"cloze-verify-en-{name}")
            rater.choose(xml, "rating", rating)
            rater.submit("cloze-verify")
            wait_for_annotation(conn, verify.projects[name], task["id"])
    assert (
        run("annotate", "pull", "cloze_verify", "--project", "bw verify", "--out", str(tmp_path / "v")).exit_code == 0
    )
    assert (
        lotdata(
            label_studio,
            "annotate",
            "sct-csv",
            "--input",
            str(tmp_path / "v" / "clozet"),
            "--out",
            str(tmp_path / "csv"),
        ).exit_code
        == 0
    )
    rows = (tmp_path / "csv" / "test.csv").read_text().splitlines()
    assert len(rows) == 2 and "Maria gave the last cookie to her teacher." in rows[1]
    # the csv reads back as a Story Cloze test, and audit-bias audits it like the published one
    assert (
        lotdata(
            label_studio,
            "import",
            "storycloze",
            "--test",
            str(tmp_path / "csv" / "test.csv"),
            "--out",
            str(tmp_path / "sct"),
        ).exit_code
        == 0
    )
    [case] = pq.read_table(tmp_path / "sct" / "test.parquet").to_pylist()
    assert case["candidates"][case["label"]] == "Maria gave the last cookie to her teacher."
    audit = lotdata(
        label_studio,
        "audit-bias",
        str(tmp_path / "csv"),
        "--out",
        str(tmp_path / "audit"),
        "--baseline",
        "constant_first",
    )
    assert audit.exit_code == 0, audit.output
    assert "constant_first/test" in (tmp_path / "audit" / "results.json").read_text()

    # a shuffled story put back in order by a rater other than its writer: with the keyboard, as the screen says
    assert (
        run(
            "annotate", "push", "story_reorder", "--input", str(stories), "--project", "bw reorder", "--raters", "1"
        ).exit_code
        == 0
    )
    order_state = JobState.find(state, "bw reorder", label_studio.url)
    [token] = order_state.tasks
    orderer = _holder(order_state, token)
    assert orderer != "wes" and order_state.tasks[token]["hidden"]["author"] == team["wes"]["email"]
    _switch(rater, team["wes"]["email"])
    _nothing_for(rater, conn, order_state.projects["wes"], "story-reorder-wes-own")
    _switch(rater, team[orderer]["email"])
    order_project = order_state.projects[orderer]
    (task,) = export_tasks(conn, order_project)
    rater.open_task(order_project, task["id"], "story-reorder-en")
    original = order_state.tasks[task["data"]["uid"]]["hidden"]["original_ids"]
    from selenium.webdriver.common.by import By

    shown = " ".join(i.text for i in rater.chrome.find_elements(By.CSS_SELECTOR, ".htx-ranker-item"))
    assert STORY[0] in shown and not any(item_id in shown for item_id in original), shown  # sentences, not their ids
    assert "Space to pick it up" in rater.chrome.page_source
    _reorder_with_keys(rater, original)
    rater.submit("story-reorder")
    wait_for_annotation(conn, order_project, task["id"])
    assert (
        run("annotate", "pull", "story_reorder", "--project", "bw reorder", "--out", str(tmp_path / "o")).exit_code == 0
    )
    report = json.loads((tmp_path / "o" / "reorder.json").read_text())
    assert report["each_perfect"] == 1.0, report["per_ordering"]

    # every new screen in Chinese, with a Chinese five-sentence story where the job shows one
    five_zh = tmp_path / "five_zh.jsonl"
    five_zh.write_text(json.dumps({"title": "义卖", "text": FIVE_ZH}, ensure_ascii=False) + "\n", encoding="utf-8")
    read = lotdata(label_studio, "read", str(five_zh), "--lang", "zh", "--out", str(tmp_path / "five_zh.parquet"))
    assert read.exit_code == 0, read.output
    for job, args in {
        "story_write": ["--n", "1"],
        "story_review": ["--input", str(tmp_path / "w")],
        "sct_write": ["--input", str(tmp_path / "five_zh.parquet"), "--split", "test"],
        "story_reorder": ["--input", str(tmp_path / "five_zh.parquet"), "--raters", "1"],
        "clozet_write": ["--input", str(sample_stories)],
        "story_filter": ["--input", str(sample_stories), "--limit", "1"],
    }.items():
        assert run("annotate", "push", job, "--project", f"zh {job}", "--lang", "zh", *args).exit_code == 0
        job_state = JobState.find(state, f"zh {job}", label_studio.url)
        project, task = next(
            (p, t)
            for p in [job_state.projects[r] for r in sorted(job_state.projects)]
            for t in export_tasks(conn, p)
            if job != "clozet_write" or "小渔说" in t["data"]["numbered"]
        )
        _switch(rater, team[next(r for r, p in job_state.projects.items() if p == project) or "wes"]["email"])
        rater.open_task(project, task["id"], f"{job}-zh")
        assert get_job(job).template_for("zh").xml and "lsf" in rater.chrome.page_source
        if job in ("sct_write", "story_reorder"):  # the story shown is Chinese too
            assert "饼干" in rater.chrome.page_source and "Maria" not in rater.chrome.page_source
        if job == "clozet_write":  # no internal name; the speech tag stays with its speech
            page = rater.chrome.page_source
            assert "ClozeT" not in page and "lotdata-mask" not in page and "预选" in page
            assert "”小渔说。" in page and "] 小渔说。" not in page
        if job == "story_filter":  # choosing rewrite shows a box that starts with the segment
            from selenium.webdriver.common.by import By

            rater.choose(get_job(job).template_for("zh").xml, "decision", "rewrite")
            time.sleep(0.5)
            box = rater.chrome.find_element(By.CSS_SELECTOR, 'textarea[name="rewritten"]')
            rater.chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
            time.sleep(0.3)
            rater.keep("story_filter-zh-rewrite-box")
            assert box.get_attribute("value") == task["data"]["text"]
    assert (
        run(
            "annotate",
            "qualify",
            "sct_write",
            "--quiz",
            str(QUIZ.with_name("sct_write.zh.jsonl")),
            "--rater",
            "vic",
            "--lang",
            "zh",
        ).exit_code
        == 0
    )
    quiz_project = Gate.find(state, "sct_write", label_studio.url).raters["vic"][-1]["project_id"]
    rater.open_task(quiz_project, export_tasks(conn, quiz_project)[0]["id"], "quiz-zh")


def _reorder(rater: Rater, original: list[str]) -> None:
    """Move the items of the Ranker list into `original`'s order, one at a time, by dragging each to its place."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    for target, item_id in enumerate(original):
        items = rater.chrome.find_elements(By.CSS_SELECTOR, ".htx-ranker-item")
        bodies = [i.text for i in items]
        at = next(k for k, i in enumerate(items) if _item_id(rater, i) == item_id)
        if at == target:
            continue
        source, dest = items[at], items[target]
        ActionChains(rater.chrome).click_and_hold(source).pause(0.3).move_by_offset(0, -5).pause(0.3).move_to_element(
            dest
        ).move_by_offset(0, -5).pause(0.5).release().perform()
        time.sleep(0.8)
        assert [i.text for i in rater.chrome.find_elements(By.CSS_SELECTOR, ".htx-ranker-item")] != bodies, (
            "drag did nothing"
        )
    rater.keep("story-reorder-ordered")


def _reorder_with_keys(rater: Rater, original: list[str]) -> None:
    """Move the items of the Ranker list into `original`'s order with the keys the screen names: each sentence's
    handle takes the focus (it is in the Tab order), Space picks it up, the Up arrow moves it, Space puts it down."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    for target, item_id in enumerate(original):
        items = rater.chrome.find_elements(By.CSS_SELECTOR, ".htx-ranker-item")
        at = next(k for k, i in enumerate(items) if _item_id(rater, i) == item_id)
        if at == target:
            continue
        handle = items[at]
        handle = next(
            iter(handle.find_elements(By.XPATH, "./ancestor-or-self::*[@tabindex='0']")),
            handle.find_element(By.XPATH, "./descendant-or-self::*[@tabindex='0']"),
        )
        rater.chrome.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", handle)
        time.sleep(0.3)
        keys = ActionChains(rater.chrome).send_keys(Keys.SPACE).pause(0.4)
        for _ in range(at - target):
            keys = keys.send_keys(Keys.ARROW_UP).pause(0.4)
        keys.send_keys(Keys.SPACE).pause(0.6).perform()
        now = [_item_id(rater, i) for i in rater.chrome.find_elements(By.CSS_SELECTOR, ".htx-ranker-item")]
        assert now.index(item_id) == target, f"the keys did not move {item_id} to {target}: {now}"
    rater.keep("story-reorder-ordered-by-keys")


def _item_id(rater: Rater, element) -> str:
    return (
        element.get_attribute("data-id")
        or element.get_attribute("data-rbd-draggable-id")
        or element.get_attribute("id")
        or ""
    )
