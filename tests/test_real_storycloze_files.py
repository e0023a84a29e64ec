"""Readers of the real Story Cloze files (issue 34 item 7), over the published csvs in ../shared/data: a Story Cloze csv
is read as stories (four sentences and the right ending) by the story rules and as ending cases by the ending rules;
the blind test csv (no AnswerRightEnding) is checked by the ending rules; `annotate sct-csv` exports every real case
with its four sentences as published. Plus the splitter on invented text: a lower-case sentence start, an
abbreviation that ends a sentence, and the four sentences of a context whose full stops are missing."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.text.sentences import split_sentences
from lotdata.text.story_split import split_exactly_en

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
LABELLED = {
    "spring2016-val": DATA / "storycloze_spring2016_labeled" / "val.csv",
    "spring2016-test": DATA / "storycloze_spring2016_labeled" / "test.csv",
    "winter2018-val": DATA / "storycloze_rocstories" / "val.csv",
}
BLIND = DATA / "storycloze_rocstories" / "test.csv"
real = pytest.mark.skipif(not BLIND.exists(), reason="../shared/data (the real Story Cloze csvs) is absent")


def _rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def _check(job: str, path: Path, out: Path):
    return CliRunner().invoke(app, ["annotate", "check", job, "--input", str(path), "--out", str(out)])


@real
@pytest.mark.parametrize("name", ["spring2016-val", "winter2018-val"])
def test_story_rules_read_a_story_cloze_csv_as_its_stories(tmp_path, name):
    """Each case is the story its writer wrote: four sentences and the right ending (no "0 sentences" flag)."""
    result = _check("story_write", LABELLED[name], tmp_path / "out")
    assert result.exit_code in (0, 5), result.output  # 5: some submissions flagged (a missing full stop, say)
    summary = json.loads((tmp_path / "out" / "check.json").read_text())
    assert summary["submissions"] == len(_rows(LABELLED[name]))
    assert summary["per_rule"]["five_sentences"] == 0
    assert "title" in summary["skipped"] or "title" not in summary["per_rule"]  # a Story Cloze case has no title


@real
def test_the_blind_test_csv_is_checked_by_the_ending_rules_and_refused_as_stories(tmp_path):
    assert "AnswerRightEnding" not in _rows(BLIND)[0]
    result = _check("sct_write", BLIND, tmp_path / "sct")
    assert result.exit_code in (0, 5), result.output
    summary = json.loads((tmp_path / "sct" / "check.json").read_text())
    assert summary["submissions"] == len(_rows(BLIND)) == 1571
    assert set(summary["per_rule"]) >= {"shared_character", "endings_differ", "ending_length", "language"}
    assert summary["per_rule"]["endings_differ"] == 0
    stories = _check("story_write", BLIND, tmp_path / "story")
    assert stories.exit_code == 3 and "no right ending" in stories.output


@real
@pytest.mark.parametrize("name", sorted(LABELLED))
def test_sct_csv_exports_every_real_case_with_its_published_sentences(tmp_path, name):
    """`import storycloze` then `annotate sct-csv`: every imported case comes back, its four sentences the published
    columns (spaces normalised), its endings and label unchanged."""
    runner = CliRunner()
    cases = tmp_path / "cases"
    result = runner.invoke(app, ["import", "storycloze", "--test", str(LABELLED[name]), "--out", str(cases)])
    assert result.exit_code == 0, result.output
    imported = json.loads((cases / "manifest.json").read_text())["splits"]["test"]["rows"]
    result = runner.invoke(app, ["annotate", "sct-csv", "--input", str(cases), "--out", str(tmp_path / "sct")])
    assert result.exit_code == 0, result.output
    exported = _rows(tmp_path / "sct" / "test.csv")
    assert len(exported) == imported >= len(_rows(LABELLED[name])) - 5  # the importer drops exact duplicates only
    published = {r.get("InputStoryid") or str(n): r for n, r in enumerate(_rows(LABELLED[name]), 1)}
    for row in exported:
        source = published[row["InputStoryid"]]
        for k in range(1, 5):
            assert " ".join(row[f"InputSentence{k}"].split()) == " ".join(source[f"InputSentence{k}"].split()), row
        ending = {c: row[c] for c in ("RandomFifthSentenceQuiz1", "RandomFifthSentenceQuiz2", "AnswerRightEnding")}
        assert ending == {c: source[c].strip() for c in ending}


def test_a_sentence_starting_in_lower_case_is_a_sentence():
    assert split_sentences("I chose not to go. i had to stay home.", "en") == [
        "I chose not to go.",
        "i had to stay home.",
    ]
    assert split_sentences("We met at noon. they were late.", "en") == ["We met at noon.", "they were late."]
    # a lower-case word that does not start a sentence, or one after an ellipsis, goes on as before
    assert len(split_sentences("He bought milk, eggs, etc. and went home.", "en")) == 1
    assert len(split_sentences("I waited... he never came.", "en")) == 1


def test_an_abbreviation_ends_a_sentence_before_a_pronoun_but_not_a_title():
    assert split_sentences("Class starts at 8 P.M. He got ready early.", "en") == [
        "Class starts at 8 P.M.",
        "He got ready early.",
    ]
    assert split_sentences("She phoned Dr. Brown about it.", "en") == ["She phoned Dr. Brown about it."]
    assert len(split_sentences("He met J. K. Rowling once.", "en")) == 1


def test_a_context_is_cut_into_its_four_sentences_where_full_stops_are_missing():
    assert split_exactly_en("Ann loved the beach They drove out at dawn. They swam. They went home", 4) == [
        "Ann loved the beach",
        "They drove out at dawn.",
        "They swam.",
        "They went home",
    ]
    assert split_exactly_en("Bo bought tickets, When he got home he won. He was glad. He cried.", 4) == [
        "Bo bought tickets,",
        "When he got home he won.",
        "He was glad.",
        "He cried.",
    ]
    assert split_exactly_en("A b. C d. E f. G h. I j.", 4) == ["A b. C d.", "E f.", "G h.", "I j."]
    assert split_exactly_en("Tom ran. He fell.", 4) is None


@real
def test_a_story_cloze_csv_as_the_corpus_gives_its_stories_to_the_near_copy_rule(tmp_path):
    """`--corpus CSV`: a submission copied from a published case (one word changed) is a near copy of that story."""
    case = _rows(LABELLED["spring2016-val"])[7]
    right = case[f"RandomFifthSentenceQuiz{case['AnswerRightEnding']}"]
    sentences = [case[f"InputSentence{k}"] for k in range(1, 5)] + [right]
    sentences[2] = sentences[2].replace(" ", " really ", 1)
    submissions = tmp_path / "subs.jsonl"
    submissions.write_text(json.dumps({"id": "copy", "title": "A title", "sentences": sentences}) + "\n")
    result = CliRunner().invoke(
        app,
        ["annotate", "check", "story_write", "--input", str(submissions), "--out", str(tmp_path / "out")]
        + ["--corpus", str(LABELLED["spring2016-val"])],
    )
    assert result.exit_code == 5, result.output
    summary = json.loads((tmp_path / "out" / "check.json").read_text())
    assert summary["per_rule"]["near_duplicate"] == 1
    assert case["InputStoryid"] in result.output
