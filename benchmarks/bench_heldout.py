"""`lotdata clean --hold-out` on the paper's setting (ROCStories §4.2): recall on planted sources, removals of others.

    python benchmarks/bench_heldout.py [--out bench/heldout.md]

The setting: a ROCStories csv (storyid, storytitle, sentence1..5) holding, for every case of a Story Cloze csv, the
story it was written from, in one of three forms (a case's form drawn at random, seeded):

* **exact**: the case's four sentences and its right ending (the blind test: one of its two endings);
* **ending replaced**: the four sentences and the fifth sentence of a real ROCStories story (the case's writer
  replaced the source's ending: every real case);
* **one word edited**: the exact form with one word, anywhere in the five sentences, replaced by a word of another
  story;

plus a harder fourth form reported on its own (**ending replaced + one word edited**), and the 5,000 real
ROCStories stories of ../shared/data/rocstories_diffusionlm_valid5k as the other stories (none of them is the
source of a Story Cloze case: their first sentences are at most 0.27 alike with any case's, bench table 1).
Each set is run twice through the commands' records (`lotdata read`, then `lotdata clean --hold-out CSV`): with the sources'
`storyid` the case's InputStoryid (the paper's setting; the winter 2018 csvs have no InputStoryid) and with fresh
ids (the text alone must find them).

Tuning set: Story Cloze spring 2016 val (the first-sentences threshold was chosen on it, table 1). Held-out sets,
never looked at while tuning: spring 2016 test, winter 2018 (v1.5) val and its blind test.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import random
import sys
import tempfile
import uuid
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.machine import load_note  # noqa: E402
from lotdata.clean.heldout import HEAD_NEAR, head_shingles, jaccard  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
ROC = SHARED / "rocstories_diffusionlm_valid5k" / "datasets" / "ROCstory" / "roc_valid.json"
TUNING = ("spring 2016 val (tuning)", SHARED / "storycloze_spring2016_labeled" / "val.csv")
HELD_OUT = [
    ("spring 2016 test", SHARED / "storycloze_spring2016_labeled" / "test.csv"),
    ("winter 2018 val", SHARED / "storycloze_rocstories" / "val.csv"),
    ("winter 2018 test (blind)", SHARED / "storycloze_rocstories" / "test.csv"),
]
FORMS = ("exact", "ending replaced", "one word edited")
HARD = "ending replaced + one word edited"
HEAD = ["storyid", "storytitle", *[f"sentence{i}" for i in range(1, 6)]]


def read_cases(path: Path) -> list[dict]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def roc_stories() -> list[list[str]]:
    """The 5,000 real ROCStories stories, split into sentences by lotdata's splitter (the file joins them)."""
    from lotdata.text.sentences import split_sentences

    return [split_sentences(json.loads(line)[0], "en") for line in ROC.read_text(encoding="utf-8").splitlines()]


def context(case: dict) -> list[str]:
    return [case[f"InputSentence{i}"].strip() for i in range(1, 5)]


def right_ending(case: dict) -> str:
    answer = case.get("AnswerRightEnding") or "1"  # the blind test: its first ending
    return case[f"RandomFifthSentenceQuiz{answer}"].strip()


def edit_one_word(sentences: list[str], rng: random.Random, words: list[str]) -> list[str]:
    """One word, anywhere, replaced by a different word (its trailing punctuation kept)."""
    tokens = [(s, k) for s, sentence in enumerate(sentences) for k in range(len(sentence.split()))]
    s, k = rng.choice(tokens)
    split = sentences[s].split()
    core = split[k].rstrip(".,!?;:'\"")
    new = rng.choice([w for w in rng.sample(words, 8) if w.lower() != core.lower()])
    split[k] = new + split[k][len(core) :]
    return [*sentences[:s], " ".join(split), *sentences[s + 1 :]]


