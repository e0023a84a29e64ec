"""Issue 15: where the builders follow LOT's construction, on real stories from ../shared/data.

OutGen from filtered stories, PlotCom val/test sampled across ClozeT, PlotCom train masking any
sentence, SenPos cutting on the source's paragraphs, ClozeT splits from the written cases, `--n`
building only what it keeps, and the fast tokenizer giving the same bytes.
"""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path

import pytest

from lotdata.datasets.folder import read_dataset
from lotdata.datasets.splits import parse_split_spec
from lotdata.io import sha256_file, write_parquet
from lotdata.pipeline import run_recipe
from lotdata.schema import MASK_TOKENS, STORIES, table_from_rows
from lotdata.sources.readers import read_stories
from lotdata.sources.story import story_id_for
from lotdata.tasks.build import build_dataset, build_examples, split_examples
from lotdata.tasks.clozet import build_clozet
from lotdata.tasks.senpos import reinsert
from lotdata.text import join_sentences, normalize_text

REPO = Path(__file__).resolve().parents[1]
CMRC = "cmrc2017_children_stories/validation/cloze.valid.doc_query"
ROC = "rocstories_diffusionlm_valid5k/datasets/ROCstory/roc_valid.json"


@pytest.fixture(scope="module")
def cmrc_stories(shared_data: Path) -> list[dict]:
    return read_stories([shared_data / CMRC], fmt="cmrc").stories


@pytest.fixture(scope="module")
def roc_stories(shared_data: Path) -> list[dict]:
    return read_stories([shared_data / ROC], fmt="roc_lines").stories


def _write(path: Path, rows: list[dict]) -> Path:
    write_parquet(table_from_rows(rows, STORIES), path)
    return path


def _clozet_cases(stories: list[dict], k: int, seed: int = 3) -> list[dict]:
    """ClozeT-shaped cases from real stories (one per story): an inner sentence masked, a made-up wrong candidate."""
    rng = random.Random(seed)
    rows = []
    for i, story in enumerate(s for s in stories if len(s["sentences"]) >= 4):
        if len(rows) == k:
            break
        j = rng.randrange(1, len(story["sentences"]) - 1)
        context = join_sentences(
            story["sentences"][:j] + [MASK_TOKENS["clozet"]] + story["sentences"][j + 1 :], story["lang"]
        )
        rows.append(
            {
                "example_id": f"case{i}",
                "story_id": story["story_id"],
                "split": ("train", "val", "test")[i % 3],
                "context": context,
                "candidates": ["A wrong candidate written for the test.", story["sentences"][j]],
                "label": 1,
                "mask_sentence_index": j,
                "lang": story["lang"],
            }
        )
    return rows


