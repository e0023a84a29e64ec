from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import write_stories
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lotdata.datasets.splits import assign_splits, parse_split_spec
from lotdata.schema import MASK_TOKENS
from lotdata.sources.story import make_story_row
from lotdata.tasks.build import build_dataset, build_examples, split_examples
from lotdata.tasks.plotcom import PlotcomParams, plotcom_examples
from lotdata.tasks.senpos import SenposParams, reinsert, senpos_examples
from lotdata.text import count_chars, join_sentences, merge_short_sentences

_WORDS = list("狐狸乌鸦小猴熊猫兔子大象森林河边太阳月亮石头苹果")
# sentences of 2..30 characters ending in a terminal mark, some quoted
_sentence = st.builds(
    lambda body, end, quoted: f"“{body}{end}”" if quoted else f"{body}{end}",
    st.lists(st.sampled_from(_WORDS), min_size=2, max_size=30).map("".join),
    st.sampled_from(["。", "！", "？", "……"]),
    st.booleans(),
)
_story = st.lists(_sentence, min_size=1, max_size=14).map("".join)


def _story_row(text: str) -> dict:
    return make_story_row(text, source="prop", lang="zh")


@settings(max_examples=200, deadline=None)
@given(_story, st.integers(0, 2**16))
def test_senpos_invariants(text, seed):
    story = _story_row(text)
    outcome = senpos_examples(story, SenposParams(), seed)
    for ex in outcome.examples:
        full = reinsert(ex["sentences"], ex["removed"], ex["label"])
        # the paragraph comes back exactly
        assert join_sentences(full, "zh") in story["text"]
        assert 1 <= ex["label"] <= ex["n_candidates"]
        assert ex["n_candidates"] == len(ex["sentences"]) - 1 >= 2
        # never the first or last sentence, at least 10 characters
        assert ex["label"] != 0 and ex["label"] != len(full) - 1
        assert count_chars(ex["removed"]) >= 10
    if not outcome.examples:
        assert outcome.dropped


@settings(max_examples=200, deadline=None)
@given(_story, st.integers(0, 2**16))
def test_plotcom_invariants(text, seed):
    story = _story_row(text)
    for positions in ("any", "inner"):
        outcome = plotcom_examples(story, PlotcomParams(mask_positions=positions), seed)
        for ex in outcome.examples:
            mask = MASK_TOKENS["plotcom"]
            assert ex["context"].count(mask) == 1
            assert ex["context"].replace(mask, ex["target"]) == story["text"]
            if positions == "inner":  # LOT's "any" may mask the first or last sentence
                assert not ex["context"].startswith(mask) and not ex["context"].endswith(mask)
            assert count_chars(ex["target"]) >= 10


def test_senpos_story_over_500_words_is_cut_into_paragraphs():
    sentence = "小猴子每天早上都跑到河边的大石头上看太阳慢慢升起来。"
    story = _story_row(sentence * 60)
    outcome = senpos_examples(story, SenposParams(max_words=100), seed=1)
    assert len(outcome.examples) > 1
    for ex in outcome.examples:
        paragraph = reinsert(ex["sentences"], ex["removed"], ex["label"])
        assert sum(len(__import__("lotdata").text.tokenize(s)) for s in paragraph) < 100


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([f"s{i}" for i in range(30)]), min_size=1, max_size=200), st.integers(0, 99))
def test_no_story_in_two_splits(story_ids, seed):
    splits = assign_splits(story_ids, parse_split_spec("train=0.6,val=0.2,test=0.2"), seed)
    seen: dict[str, str] = {}
    for sid, split in zip(story_ids, splits):
        assert seen.setdefault(sid, split) == split
    assert set(splits) <= {"train", "val", "test"}


def test_split_sizes_in_examples():
    ids = [f"story{i}" for i in range(100)]
    splits = assign_splits(ids, parse_split_spec("val=10,test=15"), 3)
    assert splits.count("val") == 10 and splits.count("test") == 15 and splits.count("train") == 75


@pytest.mark.parametrize("bad", ["train=0.5,val=0.1", "val=10,test=0.1", "dev=0.1", "val"])
def test_bad_split_specs_are_rejected(bad):
    with pytest.raises(ValueError):
        parse_split_spec(bad)