def plant(cases: list[dict], others: list[list[str]], seed: int) -> list[tuple[str, dict, list[str]]]:
    """(form, case, source sentences) for every case, its form drawn at random; a quarter of the cases in each form."""
    rng = random.Random(seed)
    words = sorted({w.rstrip(".,!?;:'\"") for story in others[:500] for s in story for w in s.split()} - {""})
    forms = [*FORMS, HARD]
    planted = []
    for n, case in enumerate(rng.sample(cases, len(cases))):
        form = forms[n % len(forms)]
        ending = right_ending(case) if form in ("exact", "one word edited") else rng.choice(others)[-1]
        story = [*context(case), ending]
        if form in ("one word edited", HARD):
            story = edit_one_word(story, rng, words)
        planted.append((form, case, story))
    return planted


def write_roc_csv(path: Path, planted, others: list[list[str]], ids: bool) -> dict[str, str]:
    """The ROCStories csv; {storyid: form} ('other' for the real ROCStories)."""
    form_of = {}
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEAD)
        for form, case, story in planted:
            story_id = case.get("InputStoryid") if ids and case.get("InputStoryid") else str(uuid.uuid4())
            form_of[story_id] = form
            writer.writerow([story_id, "", *story])
        for story in others:
            if len(story) != 5:  # a ROCStories row has five sentences; lotdata's splitter found 4 or 6 in a few
                continue
            story_id = str(uuid.uuid4())
            form_of[story_id] = "other"
            writer.writerow([story_id, "", *story])
    return form_of


def read_and_clean(roc_csv: Path, held: Path, work: Path) -> None:
    """`lotdata read ROC_CSV --format rocstories --lang en` then `lotdata clean --hold-out HELD`, through their
    command records (the one runner the CLI uses)."""
    from lotdata.clean.commands import CLEAN, CleanCommandParams
    from lotdata.command import run_command
    from lotdata.sources.commands import READ, ReadCommandParams

    stories = work / "s.parquet"
    run_command(READ, ReadCommandParams(inputs=[str(roc_csv)], out=str(stories), format="rocstories", lang="en"))
    run_command(CLEAN, CleanCommandParams(stories=[str(stories)], out=str(work / "clean"), hold_out=str(held)))


def run_set(held: Path, planted, others, ids: bool, work: Path) -> dict:
    """Read the csv, clean it with --hold-out `held`; per form: planted, removed (by held_out), and the others
    removed by held_out (false removals) or by another rule."""
    import pyarrow.parquet as pq

    work.mkdir(parents=True)
    form_of = write_roc_csv(work / "roc.csv", planted, others, ids)
    read_and_clean(work / "roc.csv", held, work)
    quarantine = pq.read_table(work / "clean" / "quarantine.parquet", columns=["source_id", "rule", "evidence"])
    removed = {r["source_id"]: r for r in quarantine.to_pylist()}
    stats: dict = defaultdict(Counter)
    for story_id, form in form_of.items():
        stats[form]["stories"] += 1
        row = removed.get(story_id)
        if row is None:
            continue
        key = "held_out" if row["rule"] == "held_out" else "other_rule"
        stats[form][key] += 1
        if key == "held_out":
            stats[form]["by " + _way(row["evidence"])] += 1
    manifest = json.loads((work / "clean" / "manifest.json").read_text(encoding="utf-8"))
    return {"forms": stats, "held_out": manifest["stats"]["held_out"]}


def _way(evidence: str) -> str:
    """How `clean` found a source, from its quarantine evidence (`lotdata.clean.heldout`)."""
    first = evidence.split(" ")[0]
    return {"first": "first sentences", "jaccard": "whole text"}.get(first, f"id ({first})")


