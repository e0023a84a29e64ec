"""Every registered input format passes the same checks (as every task does in test_task_conformance.py):
the one detector recognises its own sample (and no other format of the same priority claims it), `open_input`
says what kind of file it is, the sample parses to valid `stories` rows whose url is ``path#row``, its bad
record goes to the quarantine with the file, the row and a reason, and where the format has a writer the
rows it writes read back the same.

Adding a format = one module in `lotdata/sources/formats/` + its entry in SAMPLES below. The last tests
register a made-up format here and read a file of it with `lotdata read`, with no other file edited: the
proof that reading asks the registry rather than naming the formats."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.datasets import formats as registry
from lotdata.datasets.formats import InputFormat, Probe, Record, bad, format_names, get_format, register_format
from lotdata.datasets.inputs import KINDS, open_input
from lotdata.errors import InputError
from lotdata.schema import QUARANTINE, STORIES, check_table, table_from_rows
from lotdata.sources.readers import detect_format, read_stories
from lotdata.text import join_sentences


@dataclass(frozen=True)
class Sample:
    """A small file of the format: `good` stories and one bad record at `bad_row`."""

    write: Callable[[Path], Path]
    good: int
    bad_row: int


def _lines(path: Path, lines: list[str], encoding: str = "utf-8") -> Path:
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


def _csv(path: Path, rows: list[list[str]]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def _txt(folder: Path) -> Path:
    # block 3 is only zero-width spaces: nothing is left after normalisation
    return _lines(
        folder / "tales.txt",
        [
            "小熊",
            "夜里，小熊睡不着觉。它看见了月亮船。",
            "",
            "The fox ran home. It was dry inside.",
            "",
            "\u200b\u200b",
        ],
    )


def _jsonl(folder: Path) -> Path:
    return _lines(
        folder / "tales.jsonl",
        [
            json.dumps({"id": "a", "title": "雪人", "text": "下雪了，孩子们堆了一个雪人。"}, ensure_ascii=False),
            json.dumps({"id": "b", "story": "Ann found a coin. She gave it away."}),
            '{"id": "c", "text": "not closed',
        ],
    )


def _csv_sample(folder: Path) -> Path:
    return _csv(
        folder / "tales.csv",
        [
            ["id", "title", "story"],
            ["t1", "小树", "春天来了，小树长出了新叶子。"],
            ["t2", "", "Sam lost his hat. He laughed."],
            ["t3", "", "  "],
        ],
    )


def _parquet(folder: Path) -> Path:
    path = folder / "tales.parquet"
    pq.write_table(
        pa.table(
            {
                "id": ["p1", "p2", "p3"],
                "title": ["河马", None, None],
                "text": ["河马张开大嘴，打了一个哈欠。", "The owl woke up. It went hunting.", None],
            }
        ),
        path,
    )
    return path


def _rocstories(folder: Path) -> Path:
    head = ["storyid", "storytitle", *[f"sentence{i}" for i in range(1, 6)]]
    return _csv(
        folder / "roc.csv",
        [
            head,
            ["r1", "Kite", "Maya flew a kite.", "It rose.", "The wind fell.", "It dropped.", "She laughed."],
            ["r2", "Soup", "Tom made soup.", "It was hot.", "He waited.", "He ate it.", "It was good."],
            ["r3", "Bad", "A.", "B.", "C.", "D.", ""],
        ],
    )


def _storycloze(folder: Path) -> Path:
    head = [
        "InputStoryid",
        *[f"InputSentence{i}" for i in range(1, 5)],
        "RandomFifthSentenceQuiz1",
        "RandomFifthSentenceQuiz2",
        "AnswerRightEnding",
    ]
    return _csv(
        folder / "cloze.csv",
        [
            head,
            [
                "s1",
                "Kim baked a cake.",
                "She left it out",
                "Her dog sniffed it.",
                "It jumped.",
                "The dog ate the cake.",
                "Kim won a prize.",
                "1",
            ],
            [
                "s2",
                "Joe ran.",
                "He trained.",
                "It rained.",
                "He kept going.",
                "He hated it.",
                "He finished proudly.",
                "2",
            ],
            ["s3", "A.", "B.", "C.", "D.", "E.", "F.", "3"],
        ],
    )


def _cmrc(folder: Path) -> Path:
    (folder / "tiny.valid.answer").write_text("<qid_0> ||| 松鼠\n<qid_1> ||| 海\n", encoding="utf-8")
    return _lines(
        folder / "tiny.valid.doc_query",
        [
            "1 ||| 今天 是 小 刺猬 的 生日 ， XXXXX 送 来 了 苹果 。",
            "<qid_0> ||| XXXXX 送 来 了 苹果 。",
            "1 ||| 蜗牛 想 去 看 XXXXX 。",
            "2 ||| 它 爬 了 一 年 。",
            "<qid_1> ||| 蜗牛 想 去 看 XXXXX 。",
            "1 ||| 青蛙 坐 在 井 底 。",
            "<qid_2> ||| 一 只 XXXXX 飞 过来 。",
        ],
    )


def _roc_lines(folder: Path) -> Path:
    return _lines(
        folder / "roc.json",
        ['["Ben lost his keys. They were in his pocket."]', '["Ann sang. Everyone clapped."]', "not json"],
    )


#: format -> its sample; a registered format without an entry fails test_every_format_has_a_sample
SAMPLES: dict[str, Sample] = {
    "txt": Sample(_txt, good=2, bad_row=6),
    "jsonl": Sample(_jsonl, good=2, bad_row=3),
    "csv": Sample(_csv_sample, good=2, bad_row=3),
    "parquet": Sample(_parquet, good=2, bad_row=3),
    "rocstories": Sample(_rocstories, good=2, bad_row=3),
    "storycloze": Sample(_storycloze, good=2, bad_row=3),
    "cmrc": Sample(_cmrc, good=2, bad_row=3),
    "roc_lines": Sample(_roc_lines, good=2, bad_row=3),
}
FORMATS = format_names()


def test_every_format_has_a_sample():
    assert {"txt", "jsonl", "csv", "parquet", "rocstories", "storycloze", "cmrc", "roc_lines"} <= set(FORMATS)
    assert sorted(set(FORMATS) - set(SAMPLES)) == []
    with pytest.raises(ValueError, match="unknown format 'nope'"):
        get_format("nope")


@pytest.mark.parametrize("name", FORMATS)
def test_detects_its_own_sample_unambiguously(name: str, tmp_path: Path):
    spec = get_format(name)
    path = SAMPLES[name].write(tmp_path)
    assert detect_format(path) == name
    claims = [
        other.name for other in registry.all_formats() if other.priority == spec.priority and other.detect(Probe(path))
    ]
    assert claims == [name], f"formats of the same priority that claim a {name} file: {claims}"
    found = open_input(path)
    assert found.kind in KINDS and found.files == (path,)
    assert (found.kind, found.task) == spec.kind(Probe(path))


@pytest.mark.parametrize("name", FORMATS)
def test_sample_reads_into_valid_rows_and_a_quarantine(name: str, tmp_path: Path):
    sample = SAMPLES[name]
    path = sample.write(tmp_path)
    result = read_stories([path])
    stories = check_table(table_from_rows(result.stories, STORIES), STORIES, name).to_pylist()
    assert len(stories) == sample.good
    imposed = {r.source for r in get_format(name).parse(path) if r.source}  # a record may name its corpus (cmrc vs cft)
    for story in stories:
        assert story["text"] and join_sentences(story["sentences"], story["lang"]) == story["text"]
        assert story["url"].startswith(f"{path}#") and story["status"] == "raw"
        assert story["source"] in ({get_format(name).default_source or path.stem} | imposed)
    quarantine = check_table(table_from_rows(result.quarantine, QUARANTINE), QUARANTINE, name).to_pylist()
    assert [(q["path"], q["row"]) for q in quarantine] == [(str(path), sample.bad_row)]
    assert quarantine[0]["reason"] and quarantine[0]["raw"] is not None
    assert result.counts == {"read": sample.good + 1, "kept": sample.good, "quarantined": 1, "duplicates": 0}
    # the format named explicitly reads the same
    assert read_stories([path], fmt=name) == result


@pytest.mark.parametrize("name", [n for n in FORMATS if get_format(n).write is not None])
def test_round_trip_through_the_writer(name: str, tmp_path: Path):
    spec = get_format(name)
    sample = SAMPLES[name].write(tmp_path)
    stories = read_stories([sample]).stories
    target = tmp_path / "out"
    target.mkdir()
    written = spec.write(stories, target / f"again{sample.suffix}")
    assert detect_format(written) == name
    again = read_stories([written], fmt=name).stories
    keys = ("text", "title", "lang", "sentences")
    assert [{k: s[k] for k in keys} for s in again] == [{k: s[k] for k in keys} for s in stories]


def _lot_jsonl(folder: Path) -> Path:
    record = {"story": "小兔子在森林里迷路了。它找到了回家的路。", "outline": ["小兔子", "回家的路"], "title": "迷路"}
    other = {"story": "The owl woke up at night. It went hunting.", "outline": ["owl", "night"]}
    return _lines(folder / "test.jsonl", [json.dumps(record, ensure_ascii=False), json.dumps(other), json.dumps(["x"])])


def test_a_lot_task_file_is_jsonl_that_open_input_calls_lot_jsonl(tmp_path: Path):
    path = _lot_jsonl(tmp_path)
    assert detect_format(path) == "jsonl"
    found = open_input(path)
    assert (found.kind, found.task) == ("lot-jsonl", "outgen")
    result = read_stories([path])
    assert len(result.stories) == 2 and [q["row"] for q in result.quarantine] == [3]


# ------------------------------------------------------------------------------------------------
# a made-up format, registered here only: "tales" files hold `id<TAB>story` lines


def _parse_tales(path: Path) -> Iterator[Record]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        if "\t" not in line:
            yield bad(number, "no tab between id and story", line)
            continue
        story_id, text = line.split("\t", 1)
        yield Record(row=number, raw=line, text=text, source_id=story_id)


TALES = InputFormat(
    name="tales",
    description="an `id<TAB>story` line (.tales)",
    detect=lambda p: p.suffix == ".tales",
    parse=_parse_tales,
    default_source="tales-corpus",
)


@pytest.fixture
def tales(tmp_path: Path):
    register_format(TALES)
    path = _lines(
        tmp_path / "corpus.tales",
        ["t1\t狐狸跑回了家。外面下着雨。", "broken line", "t2\tThe owl woke up. It went hunting."],
    )
    yield path
    registry.unregister_format("tales")


def test_a_made_up_format_reads_end_to_end(tales: Path, tmp_path: Path):
    assert "tales" in format_names() and detect_format(tales) == "tales"
    assert open_input(tales).kind == "file"
    out = tmp_path / "stories.parquet"
    result = CliRunner().invoke(app, ["read", str(tales), "--out", str(out)])
    assert result.exit_code == 0, result.output
    stories = check_table(pq.read_table(out), STORIES, str(out)).to_pylist()
    assert [(s["source_id"], s["source"], s["url"]) for s in stories] == [
        ("t1", "tales-corpus", f"{tales}#1"),
        ("t2", "tales-corpus", f"{tales}#3"),
    ]
    quarantine = pq.read_table(tmp_path / "stories.quarantine.parquet").to_pylist()
    assert [(q["path"], q["row"], q["reason"]) for q in quarantine] == [(str(tales), 2, "no tab between id and story")]
    # named explicitly, on a file whose extension says nothing
    plain = tmp_path / "corpus.data"
    plain.write_bytes(tales.read_bytes())
    named = CliRunner().invoke(app, ["read", str(plain), "--format", "tales", "--out", str(tmp_path / "named.parquet")])
    assert named.exit_code == 0, named.output
    assert pq.read_table(tmp_path / "named.parquet").column("text").to_pylist() == [s["text"] for s in stories]


def test_an_unregistered_format_is_unknown(tmp_path: Path):
    path = _lines(tmp_path / "corpus.tales", ["t1\tA fox."])
    with pytest.raises(InputError, match="cannot tell the format"):
        detect_format(path)
    result = CliRunner().invoke(app, ["read", str(path), "--format", "tales", "--out", str(tmp_path / "x.parquet")])
    assert result.exit_code != 0 and "tales" in result.output


def test_a_second_record_under_one_name_is_refused():
    with pytest.raises(ValueError, match="registered twice"):
        register_format(InputFormat(name="txt", description="", detect=lambda p: False, parse=_parse_tales))
