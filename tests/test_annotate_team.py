"""Team use against the real Label Studio server: rater accounts, one project per rater, gold tasks and flagged raters.

Each test keeps its own state folder, so its team does not turn other tests' pushes into per-rater ones.
"""

from __future__ import annotations

import json
import re

from labelstudio_support import RaterWeb, choice, lotdata, read_rows

from lotdata.annotate.client import export_tasks, find_project, get_project
from lotdata.annotate.state import JobState, Team

ASPECTS = ("grammaticality", "coherence", "relatedness")
SLOTS = ("A", "B", "C")
SYSTEMS = ("longlm", "gpt2", "mt5")


def scores(per_slot):
    """human_eval's answer: {slot: (grammaticality, coherence, relatedness)} -> the nine choices."""
    return [
        choice(f"{a}_{slot}", f"output_{slot}", [str(v)])
        for slot, values in per_slot.items()
        for a, v in zip(ASPECTS, values)
    ]


def every_slot(values):
    return scores({slot: values for slot in SLOTS})


def outputs_file(path):
    lines = [
        {"input_id": i, "input": f"开头{i}", "system": s, "output": f"开头{i}之后的第{k}种续写。", "task": "plotcom"}
        for i in range(2)
        for k, s in enumerate(SYSTEMS)
    ]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def gold_file(path):
    lines = [
        {
            "data": {"input": f"金标开头{i}", **{f"output_{slot}": "的的的了了了吗吗吗。" for slot in SLOTS}},
            "answer": {f"{a}_{slot}": 0 for a in ASPECTS for slot in SLOTS},
        }
        for i in range(2)
    ]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    return path


def test_raters_get_their_own_projects_gold_flags_a_careless_rater_and_status_counts_per_rater(
    label_studio, conn, tmp_path
):
    state = tmp_path / "state"
    run = lambda *args: lotdata(label_studio, *args, "--state-dir", str(state))  # noqa: E731

    added = run("annotate", "raters", "add", "alice", "bob", "carol")
    assert added.exit_code == 0, added.output
    assert "alice@raters.lotdata.local" in added.output and added.output.count("password") == 3
    passwords = dict(re.findall(r"rater (\w+).*?password\s*│\s*(\S+)", added.output, re.DOTALL))
    assert (
        run("annotate", "raters", "add", "alice").output.count("password") == 0
    )  # no second password for a known rater
    team = Team.load(state, label_studio.url).raters
    assert sorted(team) == ["alice", "bob", "carol"]
    bad_name = run("annotate", "raters", "add", "a b")
    assert bad_name.exit_code == 1 and "rater name 'a b'" in bad_name.output

    title = "eval team"
    pushed = run(
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(outputs_file(tmp_path / "outputs.jsonl")),
        "--project",
        title,
        "--gold",
        str(gold_file(tmp_path / "gold.jsonl")),
    )
    assert pushed.exit_code == 0, pushed.output
    assert find_project(conn, title) is None  # no shared project: one per rater
    projects = {name: get_project(conn, f"{title} · {name}") for name in team}
    job_state = JobState.find(state, title, label_studio.url)
    seen_columns = set()
    for name, project in projects.items():
        assert project.maximum_annotations == 1
        tasks = export_tasks(conn, project.id)
        assert len(tasks) == 4  # 2 inputs (three outputs side by side each) + 2 gold tasks
        for task in tasks:
            assert re.fullmatch("t[0-9a-f]{12}", task["data"]["uid"])
            assert not any(s in json.dumps(task["data"]) for s in SYSTEMS)
            seen_columns.add(frozenset(task["data"]))
    assert seen_columns == {
        frozenset({"uid", "input", "output_A", "output_B", "output_C", "raters"})
    }  # gold tasks look like the others
    assert sum(t["gold"] is not None for t in job_state.tasks.values()) == 2

    pair = run(
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(tmp_path / "outputs.jsonl"),
        "--project",
        "eval pair",
        "--raters",
        "2",
        "--assign",
        "alice,bob",
    )
    assert pair.exit_code == 0, pair.output
    assert find_project(conn, "eval pair · bob") and find_project(conn, "eval pair · carol") is None
    stranger = run(
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(tmp_path / "outputs.jsonl"),
        "--project",
        "eval x",
        "--assign",
        "zed",
    )
    assert stranger.exit_code == 1 and "--assign names ['zed'], not in the team" in stranger.output

    late = run(
        "annotate", "raters", "add", "dave"
    )  # a rater who joins after the push gets the job too (not an assigned one)
    assert late.exit_code == 0 and f"{title} · dave" in late.output
    assert len(export_tasks(conn, get_project(conn, f"{title} · dave").id)) == 4
    assert find_project(conn, "eval pair · dave") is None
    listed = run("annotate", "raters", "list")
    assert listed.exit_code == 0 and "rater dave" in listed.output and f"{title} · dave" in listed.output
    assert "eval pair · alice" in listed.output and "password" not in listed.output

    def rate(name, decide):  # each rater answers as themselves (an answer the admin made for them would be quarantined)
        web = RaterWeb(label_studio.url, team[name].email, passwords[name])
        for task in export_tasks(conn, projects[name].id):
            secret = job_state.tasks[task["data"]["uid"]]
            result = decide(secret)
            if result is not None:
                web.annotate(task["id"], result)

    good = {"longlm": (1, 1, 1), "gpt2": (1, 0, 0), "mt5": (0, 0, 0)}

    def honest(secret):
        if secret["gold"]:
            return every_slot((0, 0, 0))
        return scores({slot: good[system] for slot, system in secret["hidden"]["slots"].items()})

    rate("alice", honest)
    broken = []

    def bob(secret):  # one answer off the template: quarantined, with a link to the task in bob's project
        if not broken and not secret["gold"]:
            broken.append(secret["uid"])
            return [choice("grammaticality_A", "output_A", ["2"])] + every_slot((1, 1, 1))[1:]
        return honest(secret)

    rate("bob", bob)
    rate("carol", lambda s: every_slot((1, 1, 1)))  # careless: says good to everything, gold included

    status = run("annotate", "status", title)
    assert status.exit_code == 0, status.output
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:6]]
        for line in status.output.splitlines()
        if line.count("│") > 4
    }
    assert rows["bob"] == ["4", "3", "0", "1"]  # tasks, done, skipped, quarantined
    assert rows["dave"] == ["4", "0", "0", "0"]  # not started

    out = tmp_path / "pulled"
    pulled = run("annotate", "pull", "human_eval", "--project", title, "--out", str(out))
    assert pulled.exit_code == 0, pulled.output
    gold = json.loads((out / "gold.json").read_text())
    carol = team["carol"].email
    assert gold["flagged"] == [carol] and gold["raters"][carol] == {
        "answered": 2,
        "correct": 0,
        "accuracy": 0.0,
        "flagged": True,
    }
    assert gold["raters"][team["alice"].email]["accuracy"] == 1.0 and gold["min_accuracy"] == 0.8
    rows = read_rows(out / "annotations.parquet")
    assert len(rows) == 11 and sum(r["gold"] for r in rows) == 6  # 12 answers, 1 quarantined
    [bad] = read_rows(out / "quarantine.parquet")
    assert re.fullmatch(rf"{label_studio.url}/projects/{projects['bob'].id}/data\?task=\d+", bad["path"])
    items = {(r["input_id"], r["system"]): r for r in read_rows(out / "human_eval.parquet")}
    assert len(items) == 6 and {r["system"] for r in items.values()} == set(SYSTEMS)  # gold tasks are never assembled
    assert sorted(r["raters"] for r in items.values()) == [
        2,
        2,
        2,
        3,
        3,
        3,
    ]  # bob's broken answer covered one input's three outputs
    assert all(
        (r["grammaticality"], r["coherence"], r["relatedness"]) == good[r["system"]]
        for r in items.values()
        if r["raters"] == 3
    )
    assert json.loads((out / "pull.json").read_text())["flagged_raters"] == [carol]

    dropped = tmp_path / "dropped"
    again = run("annotate", "pull", "human_eval", "--project", title, "--out", str(dropped), "--drop-flagged")
    assert again.exit_code == 0, again.output
    items = read_rows(dropped / "human_eval.parquet")
    assert sorted(r["raters"] for r in items) == [1, 1, 1, 2, 2, 2]
    assert (
        json.loads((dropped / "agreement.json").read_text())["annotators"][carol]["agrees_with_majority"] is None
    )  # out of the votes
    assert json.loads((dropped / "pull.json").read_text())["dropped_flagged"] == 2
    lenient = run(
        "annotate",
        "pull",
        "human_eval",
        "--project",
        title,
        "--out",
        str(tmp_path / "lenient"),
        "--min-gold-accuracy",
        "0",
    )
    assert lenient.exit_code == 0, lenient.output
    assert json.loads((tmp_path / "lenient" / "gold.json").read_text())["flagged"] == []


