"""Every registered audit baseline passes the same checks, `lotdata.testing.baselines`' (as every task does in
test_task_conformance.py), on tiny choice datasets of each item shape (ClozeT candidates, SenPos gaps): one score per option of every
item, one prediction per item with a choice in the label range, the same predictions for the same seed, a
named skipped row where its resource (a language's lexicon, a model checkpoint) is missing or the item
shape is not one it is defined for.

Adding a baseline = a `Baseline` subclass and its `register_baseline(BaselineSpec(...))` in one module; the
last test registers a made-up one here and finds it in an `audit-bias` report, with no other file edited."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotdata.audit import baselines as registry
from lotdata.audit.baselines import Baseline, BaselineSpec, baseline_names, get_baseline, register_baseline
from lotdata.audit.features import FeatureCache
from lotdata.audit.items import CANDIDATES, GAPS
from lotdata.audit.work import Job, baseline_part
from lotdata.cli import app
from lotdata.datasets.folder import write_dataset
from lotdata.testing.baselines import (
    BASELINE_CHECKS,
    SHAPES,
    check_baseline,
    check_baseline_one_score_per_option_of_every_item,
    sample_items,
)

NAMES = baseline_names()


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


@pytest.mark.parametrize("check", BASELINE_CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("name", NAMES)
def test_baseline_conformance(name: str, check, tmp_path: Path):
    check(get_baseline(name), tmp_path)


def test_the_checks_see_both_shapes_and_both_kinds_of_baseline():
    """The checks are not vacuous: some baselines skip a shape, some need a language resource, some are models."""
    estimators = [get_baseline(n) for n in NAMES if not get_baseline(n).model]
    assert any(len(b.shapes) < len(SHAPES) for b in estimators) and any(b.make(None).langs for b in estimators)
    assert any(b.make(None).langs is None for b in estimators) and any(get_baseline(n).model for n in NAMES)


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
        for split, items in sample_items(CANDIDATES).items()
    }
    write_dataset(folder, "clozet", by_split, command="test", params={}, inputs=[], stats={}, lot_jsonl=False)
    return folder


def test_a_made_up_baseline_passes_the_baseline_checks(shortest, tmp_path: Path):
    check_baseline(shortest, tmp_path)


class Unseeded(Shortest):
    """Draws its scores from an unseeded generator: the same seed does not give the same predictions."""

    def scores(self, items):
        return [[_UNSEEDED.random() for _ in range(it.n_options)] for it in items]


_UNSEEDED = random.Random()


class Nan(Shortest):
    def scores(self, items):
        return [[float("nan")] * it.n_options for it in items]


def test_the_baseline_checks_catch_a_broken_baseline(shortest, tmp_path: Path):
    with registry.BASELINE_REGISTRY.override(replace(shortest, make=Nan)) as nan:
        with pytest.raises(AssertionError):
            check_baseline_one_score_per_option_of_every_item(nan, tmp_path)
    with registry.BASELINE_REGISTRY.override(replace(shortest, make=Unseeded)) as unseeded:
        check_baseline_one_score_per_option_of_every_item(unseeded, tmp_path)  # one number per option: fine
        with pytest.raises(AssertionError, match="the same seed gave another part"):
            check_baseline(unseeded, tmp_path / "b")


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

    senpos = {"train": sample_items(GAPS)["train"]}
    job = Job(work="", task="senpos", lang="zh", train_split="train", seed=0, runs=1, sentiment="snownlp-jieba")
    assert baseline_part("shortest", senpos, FeatureCache(), job) == {
        "skipped": "not defined for senpos (it compares candidate endings)"
    }
    result = audit(_clozet_folder(tmp_path / "clozet"), runs=1, baselines=None)
    assert any(r["baseline"] == "shortest" for r in result.records)
