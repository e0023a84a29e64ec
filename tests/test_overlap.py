"""lotdata overlap: exact figures against a brute-force reference, planted spans, the shared fables, bad input."""

from __future__ import annotations

import gzip
import json
import tempfile
import unicodedata
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import write_stories
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.errors import InputError
from lotdata.overlap import TokenSpec, load_test_set, measure_overlap

runner = CliRunner()
WORDS = ["ant", "bee", "cat", "dog", "elk"]


# ------------------------------------------------------------------------------ brute-force reference


def brute_force(tests: list[str], refs: list[str], n: int, threshold: float) -> tuple[list[tuple[int, int]], dict]:
    """Every reference n-gram in a Python set; each test example's (n-grams, overlapped)."""
    ref_grams = set()
    for line in refs:
        words = line.split()
        ref_grams.update(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    per_example = []
    for text in tests:
        words = text.split()
        grams = [tuple(words[i : i + n]) for i in range(len(words) - n + 1)]
        per_example.append((len(grams), sum(g in ref_grams for g in grams)))
    total = sum(t for t, _ in per_example)
    hit = sum(h for _, h in per_example)
    shares = [h / t if t else 0.0 for t, h in per_example]
    return per_example, {
        "percent": hit / total if total else 0.0,
        "ngrams": hit,
        "examples": sum(h > 0 for _, h in per_example),
        "examples_over": sum(s > threshold for s in shares),
        "max_percent": max(shares, default=0.0),
        "total_ngrams": total,
        "n_examples": len(tests),
    }


sentence = st.lists(st.sampled_from(WORDS), min_size=0, max_size=14).map(" ".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tests=st.lists(sentence.filter(str.strip), min_size=1, max_size=6),
    refs=st.lists(sentence, max_size=8),
    n=st.integers(1, 4),
    threshold=st.sampled_from([0.0, 0.1, 0.5]),
    shard_bytes=st.sampled_from([7, 40, 1 << 20]),
)
def test_figures_equal_a_brute_force_reference(tests, refs, n, threshold, shard_bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        write_stories(tmp / "test.parquet", tests, lang="en")
        (tmp / "ref.txt").write_text("".join(line + "\n" for line in refs))
        test_set = load_test_set(tmp / "test.parquet")
        per_example, expected = brute_force([ex.texts[-1][1] for ex in test_set.splits["test"]], refs, n, threshold)
        if not sum(grams for grams, _ in per_example):  # no test n-gram at all: an error, never "0% overlap"
            with pytest.raises(InputError, match=f"has no {n}-gram"):
                measure_overlap(
                    test_set,
                    [str(tmp / "ref.txt")],
                    tmp / "work",
                    threshold=threshold,
                    shard_bytes=shard_bytes,
                    spec=TokenSpec(n=n, lang="en"),
                )
            return
        if not any(r.strip() for r in refs):  # references without a document: an error, never "0% overlap"
            with pytest.raises(InputError, match="no document"):
                measure_overlap(
                    test_set,
                    [str(tmp / "ref.txt")],
                    tmp / "work",
                    threshold=threshold,
                    shard_bytes=shard_bytes,
                    spec=TokenSpec(n=n, lang="en"),
                )
            return
        result = measure_overlap(
            test_set,
            [str(tmp / "ref.txt")],
            tmp / "work",
            threshold=threshold,
            shard_bytes=shard_bytes,
            spec=TokenSpec(n=n, lang="en"),
        )
    rows = result.examples["test"]
    assert [(r["ngrams"], r["overlapped"]) for r in rows] == per_example
    summary = {k: v for k, v in result.summary[0].items() if k != "split"}
    assert summary == expected


# ------------------------------------------------------------------------------ planted overlaps

STORIES = [  # written for this test
    "小明早上起床后发现窗外下起了大雪。他穿上厚厚的棉衣，跑到院子里堆了一个雪人。妈妈笑着给雪人戴上了一顶红帽子。",
    "老渔夫每天清晨都划着小船去湖中央撒网。有一天，他捞上来一只会说话的金色鲤鱼，鲤鱼请求他放自己回家。渔夫心软了，把它放回了湖里。",
    "森林里的小兔子想学会游泳。它请教了青蛙，又请教了鸭子，最后终于在小河里游了一个来回。",
]
PLANTED = "他捞上来一只会说话的金色鲤鱼，鲤鱼请求他放自己回家。"


def _reference(tmp: Path) -> Path:
    ref = tmp / "corpus.txt"
    lines = [
        "今天的天气很好，我们一起去公园散步吧。",
        "这是一段无关的文字，讲的是城市里的交通和新修的地铁线路。",
        "据说在很久以前，" + PLANTED + "后来的事情谁也不知道了。",
        "最后一行也和测试故事没有关系。",
    ]
    ref.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ref


def test_planted_overlap_is_found_with_its_span_and_document(tmp_path: Path) -> None:
    write_stories(tmp_path / "test.parquet", STORIES)
    ref = _reference(tmp_path)
    result = runner.invoke(
        app,
        [
            "overlap",
            str(tmp_path / "test.parquet"),
            "--reference",
            str(ref),
            "--out",
            str(tmp_path / "out"),
            "--n",
            "4",
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    rows = pq.read_table(tmp_path / "out" / "examples.parquet").to_pylist()
    hit = [r for r in rows if r["overlapped"]]
    assert len(hit) == 1 and "金色鲤鱼" in STORIES[[r["example_id"] for r in rows].index(hit[0]["example_id"])]
    span = hit[0]["spans"][0]
    assert span["field"] == "text"
    # the run shared by both texts, NFKC-folded ("，" -> ","): it starts at the comma before the planted sentence
    assert span["text"] == "," + unicodedata.normalize("NFKC", PLANTED)
    offset = ref.read_bytes().index("据说".encode())
    assert span["ref_doc"] == f"{ref}@{offset}"
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    split = summary["splits"][0]
    assert (split["n_examples"], split["examples"], split["ngrams"]) == (3, 1, hit[0]["overlapped"])
    assert split["examples_over"] == 1 and 0.1 < split["max_percent"] < 1
    assert "金色鲤鱼" in (tmp_path / "out" / "report.md").read_text()


def test_compressed_jsonl_and_parquet_references_give_the_same_figures(tmp_path: Path) -> None:
    import zstandard

    write_stories(tmp_path / "test.parquet", STORIES)
    lines = _reference(tmp_path).read_text(encoding="utf-8").splitlines()
    jsonl = "".join(json.dumps({"id": i, "text": line}, ensure_ascii=False) + "\n" for i, line in enumerate(lines))
    (tmp_path / "c.jsonl.gz").write_bytes(gzip.compress(jsonl.encode()))
    (tmp_path / "c.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(jsonl.encode()))
    write_stories(tmp_path / "c.parquet", lines)
    test_set = load_test_set(tmp_path / "test.parquet")
    found = {}
    for name in ("corpus.txt", "c.jsonl.gz", "c.jsonl.zst", "c.parquet"):
        result = measure_overlap(test_set, [str(tmp_path / name)], tmp_path / f"w_{name}", spec=TokenSpec(n=4))
        found[name] = (result.summary, [r["overlapped"] for r in result.examples["test"]])
        assert result.scan["docs"] == 4
    assert len({json.dumps(v) for v in found.values()}) == 1 and found["c.parquet"][0][0]["examples"] == 1
    spans = measure_overlap(test_set, [str(tmp_path / "c.jsonl.zst")], tmp_path / "w2", spec=TokenSpec(n=4)).examples[
        "test"
    ]
    assert [s["ref_doc"] for r in spans for s in r["spans"]][0] == f"{tmp_path / 'c.jsonl.zst'}:3"


def test_write_filtered_drops_the_overlapped_examples_and_a_rerun_resumes(tmp_path: Path) -> None:
    from lotdata.datasets.folder import import_lot

    lot = tmp_path / "lot"
    lot.mkdir()
    records = [{"story": s, "outline": ["一个", "提纲"], "title": f"故事{i}"} for i, s in enumerate(STORIES)]
    (lot / "test.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    import_lot([lot / "test.jsonl"], "outgen", tmp_path / "ds")
    args = [
        "overlap",
        str(tmp_path / "ds"),
        "--reference",
        str(_reference(tmp_path)),
        "--out",
        str(tmp_path / "out"),
        "--n",
        "4",
        "--workers",
        "1",
        "--write-filtered",
        str(tmp_path / "filtered"),
    ]
    assert runner.invoke(app, args).exit_code == 0
    kept = pq.read_table(tmp_path / "filtered" / "test.parquet").to_pylist()
    assert [r["story"] for r in kept] == [STORIES[0], STORIES[2]]
    manifest = json.loads((tmp_path / "filtered" / "manifest.json").read_text())
    assert manifest["task"] == "outgen" and manifest["stats"]["removed_over_threshold"]["test"] == 1
    assert (tmp_path / "filtered" / "lot" / "test.jsonl").exists()
    assert runner.invoke(app, args).exit_code == 0
    scan = json.loads((tmp_path / "out" / "summary.json").read_text())["scan"]
    assert scan["shards_resumed"] == scan["shards"] == 1


# ------------------------------------------------------------------------------ the shared fables


@pytest.mark.slow
def test_fables_shared_by_cmrc_cft_and_lot_outgen_are_reported(shared_data: Path, tmp_path: Path) -> None:
    cmrc = shared_data / "cmrc2017_children_stories" / "validation"
    for name, files in {
        "cmrc": [cmrc / "cloze.valid.doc_query", cmrc / "user.valid.doc_query"],
        "cft": [shared_data / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip"],
    }.items():
        read = runner.invoke(
            app, ["read", *map(str, files), "--format", "cmrc", "--out", str(tmp_path / f"{name}.parquet")]
        )
        assert read.exit_code == 0, read.output
    result = runner.invoke(
        app,
        [
            "overlap",
            str(shared_data / "lot_outgen_dev" / "dev.jsonl"),
            "--reference",
            str(tmp_path / "cmrc.parquet"),
            str(tmp_path / "cft.parquet"),
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    split = json.loads((tmp_path / "out" / "summary.json").read_text())["splits"][0]
    # 11 stories over 10% and 16 with a shared 8-gram when this was written (README); allow a tokenizer update
    assert split["n_examples"] == 111 and split["examples_over"] >= 9 and split["examples"] >= 12
    assert split["max_percent"] == 1.0
    rows = pq.read_table(tmp_path / "out" / "examples.parquet").to_pylist()
    refs = {r["spans"][0]["ref_doc"].split(":")[0] for r in rows if r["over_threshold"]}
    assert refs == {str(tmp_path / "cmrc.parquet"), str(tmp_path / "cft.parquet")}


# ------------------------------------------------------------------------------ bad input


def test_bad_references_are_named_and_skip_bad_lists_them(tmp_path: Path) -> None:
    write_stories(tmp_path / "test.parquet", STORIES)
    good = _reference(tmp_path)
    binary = tmp_path / "image.txt"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    broken = tmp_path / "broken.jsonl.gz"
    broken.write_bytes(gzip.compress('{"text": "好的"}\n'.encode() * 50)[:40])
    missing = tmp_path / "missing.txt"
    base = ["overlap", str(tmp_path / "test.parquet"), "--out", str(tmp_path / "out"), "--n", "4", "--workers", "1"]
    # README: a missing path exits 1 ("not found"), bad data 3
    for bad, words, code in ((missing, "not found", 1), (binary, "binary", 3), (broken, "cannot read", 3)):
        result = runner.invoke(app, [*base, "--reference", str(good), str(bad)])
        assert result.exit_code == code, result.output
        said = " ".join(result.output.split())  # rich wraps long lines
        assert bad.name in said and words in said and "Traceback" not in said
    result = runner.invoke(app, [*base, "--reference", str(good), str(binary), str(broken), str(missing), "--skip-bad"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert len(summary["skipped"]) == 3 and all(
        any(p.name in s for s in summary["skipped"]) for p in (binary, broken, missing)
    )
    assert summary["splits"][0]["examples"] == 1  # the good reference was still measured
    assert "skipped" in result.output


def test_unknown_tokenizer_and_bad_test_file_are_clear_errors(tmp_path: Path) -> None:
    write_stories(tmp_path / "test.parquet", STORIES)
    ref = _reference(tmp_path)
    result = runner.invoke(
        app,
        [
            "overlap",
            str(tmp_path / "test.parquet"),
            "-r",
            str(ref),
            "--out",
            str(tmp_path / "o"),
            "--tokenizer",
            "nope",
        ],
    )
    assert result.exit_code == 1 and "--tokenizer must be one of ['jieba'" in " ".join(result.output.split())
    (tmp_path / "junk.parquet").write_bytes(b"not parquet")
    result = runner.invoke(
        app, ["overlap", str(tmp_path / "junk.parquet"), "-r", str(ref), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 3 and "junk.parquet" in " ".join(result.output.split())


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ＡＢ１２，。！？：；（）　…“”‘’ａ ｶﾞ①㈱ﬁ가각\u0301e한文字abc")))
def test_fast_nfkc_equals_unicodedata(text: str) -> None:
    from lotdata.overlap.texts import nfkc

    assert nfkc(text) == unicodedata.normalize("NFKC", text)


@settings(max_examples=80, deadline=None)
@given(
    tests=st.lists(st.lists(st.sampled_from(WORDS), max_size=10), min_size=1, max_size=5),
    docs=st.lists(st.lists(st.lists(st.sampled_from(WORDS + ["fox"]), max_size=12), max_size=3), max_size=5),
    n=st.integers(1, 3),
)
def test_matcher_finds_every_occurrence_in_document_order(tests, docs, n) -> None:
    from lotdata.overlap.measure import Index, Matcher

    index = Index(TokenSpec(n=n, lang="en"))
    for words in tests:
        index.add(words)
    expected = []
    for d, segments in enumerate(docs):
        for seg in segments:  # n-grams never cross segments or documents
            for gram in zip(*[seg[i:] for i in range(n)]):
                ids = tuple(index.vocab.get(w) for w in gram)
                if ids in index.grams:
                    expected.append((d, index.grams[ids]))
    assert list(Matcher(index).find(docs)) == expected


def test_token_spec_nfkc_masks_and_drop_punct() -> None:
    words = TokenSpec(n=2, lang="zh").words()
    assert words("小狗，小猫！<mask>大象。") == [["小狗", ",", "小猫", "!"], ["大象", "。"]]
    assert TokenSpec(n=2, lang="zh", drop_punct=True).words()("小狗，小猫！[MASK]大象。") == [
        ["小狗", "小猫"],
        ["大象"],
    ]
    assert TokenSpec(n=2, lang="en").words()("The cat's hat, ＦＵＬＬ width.") == [
        ["The", "cat's", "hat", ",", "FULL", "width", "."]
    ]


def test_drop_punct_changes_the_ngrams_counted(tmp_path: Path) -> None:
    write_stories(tmp_path / "test.parquet", STORIES)
    test_set = load_test_set(tmp_path / "test.parquet")
    ref = str(_reference(tmp_path))
    kept = measure_overlap(test_set, [ref], tmp_path / "a", spec=TokenSpec(n=4))
    dropped = measure_overlap(test_set, [ref], tmp_path / "b", spec=TokenSpec(n=4, drop_punct=True))
    assert dropped.summary[0]["total_ngrams"] < kept.summary[0]["total_ngrams"]
    assert dropped.summary[0]["examples"] == kept.summary[0]["examples"] == 1