def tuning_sweep(cases: list[dict], planted, others: list[list[str]]) -> tuple[list[str], dict]:
    """Table 1: on the tuning set, the first-sentences Jaccard of each planted source with its case, and of each
    other story with its most alike case; recall and false removals by threshold."""
    heads = [head_shingles(" ".join(context(c))) for c in cases]
    index: dict[str, list[int]] = defaultdict(list)
    for j, grams in enumerate(heads):
        for g in grams:
            index[g].append(j)
    planted_scores = defaultdict(list)
    for form, case, story in planted:
        planted_scores[form].append(
            jaccard(head_shingles(" ".join(story[:-1])), head_shingles(" ".join(context(case))))
        )
    other_best = []
    for story in others:
        grams = head_shingles(" ".join(story[:-1]))
        shared = Counter(j for g in grams for j in index.get(g, ()))
        other_best.append(max((n / (len(grams) + len(heads[j]) - n) for j, n in shared.items()), default=0.0))
    lines = [
        "| threshold | " + " | ".join(f"recall: {f}" for f in [*FORMS, HARD]) + " | other stories at or above |",
        "|---:|" + "---:|" * (len(FORMS) + 2),
    ]
    for threshold in (0.3, 0.4, HEAD_NEAR, 0.6, 0.7, 0.8, 0.9):
        recalls = [
            f"{sum(s >= threshold for s in planted_scores[f]) / len(planted_scores[f]):.1%}" for f in [*FORMS, HARD]
        ]
        chosen = " (chosen)" if threshold == HEAD_NEAR else ""
        lines.append(
            f"| {threshold}{chosen} | " + " | ".join(recalls) + f" | {sum(s >= threshold for s in other_best)} |"
        )
    margins = {
        "lowest planted": round(min(min(v) for v in planted_scores.values()), 3),
        "highest other": round(max(other_best), 3),
    }
    return lines, margins


def real_edits(others: list[list[str]]) -> list[str]:
    """Section 4: real sources, not planted ones. The winter 2018 release re-used spring 2016 stories, some copy-edited
    (numbers spelled out, typos fixed, a clause added): a corpus of the spring 2016 stories (val and test, four
    sentences and the right ending, storyid the InputStoryid) and the other stories, holding out the blind winter
    2018 test (no ids: the text alone)."""
    import pyarrow.parquet as pq

    spring = {}
    for path in (TUNING[1], HELD_OUT[0][1]):
        for case in read_cases(path):
            spring.setdefault(case["InputStoryid"], case)
    winter = read_cases(HELD_OUT[2][1])
    winter_heads = [head_shingles(" ".join(context(c))) for c in winter]
    index: dict[str, list[int]] = defaultdict(list)
    for j, grams in enumerate(winter_heads):
        for g in grams:
            index[g].append(j)
    best = {}
    for story_id, case in spring.items():
        grams = head_shingles(" ".join(context(case)))
        shared = Counter(j for g in grams for j in index.get(g, ()))
        best[story_id] = max((n / (len(grams) + len(winter_heads[j]) - n) for j, n in shared.items()), default=0.0)
    planted = [
        ("spring", {**c, "AnswerRightEnding": c["AnswerRightEnding"]}, [*context(c), right_ending(c)])
        for c in spring.values()
    ]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        write_roc_csv(work / "roc.csv", planted, others, ids=True)
        read_and_clean(work / "roc.csv", HELD_OUT[2][1], work)
        rows = pq.read_table(work / "clean" / "quarantine.parquet", columns=["source_id", "rule"]).to_pylist()
    removed = {r["source_id"] for r in rows if r["rule"] == "held_out"}
    bands = [
        (1.0, 1.01, "identical (1.0)"),
        (0.9, 1.0, "0.9 to 1.0"),
        (0.7, 0.9, "0.7 to 0.9"),
        (HEAD_NEAR, 0.7, f"{HEAD_NEAR} to 0.7"),
        (0.3, HEAD_NEAR, f"0.3 to {HEAD_NEAR}"),
        (0.0, 0.3, "below 0.3"),
    ]
    lines = [
        "## 4. Real sources: spring 2016 stories behind the blind winter 2018 test",
        "",
        f"A corpus of the {len(spring):,} spring 2016 stories (val and test) and the other stories; `clean --hold-out` "
        "the blind winter 2018 test (1,571 cases, no InputStoryid). Each spring story by its best first-sentences "
        "Jaccard with a winter case (1.0: the same four sentences; below 1: the winter release edited them):",
        "",
        "| best score with a winter case | spring stories | removed as held out |",
        "|---|---:|---:|",
    ]
    for lo, hi, label in bands:
        ids = [k for k, v in best.items() if lo <= round(v, 6) < hi]
        lines.append(f"| {label} | {len(ids)} | {sum(k in removed for k in ids)} |")
    lines += [
        "",
        f"Other stories removed: {len(removed - set(spring))}.",
    ]
    return lines


