"""The audit on the executor (`lotdata.exec`): plan shards -> process one shard -> combine in the caller.

The caller (`lotdata.audit.run.audit`) loads the items once and writes them to a work folder (`items.json`:
large shared state goes in a file, not in the shard function's closure). Then two phases:

1. sentiment: the unique (lang, sentence) pairs the sentiment baselines need and the score store lacks go to
   a row-grouped work file, `SENTENCES_PER_SHARD[lang]` a shard; each shard scores its rows into a Parquet part;
   the caller adds the parts to its FeatureCache (and store) and writes every known score to
   `sentiment.parquet` for phase 2.
2. jobs: one shard per baseline, one for the token scan and one for AFLite. A shard loads the items and the
   scores once per process, runs its job and writes a JSON part: the records and run-0 predictions of a
   baseline, or why it was skipped. The caller merges the parts in the order the baselines were asked for,
   then applies Holm and the verdicts once over the whole report.

The BERT baselines are shards of their own, run in the caller's process one after another (one model at a
time, in the process that holds the GPU, as before the executor). Each phase writes done markers in the work
folder: a re-run of the same input with the same parameters over the same folder skips the shards a stopped
run finished. Nothing a shard computes depends on the process it runs in (ties are drawn from generators
seeded by baseline, split and run), so the report is the same for any executor and number of workers.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import mean
from typing import Any, Callable, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from lotdata.audit.baselines import Baseline, Scores, Sentiment, get_baseline, resource_problem, shape_problem
from lotdata.audit.bert import BertSettings
from lotdata.audit.features import FeatureCache, score_sentences, sentiment_problem
from lotdata.audit.items import Item
from lotdata.audit.scan import association_scan
from lotdata.audit.stats import chance_test, wilson_interval
from lotdata.datasets.registry import get_task
from lotdata.errors import MissingExtraError, require
from lotdata.exec import ExecSettings, Shard, ShardResult, read_shard_rows, run_shards, write_row_grouped
from lotdata.io import sha256_file, sha256_text, write_parquet, write_text
from lotdata.text.tokenize import default_tokenizer, get_tokenizer

#: the executor's work folder inside the report folder; removed once the report is written
WORK_DIR = ".lotdata-work"
#: sentences per sentiment shard, about 2 s of work each: snownlp scores ~240 a second, VADER thousands
SENTENCES_PER_SHARD = {"zh": 500, "en": 20_000}
ITEMS_FILE = "items.json"
SCORES_FILE = "sentiment.parquet"
SCAN, AFLITE = "association_scan", "aflite"
_SCORED = pa.schema([("lang", pa.string()), ("sentence", pa.string()), ("score", pa.float64())])


@dataclass(frozen=True)
class Job:
    """What every shard of one audit shares: the work folder and the parameters its results depend on."""

    work: str
    task: str
    lang: str
    train_split: str
    seed: int
    runs: int
    sentiment: str
    model_path: str | None = None
    bert: BertSettings | None = None

    def fingerprint(self) -> str:
        """Changes with the items and with every parameter a shard's part depends on."""
        params = {k: v for k, v in asdict(self).items() if k != "work"}
        return sha256_text(
            json.dumps([sha256_file(Path(self.work) / ITEMS_FILE), params], sort_keys=True, default=str)
        )[:16]


def write_items(work: Path, items: dict[str, list[Item]]) -> Path:
    """The items by split, in order, as the shards read them."""
    data = {split: [asdict(it) for it in rows] for split, rows in items.items()}
    return write_text(json.dumps(data, ensure_ascii=False) + "\n", work / ITEMS_FILE)


# ---------------------------------------------------------------------------------------------
# phase 1: sentiment scores of unique sentences


