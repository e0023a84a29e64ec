"""The English flags of `shared_character` and `context_entities` on held-out data, read by a helper (issue 34).

    .venv/bin/python benchmarks/flag_verdicts_en.py      # the verdicts against the flags the rules give now

A helper who had not read the detector adjudicated, on 2026-11-27, every held-out `shared_character` flag (each
flagged ending of the winter 2018 cases: `refers`, the ending names a person of the story, a false alarm; `none`, the
flag is right) and the words of 60 random held-out English `context_entities` flags (seed
`34-en-flag-audit-2026-11-27`: `new`, right; `known`, the story has it under another word; `ordinary`, no role, animal
or place). The verdicts are committed as ids and offsets with a hash of the text (`flag_verdicts_en.tsv`), no text of
the data. This script recomputes the flags with the current rules and counts the verdicts of those still raised; a
flag raised now that was never read is counted apart, and a changed text is an error naming the line.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import check_rule_data as data  # noqa: E402

VERDICTS = HERE / "flag_verdicts_en.tsv"


def _texts() -> dict[tuple[str, str], str]:
    """(rule, id or id/ending) -> the text a verdict's offsets point into: a case's ending, a candidate."""
    out = {}
    for r in data.cases("en", "held-out"):
        for ending in ("right_ending", "wrong_ending"):
            out[("shared_character", f"{r['id']}/{ending}")] = str(r.get(ending) or "")
    for r in data.candidates("en", "held-out"):
        out[("context_entities", r["id"])] = r["candidate"]
    return out


def verdicts() -> dict[tuple[str, str, str], str]:
    """(rule, key, word) -> verdict ("" as the word of a shared_character ending)."""
    texts = _texts()
    out = {}
    for n, line in enumerate(VERDICTS.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        rule, key, digest, start, end, verdict = line.split("\t")
        text = texts.get((rule, key))
        if text is None or data.text_hash(text) != digest:
            sys.exit(f"{VERDICTS}:{n}: {rule} {key} is not the text adjudicated (the data or the draw changed)")
        out[(rule, key, text[int(start) : int(end)])] = verdict
    return out


def current_flags() -> list[tuple[str, str, str]]:
    """(rule, key, word) of every flag the rules raise now on the held-out rows the verdicts cover."""
    from lotdata.annotate.checks import CheckOptions, new_entities, shared_character

    flags = []
    for r in data.cases("en", "held-out"):
        for problem in shared_character(r, CheckOptions()):
            ending = "right_ending" if problem.startswith("right") else "wrong_ending"
            flags.append(("shared_character", f"{r['id']}/{ending}", ""))
    for r in data.candidates("en", "held-out"):
        for word in new_entities(r["candidate"], " ".join(r["context"]), "en"):
            flags.append(("context_entities", r["id"], word))
    return flags


def report() -> str:
    read = verdicts()
    sampled = {key for rule, key, _ in read if rule == "context_entities"}
    counts: dict[str, Counter[str]] = {"shared_character": Counter(), "context_entities": Counter()}
    for rule, key, word in current_flags():
        if rule == "context_entities" and key not in sampled:
            continue  # a flag of a row outside the random 60
        counts[rule][read.get((rule, key, word), "not read")] += 1
    lines = ["| rule | flags now, held out (the rows read) | verdicts |", "| --- | --- | --- |"]
    for rule, c in counts.items():
        lines.append(f"| {rule} | {sum(c.values())} | {', '.join(f'{n} {v}' for v, n in c.most_common())} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if not data.available():
        sys.exit(f"the shared data is not at {data.DATA}")
    print(report())