def _by_split(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(row["split"], []).append(row)
    return out


# ------------------------------------------------------------------ 2. OutGen from filtered stories


def test_outgen_takes_the_filtered_stories_and_says_which_statuses(cmrc_stories, tmp_path):
    stories = [dict(s) for s in cmrc_stories[:12]]
    for i, story in enumerate(stories):
        story["status"] = ("accepted", "rewritten", "clean", "rejected")[i % 4]
    path = _write(tmp_path / "s.parquet", stories)
    report = build_dataset("outgen", [path], tmp_path / "o", seed=1, split="val=1,test=1", card=False, lot_jsonl=False)
    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["statuses_used"] == ["accepted", "rewritten"]
    assert report.stats["stories_dropped"] == {"status_clean": 3, "status_rejected": 3}
    taken = {s["story_id"] for s in stories if s["status"] in ("accepted", "rewritten")}
    built = {r["story_id"] for t in read_dataset(tmp_path / "o").values() for r in t.to_pylist()}
    assert built and built <= taken
    # asked for explicitly: those statuses; stories without annotators' decisions: every one but rejected
    build_dataset(
        "outgen", [path], tmp_path / "c", seed=1, split="val=1,test=1", card=False, lot_jsonl=False, statuses=["clean"]
    )
    assert json.loads((tmp_path / "c" / "manifest.json").read_text())["statuses_used"] == ["clean"]
    raw = _write(tmp_path / "raw.parquet", cmrc_stories[:3])
    build_dataset("outgen", [raw], tmp_path / "r", seed=1, split="val=1,test=1", card=False, lot_jsonl=False)
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["statuses_used"] == ["raw"]
    with pytest.raises(ValueError, match="unknown story status"):
        build_dataset("outgen", [raw], tmp_path / "x", statuses=["acepted"])


# ------------------------------------------------------------------ 3. PlotCom val/test sampled across ClozeT


def test_plotcom_val_test_sampled_across_all_of_clozet(roc_stories, tmp_path):
    cases = _clozet_cases(roc_stories[:400], 300)
    clozet = _by_split(cases)
    assert len(clozet["val"]) + len(clozet["test"]) < 150 + 140  # more than ClozeT val + test hold, as in LOT
    path = _write(tmp_path / "s.parquet", roc_stories[:600])
    report = build_dataset(
        "plotcom", [path], tmp_path / "p", seed=5, clozet=clozet, clozet_split="val=150,test=140", card=False
    )
    data = {s: t.to_pylist() for s, t in read_dataset(tmp_path / "p").items()}
    assert len(data["val"]) == 150 and len(data["test"]) == 140
    sampled_from = {row["example_id"].removeprefix("plotcom-from-") for s in ("val", "test") for row in data[s]}
    assert {c["split"] for c in cases if c["example_id"] in sampled_from} == {"train", "val", "test"}
    story_sets = {s: {r["story_id"] for r in rows} for s, rows in data.items()}
    assert not story_sets["val"] & story_sets["test"]
    assert not story_sets["train"] & (story_sets["val"] | story_sets["test"])
    assert report.stats["stories_dropped"]["in_clozet"] == 290
    assert report.stats["clozet_rows_unused"] == {"train": 10}
    with pytest.raises(ValueError, match="val/test sizes"):
        build_dataset("plotcom", [path], tmp_path / "q", clozet=clozet, clozet_split="val=0.5,test=0.5")


def test_lot_recipe_claims_lot_table3_sizes():
    recipe = tomllib.loads((REPO / "pipelines" / "lot.toml").read_text())
    steps = {step.get("out", step["task"]): step for step in recipe["build"]}
    assert parse_split_spec(steps["clozet"]["split"]).values == {"val": 294, "test": 294}
    assert steps["plotcom"]["clozet"] == "clozet" and steps["plotcom"]["train_n"] == 13099
    assert parse_split_spec(steps["plotcom"]["clozet_split"]).values == {"val": 465, "test": 464}
    assert parse_split_spec(steps["senpos"]["split"]).values == {"val": 800, "test": 863}
    assert steps["outgen"]["train_n"] == 1456 and parse_split_spec(steps["outgen"]["split"]).values == {
        "val": 242,
        "test": 729,
    }
    assert "statuses" not in steps["outgen"]  # the default: the filtered stories once they carry decisions


# ------------------------------------------------------------------ 4. PlotCom train masks any sentence


def test_plotcom_train_masks_first_and_last_sentences_as_lot_and_counts_them(cmrc_stories, tmp_path):
    path = _write(tmp_path / "s.parquet", cmrc_stories[:300])
    lot = build_dataset("plotcom", [path], tmp_path / "any", seed=2, card=False, lot_jsonl=False)
    inner = build_dataset(
        "plotcom", [path], tmp_path / "inner", seed=2, card=False, lot_jsonl=False, params={"mask_positions": "inner"}
    )
    train = read_dataset(tmp_path / "any")["train"].to_pylist()
    counts = lot.stats["masked_positions"]
    assert counts["first"] > 0 and counts["last"] > 0 and sum(counts.values()) == len(train)
    assert counts["first"] == sum(1 for r in train if r["context"].startswith("<MASK>"))
    assert counts["last"] == sum(1 for r in train if r["context"].endswith("<MASK>"))
    assert inner.stats["masked_positions"]["first"] == inner.stats["masked_positions"]["last"] == 0
    with pytest.raises(ValueError, match="mask-positions"):
        build_dataset("plotcom", [path], tmp_path / "bad", params={"mask_positions": "ends"})


# ------------------------------------------------------------------ 5. SenPos paragraphs


@pytest.fixture(scope="module")
def c3_paragraphed(shared_data: Path, tmp_path_factory) -> tuple[list[dict], list[str]]:
    """C3 documents with paragraph breaks, as a jsonl corpus written at test time (not stored)."""
    docs = json.loads((shared_data / "c3_mixed_genre" / "data" / "c3-m-dev.json").read_text(encoding="utf-8"))
    texts = [doc[0][0] for doc in docs if "\n" in doc[0][0].strip()][:40]
    path = tmp_path_factory.mktemp("c3") / "c3.jsonl"
    path.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), encoding="utf-8")
    return read_stories([path], fmt="jsonl").stories, texts


