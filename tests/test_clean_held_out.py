"""`lotdata clean --hold-out`: the stories behind a test set's val/test cases leave the training corpus (ROCStories
4.2), by story id and by MinHash near copy, counted in the manifest; without the option nothing changes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
from helpers import write_stories
from typer.testing import CliRunner

from lotdata.cli import app

STORIES = [
    "Maria signed up to bake cookies for the school sale. She stayed up late mixing dough. The first tray came out burnt. She baked a second tray with a timer on. The cookies sold out before noon.",
    "Tom could not find his car keys before work. He searched the couch and his coat. His daughter asked about the front door. The keys were still hanging in the lock outside. Tom laughed and promised to be careful.",
    "Ann planted tomatoes in the spring. She watered them every morning. A rabbit ate some of the leaves. Ann built a small fence around the bed. She picked red tomatoes in August.",
    "Ben built a snowman with his sister after school. They gave it a carrot nose and a scarf. Their mother made hot chocolate for them. They watched a movie by the fire. Ben hoped it would snow again.",
    "Lily needed new shoes for running. She went to the mall with her dad. They found a light blue pair on sale. She ran her fastest mile that weekend. Lily thanked her dad for the shoes.",
]


def _sentences(text: str) -> list[str]:
    return [s.strip() + "." for s in text.split(".") if s.strip()]


def _cloze_csv(path: Path) -> Path:
    """Cases whose sources are story 0 (same text: same id) and story 1 (its ending reworded: a near copy)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "InputStoryid",
                *[f"InputSentence{k}" for k in range(1, 5)],
                "RandomFifthSentenceQuiz1",
                "RandomFifthSentenceQuiz2",
                "AnswerRightEnding",
            ]
        )
        s0 = _sentences(STORIES[0])
        writer.writerow(["c0", *s0[:4], s0[4], "Maria threw the cookies away.", "1"])
        s1 = _sentences(STORIES[1])
        writer.writerow(["c1", *s1[:4], "Tom quit his job.", "Tom laughed and promised to be much more careful.", "2"])
    return path


def test_clean_hold_out_removes_case_sources_by_id_and_near_copy(tmp_path):
    stories = write_stories(tmp_path / "stories.parquet", STORIES, lang="en")
    held = _cloze_csv(tmp_path / "test.csv")
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "clean",
            str(stories),
            "--out",
            str(tmp_path / "out"),
            "--min-chars",
            "20",
            "--hold-out",
            str(held),
            "--hold-out-near",
            "0.5",
        ],
    )
    assert result.exit_code == 0, result.output
    kept = pq.read_table(tmp_path / "out" / "stories.parquet").column("text").to_pylist()
    assert len(kept) == 3 and not any(t.startswith(("Maria", "Tom")) for t in kept)
    quarantine = pq.read_table(tmp_path / "out" / "quarantine.parquet").to_pylist()
    held_rows = {r["text"][:5]: r for r in quarantine if r["rule"] == "held_out"}
    assert set(held_rows) == {"Maria", "Tom c"}
    assert "storycloze-test-c0" in held_rows["Maria"]["evidence"]
    assert "first sentences: jaccard 1.0" in held_rows["Tom c"]["evidence"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["stats"]["held_out"] == {
        "source": str(held),
        "cases": 2,
        "by_id": 1,
        "by_first_sentences": 1,
        "by_near_duplicate": 0,
        "threshold": 0.5,
        "first_sentences_threshold": 0.5,
        "id_columns": ["source_id"],
    }
    # the same run without the option keeps every story and says nothing about held-out cases
    plain = runner.invoke(app, ["clean", str(stories), "--out", str(tmp_path / "plain"), "--min-chars", "20"])
    assert plain.exit_code == 0
    assert pq.read_table(tmp_path / "plain" / "stories.parquet").num_rows == 5
    assert "held_out" not in json.loads((tmp_path / "plain" / "manifest.json").read_text())["stats"]


def test_clean_hold_out_that_is_not_a_test_set_exits_3(tmp_path):
    stories = write_stories(tmp_path / "stories.parquet", STORIES, lang="en")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["clean", str(stories), "--out", str(tmp_path / "out"), "--hold-out", str(bad)])
    assert result.exit_code == 3 and "bad.csv" in result.output


def test_a_case_written_by_sct_write_removes_its_source_story_by_the_csv_story_id(tmp_path):
    """`annotate sct-csv` writes the source story's id as InputStoryid; the right ending is new writing, so the case's
    story is no near copy of its source (4 of 5 sentences): the id alone must find it."""
    stories = write_stories(tmp_path / "stories.parquet", STORIES, lang="en")
    source = pq.read_table(stories).to_pylist()[2]
    held = tmp_path / "sct" / "test.csv"
    held.parent.mkdir()
    with held.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "InputStoryid",
                *[f"InputSentence{k}" for k in range(1, 5)],
                "RandomFifthSentenceQuiz1",
                "RandomFifthSentenceQuiz2",
                "AnswerRightEnding",
            ]
        )
        four = _sentences(source["text"])[:4]
        writer.writerow(
            [source["story_id"], *four, "Ann gave a basket of them to each neighbour.", "Ann moved to the moon.", "1"]
        )
    result = CliRunner().invoke(
        app,
        ["clean", str(stories), "--out", str(tmp_path / "out"), "--min-chars", "20", "--hold-out", str(held.parent)],
    )
    assert result.exit_code == 0, result.output
    kept = pq.read_table(tmp_path / "out" / "stories.parquet").column("text").to_pylist()
    assert len(kept) == 4 and not any(t.startswith("Ann planted") for t in kept)
    held_out = json.loads((tmp_path / "out" / "manifest.json").read_text())["stats"]["held_out"]
    assert (held_out["by_id"], held_out["by_near_duplicate"]) == (1, 0)


def test_the_matcher_finds_a_chinese_source_by_its_first_sentences():
    """A Chinese case (a LOT-style clozet story, invented here) whose source ends otherwise: the story less its last
    sentence is the case's; another story on the same theme is not removed."""
    import numpy as np

    from lotdata.clean.heldout import HeldCase, HeldOutMatcher, HoldOut

    head = "小狐狸住在山脚下。它每天早上去河边喝水。有一天它掉进了河里。一只老乌龟把它驮上了岸。"
    case = HeldCase("clozet-test-1", "x" * 16, head + "小狐狸谢谢老乌龟。", "zh", head=head)
    source = [
        "小狐狸住在山脚下。",
        "它每天早上去河边喝水。",
        "有一天它掉进了河里。",
        "一只老乌龟把它驮上了岸。",
        "从此它们成了好朋友。",
    ]
    other = [
        "小熊住在森林里。",
        "它每天下午去河边捉鱼。",
        "有一天它看见一只乌龟。",
        "乌龟请它吃了一顿饭。",
        "它们成了好朋友。",
    ]
    rows = {"story_id": ["a" * 16, "b" * 16], "source_id": [None, None], "sentences": [source, other]}
    found = HeldOutMatcher(HoldOut([case])).match(rows, np.zeros((2, 128), dtype=np.uint32))
    assert list(found) == [0] and found[0][0] == "first_sentences"
