"""A rater in a real browser: Debian's chromium (headless, CJK fonts) through chromium-driver and selenium, against the
real Label Studio server of the session. The rater logs in, completes a task of each of the five jobs through the UI,
the jobs are pulled, and no page the rater opened (home, project list, task list, task) holds a hidden value: the
system behind an output, a cloze ending's role, a gold task's answer, another rater's answer.

Never skipped: without chromium (`make test` installs it) this test fails. Screenshots are left in the test's tmp dir.
"""

from __future__ import annotations

import json
import re
import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from labelstudio_support import annotate, lotdata, read_rows, text
from lotdata.annotate.client import export_tasks
from lotdata.annotate.jobs import get_job
from lotdata.annotate.state import JobState
from lotdata.annotate.workflow import add_raters
from lotdata.cli import app
from lotdata.tasks.build import write_dataset

PASSWORD = "Rater-Browser-2026"
SYSTEMS = ("sysalpha-secret", "sysbeta-secret")
SAM_ANSWER = "山姆的改写：小熊坐火箭去了月亮。"
ALWAYS_HIDDEN_COLUMNS = ("gold", "answer")


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

    def choose(self, xml: str, name: str, value: str) -> None:
        """Tick a choice of the Choices `name`, found by its set of values (the order breaks ties), never by its label."""
        from selenium.webdriver.common.by import By

        groups = {c.get("name"): [x.get("value") for x in c.iter("Choice")] for c in ET.fromstring(xml).iter("Choices")}
        same = [n for n, values in groups.items() if set(values) == set(groups[name])]
        found = [g for g in self.chrome.find_elements(By.CSS_SELECTOR, ".lsf-choices")
                 if {i.get_attribute("name") for i in g.find_elements(By.CSS_SELECTOR, "input")} == set(groups[name])]
        box = found[same.index(name)].find_element(By.CSS_SELECTOR, f'input[name="{value}"]')
        box.find_element(By.XPATH, "./ancestor::label").click()

    def write(self, name: str, value: str) -> None:
        from selenium.webdriver.common.by import By
        from selenium.webdriver.common.keys import Keys

        box = self.chrome.find_element(By.CSS_SELECTOR, f'textarea[name="{name}"]')
        box.click()
        box.send_keys(value)
        box.send_keys(Keys.SHIFT, Keys.ENTER)  # Label Studio adds the text as the answer on Shift+Enter

    def submit(self, name: str) -> None:
        from selenium.webdriver.common.by import By

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
    shots = tmp_path / "screenshots"
    shots.mkdir()
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    team = {e["rater"]: e for e in add_raters(conn, ["rita", "sam"], state=state, password=lambda: PASSWORD)}
    assert all(e["account"] == "created" for e in team.values())

    # five jobs: two per rater (story_filter, cloze_verify, human_eval with a gold task), two shared (1 rater per task)
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
    gold.write_text(json.dumps({"data": {"input_id": "9", "task": "", "input": "小猫睡觉。", "output": "的的的了了了。"},
                                "answer": {"grammaticality": 0, "coherence": 0, "relatedness": 0}}, ensure_ascii=False) + "\n")
    pushes = {
        "story_filter": ["--input", str(stories), "--limit", "2", "--raters", "2"],
        "clozet_write": ["--input", str(stories), "--limit", "1"],
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

    sam_task = tasks_of("story_filter", "sam")[0]  # sam's answer, in sam's own project
    annotate(conn, sam_task, team_user(conn, "sam"), [
        {"from_name": "decision", "to_name": "story", "type": "choices", "value": {"choices": ["rewrite"]}},
        text("rewritten", "story", SAM_ANSWER)])

    rater = Rater(browser, label_studio.url, shots)
    rater.login(team["rita"]["email"])
    done: dict[str, dict] = {}

    def complete(job: str, task: dict, fill) -> None:
        project_id = rater_project(job)
        rater.task_list(project_id, job)
        rater.open_task(project_id, task["id"], job)
        fill(get_job(job).template.xml)
        rater.submit(job)
        done[job] = wait_for_annotation(conn, project_id, task["id"])

    complete("story_filter", tasks_of("story_filter")[0], lambda xml: rater.choose(xml, "decision", "accept"))

    def clozet_write(xml):
        rater.choose(xml, "policy", "physical_nature")
        rater.write("wrong_candidate", "可是小熊把整条河都喝光了。")
    complete("clozet_write", tasks_of("clozet_write")[0], clozet_write)
    complete("senpos_refine", tasks_of("senpos_refine")[0], lambda xml: None)  # the pre-annotated gap is accepted as it is
    verify_task = tasks_of("cloze_verify")[0]
    complete("cloze_verify", verify_task, lambda xml: rater.choose(xml, "rating", "1"))

    eval_tasks = {states["human_eval"].tasks[t["data"]["uid"]]["gold"] is not None: t for t in tasks_of("human_eval")}

    def human_eval(values):
        def fill(xml):
            for aspect, value in zip(("grammaticality", "coherence", "relatedness"), values):
                rater.choose(xml, aspect, value)
        return fill
    complete("human_eval", eval_tasks[False], human_eval(("1", "1", "0")))
    done["gold"] = done["human_eval"]
    complete("human_eval", eval_tasks[True], human_eval(("0", "0", "0")))

    # every answer went through the UI and is what was clicked
    assert "accept" in json.dumps(done["story_filter"]["result"])
    assert "可是小熊把整条河都喝光了。" in json.dumps(done["clozet_write"]["result"], ensure_ascii=False)
    assert all(a["completed_by"] == team_user(conn, "rita") for a in done.values())

    # nothing hidden on any page the rater opened
    opened = [page.split("-", 1)[1] for page in rater.pages]
    assert len(opened) == 26 and {"home", "project-list", "human_eval-task-list", "human_eval-task", "cloze_verify-task"} <= set(opened)
    secrets = list(SYSTEMS) + [SAM_ANSWER, example["example_id"]]
    for job_state in states.values():
        for secret in job_state.tasks.values():
            secrets += [v for v in secret["hidden"].values() if isinstance(v, str) and len(v) >= 12]  # e.g. the example JSON
            if ":" in secret["uid"]:
                secrets.append(secret["uid"])  # a telling uid such as `<example>:right`
    for page, source in rater.pages.items():
        for secret in secrets:
            assert secret not in source and json.dumps(secret)[1:-1] not in source, f"{secret!r} is on the rater's page {page}"
        if page.endswith("task-list"):
            assert re.search(r">\s*uid\s*<", source)  # the columns are where the check looks
            job = page.split("-", 1)[1].removesuffix("-task-list")
            hidden_keys = {k for secret in states[job].tasks.values() for k in secret["hidden"]}
            assert hidden_keys or job not in ("cloze_verify", "human_eval")
            for column in sorted(hidden_keys) + list(ALWAYS_HIDDEN_COLUMNS):
                assert not re.search(rf">\s*{column}\s*<", source), f"column {column!r} on {page}"

    # pulled: every answer reaches its table; the gold answer is scored, not assembled
    pulled = {}
    for job in pushes:
        out = tmp_path / "pulled" / job
        result = run("annotate", "pull", job, "--project", f"browser {job}", "--out", str(out))
        assert result.exit_code == 0, result.output
        pulled[job] = out
        assert not read_rows(out / "quarantine.parquet"), job
    rita = team["rita"]["email"]
    decisions = {d["annotator"]: d for d in read_rows(pulled["story_filter"] / "story_decisions.parquet")}
    assert decisions[rita]["decision"] == "accept" and decisions["sam@raters.lotdata.local"]["new_text"] == SAM_ANSWER
    [written] = [r for s in ("val", "test") for r in read_rows(pulled["clozet_write"] / "clozet" / f"{s}.parquet")]
    assert written["candidates"][1 - written["label"]] == "可是小熊把整条河都喝光了。" and written["annotator"] == rita
    assert len([r for s in ("val", "test") for r in read_rows(pulled["senpos_refine"] / "senpos" / f"{s}.parquet")]) == 1
    [rating] = read_rows(pulled["cloze_verify"] / "annotations.parquet")
    assert rating["annotator"] == rita and rating["uid"] == states["cloze_verify"].tasks[verify_task["data"]["uid"]]["uid"]
    [item] = read_rows(pulled["human_eval"] / "human_eval.parquet")
    assert item["system"] in SYSTEMS and (item["grammaticality"], item["coherence"], item["relatedness"]) == (1, 1, 0)
    assert json.loads((pulled["human_eval"] / "gold.json").read_text())["raters"][rita] == {
        "answered": 1, "correct": 1, "accuracy": 1.0, "flagged": False}


def team_user(conn, name: str) -> int:
    return next(u.id for u in conn.sdk.users.list() if u.email == f"{name}@raters.lotdata.local")
