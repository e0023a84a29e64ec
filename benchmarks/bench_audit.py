"""Benchmark `lotdata audit-bias`: seconds per baseline for the full Story Cloze Test audit
(val + test, 3,742 items) and for a 20,000-example Chinese SenPos audit, against the issue's
targets (60 s and 10 minutes on 2 cores); plus sentiment scoring with the per-sentence cache on
one worker and on two, side by side.

The SenPos set is derived at run time from the Chinese children's stories in ../shared/data
(CMRC 2017 validation + CFT): the SenPos builder is run with several seeds (each seed removes a
different sentence of a story) until 20,000 distinct examples exist, split 80/10/10 by story.

    python benchmarks/bench_audit.py --out bench/audit.md [--senpos-n 20000] [--repeats 3]
    python benchmarks/bench_audit.py --out bench/audit.md --bert-only   # only the checkpoint section

The BERT section runs the whole `lotdata audit-bias` CLI (every baseline, --sentiment snownlp-jieba)
with `--model-path` on the 20k SenPos set in a child process and reports its wall time and peak RSS
(the largest single process of the audit's tree, and their sum, sampled every 0.5 s with psutil;
`RUSAGE_CHILDREN` would also count this benchmark's own forked workers of the shallow audits). The checkpoint is
a small BERT config saved locally (no download on this machine; a bert-base checkpoint costs more
time per step, and its weights ~0.4 GB more memory, but the same batch-bounded loop).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from machine import load_note, run_sampling_rss  # benchmarks/machine.py

from lotdata.audit.baselines import heuristic_names  # noqa: E402
from lotdata.audit.features import FeatureCache  # noqa: E402
from lotdata.audit.items import items_from_table  # noqa: E402
from lotdata.audit.run import audit, write_audit  # noqa: E402
from lotdata.audit.work import score_pairs  # noqa: E402
from lotdata.exec import ExecSettings  # noqa: E402
from lotdata.schema import SENPOS, table_from_rows  # noqa: E402

SCT_TARGET_S = 60
SENPOS_TARGET_S = 600
BERT_RSS_TARGET_GB = 4.0
#: the small BERT the benchmark saves as its local checkpoint
BENCH_BERT = {
    "hidden_size": 64,
    "num_hidden_layers": 1,
    "num_attention_heads": 2,
    "intermediate_size": 128,
    "max_position_embeddings": 256,
}
BERT_MARK = ("<!-- bert-section -->", "<!-- /bert-section -->")


def build_sct(tmp: Path) -> Path:
    from lotdata.tasks.storycloze import import_storycloze

    folder = SHARED / "storycloze_spring2016_labeled"
    import_storycloze(folder / "val.csv", tmp / "sct", test=folder / "test.csv")
    return tmp / "sct"


def build_senpos(tmp: Path, n: int) -> tuple[Path, dict]:
    from lotdata.datasets.folder import write_dataset
    from lotdata.datasets.splits import parse_split_spec
    from lotdata.sources.readers import read_stories
    from lotdata.tasks.build import build_examples, split_examples

    files = [
        SHARED / "cmrc2017_children_stories" / "validation" / "cloze.valid.doc_query",
        SHARED / "cmrc2017_children_stories" / "validation" / "user.valid.doc_query",
        SHARED / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip",
    ]
    stories = {story["story_id"]: story for story in read_stories(files).stories}
    examples: dict[tuple[str, str], dict] = {}
    seed = 0
    while len(examples) < n and seed < 40:
        made, _ = build_examples("senpos", list(stories.values()), seed=seed)
        for ex in made:
            key = (ex["story_id"], ex["removed"])
            if key not in examples:
                examples[key] = {**ex, "example_id": f"{ex['example_id']}-s{seed}"}
        seed += 1
    chosen = sorted(examples.values(), key=lambda e: e["example_id"])[:n]
    by_split = split_examples(chosen, parse_split_spec("train=0.8,val=0.1,test=0.1"), 0)
    out = tmp / "senpos"
    write_dataset(
        out, "senpos", by_split, command="bench_audit", params={"seeds": seed}, inputs=[], stats={}, lot_jsonl=False
    )
    sentences = {s for e in chosen for s in e["sentences"]} | {e["removed"] for e in chosen}
    slots = sum(len(e["sentences"]) + 1 for e in chosen)
    return out, {
        "stories": len(stories),
        "examples": len(chosen),
        "seeds": seed,
        "unique_sentences": len(sentences),
        "sentence_slots": slots,
    }


def time_audit(
    folder: Path, train_split: str, repeats: int, out: Path, sentiment: str = "snownlp"
) -> tuple[list[dict], object]:
    runs, result = [], None
    for _ in range(repeats):
        # the shallow baselines only: the BERT ones train a model (their cost is the models stage's, bench/models.md)
        result = audit(
            folder,
            train_split=train_split,
            seed=0,
            execution=ExecSettings(workers=2),
            sentiment=sentiment,
            baselines=heuristic_names(),
        )
        runs.append(result.timings)
    write_audit(result, out)
    return runs, result


def sentiment_side_by_side(folder: Path, sample: int) -> dict:
    """Seconds to score `sample` unique Chinese sentences, 1 worker vs 2, each on a cold cache."""
    import pyarrow.parquet as pq

    items = items_from_table(table_from_rows(pq.read_table(folder / "test.parquet").to_pylist(), SENPOS), "senpos")
    texts = sorted({s for it in items for s in it.all_sentences()})[:sample]
    out = {"sentences": len(texts)}
    for workers in (1, 2):  # the audit's sentiment phase: shards of sentences on the executor
        cache = FeatureCache()
        with tempfile.TemporaryDirectory() as work:
            started = time.perf_counter()
            score_pairs([("zh", t) for t in texts], cache, Path(work), ExecSettings(workers=workers))
            out[f"w{workers}"] = time.perf_counter() - started
    return out


def save_checkpoint(folder: Path, texts) -> Path:
    """A BERT of BENCH_BERT's size with a character vocabulary of `texts`, saved as a local checkpoint."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    chars = sorted({ch for t in texts for ch in t if not ch.isspace()})
    (folder / "vocab.txt").write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + chars) + "\n", encoding="utf-8"
    )
    BertTokenizerFast(str(folder / "vocab.txt")).save_pretrained(folder)
    BertModel(BertConfig(vocab_size=5 + len(chars), **BENCH_BERT)).save_pretrained(folder)
    return folder


