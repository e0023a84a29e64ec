"""audit-bias: each baseline on tiny hand-made cases whose answer is known, the token scan, the
model-baseline contract (with a fake estimator registered here), the report and the CLI.

All texts are written for these tests.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.audit.baselines import get_baseline, marker_pairs
from lotdata.audit.features import FeatureCache, sentence_bleu
from lotdata.audit.items import Item
from lotdata.audit.run import audit, write_audit
from lotdata.audit.stats import wilson_interval
from lotdata.audit.work import choose
from lotdata.cli import app
from lotdata.datasets.folder import write_dataset


def clozet_item(
    before: list[str], candidates: list[str], label: int, lang: str = "zh", after: list[str] | None = None, i: int = 0
) -> Item:
    return Item(
        example_id=f"c{i}",
        split="test",
        task="clozet",
        lang=lang,
        label=label,
        before=before,
        after=after or [],
        candidates=candidates,
    )


def senpos_item(sentences: list[str], removed: str, label: int, i: int = 0) -> Item:
    return Item(
        example_id=f"s{i}", split="test", task="senpos", lang="zh", label=label, sentences=sentences, removed=removed
    )


def predict(name: str, items: list[Item], train: list[Item] | None = None, seed: int = 0) -> list[int]:
    import random

    baseline = get_baseline(name).make(FeatureCache())
    if baseline.learns:
        baseline.fit(train or [])
    rng = random.Random(seed)
    return [it.label_of_option(choose(row, rng)[0]) for it, row in zip(items, baseline.scores(items))]


# --------------------------------------------------------------------------------------------- baselines


def test_length_leak_clozet_picks_the_longer_candidate():
    items = [
        clozet_item(["小明早上起床。"], ["他吃了一碗热乎乎的面条，然后高高兴兴地去上学了。", "他睡了。"], 0),
        clozet_item(["小红去公园。"], ["她哭了。", "她在湖边看见一群白鹅慢慢地游过来，就拿出面包喂它们。"], 1, i=1),
    ]
    assert predict("length", items) == [0, 1]


def test_length_senpos_picks_the_gap_with_neighbours_of_similar_length():
    short = ["好的。", "是的。", "来了。"]
    long = "这是一句很长很长的句子，里面有许多许多的词语和标点符号。"
    item = senpos_item([short[0], short[1], long, long, short[2]], long, 3)
    assert predict("length", [item]) == [3]


def test_sentiment_leak_english_and_chinese():
    en = [
        clozet_item(
            ["Tom trained for the race all year."],
            ["He won and felt wonderful, happy and proud.", "He hated it and felt terrible."],
            0,
            lang="en",
        ),
        clozet_item(
            ["Ann baked a cake."],
            ["She burned it and was angry and sad.", "Everyone loved it and she was delighted."],
            1,
            lang="en",
            i=1,
        ),
    ]
    assert predict("sentiment", en) == [0, 1]
    zh = [clozet_item(["期末考试结束了。"], ["他生病了，又疼又难受。", "考试得了满分，妈妈夸奖了他。"], 1)]
    assert predict("sentiment", zh) == [1]


def test_sentiment_full_and_last_match_the_context_mood():
    item = clozet_item(
        ["It was a terrible, awful day.", "Everything went wrong and she cried."],
        ["She was happy and everything was wonderful.", "She felt miserable and hated the day."],
        1,
        lang="en",
    )
    assert predict("sentiment_full", [item]) == [1]
    assert predict("sentiment_last", [item]) == [1]


def test_discourse_pair_clozet_and_senpos():
    assert ("因为", "所以") in marker_pairs("zh") and len(marker_pairs("zh")) == 24
    item = clozet_item(
        ["因为昨天下了一整夜的大雨，"], ["小河边的路上到处都是水坑。", "所以我们今天不能去河边钓鱼了。"], 1
    )
    assert predict("discourse_markers", [item]) == [1]
    senpos = senpos_item(
        ["早上起来天很冷。", "虽然风很大，", "我们到了学校。", "老师表扬了我们。"], "但是我们还是按时出门了。", 2
    )
    assert predict("discourse_markers", [senpos]) == [2]


def test_discourse_without_a_pair_is_a_seeded_random_choice():
    items = [clozet_item(["今天是星期天。"], ["我去看电影。", "我去买菜。"], i % 2, i=i) for i in range(200)]
    first = predict("discourse_markers", items, seed=1)
    assert first == predict("discourse_markers", items, seed=1)
    assert 60 < sum(first) < 140  # random, not constant


def test_bleu_prefers_the_candidate_sharing_words_with_the_context():
    item = clozet_item(
        ["小猫在花园里追蝴蝶。", "蝴蝶飞到了花园的墙上。"], ["汽车开走了。", "小猫在花园里看着墙上的蝴蝶。"], 1
    )
    assert predict("bleu1", [item]) == [1]
    assert predict("bleu2", [item]) == [1]
    assert predict("ngram_overlap", [item]) == [1]
    cache = FeatureCache()
    assert sentence_bleu(cache, "a b c d", "a b c d", "en", 2) == pytest.approx(1.0)
    assert sentence_bleu(cache, "x y", "a b c d", "en", 1) < 0.1


def test_bleu_senpos_picks_the_gap_whose_neighbours_share_words():
    sentences = ["我们一起去爬山。", "山顶上的风景非常美丽。", "晚上大家都回家了。", "妈妈做了晚饭。"]
    item = senpos_item(sentences, "山顶上的风景让我们忘记了爬山的辛苦。", 1)
    assert predict("bleu1", [item]) == [1]


def test_majority_and_constant_first():
    train = [clozet_item(["甲。"], ["乙。", "丙。"], 1, i=i) for i in range(5)] + [
        clozet_item(["甲。"], ["乙。", "丙。"], 0, i=9)
    ]
    test = [clozet_item(["丁。"], ["戊。", "己。"], 0)]
    assert predict("majority", test, train) == [1]
    assert predict("constant_first", test) == [0]
    senpos = senpos_item(["一。", "二。", "三。"], "四。", 2)
    assert predict("constant_first", [senpos]) == [1]


def test_frequency_picks_the_ending_with_words_common_in_training_endings():
    train = [clozet_item(["前文。"], ["最后大家都很快乐。", "石头。"], 0, i=i) for i in range(10)]
    test = [clozet_item(["另一个故事。"], ["桌子椅子板凳。", "大家都很快乐。"], 1)]
    assert predict("frequency", test, train) == [1]


def _leaky_items(n: int, start: int = 0) -> list[Item]:
    """Right endings say 终于…成功, wrong ones 根本没有; the context says nothing."""
    subjects = ["小明", "小红", "老王", "小李", "阿姨", "爷爷", "小狗", "同学", "哥哥", "姐姐"]
    items = []
    for i in range(start, start + n):
        s = subjects[i % len(subjects)]
        right, wrong = f"{s}终于成功了，第{i}次。", f"{s}根本没有去，第{i}次。"
        label = i % 2
        items.append(clozet_item([f"{s}想做一件事。"], [right, wrong] if label == 0 else [wrong, right], label, i=i))
    return items


def test_ending_only_learns_a_leak_from_the_options_alone():
    assert predict("ending_only", _leaky_items(20, 100), _leaky_items(60)) == [it.label for it in _leaky_items(20, 100)]


def test_ending_only_senpos_learns_where_a_sentence_goes():
    def item(i: int) -> Item:
        sentences = [f"第{k}句话在这里。" for k in range(6)]
        late = i % 2 == 0
        return senpos_item(sentences, "最后大家都回家了。" if late else "一开始天就亮了。", 5 if late else 1, i=i)

    train, test = [item(i) for i in range(40)], [item(i) for i in range(40, 50)]
    assert predict("ending_only", test, train) == [it.label for it in test]


def test_wilson_interval_contains_the_estimate():
    low, high = wilson_interval(0.514, 1871)
    assert low < 0.514 < high and low < 0.5 < high
    low, high = wilson_interval(0.72, 1871)
    assert 0.69 < low < 0.72 < high < 0.75


# --------------------------------------------------------------------------------------------- whole audits


def _write_clozet(folder: Path, splits: dict[str, list[Item]]) -> Path:
    by_split = {
        split: [
            {
                "example_id": it.example_id + split,
                "story_id": it.example_id + split,
                "split": split,
                "context": "".join(it.before) + "<mask>" + "".join(it.after),
                "candidates": it.candidates,
                "label": it.label,
                "mask_sentence_index": len(it.before),
                "annotator": None,
                "annotation_id": None,
                "lang": it.lang,
            }
            for it in items
        ]
        for split, items in splits.items()
    }
    write_dataset(folder, "clozet", by_split, command="test", params={}, inputs=[], stats={}, lot_jsonl=False)
    return folder


@pytest.fixture(scope="module")
def leaky_dataset(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("leaky")
    return _write_clozet(
        folder, {"train": _leaky_items(60), "val": _leaky_items(20, 100), "test": _leaky_items(30, 200)}
    )


@pytest.fixture(scope="module")
def leaky_report(leaky_dataset, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    result = audit(leaky_dataset, seed=3, runs=4)
    write_audit(result, out)
    return result, out


def test_audit_records_predictions_and_scan(leaky_report):
    result, out = leaky_report
    records = json.loads((out / "results.json").read_text())
    by_id = {r["id"]: r for r in records}
    for r in records:
        if r["verdict"] == "skipped":  # a named row with its reason, never a figure
            assert r["accuracy"] is None and r["reason"] and r["split"] is None
            continue
        assert {"baseline", "split", "n", "accuracy", "ci_low", "ci_high", "p_value", "p_holm", "verdict"} <= set(r)
        assert r["ci_low"] <= r["accuracy"] <= r["ci_high"] and r["p_value"] <= r["p_holm"] <= 1
    assert by_id["ending_only/test"]["accuracy"] == 1.0 and by_id["ending_only/test"]["verdict"] == "leaks"
    assert (
        "ending_only/train" not in by_id and "constant_first/train" in by_id
    )  # learners never scored on their training split
    assert by_id["constant_first/test"]["accuracy"] == pytest.approx(
        sum(it.label == 0 for it in _leaky_items(30, 200)) / 30
    )
    assert by_id["random/test"]["runs"] == 4
    assert {s["baseline"] for s in result.skipped} >= {"bert_wo_context", "bert_wo_long"}
    predictions = pq.read_table(out / "predictions.parquet").to_pylist()
    mine = [p for p in predictions if p["baseline"] == "ending_only" and p["split"] == "test"]
    assert len(mine) == 30 and all(p["correct"] for p in mine)
    leaking = {(t["token"], t["label"]) for t in result.scan["tokens"] if t["significant"]}
    assert ("终于", "right") in leaking and ("根本", "wrong") in leaking
    assert result.scan["tokens"][0]["examples"]


def test_audit_is_deterministic_for_a_seed(leaky_dataset):
    a = audit(leaky_dataset, seed=5, runs=3, baselines=["random", "discourse_markers"])
    b = audit(leaky_dataset, seed=5, runs=3, baselines=["random", "discourse_markers"])
    assert a.records == [dict(r) for r in b.records] and a.predictions == b.predictions


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.num_cells = 0
        self.num_cells_linked = 0
        self.hrefs: list[str] = []
        self._in_num = False
        self._linked = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "td" and "num" in (attrs.get("class") or "").split():
            self._in_num, self._linked = True, False
            self.num_cells += 1
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.hrefs.append(attrs["href"][1:])
            if self._in_num and not self._linked:
                self._linked = True
                self.num_cells_linked += 1

    def handle_endtag(self, tag):
        if tag == "td":
            self._in_num = False


def test_report_html_links_every_number_to_its_record(leaky_report):
    result, out = leaky_report
    page = (out / "report.html").read_text(encoding="utf-8")
    assert (
        "<svg" in page
        and "chance" in page
        and "<script src" not in page
        and "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    )
    links = _Links()
    links.feed(page)
    assert links.num_cells > len(result.records) and links.num_cells == links.num_cells_linked
    assert set(links.hrefs) <= links.ids  # every link lands somewhere
    for record in result.records:
        assert f"rec-{record['id'].replace('/', '-')}" in links.ids
    assert "终于" in page and "skipped" in page.lower() and "--model-path" in page
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "](#rec-ending_only-test)" in markdown and '<a id="rec-ending_only-test"></a>' in markdown
    assert '<a id="ev-ending_only-test"></a>' in markdown


def test_learning_baselines_are_skipped_without_a_training_split(tmp_path):
    folder = _write_clozet(tmp_path / "d", {"test": _leaky_items(10)})
    result = audit(folder, baselines=["majority", "length"])
    assert [s["baseline"] for s in result.skipped] == ["majority"] and "train" in result.skipped[0]["reason"]


# --------------------------------------------------------------------------------------------- inputs and CLI


def test_senpos_dataset_and_lot_jsonl_inputs(tmp_path):
    rows = []
    for i in range(12):
        sentences = [f"第{i}个故事的第{k}句话写在这里。" for k in range(5)]
        rows.append(
            {
                "example_id": f"s{i}",
                "story_id": f"s{i}",
                "split": "test",
                "sentences": sentences,
                "removed": "因为天黑了，所以大家回家。",
                "label": 1 + i % 4,
                "n_candidates": 4,
                "refined": True,
                "lang": "zh",
            }
        )
    folder = tmp_path / "senpos"
    write_dataset(folder, "senpos", {"test": rows}, command="test", params={}, inputs=[], stats={}, lot_jsonl=True)
    result = audit(folder, runs=2)
    names = {r["baseline"] for r in result.records}
    assert {"random", "length", "bleu1", "sentiment", "discourse_markers", "constant_first"} <= names
    assert "sentiment_full" in {s["baseline"] for s in result.skipped}
    assert result.chance["test"] == pytest.approx(0.25)
    from_jsonl = audit(folder / "lot" / "test.jsonl", runs=2, baselines=["constant_first"])
    assert from_jsonl.task == "senpos" and from_jsonl.records[0]["accuracy"] == pytest.approx(3 / 12)
    assert from_jsonl.source == "LOT jsonl"


SCT_HEADER = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"


def _sct_csv(path: Path, n: int, bad_row: bool = False) -> Path:
    lines = [SCT_HEADER]
    for i in range(n):
        # the file's name in the story: val and test hold different stories (one in both would be quarantined)
        lines.append(
            f"id{i},Sam woke up early.,He made some tea.,The phone rang.,It was his sister {i} from {path.stem}.,"
            f"They talked for an hour.,The phone turned into a bird.,{1 + i % 2}\n"
        )
    if bad_row:
        lines.append("idbad,A.,B.,C.,D.,E.,F.,3\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


def test_import_storycloze_and_audit_cli(tmp_path):
    runner = CliRunner()
    val, test = _sct_csv(tmp_path / "val.csv", 20, bad_row=True), _sct_csv(tmp_path / "test.csv", 10)
    result = runner.invoke(
        app, ["import", "storycloze", "--val", str(val), "--test", str(test), "--out", str(tmp_path / "sct")]
    )
    assert result.exit_code == 0, result.output
    table = pq.read_table(tmp_path / "sct" / "val.parquet").to_pylist()
    assert (
        len(table) == 20
        and table[0]["context"].endswith("<mask>")
        and table[0]["label"] == 0
        and table[1]["label"] == 1
    )
    quarantine = pq.read_table(tmp_path / "sct" / "quarantine.parquet").to_pylist()
    assert quarantine[0]["row"] == 21 and "AnswerRightEnding" in quarantine[0]["reason"]
    result = runner.invoke(
        app,
        [
            "audit-bias",
            str(tmp_path / "sct"),
            "--out",
            str(tmp_path / "rep"),
            "--train-split",
            "val",
            "--baseline",
            "constant_first",
            "--baseline",
            "ending_only",
            "--baseline",
            "bert_wo_context",
        ],
    )
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in json.loads((tmp_path / "rep" / "results.json").read_text())}
    assert (
        records["constant_first/val"]["accuracy"] == 0.5
        and "ending_only/test" in records
        and "ending_only/val" not in records
    )
    assert (tmp_path / "rep" / "report.html").exists()


def test_import_storycloze_test_only(tmp_path):
    """A team's own test csv (`annotate sct-csv`) comes without a val csv; neither file is an error."""
    runner = CliRunner()
    test = _sct_csv(tmp_path / "test.csv", 4)
    result = runner.invoke(app, ["import", "storycloze", "--test", str(test), "--out", str(tmp_path / "sct")])
    assert result.exit_code == 0, result.output
    assert pq.read_table(tmp_path / "sct" / "test.parquet").num_rows == 4
    assert (
        not (tmp_path / "sct" / "val.parquet").exists() or pq.read_table(tmp_path / "sct" / "val.parquet").num_rows == 0
    )
    result = runner.invoke(app, ["import", "storycloze", "--out", str(tmp_path / "none")])
    assert result.exit_code == 1 and "--val, --test" in result.output
    result = runner.invoke(
        app, ["import", "storycloze", "--test", str(test), "--train-from", "val", "--out", str(tmp_path / "t")]
    )
    assert result.exit_code == 1 and "--train-from val needs --val" in result.output


