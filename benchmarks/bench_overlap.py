"""Benchmark `lotdata overlap` on Chinese text built from the shared corpora; writes bench/overlap.md.

One run, side by side: scan MB/s with 1 and 2 workers; jieba-alone and rjieba-alone MB/s on the same text;
the figures of a jieba-based run against the rjieba-based one (every difference listed); peak RSS of the
scan with a small and a large reference; the naive approach (a Python set of the reference's word tuples).

The reference corpora are generated in a temporary folder from CMRC 2017, CFT and C3 (each repetition
shuffles the sentences of every story, so the text varies) and deleted afterwards. The test side is the
111 LOT OutGen dev stories. Sizes are options so the run can be repeated on an idle machine:

    python benchmarks/bench_overlap.py --out bench/overlap.md --scan-mb 40 --rss-mb 100 1000 --naive-mb 10 20
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
TEST = DATA / "lot_outgen_dev" / "dev.jsonl"


def base_texts() -> list[str]:
    from lotdata.sources.readers import read_stories

    cmrc = DATA / "cmrc2017_children_stories" / "validation"
    files = [
        cmrc / "cloze.valid.doc_query",
        cmrc / "user.valid.doc_query",
        DATA / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip",
    ]
    texts = [s["text"] for s in read_stories(files, fmt="cmrc").stories]
    for name in ("c3-m-train.json", "c3-m-dev.json", "c3-m-test.json"):
        for item in json.loads((DATA / "c3_mixed_genre" / "data" / name).read_text(encoding="utf-8")):
            texts.append("".join(item[0]).replace("\n", ""))
    return [t.replace("\n", "") for t in texts if t.strip()]


def make_corpus(path: Path, megabytes: float, texts: list[str]) -> Path:
    """About `megabytes` of one-story-a-line text; repetition k > 0 shuffles each story's sentences."""
    target = int(megabytes * 1e6)
    written = 0
    with open(path, "w", encoding="utf-8") as handle:
        k = 0
        while written < target:
            rng = random.Random(k)
            lines = []
            for text in texts:
                if k:
                    parts = [p for p in text.split("。") if p]
                    rng.shuffle(parts)
                    text = "。".join(parts) + "。"
                lines.append(text + "\n")
            chunk = "".join(lines)
            data = chunk.encode("utf-8")
            if written + len(data) > target:
                cut = data[: target - written].rfind(b"\n") + 1
                data = data[:cut] if cut else data[: target - written]
            handle.write(data.decode("utf-8", errors="ignore"))
            written += len(data)
            k += 1
    return path


def tokenizer_mb_s(name: str, path: Path, limit_mb: float | None, repeats: int) -> tuple[float, float]:
    from lotdata.text.tokenize import get_tokenizer

    cut = get_tokenizer(name)
    lines = path.read_text(encoding="utf-8").splitlines()
    if limit_mb is not None:
        kept, size = [], 0
        for line in lines:
            size += len(line.encode()) + 1
            kept.append(line)
            if size >= limit_mb * 1e6:
                break
        lines = kept
    mb = sum(len(line.encode()) + 1 for line in lines) / 1e6
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        for line in lines:
            cut(line)
        times.append(time.perf_counter() - started)
    return mb, mb / statistics.median(times)


def scan_once(ref: Path, work: Path, workers: int, tokenizer: str = "rjieba", shard_mb: float = 2.0):
    from lotdata.exec import ExecSettings
    from lotdata.overlap import TokenSpec, load_test_set, measure_overlap

    shutil.rmtree(work, ignore_errors=True)
    started = time.perf_counter()
    result = measure_overlap(
        load_test_set(TEST),
        [str(ref)],
        work,
        spec=TokenSpec(tokenizer=tokenizer),
        execution=ExecSettings(workers=workers),
        shard_bytes=int(shard_mb * 1e6),
        progress=False,
    )
    return time.perf_counter() - started, result