def bert_audit(folder: Path, tmp: Path, batch_size: int = 12) -> dict:
    """Wall time and peak RSS of the whole audit CLI with --model-path on the SenPos set, in a child process."""
    import pyarrow.parquet as pq

    texts = [
        s
        for split in ("train", "val", "test")
        for row in pq.read_table(folder / f"{split}.parquet").to_pylist()
        for s in row["sentences"] + [row["removed"]]
    ]
    checkpoint = save_checkpoint(tmp / "bert", texts)
    del texts
    command = [
        sys.executable,
        "-m",
        "lotdata.cli",
        "audit-bias",
        str(folder),
        "--out",
        str(tmp / "bert_report"),
        "--model-path",
        str(checkpoint),
        "--sentiment",
        "snownlp-jieba",
        "--bert-batch-size",
        str(batch_size),
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    run = run_sampling_rss(command, env, every=0.5, stderr=None).check(command)  # its steps show on our stderr
    wall = time.perf_counter() - started
    meta = json.loads((tmp / "bert_report" / "audit.json").read_text())
    records = [
        r for r in json.loads((tmp / "bert_report" / "results.json").read_text()) if r["baseline"].startswith("bert")
    ]
    return {
        "wall_s": wall,
        "peak_rss_gb": max(run.peak_by_pid.values(), default=0) / 1024**3,
        "tree_peak_gb": run.peak_sum / 1024**3,
        "timings": meta["timings"],
        "records": records,
        "batch_size": batch_size,
    }


def render_bert(bert: dict, n: int) -> str:
    t = bert["timings"]
    ok = "yes" if bert["peak_rss_gb"] < BERT_RSS_TARGET_GB else "NO"
    lines = [
        BERT_MARK[0],
        "## SenPos 20k audit with a local checkpoint (`--model-path`)\n",
        f"{datetime.now(timezone.utc).isoformat(timespec='seconds')} · git {_git()} · {load_note()}\n",
        f"The whole `lotdata audit-bias` CLI (every baseline, `--sentiment snownlp-jieba`, `--bert-batch-size "
        f"{bert['batch_size']}`, 1 epoch, max length 512, learning rate 3e-5: LOT 5.2's scheme through `baseline train --variant`, CPU) on the {n:,}-example SenPos set, with a small BERT "
        f"checkpoint saved locally ({', '.join(f'{k} {v}' for k, v in BENCH_BERT.items())}, character vocabulary "
        "of the set): one run.\n",
        "| measure | value | target | met |",
        "|---|--:|--:|---|",
        f"| peak RSS (largest process) | {bert['peak_rss_gb']:.2f} GB | < {BERT_RSS_TARGET_GB:.0f} GB | {ok} |",
        f"| peak RSS, all processes of the audit together (sampled every 0.5 s) | {bert['tree_peak_gb']:.2f} GB | – | – |",
        f"| wall time, whole audit | {bert['wall_s']:.0f} s | – | – |",
        f"| bert_wo_context (fit on train + score val, test) | {t.get('bert_wo_context', 0):.0f} s | – | – |",
        f"| bert_wo_long (fit on train + score val, test) | {t.get('bert_wo_long', 0):.0f} s | – | – |",
        "",
        "| record | accuracy % | chance % | p_holm | verdict |",
        "|---|--:|--:|--:|---|",
    ]
    for r in bert["records"]:
        lines.append(
            f"| {r['id']} | {100 * r['accuracy']:.1f} | {100 * r['chance']:.1f} | {r['p_holm']:.2g} | {r['verdict']} |"
        )
    lines += [
        "",
        "A from-scratch small BERT is a stand-in for timing and memory only: its accuracies are not LOT's "
        "bert-base figures. Memory is bounded by the batch (`--bert-batch-size` items with all their candidates), "
        "scores leave the model as floats, and each BERT baseline fine-tunes in a spawned process whose heap is "
        "returned when it ends.",
        BERT_MARK[1],
    ]
    return "\n".join(lines) + "\n"


def _bert_section(path: Path) -> str | None:
    """The checkpoint section an earlier run left in `path`, markers included."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BERT_MARK[0] not in text or BERT_MARK[1] not in text:
        return None
    return BERT_MARK[0] + text.split(BERT_MARK[0], 1)[1].split(BERT_MARK[1], 1)[0] + BERT_MARK[1] + "\n"


def put_bert_section(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if BERT_MARK[0] in text and BERT_MARK[1] in text:
        before, rest = text.split(BERT_MARK[0], 1)
        text = before + section.rstrip("\n") + rest.split(BERT_MARK[1], 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r.get(key, 0.0) for r in runs)


def _git() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "?"


def render(sct_runs, sct, senpos_runs, senpos, fast_runs, senpos_info, senti, wall: float, repeats: int) -> str:
    header = (
        f"# audit-bias benchmark\n\n{datetime.now(timezone.utc).isoformat(timespec='seconds')} · Python "
        f"{platform.python_version()} · {os.cpu_count()} CPUs · git {_git()} · 2 workers on the local executor\n\n"
        + load_note()
        + "\n\n"
    )
    lines = [
        header,
        "## Seconds per step (median over the runs in column *n*)\n",
        "| step | SCT val+test (3,742 items), s | SenPos 20k, s (snownlp) | SenPos 20k, s (--sentiment snownlp-jieba) |",
        "|---|--:|--:|--:|",
    ]
    keys = ["load"] + [k for k in sct_runs[0] if k not in ("load", "total", "sentiment_scoring")]
    keys += [k for k in senpos_runs[0] if k not in keys and k not in ("total", "sentiment_scoring")]
    for key in keys + ["sentiment_scoring", "total"]:
        a = f"{_median(sct_runs, key):.2f}" if key in sct_runs[0] else "n/a"
        b = f"{_median(senpos_runs, key):.2f}" if key in senpos_runs[0] else "n/a"
        c = f"{_median(fast_runs, key):.2f}" if key in fast_runs[0] else "n/a"
        label = f"**{key}**" if key == "total" else key
        lines.append(f"| {label} | {a} | {b} | {c} |")
    sct_total, sp_total = _median(sct_runs, "total"), _median(senpos_runs, "total")
    lines += [
        "",
        f"*n*: SCT {len(sct_runs)} runs, SenPos {len(senpos_runs)} run(s). `sentiment_scoring` is the phase that "
        "scores the unique sentences in shards before the baselines run; the baselines run in parallel shards, so "
        "their seconds add up to more than the total.",
        "",
        "## Targets\n",
        "| audit | items | target s | measured s | ratio to target | met |",
        "|---|--:|--:|--:|--:|---|",
        f"| Story Cloze Test val+test | {sum(sct.splits.values()):,} | {SCT_TARGET_S} | {sct_total:.1f} | {sct_total / SCT_TARGET_S:.2f} | {'yes' if sct_total <= SCT_TARGET_S else 'NO'} |",
        f"| SenPos (zh), snownlp | {sum(senpos.splits.values()):,} | {SENPOS_TARGET_S} | {sp_total:.1f} | {sp_total / SENPOS_TARGET_S:.2f} | {'yes' if sp_total <= SENPOS_TARGET_S else 'NO'} |",
        f"| SenPos (zh), snownlp-jieba | {sum(senpos.splits.values()):,} | {SENPOS_TARGET_S} | {_median(fast_runs, 'total'):.1f} | {_median(fast_runs, 'total') / SENPOS_TARGET_S:.2f} | {'yes' if _median(fast_runs, 'total') <= SENPOS_TARGET_S else 'NO'} |",
        "",
        "## Sentiment scoring: one worker vs two (cold cache each)\n",
        "| sentences | 1 worker s | 2 workers s | speed-up | sentences/s (2 workers) |",
        "|--:|--:|--:|--:|--:|",
        f"| {senti['sentences']:,} | {senti['w1']:.2f} | {senti['w2']:.2f} | {senti['w1'] / senti['w2']:.2f}× | {senti['sentences'] / senti['w2']:.0f} |",
        "",
        f"The per-sentence cache: the SenPos set has {senpos_info['sentence_slots']:,} sentence slots but "
        f"{senpos_info['unique_sentences']:,} unique sentences, so sentiment is computed "
        f"{senpos_info['sentence_slots'] / max(senpos_info['unique_sentences'], 1):.1f}× less often than per slot.",
        "",
        "## Accuracy on held-out data (the figures hold on data the learners never saw)\n",
        "| dataset | baseline | fit on | scored on | accuracy % | 95% CI |",
        "|---|---|---|---|--:|---|",
    ]
    for name, res in (("SCT", sct), ("SenPos 20k", senpos)):
        for r in res.records:
            if r["baseline"] in ("ending_only", "majority", "frequency", "constant_first", "length", "sentiment") and r[
                "split"
            ] in ("val", "test"):
                lines.append(
                    f"| {name} | {r['baseline']} | {r['fit_on'] or '–'} | {r['split']} | {100 * r['accuracy']:.1f} | "
                    f"{100 * r['ci_low']:.1f}–{100 * r['ci_high']:.1f} |"
                )
    lines += [
        "",
        "Notes:",
        "",
        "- SCT: `storycloze_spring2016_labeled` val.csv + test.csv, learners fit on val, `--train-split val`.",
        f"- SenPos: {senpos_info['examples']:,} examples derived at run time from {senpos_info['stories']:,} Chinese "
        f"children's stories (CMRC 2017 validation, CFT) by running the SenPos builder with seeds 0–{senpos_info['seeds'] - 1} "
        "(a different removed sentence per seed, duplicates dropped), split 80/10/10 by story.",
        f"- Total benchmark wall time: {wall:.0f} s.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "audit.md")
    parser.add_argument("--senpos-n", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3, help="runs of the SCT audit (the SenPos audit runs once)")
    parser.add_argument("--sentiment-sample", type=int, default=2000)
    parser.add_argument(
        "--bert-only", action="store_true", help="run only the checkpoint audit and replace its section"
    )
    parser.add_argument(
        "--no-bert", action="store_true", help="everything but the checkpoint audit; its section is kept"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    if args.bert_only:
        with tempfile.TemporaryDirectory() as tmp:
            folder, info = build_senpos(Path(tmp), args.senpos_n)
            bert = bert_audit(folder, Path(tmp))
        print(json.dumps({k: v for k, v in bert.items() if k != "records"}), flush=True)
        put_bert_section(args.out, render_bert(bert, info["examples"]))
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sct_runs, sct = time_audit(build_sct(tmp), "val", args.repeats, tmp / "sct_report")
        print(f"SCT audit: {[round(r['total'], 1) for r in sct_runs]} s", flush=True)
        folder, info = build_senpos(tmp, args.senpos_n)
        print(f"SenPos set: {info}", flush=True)
        senti = sentiment_side_by_side(folder, args.sentiment_sample)
        print(f"sentiment: {senti}", flush=True)
        fast_runs, _ = time_audit(folder, "train", 1, tmp / "senpos_report_fast", sentiment="snownlp-jieba")
        print(f"SenPos audit (snownlp-jieba): {fast_runs[0]['total']:.1f} s", flush=True)
        senpos_runs, senpos = time_audit(folder, "train", 1, tmp / "senpos_report")
        print(f"SenPos audit: {senpos_runs[0]['total']:.1f} s", flush=True)
        bert = None if args.no_bert else bert_audit(folder, tmp)
        if bert:
            print(f"SenPos audit with a checkpoint: {bert['wall_s']:.1f} s, {bert['peak_rss_gb']:.2f} GB", flush=True)
    text = render(
        sct_runs, sct, senpos_runs, senpos, fast_runs, info, senti, time.perf_counter() - started, args.repeats
    )
    kept = _bert_section(args.out) if bert is None else None
    text = text.rstrip("\n") + "\n\n" + (render_bert(bert, info["examples"]) if bert else kept or "")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    (args.out.with_suffix(".json")).write_text(
        json.dumps(
            {"sct": sct_runs, "senpos": senpos_runs, "senpos_fast": fast_runs, "sentiment": senti, "senpos_set": info},
            indent=1,
        )
    )
    print(text)


if __name__ == "__main__":
    main()
