"""The Chinese entity reader (LOT 2.2a) against a hand annotation of real held-out sentences (issue 34).

    .venv/bin/python benchmarks/entity_gold_zh.py sample OUT_DIR     # write the sentences to annotate (not in the repo)
    .venv/bin/python benchmarks/entity_gold_zh.py import GOLD_TSV... # word annotations -> offsets (the committed file)
    .venv/bin/python benchmarks/entity_gold_zh.py import-verdicts TSV # flag verdicts (id, word, verdict[, note]) -> offsets
    .venv/bin/python benchmarks/entity_gold_zh.py [--show-dev]       # precision and recall, per half and kind

The planted blind lists (`context_entities_blind*_zh.txt`) measure recall on words a helper recalled, each list
drawn after removing every earlier list's words, so each list is rarer than the last. This measures the reader on
the words real stories use: a seeded sample of the held-out ClozeT candidates (`check_rule_data.candidates("zh",
"held-out")`, real middle sentences of CFT, C3 and LOT documents) was annotated by a helper who had not read the
detector or its lexicons: every word naming a role (a person by occupation, title, kinship or kind), a being (god,
ghost, fairy, monster), an animal, a place, or a person's name.

The annotation is committed as offsets only (`context_entities_gold_zh.tsv`: id, a hash of the sentence, start,
end, kind), so no text of the data enters the project; the words are read from `../shared/data` at run time.

The sample has two halves. The **dev** half's misses and false readings may be read to improve the reader; the
**blind** half's are counted only (`--show-dev` prints the dev half's, never the blind half's).

Scoring, per sentence: the reader's words are `entities_zh.entity_words_in_zh`, the words `context_entities`
compares with the story. A gold word is found where a read word stands at the same place, holding it or held in it
(老猎人 for 猎人, 猎人 for 老猎人); a read word is right where it so matches a gold word, or where it is the role word
right after a marked animal (兔妈妈: the guide marks the animal for the character). Names are
reported apart: the Chinese reader does not read new names (a person's name is an entity for LOT 2.2a all the same).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import check_rule_data as data  # noqa: E402

from lotdata.io import atomic_path  # noqa: E402


def _write(path: Path, text: str) -> None:
    """Write a committed file whole or not at all (lotdata.io.atomic_path)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


