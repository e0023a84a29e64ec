"""LOT metrics (Section 5.3): accuracy, BLEU-n, Distinct-n, Coverage, Order and the Overall score (Eq. 1-2).

Three definitions:

* ``lot`` (default): each metric as LOT Section 5.3 states it (corpus BLEU-1/2 and word Distinct-1/2
  on jieba words, Coverage as the mean LCS recall of each outline phrase) except Order, for which
  LOT's own figures follow the script's formula (see the README): the script's Order.
* ``nlpcc2021`` (alias ``official``): the figures of the OutGen evaluation script of the NLPCC 2021 shared task
  built on LOT (``datasets/chn/eval.py`` of IndexFziQ/LongLM-Eyas), quirks included, on the same
  packages (nltk's ``sentence_bleu``, ``rouge`` 1.0.0). Scores are fractions in [0, 1] as the script
  prints them. The quirks are listed in the README ("lotdata evaluate").
* ``paper``: the plain definitions of the paper, Order included: corpus BLEU and word Distinct-n on jieba words,
  Coverage as the plain LCS recall of each phrase's characters, Order from the positions where each
  phrase's LCS alignment starts, with a missing phrase counting each pair it is in as an inversion.
"""

from __future__ import annotations

import json
import logging
import math
import warnings
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.datasets.registry import all_tasks, get_task
from lotdata.errors import InputError, MissingFileError, must_exist, require
from lotdata.io import iter_jsonl

DEFINITIONS = ("lot", "nlpcc2021", "paper")
#: older names still accepted
DEFINITION_ALIASES = {"official": "nlpcc2021"}
#: the NLPCC 2021 script's "val-w" weights: human figures and LongLM-small's val figures (percent), in the
#: order BLEU-1, BLEU-2, Distinct-3, Distinct-4, Coverage, Order
OVERALL_KEYS = ("bleu-1", "bleu-2", "distinct-3", "distinct-4", "coverage", "order")
HUMAN_SCORES = (100.0, 100.0, 23.47, 42.17, 100.0, 100.0)
BASELINE_SCORES = (26.58, 16.04, 17.90, 31.38, 83.64, 63.15)


# ----------------------------------------------------------------------------- words


def jieba_words(text: str) -> list[str]:
    """The script's tokenisation: whitespace removed, jieba precise mode (HMM on)."""
    import jieba

    jieba.setLogLevel(logging.WARNING)
    return list(jieba.cut("".join(text.strip().split())))


def spaced_words(text: str) -> str:
    """jieba words joined by single spaces: the string the script scores BLEU and Distinct on."""
    return " ".join(jieba_words(text))


# ----------------------------------------------------------------------------- accuracy


def accuracy(pred: Sequence[Any], gold: Sequence[Any]) -> float:
    """Share of predictions equal to the gold label (labels compared as strings: LOT's ClozeT labels are strings)."""
    _same_length(pred, gold)
    if not gold:
        return 0.0
    return sum(str(p) == str(g) for p, g in zip(pred, gold)) / len(gold)


# ----------------------------------------------------------------------------- BLEU


def bleu(
    candidates: Sequence[str], references: Sequence[str], max_n: int = 4, definition: str = "nlpcc2021"
) -> dict[str, float]:
    """BLEU-1..max_n on jieba words.

    nlpcc2021: nltk's unsmoothed ``sentence_bleu`` of each story (uniform weights 1/n), averaged.
    lot, paper: nltk's ``corpus_bleu`` (Papineni et al. 2002 pool the n-gram counts over the corpus).
    """
    _same_length(candidates, references)
    bleu_score = require("nltk.translate.bleu_score", "metrics")
    hyps = [spaced_words(c).split() for c in candidates]
    refs = [[spaced_words(r).split()] for r in references]
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns on every zero n-gram count
        for n in range(1, max_n + 1):
            weights = tuple([1.0 / n] * n)
            if _is_script(definition):
                scores = [bleu_score.sentence_bleu(r, h, weights=weights) for r, h in zip(refs, hyps)]
                out[f"bleu-{n}"] = _mean(scores)
            else:
                out[f"bleu-{n}"] = float(bleu_score.corpus_bleu(refs, hyps, weights=weights)) if hyps else 0.0
    return out


