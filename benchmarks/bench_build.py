"""What the build half of issue 5 costs and how well it keeps ClozeT stories out of PlotCom train.

    python benchmarks/bench_build.py --out bench/build.md [--repeats 3] [--clozet 300] [--data PATH]

On two real corpora from ``../shared/data`` (CMRC 2017 validation, Chinese; ROCStories 5k, English), side by
side in one run, medians of ``--repeats``:

* ``plotcom (no card)``  ``build_dataset("plotcom", ..., card=False)``: examples, splits, Parquet, LOT jsonl, manifest;
* ``plotcom + card``     the same with the dataset card (Table 3 statistics re-tokenise every split);
* ``plotcom + ClozeT``   ``build_plotcom_with_clozet`` with ``--clozet`` ClozeT rows derived from the corpus;
* ``held-out check``     ``stories_held_by`` alone (the train/ClozeT overlap check);
* ``senpos``             (Chinese corpus) the whole ``build_dataset("senpos", ...)`` with its card, tokenised
  with ``jieba`` (LOT's setting, the builders' tokenizer before issue 18) and with ``rjieba`` (the builders'
  default now), and a ``--n 5`` preview; *same bytes* compares every Parquet and LOT jsonl file of the two
  full builds (the card and manifest name the tokenizer).

The ClozeT rows are derived at run time (never stored): a story's inner sentence of >= 10 characters is
masked, a made-up wrong candidate added. Half of them keep the whole story (same story id), half keep only
a prefix of it (ClozeT stories are often a part of a longer one: the id differs, the sentence check must
find it). *found* = held stories detected; *false* = stories flagged that were not used for ClozeT: on CMRC
they are other documents holding the masked sentence with the same text on both sides (CMRC repeats a
story in several documents with different blanks), which the rule is meant to drop. Nothing here was tuned
on these corpora. The measurements run in rounds (one of each per round) after an untimed warm-up. The
header gives the load average at the start.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from machine import load_note  # benchmarks/machine.py

from lotdata.io import sha256_file, write_parquet, write_text  # noqa: E402
from lotdata.schema import STORIES, table_from_rows  # noqa: E402
from lotdata.sources.readers import read_stories  # noqa: E402
from lotdata.tasks.build import build_dataset, build_plotcom_with_clozet  # noqa: E402
from lotdata.tasks.plotcom import stories_held_by  # noqa: E402
from lotdata.text import join_sentences  # noqa: E402

CORPORA = {
    "CMRC 2017 valid (zh)": ("cmrc2017_children_stories/validation/cloze.valid.doc_query", "cmrc"),
    "ROCStories 5k (en)": ("rocstories_diffusionlm_valid5k/datasets/ROCstory/roc_valid.json", "roc_lines"),
}


def derive_clozet(stories: list[dict], k: int, seed: int) -> tuple[list[dict], set[str]]:
    rng = random.Random(seed)
    usable = [s for s in stories if len(s["sentences"]) >= 4]
    rows, held = [], set()
    for i, story in enumerate(rng.sample(usable, min(k, len(usable)))):
        sentences = list(story["sentences"])
        if i % 2:  # a prefix of the story: another story id
            sentences = sentences[: max(3, len(sentences) // 2 + 1)]
        inner = [j for j in range(1, len(sentences) - 1) if len(sentences[j]) >= 10]
        if not inner:
            continue
        j = rng.choice(inner)
        wrong = (
            "这句话是为测试写的错误候选。"
            if story["lang"] == "zh"
            else "This wrong candidate was written for the test."
        )
        context = join_sentences(sentences[:j] + ["<mask>"] + sentences[j + 1 :], story["lang"])
        split = "val" if i % 4 < 2 else "test"
        rows.append(
            {
                "example_id": f"c{i}",
                "story_id": f"derived{i}",
                "split": split,
                "context": context,
                "candidates": [wrong, sentences[j]],
                "label": 1,
                "mask_sentence_index": j,
                "lang": story["lang"],
            }
        )
        held.add(story["story_id"])
    return rows, held


def interleaved(fns: dict, repeats: int) -> dict[str, tuple[float, object]]:
    """Median seconds and last result of each function, run in rounds (one of each per round) so that
    a change in the machine's load hits every measurement alike."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    results: dict[str, object] = {}
    for _ in range(repeats):
        for name, fn in fns.items():
            started = time.perf_counter()
            results[name] = fn()
            times[name].append(time.perf_counter() - started)
    return {name: (statistics.median(times[name]), results[name]) for name in fns}