GOLD = HERE / "context_entities_gold_zh.tsv"
SEED = "34-entity-gold-2026-11-27"
#: a second sample, drawn from the held-out candidates the first did not draw, annotated after the first's dev half
#: had been used: its own dev half (dev2) and a blind half (blind2) nobody had looked at
SEED_2 = "34-entity-gold-2-2026-11-27"
#: a third sample, drawn from the candidates neither earlier sample drew, before the changes its dev half drove: its
#: blind half (blind3) is counted once, after them
SEED_3 = "34-entity-gold-3-2026-11-27"
#: a fourth, drawn likewise after the third's changes and the adjudication of the blind halves' flags: its blind half
#: (blind4) counted once, on the code it was drawn for
SEED_4 = "34-entity-gold-4-2026-11-27"
#: a fifth, drawn after the fourth's dev half had driven its changes: its blind half (blind5) counted once, after them
SEED_5 = "34-entity-gold-5-2026-11-27"
#: a sixth, drawn after the fifth's dev half had driven its changes: every held-out candidate no earlier sample drew,
#: all of them a blind half (blind6) counted once, after those changes
SEED_6 = "34-entity-gold-6-2026-11-27"
SEEDS = (SEED, SEED_2, SEED_3, SEED_4, SEED_5, SEED_6)
#: a seventh, on new text once every held-out candidate had been annotated: another middle sentence of each held-out
#: document (`check_rule_data.candidates` with seed 1; ids end in `SECOND`), drawn before the changes its dev half
#: drove, its blind half (blind7) counted after them
SEED_7 = "34-entity-gold-7-2026-11-27"
#: an eighth, of the other sentences the seventh did not draw, drawn after the seventh's first changes: all of it a
#: blind half (blind8), counted once after the seventh's changes
SEED_8 = "34-entity-gold-8-2026-11-27"
#: a ninth, of the other sentences neither the seventh nor the eighth drew, drawn before the changes the adjudicated
#: flags of halves 4-8 led to: all of it a blind half (blind9), counted once after them
SEED_9 = "34-entity-gold-9-2026-11-27"
#: a tenth, of the other sentences no sample drew and a third middle sentence of each held-out document (seed 2; ids
#: end in `THIRD`), drawn after the ninth's count and before the changes after it: all of it a blind half (blind10)
SEED_10 = "34-entity-gold-10-2026-11-27"
#: an eleventh and a twelfth, of the second and third sentences no sample drew, both drawn before any change after the
#: tenth's count: the eleventh (dev11) counted once on that code and then a dev half, the twelfth (blind12) counted once
#: after the changes the eleventh drove
SEED_11 = "34-entity-gold-11-2026-11-28"
SEED_12 = "34-entity-gold-12-2026-11-28"
#: a thirteenth, of the fourth middle sentence of each held-out document (seed 3; ids end in `FOURTH`), drawn and
#: annotated before the changes after the twelfth's count: all of it a blind half (blind13)
SEED_13 = "34-entity-gold-13-2026-11-27"
FOURTH = "@4"
#: the samples of other sentences after the seventh, in the order drawn: (half, seed, the `other_sentences` seeds of
#: its pool: 1 the second sentences, 2 the third, 3 the fourth)
LATER = (
    ("blind8", SEED_8, (1,)),
    ("blind9", SEED_9, (1,)),
    ("blind10", SEED_10, (1, 2)),
    ("dev11", SEED_11, (1, 2)),
    ("blind12", SEED_12, (1, 2)),
    ("blind13", SEED_13, (3,)),
)
THIRD = "@3"
SECOND = "@2"
SIZE = 400  # sentences per sample: the first half of a draw is its dev half, the second its blind half
#: the sample that takes the rest of the candidates (fewer than `SIZE`), all of it blind
LAST_SEED = SEED_6
HALVES = (
    *("dev", "blind", "dev2", "blind2", "dev3", "blind3", "dev4", "blind4", "dev5", "blind5", "blind6"),
    *("dev7", "blind7", "blind8", "blind9", "blind10", "dev11", "blind12", "blind13"),
)
KINDS = ("role", "being", "animal", "place", "name")
ENTITY_KINDS = ("role", "being", "animal", "place")  # what the reader is meant to read


