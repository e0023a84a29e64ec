"""Conformance checks of an audit baseline (a `lotdata.audit.baselines.BaselineSpec` record), as scikit-learn's
`check_estimator`:

    from lotdata.testing import check_baseline
    check_baseline(MY_BASELINE, tmp_path)   # AssertionError naming the broken rule

The samples are derived here: tiny choice datasets of each item shape the audit knows (ClozeT candidates, SenPos
gaps), in Chinese, in English, and in a language lotdata has no resource for ("fr"). The baseline must be
registered (`register_baseline`, or an entry point of `lotdata.baselines`): the audit runs baselines by name.
Every check takes `(baseline, folder)`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

from lotdata.audit.baselines import Baseline, BaselineSpec, get_baseline
from lotdata.audit.items import CANDIDATES, GAPS, Item
from lotdata.testing._common import held as _held

__all__ = [
    "BASELINE_CHECKS",
    "SHAPES",
    "TASK_OF_SHAPE",
    "check_baseline",
    "check_baseline_is_registered",
    "check_baseline_missing_resource_is_a_named_skip",
    "check_baseline_model_without_a_checkpoint_is_a_named_skip",
    "check_baseline_one_prediction_per_item_in_range_and_the_same_for_a_seed",
    "check_baseline_one_score_per_option_of_every_item",
    "check_baseline_shape_it_is_not_defined_for_is_a_named_skip",
    "sample_items",
    "sample_part",
]

#: every item shape the audit knows, and the task each stands for
SHAPES = (CANDIDATES, GAPS)
TASK_OF_SHAPE = {CANDIDATES: "clozet", GAPS: "senpos"}
_SUBJECTS = ["小明", "小红", "老王", "小李", "阿姨", "爷爷", "小狗", "同学"]


def _clozet(i: int, lang: str) -> Item:
    s = _SUBJECTS[i % len(_SUBJECTS)]
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
    sentences = [f"第{k}句话，{_SUBJECTS[(i + k) % len(_SUBJECTS)]}在这里。" for k in range(5)]
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


def sample_items(shape: str, lang: str = "zh") -> dict[str, list[Item]]:
    """A tiny choice dataset of `shape`: 16 training items and 8 test items (the right ClozeT ending is one
    character shorter than the wrong one)."""
    make = _clozet if shape == CANDIDATES else _senpos
    return {"train": [make(i, lang) for i in range(16)], "test": [make(i, lang) for i in range(100, 108)]}


def sample_part(name: str, shape: str, lang: str = "zh", seed: int = 0) -> dict[str, Any]:
    """What the audit makes of baseline `name` on `sample_items(shape, lang)`: its records and predictions, or
    {"skipped": why}."""
    from lotdata.audit.features import FeatureCache
    from lotdata.audit.work import Job, baseline_part

    items = sample_items(shape, lang)
    job = Job(
        work="", task=TASK_OF_SHAPE[shape], lang=lang, train_split="train", seed=seed, runs=3, sentiment="snownlp-jieba"
    )
    return baseline_part(name, items, FeatureCache("snownlp-jieba"), job)


def _estimator(baseline: BaselineSpec, cache: Any = None) -> Baseline:
    assert baseline.make is not None
    estimator = baseline.make(cache)
    assert isinstance(estimator, Baseline), f"baseline {baseline.name!r}: make() must give a Baseline"
    return estimator


def check_baseline_is_registered(baseline: BaselineSpec, folder: Path) -> None:
    """The baseline is the one the registry holds under its name (the audit runs it by name)."""
    held = _held(get_baseline, baseline.name)
    assert held is baseline, (
        f"baseline {baseline.name!r}: not the record the registry holds under its name (register it first)"
    )


def check_baseline_one_score_per_option_of_every_item(baseline: BaselineSpec, folder: Path) -> None:
    """Fitted on the training items where it learns, it gives one number (not NaN) per option of every test item,
    for every shape it is defined for. A model baseline passes (it has no estimator here)."""
    from lotdata.audit.features import FeatureCache

    if baseline.model:
        return
    for shape in baseline.shapes:
        items = sample_items(shape)
        estimator = _estimator(baseline, FeatureCache("snownlp-jieba"))
        if estimator.learns:
            estimator.fit(items["train"])
        scores = estimator.scores(items["test"])
        assert [len(row) for row in scores] == [it.n_options for it in items["test"]], (baseline.name, shape)
        assert all(isinstance(x, (int, float)) and not math.isnan(x) for row in scores for x in row), (
            baseline.name,
            shape,
        )


def check_baseline_one_prediction_per_item_in_range_and_the_same_for_a_seed(
    baseline: BaselineSpec, folder: Path
) -> None:
    """In the audit, every scored split has one prediction per item, each a label of one of its options; the
    accuracy is a share over all the split's items; the same seed gives the same part."""
    if baseline.model:
        return
    name = baseline.name
    for shape in baseline.shapes:
        part = sample_part(name, shape)
        assert "skipped" not in part, part
        learns = _estimator(baseline).learns
        scored = ["test"] if learns else ["train", "test"]
        items = sample_items(shape)
        assert [r["split"] for r in part["records"]] == scored
        for split in scored:
            predictions = [p for p in part["predictions"] if p["split"] == split]
            assert [p["example_id"] for p in predictions] == [it.example_id for it in items[split]]
            for p, it in zip(predictions, items[split]):
                assert p["choice"] in {it.label_of_option(o) for o in range(it.n_options)} and p["baseline"] == name
        for record in part["records"]:
            assert 0.0 <= record["accuracy"] <= 1.0 and record["n"] == len(items[record["split"]])
        assert sample_part(name, shape) == part, f"baseline {name!r}: the same seed gave another part ({shape})"