def test_reading_keeps_paragraph_breaks_without_changing_text_or_id(c3_paragraphed, cmrc_stories):
    stories, texts = c3_paragraphed
    assert len(stories) == len(texts) == 40
    for story, raw in zip(stories, texts):
        lines = [normalize_text(line, "zh") for line in raw.split("\n") if line.strip()]
        assert "\n" not in story["text"] and story["story_id"] == story_id_for(normalize_text(raw, "zh"))
        breaks = story["paragraph_breaks"]
        assert breaks, raw[:80]
        starts = [len("".join(story["sentences"][:b])) for b in breaks]
        line_starts = [len("".join(lines[:i])) for i in range(1, len(lines))]
        assert set(starts) <= set(line_starts)  # every break is a line break of the source
    assert all(s["paragraph_breaks"] is None for s in cmrc_stories[:200])  # one line per story: no breaks


def test_senpos_cuts_on_the_paragraphs_first(c3_paragraphed, tmp_path):
    stories, texts = c3_paragraphed
    path = _write(tmp_path / "s.parquet", stories)
    report = build_dataset("senpos", [path], tmp_path / "p", seed=4, card=False, lot_jsonl=False)
    by_story = {s["story_id"]: (s, raw) for s, raw in zip(stories, texts)}
    examples = [r for t in read_dataset(tmp_path / "p").values() for r in t.to_pylist()]
    assert examples
    for ex in examples:
        story, raw = by_story[ex["story_id"]]
        paragraph = join_sentences(reinsert(ex["sentences"], ex["removed"], ex["label"]), "zh")
        lines = [normalize_text(line, "zh") for line in raw.split("\n") if line.strip()]
        # cut on the source's paragraph breaks: the paragraph is a run of whole source paragraphs
        # (one too short for an example is joined to its neighbour)
        assert any("".join(lines[a:b]) == paragraph for a in range(len(lines)) for b in range(a + 1, len(lines) + 1)), (
            ex["example_id"]
        )
    whole = build_dataset(
        "senpos", [path], tmp_path / "w", seed=4, card=False, lot_jsonl=False, params={"cut_paragraphs": False}
    )
    assert report.stats["paragraphs"] > whole.stats["paragraphs"]


# ------------------------------------------------------------------ 6. ClozeT from the written cases


def test_build_clozet_reaches_lot_sizes_and_the_recipe_chains_it_into_plotcom(roc_stories, tmp_path):
    cases = _clozet_cases(roc_stories, 1232)
    report = build_clozet(_by_split(cases), tmp_path / "clozet", seed=2021, card=False)
    assert report.rows_per_split == {"train": 644, "val": 294, "test": 294}  # LOT Table 3
    data = {s: t.to_pylist() for s, t in read_dataset(tmp_path / "clozet").items()}
    ids = [{r["story_id"] for r in rows} for rows in data.values()]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    # the recipe: a clozet step from cases on disk, then PlotCom sampling its val/test from that step's output
    cases_dir = tmp_path / "cases"
    cases_dir.mkdir()
    for split, rows in _by_split(cases[:200]).items():
        (cases_dir / f"{split}.jsonl").write_text(
            "".join(
                json.dumps(
                    {"story": r["context"], "plot0": r["candidates"][0], "plot1": r["candidates"][1], "label": "1"}
                )
                + "\n"
                for r in rows
            ),
            encoding="utf-8",
        )
    _write(tmp_path / "stories.parquet", roc_stories[:400])
    (tmp_path / "r.toml").write_text(
        'stories = "stories.parquet"\n'
        '[[build]]\ntask = "clozet"\ncases = "cases"\nsplit = "val=40,test=40"\nseed = 1\n'
        '[[build]]\ntask = "plotcom"\nclozet = "clozet"\nclozet_split = "val=60,test=50"\nseed = 1\n',
        encoding="utf-8",
    )
    import os

    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        results = run_recipe(tmp_path / "r.toml", out_root=tmp_path / "out")
    finally:
        os.chdir(cwd)
    assert [r.name for r in results] == ["build-clozet", "build-plotcom"]
    clozet_rows = results[0].summary["rows"]
    assert clozet_rows == {"train": 120, "val": 40, "test": 40}
    plotcom = read_dataset(tmp_path / "out" / "plotcom")
    assert plotcom["val"].num_rows == 60 and plotcom["test"].num_rows == 50


# ------------------------------------------------------------------ 7. --n caps the work