def _texts(n: int) -> list[str]:
    animals = ["小熊", "小兔", "狐狸", "乌鸦", "大象", "小猴", "松鼠", "青蛙"]
    out = []
    for i in range(n):
        a, b = animals[i % 8], animals[(i * 3 + 1) % 8]
        out.append(
            f"第{i}天早上，{a}在森林里散步，看见{b}坐在河边发呆。"
            f"{a}走过去问：“你怎么一个人坐在这里呀？”"
            f"{b}叹了口气说：“我的风筝挂在最高的那棵树上了。”"
            f"{a}想了想，跑回家拿来一根长长的竹竿。"
            f"它们一起用竹竿把风筝从树枝上轻轻挑了下来。"
            f"{b}高兴极了，拉着{a}在草地上放了一下午风筝。"
        )
    return out


def test_same_seed_same_bytes_different_seed_differs(tmp_path: Path):
    stories = write_stories(tmp_path / "stories.parquet", _texts(40))
    for task in ("senpos", "plotcom"):
        a = build_dataset(task, [stories], tmp_path / f"{task}_a", seed=7)
        b = build_dataset(task, [stories], tmp_path / f"{task}_b", seed=7)
        c = build_dataset(task, [stories], tmp_path / f"{task}_c", seed=8)
        for split in ("train", "val", "test"):
            assert (a.out / f"{split}.parquet").read_bytes() == (b.out / f"{split}.parquet").read_bytes()
        assert (a.out / "train.parquet").read_bytes() != (c.out / "train.parquet").read_bytes()


def test_dataset_folder_has_splits_manifest_and_lot_jsonl(tmp_path: Path):
    stories = write_stories(tmp_path / "stories.parquet", _texts(40))
    report = build_dataset("senpos", [stories], tmp_path / "senpos", seed=1, split="train=0.5,val=0.25,test=0.25")
    manifest = json.loads((report.out / "manifest.json").read_text())
    assert manifest["task"] == "senpos" and manifest["seed"] == 1
    assert manifest["params"]["min_chars"] == 10
    assert manifest["inputs"][0]["sha256"]
    total = 0
    story_splits: dict[str, str] = {}
    for split in ("train", "val", "test"):
        table = pq.read_table(report.out / f"{split}.parquet")
        assert manifest["splits"][split]["rows"] == table.num_rows > 0
        total += table.num_rows
        for sid in table.column("story_id").to_pylist():
            assert story_splits.setdefault(sid, split) == split
        lines = (report.out / "lot" / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(lines) == table.num_rows
        for line, row in zip(lines, table.to_pylist()):
            record = json.loads(line)
            assert list(record) == ["story", "sentence", "label"]
            assert isinstance(record["label"], int)
            # [MASK] only between adjacent sentences: never first or last, one per gap
            assert not record["story"].startswith("[MASK]") and not record["story"].endswith("[MASK]")
            assert record["story"].count("[MASK]") == row["n_candidates"]
            assert record["story"].split("[MASK]") == row["sentences"]
    assert total == manifest["stats"]["examples_written"] == 40


def test_n_caps_examples_and_rejected_stories_are_skipped(tmp_path: Path):
    stories = [make_story_row(t, source="t", lang="zh") for t in _texts(30)]
    stories[0]["status"] = "rejected"
    examples, stats = build_examples("plotcom", stories, seed=0)
    assert stats.dropped["status_rejected"] == 1 and len(examples) == 29
    by_split = split_examples(examples, parse_split_spec("train=0.8,val=0.1,test=0.1"), seed=0, n=10)
    assert sum(len(v) for v in by_split.values()) == 10


def test_english_senpos_on_five_sentence_story():
    story = make_story_row(
        "Tom lost his red kite in the park. He looked under every bench. A little girl pointed at a tall tree. "
        "Tom climbed the tree carefully. He brought the kite down and thanked her.",
        source="t",
        lang="en",
    )
    (ex,) = senpos_examples(story, SenposParams(), seed=3).examples
    assert ex["n_candidates"] == 3
    assert " ".join(reinsert(ex["sentences"], ex["removed"], ex["label"])) == story["text"]


def test_merge_then_build_never_removes_a_merged_fragment():
    story = _story_row(
        "小熊说：“好。”小兔子和小熊一起去森林里采蘑菇。它们走了很久很久才找到一片蘑菇地。“真多呀！”小兔子高兴地叫起来。它们装满了篮子才回家。"
    )
    merged = merge_short_sentences(story["sentences"], "zh", 10)
    for seed in range(20):
        for ex in senpos_examples(story, SenposParams(), seed).examples:
            assert ex["removed"] in merged
