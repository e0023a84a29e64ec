"""The automatic checks of crowd submissions (ROCStories §3.1, §4.2): named rules on planted bad submissions in
both languages, on the 5,000 real ROCStories, the sentence splitter's hard cases, and `lotdata annotate check`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lotdata.annotate.checks import (
    ENDING_RULES,
    STORY_RULES,
    CheckOptions,
    read_submissions,
    run_checks,
    split_submission_en,
)

FIXTURES = Path(__file__).parent / "fixtures" / "submissions"
PLANTED = [
    ("planted_en", STORY_RULES, "en"),
    ("planted_zh", STORY_RULES, "zh"),
    ("planted_endings_en", ENDING_RULES, "en"),
    ("planted_endings_zh", ENDING_RULES, "zh"),
]


def _expected(path: Path) -> dict[str, str | None]:
    return {
        json.loads(line)["id"]: json.loads(line)["expect"] for line in path.read_text(encoding="utf-8").splitlines()
    }


@pytest.mark.parametrize("name,rules,lang", PLANTED)
def test_planted_bad_submissions_are_refused_with_their_rule(name, rules, lang):
    path = FIXTURES / f"{name}.jsonl"
    expected = _expected(path)
    result = run_checks(read_submissions(path), rules, CheckOptions(lang=lang))
    flagged: dict[str, set[str]] = {}
    for flag in result.flags:
        flagged.setdefault(flag["id"], set()).add(flag["rule"])
    bad = {i: rule for i, rule in expected.items() if rule}
    caught = [i for i, rule in bad.items() if rule in flagged.get(i, set())]
    assert len(caught) / len(bad) >= 0.95, {i: flagged.get(i) for i in bad if i not in caught}
    good = [i for i, rule in expected.items() if rule is None]
    assert good and not [i for i in good if i in flagged], {i: flagged[i] for i in good if i in flagged}
    # every rule of the job has planted cases
    assert set(rules) <= set(bad.values())


def test_every_flag_names_its_rule_and_a_detail():
    result = run_checks(read_submissions(FIXTURES / "planted_en.jsonl"), STORY_RULES, CheckOptions(lang="en"))
    assert result.flags and all(f["rule"] in STORY_RULES and f["detail"] for f in result.flags)
    detail = {f["id"]: f["detail"] for f in result.flags if f["rule"] == "sentence_length"}
    assert detail["long1"].startswith("sentence 1: 94 characters")


@pytest.mark.parametrize(
    "text,count",
    [
        ("Mr. Smith went to Washington. He met the president.", 2),
        ("She moved to the U.S. in 1990. It was cold.", 2),
        ("He lived in the U.S. He loved it there.", 2),
        ("The tank held 3.5 liters of water. It was full.", 2),
        ('He said "Stop. Go home." Then he left.', 2),
        ("J. K. Rowling wrote a book. It sold well.", 2),
        ("It was late. she went home.", 2),
    ],
)
def test_english_splitter_hard_cases(text, count):
    assert len(split_submission_en(text)) == count


def test_chinese_punctuation_and_quotes_split():
    rows = [{"id": "a", "text": "他说：“你好！今天真好。”她笑了。天黑了！他们回家了？大家都睡了。"}]
    assert not run_checks(rows, ["five_sentences"], CheckOptions(lang="zh")).flags


def test_real_rocstories_never_falsely_flagged_for_five_sentences(shared_data):
    """The 5,000 real ROCStories were written under these rules: the five-sentence rule flags almost none of them
    (each has five sentences; a missing full stop is flagged as such, by end_punctuation, with the place). Three
    whose missing stop shows only by a weak sign in short sentences are flagged by both rules: the price of catching
    a dropped sentence in a story that names its hero mid-sentence (issue 34, bench/check_rules.md)."""
    path = shared_data / "rocstories_diffusionlm_valid5k" / "datasets" / "ROCstory" / "roc_valid.json"
    rows = read_submissions(path)
    assert len(rows) == 5000
    result = run_checks(rows, STORY_RULES, CheckOptions(lang="en"))
    assert result.counts["five_sentences"] <= 3
    end = {f["id"] for f in result.flags if f["rule"] == "end_punctuation"}
    assert {f["id"] for f in result.flags if f["rule"] == "five_sentences"} <= end
    assert result.counts["language"] == 0
    assert result.skipped == {"title": "no 'title' field in the input"}
    by_id = {r["id"]: r for r in rows}
    for flag in result.flags:  # spot the kinds: each names a real property of its story
        text = by_id[flag["id"]]["text"]
        if flag["rule"] == "informal":
            assert "gonna" in text.lower()
        if flag["rule"] == "no_quotations":
            assert any(q in text for q in "\"'“”")
        if flag["rule"] == "end_punctuation" and "before" in flag["detail"]:
            word = flag["detail"].split("'")[1] if "'" in flag["detail"] else flag["detail"].split('"')[1]
            assert re.search(rf"[A-Za-z0-9,] {re.escape(word)}", text), (flag, text)


def test_near_duplicate_of_a_given_corpus():
    rows = [
        {
            "id": "new",
            "sentences": [
                "Tom could not find his car keys before work.",
                "He searched the couch and his coat.",
                "His daughter asked about the front door.",
                "The keys were in the lock outside.",
                "Tom laughed about it.",
            ],
        }
    ]
    corpus = [
        "Tom could not find his car keys before work. He searched the couch and his coat. His daughter asked "
        "about the front door. The keys were in the lock outside. Tom laughed about it a lot."
    ]
    found = run_checks(rows, ["near_duplicate"], CheckOptions(corpus=corpus, corpus_ids=["roc-17"]))
    assert [f["detail"].split(" (")[0] for f in found.flags] == ["near copy of roc-17 in the corpus"]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


GOOD = [
    "Kim baked bread for the first time.",
    "She followed her grandmother's recipe.",
    "The dough did not rise at all.",
    "She called her grandmother for advice.",
    "The next loaf came out soft and warm.",
]


def test_annotate_check_cli_writes_flags_and_counts(tmp_path):
    from typer.testing import CliRunner

    from lotdata.cli import app

    rows = [
        {"id": "good", "title": "Bread", "sentences": GOOD},
        {"id": "six", "title": "Bread", "text": " ".join(GOOD) + " She ate it all."},
        {"id": "untitled", "title": "", "sentences": GOOD[::-1]},
        {
            "id": "chinese",
            "title": "面包",
            "sentences": [
                "小美第一次学做面包。",
                "她照着外婆的方子做。",
                "面团没有发起来。",
                "她打电话问外婆。",
                "第二次做出来的面包很香。",
            ],
        },
    ]
    src = _write_jsonl(tmp_path / "subs.jsonl", rows)
    result = CliRunner().invoke(
        app, ["annotate", "check", "story_write", "--input", str(src), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 5, result.output  # flagged submissions: README's exit code 5, each named by file and row
    assert f"{src} row 2 (id six): five_sentences: 6 sentences, expected 5" in result.output
    assert "row 3 (id untitled): title: no title" in result.output and "row 4 (id chinese): language" in result.output
    flags = pq.read_table(tmp_path / "out" / "flags.parquet").to_pylist()
    assert {(f["id"], f["rule"]) for f in flags} >= {
        ("six", "five_sentences"),
        ("untitled", "title"),
        ("chinese", "language"),
    }
    assert "good" not in {f["id"] for f in flags}
    summary = json.loads((tmp_path / "out" / "check.json").read_text())
    assert summary["submissions"] == 4 and summary["per_rule"]["five_sentences"] == 1
    clean = _write_jsonl(tmp_path / "good.jsonl", rows[:1])
    ok = CliRunner().invoke(
        app, ["annotate", "check", "story_write", "--input", str(clean), "--out", str(tmp_path / "ok")]
    )
    assert ok.exit_code == 0, ok.output


def test_annotate_check_bad_input(tmp_path):
    from typer.testing import CliRunner

    from lotdata.cli import app

    runner = CliRunner()
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": 1, "sentences": ["a."]}\n{not json\n', encoding="utf-8")
    result = runner.invoke(
        app, ["annotate", "check", "story_write", "--input", str(broken), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 3 and "broken.jsonl" in result.output and "row 2" in result.output
    no_story = _write_jsonl(tmp_path / "nostory.jsonl", [{"id": "x", "title": "t"}])
    result = runner.invoke(
        app, ["annotate", "check", "story_write", "--input", str(no_story), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 3 and "row 1" in result.output
    result = runner.invoke(
        app, ["annotate", "check", "cloze_verify", "--input", str(no_story), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1 and "declares no automatic checks" in result.output and "story_write" in result.output
    result = runner.invoke(
        app,
        ["annotate", "check", "story_write", "--input", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")],
    )
    assert result.exit_code == 1 and "missing.jsonl" in result.output


def test_a_slot_answered_by_several_gated_writers_holds_one_story_each():
    """With a quiz gate each writer has a project of their own with the same slots: writer A's slot 1 and writer B's
    slot 1 are two stories (they were merged into one story's 'versions', and review kept only the last)."""
    from lotdata.annotate.jobs.base import Annotation
    from lotdata.annotate.jobs.story_write import slots, submission_rows, to_tasks

    def written(annotator: str, annotation_id: int, hidden: dict | None = None) -> Annotation:
        return Annotation(
            uid="write-slot1",
            data={},
            annotator=annotator,
            annotation_id=annotation_id,
            created_at=f"2026-01-01T00:00:0{annotation_id}",
            values={"title": "Bread", "sentences": GOOD},
            hidden=hidden or {"thread": "write-slot1", "version": 1, "writer": None, "lang": "en"},
        )  # as pushed

    rows = submission_rows([written("ann@x", 1), written("bob@x", 2)])
    pushed = to_tasks(slots(1))[0]["hidden"]  # the hidden values above are a pushed slot's: its own thread, no writer
    assert (
        pushed["thread"] == to_tasks(slots(1))[0]["data"]["uid"] and pushed["writer"] is None and pushed["version"] == 1
    )
    assert len({r["story"] for r in rows}) == 2 and len({r["submission_id"] for r in rows}) == 2
    assert [r["story"] for r in submission_rows([written("ann@x", 1)])] == ["write-slot1"]  # one writer: as before
    revision = written("bob@x", 3, {"lang": "en", "thread": rows[1]["story"], "version": 2, "writer": "bob@x"})
    again = submission_rows([written("ann@x", 1), written("bob@x", 2), revision])
    assert [(r["story"], r["version"]) for r in again if r["writer"] == "bob@x"] == [
        (rows[1]["story"], 1),
        (rows[1]["story"], 2),
    ]


SHARED = [
    # (four sentences, ending, shares a character): a pronoun stands for someone of its kind, a role for itself
    ("I made a resolution to quit my job. I quit my job.", "I'm now free to pursue a career.", True),
    ("Brad and Allison love country music. He invited her.", "They both had a good time at the concert.", True),
    ("Greg was bored. He wanted his friends. His friends came over.", "They played ball all afternoon.", True),
    ("There was a man from Kentucky. He moved to be with his love.", "The man moved to Kentucky.", True),
    ("The employee convinced me to buy a warranty.", "The employee was later found dead.", True),
    ("Bindu planned a party. One of Bindu's friends brought samosas.", "Everyone had a great time.", True),
    ("Vince was craving something sweet. Vince drove to Yogurtland.", "He shared it with a girl he met.", True),
    ("Tim was nervous. He called a taxi.", "The weather in Paris was rainy.", False),
    ("Karen wanted to surprise her husband. She hid the guitar.", "The guitar was played all night.", False),
    ("Josh played basketball every day. Someone challenged him.", "John ran away screaming.", False),
    ("Tim was nervous. He called a taxi.", "They laughed at the weather.", False),  # one person: no 'they'
    ("Tim was nervous. He called a taxi.", "We laughed at the weather.", False),  # no narrator
]


@pytest.mark.parametrize("context, ending, shared", SHARED)
def test_shared_character_in_english(context, ending, shared):
    row = {"id": "x", "context": context.split(". "), "right_ending": ending, "wrong_ending": ending}
    result = run_checks([row], ["shared_character"], CheckOptions(lang="en"))
    assert (not result.flags) == shared, result.flags
