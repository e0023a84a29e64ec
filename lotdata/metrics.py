"""LOT metrics (Section 5.3): accuracy, BLEU-n, Distinct-n, Coverage, Order and the Overall score.

Two definitions:

* ``official`` (default): the figures of the OutGen evaluation script of the NLPCC 2021 shared task
  built on LOT (``datasets/chn/eval.py`` of IndexFziQ/LongLM-Eyas), quirks included, on the same
  packages (nltk's ``sentence_bleu``, ``rouge`` 1.0.0). Scores are fractions in [0, 1] as the script
  prints them. The quirks are listed in the README ("lotdata evaluate").
* ``paper``: the plain definitions of the paper: corpus BLEU and word Distinct-n on jieba words,
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

from lotdata.datasets.registry import get_task
from lotdata.errors import InputError, MissingFileError, require, must_exist

DEFINITIONS = ("official", "paper")
UNDERSTANDING = ("clozet", "senpos")
GENERATION = ("plotcom", "outgen")

#: the script's "val-w" weights: human figures and LongLM-small's val figures (percent), in the
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

def bleu(candidates: Sequence[str], references: Sequence[str], max_n: int = 4, definition: str = "official") -> dict[str, float]:
    """BLEU-1..max_n on jieba words.

    official: nltk's unsmoothed ``sentence_bleu`` of each story (uniform weights 1/n), averaged.
    paper: nltk's ``corpus_bleu`` (Papineni et al. 2002 pool the n-gram counts over the corpus).
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
            if definition == "official":
                scores = [bleu_score.sentence_bleu(r, h, weights=weights) for r, h in zip(refs, hyps)]
                out[f"bleu-{n}"] = _mean(scores)
            else:
                out[f"bleu-{n}"] = float(bleu_score.corpus_bleu(refs, hyps, weights=weights)) if hyps else 0.0
    return out


# ----------------------------------------------------------------------------- Distinct

def distinct(candidates: Sequence[str], max_n: int = 4, definition: str = "official") -> dict[str, float]:
    """Distinct-1..max_n over all outputs: distinct n-grams / all n-grams.

    official: character n-grams of the space-joined jieba string (spaces are characters too), each
    n-gram keyed by its characters joined with '_' as the script does.
    paper: jieba word n-grams.
    """
    out = {}
    units = [spaced_words(c) if definition == "official" else jieba_words(c) for c in candidates]
    for n in range(1, max_n + 1):
        seen: set = set()
        total = 0
        for seq in units:
            grams = _ngrams(seq, n)
            total += len(grams)
            # the script keys an n-gram by its characters joined with '_' (so 'a_','b' and 'a','_b' collide)
            seen.update(["_".join(g) for g in grams] if definition == "official" else grams)
        out[f"distinct-{n}"] = len(seen) / total if total else 0.0
    return out


def _ngrams(seq: Sequence, n: int) -> list[tuple]:
    return [tuple(seq[i : i + n]) for i in range(len(seq) - n + 1)]


# ----------------------------------------------------------------------------- Coverage

def coverage(candidates: Sequence[str], outlines: Sequence[Sequence[str]], definition: str = "official") -> float:
    """Mean ROUGE-L recall of each outline phrase against the generated story.

    official: the ``rouge`` 1.0.0 package on space-separated characters, one score per (story,
    phrase) pair pooled over the corpus; a pair the package cannot score (an empty output) is left
    out of the mean, not counted as 0. Phrases are the outline joined by '#' and split again on '#'.
    paper: LCS(phrase, story) / len(phrase) on characters, averaged per story, then over stories
    (an empty output scores 0).
    """
    _same_length(candidates, outlines)
    if definition == "official":
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


def order(candidates: Sequence[str], outlines: Sequence[Sequence[str]], golds: Sequence[str], definition: str = "official") -> float:
    """Mean over stories of 1 - (inverted phrase pairs / phrase pairs) against the gold story's order."""
    _same_length(candidates, outlines)
    _same_length(candidates, golds)
    if definition == "official":
        return _mean([_script_order_one(c, gold_ranks(o, g)) for c, o, g in zip(candidates, outlines, golds)])
    return _mean([_paper_order_one(c, o, g) for c, o, g in zip(candidates, outlines, golds)])


# ----------------------------------------------------------------------------- Overall

def overall_weights(human: Sequence[float] = HUMAN_SCORES, baseline: Sequence[float] = BASELINE_SCORES) -> list[float]:
    """LOT Eq. 1: w_i = H_i / B_i, normalised to sum to 1."""
    if len(human) != len(baseline):
        raise ValueError("human and baseline scores differ in length")
    raw = [h / b for h, b in zip(human, baseline)]
    total = sum(raw)
    return [w / total for w in raw]


def overall(scores: Mapping[str, float], human: Sequence[float] = HUMAN_SCORES, baseline: Sequence[float] = BASELINE_SCORES, keys: Sequence[str] = OVERALL_KEYS) -> float:
    """LOT Eq. 2: sum of w_i S_i (the script's default: its val weights over six OutGen metrics)."""
    weights = overall_weights(human, baseline)
    if len(weights) != len(keys):
        raise ValueError(f"{len(weights)} weights for {len(keys)} metrics")
    return sum(w * scores[k] for w, k in zip(weights, keys))


