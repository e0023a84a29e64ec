"""`annotate push story_filter --model MODEL --order uncertainty` on a real Label Studio OSS server (issue 39, item 1):
each task carries the quality model's guess with a score and a model_version in words, the project samples by
uncertainty, and the next-task endpoint serves a rater the task with the lowest score first, then the next lowest.
No prediction is ever put on cloze_verify."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from labelstudio_support import PASSWORD, RaterWeb, lotdata
from test_annotate_browser import PASSWORD as BROWSER_PASSWORD
from test_annotate_browser import Rater, browser  # noqa: F401  (the module's chromium, its login)
from typer.testing import CliRunner

from lotdata.annotate.client import export_tasks, get_project
from lotdata.annotate.suggest import MODEL_VERSION, UNCERTAINTY
from lotdata.annotate.team import add_raters
from lotdata.cli import app
from lotdata.io import write_parquet
from lotdata.quality.commands import decision_rows
from lotdata.schema import STORIES, table_from_rows
from lotdata.sources.story import make_story_row

pytest.importorskip("sklearn")

STORY = "Tom found a lost puppy in the rain. He carried it home and dried it. The puppy slept on his bed."
MINUTES = "The committee reviewed the quarterly budget figures. The revised tax schedule was approved in session."


def _stories(path: Path) -> Path:
    """Stories from clearly a story to clearly minutes of a meeting: the model is unsure of the ones in between."""
    s, m = STORY.split(". "), MINUTES.split(". ")
    texts = [
        STORY + " The next day they played in the park.",
        STORY + " " + m[0] + ".",
        s[0] + ". " + MINUTES,
        MINUTES + " The chairman thanked the members for their attendance.",
        s[0] + ". " + s[1] + ". " + m[0] + ". " + m[1],
    ]
    rows = [make_story_row(t, source="test", lang="en") for t in texts]
    return write_parquet(table_from_rows(rows, STORIES), path)


def test_a_prediction_is_never_put_on_a_judging_job(tmp_path: Path):
    result = CliRunner().invoke(
        app,
        ["annotate", "push", "cloze_verify", "--input", str(tmp_path), "--project", "x", "--model", str(tmp_path)],
    )
    assert result.exit_code != 0 and "bias" in result.output


def test_uncertainty_order_needs_a_model(tmp_path: Path):
    result = CliRunner().invoke(
        app, ["annotate", "push", "story_filter", "--input", str(tmp_path), "--project", "x", "--order", "uncertainty"]
    )
    assert result.exit_code != 0 and "--model" in result.output


def test_the_next_task_served_is_the_one_the_model_is_least_sure_of(label_studio, conn, tmp_path: Path):
    decisions = write_parquet(pa.Table.from_pylist(decision_rows(40)), tmp_path / "decisions.parquet")
    assert (
        CliRunner().invoke(app, ["quality", "train", str(decisions), "--out", str(tmp_path / "model")]).exit_code == 0
    )
    stories = _stories(tmp_path / "stories.parquet")
    title = "uncertainty order"
    state = tmp_path / "state"
    team = {e["rater"]: e for e in add_raters(conn, ["unsure-ann"], state=state, password=lambda: PASSWORD)}
    result = lotdata(
        label_studio,
        *("annotate", "push", "story_filter", "--input", str(stories), "--project", title, "--lang", "en"),
        *("--model", str(tmp_path / "model"), "--order", "uncertainty", "--state-dir", str(state)),
    )
    assert result.exit_code == 0, result.output
    project = get_project(conn, title)
    assert project.sampling == UNCERTAINTY and project.model_version == MODEL_VERSION["en"]
    tasks = export_tasks(conn, project.id)
    predictions = {t["id"]: list(conn.sdk.predictions.list(task=t["id"])) for t in tasks}
    assert all(len(p) == 1 for p in predictions.values())
    scores = {task_id: p[0].score for task_id, p in predictions.items()}
    assert len(scores) == len(tasks) >= 3 and len(set(scores.values())) == len(scores)
    for (prediction,) in predictions.values():  # the guess is one of the screen's choices, and says what it is
        assert prediction.model_version == MODEL_VERSION["en"]
        assert prediction.result[0]["value"]["choices"][0] in ("accept", "reject")
    # the project's members: the rater must be in the project to be served (OSS: every account is)
    rater = RaterWeb(label_studio.url, team["unsure-ann"]["email"], PASSWORD)
    served = []
    for _ in range(2):
        answer = rater.web.get(f"{label_studio.url}/api/projects/{project.id}/next")
        assert answer.status_code == 200, answer.text[:300]
        task = answer.json()
        served.append(task["id"])
        rater.annotate(
            task["id"],
            [{"from_name": "decision", "to_name": "story", "type": "choices", "value": {"choices": ["accept"]}}],
        )
    ranked = sorted(scores, key=scores.get)
    assert served == ranked[:2], json.dumps({"served": served, "scores": scores})


def test_a_rater_sees_the_guess_preselected_and_what_it_is(label_studio, conn, browser, tmp_path: Path):  # noqa: F811
    """In a real browser: the story_filter task opens with the model's guess ticked, and the page says it is a guess of
    a model (its model_version in words). Screenshots in the test's tmp dir."""
    from selenium.webdriver.common.by import By

    decisions = write_parquet(pa.Table.from_pylist(decision_rows(40)), tmp_path / "decisions.parquet")
    assert (
        CliRunner().invoke(app, ["quality", "train", str(decisions), "--out", str(tmp_path / "model")]).exit_code == 0
    )
    state = tmp_path / "state"
    team = {e["rater"]: e for e in add_raters(conn, ["guess-bea"], state=state, password=lambda: BROWSER_PASSWORD)}
    title = "guess on screen"
    result = lotdata(
        label_studio,
        *("annotate", "push", "story_filter", "--input", str(_stories(tmp_path / "s.parquet")), "--project", title),
        *("--lang", "en", "--model", str(tmp_path / "model"), "--order", "uncertainty", "--state-dir", str(state)),
    )
    assert result.exit_code == 0, result.output
    project = get_project(conn, title)
    task = sorted(export_tasks(conn, project.id), key=lambda t: t["id"])[0]
    (prediction,) = conn.sdk.predictions.list(task=task["id"])
    guess = prediction.result[0]["value"]["choices"][0]
    shots = tmp_path / "shots"
    shots.mkdir()
    rater = Rater(browser, label_studio.url, shots)
    rater.login(team["guess-bea"]["email"])
    rater.open_task(project.id, task["id"], "story_filter-guess")
    ticked = [
        i.get_attribute("value") or i.get_attribute("name")
        for i in browser.find_elements(By.CSS_SELECTOR, "input[type=radio], input[type=checkbox]")
        if i.is_selected()
    ]
    page = browser.page_source
    assert ticked, f"no choice is pre-selected; see {shots}"
    assert any(guess.lower() in (t or "").lower() for t in ticked) or guess.capitalize() in page, ticked
    assert MODEL_VERSION["en"] in page, f"the prediction's tab names it; see {shots}"
