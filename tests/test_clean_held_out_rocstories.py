"""`lotdata clean --hold-out` on the paper's setting (ROCStories §4.2, issue 34 item 6), built small at test time from
the real Story Cloze csvs in ../shared/data: a ROCStories csv (storyid, storytitle, sentence1..5) holding the sources
of held-out cases in three forms (exact, ending replaced, one word edited), their storyid the case's InputStoryid or
a fresh id, and other real stories; every source leaves, nothing else does."""

from __future__ import annotations

import csv
import json
import uuid
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import write_stories
from typer.testing import CliRunner

from lotdata.cli import app

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SPRING_VAL = DATA / "storycloze_spring2016_labeled" / "val.csv"
WINTER_TEST = DATA / "storycloze_rocstories" / "test.csv"
ROC = DATA / "rocstories_diffusionlm_valid5k" / "datasets" / "ROCstory" / "roc_valid.json"
pytestmark = pytest.mark.skipif(not SPRING_VAL.exists(), reason="../shared/data (the real Story Cloze csvs) is absent")

ROC_HEAD = ["storyid", "storytitle", *[f"sentence{i}" for i in range(1, 6)]]


def _cases(path: Path) -> tuple[list[str], list[dict]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        return list(reader.fieldnames or []), list(reader)


def _context(case: dict) -> list[str]:
    return [case[f"InputSentence{i}"] for i in range(1, 5)]


def _right(case: dict) -> str:
    return case[f"RandomFifthSentenceQuiz{case.get('AnswerRightEnding') or '1'}"]


def _edit_one_word(sentences: list[str], k: int) -> list[str]:
    """The k-th sentence's second word replaced ("Rick grew up" -> "Rick zorbled up")."""
    words = sentences[k].split()
    words[1] = "zorbled"
    return [*sentences[:k], " ".join(words), *sentences[k + 1 :]]


def _write_csv(path: Path, header: list[str], rows: list[dict | list]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for row in rows:
            writer.writerow([row.get(h, "") for h in header] if isinstance(row, dict) else row)
    return path


def _other_roc(n: int) -> list[list[str]]:
    """Real ROCStories stories (five sentences each; the file joins them)."""
    from lotdata.text.sentences import split_sentences

    stories = (split_sentences(json.loads(line)[0], "en") for line in ROC.read_text(encoding="utf-8").splitlines())
    return [s for s, _ in zip((s for s in stories if len(s) == 5), range(n))]


def _setting(tmp_path: Path, held: list[dict], others: list[list[str]], ids: bool) -> tuple[Path, dict[str, str]]:
    """The ROCStories csv: the sources of `held` in the three forms (a third each; the exact form the case's own
    ending) and `others`; {storyid: form}."""
    rows, form_of = [], {}
    for n, case in enumerate(held):
        form = ("exact", "ending replaced", "one word edited")[n % 3]
        story = [*_context(case), _right(case) if form != "ending replaced" else others[n][-1]]
        if form == "one word edited":
            story = _edit_one_word(story, n % 5)
        story_id = case.get("InputStoryid") if ids and case.get("InputStoryid") else str(uuid.uuid4())
        form_of[story_id] = form
        rows.append([story_id, "", *story])
    for story in others:
        story_id = str(uuid.uuid4())
        form_of[story_id] = "other"
        rows.append([story_id, "", *story])
    return _write_csv(tmp_path / "ROCStories_small.csv", ROC_HEAD, rows), form_of


def _read_and_clean(tmp_path: Path, roc_csv: Path, held_out: Path, *options: str) -> dict[str, dict]:
    """{source_id: quarantine row} of `clean --hold-out` after `read` (the ROCStories reader keeps storyid in
    source_id)."""
    runner = CliRunner()
    stories = tmp_path / "stories.parquet"
    result = runner.invoke(app, ["read", str(roc_csv), "--lang", "en", "--out", str(stories)])
    assert result.exit_code == 0, result.output
    ids = pq.read_table(stories, columns=["source_id"]).column("source_id").to_pylist()
    assert len(ids) == len(set(ids)) and None not in ids  # every storyid kept in source_id
    clean = tmp_path / "clean"
    result = runner.invoke(app, ["clean", str(stories), "--out", str(clean), "--hold-out", str(held_out), *options])
    assert result.exit_code == 0, result.output
    return {r["source_id"]: r for r in pq.read_table(clean / "quarantine.parquet").to_pylist()}


@pytest.mark.parametrize("ids", [True, False], ids=["storyid-is-InputStoryid", "fresh-storyids"])
def test_every_source_of_a_held_out_case_leaves_and_no_other_story(tmp_path, ids):
    header, cases = _cases(SPRING_VAL)
    held, not_held = cases[:30], cases[30:45]
    held_csv = _write_csv(tmp_path / "val.csv", header, held)
    others = _other_roc(30) + [[*_context(c), _right(c)] for c in not_held]  # other Story Cloze stories too
    roc_csv, form_of = _setting(tmp_path, held, others, ids)
    removed = _read_and_clean(tmp_path, roc_csv, held_csv)
    held_out = {k: r for k, r in removed.items() if r["rule"] == "held_out"}
    sources = {k for k, form in form_of.items() if form != "other"}
    assert set(held_out) == sources, {form_of[k] for k in sources - set(held_out)}
    assert not [k for k in removed if form_of.get(k) == "other"]  # no other story removed, by any rule
    ways = {form_of[k]: r["evidence"].split(" ")[0] for k, r in held_out.items()}
    if ids:  # the paper's setting: the ROCStories storyid is the InputStoryid
        assert ways["ending replaced"] == ways["one word edited"] == "source_id"
    else:  # the text alone: the four sentences the case shows
        assert ways["ending replaced"] == ways["one word edited"] == "first"


def test_the_blind_test_csv_holds_out_the_sources_of_its_cases(tmp_path):
    """The winter 2018 test csv has neither InputStoryid nor AnswerRightEnding: its contexts find the sources,
    whose fifth sentence may be either ending or another one."""
    header, cases = _cases(WINTER_TEST)
    assert "AnswerRightEnding" not in header and "InputStoryid" not in header
    held_csv = _write_csv(tmp_path / "test.csv", header, cases[:12])
    roc_csv, form_of = _setting(tmp_path, cases[:12], _other_roc(25), ids=False)
    removed = _read_and_clean(tmp_path, roc_csv, held_csv)
    assert {k for k, r in removed.items() if r["rule"] == "held_out"} == {k for k, f in form_of.items() if f != "other"}
    assert not [k for k in removed if form_of[k] == "other"]


def test_hold_out_id_names_the_column_that_holds_the_source_ids(tmp_path):
    """A corpus whose source ids sit in another column (here the title): `--hold-out-id title` matches them; the
    default (source_id) does not, and the texts are unrelated, so nothing else finds them."""
    header, cases = _cases(SPRING_VAL)
    held_csv = _write_csv(tmp_path / "val.csv", header, [*cases[:2], {**cases[2], "InputStoryid": "3"}])
    texts = [" ".join(s) for s in _other_roc(6)]
    titles = [cases[0]["InputStoryid"], cases[1]["InputStoryid"], "3", "y", "z", "w"]  # "3": a row number, no id
    stories = write_stories(tmp_path / "stories.parquet", texts, lang="en", titles=titles)
    runner = CliRunner()
    for option, expected in (([], 0), (["--hold-out-id", "source_id,title"], 2)):
        out = tmp_path / f"clean{len(option)}"
        result = runner.invoke(app, ["clean", str(stories), "--out", str(out), "--hold-out", str(held_csv), *option])
        assert result.exit_code == 0, result.output
        held_out = json.loads((out / "manifest.json").read_text())["stats"]["held_out"]
        assert held_out["by_id"] == expected and held_out["by_first_sentences"] == 0
    bad = runner.invoke(
        app, ["clean", str(stories), "--out", str(tmp_path / "bad"), "--hold-out", str(held_csv), "--hold-out-id", "x"]
    )
    assert bad.exit_code == 1 and "--hold-out-id" in bad.output  # a bad option (a recipe key: exit 3)
