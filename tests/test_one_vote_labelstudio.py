"""One rater, one vote, on a real Label Studio (issue 35, items 1 and 5): a rater's second annotation on her own task
(Label Studio's "+" tab, clicked in chromium, and the same request sent with her logged-in session) does not count; a Story Cloze case rated by two people is not kept
although it holds three answers per story; a deleted annotation is named at pull (who, which task, when last seen)
and in status; agreement.json holds Krippendorff's alpha with its interval beside Fleiss' kappa, and the raters'
estimated accuracy."""

from __future__ import annotations

import json
import time

from labelstudio_support import RaterWeb, lotdata, read_rows
from test_annotate_browser import PASSWORD, Rater, browser  # noqa: F401  (the module's chromium, its login)

from lotdata.annotate.client import export_tasks
from lotdata.annotate.state import JobState
from lotdata.annotate.team import add_raters
from lotdata.datasets.folder import write_dataset


def rating(code: str) -> list[dict]:
    return [{"from_name": "rating", "to_name": "story", "type": "choices", "value": {"choices": [code]}}]


def _cases(folder, n: int = 2) -> None:
    examples = [
        {
            "example_id": f"vote-{i}",
            "story_id": f"v{i}",
            "split": "test",
            "context": f"小熊第{i}次早上去河边。<mask>它很开心。",
            "candidates": [f"小熊钓到了{i + 1}条鱼。", f"小熊把{i + 1}条河喝光了。"],
            "label": 0,
            "mask_sentence_index": 1,
            "annotator": None,
            "annotation_id": None,
            "lang": "zh",
        }
        for i in range(n)
    ]
    write_dataset(
        folder, "clozet", {"train": [], "val": [], "test": examples}, command="test", params={}, inputs=[], stats={}
    )


def plus_tab(rater: Rater, project_id: int, task_id: int, code: str) -> None:
    """In the browser, on a task the rater already answered: Label Studio's "+" (Create an annotation), the answer,
    Submit: a second annotation by her own account, though the project allows one per task."""
    from selenium.webdriver.common.by import By

    from lotdata.annotate.jobs import get_job

    rater.chrome.get(f"{rater.url}/projects/{project_id}/data?task={task_id}")
    rater.wait("[data-testid=bottombar-update-button]")
    time.sleep(1.5)
    rater.chrome.find_element(By.CSS_SELECTOR, 'button[aria-label="Create an annotation"]').click()
    rater.wait("[data-testid=bottombar-submit-button]")
    time.sleep(1)
    rater.choose(get_job("cloze_verify").template_for("zh").xml, "rating", code)
    rater.keep("plus-tab-second-answer")
    rater.chrome.find_element(By.CSS_SELECTOR, "[data-testid=bottombar-submit-button]").click()
    time.sleep(2)