# ----------------------------------------------------------------------------- Distinct


def distinct(candidates: Sequence[str], max_n: int = 4, definition: str = "nlpcc2021") -> dict[str, float]:
    """Distinct-1..max_n over all outputs: distinct n-grams / all n-grams.

    nlpcc2021: character n-grams of the space-joined jieba string (spaces are characters too), each
    n-gram keyed by its characters joined with '_' as the script does.
    lot, paper: jieba word n-grams (Li et al. 2016).
    """
    out = {}
    units = [spaced_words(c) if _is_script(definition) else jieba_words(c) for c in candidates]
    for n in range(1, max_n + 1):
        seen: set = set()
        total = 0
        for seq in units:
            grams = _ngrams(seq, n)
            total += len(grams)
            # the script keys an n-gram by its characters joined with '_' (so 'a_','b' and 'a','_b' collide)
            seen.update(["_".join(g) for g in grams] if _is_script(definition) else grams)
        out[f"distinct-{n}"] = len(seen) / total if total else 0.0
    return out


def _ngrams(seq: Sequence, n: int) -> list[tuple]:
    return [tuple(seq[i : i + n]) for i in range(len(seq) - n + 1)]


# ----------------------------------------------------------------------------- Coverage


def coverage(candidates: Sequence[str], outlines: Sequence[Sequence[str]], definition: str = "nlpcc2021") -> float:
    """Mean ROUGE-L recall of each outline phrase against the generated story.

    nlpcc2021: the ``rouge`` 1.0.0 package on space-separated characters, one score per (story,
    phrase) pair pooled over the corpus; a pair the package cannot score (an empty output) is left
    out of the mean, not counted as 0. Phrases are the outline joined by '#' and split again on '#'.
    lot, paper: LCS(phrase, story) / len(phrase) on characters, averaged per story, then over stories
    (an empty output scores 0).
    """
    _same_length(candidates, outlines)
    if _is_script(definition):
        rouge = require("rouge", "metrics")
        scorer = rouge.Rouge()
        recalls = []
        for cand, outline in zip(candidates, outlines):
            hyp = " ".join("".join(cand.strip().split()))
            for phrase in "#".join(outline).split("#"):
                ref = " ".join("".join(phrase.strip().split()))
                try:
                    recalls.append(scorer.get_scores(refs=ref, hyps=hyp)[0]["rouge-l"]["r"])
                except (ValueError, RecursionError, AssertionError, ZeroDivisionError):
                    continue  # the script skips whatever the package raises on
        return _mean(recalls)
    per_story = []
    for cand, outline in zip(candidates, outlines):
        story = "".join(cand.split())
        phrases = ["".join(p.split()) for p in outline if "".join(p.split())]
        if phrases:
            per_story.append(sum(_lcs_len(p, story) / len(p) for p in phrases) / len(phrases))
    return _mean(per_story)


def _lcs_len(x: str, y: str) -> int:
    row = [0] * (len(y) + 1)
    for a in x:
        prev_diag = 0
        for j, b in enumerate(y, start=1):
            keep = row[j]
            row[j] = prev_diag + 1 if a == b else max(row[j], row[j - 1])
            prev_diag = keep
    return row[-1]


# ----------------------------------------------------------------------------- Order


def gold_ranks(outline: Sequence[str], story: str) -> dict[str, int]:
    """The script's rank of each phrase in the gold story: sorted by `str.find` (a phrase not found,
    -1, sorts first); a repeated phrase keeps one entry, its last rank."""
    phrases = "#".join(outline).strip().split("#")
    positions = [story.strip().find(p.strip()) for p in phrases]
    order = sorted(range(len(phrases)), key=lambda i: positions[i])
    ranks: dict[str, int] = {}
    for rank, index in enumerate(order):
        ranks[phrases[index]] = rank
    return ranks


def longest_common_substring(x: str, y: str) -> str:
    """The first longest common substring of x and y, scanning x then y (the script's `lcs3_dp`)."""
    best_len = best_end = 0
    prev = [0] * (len(y) + 1)
    for i in range(1, len(x) + 1):
        cur = [0] * (len(y) + 1)
        for j in range(1, len(y) + 1):
            if x[i - 1] == y[j - 1]:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best_len:
                    best_len, best_end = cur[j], i
        prev = cur
    return x[best_end - best_len : best_end]


