"""Issue 5, build half: PlotCom val/test from ClozeT, --train-n, drop counts, reproducible manifests, the card."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_DATA
from helpers import write_stories

from lotdata.datasets.folder import read_dataset
from lotdata.datasets.splits import parse_split_spec
from lotdata.errors import InputError
from lotdata.io import INCOMPLETE_MARKER, sha256_file
from lotdata.schema import PLOTCOM, check_table, table_from_rows
from lotdata.sources.story import make_story_row
from lotdata.tasks.build import build_dataset, build_plotcom_with_clozet, split_examples

REPO = Path(__file__).resolve().parents[1]
CLOZET_EXAMPLE = SHARED_DATA / "lot_official_examples" / "examples" / "clozet.jsonl"


def lotdata(*args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lotdata.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80", **(env or {})},
    )


def texts(n: int, sentences: int = 6) -> list[str]:
    animals = ["小熊", "小兔", "狐狸", "乌鸦", "大象", "小猴", "松鼠", "青蛙"]
    out = []
    for i in range(n):
        a, b = animals[i % 8], animals[(i * 3 + 1) % 8]
        body = [
            f"第{i}天早上，{a}在森林里散步，看见{b}坐在河边发呆。",
            f"{a}走过去问：“你怎么一个人坐在这里呀？”",
            f"{b}叹了口气说：“我的风筝挂在最高的那棵树上了。”",
            f"{a}想了想，跑回家拿来一根长长的竹竿。",
            "它们一起用竹竿把风筝从树枝上轻轻挑了下来。",
            f"{b}高兴极了，拉着{a}在草地上放了一下午风筝。",
        ]
        out.append("".join((body * 40)[:sentences]))
    return out


def clozet_story() -> str:
    record = json.loads(CLOZET_EXAMPLE.read_text(encoding="utf-8").splitlines()[0])
    return record["story"].replace("<mask>", record["plot" + record["label"]])


@pytest.fixture()
def stories_with_clozet_story(shared_data: Path, tmp_path: Path) -> Path:
    return write_stories(tmp_path / "stories.parquet", texts(20) + [clozet_story()])


# --- PlotCom val/test from ClozeT (part 3) ---------------------------------------------------------


def test_cli_plotcom_val_test_from_official_clozet_example(stories_with_clozet_story: Path, tmp_path: Path):
    clozet_dir = tmp_path / "clozet"
    imported = lotdata("import", "lot", CLOZET_EXAMPLE, "--task", "clozet", "--split", "test", "--out", clozet_dir)
    assert imported.returncode == 0, imported.stderr
    out = tmp_path / "plotcom"
    built = lotdata(
        "build", "plotcom", "--stories", stories_with_clozet_story, "--clozet", clozet_dir, "--out", out, "--seed", "3"
    )
    assert built.returncode == 0, built.stderr
    assert "split 'val' is empty" in built.stderr  # the official example holds one test row only
    tables = read_dataset(out)
    test = tables["test"].to_pylist()
    record = json.loads(CLOZET_EXAMPLE.read_text(encoding="utf-8").splitlines()[0])
    assert [r["target"] for r in test] == [record["plot" + record["label"]]]
    assert [r["origin"] for r in test] == ["clozet"]
    assert test[0]["context"] == record["story"].replace("<mask>", "<MASK>")
    train = tables["train"].to_pylist()
    assert {r["origin"] for r in train} == {"auto"} and len(train) == 20
    held = make_story_row(clozet_story(), source="t", lang="zh")["story_id"]
    assert held not in {r["story_id"] for r in train}  # no story in both
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stats"]["stories_dropped"] == {"in_clozet": 1}
    assert "in_clozet" in manifest["drop_rules"]
    assert manifest["split_origin"] == {"train": ["auto"], "val": [], "test": ["clozet"]}
    assert manifest["clozet"] == str(clozet_dir)
    assert any(i["path"].endswith("test.parquet") for i in manifest["inputs"])
    assert (out / "lot" / "test.jsonl").read_text(encoding="utf-8").count("<MASK>") == 1


def test_cli_plotcom_says_which_split_a_clozet_file_became_and_n_caps_train_only(
    stories_with_clozet_story: Path, tmp_path: Path
):
    out = tmp_path / "pc"
    built = lotdata(
        "build", "plotcom", "--stories", stories_with_clozet_story, "--clozet", CLOZET_EXAMPLE, "--out", out, "--n", "2"
    )
    assert built.returncode == 0, built.stderr
    assert "clozet.jsonl -> test" in built.stderr and "val.jsonl/test.jsonl" in built.stderr
    rows = {s: e["rows"] for s, e in json.loads((out / "manifest.json").read_text())["splits"].items()}
    assert rows["train"] == 2 and rows["test"] >= 1


def test_library_function_takes_clozet_rows_and_an_origin(tmp_path: Path):
    stories = write_stories(tmp_path / "s.parquet", texts(12))
    annotated = {
        "val": [
            {
                "example_id": "a1",
                "story_id": "x1",
                "split": "val",
                "context": "开头。<mask>结尾。",
                "candidates": ["错的句子。", "对的句子。"],
                "label": 1,
                "mask_sentence_index": 1,
                "lang": "zh",
            }
        ]
    }
    report = build_plotcom_with_clozet([stories], annotated, tmp_path / "pc", origin="annotated", seed=1, train_n=5)
    assert report.rows_per_split == {"train": 5, "val": 1, "test": 0}
    assert read_dataset(tmp_path / "pc")["val"].column("origin").to_pylist() == ["annotated"]


def test_without_clozet_val_test_are_marked_automatic(tmp_path: Path):
    stories = write_stories(tmp_path / "s.parquet", texts(20))
    build_dataset("plotcom", [stories], tmp_path / "pc", seed=2)
    manifest = json.loads((tmp_path / "pc" / "manifest.json").read_text())
    assert manifest["split_origin"] == {s: ["auto"] for s in ("train", "val", "test")}
    assert set(read_dataset(tmp_path / "pc")["test"].column("origin").to_pylist()) == {"auto"}


def test_an_older_plotcom_file_without_origin_reads_as_null():
    row = {
        "example_id": "e",
        "story_id": "s",
        "split": "train",
        "context": "甲。<MASK>丙。",
        "target": "乙。",
        "lang": "zh",
    }
    older = table_from_rows([row], PLOTCOM).drop(["origin"])
    assert check_table(older, PLOTCOM).column("origin").to_pylist() == [None]


def test_build_all_recipe_takes_plotcom_val_test_from_clozet(shared_data: Path, tmp_path: Path):
    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps({"text": clozet_story()}, ensure_ascii=False) + "\n", encoding="utf-8")
    recipe = (REPO / "pipelines" / "all.toml").read_text(encoding="utf-8")
    recipe = recipe.replace('inputs = ["lotdata:sample"]', f'inputs = ["lotdata:sample", {json.dumps(str(extra))}]')
    recipe = recipe.replace('# clozet = "clozet"', f"clozet = {json.dumps(str(CLOZET_EXAMPLE))}")
    recipe = recipe.replace('split = "train=0.7,val=0.15,test=0.15"   # without clozet', "# without clozet")
    (tmp_path / "all.toml").write_text(recipe, encoding="utf-8")
    result = lotdata("run", tmp_path / "all.toml", "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    plotcom = read_dataset(tmp_path / "out" / "plotcom")
    assert plotcom["test"].column("origin").to_pylist() == ["clozet"]
    assert set(plotcom["train"].column("origin").to_pylist()) == {"auto"}
    manifest = json.loads((tmp_path / "out" / "plotcom" / "manifest.json").read_text())
    assert manifest["stats"]["stories_dropped"].get("in_clozet") == 1
    for task in ("senpos", "outgen"):
        assert (tmp_path / "out" / task / "README.md").exists()


def test_clozet_with_split_or_another_task_is_refused(tmp_path: Path):
    stories = write_stories(tmp_path / "s.parquet", texts(4))
    with pytest.raises(ValueError, match="--split"):
        build_dataset("plotcom", [stories], tmp_path / "a", clozet={"test": []}, split="val=1")
    with pytest.raises(ValueError, match="plotcom only"):
        build_dataset("senpos", [stories], tmp_path / "b", clozet={"test": []})


# --- sizes and drops (part 4) -----------------------------------------------------------------------


def test_train_n_caps_training_examples_with_whole_stories(tmp_path: Path):
    # 1,000-word stories: SenPos cuts each into several runs, so a story gives several examples
    stories = write_stories(tmp_path / "s.parquet", texts(12, sentences=60))
    full = build_dataset("senpos", [stories], tmp_path / "full", seed=4, split="val=3,test=3")
    capped = build_dataset("senpos", [stories], tmp_path / "sp", seed=4, split="val=3,test=3", train_n=7)

    def per_story(folder: Path, split: str) -> dict[str, int]:
        counts: dict[str, int] = {}
        for sid in read_dataset(folder)[split].column("story_id").to_pylist():
            counts[sid] = counts.get(sid, 0) + 1
        return counts

    whole, kept = per_story(tmp_path / "full", "train"), per_story(tmp_path / "sp", "train")
    assert max(whole.values()) > 1  # a long story gives several examples
    assert 0 < capped.rows_per_split["train"] <= 7 < full.rows_per_split["train"]
    assert all(kept[sid] == whole[sid] for sid in kept)  # never a story cut in two
    manifest = json.loads((tmp_path / "sp" / "manifest.json").read_text())
    assert manifest["params"]["train_n"] == 7
    assert manifest["stats"]["paragraphs"] == full.stats["examples_built"] > 12  # runs of long stories are counted


def test_n_never_cuts_a_story_in_two():
    examples = [{"example_id": f"e{s}-{k}", "story_id": f"s{s}"} for s in range(10) for k in range(3)]
    by_split = split_examples(examples, parse_split_spec("train=1.0"), seed=0, n=10)
    kept = by_split["train"]
    assert len(kept) == 9
    counts = {}
    for ex in kept:
        counts[ex["story_id"]] = counts.get(ex["story_id"], 0) + 1
    assert set(counts.values()) == {3}


def test_every_drop_is_counted_per_rule_for_senpos_paragraphs_and_plotcom_length(tmp_path: Path):
    short = "小熊在河边看见了一只小兔子。小兔子在哭。小熊问它为什么哭泣呢？"  # 3 units: fewer than 4
    stories = write_stories(tmp_path / "s.parquet", texts(10) + [short] + texts(1, sentences=60))
    build_dataset("senpos", [stories], tmp_path / "sp", seed=1)
    stats = json.loads((tmp_path / "sp" / "manifest.json").read_text())["stats"]
    assert stats["stories_dropped"].get("too_few_sentences") == 1
    assert stats["paragraphs_dropped"].get("too_few_sentences", 0) >= 1
    build_dataset("plotcom", [stories], tmp_path / "pc", seed=1, params={"max_words": 300})
    manifest = json.loads((tmp_path / "pc" / "manifest.json").read_text())
    assert manifest["stats"]["stories_dropped"]["too_long"] == 1  # the 60-sentence story
    assert "our choice" in manifest["drop_rules"]["too_long"]
    build_dataset("plotcom", [stories], tmp_path / "pc2", seed=1, params={"max_words": 0})  # 0: no limit
    assert "too_long" not in json.loads((tmp_path / "pc2" / "manifest.json").read_text())["stats"]["stories_dropped"]


def test_manifest_is_enough_to_reproduce_a_build(tmp_path: Path):
    stories = write_stories(tmp_path / "s.parquet", texts(10))
    stopwords = tmp_path / "stop.txt"
    stopwords.write_text("的\n了\n", encoding="utf-8")
    from lotdata.tasks.provenance import build_environment

    env = build_environment("outgen", {"stopwords": str(stopwords), "max_words": 8}, "rjieba")
    assert env["parameter_files"]["stopwords"]["sha256"] == sha256_file(stopwords)
    assert env["packages"]["jieba"] and env["packages"]["rake-nltk"]
    assert "outline_settings" in env
    result = lotdata(
        "build", "plotcom", "--stories", stories, "--out", tmp_path / "pc", env={"LOTDATA_TOKENIZER": "jieba-nohmm"}
    )
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "pc" / "manifest.json").read_text())
    assert manifest["environment"]["tokenizer"] == "jieba-nohmm"
    assert manifest["command"].startswith("lotdata build plotcom --stories ")
    for name, digest in manifest["lot_files"].items():
        assert sha256_file(tmp_path / "pc" / name) == digest


def test_outgen_export_keeps_an_absent_title_absent_and_round_trips(shared_data: Path, tmp_path: Path):
    from lotdata.datasets.folder import export_lot, import_lot

    source = shared_data / "lot_official_examples" / "examples" / "outgen.jsonl"
    import_lot([source], "outgen", tmp_path / "ds", split="test")
    export_lot(tmp_path / "ds", tmp_path / "lot")
    assert (tmp_path / "lot" / "test.jsonl").read_bytes() == source.read_bytes()


# --- the dataset card (part 6) ------------------------------------------------------------------------


def test_card_loads_with_datasets(tmp_path: Path):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local folder: nothing to fetch
    import datasets  # in the test extra: never skipped

    stories = write_stories(tmp_path / "s.parquet", texts(30))
    build_dataset("plotcom", [stories], tmp_path / "pc", seed=5, split="val=4,test=0")
    card = (tmp_path / "pc" / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "configs:" in card and "split: train" in card
    assert "split: test" not in card  # the empty split is left out: datasets cannot load it
    assert "lotdata build plotcom" in card and "seed: `5`" in card and "## Known limitations" in card
    loaded = datasets.load_dataset(str(tmp_path / "pc"), cache_dir=str(tmp_path / "hf"))
    assert set(loaded) == {"train", "val"}
    assert loaded["val"].num_rows == 4 and loaded["train"].num_rows == 26
    assert "origin" in loaded["train"].column_names


def test_card_command_writes_the_card_of_any_dataset_folder(shared_data: Path, tmp_path: Path):
    lotdata_import = lotdata(
        "import", "lot", CLOZET_EXAMPLE, "--task", "clozet", "--split", "test", "--out", tmp_path / "c"
    )
    assert lotdata_import.returncode == 0, lotdata_import.stderr
    (tmp_path / "c" / "README.md").unlink()
    result = lotdata("card", tmp_path / "c")
    assert result.returncode == 0, result.stderr
    card = (tmp_path / "c" / "README.md").read_text(encoding="utf-8")
    assert "task_categories:\n- multiple-choice" in card and "split: test" in card
    missing = lotdata("card", tmp_path / "nowhere")
    assert missing.returncode == 1 and "nowhere" in missing.stderr


def test_incomplete_folder_is_refused_by_readers(tmp_path: Path):
    stories = write_stories(tmp_path / "s.parquet", texts(10))
    build_dataset("plotcom", [stories], tmp_path / "pc", seed=1)
    (tmp_path / "pc" / INCOMPLETE_MARKER).write_text("")
    with pytest.raises(InputError, match="incomplete dataset folder"):
        read_dataset(tmp_path / "pc")


def test_a_recipe_run_with_another_tokenizer_is_not_skipped_as_done(tmp_path: Path):
    recipe = tmp_path / "r.toml"
    stories = write_stories(tmp_path / "s.parquet", texts(8))
    recipe.write_text(
        f'stories = {json.dumps(str(stories))}\n[[build]]\ntask = "plotcom"\nsplit = "train=1.0"\n', encoding="utf-8"
    )
    first = lotdata("run", recipe, "--out", tmp_path / "out")
    again = lotdata("run", recipe, "--out", tmp_path / "out")
    other = lotdata("run", recipe, "--out", tmp_path / "out", env={"LOTDATA_TOKENIZER": "jieba-nohmm"})
    assert first.returncode == again.returncode == other.returncode == 0, other.stderr
    assert "skipped (done)" in again.stderr and "skipped (done)" not in other.stderr
    manifest = json.loads((tmp_path / "out" / "plotcom" / "manifest.json").read_text())
    assert manifest["environment"]["tokenizer"] == "jieba-nohmm"


def test_every_shipped_recipe_parses():
    """Build recipes parse with the build parser; crawl recipes ([[sites]], `lotdata crawl`) with the crawl loader."""
    import tomllib

    from lotdata.pipeline import load_recipe
    from lotdata.sources.crawl import load_crawl_recipe

    kinds = {"build": 0, "crawl": 0}
    for recipe in sorted((REPO / "pipelines").glob("*.toml")):
        if "sites" in tomllib.loads(recipe.read_text(encoding="utf-8")):
            assert load_crawl_recipe(recipe), recipe
            kinds["crawl"] += 1
        else:
            assert load_recipe(recipe)["build"], recipe
            kinds["build"] += 1
    assert kinds["build"] and kinds["crawl"], kinds


def test_lot_sizes_recipe_runs_where_its_stories_and_clozet_are(shared_data: Path, tmp_path: Path):
    write_stories(tmp_path / "stories.parquet", texts(16) + [clozet_story()])
    imported = lotdata(
        "import", "lot", CLOZET_EXAMPLE, "--task", "clozet", "--split", "test", "--out", tmp_path / "clozet_cases"
    )
    assert imported.returncode == 0, imported.stderr
    result = subprocess.run(
        [sys.executable, "-m", "lotdata.cli", "run", "lot", "--out", "out"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert result.returncode == 0, result.stderr
    assert "fewer than the 863 asked for" in result.stderr and "fewer than the 729 asked for" in result.stderr
    assert (
        json.loads((tmp_path / "out" / "clozet" / "manifest.json").read_text())["params"]["split"] == "val=294,test=294"
    )
    manifest = json.loads((tmp_path / "out" / "plotcom" / "manifest.json").read_text())
    assert manifest["params"]["train_n"] == 13099 and manifest["split_origin"]["test"] == ["clozet"]
    assert manifest["params"]["clozet_split"] == "val=465,test=464"