@dataclass(frozen=True)
class _SentimentShard:
    method: str

    def __call__(self, shard: Shard, part: Path) -> dict:
        rows = read_shard_rows(shard)
        scores: list[float] = []
        for lang in dict.fromkeys(r["lang"] for r in rows):  # rows are sorted by language
            scores += score_sentences([r["sentence"] for r in rows if r["lang"] == lang], lang, self.method)
        table = pa.table(
            {"lang": [r["lang"] for r in rows], "sentence": [r["sentence"] for r in rows], "score": scores},
            schema=_SCORED,
        )
        write_parquet(table, part)
        return {"sentences": len(rows)}


def needs_sentiment(names: Sequence[str], task: str, lang: str) -> bool:
    """Whether a requested sentiment baseline will run on this data (and so needs the scores)."""
    shape = get_task(task).choice_shape
    for name in names:
        spec = get_baseline(name)
        if spec.model or shape_problem(spec, task, shape):
            continue
        baseline = spec.make(None)
        if isinstance(baseline, Sentiment) and resource_problem(baseline, lang) is None:
            return True
    return False


def score_pairs(pairs: Sequence[tuple[str, str]], cache: FeatureCache, work: Path, execution: ExecSettings) -> float:
    """Score the (lang, sentence) pairs `cache` lacks in shards on the executor (`execution`) and add them to it (and to its store); returns the seconds spent. A language whose analyser
    is not installed is left out: the baselines that need it say so in their skipped rows."""
    todo = cache.missing_sentiment(pairs)
    usable = {lang for lang in {lang for lang, _ in todo} if sentiment_problem(lang, cache.sentiment_method) is None}
    todo = [pair for pair in todo if pair[0] in usable]
    if not todo:
        return 0.0
    started = time.perf_counter()
    table = pa.table({"lang": [lang for lang, _ in todo], "sentence": [text for _, text in todo]})
    per_shard = min(SENTENCES_PER_SHARD.get(lang, SENTENCES_PER_SHARD["zh"]) for lang in usable)
    shards = write_row_grouped(table, work / "sentences.parquet", per_shard)
    fingerprint = sha256_text(json.dumps([cache.sentiment_method, sha256_file(work / "sentences.parquet")]))[:16]
    results = run_shards(
        _SentimentShard(cache.sentiment_method),
        shards,
        work / "sentiment",
        fingerprint=fingerprint,
        suffix=".parquet",
        progress=False,
        description="sentiment",
        execution=execution,
    )
    for result in results:
        rows = pq.read_table(result.part).to_pylist()
        cache.add_sentiment((r["lang"], r["sentence"], r["score"]) for r in rows)
    seconds = time.perf_counter() - started
    cache.sentiment_seconds += seconds
    if cache.store is not None:
        cache.save_sentiment(cache.store)
    return seconds


# ---------------------------------------------------------------------------------------------
# phase 2: one shard per baseline, the scan and AFLite


_LOADED: dict[tuple, tuple[dict[str, list[Item]], FeatureCache]] = {}


def _load(work: str, method: str) -> tuple[dict[str, list[Item]], FeatureCache]:
    """The items and a feature cache holding phase 1's scores, read once per process and audit: the
    shards that follow in the same process share the tokens and n-grams the first one computed."""
    files = [Path(work) / ITEMS_FILE, Path(work) / SCORES_FILE]
    key = (
        str(files[0].resolve()),
        method,
        *((f.stat().st_mtime_ns, f.stat().st_size) if f.exists() else None for f in files),
    )
    if key not in _LOADED:
        _LOADED.clear()
        data = json.loads(files[0].read_text(encoding="utf-8"))
        items = {split: [Item(**row) for row in rows] for split, rows in data.items()}
        cache = FeatureCache(method)
        if files[1].exists():
            cache.load_sentiment(files[1])
        _LOADED[key] = (items, cache)
    return _LOADED[key]


def forget() -> None:
    """Drop this process's loaded items (the caller's, once its audit is combined)."""
    _LOADED.clear()


