"""Every registered audit baseline passes the same checks (as every task does in test_task_conformance.py),
on tiny choice datasets of each item shape (ClozeT candidates, SenPos gaps): one score per option of every
item, one prediction per item with a choice in the label range, the same predictions for the same seed, a
named skipped row where its resource (a language's lexicon, a model checkpoint) is missing or the item
shape is not one it is defined for.

Adding a baseline = a `Baseline` subclass and its `register_baseline(BaselineSpec(...))` in one module; the
last test registers a made-up one here and finds it in an `audit-bias` report, with no other file edited."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.audit import baselines as registry
from lotdata.audit.baselines import Baseline, BaselineSpec, baseline_names, get_baseline, register_baseline
from lotdata.audit.features import FeatureCache
from lotdata.audit.items import CANDIDATES, GAPS, Item
from lotdata.audit.work import Job, baseline_part
from lotdata.cli import app
from lotdata.datasets.folder import write_dataset

SUBJECTS = ["小明", "小红", "老王", "小李", "阿姨", "爷爷", "小狗", "同学"]
TASK_OF_SHAPE = {CANDIDATES: "clozet", GAPS: "senpos"}


def _clozet(i: int, lang: str) -> Item:
    s = SUBJECTS[i % len(SUBJECTS)]
    if lang == "en":
        before, right, wrong = (
            [f"Sam wanted to try {i} times.", "He practised."],
            f"He finally made it, try {i}.",
            f"He never went, try {i}.",
        )
    else:
        before, right, wrong = (
            [f"{s}想做一件事。", "可是一开始就下雨了。"],
            f"{s}终于成功了，第{i}次。",
            f"{s}根本就没有去，第{i}次。",
        )
    label = i % 2
    return Item(
        example_id=f"c{i}",
        split="",
        task="clozet",
        lang=lang,
        label=label,
        before=before,
        after=[],
        candidates=[right, wrong] if label == 0 else [wrong, right],
    )


def _senpos(i: int, lang: str) -> Item:
    sentences = [f"第{k}句话，{SUBJECTS[(i + k) % len(SUBJECTS)]}在这里。" for k in range(5)]
    late = i % 2 == 0
    return Item(
        example_id=f"s{i}",
        split="",
        task="senpos",
        lang=lang,
        label=4 if late else 1,
        sentences=sentences,
        removed="所以最后大家都回家了。" if late else "但是一开始天就亮了。",
    )


def _dataset(shape: str, lang: str = "zh") -> dict[str, list[Item]]:
    make = _clozet if shape == CANDIDATES else _senpos
    return {"train": [make(i, lang) for i in range(16)], "test": [make(i, lang) for i in range(100, 108)]}


def _part(name: str, shape: str, lang: str = "zh", seed: int = 0) -> dict:
    items = _dataset(shape, lang)
    job = Job(
        work="", task=TASK_OF_SHAPE[shape], lang=lang, train_split="train", seed=seed, runs=3, sentiment="snownlp-jieba"
    )
    return baseline_part(name, items, FeatureCache("snownlp-jieba"), job)


NAMES = baseline_names()
ESTIMATORS = [n for n in NAMES if not get_baseline(n).model]
CASES = [(n, shape) for n in ESTIMATORS for shape in get_baseline(n).shapes]


def test_the_registry_holds_the_papers_baselines():
    assert {
        "random",
        "majority",
        "constant_first",
        "length",
        "bleu1",
        "bleu2",
        "sentiment",
        "discourse_markers",
        "sentiment_full",
        "sentiment_last",
        "frequency",
        "ngram_overlap",
        "ending_only",
        "bert_wo_context",
        "bert_wo_long",
    } <= set(NAMES)
    with pytest.raises(ValueError, match="unknown baseline 'nope'"):
        get_baseline("nope")
    with pytest.raises(ValueError, match="registered twice"):
        register_baseline(BaselineSpec("length", registry.Random))


@pytest.mark.parametrize(("name", "shape"), CASES)
def test_one_score_per_option_of_every_item(name: str, shape: str):
    spec = get_baseline(name)
    items = _dataset(shape)
    estimator = spec.make(FeatureCache("snownlp-jieba"))
    assert isinstance(estimator, Baseline)
    if estimator.learns:
        estimator.fit(items["train"])
    scores = estimator.scores(items["test"])
    assert [len(row) for row in scores] == [it.n_options for it in items["test"]]
    assert all(isinstance(x, (int, float)) and not math.isnan(x) for row in scores for x in row)


@pytest.mark.parametrize(("name", "shape"), CASES)
def test_one_prediction_per_item_in_range_and_the_same_for_a_seed(name: str, shape: str):
    part = _part(name, shape)
    assert "skipped" not in part, part
    learns = get_baseline(name).make(None).learns
    scored = ["test"] if learns else ["train", "test"]
    items = _dataset(shape)
    assert [r["split"] for r in part["records"]] == scored
    for split in scored:
        predictions = [p for p in part["predictions"] if p["split"] == split]
        assert [p["example_id"] for p in predictions] == [it.example_id for it in items[split]]
        for p, it in zip(predictions, items[split]):
            assert p["choice"] in {it.label_of_option(o) for o in range(it.n_options)} and p["baseline"] == name
    for record in part["records"]:
        assert 0.0 <= record["accuracy"] <= 1.0 and record["n"] == len(items[record["split"]])
    assert _part(name, shape) == part


@pytest.mark.parametrize(
    ("name", "shape"), [(n, s) for n in ESTIMATORS for s in (CANDIDATES, GAPS) if s not in get_baseline(n).shapes]
)
def test_a_shape_it_is_not_defined_for_is_a_named_skip(name: str, shape: str):
    assert _part(name, shape)["skipped"].startswith(f"not defined for {TASK_OF_SHAPE[shape]}")


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_missing_resource_is_a_named_skip(name: str):
    """Items in a language lotdata has no tokenizer, lexicon or analyser for: the skipped row names what is missing."""
    estimator = get_baseline(name).make(None)
    shape = get_baseline(name).shapes[0]
    part = _part(name, shape, lang="fr")
    if estimator.langs is None:  # needs nothing language-specific: it runs
        assert "records" in part
    else:
        assert "no resource for language 'fr'" in part["skipped"] and estimator.resource in part["skipped"]


@pytest.mark.parametrize("name", [n for n in NAMES if get_baseline(n).model])
def test_a_model_baseline_without_a_checkpoint_is_a_named_skip(name: str):
    assert "--model-path" in _part(name, CANDIDATES)["skipped"]


# ------------------------------------------------------------------------------------------------
# a made-up baseline, registered here only: the shortest option wins


class Shortest(Baseline):
    langs = None

    def scores(self, items):
        return [[-float(len(it.option_text(o))) for o in range(it.n_options)] for it in items]


@pytest.fixture
def shortest():
    spec = register_baseline(BaselineSpec("shortest", Shortest, shapes=(CANDIDATES,)))
    yield spec
    registry.unregister_baseline("shortest")


def _clozet_folder(folder: Path) -> Path:
    by_split = {
        split: [
            {
                "example_id": f"{it.example_id}{split}",
                "story_id": f"{it.example_id}{split}",
                "split": split,
                "context": "".join(it.before) + "<mask>",
                "candidates": it.candidates,
                "label": it.label,
                "mask_sentence_index": len(it.before),
                "annotator": None,
                "annotation_id": None,
                "lang": it.lang,
            }
            for it in items
        ]
        for split, items in _dataset(CANDIDATES).items()
    }
    write_dataset(folder, "clozet", by_split, command="test", params={}, inputs=[], stats={}, lot_jsonl=False)
    return folder


def test_a_made_up_baseline_appears_in_the_audit_report(shortest, tmp_path: Path):
    dataset = _clozet_folder(tmp_path / "clozet")
    out = tmp_path / "report"
    result = CliRunner().invoke(
        app,
        [
            "audit-bias",
            str(dataset),
            "--out",
            str(out),
            "--workers",
            "1",
            "--runs",
            "2",
            "--baseline",
            "constant_first",
            "--baseline",
            "shortest",
        ],
    )
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in json.loads((out / "results.json").read_text(encoding="utf-8"))}
    # the right endings (终于成功了) are one character shorter than the wrong ones (根本没有去): shortest leaks
    assert records["shortest/test"]["accuracy"] == 1.0 and records["shortest/train"]["n"] == 16
    assert "`shortest`" in (out / "report.md").read_text(encoding="utf-8")
    assert "shortest" in (out / "report.html").read_text(encoding="utf-8")


def test_a_made_up_baseline_runs_by_default_and_skips_by_its_shapes(shortest, tmp_path: Path):
    assert "shortest" in baseline_names()
    from lotdata.audit.run import audit

    senpos = {"train": _dataset(GAPS)["train"]}
    job = Job(work="", task="senpos", lang="zh", train_split="train", seed=0, runs=1, sentiment="snownlp-jieba")
    assert baseline_part("shortest", senpos, FeatureCache(), job) == {
        "skipped": "not defined for senpos (it compares candidate endings)"
    }
    result = audit(_clozet_folder(tmp_path / "clozet"), runs=1, baselines=None)
    assert any(r["baseline"] == "shortest" for r in result.records)