def test_audit_cli_bad_input_names_the_path(tmp_path):
    runner = CliRunner()
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["audit-bias", str(tmp_path / "empty"), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 3 and "empty" in result.output
    result = runner.invoke(
        app, ["audit-bias", str(tmp_path / "empty"), "--out", str(tmp_path / "rep"), "--baseline", "nope"]
    )
    assert result.exit_code in (1, 3)


def test_missing_inputs_exit_1_and_undecodable_csv_exits_3(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["audit-bias", str(tmp_path / "nonexist"), "--out", str(tmp_path / "rep")])
    assert result.exit_code == 1 and "nonexist" in result.output
    result = runner.invoke(
        app, ["import", "storycloze", "--val", str(tmp_path / "nonexist.csv"), "--out", str(tmp_path / "sct")]
    )
    assert result.exit_code == 1 and "nonexist.csv" in result.output
    binary = tmp_path / "bin.dat"
    binary.write_bytes(bytes(range(256)) * 10)
    result = runner.invoke(app, ["import", "storycloze", "--val", str(binary), "--out", str(tmp_path / "sct")])
    assert result.exit_code == 3 and "bin.dat" in result.output and "UTF-8" in result.output
    assert "Traceback" not in result.output


def test_audit_cli_rejects_a_missing_train_split_bad_runs_and_a_file_as_out(tmp_path):
    folder = _write_clozet(tmp_path / "d", {"test": _leaky_items(10)})
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "audit-bias",
            str(folder),
            "--out",
            str(tmp_path / "rep"),
            "--train-split",
            "foo",
            "--baseline",
            "constant_first",
        ],
    )
    assert result.exit_code == 1 and "'foo'" in result.output and "test" in result.output
    assert not (tmp_path / "rep" / "results.json").exists()
    result = runner.invoke(
        app, ["audit-bias", str(folder), "--out", str(tmp_path / "rep"), "--runs", "0", "--baseline", "constant_first"]
    )
    assert result.exit_code == 1 and "--runs" in result.output and "mean requires" not in result.output
    existing = tmp_path / "existing_file"
    existing.write_text("keep me", encoding="utf-8")
    result = runner.invoke(app, ["audit-bias", str(folder), "--out", str(existing), "--baseline", "constant_first"])
    assert result.exit_code == 1 and "exists and is a file" in result.output and "Errno" not in result.output
    assert "constant_first" not in result.output  # refused before any work
    assert existing.read_text(encoding="utf-8") == "keep me"


