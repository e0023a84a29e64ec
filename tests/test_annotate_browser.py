"""A rater in a real browser: Debian's chromium (headless, CJK fonts) through chromium-driver and selenium, against the
real Label Studio server of the session. The last two tests check whose answer counts (an edit by another rater, an
admin's answer, a deleted task; cloze_verify's stories of one case to different raters) and every screen in Chinese and
English. The first: the rater logs in, completes tasks of each of the five jobs through the
Chinese screens (story_filter: reject with a reason beside the reference story; clozet_write: write with another
sentence picked, and reject; senpos_refine: move the gap with the verdict 'move'; cloze_verify; human_eval: A/B/C side
by side, nine controls), the jobs are pulled, and no page the rater opened (home, project list, task list, task) holds
a hidden value: the system behind an output, a cloze ending's role, a task's real uid, a source row, a gold task's
answer, another rater's answer.

Never skipped: without chromium (`make test` installs it) this test fails. Screenshots are left in the test's tmp dir
(or in $LOTDATA_BROWSER_SHOTS when set).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
from labelstudio_support import RaterWeb, lotdata, read_rows, text
from typer.testing import CliRunner

from lotdata.annotate.checks import stray_punctuation
from lotdata.annotate.client import export_tasks
from lotdata.annotate.jobs import get_job, mask_guess, wrong_candidate_problem
from lotdata.annotate.state import JobState
from lotdata.annotate.workflow import add_raters
from lotdata.cli import app
from lotdata.datasets.folder import write_dataset

PASSWORD = "Rater-Browser-2026"
SYSTEMS = ("sysalpha-secret", "sysbeta-secret", "sysgamma-secret")
SAM_ANSWER = "山姆加的结尾，小熊坐火箭去了月亮。"  # added to the segment (a rewrite stays within 100 characters of it)
ALWAYS_HIDDEN_COLUMNS = ("gold", "answer")
ASPECTS = ("grammaticality", "coherence", "relatedness")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, (
        "the browser test needs Debian's chromium and chromium-driver: `make test` installs them"
    )
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000", "--lang=zh-CN"):
        options.add_argument(arg)
    options.binary_location = chromium
    chrome = webdriver.Chrome(options=options, service=Service(driver))
    chrome.implicitly_wait(0)
    try:
        yield chrome
    finally:
        chrome.quit()


class Rater:
    """A rater's browser session; every page it opens is kept (source and screenshot) for the checks."""

    def __init__(self, chrome, url: str, shots: Path):
        self.chrome, self.url, self.shots = chrome, url, shots
        self.pages: dict[str, str] = {}

    def wait(self, css: str, timeout: float = 30):
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support import expected_conditions as ec
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.chrome, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))

    def keep(self, name: str) -> None:
        key = f"{len(self.pages):02d}-{name}"
        self.chrome.save_screenshot(str(self.shots / f"{key}.png"))
        self.pages[key] = self.chrome.page_source

    def login(self, email: str) -> None:
        from selenium.webdriver.common.by import By

        self.chrome.get(f"{self.url}/user/login/")
        self.wait("input[name=email]").send_keys(email)
        self.chrome.find_element(By.NAME, "password").send_keys(PASSWORD)
        self.chrome.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.wait("a[href*='/projects/'], [class*=project]")
        time.sleep(1)
        self.keep("home")
        self.chrome.get(f"{self.url}/projects/")
        self.wait("a[href*='/projects/']")
        time.sleep(1)
        self.keep("project-list")

    def task_list(self, project_id: int, name: str) -> None:
        self.chrome.get(f"{self.url}/projects/{project_id}/data")
        self.wait(".lsf-table__cell-content, [class*=table]")
        time.sleep(2)
        self.keep(f"{name}-task-list")

    def open_task(self, project_id: int, task_id: int, name: str) -> None:
        self.chrome.get(f"{self.url}/projects/{project_id}/data?task={task_id}")
        self.wait("[data-testid=bottombar-submit-button]")
        time.sleep(1.5)
        self.keep(f"{name}-task")

    def choose(self, xml: str, name: str, code: str, *, options: list[str] | None = None, ticked: bool = True) -> None:
        """Make the choice `code` (its alias, the stored code) of the Choices `name` ticked (or not): the group is found by
        its set of options (XML order breaks ties), the choice is clicked only when it is not as wanted.
        `options`: the values of a group whose choices come from the task's data (value="$...")."""
        from selenium.webdriver.common.by import By

        groups = {
            c.get("name"): {x.get("alias") or x.get("value"): x.get("value") for x in c.iter("Choice")}
            for c in ET.fromstring(xml).iter("Choices")
        }
        labels = groups[name] or {o: o for o in options or []}
        inputs = lambda g: {i.get_attribute("name") for i in g.find_elements(By.CSS_SELECTOR, "input")}  # noqa: E731
        same = [n for n, v in groups.items() if v and set(v.values()) == set(labels.values())] or [name]

        def locate():  # again after each click: the page is rendered anew
            shown = [
                g
                for g in self.chrome.find_elements(By.CSS_SELECTOR, ".lsf-choices")
                if inputs(g) in (set(labels.values()), set(labels))
            ]
            assert len(shown) in (1, len(same)), (
                f"{name}: {len(shown)} groups on the page with its options, {len(same)} in the template"
            )
            group = shown[same.index(name) if len(shown) == len(same) else 0]
            return next(
                group.find_element(By.CSS_SELECTOR, f'input[name="{n}"]')
                for n in (labels[code], code)
                if n in inputs(group)
            )

        if locate().is_selected() != ticked:
            label = locate().find_element(By.XPATH, "./ancestor::label")
            self.chrome.execute_script(
                "arguments[0].scrollIntoView({block: 'center'})", label
            )  # not under the bottom bar
            time.sleep(0.2)
            locate().find_element(By.XPATH, "./ancestor::label").click()
            time.sleep(0.3)
        assert locate().is_selected() == ticked, f"{name}={code} did not become {'ticked' if ticked else 'unticked'}"

    def write(self, name: str, value: str) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        box = self.chrome.find_element(By.CSS_SELECTOR, f'textarea[name="{name}"]')
        self.chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        time.sleep(0.2)
        box.click()
        box.send_keys(value)
        box.send_keys(Keys.SHIFT, Keys.ENTER)  # Label Studio adds the text as the answer on Shift+Enter

    def submit(self, name: str) -> None:
        from selenium.webdriver.common.by import By

        time.sleep(0.5)
        self.keep(f"{name}-filled")
        self.chrome.find_element(By.CSS_SELECTOR, "[data-testid=bottombar-submit-button]").click()
        time.sleep(1.5)
        self.keep(f"{name}-after-submit")


