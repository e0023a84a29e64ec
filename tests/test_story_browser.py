"""Building a Story Cloze test in a real browser (Debian chromium + selenium) on the real Label Studio of the session:
a writer fails then passes the quiz, writes a story a check flags, a reviewer refuses it with a comment, the writer
sees the comment and the old text and sends a new version, which is approved and pulled; the writer writes endings
that three raters verify in the browser and the case is assembled into a Story Cloze csv;
a rater reorders a shuffled story with the keyboard's drag and drop. Every new screen is also opened in Chinese.
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


def test_story_cloze_from_nothing_in_a_browser(label_studio, conn, browser, tmp_path):  # noqa: F811
    state = tmp_path / "state"
    shots = Path(os.environ.get("LOTDATA_BROWSER_SHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {e["rater"]: e for e in add_raters(conn, ["wes", "rev", "vic"], state=state, password=lambda: PASSWORD)}
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

    # wes writes a story whose last box holds two sentences: the check flags it
    assert run("annotate", "push", "story_write", "--n", "1", "--project", "bw stories").exit_code == 0
    write_project = JobState.find(state, "bw stories", label_studio.url).projects["wes"]
    (task,) = export_tasks(conn, write_project)
    rater.open_task(write_project, task["id"], "story-write-en")
    _write_story(rater, "Cookies", [*STORY[:4], STORY[4] + " Maria was proud."])
    rater.submit("story-write")
    wait_for_annotation(conn, write_project, task["id"])
    assert (
        run("annotate", "pull", "story_write", "--project", "bw stories", "--out", str(tmp_path / "w")).exit_code == 0
    )
    assert {f["rule"] for f in pq.read_table(tmp_path / "w" / "flags.parquet").to_pylist()} == {"five_sentences"}

    # rev refuses it with a comment
    assert (
        run("annotate", "push", "story_review", "--input", str(tmp_path / "w"), "--project", "bw review").exit_code == 0
    )
    review_project = JobState.find(state, "bw review", label_studio.url).projects[""]
    _switch(rater, team["rev"]["email"])
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

    # wes sees the comment and the old text, and sends a new version; rev approves it
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
    revision = next(t for t in export_tasks(conn, write_project) if t["data"]["feedback"])
    rater.open_task(write_project, revision["id"], "story-write-revision-en")
    assert (
        "Box 5 holds two sentences: keep one." in rater.chrome.page_source
        and "Maria was proud." in rater.chrome.page_source
    )
    _write_story(rater, "Cookies", STORY)
    rater.submit("story-write-revision")
    wait_for_annotation(conn, write_project, revision["id"])
    assert (
        run("annotate", "pull", "story_write", "--project", "bw stories", "--out", str(tmp_path / "w")).exit_code == 0
    )
    assert (
        run("annotate", "push", "story_review", "--input", str(tmp_path / "w"), "--project", "bw review").exit_code == 0
    )
    _switch(rater, team["rev"]["email"])
    task = next(t for t in export_tasks(conn, review_project) if not t["annotations"])
    rater.open_task(review_project, task["id"], "story-review-approve-en")
    rater.choose(load_template("en/story_review").xml, "decision", "approve")
    rater.submit("story-review-approve")
    wait_for_annotation(conn, review_project, task["id"])
    assert (
        run("annotate", "pull", "story_review", "--project", "bw review", "--out", str(tmp_path / "r")).exit_code == 0
    )
    versions = [json.loads(line) for line in (tmp_path / "r" / "story_versions.jsonl").read_text().splitlines()]
    assert [(v["version"], v["decision"]) for v in versions] == [(1, "refuse"), (2, "approve")]
    stories = tmp_path / "r" / "stories.parquet"
    assert pq.read_table(stories).num_rows == 1

    # wes writes the endings; three raters verify them in their own projects
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
    for name in (
        "vic",
        "wes",
        "rev",
    ):  # in their own projects: an answer the admin's key wrote there would be quarantined
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

    # a shuffled story put back in order: Ranker items moved with the keyboard (space, arrows, space)
    assert (
        run(
            "annotate", "push", "story_reorder", "--input", str(stories), "--project", "bw reorder", "--raters", "1"
        ).exit_code
        == 0
    )
    order_state = JobState.find(state, "bw reorder", label_studio.url)
    order_project = order_state.projects[""]
    (task,) = export_tasks(conn, order_project)
    rater.open_task(order_project, task["id"], "story-reorder-en")
    original = order_state.tasks[task["data"]["uid"]]["hidden"]["original_ids"]
    from selenium.webdriver.common.by import By

    shown = " ".join(i.text for i in rater.chrome.find_elements(By.CSS_SELECTOR, ".htx-ranker-item"))
    assert STORY[0] in shown and not any(item_id in shown for item_id in original), shown  # sentences, not their ids
    _reorder(rater, original)
    rater.submit("story-reorder")
    wait_for_annotation(conn, order_project, task["id"])
    assert (
        run("annotate", "pull", "story_reorder", "--project", "bw reorder", "--out", str(tmp_path / "o")).exit_code == 0
    )
    report = json.loads((tmp_path / "o" / "reorder.json").read_text())
    assert report["each_perfect"] == 1.0, report["per_ordering"]

    # every new screen in Chinese
    for job, args in {
        "story_write": ["--n", "1"],
        "story_review": ["--input", str(tmp_path / "w")],
        "sct_write": ["--input", str(stories), "--split", "test"],
        "story_reorder": ["--input", str(stories), "--raters", "1"],
    }.items():
        assert run("annotate", "push", job, "--project", f"zh {job}", "--lang", "zh", *args).exit_code == 0
        job_state = JobState.find(state, f"zh {job}", label_studio.url)
        project = job_state.projects.get("wes", job_state.projects.get(""))
        task = export_tasks(conn, project)[0]
        rater.open_task(project, task["id"], f"{job}-zh")
        assert get_job(job).template_for("zh").xml and "lsf" in rater.chrome.page_source
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


def _item_id(rater: Rater, element) -> str:
    return (
        element.get_attribute("data-id")
        or element.get_attribute("data-rbd-draggable-id")
        or element.get_attribute("id")
        or ""
    )