def _script_order_one(story: str, ranks: Mapping[str, int]) -> float:
    phrases = list(ranks)[::-1]
    hyp = "".join(story.strip().split())
    positions = []
    for phrase in phrases:
        common = longest_common_substring("".join(phrase.strip().split()), hyp)
        positions.append(hyp.find(common) if len(common) > 1 else -1)
    order = sorted(range(len(phrases)), key=lambda i: positions[i])
    new_rank = [ranks[phrases[o]] for o in order]
    # the script counts pairs i <= j, the diagonal included, so n(n+1)/2 "pairs"
    n = len(new_rank)
    inversions = sum(new_rank[i] > new_rank[j] for i in range(n) for j in range(i, n))
    return 1 - inversions / (n * (n + 1) / 2)


def _paper_order_one(story: str, outline: Sequence[str], gold: str) -> float:
    phrases = [p for p in ("".join(q.split()) for q in outline) if p]
    gold_pos = [_alignment_start(p, "".join(gold.split())) for p in phrases]
    pred_pos = [_alignment_start(p, "".join(story.split())) for p in phrases]
    pairs = inversions = 0
    for i in range(len(phrases)):
        for j in range(i + 1, len(phrases)):
            pairs += 1
            if pred_pos[i] is None or pred_pos[j] is None or gold_pos[i] is None or gold_pos[j] is None:
                inversions += 1
            elif (gold_pos[i] - gold_pos[j]) * (pred_pos[i] - pred_pos[j]) < 0:
                inversions += 1
    return 1 - inversions / pairs if pairs else 1.0


def _alignment_start(phrase: str, story: str) -> int | None:
    """Where the LCS of phrase and story starts in the story (the earliest alignment); None when
    the LCS covers less than half of the phrase (the phrase counts as missing)."""
    n, m = len(phrase), len(story)
    if not n or not m:
        return None
    # table[i][j]: LCS of phrase[i:] and story[j:], so the alignment is read left to right
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if phrase[i] == story[j] else max(table[i + 1][j], table[i][j + 1])
    if table[0][0] * 2 < n:
        return None
    i = j = 0
    while i < n and j < m:
        if phrase[i] == story[j] and table[i][j] == table[i + 1][j + 1] + 1:
            return j
        if table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return None


def order(
    candidates: Sequence[str], outlines: Sequence[Sequence[str]], golds: Sequence[str], definition: str = "nlpcc2021"
) -> float:
    """Mean over stories of 1 - (inverted phrase pairs / phrase pairs) against the gold story's order."""
    _same_length(candidates, outlines)
    _same_length(candidates, golds)
    if _definition(definition) in ("nlpcc2021", "lot"):  # LOT's own Order figures follow the script (README)
        return _mean([_script_order_one(c, gold_ranks(o, g)) for c, o, g in zip(candidates, outlines, golds)])
    return _mean([_paper_order_one(c, o, g) for c, o, g in zip(candidates, outlines, golds)])


# ----------------------------------------------------------------------------- Overall (NLPCC 2021 script)


def overall_weights(human: Sequence[float] = HUMAN_SCORES, baseline: Sequence[float] = BASELINE_SCORES) -> list[float]:
    """LOT Eq. 1: w_i = H_i / B_i, normalised to sum to 1 (w_i / sum_j w_j, as Eq. 2 uses them)."""
    if len(human) != len(baseline):
        raise ValueError("human and baseline scores differ in length")
    raw = [h / b for h, b in zip(human, baseline)]
    total = sum(raw)
    return [w / total for w in raw]


def nlpcc2021_overall(
    scores: Mapping[str, float],
    human: Sequence[float] = HUMAN_SCORES,
    baseline: Sequence[float] = BASELINE_SCORES,
    keys: Sequence[str] = OVERALL_KEYS,
) -> float:
    """The NLPCC 2021 OutGen script's score: Eq. 2 over six OutGen metrics with its val weights (not LOT's Overall)."""
    weights = overall_weights(human, baseline)
    if len(weights) != len(keys):
        raise ValueError(f"{len(weights)} weights for {len(keys)} metrics")
    return sum(w * scores[k] for w, k in zip(weights, keys))


