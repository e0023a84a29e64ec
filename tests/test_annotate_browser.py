"""A rater in a real browser: Debian's chromium (headless, CJK fonts) through chromium-driver and selenium, against the
real Label Studio server of the session. The rater logs in, completes tasks of each of the five jobs through the
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
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labelstudio_support import annotate, lotdata, read_rows, text
from lotdata.annotate.client import export_tasks
from lotdata.annotate.jobs import get_job, mask_guess, wrong_candidate_problem
from lotdata.annotate.state import JobState
from lotdata.annotate.workflow import add_raters
from lotdata.cli import app
from lotdata.datasets.folder import write_dataset

PASSWORD = "Rater-Browser-2026"
SYSTEMS = ("sysalpha-secret", "sysbeta-secret", "sysgamma-secret")
SAM_ANSWER = "山姆加的结尾：小熊坐火箭去了月亮。"  # added to the segment (a rewrite stays within 100 words of it)
ALWAYS_HIDDEN_COLUMNS = ("gold", "answer")
ASPECTS = ("grammaticality", "coherence", "relatedness")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, "the browser test needs Debian's chromium and chromium-driver: `make test` installs them"
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

        groups = {c.get("name"): {x.get("alias") or x.get("value"): x.get("value") for x in c.iter("Choice")}
                  for c in ET.fromstring(xml).iter("Choices")}
        labels = groups[name] or {o: o for o in options or []}
        inputs = lambda g: {i.get_attribute("name") for i in g.find_elements(By.CSS_SELECTOR, "input")}  # noqa: E731
        same = [n for n, v in groups.items() if v and set(v.values()) == set(labels.values())] or [name]

        def locate():  # again after each click: the page is rendered anew
            shown = [g for g in self.chrome.find_elements(By.CSS_SELECTOR, ".lsf-choices") if inputs(g) in (set(labels.values()), set(labels))]
            assert len(shown) in (1, len(same)), f"{name}: {len(shown)} groups on the page with its options, {len(same)} in the template"
            group = shown[same.index(name) if len(shown) == len(same) else 0]
            return next(group.find_element(By.CSS_SELECTOR, f'input[name="{n}"]') for n in (labels[code], code) if n in inputs(group))

        if locate().is_selected() != ticked:
            label = locate().find_element(By.XPATH, "./ancestor::label")
            self.chrome.execute_script("arguments[0].scrollIntoView({block: 'center'})", label)  # not under the bottom bar
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


def wait_for_annotation(conn, project_id: int, task_id: int, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = next(t for t in export_tasks(conn, project_id) if t["id"] == task_id)
        if task.get("annotations"):
            return task["annotations"][0]
        time.sleep(0.5)
    raise AssertionError(f"no annotation saved for task {task_id} of project {project_id}")


def test_a_rater_completes_every_job_in_a_browser_and_no_page_shows_a_hidden_value(label_studio, conn, stories, browser, tmp_path):
    state = tmp_path / "state"
    shots = Path(os.environ.get("LOTDATA_BROWSER_SHOTS") or tmp_path / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {e["rater"]: e for e in add_raters(conn, ["rita", "sam"], state=state, password=lambda: PASSWORD)}
    assert all(e["account"] == "created" for e in team.values())

    # five jobs: three per rater (story_filter, cloze_verify, human_eval with a gold task), two shared (1 rater per task)
    senpos = tmp_path / "senpos"
    assert CliRunner().invoke(app, ["build", "senpos", "--stories", str(stories), "--out", str(senpos), "--split", "train=0.6,val=0.2,test=0.2"]).exit_code == 0
    clozet = tmp_path / "clozet"
    example = {"example_id": "clozet-secret-example-7", "story_id": "s7", "split": "test", "context": "小熊早上出门。<mask>它很开心。",
               "candidates": ["小熊钓到了一条大鱼。", "小熊把河水喝光了。"], "label": 0, "mask_sentence_index": 1,
               "annotator": None, "annotation_id": None, "lang": "zh"}
    write_dataset(clozet, "clozet", {"train": [], "val": [], "test": [example]}, command="test", params={}, inputs=[], stats={})
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps({"input_id": 1, "input": "小熊早上出门。", "system": s, "output": f"小熊遇到了第{k}只兔子。"},
                                          ensure_ascii=False) + "\n" for k, s in enumerate(SYSTEMS)), encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"data": {"input": "小猫睡觉。", **{f"output_{slot}": f"的的的了了了{slot}。" for slot in "ABC"}},
                                "answer": {f"{a}_{slot}": 0 for a in ASPECTS for slot in "ABC"}}, ensure_ascii=False) + "\n")
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

    sam_task = tasks_of("story_filter", "sam")[0]  # sam's answer, in sam's own project
    annotate(conn, sam_task, team_user(conn, "sam"), [
        {"from_name": "decision", "to_name": "story", "type": "choices", "value": {"choices": ["rewrite"]}},
        text("rewritten", "story", sam_task["data"]["text"] + SAM_ANSWER)])

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
    guess = str(mask_guess(sentences) + 1)  # the pre-annotated sentence
    pick, wrong = next((str(n), w) for n in range(2, len(sentences) + 1) if str(n) != guess
                       for w in ["可是" + sentences[n - 1].rstrip("。！？!?.") + "，又飞上了月亮。"]
                       if not wrong_candidate_problem(w, sentences[n - 1], sentences[: n - 1] + sentences[n:], "zh"))
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
    assert len(opened) == 2 + 4 * len(done) and {"home", "project-list", "human_eval-task-list", "human_eval-task", "cloze_verify-task"} <= set(opened)
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
            assert secret not in source and json.dumps(secret)[1:-1] not in source, f"{secret[:80]!r} is on the rater's page {page}"
        if page.endswith("task-list"):
            assert re.search(r">\s*uid\s*<", source)  # the columns are where the check looks
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
    assert written["mask_sentence_index"] == int(pick) - 1  # the sentence the rater picked, not the heuristic's
    [refined] = [r for s in ("val", "test") for r in read_rows(pulled["senpos_refine"] / "senpos" / f"{s}.parquet")]
    assert refined["label"] == int(moved_to)
    assembly = json.loads((pulled["senpos_refine"] / "pull.json").read_text())["assembly"]
    assert assembly["moved"] == 1 and assembly["moved_unconfirmed"] == 1
    [rating] = read_rows(pulled["cloze_verify"] / "annotations.parquet")
    uid = states["cloze_verify"].tasks[verify_task["data"]["uid"]]["uid"]
    assert rating["annotator"] == rita and rating["uid"] == uid
    assert uid.startswith("verify-") and example["example_id"] not in uid and not uid.endswith(("right", "wrong"))  # a hash, telling nothing
    items = {r["system"]: r for r in read_rows(pulled["human_eval"] / "human_eval.parquet")}
    assert set(items) == set(SYSTEMS)
    for slot, system in hidden_of("human_eval", eval_tasks[False])["slots"].items():
        assert tuple(str(items[system][a]) for a in ASPECTS) == marks[slot]
    assert json.loads((pulled["human_eval"] / "gold.json").read_text())["raters"][rita] == {
        "answered": 1, "correct": 1, "accuracy": 1.0, "flagged": False}


def team_user(conn, name: str) -> int:
    return next(u.id for u in conn.sdk.users.list() if u.email == f"{name}@raters.lotdata.local")
