"""The datasets layer: `open_input` recognises every kind of folder and file, manifests say their `kind`,
and a command given the wrong kind exits 3 saying what it got and what it expected."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import write_stories
from typer.testing import CliRunner

from lotdata.clean.files import clean_files
from lotdata.clean.step import CleanParams
from lotdata.cli import app
from lotdata.datasets.folder import export_lot, load_stories, read_dataset
from lotdata.datasets.inputs import open_input
from lotdata.errors import InputError
from lotdata.io import INCOMPLETE_MARKER, write_manifest, write_text
from lotdata.tasks.build import build_dataset

TEXTS = [
    "小狐狸每天早上都去河边喝水。它看见河里的小鱼游来游去，心里很羡慕。有一天它想学游泳，结果掉进了水里。"
    "一只老乌龟游过来把它驮上了岸。从那以后，小狐狸每天都跟着乌龟练习游泳。",
    "小熊想给妈妈做一个生日蛋糕。它找来面粉、鸡蛋和蜂蜜，在厨房里忙了一个下午。蛋糕烤焦了一半，样子很难看。"
    "可是妈妈吃得很开心，说这是她吃过最甜的蛋糕。小熊高兴得跳了起来。",
    "山上住着一位老爷爷，他养了一群白鹅。每天清晨，白鹅排着队走到池塘边洗澡。有一天一只狐狸躲在草丛里偷看。"
    "领头的大白鹅发现了它，大声叫了起来。狐狸吓得转身就跑，再也不敢来了。",
]


@pytest.fixture(scope="module")
def folders(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("kinds")
    stories = write_stories(root / "stories.parquet", TEXTS)
    build_dataset("plotcom", [stories], root / "plotcom", seed=0, split="train=0.4,val=0.3,test=0.3")
    clean_files([stories], root / "clean", CleanParams())
    crawl = root / "crawl"  # a crawl folder as runs before `kind` wrote it: recognised by its manifest's task
    write_stories(crawl / "stories.parquet", TEXTS[:1])
    write_manifest(
        crawl, task="crawl", command="lotdata crawl", params={}, inputs=[], files={"stories": crawl / "stories.parquet"}
    )
    manifest = json.loads((crawl / "manifest.json").read_text(encoding="utf-8"))
    del manifest["kind"]
    write_text(json.dumps(manifest), crawl / "manifest.json")
    return {"stories": stories, "plotcom": root / "plotcom", "clean": root / "clean", "crawl": crawl, "root": root}


def test_every_writer_says_its_kind(folders):
    assert json.loads((folders["plotcom"] / "manifest.json").read_text())["kind"] == "dataset"
    assert json.loads((folders["clean"] / "manifest.json").read_text())["kind"] == "clean"


def test_open_input_recognises_each_kind(folders, tmp_path: Path):
    assert open_input(folders["stories"]).kind == "stories"
    found = open_input(folders["plotcom"])
    assert (found.kind, found.task) == ("dataset", "plotcom") and all(f.exists() for f in found.files)
    assert open_input(folders["clean"]).kind == "clean"
    assert open_input(folders["crawl"]).kind == "crawl"  # no `kind` in its manifest: from its task
    assert open_input(folders["plotcom"] / "lot" / "train.jsonl").task == "plotcom"
    lot = tmp_path / "lot"
    export_lot(folders["plotcom"], lot)
    found = open_input(lot)
    assert (found.kind, found.task) == ("lot-jsonl", "plotcom")
    assert open_input(folders["plotcom"] / "train.parquet").kind == "task-table"
    csv = tmp_path / "sct.csv"
    csv.write_text("InputStoryid,InputSentence1\n", encoding="utf-8")
    assert open_input(csv).kind == "storycloze-csv"
    report = tmp_path / "audit"
    report.mkdir()
    (report / "audit.json").write_text("{}")
    (report / "report.md").write_text("#")
    assert open_input(report).kind == "audit-report"


def test_wrong_kind_is_bad_input_naming_both(folders):
    with pytest.raises(InputError, match="clean. output folder, expected a task dataset folder"):
        read_dataset(folders["clean"])
    with pytest.raises(InputError, match="expected a stories Parquet table"):
        load_stories([folders["plotcom"]])
    # a clean or crawl folder gives the stories it kept
    assert len(load_stories([folders["clean"]])) == 3 and len(load_stories([folders["crawl"]])) == 1


def test_incomplete_folder_is_refused(folders, tmp_path: Path):
    half = tmp_path / "half"
    half.mkdir()
    (half / INCOMPLETE_MARKER).write_text("")
    with pytest.raises(InputError, match="incomplete"):
        open_input(half)


@pytest.mark.parametrize(
    "command", [["stats"], ["card"], ["export", "lot", "--out", "{tmp}/x"], ["audit-bias", "--out", "{tmp}/a"]]
)
@pytest.mark.parametrize("kind", ["clean", "crawl"])
def test_cli_on_a_clean_or_crawl_folder_exits_3_with_a_clear_message(folders, command, kind, tmp_path: Path):
    args = [c.replace("{tmp}", str(tmp_path)) for c in command]
    result = CliRunner().invoke(
        app, [*args[: 2 if args[0] == "export" else 1], str(folders[kind]), *args[2 if args[0] == "export" else 1 :]]
    )
    assert result.exit_code == 3, result.output
    assert f"`lotdata {kind}` output folder" in result.output and "expected" in result.output
    assert "Traceback" not in result.output and "KeyError" not in result.output