def test_two_people_do_not_make_three_raters_and_a_deleted_answer_is_named(label_studio, conn, browser, tmp_path):  # noqa: F811
    """Three raters are asked per story; ann and bo answer every story, and bo answers each a second time. Before,
    the pull counted three answers per story and kept both cases in clozet/test.parquet; now bo's second answers are
    quarantined (the first submitted counts) and no case is kept. Cy answers: both cases are kept. One of ann's
    answers is then deleted on the server: the next pull names it, and so does status. About 30 s."""
    state = tmp_path / "state"
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731
    names = ["vote-ann", "vote-bo", "vote-cy"]
    team = {e["rater"]: e for e in add_raters(conn, names, state=state, password=lambda: PASSWORD)}
    _cases(tmp_path / "clozet")
    pushed = run("annotate", "push", "cloze_verify", "--input", str(tmp_path / "clozet"), "--project", "one vote")
    assert pushed.exit_code == 0, pushed.output
    job_state = JobState.find(state, "one vote", label_studio.url)
    code = lambda task: "1" if job_state.tasks[task["data"]["uid"]]["hidden"]["role"] == "right" else "0"  # noqa: E731
    given = {name: sorted(export_tasks(conn, job_state.projects[name]), key=lambda t: t["id"]) for name in names}
    webs = {name: RaterWeb(label_studio.url, team[name]["email"], PASSWORD) for name in names}
    for name in ("vote-ann", "vote-bo"):
        for task in given[name]:
            webs[name].annotate(task["id"], rating(code(task)))
    # the "+" tab: a second annotation on her own task, by her own account; in chromium on the first task, through
    # her logged-in session (the request the page sends) on the three others
    browser.delete_all_cookies()
    bo = Rater(browser, label_studio.url, tmp_path)
    bo.login(team["vote-bo"]["email"])
    plus_tab(bo, job_state.projects["vote-bo"], given["vote-bo"][0]["id"], code(given["vote-bo"][0]))
    for task in given["vote-bo"][1:]:
        webs["vote-bo"].annotate(task["id"], rating(code(task)))
    assert all(len(t["annotations"]) == 2 for t in export_tasks(conn, job_state.projects["vote-bo"]))

    out = tmp_path / "pulled"
    pulled = run("annotate", "pull", "cloze_verify", "--project", "one vote", "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    summary = json.loads((out / "pull.json").read_text())
    assert summary["duplicates"] == 4 and summary["quarantined"] == 4
    assert summary["assembly"] == {"kept": 0, "dropped": {"too_few_ratings": 2}}
    assert read_rows(out / "clozet" / "test.parquet") == []  # a case rated by two people is not kept
    reasons = [r["reason"] for r in read_rows(out / "quarantine.parquet")]
    assert len(reasons) == 4 and all(
        "a second answer by vote-bo" in r and "first submitted counts" in r for r in reasons
    )
    status = run("annotate", "status", "one vote")
    assert status.exit_code == 0, status.output
    assert "duplicates" in status.output

    for task in given["vote-cy"]:
        webs["vote-cy"].annotate(task["id"], rating(code(task)))
    again = run("annotate", "pull", "cloze_verify", "--project", "one vote", "--out", str(out))
    assert again.exit_code == 0, again.output
    summary = json.loads((out / "pull.json").read_text())
    assert summary["assembly"]["kept"] == 2 and len(read_rows(out / "clozet" / "test.parquet")) == 2
    agreement = json.loads((out / "agreement.json").read_text())["questions"]["rating"]
    alpha = agreement["krippendorff_alpha"]
    assert alpha["alpha"] == 1.0 and alpha["ci95"] == [1.0, 1.0] and agreement["fleiss_kappa"] == 1.0
    assert summary["deleted_annotations"] == []
    assert summary["agreement"]["rating"].startswith("Fleiss' kappa 1.0, alpha 1.0 (95% CI [1.0, 1.0])")

    gone = given["vote-ann"][0]
    [annotation] = [a for a in export_tasks(conn, job_state.projects["vote-ann"]) if a["id"] == gone["id"]][0][
        "annotations"
    ]
    conn.sdk.annotations.delete(annotation["id"])
    third = run("annotate", "pull", "cloze_verify", "--project", "one vote", "--out", str(out))
    assert third.exit_code == 0, third.output
    summary = json.loads((out / "pull.json").read_text())
    [named] = summary["deleted_annotations"]
    assert named["annotation_id"] == annotation["id"] and named["rater"] == team["vote-ann"]["email"]
    assert named["task_id"] == gone["id"] and named["last_seen"]
    assert summary["assembly"] == {"kept": 1, "dropped": {"too_few_ratings": 1}}
    assert f"annotation {annotation['id']} by vote-ann" in third.output
    status = run("annotate", "status", "one vote")
    assert status.exit_code == 0, status.output
    assert "deleted_annotations" in status.output and f'"annotation_id": {annotation["id"]}' in status.output
    assert "rater_accuracy" in status.output and "near_chance_raters" in status.output