overall = nlpcc2021_overall  # the name older code used


# ----------------------------------------------------------------------------- Overall (LOT Eq. 1-2)

#: a metric of LOT's Overall: (task, metric)
MetricKey = tuple[str, str]

#: the M metrics of each task family (LOT Section 3.5, Tables 10 and 11)
FAMILIES: dict[str, tuple[MetricKey, ...]] = {
    "understanding": (("clozet", "accuracy"), ("senpos", "accuracy")),
    "generation": (
        ("plotcom", "bleu-1"),
        ("plotcom", "bleu-2"),
        ("plotcom", "distinct-1"),
        ("plotcom", "distinct-2"),
        ("outgen", "bleu-1"),
        ("outgen", "bleu-2"),
        ("outgen", "distinct-1"),
        ("outgen", "distinct-2"),
        ("outgen", "coverage"),
        ("outgen", "order"),
    ),
}
#: the baseline B_i (Section 3.5: "BERT and GPT2 ... for the understanding and generation tasks") and the
#: human row H_i of each family in the paper's tables
PAPER_BASELINE = {"understanding": "BERT", "generation": "GPT2"}
PAPER_HUMAN = {"understanding": "Humans", "generation": "Truth"}

#: LOT Table 10 (accuracy %, ClozeT, SenPos, Overall) and Table 11 (PlotCom B-1, B-2, D-1, D-2; OutGen
#: B-1, B-2, D-1, D-2, Cover, Order; Overall), rows as printed (Guan et al. 2022, TACL), per split
PAPER_TABLE_10 = {
    "val": {
        "Transformer": (55.78, 17.38, 31.46),
        "BERT": (70.75, 40.13, 51.36),
        "RoBERTa": (72.11, 51.63, 59.14),
        "GPT2": (70.07, 37.78, 49.62),
        "GPT2\u2020": (74.49, 39.25, 52.17),
        "mT5": (72.45, 63.25, 66.62),
        "LongLM-small": (73.81, 48.75, 57.94),
        "LongLM-base": (75.17, 64.38, 68.34),
        "LongLM-large": (79.93, 70.00, 73.64),
        "Humans": (99.00, 97.00, 97.73),
    },
    "test": {
        "Transformer": (54.42, 16.34, 31.23),
        "BERT": (69.39, 43.68, 53.74),
        "RoBERTa": (67.69, 51.35, 57.74),
        "GPT2": (73.13, 37.25, 51.28),
        "GPT2\u2020": (76.87, 39.28, 53.98),
        "mT5": (75.17, 61.41, 66.79),
        "LongLM-small": (77.21, 53.07, 62.51),
        "LongLM-base": (77.55, 62.34, 68.29),
        "LongLM-large": (80.61, 69.41, 73.39),
        "Humans": (100.00, 98.00, 98.78),
    },
}
PAPER_TABLE_11 = {
    "val": {
        "ConvS2S": (18.92, 4.18, 6.31, 32.18, 29.23, 10.38, 3.45, 21.79, 14.81, 25.34, 11.85),
        "Fusion": (20.56, 4.69, 8.63, 35.73, 29.22, 10.34, 3.39, 22.67, 17.41, 26.55, 12.61),
        "GPT2": (22.67, 6.22, 24.75, 70.57, 30.43, 14.87, 10.95, 44.38, 60.90, 55.52, 20.24),
        "GPT2\u2020": (22.49, 5.43, 26.88, 74.87, 35.29, 18.31, 13.89, 51.36, 64.01, 57.64, 21.73),
        "PM": (22.11, 5.49, 23.89, 69.74, 31.81, 14.94, 12.99, 50.56, 62.98, 56.75, 20.45),
        "PW": (22.45, 5.57, 25.64, 71.54, 35.84, 18.47, 11.86, 47.62, 64.93, 57.30, 21.48),
        "mT5": (22.56, 6.46, 24.44, 71.31, 36.71, 22.25, 14.52, 50.01, 77.98, 63.15, 23.53),
        "LongLM-small": (21.78, 7.11, 20.17, 59.63, 35.03, 19.17, 10.80, 39.70, 62.53, 56.53, 21.02),
        "LongLM-base": (22.91, 8.28, 22.16, 63.54, 40.33, 24.29, 14.66, 51.82, 79.60, 62.78, 24.75),
        "LongLM-large": (23.76, 8.70, 25.93, 72.18, 42.79, 24.91, 16.13, 57.71, 80.46, 64.36, 26.12),
        "Truth": (100.00, 100.00, 35.32, 84.33, 100.00, 100.00, 21.66, 71.43, 100.00, 100.00, 92.23),
    },
    "test": {
        "ConvS2S": (19.60, 4.20, 6.00, 32.42, 29.00, 10.14, 1.60, 13.95, 15.45, 25.77, 11.27),
        "Fusion": (20.52, 4.90, 8.43, 35.09, 28.77, 10.22, 1.47, 14.12, 17.10, 26.36, 11.91),
        "GPT2": (22.94, 5.76, 24.69, 70.30, 30.17, 14.91, 7.62, 36.87, 60.87, 55.90, 19.21),
        "GPT2\u2020": (22.45, 5.38, 26.08, 73.26, 35.79, 18.68, 9.89, 43.52, 64.43, 56.96, 20.76),
        "PM": (22.87, 5.75, 24.08, 71.19, 31.85, 15.24, 8.62, 41.32, 63.15, 57.21, 19.77),
        "PW": (22.76, 6.07, 25.55, 70.72, 35.12, 17.96, 8.68, 40.17, 63.70, 55.17, 20.52),
        "mT5": (22.52, 6.48, 24.33, 70.53, 36.33, 22.07, 10.90, 43.65, 78.66, 63.79, 22.59),
        "LongLM-small": (22.05, 7.45, 19.93, 59.79, 34.48, 19.17, 7.93, 34.25, 63.75, 57.64, 20.48),
        "LongLM-base": (23.28, 8.58, 21.37, 62.43, 40.25, 24.15, 10.75, 44.40, 79.88, 63.67, 23.93),
        "LongLM-large": (24.20, 9.06, 25.75, 71.08, 42.10, 24.77, 12.04, 50.29, 81.48, 64.82, 25.29),
        "Truth": (100.00, 100.00, 35.01, 84.56, 100.00, 100.00, 15.71, 63.46, 100.00, 100.00, 91.64),
    },
}