def test_an_empty_train_split_named_explicitly_is_an_error(tmp_path):
    folder = _write_clozet(tmp_path / "d", {"train": [], "test": _leaky_items(10)})
    with pytest.raises(ValueError, match="'train' is empty.*test"):
        audit(folder, train_split="train", baselines=["majority"])


def test_aflite_removes_the_items_the_options_give_away(leaky_dataset, tmp_path):
    result = audit(leaky_dataset, baselines=["constant_first"], aflite=True)
    assert result.aflite["removed"] > 0 and result.aflite["accuracy_before"] > 0.9
    paths = write_audit(result, tmp_path)
    removed = paths["aflite"].read_text().split()
    assert len(removed) == result.aflite["removed"] and len(set(removed)) == len(removed)
    assert "AFLite" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_fast_chinese_sentiment_uses_the_same_classifier_scale():
    fast = FeatureCache(sentiment_method="snownlp-jieba")
    exact = FeatureCache()
    text = "考试得了满分，妈妈夸奖了他。"
    assert 0.5 < fast.sentiment(text, "zh") <= 1 and 0.5 < exact.sentiment(text, "zh") <= 1
    with pytest.raises(ValueError):
        FeatureCache(sentiment_method="nope")


def test_story_cloze_csv_and_lot_clozet_jsonl_are_read_directly(tmp_path, shared_data):
    folder = tmp_path / "csvs"
    folder.mkdir()
    _sct_csv(folder / "val.csv", 8), _sct_csv(folder / "test.csv", 6)
    result = audit(folder, train_split="val", runs=2, baselines=["constant_first", "majority"])
    assert result.source == "Story Cloze csv" and result.splits == {"val": 8, "test": 6}
    assert {r["id"] for r in result.records} == {"constant_first/val", "constant_first/test", "majority/test"}
    official = audit(
        shared_data / "lot_official_examples" / "examples" / "clozet.jsonl",
        runs=2,
        baselines=["constant_first", "length"],
    )
    assert official.task == "clozet" and official.lang == "zh" and sum(official.splits.values()) == 1


def test_a_rerun_reuses_the_sentiment_scores_it_stored(leaky_dataset, tmp_path):
    store = tmp_path / "sentiment_cache.parquet"
    first = audit(leaky_dataset, baselines=["sentiment"], sentiment_cache=store)
    assert store.exists() and first.timings["sentiment_scoring"] > 0
    again = audit(leaky_dataset, baselines=["sentiment"], sentiment_cache=store)
    assert again.timings["sentiment_scoring"] == 0 and again.records == first.records