@dataclass(frozen=True)
class _JobShard:
    job: Job

    def __call__(self, shard: Shard, part: Path) -> dict:
        started = time.perf_counter()
        items, cache = _load(self.job.work, self.job.sentiment)
        before = cache.sentiment_seconds
        everything = [it for rows in items.values() for it in rows]
        if shard.path == SCAN:
            payload: dict[str, Any] = {"scan": association_scan(everything, cache)}
        elif shard.path == AFLITE:
            from lotdata.audit.aflite import aflite_filter

            payload = {"aflite": aflite_filter(everything, cache, seed=self.job.seed)}
        else:
            payload = baseline_part(shard.path, items, cache, self.job)
        payload["seconds"] = time.perf_counter() - started
        payload["sentiment_seconds"] = cache.sentiment_seconds - before
        write_text(json.dumps(payload, ensure_ascii=False) + "\n", part)
        return {"seconds": round(payload["seconds"], 3)}


def run_jobs(
    names: Sequence[str],
    job: Job,
    *,
    aflite: bool,
    execution: ExecSettings,
    on_done: Callable[[str, bool], None] | None = None,
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Phase 2: (the part of every baseline, the scan and AFLite by name; the names a stopped run had finished).

    `on_done(name, resumed)` is called as each shard finishes; the BERT baselines run one at a time here."""
    fingerprint = job.fingerprint()
    # imported and loaded once here, before the workers fork, so that they share them: the chance test of
    # every record, and the Chinese tokenizer's dictionary every baseline reads words with
    require("scipy.stats", "audit")
    if job.lang == "zh":
        get_tokenizer(default_tokenizer())
    plans = [
        ([n for n in names if not get_baseline(n).model] + [SCAN] + ([AFLITE] if aflite else []), "jobs", execution),
        ([n for n in names if get_baseline(n).model], "models", ExecSettings()),
    ]
    parts: dict[str, dict[str, Any]] = {}
    resumed: list[str] = []
    notify = (lambda result: on_done(result.shard.path, result.skipped)) if on_done else None
    for plan, folder, options in plans:
        if not plan:
            continue
        results: list[ShardResult] = run_shards(
            _JobShard(job),
            [Shard(name) for name in plan],
            Path(job.work) / folder,
            fingerprint=fingerprint,
            suffix=".json",
            progress=False,
            description="audit",
            on_shard=notify,
            execution=options,
        )
        for result in results:
            parts[result.shard.path] = json.loads(result.part.read_text(encoding="utf-8"))
            if result.skipped:
                resumed.append(result.shard.path)
    return parts, resumed


def baseline_part(name: str, items: dict[str, list[Item]], cache: FeatureCache, job: Job) -> dict[str, Any]:
    """{"records", "predictions"} of one baseline on every split it is scored on, or {"skipped": why}."""
    outcome = run_baseline(name, job.task, job.lang, items, job.train_split, cache, job.seed, job.model_path, job.bert)
    if isinstance(outcome, str):
        return {"skipped": outcome}
    per_split, stochastic, learns = outcome
    records, predictions = [], []
    for split, scores in per_split.items():
        record, preds = score_record(
            name, split, items[split], scores, seed=job.seed, runs=job.runs, stochastic=stochastic
        )
        record["fit_on"] = job.train_split if learns else None
        records.append(record)
        predictions.extend(preds)
    return {"records": records, "predictions": predictions}


def choose(scores: Sequence[float], rng: random.Random) -> tuple[int, bool]:
    """The best option, a random one among equals; and whether there was a tie."""
    best = max(scores)
    top = [o for o, s in enumerate(scores) if s >= best - 1e-12]
    return (top[0], False) if len(top) == 1 else (rng.choice(top), True)


def score_record(
    name: str, split: str, items: Sequence[Item], scores: Scores, *, seed: int, runs: int, stochastic: bool
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Accuracy over seeded runs (one when nothing is left to chance) and the run-0 predictions."""
    ties = [sum(1 for s in row if s >= max(row) - 1e-12) > 1 for row in scores]
    n_runs = runs if (stochastic or any(ties)) else 1
    accuracies, predictions = [], []
    for run in range(n_runs):
        rng = random.Random(f"{seed}:{name}:{split}:{run}")
        chosen = [choose(row, rng)[0] for row in scores]
        correct = [c == it.gold_option for c, it in zip(chosen, items)]
        accuracies.append(sum(correct) / len(items) if items else 0.0)
        if run == 0:
            predictions = [
                {
                    "baseline": name,
                    "split": split,
                    "example_id": it.example_id,
                    "choice": it.label_of_option(c),
                    "label": it.label,
                    "correct": ok,
                    "tie": tie,
                }
                for it, c, ok, tie in zip(items, chosen, correct, ties)
            ]
    accuracy = mean(accuracies)
    low, high = wilson_interval(accuracy, len(items))
    record = {
        "id": f"{name}/{split}",
        "baseline": name,
        "split": split,
        "n": len(items),
        "accuracy": accuracy,
        "ci_low": low,
        "ci_high": high,
        "runs": n_runs,
        "tie_share": sum(ties) / len(items) if items else 0.0,
        # averaged runs give a fractional count: the test takes the nearest whole number of right answers
        "p_value": chance_test(round(accuracy * len(items)), [1 / it.n_options for it in items]),
    }
    return record, predictions


def run_baseline(
    name: str,
    task: str,
    lang: str,
    items: dict[str, list[Item]],
    train_split: str,
    cache: FeatureCache,
    seed: int,
    model_path: str | Path | None,
    bert: BertSettings | None,
) -> tuple[dict[str, Scores], bool, bool] | str:
    """(scores per split, stochastic, learns), or why the baseline cannot run here.

    Learning baselines fit on `train_split` and are scored on the other splits; the rest on all."""
    train = items.get(train_split, [])
    held_out = [s for s in items if s != train_split]
    spec = get_baseline(name)
    if spec.model:
        if model_path is None:
            return (
                "needs --model-path DIR, a local pretrained checkpoint (LOT fine-tunes bert-base); a BERT trained "
                "from scratch on the audit set is not comparable with the paper's figures"
            )
        if not train:
            return _no_train_split(train_split, items)
        if not held_out:
            return f"fits on {train_split!r}, the only split with rows: no held-out split to score"
        try:
            from lotdata.audit.bert import fit_and_score

            scores = fit_and_score(name, model_path, train, {s: items[s] for s in held_out}, seed=seed, settings=bert)
        except ImportError as exc:
            return f"needs torch and transformers (install 'lotdata[models]'): {exc}"
        except (OSError, ValueError) as exc:
            return f"cannot load the checkpoint {model_path}: {exc}"
        return scores, False, True
    not_defined = shape_problem(spec, task, get_task(task).choice_shape)
    if not_defined:
        return not_defined
    baseline: Baseline = spec.make(cache)
    problem = resource_problem(baseline, lang)
    if problem:
        return problem
    if baseline.learns and not train:
        return _no_train_split(train_split, items)
    if baseline.learns and not held_out:
        return f"fits on {train_split!r}, the only split with rows: no held-out split to score"
    try:
        if baseline.learns:
            baseline.fit(train)
        per_split = {s: baseline.scores(items[s]) for s in items if not (baseline.learns and s == train_split)}
    except MissingExtraError as exc:
        return str(exc)
    return per_split, baseline.stochastic, baseline.learns


def _no_train_split(train_split: str, items: dict[str, list[Item]]) -> str:
    """Why a learner was skipped, naming the option that gives it (a Story Cloze Test has no train split:
    published systems train on its val split, which `--train-split val` does)."""
    others = [s for s, rows in items.items() if rows and s != train_split]
    hint = f"; --train-split {others[0]} fits it on {others[0]} and scores the other splits" if others else ""
    return f"learns from the training split, and there is no {train_split!r} split{hint}"