def paper_row(family: str, split: str, model: str) -> dict[MetricKey, float]:
    """A row of LOT Table 10 (understanding) or 11 (generation) as fractions keyed by (task, metric);
    the paper's Overall under ("overall", family)."""
    table = PAPER_TABLE_10 if family == "understanding" else PAPER_TABLE_11
    if split not in table:
        raise ValueError(f"the paper reports splits {sorted(table)}, not {split!r}")
    if model not in table[split]:
        raise ValueError(f"no row {model!r} in LOT's {family} table: choose from {sorted(table[split])}")
    *values, overall_value = table[split][model]
    row = {key: v / 100 for key, v in zip(FAMILIES[family], values)}
    row[("overall", family)] = overall_value / 100
    return row


def lot_weights(
    human: Mapping[MetricKey, float], baseline: Mapping[MetricKey, float], family: str
) -> dict[MetricKey, float]:
    """LOT Eq. 1 with Eq. 2's normalisation: w_i = (H_i / B_i) / sum_j (H_j / B_j) over the family's metrics."""
    keys = FAMILIES[family]
    missing = [f"{t} {m}" for t, m in keys if (t, m) not in human or (t, m) not in baseline]
    if missing:
        raise ValueError(f"{family} Overall needs human and baseline scores for {', '.join(missing)}")
    bad = [f"{t} {m}" for t, m in keys if not baseline[(t, m)] > 0]
    if bad:
        raise ValueError(f"the baseline scores 0 on {', '.join(bad)}: its weight H/B is undefined")
    raw = {k: human[k] / baseline[k] for k in keys}
    total = sum(raw.values())
    return {k: w / total for k, w in raw.items()}


def lot_overall(scores: Mapping[MetricKey, float], weights: Mapping[MetricKey, float]) -> float:
    """LOT Eq. 2: S = sum_i w_i S_i; NaN when a metric of the family is missing or undefined."""
    values = [scores.get(k) for k in weights]
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
        return math.nan
    return sum(w * v for w, v in zip(weights.values(), values))