def test_n_builds_only_the_stories_it_keeps_with_the_same_examples(cmrc_stories, tmp_path):
    path = _write(tmp_path / "s.parquet", cmrc_stories[:400])
    for task in ("senpos", "plotcom"):
        report = build_dataset(task, [path], tmp_path / task, n=5, seed=9, card=False, lot_jsonl=False)
        assert report.stats["stories_available"] == 400
        assert report.stats["stories_in"] <= 40, report.stats  # about 5 stories' worth, not 400
        full, _ = build_examples(task, cmrc_stories[:400], seed=9)
        expected = split_examples(full, parse_split_spec("train=0.8,val=0.1,test=0.1"), 9, n=5)
        got = {s: t.to_pylist() for s, t in read_dataset(tmp_path / task).items()}
        assert {s: [r["example_id"] for r in rows] for s, rows in got.items()} == {
            s: [r["example_id"] for r in rows] for s, rows in expected.items()
        }


# ------------------------------------------------------------------ speed: rjieba gives jieba's bytes


def test_rjieba_and_jieba_builds_are_byte_identical(cmrc_stories, tmp_path):
    path = _write(tmp_path / "s.parquet", cmrc_stories[:120])
    for tokenizer in ("jieba", "rjieba"):
        build_dataset("senpos", [path], tmp_path / tokenizer, seed=3, tokenizer=tokenizer, params={"max_words": 60})
    for name in ("train.parquet", "val.parquet", "test.parquet", "lot/train.jsonl", "README.md"):
        if name == "README.md":  # the card names the tokenizer; everything else is the same
            continue
        assert sha256_file(tmp_path / "jieba" / name) == sha256_file(tmp_path / "rjieba" / name), name
    assert json.loads((tmp_path / "rjieba" / "manifest.json").read_text())["environment"]["tokenizer"] == "rjieba"


# ------------------------------------------------------------------ what the points do not touch stays the same


def test_outputs_the_points_do_not_touch_keep_their_bytes(cmrc_stories, c3_paragraphed, tmp_path):
    """Stories without paragraph breaks (or an older table without the column) give the bytes of the whole-story
    SenPos; `--n` keeps the examples of a capped full build (above); statuses change nothing without decisions."""
    files = [f"{s}.parquet" for s in ("train", "val", "test")] + [f"lot/{s}.jsonl" for s in ("train", "val", "test")]

    def same(a: Path, b: Path) -> bool:
        return all(sha256_file(a / f) == sha256_file(b / f) for f in files)

    cmrc = _write(tmp_path / "cmrc.parquet", cmrc_stories[:150])
    for name, params in (("cut", {}), ("whole", {"cut_paragraphs": False})):
        build_dataset("senpos", [cmrc], tmp_path / name, seed=6, card=False, params=params)
    build_dataset("senpos", [cmrc], tmp_path / "statuses", seed=6, card=False, statuses=["raw", "clean"])
    assert same(tmp_path / "cut", tmp_path / "whole") and same(tmp_path / "cut", tmp_path / "statuses")
    stories, _ = c3_paragraphed
    older = tmp_path / "older.parquet"
    import pyarrow.parquet as pq

    table = table_from_rows(stories, STORIES)
    pq.write_table(table.drop_columns(["paragraph_breaks"]), older)  # a stories table written before the column
    build_dataset("senpos", [older], tmp_path / "older", seed=6, card=False)
    build_dataset(
        "senpos",
        [_write(tmp_path / "c3.parquet", stories)],
        tmp_path / "c3-whole",
        seed=6,
        card=False,
        params={"cut_paragraphs": False},
    )
    assert same(tmp_path / "older", tmp_path / "c3-whole")


def test_build_clozet_cli_exit_codes(shared_data, tmp_path):
    import subprocess
    import sys

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "lotdata.cli", "build", "clozet", *map(str, args)], capture_output=True, text=True
        )

    missing = run("--cases", tmp_path / "nowhere", "--out", tmp_path / "a")
    assert missing.returncode == 1 and "no such ClozeT dataset" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = run("--cases", tmp_path / "empty", "--out", tmp_path / "b")
    assert empty.returncode == 3 and "no manifest.json" in empty.stderr
    example = shared_data / "lot_official_examples" / "examples" / "clozet.jsonl"
    ok = run("--cases", example, "--out", tmp_path / "c", "--split", "val=0,test=1")
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "c" / "manifest.json").read_text())["splits"]["test"]["rows"] == 1
