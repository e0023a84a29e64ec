"""The annotation loop against a real Label Studio server started here (127.0.0.1, free port, tmp data dir).

Annotators are Label Studio users; their answers are submitted through the API (`completed_by`).
The server and its fixtures are in labelstudio_support.py (shared through conftest.py).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from labelstudio_support import PASSWORD, annotate, choice, lotdata, read_rows, tasks_by_uid, text
from typer.testing import CliRunner

from lotdata.annotate import server as ls_server
from lotdata.annotate.checks import stray_punctuation
from lotdata.annotate.client import export_tasks, get_project
from lotdata.annotate.jobs import opaque_uid
from lotdata.cli import app

REPO = Path(__file__).resolve().parents[1]


def test_every_template_passes_label_studios_own_config_validator():
    script = (
        "import os, sys, pathlib, label_studio\n"
        "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'core.settings.label_studio')\n"
        "sys.path.insert(0, str(pathlib.Path(label_studio.__file__).parent))\n"
        "import django; django.setup()\n"
        "from label_studio.core.label_config import validate_label_config\n"
        "for path in sorted(pathlib.Path(sys.argv[1]).glob('*.xml')):\n"
        "    validate_label_config(path.read_text(encoding='utf-8')); print('valid', path.name)\n"
    )
    python = ls_server.label_studio_bin().parent / "python"
    env = {**os.environ, "LATEST_VERSION_CHECK": "false"}
    done = subprocess.run(
        [str(python), "-W", "ignore", "-c", script, str(REPO / "annotation_templates")],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (
        done.stdout.count("valid ") == len(list((REPO / "annotation_templates").glob("*.xml"))) == 13
    )  # 12 jobs + the quiz


# ---------------------------------------------------------------- story_filter


def test_story_filter_round_trip_with_disagreement_and_a_malformed_result(
    label_studio, conn, annotators, stories, tmp_path
):
    title = "filter stories"
    pushed = lotdata(
        label_studio,
        "annotate",
        "push",
        "story_filter",
        "--input",
        str(stories),
        "--project",
        title,
        "--raters",
        "2",
        "--limit",
        "4",
    )
    assert pushed.exit_code == 0, pushed.output
    tasks = list(tasks_by_uid(conn, title).values())
    assert len(tasks) == 4
    a1, a2 = annotators["ann1"], annotators["ann2"]
    accept, reject = (
        [choice("decision", "story", ["accept"])],
        [choice("decision", "story", ["reject"]), choice("reason", "story", ["no_main_plot"])],
    )
    annotate(conn, tasks[0], a1, accept)
    annotate(conn, tasks[0], a2, accept)
    annotate(conn, tasks[1], a1, reject)
    annotate(conn, tasks[1], a2, reject)
    # the appendix: a rewrite differs from the segment by at most 100 characters; ann1's two sentences break it: the
    # rewrite goes back to ann1 with the reason (revisions.jsonl), not to quarantine
    annotate(
        conn,
        tasks[2],
        a1,
        [choice("decision", "story", ["rewrite"]), text("rewritten", "story", "小熊早上出门。它在河边捡到一只鞋。")],
    )
    rewrite = tasks[2]["data"]["text"] + "最后小熊把鞋子送回了家。"
    for mark in stray_punctuation(rewrite, "zh"):  # the rewrite keeps to the appendix's punctuation, as raters are told
        rewrite = rewrite.replace(mark, "")
    annotate(conn, tasks[2], a2, [choice("decision", "story", ["rewrite"]), text("rewritten", "story", rewrite)])
    annotate(conn, tasks[3], a1, accept)
    annotate(conn, tasks[3], a2, [choice("decision", "story", ["maybe"])])  # Label Studio stores it all the same

    status = lotdata(label_studio, "annotate", "status", title)
    assert status.exit_code == 0, status.output
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in status.output.splitlines()
        if line.count("│") > 4
    }
    assert any(who.startswith("ann1@") and cells[0] == "4" for who, cells in rows.items()), (
        status.output
    )  # 4 annotations
    assert any(cells[-1] == "1" for cells in rows.values()), status.output  # one quarantined
    assert re.search(r"returned_to_rater\s*│\s*1", status.output), status.output  # one back to its rater

    out = tmp_path / "pulled"
    pulled = lotdata(label_studio, "annotate", "pull", "story_filter", "--project", title, "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    annotations = read_rows(out / "annotations.parquet")
    assert len(annotations) == 7 and {a["annotator"] for a in annotations} == {"ann1@lotdata.test", "ann2@lotdata.test"}
    assert all(a["uid"] and a["lead_time"] == 12.5 for a in annotations)
    [bad] = read_rows(out / "quarantine.parquet")
    assert "not among the choices" in bad["reason"] and "maybe" in bad["raw"]
    [too_short] = [json.loads(line) for line in (out / "revisions.jsonl").read_text().splitlines()]
    assert too_short["writer"] == "ann1@lotdata.test" and "at most 100" in too_short["feedback"]
    assert too_short["segment_id"] == tasks[2]["data"]["uid"] and too_short["version"] == 2
    assert bad["row"] not in {
        a["annotation_id"] for a in annotations
    }  # valid annotations only; the bad one quarantined
    project_id = get_project(conn, title).id
    assert (
        bad["path"] == f"{label_studio.url}/projects/{project_id}/data?task={tasks[3]['id']}"
    )  # a link to the task itself

    by_id = {s["story_id"]: s for s in read_rows(out / "stories.parquet")}
    statuses = [by_id[t["data"]["uid"]]["status"] for t in tasks]
    assert statuses == ["accepted", "rejected", "rewritten", "accepted"]
    rewritten = by_id[tasks[2]["data"]["uid"]]
    assert rewritten["text"] == rewrite and rewritten["sentences"][-1] == "最后小熊把鞋子送回了家。"
    history = read_rows(out / "story_decisions.parquet")
    assert len(history) == 7 and sum(h["final"] for h in history) == 4  # the returned rewrite kept, not final
    rewrite_rows = [h for h in history if h["story_id"] == tasks[2]["data"]["uid"]]
    assert {h["old_text"] for h in rewrite_rows} == {tasks[2]["data"]["text"]} and all(
        h["new_text"] for h in rewrite_rows
    )
    agreement = json.loads((out / "agreement.json").read_text())
    assert agreement["questions"]["decision"]["multi_rated"] == 3  # ann1 did decide "rewrite" on the third
    assert agreement["questions"]["decision"]["fleiss_kappa"] == pytest.approx(1.0)
    assert agreement["annotators"]["ann2@lotdata.test"]["quarantined"] == 1


# ---------------------------------------------------------------- clozet_write -> ClozeT + PlotCom, then cloze_verify


def test_clozet_write_then_cloze_verify_assemble_clozet_and_plotcom(label_studio, conn, annotators, stories, tmp_path):
    pushed = lotdata(
        label_studio,
        "annotate",
        "push",
        "clozet_write",
        "--input",
        str(stories),
        "--project",
        "write cloze",
        "--limit",
        "5",
    )
    assert pushed.exit_code == 0, pushed.output
    tasks = list(tasks_by_uid(conn, "write cloze").values())
    assert len(tasks) == 5 and all(t["predictions"] for t in tasks)  # the heuristic's sentence is pre-annotated
    for i, task in enumerate(tasks):
        if i == 4:
            annotate(conn, task, annotators["ann1"], [choice("decision", "story", ["reject"])])
            continue
        assert "sentences" not in task["data"]  # the story reaches the rater numbered, nothing more
        last = len(task["data"]["sentence_choices"])  # the last one offered: the story's last sentence (an ending case)
        sentence = next(
            line.split("] ", 1)[1] for line in task["data"]["numbered"].splitlines() if line.startswith(f"[{last}] ")
        )
        annotate(
            conn,
            task,
            annotators["ann1"],
            [
                choice("decision", "story", ["write"]),
                choice("mask_sentence", "story", [str(last)]),
                text("wrong_candidate", "story", "可是" + sentence.rstrip("。！？") + "，又飞上了月亮。"),
                choice("policy", "story", ["reaction_intention" if i % 2 else "physical_nature"]),
            ],
        )
    written = tmp_path / "written"
    pulled = lotdata(
        label_studio, "annotate", "pull", "clozet_write", "--project", "write cloze", "--out", str(written)
    )
    assert pulled.exit_code == 0, pulled.output
    clozet = [r for s in ("val", "test") for r in read_rows(written / "clozet" / f"{s}.parquet")]
    assert len(clozet) == 4 and not read_rows(written / "clozet" / "train.parquet")
    for split in ("val", "test"):
        labels = [r["label"] for r in clozet if r["split"] == split]
        assert abs(labels.count(0) - labels.count(1)) <= 1  # candidate order leaks nothing
    plotcom = {r["story_id"]: r for s in ("val", "test") for r in read_rows(written / "plotcom" / f"{s}.parquet")}
    for row in clozet:
        assert "可是" not in row["candidates"][row["label"]] and row["context"].endswith("<mask>")  # LOT's ending cases
        assert plotcom[row["story_id"]]["target"] == row["candidates"][row["label"]]
        assert row["annotator"] == "ann1@lotdata.test"
    assert (written / "clozet" / "lot" / "test.jsonl").exists()

    verify = lotdata(
        label_studio,
        "annotate",
        "push",
        "cloze_verify",
        "--input",
        str(written / "clozet"),
        "--project",
        "verify cloze",
    )
    assert verify.exit_code == 0, verify.output
    vtasks = tasks_by_uid(conn, "verify cloze")
    assert len(vtasks) == 8 and get_project(conn, "verify cloze").maximum_annotations == 3
    ids = sorted(r["example_id"] for r in clozet)
    # ann1 wrote the cases: her ratings would not count (issue 35); three other accounts verify them
    found = [u for u in conn.sdk.users.list() if u.username == "ann4"]
    ann4 = (
        found[0].id
        if found
        else conn.sdk.users.create(username="ann4", email="ann4@lotdata.test", password=PASSWORD).id
    )
    raters = [annotators["ann2"], annotators["ann3"], ann4]
    plan = {
        ids[0]: ([1, 1, 1], [0, 0, 0]),
        ids[1]: ([1, 1, 0], [0, 0, 0]),
        ids[2]: ([1, 1, 1], [0, 0, -1]),
        ids[3]: ([1, 1, 1], [0, 0, None]),
    }
    for example_id, (right, wrong) in plan.items():
        for role, values in (("right", right), ("wrong", wrong)):
            for user, value in zip(raters, values):
                task = vtasks[opaque_uid("verify", example_id, role)]
                assert set(task["data"]) == {
                    "uid",
                    "story",
                    "raters",
                }  # nothing tells the right ending from the wrong one
                annotate(
                    conn,
                    task,
                    user,
                    [] if value is None else [choice("rating", "story", [str(value)])],
                    skipped=value is None,
                )
    verified = tmp_path / "verified"
    pulled = lotdata(
        label_studio, "annotate", "pull", "cloze_verify", "--project", "verify cloze", "--out", str(verified)
    )
    assert pulled.exit_code == 0, pulled.output
    kept = [r for s in ("val", "test") for r in read_rows(verified / "clozet" / f"{s}.parquet")]
    assert [r["example_id"] for r in kept] == [ids[0]]
    assert [r["target"] for s in ("val", "test") for r in read_rows(verified / "plotcom" / f"{s}.parquet")] == [
        kept[0]["candidates"][kept[0]["label"]]
    ]
    summary = json.loads((verified / "pull.json").read_text())
    assert summary["skipped"] == 1 and summary["assembly"]["dropped"] == {
        "not_unanimous": 1,
        "cannot_judge": 1,
        "too_few_ratings": 1,
    }
    assert json.loads((verified / "agreement.json").read_text())["questions"]["rating"]["multi_rated"] == 8
    card = (verified / "clozet" / "README.md").read_text()
    assert "lotdata annotate push cloze_verify --input" in card and "| annotated items | not_unanimous | 1 |" in card

    # human performance (LOT 5.3) on the written ClozeT: the items without their labels, three raters, majority vote
    perf = lotdata(
        label_studio, "annotate", "push", "human_perf", "--input", str(written / "clozet"), "--project", "human perf"
    )
    assert perf.exit_code == 0, perf.output
    ptasks = tasks_by_uid(conn, "human perf")
    hidden = {
        uid: task["hidden"] for uid, task in ptasks.items()
    }  # kept in lotdata's state folder, not in Label Studio
    assert len(ptasks) == 4 and all("answer" in h for h in hidden.values())
    for uid, task in ptasks.items():
        assert "label" not in task["data"] and "answer" not in json.dumps(task["data"])
        for n, user in enumerate(raters):
            answer = hidden[uid]["answer"] if n < 2 or uid == min(ptasks) else 3 - hidden[uid]["answer"]
            annotate(conn, task, user, [choice("answer", "question", [str(answer)])])
    perf_out = tmp_path / "perf"
    pulled = lotdata(label_studio, "annotate", "pull", "human_perf", "--project", "human perf", "--out", str(perf_out))
    assert pulled.exit_code == 0, pulled.output
    report = json.loads((perf_out / "human_perf.json").read_text())
    assert (
        report["clozet"]["accuracy"] == 1.0 and report["clozet"]["n_items"] == 4 and report["clozet"]["n_raters"] == 3
    )
    assert report["clozet"]["fleiss_kappa"] < 1.0


# ---------------------------------------------------------------- senpos_refine


def test_senpos_refine_round_trip_and_repush_is_a_no_op(label_studio, conn, annotators, stories, tmp_path):
    senpos = tmp_path / "senpos"
    built = CliRunner().invoke(
        app,
        ["build", "senpos", "--stories", str(stories), "--out", str(senpos), "--split", "train=0.6,val=0.2,test=0.2"],
    )
    assert built.exit_code == 0, built.output
    held_out = [r for s in ("val", "test") for r in read_rows(senpos / f"{s}.parquet")]
    first = lotdata(
        label_studio, "annotate", "push", "senpos_refine", "--input", str(senpos), "--project", "refine senpos"
    )
    assert first.exit_code == 0, first.output
    again = lotdata(
        label_studio, "annotate", "push", "senpos_refine", "--input", str(senpos), "--project", "refine senpos"
    )
    assert again.exit_code == 0, again.output
    tasks = tasks_by_uid(conn, "refine senpos")
    assert (
        len(export_tasks(conn, get_project(conn, "refine senpos").id)) == len(tasks) == len(held_out) >= 4
    )  # val + test, once
    assert "already_there │ " + str(len(held_out)) in again.output

    rows = sorted(held_out, key=lambda r: r["example_id"])
    a1 = annotators["ann1"]
    confirm, several, rejected, revised = rows[:4]
    assert tasks[confirm["example_id"]]["predictions"]  # the automatic gap is pre-annotated
    annotate(
        conn,
        tasks[confirm["example_id"]],
        a1,
        [choice("gaps", "story", [str(confirm["label"])]), choice("verdict", "story", ["keep"])],
    )
    annotate(
        conn,
        tasks[several["example_id"]],
        a1,
        [choice("gaps", "story", ["1", str(several["n_candidates"])]), choice("verdict", "story", ["revise"])],
    )
    annotate(conn, tasks[rejected["example_id"]], a1, [choice("verdict", "story", ["reject"])])
    annotate(
        conn,
        tasks[revised["example_id"]],
        a1,
        [
            choice("gaps", "story", ["1"]),
            choice("verdict", "story", ["revise"]),
            text("revised_sentence", "story", "他想了想，决定先回家。"),
        ],
    )
    out = tmp_path / "refined"
    pulled = lotdata(label_studio, "annotate", "pull", "senpos_refine", "--project", "refine senpos", "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    refined = {r["example_id"]: r for s in ("val", "test") for r in read_rows(out / "senpos" / f"{s}.parquet")}
    assert set(refined) == {confirm["example_id"], revised["example_id"]}
    assert refined[confirm["example_id"]]["label"] == confirm["label"] and refined[confirm["example_id"]]["refined"]
    assert (
        refined[revised["example_id"]]["removed"] == "他想了想，决定先回家。"
        and refined[revised["example_id"]]["label"] == 1
    )
    assert refined[revised["example_id"]]["split"] == revised["split"]
    manifest = json.loads((out / "senpos" / "manifest.json").read_text())
    assert manifest["task"] == "senpos" and manifest["stats"]["dropped"] == {"rejected": 1, "several_gaps_fit": 1}


# ---------------------------------------------------------------- human_eval


def test_human_eval_gives_a_table12_summary(label_studio, conn, annotators, tmp_path):
    outputs = tmp_path / "outputs.jsonl"
    lines = [
        {
            "input_id": i,
            "input": f"输入{i}",
            "system": system,
            "output": f"第{i}个故事，第{k}种写法。",
            "task": "plotcom",
        }
        for i in range(3)
        for k, system in enumerate(("longlm", "gpt2", "mt5"))
    ]
    outputs.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    pushed = lotdata(
        label_studio,
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(outputs),
        "--project",
        "human eval",
        "--sample",
        "2",
        "--seed",
        "5",
    )
    assert pushed.exit_code == 0, pushed.output
    scores = {"longlm": (1, 1, 1), "gpt2": (1, 0, 0), "mt5": (0, 0, 0)}
    raw = export_tasks(
        conn, get_project(conn, "human eval").id
    )  # what any rater can see: no system, no telling uid or order
    assert not any(name in json.dumps(t["data"]) for t in raw for name in scores)  # which system wrote what stays here
    assert all(re.fullmatch("t[0-9a-f]{12}", t["data"]["uid"]) for t in raw)
    assert [t["data"]["uid"] for t in sorted(raw, key=lambda t: t["id"])] == sorted(
        t["data"]["uid"] for t in raw
    )  # imported in opaque order
    tasks = tasks_by_uid(conn, "human eval")
    assert len(tasks) == 2  # two inputs drawn, each one task with the three outputs side by side
    for uid, task in tasks.items():
        for n, name in enumerate(("ann1", "ann2", "ann3")):
            result = []
            for slot, system in task["hidden"]["slots"].items():
                gram, cohe, relat = scores[system]
                if name == "ann3":
                    relat = 1 - relat  # one rater disagrees on relatedness
                result += [
                    choice(f"grammaticality_{slot}", f"output_{slot}", [str(gram)]),
                    choice(f"coherence_{slot}", f"output_{slot}", [str(cohe)]),
                    choice(f"relatedness_{slot}", f"output_{slot}", [str(relat)]),
                ]
            annotate(conn, task, annotators[name], result)
    out = tmp_path / "eval"
    pulled = lotdata(label_studio, "annotate", "pull", "human_eval", "--project", "human eval", "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    summary = json.loads((out / "pull.json").read_text())["datasets"]["table12"]
    assert {k: summary["longlm"][k] for k in ("items", "grammaticality", "coherence", "relatedness")} == {
        "items": 2,
        "grammaticality": 1.0,
        "coherence": 1.0,
        "relatedness": 1.0,
    }
    assert {k: summary["gpt2"][k] for k in ("items", "grammaticality", "coherence", "relatedness")} == {
        "items": 2,
        "grammaticality": 1.0,
        "coherence": 0.0,
        "relatedness": 0.0,
    }
    assert summary["longlm"]["kappa_relatedness"] < summary["longlm"]["kappa_coherence"] == 1.0
    table = (out / "table12.md").read_text()
    assert "| gpt2 | 2 | 1.00 | 0.00 | 0.00 | " in table and "Sign test" in table
    assert len(read_rows(out / "human_eval.parquet")) == 6


# ---------------------------------------------------------------- a pull killed midway


def test_a_pull_killed_midway_and_run_again_loses_nothing(label_studio, conn, annotators, stories, tmp_path):
    title = "kill pull"
    assert (
        lotdata(
            label_studio,
            "annotate",
            "push",
            "story_filter",
            "--input",
            str(stories),
            "--project",
            title,
            "--limit",
            "8",
        ).exit_code
        == 0
    )
    tasks = list(tasks_by_uid(conn, title).values())
    for task in tasks[:6]:
        annotate(conn, task, annotators["ann1"], [choice("decision", "story", ["accept"])])
    out = tmp_path / "pulled"
    assert (
        lotdata(label_studio, "annotate", "pull", "story_filter", "--project", title, "--out", str(out)).exit_code == 0
    )
    for task in tasks[6:]:
        annotate(
            conn,
            task,
            annotators["ann2"],
            [choice("decision", "story", ["reject"]), choice("reason", "story", ["illogical"])],
        )

    env = {
        **os.environ,
        "LABEL_STUDIO_URL": label_studio.url,
        "LABEL_STUDIO_API_KEY": label_studio.api_key,
        "LOTDATA_ANNOTATE_STATE": str(label_studio.state_dir),
    }
    cmd = [
        sys.executable,
        "-m",
        "lotdata.cli",
        "annotate",
        "pull",
        "story_filter",
        "--project",
        title,
        "--out",
        str(out),
        "--page-size",
        "1",
    ]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        for line in proc.stderr:
            if line.startswith("page 3"):
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.wait(60)
    assert proc.returncode == -signal.SIGKILL
    assert len(read_rows(out / "annotations.parquet")) == 6  # the earlier pull is still whole
    assert not list(out.rglob("*.tmp"))

    again = lotdata(
        label_studio, "annotate", "pull", "story_filter", "--project", title, "--out", str(out), "--page-size", "3"
    )
    assert again.exit_code == 0, again.output
    annotations = read_rows(out / "annotations.parquet")
    assert len(annotations) == 8 and len({a["annotation_id"] for a in annotations}) == 8
    assert sorted(s["status"] for s in read_rows(out / "stories.parquet")) == ["accepted"] * 6 + ["rejected"] * 2


# ---------------------------------------------------------------- documented errors


def test_server_down_wrong_key_and_missing_project_give_clear_errors(label_studio, tmp_path):
    down = lotdata(label_studio, "annotate", "status", "anything", url=f"http://127.0.0.1:{ls_server.free_port()}")
    assert down.exit_code == 1 and "cannot reach Label Studio" in down.output
    wrong = lotdata(label_studio, "annotate", "status", "anything", key="0" * 40)
    assert wrong.exit_code == 1 and "refused the API key" in wrong.output and "0" * 40 not in wrong.output
    missing = lotdata(
        label_studio, "annotate", "pull", "story_filter", "--project", "no such project", "--out", str(tmp_path)
    )
    assert missing.exit_code == 1 and "no project titled 'no such project'" in missing.output
    unknown = lotdata(label_studio, "annotate", "pull", "nope", "--project", "x", "--out", str(tmp_path))
    assert unknown.exit_code == 1 and "unknown annotation job" in unknown.output
    no_url = CliRunner().invoke(
        app, ["annotate", "status", "x"], env={"LABEL_STUDIO_URL": "", "LABEL_STUDIO_API_KEY": ""}
    )
    assert no_url.exit_code == 1 and "LABEL_STUDIO_URL" in no_url.output


def test_a_recipe_pushes_to_the_server_named_by_the_environment(label_studio, conn, tmp_path):
    """Issue 18: `[[annotate]]` is a recipe step; the server and key come from the environment; a re-run
    imports nothing twice."""
    title = "recipe push"
    recipe = tmp_path / "push.toml"
    recipe.write_text(
        f'[read]\ninputs = ["lotdata:sample"]\n\n[[annotate]]\njob = "story_filter"\nproject = "{title}"\nlimit = 5\n',
        encoding="utf-8",
    )
    first = lotdata(label_studio, "run", str(recipe), "--out", str(tmp_path / "out"))
    assert first.exit_code == 0, first.output
    assert len(tasks_by_uid(conn, title)) == 5
    again = lotdata(label_studio, "run", str(recipe), "--out", str(tmp_path / "out"))
    assert again.exit_code == 0, again.output
    assert len(tasks_by_uid(conn, title)) == 5 and "skipped (done)" in again.output


def test_a_pull_without_the_hidden_values_stops_with_a_clear_error(label_studio, conn, annotators, stories, tmp_path):
    assert (
        lotdata(
            label_studio,
            "annotate",
            "push",
            "story_filter",
            "--input",
            str(stories),
            "--project",
            "elsewhere",
            "--limit",
            "1",
        ).exit_code
        == 0
    )
    env = {
        "LABEL_STUDIO_URL": label_studio.url,
        "LABEL_STUDIO_API_KEY": label_studio.api_key,
        "COLUMNS": "200",
        "LOTDATA_ANNOTATE_STATE": str(tmp_path / "another-machine"),
    }
    result = CliRunner().invoke(
        app, ["annotate", "pull", "story_filter", "--project", "elsewhere", "--out", str(tmp_path / "out")], env=env
    )
    assert result.exit_code == 1 and "no hidden task values for project 'elsewhere'" in result.output
    assert not (tmp_path / "out" / "stories.parquet").exists()