_RSS_SCRIPT = """
import json, sys, time
sys.path.insert(0, {bench!r})
from bench_overlap import scan_once, naive_once
from pathlib import Path
started = time.perf_counter()
if {mode!r} == "scan":
    _, result = scan_once(Path({ref!r}), Path({work!r}), {workers}, shard_mb={shard_mb})
    summary = result.summary
else:
    summary = naive_once(Path({ref!r}))
print(json.dumps({{"seconds": time.perf_counter() - started, "summary": summary}}))
"""


def _tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (Linux /proc), in MB."""
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
            total += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
            for task in Path(f"/proc/{current}/task").iterdir():
                stack.extend(int(c) for c in (task / "children").read_text().split())
        except (OSError, StopIteration, ValueError):
            continue
    return total / 1024


def in_subprocess(mode: str, ref: Path, work: Path, workers: int = 1, shard_mb: float = 32.0) -> dict:
    """Run a scan (or the naive approach) in a fresh process; peak RSS of its whole process tree, sampled
    every 50 ms (ru_maxrss would not do: Linux keeps the parent's high-water mark across exec)."""
    code = _RSS_SCRIPT.format(
        bench=str(Path(__file__).parent), mode=mode, ref=str(ref), work=str(work), workers=workers, shard_mb=shard_mb
    )
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out, cwd=REPO)
        peak = 0.0
        while proc.poll() is None:
            peak = max(peak, _tree_rss_mb(proc.pid))
            time.sleep(0.05)
        if proc.returncode:
            raise SystemExit(f"{mode} run on {ref} failed with exit code {proc.returncode}")
        out.seek(0)
        result = json.loads(out.read().strip().splitlines()[-1])
    return {**result, "rss_mb": peak}


def naive_once(ref: Path) -> list[dict]:
    """The naive approach: every reference 8-gram (a tuple of words) in one Python set, then look up the test."""
    from lotdata.overlap import TokenSpec, load_test_set
    from lotdata.overlap.measure import split_summary

    spec = TokenSpec()
    words = spec.words()
    ref_grams: set[tuple[str, ...]] = set()
    with open(ref, encoding="utf-8") as handle:
        for line in handle:
            for seg in words(line):
                ref_grams.update(zip(*[seg[i:] for i in range(spec.n)]))
    test = load_test_set(TEST)
    summaries = []
    for split, examples in test.splits.items():
        rows = []
        for ex in examples:
            grams = [g for _, text in ex.texts for seg in words(text) for g in zip(*[seg[i:] for i in range(spec.n)])]
            hit = sum(g in ref_grams for g in grams)
            rows.append({"ngrams": len(grams), "overlapped": hit, "share": hit / len(grams) if grams else 0.0})
        summaries.append(split_summary(split, rows, 0.1))
    return summaries


def tokenizer_agreement(texts: list[str], limit_mb: float | None) -> tuple[int, int, int, list[str]]:
    """rjieba against jieba (both HMM on, NFKC text): documents with identical tokens, and each differing
    run of tokens, with whether it holds a Chinese character."""
    import difflib
    import re

    from lotdata.overlap.texts import nfkc
    from lotdata.text.tokenize import get_tokenizer

    jieba, rjieba = get_tokenizer("jieba"), get_tokenizer("rjieba")
    cjk = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
    same = total = cjk_runs = 0
    examples: list[str] = []
    size = 0
    for text in texts:
        if limit_mb is not None and size >= limit_mb * 1e6:
            break
        size += len(text.encode()) + 1
        text = nfkc(text)
        a, b = jieba(text), rjieba(text)
        total += 1
        if a == b:
            same += 1
            continue
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
            if op != "equal":
                has_cjk = bool(cjk.search("".join(a[i1:i2] + b[j1:j2])))
                cjk_runs += has_cjk
                if len(examples) < 12 or has_cjk:
                    examples.append(f"{'CJK ' if has_cjk else ''}{a[i1:i2]} -> {b[j1:j2]}")
    return same, total, cjk_runs, examples


