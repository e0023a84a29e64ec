"""The builders on real corpora from ../shared/data (read there at test time, never copied)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lotdata.datasets.folder import dataset_stats, read_dataset
from lotdata.sources.read_stage import ReadParams, read_step
from lotdata.tasks.build import build_dataset
from lotdata.tasks.senpos import reinsert
from lotdata.text import count_chars, join_sentences, merge_short_sentences


@pytest.fixture(scope="module")
def roc_stories(shared_data: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("roc") / "stories.parquet"
    read_step(
        [shared_data / "rocstories_diffusionlm_valid5k/datasets/ROCstory/roc_valid.json"],
        out,
        ReadParams(lang="en", source="rocstories"),
    )
    return out


@pytest.fixture(scope="module")
def cmrc_stories(shared_data: Path, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cmrc") / "stories.parquet"
    read_step(
        [shared_data / "cmrc2017_children_stories/validation/cloze.valid.doc_query"],
        out,
        ReadParams(lang="zh", license="CC BY-SA 4.0"),
    )
    return out


def _assert_grouped(folder: Path) -> None:
    owner: dict[str, str] = {}
    for split, table in read_dataset(folder).items():
        for sid in table.column("story_id").to_pylist():
            assert owner.setdefault(sid, split) == split, f"story {sid} in two splits"


def test_rocstories_english_senpos_and_plotcom(roc_stories: Path, tmp_path: Path):
    stories = {r["story_id"]: r for r in pq.read_table(roc_stories).to_pylist()}
    assert len(stories) >= 4990
    senpos = build_dataset("senpos", [roc_stories], tmp_path / "senpos", seed=11)
    assert sum(senpos.rows_per_split.values()) >= 4900
    _assert_grouped(tmp_path / "senpos")
    five_sentence = three_gaps = 0
    for row in read_dataset(tmp_path / "senpos")["test"].to_pylist():
        story = stories[row["story_id"]]
        assert join_sentences(reinsert(row["sentences"], row["removed"], row["label"]), "en") == story["text"]
        # the whole story is one paragraph: every merged sentence but the removed one stays, gaps between them
        assert row["n_candidates"] == len(merge_short_sentences(story["sentences"], "en", 10)) - 2
        if len(story["sentences"]) == 5:
            five_sentence += 1
            three_gaps += row["n_candidates"] == 3
    # a five-sentence story keeps its three gaps unless a sentence under 10 letters ("It went in!") was merged
    assert five_sentence > 450 and three_gaps / five_sentence > 0.98
    plotcom = build_dataset("plotcom", [roc_stories], tmp_path / "plotcom", seed=11)
    assert sum(plotcom.rows_per_split.values()) >= 4900
    _assert_grouped(tmp_path / "plotcom")


def test_cmrc_all_three_chinese_builders(cmrc_stories: Path, tmp_path: Path):
    stories = {r["story_id"]: r for r in pq.read_table(cmrc_stories).to_pylist()}
    senpos = build_dataset("senpos", [cmrc_stories], tmp_path / "senpos", seed=5, split="val=100,test=100")
    assert senpos.rows_per_split["val"] >= 100 and senpos.rows_per_split["test"] >= 100
    _assert_grouped(tmp_path / "senpos")
    for row in read_dataset(tmp_path / "senpos")["val"].to_pylist():
        paragraph = join_sentences(reinsert(row["sentences"], row["removed"], row["label"]), "zh")
        assert paragraph in stories[row["story_id"]]["text"]
        assert count_chars(row["removed"]) >= 10
        assert all(count_chars(s) >= 10 for s in row["sentences"])
    lines = (tmp_path / "senpos" / "lot" / "val.jsonl").read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["story"].count("[MASK]") >= 2 for line in lines)

    plotcom = build_dataset("plotcom", [cmrc_stories], tmp_path / "plotcom", seed=5)
    assert sum(plotcom.rows_per_split.values()) > 1100  # 1,159 unique stories once blanks are filled
    _assert_grouped(tmp_path / "plotcom")

    outgen = build_dataset("outgen", [cmrc_stories], tmp_path / "outgen", seed=5, n=300)
    assert sum(outgen.rows_per_split.values()) == 300
    stats = dataset_stats(tmp_path / "outgen")
    assert 1 <= stats["splits"]["train"]["avg_phrases_outline"] <= 8
    for row in read_dataset(tmp_path / "outgen")["test"].to_pylist():
        assert all(phrase in row["story"] and " " not in phrase for phrase in row["outline"])