def check_baseline_shape_it_is_not_defined_for_is_a_named_skip(baseline: BaselineSpec, folder: Path) -> None:
    """On items of a shape it does not declare, the audit gives a skipped row saying so."""
    if baseline.model:
        return
    for shape in SHAPES:
        if shape not in baseline.shapes:
            skipped = sample_part(baseline.name, shape).get("skipped", "")
            assert skipped.startswith(f"not defined for {TASK_OF_SHAPE[shape]}"), (baseline.name, shape, skipped)


def check_baseline_missing_resource_is_a_named_skip(baseline: BaselineSpec, folder: Path) -> None:
    """Items in a language lotdata has no tokenizer, lexicon or analyser for: a baseline that needs one gives a
    skipped row naming the language and its `resource`; one that needs nothing language-specific runs."""
    if baseline.model:
        return
    estimator = _estimator(baseline)
    part = sample_part(baseline.name, baseline.shapes[0], lang="fr")
    if estimator.langs is None:  # needs nothing language-specific: it runs
        assert "records" in part, (baseline.name, part)
    else:
        skipped = part.get("skipped", "")
        assert "no resource for language 'fr'" in skipped and estimator.resource in skipped, (baseline.name, part)


def check_baseline_model_without_a_checkpoint_is_a_named_skip(baseline: BaselineSpec, folder: Path) -> None:
    """A model baseline run without `--model-path` is a skipped row that names the option."""
    if not baseline.model:
        return
    skipped = sample_part(baseline.name, CANDIDATES).get("skipped", "")
    assert "--model-path" in skipped, (baseline.name, skipped)


#: every check of a baseline, in the order `check_baseline` runs them
BASELINE_CHECKS: tuple[Callable[[BaselineSpec, Path], None], ...] = (
    check_baseline_is_registered,
    check_baseline_one_score_per_option_of_every_item,
    check_baseline_one_prediction_per_item_in_range_and_the_same_for_a_seed,
    check_baseline_shape_it_is_not_defined_for_is_a_named_skip,
    check_baseline_missing_resource_is_a_named_skip,
    check_baseline_model_without_a_checkpoint_is_a_named_skip,
)


def check_baseline(baseline: BaselineSpec, folder: Path) -> None:
    """Run every check on `baseline`, each in a folder of its own under `folder` (AssertionError on the first
    broken)."""
    for check in BASELINE_CHECKS:
        check(baseline, Path(folder) / check.__name__)