def compare_runs(a, b) -> list[str]:
    """Every difference between two overlap results, figure by figure and example by example."""
    diffs = [
        f"summary {x['split']}: {k} {x[k]} vs {y[k]}" for x, y in zip(a.summary, b.summary) for k in x if x[k] != y[k]
    ]
    for split in a.examples:
        for x, y in zip(a.examples[split], b.examples[split]):
            if (x["ngrams"], x["overlapped"]) != (y["ngrams"], y["overlapped"]):
                diffs.append(
                    f"{split}/{x['example_id']}: n-grams {x['ngrams']} vs {y['ngrams']}, "
                    f"overlapped {x['overlapped']} vs {y['overlapped']}"
                )
    return diffs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "overlap.md")
    parser.add_argument("--scan-mb", type=float, default=20, help="reference size for the scan and tokenizer MB/s")
    parser.add_argument(
        "--jieba-mb", type=float, default=2, help="prefix of that text for jieba (slow) and the jieba-vs-rjieba run"
    )
    parser.add_argument("--rss-mb", type=float, nargs="+", default=[100, 1000], help="reference sizes for peak RSS")
    parser.add_argument("--naive-mb", type=float, nargs="+", default=[5, 10], help="reference sizes for the naive set")
    parser.add_argument("--agree-mb", type=float, default=None, help="text for the tokenizer agreement (default: all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tmp", type=Path, default=None, help="where to generate the corpora (deleted afterwards)")
    args = parser.parse_args()

    load_before = os.getloadavg()
    tmp = Path(tempfile.mkdtemp(prefix="bench_overlap_", dir=args.tmp))
    rows: list[tuple[str, str, str]] = []
    notes: list[str] = []
    try:
        texts = base_texts()
        base_mb = sum(len(t.encode()) + 1 for t in texts) / 1e6
        same, total, cjk_runs, examples = tokenizer_agreement(texts, args.agree_mb)
        rows.append(
            (
                "rjieba vs jieba tokens, real text",
                f"{same:,} / {total:,} documents identical",
                f"{total - same} differ; differing runs holding a Chinese character: {cjk_runs} "
                f"(the others are URLs, numbers, hyphenated Latin words)",
            )
        )
        notes += ["Tokenizer differences (jieba -> rjieba), first ones and every one with a Chinese character:", ""]
        notes += [f"- `{e}`" for e in examples] + [""]
        scan_ref = make_corpus(tmp / "scan.txt", args.scan_mb, texts)
        jieba_ref = make_corpus(tmp / "jieba.txt", args.jieba_mb, texts)

        # rounds of all four measures, medians: on a shared machine the load moves between measures
        runs: dict[str, list[float]] = {"jieba": [], "rjieba": [], "scan1": [], "scan2": []}
        for _ in range(args.repeats):
            jb_mb, speed = tokenizer_mb_s("jieba", scan_ref, args.jieba_mb, 1)
            runs["jieba"].append(speed)
            rj_mb, speed = tokenizer_mb_s("rjieba", scan_ref, None, 1)
            runs["rjieba"].append(speed)
            for workers in (1, 2):
                runs[f"scan{workers}"].append(args.scan_mb / scan_once(scan_ref, tmp / f"w{workers}", workers)[0])
        med = {k: statistics.median(v) for k, v in runs.items()}
        rounds = f"median of {args.repeats} rounds"
        rows.append(
            ("jieba tokenisation alone", f"{med['jieba']:.2f} MB/s", f"first {jb_mb:.1f} MB of the scan text, {rounds}")
        )
        rows.append(
            (
                "rjieba tokenisation alone (the default)",
                f"{med['rjieba']:.2f} MB/s",
                f"{rj_mb:.1f} MB, {rounds}; {med['rjieba'] / med['jieba']:.1f}x jieba",
            )
        )
        for workers in (1, 2):
            rows.append(
                (
                    f"overlap scan, {workers} worker{'s' if workers > 1 else ''}",
                    f"{med[f'scan{workers}']:.2f} MB/s",
                    f"{args.scan_mb:g} MB, 2 MB shards, {rounds}; whole job: index, scan, merge",
                )
            )
        rows.append(
            (
                "scan / jieba alone",
                f"{med['scan1'] / med['jieba']:.1f}x (1 worker), {med['scan2'] / med['jieba']:.1f}x (2)",
                "target >= 10x",
            )
        )
        rows.append(
            ("scan / rjieba alone", f"{med['scan1'] / med['rjieba']:.2f}x (1 worker)", "the tokenizer is the limit")
        )
        rows.append(("2 workers / 1 worker", f"{med['scan2'] / med['scan1']:.2f}x", "target >= 1.7x"))

        _, with_jieba = scan_once(jieba_ref, tmp / "wj", 1, tokenizer="jieba")
        _, with_rjieba = scan_once(jieba_ref, tmp / "wr", 1, tokenizer="rjieba")
        diffs = compare_runs(with_jieba, with_rjieba)
        s = with_rjieba.summary[0]
        rows.append(
            (
                "figures, jieba run vs rjieba run",
                "identical" if not diffs else f"{len(diffs)} differences",
                f"{args.jieba_mb:g} MB reference: {s['ngrams']} overlapped 8-grams of {s['total_ngrams']}, "
                f"{s['examples']} examples, {s['examples_over']} over 10%",
            )
        )
        notes += [f"- jieba-based vs rjieba-based run: {d}" for d in diffs]

        rss = {}
        for mb in args.rss_mb:
            ref = make_corpus(tmp / f"rss{mb:g}.txt", mb, texts)
            run = in_subprocess("scan", ref, tmp / f"wrss{mb:g}", workers=2)
            rss[mb] = run["rss_mb"]
            rows.append(
                (
                    f"overlap scan, {mb:g} MB reference, 2 workers",
                    f"peak RSS {run['rss_mb']:.0f} MB",
                    f"{mb / run['seconds']:.2f} MB/s; driver + workers, summed",
                )
            )
            ref.unlink()
        if len(rss) > 1:
            small, large = min(rss), max(rss)
            rows.append((f"peak RSS {large:g} MB / {small:g} MB", f"{rss[large] / rss[small]:.2f}x", "target <= 1.1x"))

        naive = {}
        for mb in args.naive_mb:
            ref = make_corpus(tmp / f"naive{mb:g}.txt", mb, texts)
            run = in_subprocess("naive", ref, tmp / "unused")
            ours = in_subprocess("scan", ref, tmp / f"wn{mb:g}", workers=1)
            naive[mb] = run["rss_mb"]
            same = "same figures" if run["summary"] == ours["summary"] else "FIGURES DIFFER"
            rows.append(
                (
                    f"naive set of word tuples, {mb:g} MB reference",
                    f"peak RSS {run['rss_mb']:.0f} MB",
                    f"{mb / run['seconds']:.2f} MB/s; ours on the same: {ours['rss_mb']:.0f} MB, "
                    f"{mb / ours['seconds']:.2f} MB/s, 1 worker; {same}",
                )
            )
            ref.unlink()
        if len(naive) > 1:
            small, large = min(naive), max(naive)
            rows.append(
                (
                    "naive peak RSS growth",
                    f"{naive[large] / naive[small]:.2f}x for {large / small:g}x the text",
                    f"about {(naive[large] - naive[small]) / (large - small):.0f} MB of RAM per MB of text",
                )
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load_after = os.getloadavg()

    lines = [
        "# `lotdata overlap` benchmark",
        "",
        f"Reference text: one story a line, generated from CMRC 2017 validation, CFT and C3 ({base_mb:.1f} MB of "
        "distinct text; each repetition shuffles every story's sentences), deleted after the run. Test side: the 111 "
        "LOT OutGen dev stories, 8-grams, rjieba unless said. MB = 10^6 bytes of UTF-8 reference text.",
        "",
        f"Machine: {os.cpu_count()} cores; load average {load_before[0]:.1f} at the start, {load_after[0]:.1f} at the end "
        "(above about 1, other jobs shared the cores: the worker ratio suffers most; re-run with the command below).",
        "",
        "| measure | figure | notes |",
        "| --- | ---: | --- |",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
        "Command: `python benchmarks/bench_overlap.py " + " ".join(sys.argv[1:]) + "`",
        "",
        *notes,
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