def set_rows(name: str, result: dict, ids: bool) -> list[str]:
    rows = []
    forms = result["forms"]
    for form in [*FORMS, HARD]:
        s = forms[form]
        how = ", ".join(f"{k[3:]} {v}" for k, v in sorted(s.items()) if k.startswith("by "))
        rows.append(
            f"| {name} | {'yes' if ids else 'no'} | {form} | {s['stories']} | {s['held_out']} | "
            f"{s['held_out'] / s['stories']:.1%} | {how} | {s['other_rule']} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "heldout.md")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    note = load_note()
    others = roc_stories()
    five = [s for s in others if len(s) == 5]
    lines = [
        f"# `clean --hold-out` on the paper's setting ({dt.date.today()})",
        "",
        note,
        "",
        f"`python benchmarks/bench_heldout.py --seed {args.seed}`. Every Story Cloze case of a set gets its source "
        "story planted in a ROCStories csv, in one of four forms (a quarter each, drawn at random); the other stories "
        f"are the {len(five):,} real five-sentence ROCStories stories of rocstories_diffusionlm_valid5k "
        f"({len(others) - len(five)} of the 5,000 split into 4 or 6 sentences are left out). The csv goes through "
        "`lotdata read` and `lotdata clean --hold-out SET.csv` with the default settings "
        f"(first sentences {HEAD_NEAR}, whole text 0.8, ids from source_id).",
        "",
        "## 1. Tuning: the first-sentences threshold on spring 2016 val",
        "",
        "Exact Jaccard of the character 5-grams of the story less its last sentence with the case's four sentences.",
        "",
    ]
    cases = read_cases(TUNING[1])
    planted = plant(cases, five, args.seed)
    sweep, margins = tuning_sweep(cases, planted, five)
    lines += sweep
    lines += [
        "",
        f"Lowest score of a planted source: {margins['lowest planted']}; highest score of another story with any "
        f"case: {margins['highest other']}. The threshold sits between them.",
        "",
        "## 2. Removals through the CLI: tuning set and held-out sets",
        "",
        "'ids' yes: the sources' storyid is the case's InputStoryid (the paper's setting; the winter 2018 csvs have "
        "none, so their sources get fresh ids either way); no: fresh ids, the text alone finds them.",
        "",
        "| set | ids | form | planted | removed as held out | recall | found by | removed by another rule |",
        "|---|---|---|---:|---:|---:|---|---:|",
    ]
    others_lines = [
        "| set | ids | other stories | removed as held out | removed by another rule |",
        "|---|---|---:|---:|---:|",
    ]
    totals: dict = defaultdict(Counter)
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, path) in enumerate([TUNING, *HELD_OUT]):
            cases = read_cases(path)
            planted = plant(cases, five, args.seed + n)
            for ids in (True, False):
                result = run_set(path, planted, five, ids, Path(tmp) / f"{n}-{ids}")
                lines += set_rows(name, result, ids)
                other = result["forms"]["other"]
                others_lines.append(
                    f"| {name} | {'yes' if ids else 'no'} | {other['stories']} | {other['held_out']} | "
                    f"{other['other_rule']} |"
                )
                if n:
                    for form in [*FORMS, HARD, "other"]:
                        totals[form].update(result["forms"][form])
                print(name, ids, dict(result["held_out"]), flush=True)
    lines += ["", "Other stories (none of them is a case's source):", "", *others_lines, ""]
    three = sum(totals[f]["held_out"] for f in FORMS) / sum(totals[f]["stories"] for f in FORMS)
    lines += [
        "## 3. Held-out sets together (spring 2016 test, winter 2018 val and test; both id settings)",
        "",
        "| form | planted | removed | recall |",
        "|---|---:|---:|---:|",
        *(
            f"| {f} | {totals[f]['stories']} | {totals[f]['held_out']} | {totals[f]['held_out'] / totals[f]['stories']:.2%} |"
            for f in [*FORMS, HARD]
        ),
        f"| **the three forms of issue 34** | {sum(totals[f]['stories'] for f in FORMS)} | "
        f"{sum(totals[f]['held_out'] for f in FORMS)} | **{three:.2%}** |",
        "",
        f"Other stories removed as held out: **{totals['other']['held_out']}** of {totals['other']['stories']}.",
    ]
    lines += ["", *real_edits(five)]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