# ----------------------------------------------------------------------------- per task

def evaluate(task: str, pred: Sequence[Mapping[str, Any]], gold: Sequence[Mapping[str, Any]], definition: str = "official",
             human: Sequence[float] = HUMAN_SCORES, baseline: Sequence[float] = BASELINE_SCORES) -> dict[str, float]:
    """Score LOT-format prediction records against LOT-format gold records of one task.

    OutGen's `overall` weighs B-1, B-2, D-3, D-4, Cover and Order by `human` / `baseline` (Eq. 1-2)."""
    if definition not in DEFINITIONS:
        raise ValueError(f"unknown definition {definition!r}: choose from {DEFINITIONS}")
    if len(pred) != len(gold):
        raise InputError(f"{len(pred)} predictions for {len(gold)} gold examples")
    if get_task(task).metric_family == "understanding":
        return {"accuracy": accuracy([p["label"] for p in pred], [g["label"] for g in gold])}
    if task == "plotcom":
        cands, refs = [p["plot"] for p in pred], [g["plot"] for g in gold]
        return {**bleu(cands, refs, 2, definition), **distinct(cands, 2, definition)}
    if task == "outgen":
        cands, refs = [p["story"] for p in pred], [g["story"] for g in gold]
        outlines = [g["outline"] for g in gold]
        scores = {
            **bleu(cands, refs, 4, definition),
            **distinct(cands, 4, definition),
            "coverage": coverage(cands, outlines, definition),
            "order": order(cands, outlines, refs, definition),
        }
        scores["overall"] = overall(scores, human, baseline)
        return scores
    raise ValueError(f"unknown task {task!r}")


#: the input a prediction was made from, present in LOT records of both sides: used to check that
#: records lined up by row are the same examples (OutGen's `story` is the output itself, not an input)
_CONTEXT_FIELDS = {"clozet": ("story",), "senpos": ("story",), "plotcom": ("story",), "outgen": ("outline",)}
ID_FIELD = "example_id"


def load_records(path: str | Path, task: str, gold: bool = False) -> list[dict[str, Any]]:
    """LOT-format records from a LOT jsonl file or one of our Parquet task tables (these records
    also carry the row's ``example_id``, so that predictions can be matched to the gold by id)."""
    path = must_exist(path, "input")
    if path.is_dir():
        raise MissingFileError("is a folder; give a LOT jsonl or Parquet file", path=str(path))
    needed = (get_task(task).prediction_field,) + (("outline",) if gold and task == "outgen" else ())
    if path.suffix == ".parquet":
        from lotdata.io import read_parquet
        from lotdata.schema import TASK_SCHEMAS
        from lotdata.datasets.lotformat import to_lot

        records = [{**to_lot(task, row), ID_FIELD: row[ID_FIELD]} for row in read_parquet(path, TASK_SCHEMAS[task]).to_pylist()]
    else:
        records = []
        with open(path, "rb") as handle:
            for line_no, raw in enumerate(handle, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InputError(f"not UTF-8 text (byte {exc.start}): a binary file? give LOT jsonl or Parquet", path=str(path), row=line_no) from exc
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InputError(f"not JSON ({exc.msg})", path=str(path), row=line_no) from exc
                missing = [f for f in needed if not isinstance(record, dict) or f not in record]
                if missing:
                    raise InputError(f"missing field(s) {missing} for task {task}", path=str(path), row=line_no)
                records.append(record)
    if not records:
        raise InputError("no record to score (the file is empty)", path=str(path))
    return records


def align_records(task: str, pred: Sequence[Mapping[str, Any]], gold: Sequence[Mapping[str, Any]],
                  pred_name: str = "predictions", gold_name: str = "gold") -> list[Mapping[str, Any]]:
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
            raise InputError(f"{len(pred)} predictions for {len(gold)} gold examples (no example_id to match them by: "
                             "records are matched by row)", path=pred_name)
        aligned = list(pred)
    for row, (p, g) in enumerate(zip(aligned, gold), start=1):
        for field in _CONTEXT_FIELDS[task]:
            if field in p and field in g and p[field] != g[field]:
                where = f"example_id {g[ID_FIELD]!r}" if ID_FIELD in g else f"row {row}"
                raise InputError(f"{field!r} differs from {gold_name} at {where}: the predictions are not for these gold examples "
                                 "(or not in their order)", path=pred_name)
    return aligned


#: why a metric can come out undefined (NaN)
_UNDEFINED = {
    "coverage": "no (output, outline phrase) pair could be scored: every output or every phrase is empty",
    "overall": "it weighs metrics that could not be computed",
}


def undefined_metrics(scores: Mapping[str, float]) -> dict[str, str]:
    """The metrics of `scores` that are NaN, each with the reason it could not be computed."""
    return {k: _UNDEFINED.get(k, "no example could be scored") for k, v in scores.items()
            if isinstance(v, float) and math.isnan(v)}


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else math.nan


def _same_length(a: Sequence, b: Sequence) -> None:
    if len(a) != len(b):
        raise ValueError(f"{len(a)} predictions for {len(b)} references")


__all__ = [
    "accuracy", "bleu", "distinct", "coverage", "order", "overall", "overall_weights", "evaluate",
    "load_records", "align_records", "undefined_metrics", "gold_ranks", "longest_common_substring",
]