def _senpos_rows(label: str, n_stories: int, path: Path, tmp: Path, repeats: int) -> list[str]:
    for tokenizer in ("jieba", "rjieba"):  # untimed: loads both dictionaries
        build_dataset("senpos", [path], tmp / "warm-senpos", seed=0, n=5, tokenizer=tokenizer)
    measured = interleaved(
        {
            "jieba": lambda: build_dataset("senpos", [path], tmp / "sj", seed=0, tokenizer="jieba"),
            "rjieba": lambda: build_dataset("senpos", [path], tmp / "sr", seed=0, tokenizer="rjieba"),
            "rjieba --n 5": lambda: build_dataset("senpos", [path], tmp / "sn", seed=0, n=5),
        },
        repeats,
    )
    files = [f"{s}.parquet" for s in ("train", "val", "test")] + [f"lot/{s}.jsonl" for s in ("train", "val", "test")]
    same = all(sha256_file(tmp / "sj" / f) == sha256_file(tmp / "sr" / f) for f in files)
    base = measured["jieba"][0]
    rows = []
    for name, (seconds, report) in measured.items():
        examples = sum(report.rows_per_split.values())
        rows.append(
            f"| {label} | {n_stories:,} | {name} | {seconds:.3f} | {base / seconds:.1f}× | {examples:,} | "
            f"{report.stats['stories_in']:,} | {('yes' if same else 'NO') if name == 'rjieba' else '–'} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "build.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clozet", type=int, default=300)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    args = parser.parse_args()
    lines = [
        "# lotdata build benchmark (PlotCom with ClozeT, card, held-out check; SenPos jieba vs rjieba)",
        "",
        f"{_dt.datetime.now(_dt.timezone.utc).isoformat(timespec='seconds')} · Python {platform.python_version()} · "
        f"{platform.machine()} · medians of {args.repeats} · {load_note()}",
        "",
        "| corpus | stories | measurement | median s | × no card | examples (train/val/test) |",
        "|---|--:|---|--:|--:|---|",
    ]
    detection = [
        "",
        "| corpus | ClozeT rows | held stories | found | false | train stories dropped |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    senpos = [
        "",
        "| corpus | stories | build senpos | median s | speed-up | examples | stories built | same bytes |",
        "|---|--:|---|--:|--:|--:|--:|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for label, (rel, fmt) in CORPORA.items():
            stories = read_stories([args.data / rel], fmt=fmt).stories
            path = write_parquet(table_from_rows(stories, STORIES), tmp / "stories.parquet")
            clozet, held = derive_clozet(stories, args.clozet, seed=7)
            by_split = {s: [r for r in clozet if r["split"] == s] for s in ("val", "test")}
            build_dataset("plotcom", [path], tmp / "warm", seed=0, card=False)  # untimed: loads jieba
            measured = interleaved(
                {
                    "base": lambda: build_dataset("plotcom", [path], tmp / "a", seed=0, card=False),
                    "card": lambda: build_dataset("plotcom", [path], tmp / "b", seed=0),
                    "clozet": lambda: build_plotcom_with_clozet([path], by_split, tmp / "c", seed=0),
                    "check": lambda: stories_held_by(stories, clozet),
                },
                args.repeats,
            )
            (base, report), (card, _), (with_clozet, creport), (check, found) = measured.values()
            for name, seconds, rep in (
                ("plotcom (no card)", base, report),
                ("plotcom + card", card, report),
                ("plotcom + ClozeT + card", with_clozet, creport),
                ("held-out check", check, None),
            ):
                rows = "/".join(str(rep.rows_per_split[s]) for s in ("train", "val", "test")) if rep else "–"
                lines.append(
                    f"| {label} | {len(stories):,} | {name} | {seconds:.3f} | {seconds / base:.2f}× | {rows} |"
                )
            dropped = creport.stats["stories_dropped"].get("in_clozet", 0)
            detection.append(
                f"| {label} | {len(clozet)} | {len(held)} | {len(found & held)} | {len(found - held)} | {dropped} |"
            )
            if stories[0]["lang"] == "zh":
                senpos += _senpos_rows(label, len(stories), path, tmp, args.repeats)
    text = "\n".join(lines + detection + senpos) + "\n\n" + __doc__.split("\n\n", 2)[2]
    write_text(text, args.out)
    print(text)


if __name__ == "__main__":
    main()