def test_a_gold_file_that_would_mark_its_tasks_or_is_not_json_is_refused(label_studio, tmp_path):
    outputs = outputs_file(tmp_path / "outputs.jsonl")
    marked = tmp_path / "marked.jsonl"
    marked.write_text(
        json.dumps({"data": {"input": "x", "output_A": "y", "is_gold": True}, "answer": {"coherence_A": 0}}) + "\n"
    )
    refused = lotdata(
        label_studio,
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(outputs),
        "--project",
        "gold refused",
        "--gold",
        str(marked),
        "--state-dir",
        str(tmp_path / "state"),
    )
    assert refused.exit_code == 3 and "marked.jsonl, row 1" in refused.output and "is_gold" in refused.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"data": {}, "answer": {"coherence_A": 0}}\n{oops\n')
    refused = lotdata(
        label_studio,
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(outputs),
        "--project",
        "gold refused",
        "--gold",
        str(broken),
        "--state-dir",
        str(tmp_path / "state"),
    )
    assert refused.exit_code == 3 and "broken.jsonl, row 2: not JSON" in refused.output
    missing = lotdata(
        label_studio,
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(outputs),
        "--project",
        "gold refused",
        "--gold",
        str(tmp_path / "nope.jsonl"),
        "--state-dir",
        str(tmp_path / "state"),
    )
    assert missing.exit_code == 1 and "gold file not found" in missing.output

    shared = lotdata(
        label_studio,
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(outputs),
        "--project",
        "eval shared",
        "--raters",
        "1",
        "--state-dir",
        str(tmp_path / "state"),
    )
    assert shared.exit_code == 0, shared.output
    elsewhere = lotdata(
        label_studio,
        "annotate",
        "push",
        "human_eval",
        "--input",
        str(outputs),
        "--project",
        "eval shared",
        "--raters",
        "1",
        "--state-dir",
        str(tmp_path / "lost"),
    )  # its state lost: it would import every row twice
    assert elsewhere.exit_code == 1 and "exists but" in elsewhere.output and "has no state for it" in elsewhere.output