def allowed_punctuation_only(text: str) -> str:
    """A rewrite keeps to LOT's punctuation (appendix 1), as the screen tells raters: quotes and colons go."""
    for mark in stray_punctuation(text, "zh"):
        text = text.replace(mark, "")
    return text


def wait_for_annotation(conn, project_id: int, task_id: int, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = next(t for t in export_tasks(conn, project_id) if t["id"] == task_id)
        if task.get("annotations"):
            return task["annotations"][0]
        time.sleep(0.5)
    raise AssertionError(f"no annotation saved for task {task_id} of project {project_id}")


@pytest.fixture(scope="module")
def senpos(stories, tmp_path_factory) -> Path:
    """A SenPos dataset folder of the sample stories (read only by the tests)."""
    out = tmp_path_factory.mktemp("senpos") / "senpos"
    result = CliRunner().invoke(
        app, ["build", "senpos", "--stories", str(stories), "--out", str(out), "--split", "train=0.6,val=0.2,test=0.2"]
    )
    assert result.exit_code == 0, result.output
    return out


def test_a_rater_completes_every_job_in_a_browser_and_no_page_shows_a_hidden_value(
    label_studio, conn, stories, senpos, browser, tmp_path
):
    state = tmp_path / "state"
    shots = Path(os.environ.get("LOTDATA_BROWSER_SHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {e["rater"]: e for e in add_raters(conn, ["rita", "sam"], state=state, password=lambda: PASSWORD)}
    assert all(e["account"] == "created" for e in team.values())

    # five jobs: three per rater (story_filter, cloze_verify, human_eval with a gold task), two shared (1 rater per task)
    clozet = tmp_path / "clozet"
    example = {
        "example_id": "clozet-secret-example-7",
        "story_id": "s7",
        "split": "test",
        "context": "小熊早上出门。<mask>它很开心。",
        "candidates": ["小熊钓到了一条大鱼。", "小熊把河水喝光了。"],
        "label": 0,
        "mask_sentence_index": 1,
        "annotator": None,
        "annotation_id": None,
        "lang": "zh",
    }
    write_dataset(
        clozet, "clozet", {"train": [], "val": [], "test": [example]}, command="test", params={}, inputs=[], stats={}
    )
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(
        "".join(
            json.dumps(
                {"input_id": 1, "input": "小熊早上出门。", "system": s, "output": f"小熊遇到了第{k}只兔子。"},
                ensure_ascii=False,
            )
            + "\n"
            for k, s in enumerate(SYSTEMS)
        ),
        encoding="utf-8",
    )
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps(
            {
                "data": {"input": "小猫睡觉。", **{f"output_{slot}": f"的的的了了了{slot}。" for slot in "ABC"}},
                "answer": {f"{a}_{slot}": 0 for a in ASPECTS for slot in "ABC"},
            },
            ensure_ascii=False,
        )
        + "\n"
    )
    pushes = {
        "story_filter": ["--input", str(stories), "--limit", "2", "--raters", "2"],
        "clozet_write": ["--input", str(stories), "--limit", "2"],
        "senpos_refine": ["--input", str(senpos), "--limit", "1"],
        "cloze_verify": ["--input", str(clozet), "--raters", "2"],
        "human_eval": ["--input", str(outputs), "--raters", "2", "--gold", str(gold)],
    }
    for job, args in pushes.items():
        pushed = run("annotate", "push", job, "--project", f"browser {job}", *args)
        assert pushed.exit_code == 0, pushed.output
    states = {job: JobState.find(state, f"browser {job}", label_studio.url) for job in pushes}

    def rater_project(job: str, rater: str = "rita") -> int:
        job_state = states[job]
        return job_state.projects.get(rater, job_state.projects.get(""))

    def tasks_of(job: str, rater: str = "rita") -> list[dict]:
        return sorted(export_tasks(conn, rater_project(job, rater)), key=lambda t: t["id"])

    def hidden_of(job: str, task: dict) -> dict:
        return states[job].tasks[task["data"]["uid"]]["hidden"]

    sam_task = tasks_of("story_filter", "sam")[0]  # sam's answer, in sam's own project, sent as sam
    RaterWeb(label_studio.url, team["sam"]["email"], PASSWORD).annotate(
        sam_task["id"],
        [
            {"from_name": "decision", "to_name": "story", "type": "choices", "value": {"choices": ["rewrite"]}},
            text("rewritten", "story", allowed_punctuation_only(sam_task["data"]["text"]) + SAM_ANSWER),
        ],
    )

    rater = Rater(browser, label_studio.url, shots)
    rater.login(team["rita"]["email"])
    done: dict[str, dict] = {}

    def complete(job: str, task: dict, fill, key: str | None = None) -> None:
        project_id = rater_project(job)
        rater.task_list(project_id, job)
        rater.open_task(project_id, task["id"], job)
        fill(get_job(job).template.xml)
        rater.submit(job)
        done[key or job] = wait_for_annotation(conn, project_id, task["id"])

    # story_filter: the segment beside its whole story ($reference); a reject needs a reason (shown once 丢弃 is ticked)
    filter_task = tasks_of("story_filter")[0]
    assert filter_task["data"]["reference"] and filter_task["data"]["text"] in filter_task["data"]["reference"]

    def story_filter(xml):
        rater.choose(xml, "decision", "reject")
        rater.choose(xml, "reason", "illogical")

    complete("story_filter", filter_task, story_filter)

    # clozet_write: decide 'write' (pre-selected), pick another sentence than the heuristic's, write, pick a policy;
    # the second story is rejected (its sentence, candidate and policy boxes go away)
    write_task, reject_task = tasks_of("clozet_write")
    sentences = hidden_of("clozet_write", write_task)["sentences"]
    guess = str(
        mask_guess(sentences)
    )  # the pre-annotated sentence: choice k is sentence k + 1 (the first has no number)
    pick, wrong = next(
        (str(n), w)
        for n in range(1, len(sentences) - 1)
        if str(n) != guess
        for w in ["可是" + sentences[n].rstrip("。！？!?.") + "，又飞上了月亮。"]
        if not wrong_candidate_problem(w, sentences[n], sentences[:n] + sentences[n + 1 :], "zh")
    )
    options = [c["value"] for c in write_task["data"]["sentence_choices"]]

    def clozet_write(xml):
        rater.choose(xml, "decision", "write")
        rater.choose(xml, "mask_sentence", pick, options=options)
        rater.write("wrong_candidate", wrong)
        rater.choose(xml, "policy", "physical_nature")

    complete("clozet_write", write_task, clozet_write)
    complete("clozet_write", reject_task, lambda xml: rater.choose(xml, "decision", "reject"), key="clozet_reject")

    # senpos_refine: the original gap is pre-selected (a suggestion for the refiner); the rater moves it, and the
    # required verdict says so ('move')
    senpos_task = tasks_of("senpos_refine")[0]
    original = hidden_of("senpos_refine", senpos_task)["original_gap"]
    gaps = [c["value"] for c in senpos_task["data"]["gap_choices"]]
    moved_to = next(g for g in gaps if g != str(original))

    def senpos_refine(xml):
        rater.choose(xml, "gaps", str(original), options=gaps, ticked=False)
        rater.choose(xml, "gaps", moved_to, options=gaps)
        rater.choose(xml, "verdict", "move")

    complete("senpos_refine", senpos_task, senpos_refine)

    verify_task = tasks_of("cloze_verify")[0]
    complete("cloze_verify", verify_task, lambda xml: rater.choose(xml, "rating", "1"))

    # human_eval: one task for the input, its three outputs side by side (A/B/C), three aspects each
    eval_tasks = {states["human_eval"].tasks[t["data"]["uid"]]["gold"] is not None: t for t in tasks_of("human_eval")}
    assert len(eval_tasks) == 2 and {"output_A", "output_B", "output_C"} <= set(eval_tasks[False]["data"])
    marks = {"A": ("1", "1", "0"), "B": ("1", "0", "0"), "C": ("0", "0", "0")}

    def human_eval(per_slot):
        def fill(xml):
            for slot, values in per_slot.items():
                for aspect, value in zip(ASPECTS, values):
                    rater.choose(xml, f"{aspect}_{slot}", value)

        return fill

    complete("human_eval", eval_tasks[False], human_eval(marks))
    complete("human_eval", eval_tasks[True], human_eval({slot: ("0", "0", "0") for slot in "ABC"}), key="gold")

    # every answer went through the UI and is what was clicked
    answers = {key: {r["from_name"]: r["value"] for r in a["result"]} for key, a in done.items()}
    assert answers["story_filter"]["decision"]["choices"] and answers["story_filter"]["reason"]["choices"]
    assert wrong in json.dumps(done["clozet_write"]["result"], ensure_ascii=False)
    assert answers["clozet_write"]["mask_sentence"]["choices"] == [pick]
    assert answers["clozet_reject"]["decision"]["choices"] != answers["clozet_write"]["decision"]["choices"]
    assert answers["senpos_refine"]["gaps"]["choices"] == [moved_to] and "verdict" in answers["senpos_refine"]
    assert len(answers["human_eval"]) == 9 and len(answers["gold"]) == 9
    assert all(a["completed_by"] == team_user(conn, "rita") for a in done.values())

    # nothing hidden on any page the rater opened
    opened = [page.split("-", 1)[1] for page in rater.pages]
    assert len(opened) == 2 + 4 * len(done) and {
        "home",
        "project-list",
        "human_eval-task-list",
        "human_eval-task",
        "cloze_verify-task",
    } <= set(opened)
    secrets = list(SYSTEMS) + [SAM_ANSWER, example["example_id"]]
    for job_state in states.values():
        for secret in job_state.tasks.values():
            secrets.append(secret["uid"])  # the real uid: Label Studio only ever has the opaque one
            for value in secret["hidden"].values():
                if isinstance(value, str) and len(value) >= 12:
                    secrets.append(value)
                elif isinstance(value, dict):  # a row or a story as a column would show it
                    secrets += [json.dumps(value, ensure_ascii=False), json.dumps(value)]
    for page, source in rater.pages.items():
        for secret in secrets:
            assert secret not in source and json.dumps(secret)[1:-1] not in source, (
                f"{secret[:80]!r} is on the rater's page {page}"
            )
        if page.endswith("task-list"):
            assert re.search(r">\s*任务\s*<", source)  # lotdata's task list view, which hides every data column
            job = page.split("-", 1)[1].removesuffix("-task-list")
            hidden_keys = {k for secret in states[job].tasks.values() for k in secret["hidden"]}
            assert hidden_keys
            for column in sorted(hidden_keys) + list(ALWAYS_HIDDEN_COLUMNS):
                assert not re.search(rf">\s*{column}\s*<", source), f"column {column!r} on {page}"

    # pulled: every answer reaches its table; the gold answer is scored, not assembled
    pulled = {}
    for job in pushes:
        out = tmp_path / "pulled" / job
        result = run("annotate", "pull", job, "--project", f"browser {job}", "--out", str(out))
        assert result.exit_code == 0, result.output
        pulled[job] = out
        assert not read_rows(out / "quarantine.parquet"), (job, read_rows(out / "quarantine.parquet"))
    rita = team["rita"]["email"]
    decisions = {d["annotator"]: d for d in read_rows(pulled["story_filter"] / "story_decisions.parquet")}
    assert decisions[rita]["decision"] == "reject" and decisions[rita]["reason"] == "illogical"
    assert decisions["sam@raters.lotdata.local"]["new_text"].endswith(SAM_ANSWER)
    [written] = [r for s in ("val", "test") for r in read_rows(pulled["clozet_write"] / "clozet" / f"{s}.parquet")]
    assert written["candidates"][1 - written["label"]] == wrong and written["annotator"] == rita
    assert written["mask_sentence_index"] == int(
        pick
    )  # the sentence the rater picked (choice k = sentence k + 1), not the heuristic's
    [refined] = [r for s in ("val", "test") for r in read_rows(pulled["senpos_refine"] / "senpos" / f"{s}.parquet")]
    assert refined["label"] == int(moved_to)
    assembly = json.loads((pulled["senpos_refine"] / "pull.json").read_text())["assembly"]
    assert assembly["moved"] == 1 and assembly["moved_unconfirmed"] == 1
    [rating] = read_rows(pulled["cloze_verify"] / "annotations.parquet")
    uid = states["cloze_verify"].tasks[verify_task["data"]["uid"]]["uid"]
    assert rating["annotator"] == rita and rating["uid"] == uid
    assert (
        uid.startswith("verify-") and example["example_id"] not in uid and not uid.endswith(("right", "wrong"))
    )  # a hash, telling nothing
    items = {r["system"]: r for r in read_rows(pulled["human_eval"] / "human_eval.parquet")}
    assert set(items) == set(SYSTEMS)
    for slot, system in hidden_of("human_eval", eval_tasks[False])["slots"].items():
        assert tuple(str(items[system][a]) for a in ASPECTS) == marks[slot]
    assert json.loads((pulled["human_eval"] / "gold.json").read_text())["raters"][rita] == {
        "answered": 1,
        "correct": 1,
        "accuracy": 1.0,
        "flagged": False,
    }


def team_user(conn, name: str) -> int:
    return next(u.id for u in conn.sdk.users.list() if u.email == f"{name}@raters.lotdata.local")


# ---------------------------------------------------------------- whose answer counts; every screen in both languages


def rating(code: str) -> list[dict]:
    return [{"from_name": "rating", "to_name": "story", "type": "choices", "value": {"choices": [code]}}]


def summary_value(output: str, key: str) -> str:
    return re.search(rf"│\s*{key}\s*│\s*([^│]+?)\s*│", output).group(1)


def test_an_edit_by_another_rater_is_quarantined_and_no_rater_gets_both_versions(label_studio, conn, browser, tmp_path):
    """Six raters verify four cases (eight stories, three raters each): nobody is given both stories of a case. Rater li
    opens wang's project in the browser and changes wang's answer; the admin account answers in zhao's project; a task
    of sun's is deleted on the server. Pull and status name and count each, and keep every other answer.
    About 45 s: six accounts log in (24 answers through the server's own API as each rater) and one browser session."""
    state = tmp_path / "state"
    shots = Path(os.environ.get("LOTDATA_BROWSER_SHOTS") or tmp_path / "screenshots") / "trust"
    shots.mkdir(parents=True, exist_ok=True)
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    names = ["wang", "li", "zhao", "qian", "sun", "zhou"]
    team = {e["rater"]: e for e in add_raters(conn, names, state=state, password=lambda: PASSWORD)}
    clozet = tmp_path / "clozet"
    examples = [
        {
            "example_id": f"case-{i}",
            "story_id": f"s{i}",
            "split": ("val", "test")[i % 2],
            "context": f"小熊第{i}次早上出门。<mask>它很开心。",
            "candidates": [f"小熊钓到了{i}条大鱼。", f"小熊把{i}条河喝光了。"],
            "label": 0,
            "mask_sentence_index": 1,
            "annotator": None,
            "annotation_id": None,
            "lang": "zh",
        }
        for i in range(4)
    ]
    write_dataset(
        clozet,
        "clozet",
        {"train": [], "val": examples[0::2], "test": examples[1::2]},
        command="test",
        params={},
        inputs=[],
        stats={},
    )

    ghost = run(
        "annotate", "push", "cloze_verify", "--input", str(clozet), "--project", "trust", "--assign", "wang,ghost"
    )
    assert ghost.exit_code == 1 and "['ghost']" in ghost.output  # named; nothing pushed
    assert JobState.find(state, "trust", label_studio.url) is None
    pushed = run("annotate", "push", "cloze_verify", "--input", str(clozet), "--project", "trust")
    assert pushed.exit_code == 0, pushed.output
    job_state = JobState.find(state, "trust", label_studio.url)
    hidden = lambda task: job_state.tasks[task["data"]["uid"]]["hidden"]  # noqa: E731
    given = {name: sorted(export_tasks(conn, job_state.projects[name]), key=lambda t: t["id"]) for name in names}
    for name, tasks in given.items():
        cases = [hidden(t)["example_id"] for t in tasks]
        assert len(cases) == len(set(cases)) == 4, (name, cases)  # one story of each case, never both
    assert Counter(t["data"]["uid"] for tasks in given.values() for t in tasks) == Counter(
        {t: 3 for t in job_state.tasks}
    )

    webs = {name: RaterWeb(label_studio.url, team[name]["email"], PASSWORD) for name in names}
    code = lambda task: "1" if hidden(task)["role"] == "right" else "0"  # noqa: E731
    deleted, by_admin, edited = given["sun"][0], given["zhao"][0], given["wang"][0]
    conn.sdk.tasks.delete(deleted["id"])
    conn.sdk.annotations.create(id=by_admin["id"], result=rating(code(by_admin)), completed_by=team_user(conn, "zhao"))
    for name, tasks in given.items():
        for task in tasks:
            if task["id"] not in (deleted["id"], by_admin["id"]):
                webs[name].annotate(task["id"], rating(code(task)))

    browser.delete_all_cookies()
    li = Rater(browser, label_studio.url, shots)
    li.login(team["li"]["email"])
    li.chrome.get(f"{label_studio.url}/projects/{job_state.projects['wang']}/data?task={edited['id']}")
    li.wait("[data-testid=bottombar-update-button]")
    time.sleep(1.5)
    li.keep("li-opens-wang-answer")
    li.choose(get_job("cloze_verify").template.xml, "rating", "-1")
    from selenium.webdriver.common.by import By

    li.chrome.find_element(By.CSS_SELECTOR, "[data-testid=bottombar-update-button]").click()
    time.sleep(2)
    li.keep("li-updated-wang-answer")
    li_id, wang_id = team_user(conn, "li"), team_user(conn, "wang")
    [answer] = next(t for t in export_tasks(conn, job_state.projects["wang"]) if t["id"] == edited["id"])["annotations"]
    assert (answer["completed_by"], answer["updated_by"], answer["result"][0]["value"]["choices"]) == (
        wang_id,
        li_id,
        ["-1"],
    )

    status = run("annotate", "status", "trust")
    assert status.exit_code == 0, status.output
    assert (
        summary_value(status.output, "not_by_the_rater") == "2" and summary_value(status.output, "missing_tasks") == "1"
    )
    assert summary_value(status.output, "raters_given_both_versions") == "0"
    out = tmp_path / "pulled"
    pulled = run("annotate", "pull", "cloze_verify", "--project", "trust", "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    summary = json.loads((out / "pull.json").read_text())
    reasons = sorted(r["reason"] for r in read_rows(out / "quarantine.parquet"))
    wang, li_mail, zhao = (team[n]["email"] for n in ("wang", "li", "zhao"))
    assert reasons == sorted(
        [
            f"{wang}'s answer was created or last changed by {li_mail} (in {wang}'s own project)",
            f"{zhao}'s answer was created or last changed by lotdata@localhost (in {zhao}'s own project)",
        ]
    ), reasons
    assert summary["missing"] == [{"project": "trust · sun", "uid": job_state.tasks[deleted["data"]["uid"]]["uid"]}]
    assert (summary["not_by_the_rater"], summary["missing_tasks"], summary["quarantined"], summary["valid"]) == (
        2,
        1,
        2,
        21,
    )
    assert summary["raters_given_both_versions"] == summary["raters_answered_both_versions"] == 0
    short = {hidden(t)["example_id"] for t in (deleted, by_admin, edited)}
    kept = [r["example_id"] for s in ("val", "test") for r in read_rows(out / "clozet" / f"{s}.parquet")]
    assert sorted(kept) == sorted({e["example_id"] for e in examples} - short)  # every other case assembled
    assert summary["assembly"]["dropped"] == {"too_few_ratings": len(short)}


SCREEN_INPUTS = (
    "story_filter",
    "clozet_write",
    "senpos_refine",
    "cloze_verify",
    "human_eval",
    "human_eval_truth",
    "human_perf",
)


def test_every_screen_in_both_languages(label_studio, conn, stories, senpos, browser, tmp_path):
    """Each job in Chinese and English: the task list shows lotdata's view (no internal column), the task screen its
    language's instructions with radio buttons, and submitting an unanswered task names what is missing in that
    language. clozet_write's key 2 picks the sentence numbered [2]. About 80-150 s (fourteen screens in a real browser): each screen is one more job and language to look at."""
    state = tmp_path / "state"
    shots = Path(os.environ.get("LOTDATA_BROWSER_SHOTS") or tmp_path / "screenshots") / "screens"
    shots.mkdir(parents=True, exist_ok=True)
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    [pat] = add_raters(conn, ["pat"], state=state, password=lambda: PASSWORD)
    clozet = tmp_path / "clozet"
    example = {
        "example_id": "c1",
        "story_id": "s1",
        "split": "test",
        "context": "小熊早上出门。<mask>它很开心。",
        "candidates": ["小熊钓到了一条大鱼。", "小熊把河水喝光了。"],
        "label": 0,
        "mask_sentence_index": 1,
        "annotator": None,
        "annotation_id": None,
        "lang": "zh",
    }
    write_dataset(
        clozet, "clozet", {"train": [], "val": [], "test": [example]}, command="test", params={}, inputs=[], stats={}
    )
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(
        "".join(
            json.dumps(
                {"input_id": 1, "input": "小熊早上出门。", "system": s, "output": f"小熊遇到了第{k}只兔子。"},
                ensure_ascii=False,
            )
            + "\n"
            for k, s in enumerate(SYSTEMS)
        ),
        encoding="utf-8",
    )
    with_truth = tmp_path / "with_truth.jsonl"
    with_truth.write_text(
        outputs.read_text(encoding="utf-8")
        + json.dumps(
            {"input_id": 1, "input": "小熊早上出门。", "system": "truth", "output": "小熊在河边钓到了一条鱼。"},
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    inputs = {
        "story_filter": stories,
        "clozet_write": stories,
        "senpos_refine": senpos,
        "cloze_verify": clozet,
        "human_eval": outputs,
        "human_eval_truth": with_truth,
        "human_perf": clozet,
    }
    screens = [(job, lang) for lang in ("zh", "en") for job in SCREEN_INPUTS]
    for job, lang in screens:
        pushed = run(
            "annotate",
            "push",
            job,
            "--input",
            str(inputs[job]),
            "--project",
            f"screens {job} {lang}",
            "--limit",
            "1",
            "--raters",
            "1",
            "--lang",
            lang,
        )
        assert pushed.exit_code == 0, pushed.output
    rater = Rater(browser, label_studio.url, shots)
    browser.delete_all_cookies()
    rater.login(pat["email"])
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    for job, lang in screens:
        title = f"screens {job} {lang}"
        job_state = JobState.find(state, title, label_studio.url)
        project_id = job_state.projects.get("pat", job_state.projects.get(""))  # cloze_verify: a project per rater
        project = conn.sdk.projects.get(id=project_id)
        assert project.description == get_job(job).description(lang)
        task = min(export_tasks(conn, project_id), key=lambda t: t["id"])  # cloze_verify: one of the case's two stories
        rater.task_list(project_id, f"{job}-{lang}")
        source = browser.page_source
        assert re.search(r">\s*(任务|Tasks)\s*<", source)
        for column in task["data"]:
            assert not re.search(rf">\s*{column}\s*<", source), (job, lang, column)
        rater.open_task(project_id, task["id"], f"{job}-{lang}")
        template = get_job(job).template_for(lang)
        root = ET.fromstring(template.xml)
        assert browser.find_elements(By.CSS_SELECTOR, "input[type=radio]"), (
            job,
            lang,
        )  # single choices are radio buttons
        first_header = next(root.iter("Header")).get("value")
        assert first_header in browser.page_source, (job, lang)
        if job == "clozet_write":  # keys are the numbers shown: key k picks [k]
            guessed = JobState.find(state, title, label_studio.url).tasks[task["data"]["uid"]]["task"]["predictions"][
                0
            ]["result"][1]["value"]["choices"][0]
            key = "2" if guessed != "2" else "3"
            ActionChains(browser).send_keys(key).perform()
            time.sleep(0.5)
            rater.keep(f"{job}-{lang}-key-{key}")
            checked = {
                i.get_attribute("name")
                for i in browser.find_elements(By.CSS_SELECTOR, ".lsf-choices input[type=radio]")
                if i.is_selected()
            }
            assert key in checked and guessed not in checked, (
                key,
                guessed,
                checked,
            )  # the pre-selected sentence gave way
        if job != "senpos_refine":  # senpos comes pre-filled (the refiner confirms): nothing is missing there
            browser.find_element(By.CSS_SELECTOR, "[data-testid=bottombar-submit-button]").click()
            time.sleep(1)
            rater.keep(f"{job}-{lang}-required")
            messages = [c.get("requiredMessage") for c in root.iter() if c.get("requiredMessage")]
            assert any(m in browser.page_source for m in messages), (job, lang)
            assert not any(t.get("annotations") for t in export_tasks(conn, project_id))  # refused at submit
    for page, source in rater.pages.items():
        assert "&lt;mask&gt;" not in source and "<mask>" not in source, page