def paper_weights(family: str, split: str = "test") -> dict[MetricKey, float]:
    """The w_i of LOT's own tables: the Humans/Truth row over the BERT/GPT2 row of the same split."""
    return lot_weights(
        paper_row(family, split, PAPER_HUMAN[family]), paper_row(family, split, PAPER_BASELINE[family]), family
    )


def load_human_performance(
    path: str | Path, *, allow_partial: bool = False, split: str | None = None
) -> dict[MetricKey, float]:
    """H_i from a human-performance JSON (`annotate pull human_perf`): {"clozet": {"accuracy": 0.98, ...,
    "splits": {"val": {"accuracy": 0.99, ...}, "test": {...}}}, "senpos": {...}, "outgen": {"bleu-1": 1.0, ...}};
    fractions in [0, 1]; unknown keys are ignored. With `split`, a task's figures of that split are used (LOT Table 10
    gives H per split); a task without per-split figures (a file written before they existed, or written by hand)
    gives its figures to every split; a task with per-split figures but none for `split` is an error.
    A task marked `"partial": true` (fewer items or raters than its job asked for) is refused unless `allow_partial`."""
    path = must_exist(path, "human-performance file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not a JSON file ({exc})", path=str(path)) from exc
    if not isinstance(data, dict):
        raise InputError("expected a JSON object keyed by task", path=str(path))
    known = {k for keys in FAMILIES.values() for k in keys}
    out: dict[MetricKey, float] = {}
    for task, metrics_of_task in data.items():
        if task not in {t for t, _ in known}:
            continue
        if not isinstance(metrics_of_task, dict):
            raise InputError(f"key {task!r}: expected an object of metric scores", path=str(path))
        if metrics_of_task.get("partial") and not allow_partial:
            raise InputError(
                f"key {task!r} is partial: {metrics_of_task.get('n_items')} of {metrics_of_task.get('items_pushed')} "
                f"items, at least {metrics_of_task.get('n_raters_min')} of {metrics_of_task.get('raters_asked')} "
                f"raters; --allow-partial-human to use it anyway",
                path=str(path),
            )
        per_split = metrics_of_task.get("splits")
        if split is not None and isinstance(per_split, dict):
            if split not in per_split:
                raise InputError(
                    f"key {task!r} has human figures for {', '.join(sorted(per_split))}, none for split {split!r}",
                    path=str(path),
                )
            metrics_of_task = per_split[split]
        for metric, value in metrics_of_task.items():
            if (task, metric) not in known:
                continue  # fleiss_kappa, n_items, ...
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
                raise InputError(f"key {task}.{metric}: {value!r} is not a fraction in (0, 1]", path=str(path))
            out[(task, metric)] = float(value)
    if not out:
        raise InputError(
            f"no human score for any metric of LOT's Overall ({', '.join(t for t, _ in FAMILIES['understanding'])} accuracy, ...)",
            path=str(path),
        )
    return out


# ----------------------------------------------------------------------------- per task


