"""Verified reads (issue 23, class 4): a dataset folder is checked against its manifest on every read (row counts,
sha256 of small files), every row is validated (ids, splits, labels, candidates, text, lang, status), bad rows go
to a quarantine with the reason, and nothing usable left is exit 3."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.datasets.folder import load_stories, read_dataset
from lotdata.datasets.validate import example_problem, story_problem
from lotdata.errors import InputError
from lotdata.schema import CLOZET, STORIES, table_from_rows
from lotdata.text.normalize import language_problem

runner = CliRunner()
HEADER = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
FRENCH = (
    "Il était une fois un petit garçon qui vivait dans une maison près de la forêt. Chaque matin, il allait "
    "chercher du bois avec son père et sa mère, puis il rentrait manger."
)
JAPANESE = "昔々、あるところにおじいさんとおばあさんが住んでいました。おじいさんは山へ芝刈りに行きました。"


@pytest.fixture(scope="module")
def sct(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("verified")
    for split, name in (("val", "Tom"), ("test", "Ann")):
        rows = "".join(
            f"{split}{i},{name} had a dog {i}.,It was old.,One day it ran.,{name} looked for it.,"
            f"{name} found it {i}.,{name} ate a car {i}.,{1 + i % 2}\n"
            for i in range(30)
        )
        (root / f"{split}.csv").write_text(HEADER + rows, encoding="utf-8")
    result = runner.invoke(
        app,
        [
            "import",
            "storycloze",
            "--val",
            str(root / "val.csv"),
            "--test",
            str(root / "test.csv"),
            "--out",
            str(root / "sct"),
        ],
    )
    assert result.exit_code == 0, result.output
    return root / "sct"


@pytest.mark.parametrize(
    "command",
    [
        ["stats"],
        ["export", "lot", "--out", "{tmp}/lot"],
        ["audit-bias", "--out", "{tmp}/audit", "--baseline", "random"],
        ["overlap", "--reference", "{tmp}/ref.txt", "--out", "{tmp}/ov"],
    ],
)
def test_a_split_file_replaced_by_another_is_refused_by_every_reader(sct, tmp_path, command):
    swapped = tmp_path / "swapped"
    shutil.copytree(sct, swapped)
    shutil.copy(swapped / "test.parquet", swapped / "val.parquet")  # the same row count: only the sha256 tells
    (tmp_path / "ref.txt").write_text("Tom had a dog.\n", encoding="utf-8")
    args = [a.format(tmp=tmp_path) for a in command]
    result = runner.invoke(
        app, [*args[: 2 if args[0] == "export" else 1], str(swapped), *args[2 if args[0] == "export" else 1 :]]
    )
    assert result.exit_code == 3, result.output
    assert "val.parquet" in result.output and "sha256 differs" in result.output


def test_row_counts_are_checked_even_without_hashing(sct, tmp_path):
    cut = tmp_path / "cut"
    shutil.copytree(sct, cut)
    table = pq.read_table(cut / "val.parquet")
    pq.write_table(table.slice(0, 5), cut / "val.parquet")
    with pytest.raises(InputError, match="has 5 rows, the manifest says 30"):
        read_dataset(cut, verify=False)


def _rewrite_val(folder: Path, rows: list[dict]) -> None:
    """Replace val.parquet and its manifest entry, as a tool that knows the manifest would."""
    from lotdata.io import sha256_file

    pq.write_table(table_from_rows(rows, CLOZET), folder / "val.parquet")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["splits"]["val"].update(rows=len(rows), sha256=sha256_file(folder / "val.parquet"))
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def test_bad_rows_are_quarantined_with_the_reason_and_nothing_usable_is_exit_3(sct, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(sct, bad)
    rows = pq.read_table(bad / "val.parquet").to_pylist()
    rows[1]["example_id"] = rows[0]["example_id"]
    rows[2]["candidates"] = [rows[2]["candidates"][0]] * 2
    rows[3]["label"] = 5
    rows[4]["split"] = "test"
    rows[5]["context"] = "<mask>"
    _rewrite_val(bad, rows)
    quarantine: list[dict] = []
    tables = read_dataset(bad, quarantine=quarantine)
    assert tables["val"].num_rows == 25
    reasons = " | ".join(sorted(q["reason"] for q in quarantine))
    for cause in (
        "repeats an earlier row",
        "identical candidates",
        "label 5 is not a candidate",
        "split 'test' in the val",
        "only <mask>",
    ):
        assert cause in reasons, (cause, reasons)
    assert len(quarantine) == 5 and all(q["path"].endswith("val.parquet") and q["row"] for q in quarantine), quarantine
    assert any("repeats an earlier row" in q["reason"] for q in quarantine) and any(
        "identical" in q["reason"] for q in quarantine
    )
    stats = runner.invoke(app, ["stats", str(bad)])
    assert stats.exit_code == 0 and "5 row(s) left out" in stats.output
    nothing = tmp_path / "nothing"
    shutil.copytree(sct, nothing)
    _rewrite_val(nothing, [{**r, "label": 7} for r in rows])
    pq.write_table(table_from_rows([], CLOZET), nothing / "test.parquet")
    manifest = json.loads((nothing / "manifest.json").read_text(encoding="utf-8"))
    manifest["splits"]["test"].update(rows=0, sha256=None)
    (nothing / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = runner.invoke(app, ["stats", str(nothing)])
    assert result.exit_code == 3 and "no usable example" in result.output


def test_languages_and_statuses_come_from_their_vocabularies():
    assert language_problem(FRENCH, "en").startswith("not English")
    assert "Japanese" in language_problem(JAPANESE, "en") and "Japanese" in language_problem(JAPANESE, "zh")
    assert language_problem("从前有一只小兔子，它住在森林里。", "en").startswith("not English: Chinese (zh")
    assert language_problem("x", "fr") == "lang 'fr' is not one of zh, en"
    assert language_problem("Tom had a dog. " * 10, "en") is None
    story = {"story_id": "s", "text": "从前有一只小兔子。", "lang": "zh", "status": "weird"}
    assert "status 'weird'" in story_problem(story)
    assert story_problem({**story, "status": "raw", "text": "  "}) == "empty text"
    assert (
        example_problem(
            "clozet",
            {"example_id": "e", "split": "val", "context": "a <mask>", "candidates": ["b", "b"], "label": 0},
            "val",
        )
        == "identical candidates"
    )


def test_read_and_build_quarantine_foreign_languages_bad_statuses_and_conflicting_ids(tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        "".join(
            json.dumps(r, ensure_ascii=False) + "\n"
            for r in [
                {"text": FRENCH},
                {"text": JAPANESE},
                {"text": "从前有一只小兔子，它住在森林里。它每天都去河边喝水。"},
            ]
        ),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["read", str(corpus), "--out", str(tmp_path / "s.parquet")])
    assert result.exit_code == 0, result.output
    assert pq.read_table(tmp_path / "s.parquet").num_rows == 1
    reasons = pq.read_table(tmp_path / "s.quarantine.parquet").column("reason").to_pylist()
    assert len(reasons) == 2 and any("not English" in r for r in reasons) and any("Japanese" in r for r in reasons)
    good = pq.read_table(tmp_path / "s.parquet").to_pylist()[0]
    rows = [
        good,
        {**good, "text": good["text"] + "又一句。"},
        {**good, "story_id": "x", "status": "weird"},
        {**good, "story_id": "y", "lang": "fr"},
        {**good, "story_id": "z", "text": " "},
    ]
    pq.write_table(table_from_rows(rows, STORIES), tmp_path / "t.parquet")
    quarantine: list[dict] = []
    assert len(load_stories([tmp_path / "t.parquet"], quarantine)) == 1
    assert [q["row"] for q in quarantine] == [2, 3, 4, 5] and "another text" in quarantine[0]["reason"]
    built = runner.invoke(
        app, ["build", "outgen", "--stories", str(tmp_path / "t.parquet"), "--out", str(tmp_path / "og")]
    )
    assert "4 row(s) left out" in built.output


def test_evaluate_senpos_on_clozet_files_is_refused(sct, tmp_path):
    exported = runner.invoke(app, ["export", "lot", str(sct), "--out", str(tmp_path / "lot")])
    assert exported.exit_code == 0, exported.output
    test = tmp_path / "lot" / "test.jsonl"
    result = runner.invoke(app, ["evaluate", "senpos", "--pred", str(test), "--gold", str(test)])
    assert result.exit_code == 3 and "a clozet record" in result.output and "plot0" in result.output