@lru_cache(maxsize=1)
def sample() -> list[tuple[str, str, str]]:
    """(half, id, sentence): a seeded draw of `SIZE` held-out candidates for each of `SEEDS`, each from the candidates
    the earlier draws did not take; the first half of a draw is its dev half, and the last (`LAST_SEED`) takes all
    the candidates left as a blind half. Then the samples of other sentences of the same documents
    (`other_sentences`): the seventh (dev7, blind7) of the second sentences, the eighth and the ninth (all blind) of
    the second sentences no sample drew, the tenth (all blind) of those and the third sentences, the eleventh (dev11)
    and the twelfth (blind12) of the second and third sentences left, the thirteenth (blind13) of the fourth."""
    rows = sorted(data.candidates("zh", "held-out"), key=lambda r: r["id"])
    out: list[tuple[str, str, str]] = []
    for n, seed in enumerate(SEEDS):
        taken = {id_ for _, id_, _ in out}
        rest = [r for r in rows if r["id"] not in taken]
        drawn = random.Random(seed).sample(rest, len(rest) if seed == LAST_SEED else SIZE)
        dev = 0 if seed == LAST_SEED else SIZE // 2
        suffix = str(n + 1) if n else ""
        out += [(("dev" if i < dev else "blind") + suffix, r["id"], r["candidate"]) for i, r in enumerate(drawn)]
    drawn = random.Random(SEED_7).sample(other_sentences(1), SIZE)
    out += [("dev7" if i < SIZE // 2 else "blind7", r["id"], r["candidate"]) for i, r in enumerate(drawn)]
    for half, seed, pools in LATER:
        taken = {id_ for _, id_, _ in out}
        pool = [r for n in pools for r in other_sentences(n)]
        drawn = random.Random(seed).sample([r for r in pool if r["id"] not in taken], SIZE)
        out += [(half, r["id"], r["candidate"]) for r in drawn]
    return out


@lru_cache(maxsize=None)
def other_sentences(seed: int) -> list[dict]:
    """Another middle sentence of each held-out document (`check_rule_data.candidates` with `seed`: 1 the second, 2
    the third, 3 the fourth), where it is none of the sentences the lower seeds drew from that document; ids end in
    `@{seed + 1}` (`SECOND`, `THIRD`, `FOURTH`)."""
    earlier = [{r["id"]: r["candidate"] for r in data.candidates("zh", "held-out", seed=s)} for s in range(seed)]
    rows = sorted(data.candidates("zh", "held-out", seed=seed), key=lambda r: r["id"])
    kept = [r for r in rows if all(r["candidate"] != drawn.get(r["id"]) for drawn in earlier)]
    return [{**r, "id": f"{r['id']}@{seed + 1}"} for r in kept]


sentence_hash = data.text_hash


def write_sample(out: Path) -> None:
    """One file per half (id TAB sentence), for the annotators: outside the repository."""
    out.mkdir(parents=True, exist_ok=True)
    for half in HALVES:
        lines = [f"{id_}\t{s}" for h, id_, s in sample() if h == half]
        (out / f"{half}.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{out / f'{half}.tsv'}: {len(lines)} sentences")


def _read_spec(spec: str) -> tuple[str, list[str] | None]:
    """(label, the file's lines) of LABEL=PATH, or (what is wrong with it, None)."""
    label, _, name = spec.partition("=")
    if not label or not name:
        return f"{spec!r}: expected LABEL=PATH (A=/tmp/gold/annotator_A.tsv)", None
    try:
        return label, Path(name).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        return f"{spec}: cannot read {name} ({type(exc).__name__})", None


def import_words(specs: list[str]) -> None:
    """Annotations as words (LABEL=PATH, each line id TAB kind TAB word) -> offsets in the committed file."""
    if not specs:
        sys.exit("import needs LABEL=PATH for each annotator's file (A=/tmp/gold/annotator_A.tsv)")
    by_id = {id_: s for _, id_, s in sample()}
    out, problems = [], []
    for spec in specs:
        label, lines = _read_spec(spec)
        if lines is None:
            problems.append(label)
            continue
        path = spec.partition("=")[2]
        for n, line in enumerate(lines, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 3 or parts[0] not in by_id or parts[1] not in KINDS:
                problems.append(f"{path}:{n}: {line!r}")
                continue
            id_, kind, word = parts
            sentence = by_id[id_]
            start = sentence.find(word.strip())
            if start < 0:
                problems.append(f"{path}:{n}: {word!r} is not in the sentence")
                continue
            out.append((label, id_, sentence_hash(sentence), start, start + len(word.strip()), kind))
    if problems:
        sys.exit("annotation lines not imported:\n" + "\n".join(problems))
    imported = {(r[0], half) for r in out for half, id_, _ in sample() if id_ == r[1]}
    halves = {id_: half for half, id_, _ in sample()}
    out += [r for r in _gold_rows() if (r[0], halves.get(r[1])) not in imported]  # other annotators' and halves' lines
    order = {id_: i for i, (_, id_, _) in enumerate(sample())}
    out = sorted(set(out), key=lambda r: (r[0], order[r[1]], r[3], r[4]))
    seeds = ", ".join([*SEEDS, SEED_7, *(seed for _, seed, _ in LATER)])
    header = f"# {__doc__.splitlines()[0]}\n# seeds {seeds}; columns: annotator, id, sha1[:10], start, end, kind\n"
    header += "# every sentence of a sample was annotated by each of two annotators (A, B); a sentence with no entity has no line\n"
    _write(GOLD, header + "".join("\t".join(map(str, r)) + "\n" for r in out))
    print(f"{GOLD}: {Counter(r[0] for r in out)} annotations")


#: the flagged words neither annotator marked, adjudicated by a helper after a count (entity, name or ordinary)
VERDICTS = HERE / "context_entities_flag_verdicts_zh.tsv"
VERDICT_KINDS = ("entity", "name", "ordinary")


def flag_verdicts() -> dict[tuple[str, str], str]:
    """(id, word) -> the adjudicator's verdict on a flagged word neither annotator marked, read from the offsets and
    the data; a changed sentence or an unknown verdict is an error naming the line."""
    by_id = {id_: s for _, id_, s in sample()}
    out: dict[tuple[str, str], str] = {}
    for n, line in enumerate(VERDICTS.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#") or not line.strip():
            continue
        id_, digest, start, end, verdict = line.split("\t")
        sentence = by_id.get(id_)
        if sentence is None or sentence_hash(sentence) != digest or verdict not in VERDICT_KINDS:
            sys.exit(f"{VERDICTS}:{n}: not a verdict on a sampled sentence as it stands: {line!r}")
        out[(id_, sentence[int(start) : int(end)])] = verdict
    return out


def import_verdicts(path: Path) -> None:
    """An adjudicator's verdicts as words (a header, then id TAB word TAB verdict, a note after it allowed) -> offsets
    in the committed verdicts file, beside the verdicts already there; a line whose id is not sampled, whose word is
    not in its sentence, whose verdict is unknown or that contradicts a verdict already there stops the import, named
    with its line, and nothing is written."""
    by_id = {id_: s for _, id_, s in sample()}
    head, kept = [], {}
    for line in VERDICTS.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            head.append(line)
        else:
            kept[tuple(line.split("\t")[:4])] = line
    problems = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines()[1:], 2):
        parts = line.split("\t")
        if len(parts) < 3 or parts[0] not in by_id or parts[2] not in VERDICT_KINDS or parts[1] not in by_id[parts[0]]:
            problems.append(f"{path}:{n}: {line!r}")
            continue
        sentence = by_id[parts[0]]
        start = sentence.index(parts[1])
        fields = [parts[0], sentence_hash(sentence), str(start), str(start + len(parts[1])), parts[2]]
        key = tuple(fields[:4])
        if key in kept and kept[key] != "\t".join(fields):
            problems.append(f"{path}:{n}: {parts[1]!r} already has another verdict ({kept[key].split(chr(9))[-1]})")
        kept[key] = "\t".join(fields)
    if problems:
        sys.exit("verdict lines not imported:\n" + "\n".join(problems))
    _write(VERDICTS, "\n".join([*head, *sorted(kept.values())]) + "\n")
    print(f"{VERDICTS}: {len(kept)} verdicts")


def adjudicated(wrong: list[tuple[str, str]], verdicts: dict[tuple[str, str], str]) -> str:
    """The verdicts on a half's unmarked flagged words, as a cell: ordinary, entity or name, and not yet read."""
    counts = Counter(verdicts.get(key, "not adjudicated") for key in wrong)
    return ", ".join(f"{counts[k]} {k}" for k in (*VERDICT_KINDS, "not adjudicated") if counts[k]) or "none"


#: a marked word: (word, kind, start, end) in its sentence
Mark = tuple[str, str, int, int]
Marks = dict[str, list[Mark]]


def _gold_rows() -> list[tuple[str, str, str, int, int, str]]:
    """The committed file's lines: (annotator, id, hash, start, end, kind)."""
    if not GOLD.exists():
        return []
    rows = [line.split("\t") for line in GOLD.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    return [(a, i, h, int(start), int(end), k) for a, i, h, start, end, k in rows]


def gold() -> dict[str, Marks]:
    """annotator -> id -> [(word, kind, start, end)], read from the offsets and the data; a changed sentence is an
    error."""
    by_id = {id_: s for _, id_, s in sample()}
    out: dict[str, Marks] = {}
    for n, line in enumerate(GOLD.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#") or not line.strip():
            continue
        label, id_, digest, start, end, kind = line.split("\t")
        sentence = by_id.get(id_)
        if sentence is None or sentence_hash(sentence) != digest:
            sys.exit(f"{GOLD}:{n}: sentence {id_} is not the one annotated (the data or the draw changed)")
        marks = out.setdefault(label, {i: [] for i in by_id})
        marks[id_].append((sentence[int(start) : int(end)], kind, int(start), int(end)))
    return out


@lru_cache(maxsize=None)
def read_words(sentence: str) -> tuple[str, ...]:
    """The words the rule's Chinese reader reads as roles, animals and places (`entities_zh.entity_words_in_zh`),
    once per sentence in a run (the report, the table and the listing's figures read them alike)."""
    from lotdata.text.entities_zh import entity_words_in_zh

    return tuple(dict.fromkeys(entity_words_in_zh(sentence)))


def _spans(sentence: str, word: str) -> list[tuple[int, int]]:
    """Where a word stands in a sentence, every time (`entities_zh.word_starts`)."""
    from lotdata.text.entities_zh import word_starts

    return [(at, at + len(word)) for at in word_starts(sentence, word)]


def _nested(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether one span holds the other (老猎人 and its 猎人, at the same place)."""
    return a[0] <= b[0] and b[1] <= a[1] or b[0] <= a[0] and a[1] <= b[1]


def _match(read: str, mark: Mark, sentence: str) -> bool:
    """Whether a read word stands where a marked word does, holding it or held in it."""
    return any(_nested(span, mark[2:]) for span in _spans(sentence, read))


def _animal_title(read: str, mark: Mark, sentence: str) -> bool:
    """Whether a read word is the title of a marked animal character (狐狸先生, 兔妈妈): it is a role word right after
    the animal the guide has marked for the character."""
    from lotdata.text.characters import entity_kind_zh

    after = sentence[mark[3] : mark[3] + len(read)]
    return mark[1] == "animal" and after == read and entity_kind_zh(read, "n") == "role"


def _marked(read: str, marks: list[Mark], sentence: str) -> bool:
    """Whether a read or flagged word is one an annotator marked (`_match`), or a marked animal's title."""
    return any(_match(read, m, sentence) or _animal_title(read, m, sentence) for m in marks)


def consensus(marks: dict[str, Marks]) -> Marks:
    """The words both annotators marked (at nested spans), with the first annotator's kind."""
    first, *others = sorted(marks)
    return {
        id_: [m for m in words if all(any(_nested(m[2:], o[2:]) for o in marks[other][id_]) for other in others)]
        for id_, words in marks[first].items()
    }


def either(marks: dict[str, Marks]) -> Marks:
    """Every word either annotator marked."""
    return {id_: [m for label in sorted(marks) for m in marks[label][id_]] for id_ in next(iter(marks.values()))}


def score(
    half: str, recall_marks: Marks, precision_marks: Marks, read: dict[str, tuple[str, ...]]
) -> dict[str, object]:
    """Recall of `recall_marks` (per kind) and precision against `precision_marks`, with the misses and wrong reads."""
    found: Counter[str] = Counter()
    total: Counter[str] = Counter()
    right = read_n = 0
    misses, wrong = [], []
    for h, id_, sentence in sample():
        if h != half:
            continue
        words = read[id_]
        for mark in recall_marks[id_]:
            total[mark[1]] += 1
            if any(_match(w, mark, sentence) for w in words):
                found[mark[1]] += 1
            elif mark[1] in ENTITY_KINDS:
                misses.append((id_, mark[1], mark[0]))
        for w in words:
            read_n += 1
            if _marked(w, precision_marks[id_], sentence):
                right += 1
            else:
                wrong.append((id_, w))
    return {
        "recall": (sum(found[k] for k in ENTITY_KINDS), sum(total[k] for k in ENTITY_KINDS)),
        "by_kind": {k: (found[k], total[k]) for k in KINDS},
        "precision": (right, read_n),
        "misses": misses,
        "wrong": wrong,
    }


@lru_cache(maxsize=1)
def _givens() -> dict[str, str]:
    """id -> what the rule compares a sampled sentence with: its story's other sentences (`check_rule_data`)."""
    rows = [*data.candidates("zh", "held-out"), *(r for seed in (1, 2, 3) for r in other_sentences(seed))]
    return {r["id"]: " ".join([*(r.get("context") or []), str(r.get("original") or "")]) for r in rows}


@lru_cache(maxsize=None)
def flagged_words(id_: str, sentence: str) -> tuple[str, ...]:
    """The words `context_entities` reports as new when the sentence is the candidate of its own story
    (`lotdata.annotate.checks.new_entities`), once per sentence in a run."""
    from lotdata.annotate.checks import new_entities

    return tuple(dict.fromkeys(new_entities(sentence, _givens()[id_], "zh")))


def flag_score(half: str, precision_marks: Marks) -> dict[str, object]:
    """Of the words the rule flags on a half's sentences (each against its own story), how many an annotator marked
    as a role, a being, an animal, a place or a name: the rule's flags on real text, word by word."""
    right = flagged = rows = 0
    wrong = []
    for h, id_, sentence in sample():
        if h != half:
            continue
        words = flagged_words(id_, sentence)
        rows += bool(words)
        for w in words:
            flagged += 1
            if _marked(w, precision_marks[id_], sentence):
                right += 1
            else:
                wrong.append((id_, w))
    return {"rows": rows, "precision": (right, flagged), "wrong": wrong}


def agreement(half: str, a: Marks, b: Marks) -> tuple[int, int, int]:
    """(a's words b marked too, at nested spans, a's words, b's words) over roles, beings, animals and places."""
    ids = [id_ for h, id_, _ in sample() if h == half]
    a_marks = [(id_, m) for id_ in ids for m in a[id_] if m[1] in ENTITY_KINDS]
    b_count = sum(1 for id_ in ids for m in b[id_] if m[1] in ENTITY_KINDS)
    shared = sum(1 for id_, m in a_marks if any(_nested(m[2:], o[2:]) for o in b[id_]))
    return shared, len(a_marks), b_count


def _pct(pair: tuple[int, int]) -> str:
    n, d = pair
    return f"{100 * n / d:.1f}% ({n}/{d})" if d else "n/a"


def table(show_dev: bool = False, only: tuple[str, ...] = HALVES) -> str:
    """The figures as a markdown table and the annotators' agreement; `show_dev` adds the dev half's errors."""
    marks = gold()
    read = {id_: read_words(sentence) for _, id_, sentence in sample()}
    out = [
        "| half | gold | recall (roles, beings, animals, places) | role | being | animal | place | name | precision |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    shown: list[str] = []
    rows = [(label, marks[label], marks[label]) for label in sorted(marks)]
    rows.append(("both (recall) / either (precision)", consensus(marks), either(marks)))
    annotated = {id_ for by_id in marks.values() for id_, found in by_id.items() if found}
    halves = [h for h in only if any(id_ in annotated for half, id_, _ in sample() if half == h)]
    for half in halves:
        for label, recall_marks, precision_marks in rows:
            s = score(half, recall_marks, precision_marks, read)
            cells = " | ".join(_pct(s["by_kind"][k]) for k in KINDS)
            out.append(f"| {half} | {label} | {_pct(s['recall'])} | {cells} | {_pct(s['precision'])} |")
            if show_dev and half.startswith("dev") and label.startswith("both"):
                shown.extend(f"  missed {kind}: {word}  ({id_})" for id_, kind, word in s["misses"])
                shown.extend(f"  read, marked by neither: {word}  ({id_})" for id_, word in s["wrong"])
    out += [
        "\nThe rule's flags on these sentences, each the candidate of its own story (`context_entities`): of the words"
        " it reports as new, those an annotator marked (either):\n",
        "| half | sentences | flagged | flagged words marked | the others, adjudicated (`" + VERDICTS.name + "`) |",
        "| --- | --- | --- | --- | --- |",
    ]
    everyone = either(marks)
    verdicts = flag_verdicts()
    for half in halves:
        f = flag_score(half, everyone)
        size = sum(1 for h, _, _ in sample() if h == half)
        cells = f"{size} | {f['rows']} | {_pct(f['precision'])} | {adjudicated(f['wrong'], verdicts)}"
        out.append(f"| {half} | {cells} |")
        if show_dev and half.startswith("dev"):
            shown.extend(f"  flagged, marked by neither: {word}  ({id_})" for id_, word in f["wrong"])
    a, b = sorted(marks)
    out.append(f"\nAnnotator agreement ({a} vs {b}; roles, beings, animals and places, matched as the reader's are):\n")
    for half in halves:
        shared, n_a, n_b = agreement(half, marks[a], marks[b])
        out.append(f"- {half}: {shared} of {a}'s {n_a} words marked by {b} too ({b} marked {n_b})")
    return "\n".join(out + ([""] + shown if shown else []))


REPORT = HERE.parent / "bench" / "entity_gold_zh.md"
#: what `lotdata annotate check --rules` shows of these figures (the blind halves only)
REAL_TEXT = HERE.parent / "lotdata" / "data" / "real_text_figures.json"
#: how often each blind half was counted, as the listing says it
BLIND_NOTES = {
    "blind": "sample 1, counted after every round of changes",
    "blind2": "sample 2, counted after every round since it was drawn",
    "blind3": "sample 3, counted before the changes its dev half drove and after every round since",
    "blind4": "sample 4, drawn before the fourth sample's changes, first counted after the third's",
    "blind5": "sample 5, drawn before the fifth sample's changes, first counted after the fourth's",
    "blind6": "sample 6, drawn after the fifth sample's changes; recounted after two small fixes, unchanged",
    "blind7": "sample 7 (other sentences of the held-out documents), first counted before its dev half's changes",
    "blind8": "sample 8 (other sentences of the held-out documents), counted once after the seventh's changes",
    "blind9": "sample 9 (other sentences of the held-out documents), counted once after the flags' changes",
    "blind10": "sample 10 (other and third sentences of the held-out documents), counted once at the session's end",
    "blind12": "sample 12 (other and third sentences), counted once before and once after the eleventh's changes",
    "blind13": "sample 13 (fourth sentences of the held-out documents), counted once, before any change after it",
}


def real_text_figures() -> dict[str, object]:
    """The blind halves' "both / either" figures, as `lotdata/data/real_text_figures.json` holds them."""
    marks = gold()
    read = {id_: read_words(sentence) for _, id_, sentence in sample()}
    rows = []
    for half, note in BLIND_NOTES.items():
        s = score(half, consensus(marks), either(marks), read)
        flags = flag_score(half, either(marks))["precision"]
        rows.append(
            {
                "lang": "zh",
                "half": half,
                "note": note,
                "recall": s["recall"],
                "precision": s["precision"],
                "flags": flags,
            }
        )
    return {"source": "benchmarks/entity_gold_zh.py", "rules": {"context_entities": rows}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", default="score", choices=("score", "sample", "import", "import-verdicts"))
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--show-dev", action="store_true", help="print the dev half's misses and false readings")
    parser.add_argument("--only", nargs="+", choices=HALVES, default=HALVES, help="score these halves only")
    parser.add_argument("--update", action="store_true", help=f"write the table to {REPORT.relative_to(HERE.parent)}")
    args = parser.parse_args()
    if not data.available():
        sys.exit(f"the shared data is not at {data.DATA}")
    if args.command == "sample":
        write_sample(args.paths[0] if args.paths else Path("/tmp/entity_gold_zh"))
        return
    if args.command == "import":
        import_words([str(p) for p in args.paths])
        return
    if args.command == "import-verdicts":
        if len(args.paths) != 1:
            sys.exit("import-verdicts needs one file of verdicts (id TAB word TAB verdict, after a header line)")
        import_verdicts(args.paths[0])
        return
    text = table(show_dev=args.show_dev, only=tuple(args.only))
    print(text)
    if args.update:  # the report holds every half, without the dev halves' errors
        full = text if not args.show_dev and tuple(args.only) == HALVES else table()
        head = REPORT.read_text(encoding="utf-8").split(MARKER)[0] if REPORT.exists() else DEFAULT_HEAD
        _write(REPORT, f"{head}{MARKER}\n\n{full}\n")
        _write(REAL_TEXT, json.dumps(real_text_figures(), indent=1) + "\n")
        print(f"wrote {REPORT} and {REAL_TEXT}")


MARKER = "<!-- figures: written by benchmarks/entity_gold_zh.py --update -->"
DEFAULT_HEAD = "# The Chinese entity reader on a hand annotation of real held-out sentences\n\n"


if __name__ == "__main__":
    main()