def evaluate(
    task: str,
    pred: Sequence[Mapping[str, Any]],
    gold: Sequence[Mapping[str, Any]],
    definition: str = "lot",
    human: Sequence[float] = HUMAN_SCORES,
    baseline: Sequence[float] = BASELINE_SCORES,
) -> dict[str, float]:
    """Score LOT-format prediction records against LOT-format gold records of one task.

    The task's record decides (`TaskSpec`): a choice task is scored by accuracy; a generation task by
    BLEU and Distinct-1..n (n = `spec.max_n(definition)`: 2 for the metrics of Tables 10/11, 4 for OutGen
    under nlpcc2021 / paper), plus Coverage and Order when it has an outline. Under nlpcc2021, where the
    script's six metrics are there (OutGen), its score `nlpcc2021_overall` (B-1, B-2, D-3, D-4, Cover, Order
    weighed by `human` / `baseline`). LOT's Overall spans two tasks: see `lot_overall`."""
    definition = _definition(definition)
    if len(pred) != len(gold):
        raise InputError(f"{len(pred)} predictions for {len(gold)} gold examples")
    spec = get_task(task)
    field = spec.prediction_field
    if spec.is_choice:
        return {"accuracy": accuracy([p[field] for p in pred], [g[field] for g in gold])}
    max_n = spec.max_n(definition)
    cands, refs = [p[field] for p in pred], [g[field] for g in gold]
    if cands and not any(isinstance(c, str) and c.strip() for c in cands):  # Coverage 0, Order ~24: figures of nothing
        raise InputError(
            f"every prediction's {field!r} is empty ({len(cands)} of {len(cands)}): nothing to score "
            f"(did the model generate anything?)"
        )
    scores = {**bleu(cands, refs, max_n, definition), **distinct(cands, max_n, definition)}
    if spec.outline_field is not None:
        outlines = [g[spec.outline_field] for g in gold]
        scores["coverage"] = coverage(cands, outlines, definition)
        scores["order"] = order(cands, outlines, refs, definition)
    if definition == "nlpcc2021" and all(k in scores for k in OVERALL_KEYS):
        scores["nlpcc2021_overall"] = nlpcc2021_overall(scores, human, baseline)
    return scores


ID_FIELD = "example_id"


def load_records(path: str | Path, task: str, gold: bool = False) -> list[dict[str, Any]]:
    """LOT-format records from a LOT jsonl file or one of our Parquet task tables (these records
    also carry the row's ``example_id``, so that predictions can be matched to the gold by id)."""
    path = must_exist(path, "input")
    if path.is_dir():
        raise MissingFileError("is a folder; give a LOT jsonl or Parquet file", path=str(path))
    spec = get_task(task)
    needed = (spec.prediction_field,) + ((spec.outline_field,) if gold and spec.outline_field else ())
    if path.suffix == ".parquet":
        from lotdata.datasets.lotformat import to_lot
        from lotdata.io import read_parquet

        records = [
            {**to_lot(task, row), ID_FIELD: row[ID_FIELD]} for row in read_parquet(path, spec.schema).to_pylist()
        ]
    else:
        records = []
        for line_no, record in iter_jsonl(path):
            missing = [f for f in needed if not isinstance(record, dict) or f not in record]
            if missing:
                raise InputError(f"missing field(s) {missing} for task {task}", path=str(path), row=line_no)
            foreign = _other_task_fields(task, record)
            if foreign:
                raise InputError(
                    f"a {foreign[0]} record (it has {foreign[1]}), not a {task} one: the file is of another task",
                    path=str(path),
                    row=line_no,
                )
            problem = _field_problem(task, record)
            if problem:
                raise InputError(problem, path=str(path), row=line_no)
            records.append(record)
    if not records:
        raise InputError("no record to score (the file is empty)", path=str(path))
    return records


def _other_task_fields(task: str, record: Mapping[str, Any]) -> tuple[str, list[str]] | None:
    """(other task, its fields) when `record` holds LOT fields that only another task's records have
    (a ClozeT file scored as SenPos has plot0/plot1), else None."""

    own = set(get_task(task).lot_fields[0]) | set(get_task(task).lot_fields[1])
    for spec in all_tasks():
        theirs = sorted((set(spec.lot_fields[0]) - own) & set(record))
        if spec.name != task and theirs:
            return spec.name, theirs
    return None


def _field_problem(task: str, record: Mapping[str, Any]) -> str | None:
    """Why a LOT record's scored fields cannot be scored (wrong type or label), or None; the prediction
    field is replaced by the value scored (the task's `parse_prediction`, e.g. a SenPos "3" becomes 3)."""
    spec = get_task(task)
    field, value = spec.prediction_field, record[spec.prediction_field]
    if spec.parse_prediction is not None:
        try:
            record[field] = spec.parse_prediction(value)
        except ValueError as exc:
            return str(exc)
    elif isinstance(value, bool) or not isinstance(value, spec.prediction_type):
        kind = "text" if spec.prediction_type is str else spec.prediction_type.__name__
        return f"{field!r} is {type(value).__name__} {value!r}, not {kind}"
    outline = record.get("outline")
    if outline is not None and (not isinstance(outline, list) or not all(isinstance(p, str) for p in outline)):
        return f"'outline' is not a list of phrases: {outline!r}"[:200]
    for field in ("story", "title"):
        if field in record and record[field] is not None and not isinstance(record[field], str):
            return f"{field!r} is {type(record[field]).__name__} {record[field]!r}, not text"
    return None


