"""Benchmark of the sources stage: extraction (pages/s) and cleaning + dedup (stories/s) on the shared
Chinese corpora, peak memory, and growth with corpus size; plus the quality figures of the flags.

    python benchmarks/bench_sources.py --out bench/sources.md [--base 1000] [--repeats 3]

Pages for the extraction benchmark are made at run time by wrapping the shared stories (CMRC 2017,
CFT, C3) in an HTML template with navigation and footer noise; nothing is written to the project.
Each (measurement, size) runs in its own subprocess so that peak RSS is its own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from machine import load_note  # benchmarks/machine.py

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))


def corpus_rows() -> list[dict]:
    """Stories of CMRC 2017 validation, CFT and C3 (train + dev), interleaved by source."""
    from lotdata.sources.readers import read_stories
    from lotdata.sources.story import make_story_row

    c3 = []
    for part in ("train", "dev"):
        docs = json.loads((DATA / f"c3_mixed_genre/data/c3-m-{part}.json").read_text(encoding="utf-8"))
        c3 += [make_story_row("".join(d[0]), source="c3", lang="zh", url=f"c3-m-{part}#{i}") for i, d in enumerate(docs)]
    pools = [
        read_stories([DATA / "cmrc2017_children_stories/validation/cloze.valid.doc_query"], lang="zh").stories,
        read_stories([DATA / "cft_children_fairy_tale/children_fairy_tale/cft.zip"], lang="zh").stories,
        c3,
    ]
    rows, i = [], 0
    while any(i < len(p) for p in pools):
        rows.extend(p[i] for p in pools if i < len(p))
        i += 1
    return rows


PAGE = ("<!DOCTYPE html><html><head><meta charset='{charset}'><title>{title} - 故事大全</title></head><body>"
        "<div class='nav'><a href='/'>首页</a> &gt; <a href='/gushi/'>童话故事</a></div><div class='ad'>扫码关注公众号，每天一个好故事</div>"
        "<h1 class='title'>{title}</h1><div class='content'>{paragraphs}</div>"
        "<div class='pager'>上一篇：<a href='/1.html'>龟兔赛跑</a> 下一篇：<a href='/3.html'>小马过河</a></div>"
        "<footer>Copyright 2024 故事大全 版权所有</footer></body></html>")


def make_pages(rows: list[dict]) -> list:
    from lotdata.sources.extract import Page

    pages = []
    for k, row in enumerate(rows):
        charset = "gbk" if k % 3 == 0 else "utf-8"  # a third of the pages in GBK, as on Chinese sites
        paragraphs = "".join(f"<p>{s}</p>" for s in row["sentences"])
        html = PAGE.format(charset=charset, title=(row["title"] or row["text"][:8]), paragraphs=paragraphs)
        body = html.encode("gb18030" if charset == "gbk" else "utf-8")
        pages.append(Page(url=f"http://bench.example/{k}.html", body=body, content_type="text/html", status=200))
    return pages


def measure_one(kind: str, n: int) -> dict:
    """Run one measurement in this process; print its figures as JSON."""
    from lotdata.clean.step import CleanParams, clean_rows, load_lexicon
    from lotdata.sources.extract import ExtractOptions, extract_pages
    from lotdata.text.tokenize import get_tokenizer

    rows = corpus_rows()
    while len(rows) < n:  # not needed at the default sizes; keeps larger runs possible
        rows = rows + rows
    rows = rows[:n]
    get_tokenizer("jieba-nohmm")("预热")  # jieba's dictionary load is not part of the measurement
    import jieba.posseg

    jieba.posseg.lcut("预热")
    if kind.startswith("extract"):
        pages = make_pages(rows)
        options = ExtractOptions(source="bench", content_selector="div.content" if kind == "extract-css" else None,
                                 title_selector="h1.title" if kind == "extract-css" else None)
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        stories, quarantine = extract_pages(pages, options)
        seconds = time.perf_counter() - started
        original = {f"http://bench.example/{k}.html": row["text"] for k, row in enumerate(rows)}
        exact = sum(1 for story in stories if story["text"] == original[story["url"]])
        out = {"items": len(pages), "kept": len(stories), "quarantined": len(quarantine), "exact": exact}
    else:
        params = CleanParams(lexicon=load_lexicon())
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        started = time.perf_counter()
        result = clean_rows(rows, params)
        seconds = time.perf_counter() - started
        out = {"items": len(rows), "kept": len(result.kept), "quarantined": len(result.quarantine),
               "clusters": result.counts["clusters"]}
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {**out, "seconds": seconds, "peak_rss_mib": peak / 1024, "delta_rss_mib": (peak - base) / 1024}


def quality() -> dict:
    """Flag quality on hand labels (C3 non-narrative: dev tuned, test held out) and corpus rates."""
    sys.path.insert(0, str(REPO / "tests"))
    from test_clean import C3_DEV, C3_TEST, c3_flag_quality, glued_title_quality

    figures = {}
    for part, labels in (("dev (tuned on)", C3_DEV), ("test (held out)", C3_TEST)):
        precision, recall = c3_flag_quality(DATA, part.split()[0], labels)
        positives = sum(1 for v in labels.values() if v == "E")
        figures[part] = (precision, recall, len(labels), positives)
    return figures, glued_title_quality(DATA)


def split_leak() -> tuple[int, int, int]:
    """Near-duplicate pairs (estimated Jaccard >= 0.5) across PlotCom splits of CMRC validation, before and after clean."""
    import tempfile

    from lotdata.clean.files import clean_files
    from lotdata.pipeline import read_step
    from lotdata.tasks.build import build_dataset

    sys.path.insert(0, str(REPO / "tests"))
    from test_clean import near_pairs_across_splits

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        stories = tmp / "cmrc.parquet"
        read_step([DATA / "cmrc2017_children_stories/validation/cloze.valid.doc_query"], stories, lang="zh")
        split = "train=0.6,val=0.2,test=0.2"
        build_dataset("plotcom", [stories], tmp / "before", seed=3, split=split)
        before = near_pairs_across_splits(tmp / "before", stories, 0.5)
        result = clean_files([stories], tmp / "clean")
        build_dataset("plotcom", [tmp / "clean" / "stories.parquet"], tmp / "after", seed=3, split=split)
        after = near_pairs_across_splits(tmp / "after", tmp / "clean" / "stories.parquet", 0.5)
    return before, after, result.counts["clusters"]


def run(kind: str, n: int) -> dict:
    proc = subprocess.run([sys.executable, __file__, "--one", kind, str(n)], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "sources.md")
    parser.add_argument("--base", type=int, default=500, help="stories (and pages) at size 1x")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--one", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one[0], int(args.one[1]))))
        return

    kinds = [("extract-css", "extraction, CSS selectors", "pages/s"),
             ("extract-trafilatura", "extraction, trafilatura", "pages/s"),
             ("clean", "clean + exact/near dedup", "stories/s")]
    lines = []
    table = []
    for kind, label, unit in kinds:
        base_rate = None
        for factor in (1, 2, 4):
            n = args.base * factor
            runs = [run(kind, n) for _ in range(args.repeats)]
            seconds = statistics.median(r["seconds"] for r in runs)
            rate = n / seconds
            base_rate = base_rate or rate
            last = runs[-1]
            table.append(f"| {label} | {factor}x | {n:,} | {args.repeats} | {seconds:.2f} | {rate:,.0f} {unit} | "
                         f"{rate / base_rate:.2f} | {max(r['peak_rss_mib'] for r in runs):.0f} (+{max(r['delta_rss_mib'] for r in runs):.0f}) | "
                         f"{last['kept']:,} / {last['quarantined']:,}{' / ' + str(last['clusters']) if 'clusters' in last else ''} | "
                         f"{'%.1f%%' % (100 * last['exact'] / n) if 'exact' in last else '–'} |")
            print(table[-1], flush=True)
    figures, glued = quality()
    before, after, clusters = split_leak()
    cpu = os.cpu_count()
    lines += [
        "# lotdata sources benchmark (crawl extraction, clean, dedup)",
        "",
        f"{datetime.now(timezone.utc).isoformat(timespec='seconds')} · Python {platform.python_version()} · {cpu} CPUs · "
        f"{platform.platform()}",
        "",
        load_note() + " Medians of the repeats; compare rows of one run, not runs of different days.",
        "",
        "Corpus: CMRC 2017 validation (1,159 stories after the reader's exact dedup), CFT (1,056) and C3 train+dev "
        "(4,184 documents, narratives and expository texts), interleaved by source and cut to the size. "
        "Extraction pages wrap each story in an HTML template with navigation, an ad line, a pager and a footer; "
        "a third are GBK-encoded. One subprocess per run; *peak RSS* is that process's `ru_maxrss` "
        "(corpus and jieba loaded), *+Δ* how far it rose during the measured call. *× 1x* = throughput relative "
        "to the 1x size (1.00 = linear time). *exact text* = share of pages whose extracted story equals the "
        "story that was wrapped (no navigation, ad or pager text left, none lost).",
        "",
        "| measurement | size | items | runs | median s | throughput | × 1x | peak RSS MiB (+Δ) | kept / quarantined (/ clusters) | exact text |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
        *table,
        "",
        "Throughput rising with size means fixed costs (trafilatura's and the regexes' first-call set-up, jieba's POS "
        "tagger) spread over more items, plus the noise of the shared machine: none of the three grows worse than linearly. "
        "Peak memory grows with size only by the pages or rows held in memory (the +Δ column).",
        "",
        "## Quality of the flags (hand labels, not tuned on the held-out part)",
        "",
        "`non_narrative` on C3 documents of at least 100 characters, labelled by hand narrative / expository "
        "(labels in `tests/test_clean.py`). The threshold (-1.0) was chosen on the dev labels only.",
        "",
        "| part | precision | recall | documents | expository |",
        "|---|--:|--:|--:|--:|",
        *[f"| {part} | {p:.2f} | {r:.2f} | {n} | {e} |" for part, (p, r, n, e) in figures.items()],
        "",
        "`title_glued` on the first 120 CFT stories, labelled by hand (titles glued to the first sentence: 60 of "
        "the first 80, 30 of the next 40). The rule is built for precision: a flag is almost always right, most "
        "glued titles are missed.",
        "",
        "| CFT stories | precision | recall |",
        "|---|--:|--:|",
        *[f"| {part} | {p:.2f} | {r:.2f} |" for part, (p, r) in glued.items()],
        "",
        "## Near-duplicates across splits",
        "",
        f"PlotCom built from CMRC 2017 validation (seed 3, 60/20/20): story pairs in different splits with estimated "
        f"Jaccard >= 0.5 (5-character shingles, 128 permutations, brute force over all pairs): **{before} before "
        f"`clean`, {after} after** (`clean` removed copies >= 0.8 and gave the {clusters} remaining clusters a "
        f"`cluster_id` that the builders keep inside one split).",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