def align_records(
    task: str,
    pred: Sequence[Mapping[str, Any]],
    gold: Sequence[Mapping[str, Any]],
    pred_name: str = "predictions",
    gold_name: str = "gold",
) -> list[Mapping[str, Any]]:
    """The predictions in the gold's order.

    When every record of both sides has an ``example_id`` (our Parquet), predictions are matched to
    the gold by id; an id on one side only is an error. Otherwise (LOT jsonl has no ids) records are
    matched by row: the counts must be equal and, where both sides hold the input the prediction was
    made from (the story; OutGen's outline), it must agree row by row."""
    if pred and gold and all(ID_FIELD in r for r in pred) and all(ID_FIELD in g for g in gold):
        by_id: dict[str, Mapping[str, Any]] = {}
        for row, record in enumerate(pred, start=1):
            if record[ID_FIELD] in by_id:
                raise InputError(f"example_id {record[ID_FIELD]!r} appears twice", path=pred_name, row=row)
            by_id[record[ID_FIELD]] = record
        gold_ids = [g[ID_FIELD] for g in gold]
        for name, ids, other in ((pred_name, list(by_id), set(gold_ids)), (gold_name, gold_ids, set(by_id))):
            only = [i for i in ids if i not in other]
            if only:
                other_name = gold_name if name == pred_name else pred_name
                raise InputError(f"{len(only)} example_id(s) missing from {other_name}, e.g. {only[0]!r}", path=name)
        aligned = [by_id[i] for i in gold_ids]
    else:
        if len(pred) != len(gold):
            raise InputError(
                f"{len(pred)} predictions for {len(gold)} gold examples (no example_id to match them by: "
                "records are matched by row)",
                path=pred_name,
            )
        aligned = list(pred)
    for row, (p, g) in enumerate(zip(aligned, gold), start=1):
        for field in get_task(task).lot_input_fields:  # the input the prediction was made from
            if field in p and field in g and p[field] != g[field]:
                where = f"example_id {g[ID_FIELD]!r}" if ID_FIELD in g else f"row {row}"
                raise InputError(
                    f"{field!r} differs from {gold_name} at {where}: the predictions are not for these gold examples "
                    "(or not in their order)",
                    path=pred_name,
                )
    return aligned


#: why a metric can come out undefined (NaN)
_UNDEFINED = {
    "coverage": "no (output, outline phrase) pair could be scored: every output or every phrase is empty",
    "nlpcc2021_overall": "it weighs metrics that could not be computed",
}


def undefined_metrics(scores: Mapping[str, float]) -> dict[str, str]:
    """The metrics of `scores` that are NaN, each with the reason it could not be computed."""
    return {
        k: _UNDEFINED.get(k, "no example could be scored")
        for k, v in scores.items()
        if isinstance(v, float) and math.isnan(v)
    }


def _definition(definition: str) -> str:
    name = DEFINITION_ALIASES.get(definition, definition)
    if name not in DEFINITIONS:
        raise ValueError(f"unknown definition {definition!r}: choose from {DEFINITIONS}")
    return name


def _is_script(definition: str) -> bool:
    return _definition(definition) == "nlpcc2021"


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else math.nan


def _same_length(a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"{len(a)} predictions for {len(b)} references")


__all__ = [
    "accuracy",
    "bleu",
    "distinct",
    "coverage",
    "order",
    "overall",
    "overall_weights",
    "nlpcc2021_overall",
    "evaluate",
    "FAMILIES",
    "lot_weights",
    "lot_overall",
    "paper_row",
    "paper_weights",
    "load_human_performance",
    "load_records",
    "align_records",
    "undefined_metrics",
    "gold_ranks",
    "longest_common_substring",
]


def human_performance_splits(path: str | Path) -> dict[str, list[str]]:
    """The splits each task of a human-performance JSON gives figures for ([] when pooled: no per-split figures)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {task: sorted(entry.get("splits") or {}) for task, entry in data.items() if isinstance(entry, dict)}
