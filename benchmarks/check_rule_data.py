"""Real, published, accepted rows shaped as each check rule's input, in named tuning and held-out sets.

Issue 34 (DESIGN.md, "How a gate earns trust"): every check rule is measured on real data it was not tuned on. The
sets are fixed here so every helper measures on the same split, and nothing of the data's text enters the project:
the files are read from `../shared/data` (or `$LOTDATA_SHARED_DATA`) when this runs.

| language | split | sets |
| --- | --- | --- |
| en | tuning | Story Cloze spring 2016 val + test (`storycloze_spring2016_labeled`); ROCStories 5k, first half |
| en | held-out | Story Cloze winter 2018 val + test (`storycloze_rocstories`) whose stories appear in neither spring set; ROCStories 5k, second half |
| zh | tuning | CMRC 2017 validation (cloze + user, exact duplicates once); C3-M train |
| zh | held-out | CFT (human + auto, exact duplicates once); C3-M dev + test; LOT OutGen dev (`lot_outgen_dev`) |

A document is in one set only: a Chinese document that also appears in a tuning set (the same text, or the same
first or last 30 characters: CMRC and CFT repeat a story once per blank) is left out of the held-out sets, as the
winter 2018 cases whose context is a spring case's are.

The shapes (`Row`: what `lotdata.annotate.checks` rules read):

- `stories(lang, split)`: a five-sentence story. English: a Story Cloze case's four sentences + its right ending as
  five fields (`sentences`; the blind winter 2018 test: its first ending, a published sentence all the same), a ROCStories 5k story as one text (`text`: the splitter counts it). Chinese: the first
  five sentences of a document (`sentences`; Chinese has no published five-sentence corpus: a proxy), with the
  document's title where the format keeps one (CFT's `.auto` documents).
- `cases(lang, split)`: a Story Cloze case, `context` (four sentences) + `right_ending` + `wrong_ending`. English:
  the published cases (the blind winter 2018 test has no label: its first ending is called right; no rule reads
  which one is right). Chinese proxy: a document's sentences 1-4, sentence 5 as the right ending and sentence 6 as
  the wrong one (a real sentence of the same story).
- `rewrites(lang, split)`: a story_filter submission, `text` (the rewrite) + `segment`. The rewrite is a published
  story (LOT's, CMRC's, ...; English: a ROCStories story) and the segment is the same text: no source segments are
  published, so `rewrite_length` is measured only on planted violations; `punctuation` reads the published text.
- `candidates(lang, split)`: a ClozeT candidate (clozet_write), `context` (the story's other sentences) +
  `candidate` (the real middle sentence, one per document, chosen by a fixed seed); `original` is left empty, so the
  row asks what `benchmarks/clozet_entities_rate.py` asks: would the rule refuse a sentence a real story has?
  English: sentence 2, 3 or 4 of each five-sentence story of `stories` (as `shared_character_rate.py`'s 2.2a).
- `pairs(lang, split)`: a candidate beside the sentence it replaces (`original`): a real middle sentence and, as
  the candidate, the story's next sentence (no published ClozeT candidates beyond LOT's one example).

    .venv/bin/python benchmarks/check_rule_data.py     # the sets and their sizes
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("LOTDATA_SHARED_DATA") or REPO.parent / "shared" / "data")

Row = dict[str, Any]
SPLITS = ("tuning", "held-out")
LANGS = ("en", "zh")
KINDS = ("story", "case", "rewrite", "candidate", "pair")

#: the sets, named as the table names them
SET_NAMES = {
    ("en", "tuning"): "Story Cloze spring 2016 val+test + ROCStories 5k first half",
    ("en", "held-out"): "Story Cloze winter 2018 val+test (not in spring 2016) + ROCStories 5k second half",
    ("zh", "tuning"): "CMRC 2017 valid (cloze+user) + C3-M train",
    ("zh", "held-out"): "CFT (human+auto) + C3-M dev+test + LOT OutGen dev",
}


def text_hash(text: str) -> str:
    """The short hash a committed annotation keeps of the text it points into (sha1, 10 hex digits): a changed text
    is found without the text entering the project."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def available() -> bool:
    """Whether the shared data is beside the repository (benchmarks and tests skip without it)."""
    return (DATA / "storycloze_spring2016_labeled" / "val.csv").is_file()


# ---------------------------------------------------------------- English


@dataclass(frozen=True)
class Case:
    source: str  # the set and file: "spring2016/val"
    row: int
    context: tuple[str, ...]
    right: str
    wrong: str
    labelled: bool


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _case(source: str, i: int, r: dict[str, str]) -> Case:
    context = tuple(r[f"InputSentence{k}"].strip() for k in range(1, 5))
    one, two = r["RandomFifthSentenceQuiz1"].strip(), r["RandomFifthSentenceQuiz2"].strip()
    label = (r.get("AnswerRightEnding") or "").strip()
    right, wrong = (two, one) if label == "2" else (one, two)
    return Case(source, i, context, right, wrong, labelled=label in ("1", "2"))


def _key(context: tuple[str, ...] | list[str]) -> str:
    return " ".join(" ".join(context).lower().split())


@lru_cache(maxsize=None)
def story_cloze_cases(split: str) -> tuple[Case, ...]:
    """tuning: spring 2016 val + test; held-out: winter 2018 val + test cases whose four-sentence context is in
    neither spring file (nor earlier in winter 2018)."""
    spring = [
        _case(f"spring2016/{name}", i, r)
        for name in ("val", "test")
        for i, r in enumerate(_read_csv(DATA / "storycloze_spring2016_labeled" / f"{name}.csv"), 1)
    ]
    if split == "tuning":
        return tuple(spring)
    seen = {_key(c.context) for c in spring}
    held: list[Case] = []
    for name in ("val", "test"):
        for i, r in enumerate(_read_csv(DATA / "storycloze_rocstories" / f"{name}.csv"), 1):
            case = _case(f"winter2018/{name}", i, r)
            if _key(case.context) not in seen:
                seen.add(_key(case.context))
                held.append(case)
    return tuple(held)


@lru_cache(maxsize=None)
def rocstories_5k(split: str) -> tuple[str, ...]:
    """The ROCStories 5k stories (one text each): the first 2,500 lines are tuning, the last 2,500 held out."""
    path = DATA / "rocstories_diffusionlm_valid5k" / "datasets" / "ROCstory" / "roc_valid.json"
    texts = [" ".join(json.loads(line)[0].split()) for line in path.read_text("utf-8").splitlines() if line.strip()]
    half = len(texts) // 2
    return tuple(texts[:half] if split == "tuning" else texts[half:])


# ---------------------------------------------------------------- Chinese


@dataclass(frozen=True)
class Document:
    source: str  # "cmrc2017/cloze.valid", "cft/human", "c3/dev", "lot/dev"
    id: str
    text: str
    title: str | None = None


def _zh(text: str) -> str:
    from lotdata.text import normalize_text

    return normalize_text(text, "zh").strip()


def _cmrc_documents(path: Path, source: str) -> list[Document]:
    from lotdata.sources.formats.cmrc import parse_cmrc

    out = []
    for record in parse_cmrc(path):
        if getattr(record, "text", None):
            title = _zh(record.title) if record.title else None
            out.append(Document(source, str(record.source_id), _zh(record.text), title))
    return out


def _cft_documents() -> list[Document]:
    from lotdata.sources.formats.cmrc import parse_cmrc

    out = []
    for record in parse_cmrc(DATA / "cft_children_fairy_tale" / "children_fairy_tale" / "cft.zip"):
        if getattr(record, "text", None):
            member = str(record.path).rsplit(".", 1)[-1]  # human / auto
            title = _zh(record.title) if record.title else None
            out.append(Document(f"cft/{member}", str(record.source_id), _zh(record.text), title))
    return out


def _c3_documents(name: str) -> list[Document]:
    items = json.loads((DATA / "c3_mixed_genre" / "data" / f"c3-m-{name}.json").read_text("utf-8"))
    return [Document(f"c3/{name}", str(item[2]), _zh("".join(item[0]))) for item in items]


def _lot_documents() -> list[Document]:
    lines = (DATA / "lot_outgen_dev" / "dev.jsonl").read_text("utf-8").splitlines()
    return [Document("lot/dev", f"dev{i}", _zh(json.loads(line)["story"])) for i, line in enumerate(lines) if line]


def _unique(docs: list[Document], seen: set[str]) -> list[Document]:
    """Each story once: CMRC and CFT give one document per blank, so a story comes back with another word filled
    in; two documents that open or close with the same 30 characters are the same story."""
    out = []
    for doc in docs:
        text = "".join(doc.text.split())
        keys = {text, "<" + text[:30], ">" + text[-30:]}
        if text and not keys & seen:
            seen.update(keys)
            out.append(doc)
    return out


@lru_cache(maxsize=None)
def chinese_documents(split: str) -> tuple[Document, ...]:
    """tuning: CMRC 2017 validation (cloze, user) + C3-M train; held-out: CFT (human, auto) + C3-M dev, test + LOT
    OutGen dev. Exact duplicates once; a held-out document that is also a tuning one is left out."""
    cmrc = DATA / "cmrc2017_children_stories" / "validation"
    seen: set[str] = set()
    tuning = _unique(
        [
            *_cmrc_documents(cmrc / "cloze.valid.doc_query", "cmrc2017/cloze.valid"),
            *_cmrc_documents(cmrc / "user.valid.doc_query", "cmrc2017/user.valid"),
            *_c3_documents("train"),
        ],
        seen,
    )
    if split == "tuning":
        return tuple(tuning)
    return tuple(_unique([*_cft_documents(), *_c3_documents("dev"), *_c3_documents("test"), *_lot_documents()], seen))


@lru_cache(maxsize=None)
def _zh_sentences(text: str) -> tuple[str, ...]:
    from lotdata.text import split_sentences

    return tuple(s.strip() for s in split_sentences(text, "zh") if s.strip())


# ---------------------------------------------------------------- the rows of each kind


def stories(lang: str, split: str) -> list[Row]:
    """Five-sentence stories (module docstring)."""
    if lang == "en":
        rows: list[Row] = [
            {
                "id": f"{c.source}#{c.row}",
                "lang": "en",
                "sentences": [*c.context, c.right],
                "source": c.source,
            }
            for c in story_cloze_cases(split)
        ]
        half = "first" if split == "tuning" else "second"
        rows += [
            {"id": f"rocstories5k/{half}#{i}", "lang": "en", "text": text, "source": f"rocstories5k/{half}"}
            for i, text in enumerate(rocstories_5k(split), 1)
        ]
        return rows
    out = []
    for doc in chinese_documents(split):
        sentences = _zh_sentences(doc.text)
        if len(sentences) >= 5:
            row: Row = {"id": f"{doc.source}#{doc.id}", "lang": "zh", "sentences": list(sentences[:5])}
            if doc.title:
                row["title"] = doc.title
            row["source"] = doc.source
            out.append(row)
    return out


def cases(lang: str, split: str) -> list[Row]:
    """Story Cloze cases (module docstring)."""
    if lang == "en":
        return [
            {
                "id": f"{c.source}#{c.row}",
                "lang": "en",
                "context": list(c.context),
                "right_ending": c.right,
                "wrong_ending": c.wrong,
                "source": c.source,
            }
            for c in story_cloze_cases(split)
        ]
    out = []
    for doc in chinese_documents(split):
        sentences = _zh_sentences(doc.text)
        if len(sentences) >= 6:
            out.append(
                {
                    "id": f"{doc.source}#{doc.id}",
                    "lang": "zh",
                    "context": list(sentences[:4]),
                    "right_ending": sentences[4],
                    "wrong_ending": sentences[5],
                    "source": doc.source,
                }
            )
    return out


def rewrites(lang: str, split: str) -> list[Row]:
    """story_filter submissions: a published story as the rewrite of itself (module docstring)."""
    if lang == "en":
        half = "first" if split == "tuning" else "second"
        return [
            {"id": f"rocstories5k/{half}#{i}", "lang": "en", "text": t, "segment": t, "source": f"rocstories5k/{half}"}
            for i, t in enumerate(rocstories_5k(split), 1)
        ]
    return [
        {"id": f"{d.source}#{d.id}", "lang": "zh", "text": d.text, "segment": d.text, "source": d.source}
        for d in chinese_documents(split)
        if len(_zh_sentences(d.text)) >= 3
    ]


def candidates(lang: str, split: str, seed: int = 0) -> list[Row]:
    """ClozeT candidates: one real middle sentence per document (never the first; the last may be chosen, as LOT
    allows), the story's other sentences as context (module docstring). English: `candidates_en`."""
    if lang != "zh":
        return candidates_en(split, seed)
    rng = random.Random(f"{seed}:{split}")
    out = []
    for doc in chinese_documents(split):
        sentences = _zh_sentences(doc.text)
        if len(sentences) < 3:
            continue
        i = rng.randrange(1, len(sentences) - 1)  # a middle sentence
        out.append(
            {
                "id": f"{doc.source}#{doc.id}",
                "lang": "zh",
                "context": [*sentences[:i], *sentences[i + 1 :]],
                "original": "",
                "candidate": sentences[i],
                "source": doc.source,
            }
        )
    return out


def candidates_en(split: str, seed: int = 0) -> list[Row]:
    """English ClozeT candidates: one of sentences 2 to 4 of each five-sentence story (`stories`), chosen by a fixed
    seed, the other four as context."""
    rng = random.Random(f"{seed}:candidates:en:{split}")
    out = []
    for r in stories("en", split):
        sentences = r["sentences"] if r.get("sentences") else _en_sentences(r["text"])
        if len(sentences) != 5:
            continue
        i = rng.randrange(1, 4)
        context = [*sentences[:i], *sentences[i + 1 :]]
        row = {"id": r["id"], "lang": "en", "context": context, "original": "", "candidate": sentences[i]}
        out.append({**row, "source": r["source"]})
    return out


def pairs(lang: str, split: str, seed: int = 0) -> list[Row]:
    """A written candidate beside the sentence it replaces (LOT 2.2d: not the original with antonyms swapped): the
    original is a real middle sentence, the candidate the story's next sentence (a real sentence that is not a
    rewrite of it); `context`: the story's other sentences. One per story: Chinese documents, English stories."""
    rng = random.Random(f"{seed}:pairs:{lang}:{split}")
    if lang == "zh":
        stories_ = [_zh_sentences(d.text) for d in chinese_documents(split)]
        ids = [f"{d.source}#{d.id}" for d in chinese_documents(split)]
        sources = [d.source for d in chinese_documents(split)]
    else:
        rows_ = stories("en", split)
        stories_ = [tuple(r["sentences"]) if r.get("sentences") else tuple(_en_sentences(r["text"])) for r in rows_]
        ids, sources = [r["id"] for r in rows_], [r["source"] for r in rows_]
    out = []
    for sentences, id_, source in zip(stories_, ids, sources):
        if len(sentences) < 4:
            continue
        i = rng.randrange(1, len(sentences) - 2)
        out.append(
            {
                "id": id_,
                "lang": lang,
                "context": [*sentences[:i], *sentences[i + 1 :]],
                "original": sentences[i],
                "candidate": sentences[i + 1],
                "source": source,
            }
        )
    return out


def _en_sentences(text: str) -> list[str]:
    from lotdata.text import split_sentences

    return [s.strip() for s in split_sentences(text, "en") if s.strip()]


KIND_ROWS: dict[str, Callable[[str, str], list[Row]]] = {
    "story": stories,
    "case": cases,
    "rewrite": rewrites,
    "candidate": candidates,
    "pair": pairs,
}


def rows(kind: str, lang: str, split: str) -> list[Row]:
    """The real rows of `kind` in `lang`'s `split` set."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: one of {SPLITS}")
    return KIND_ROWS[kind](lang, split)


def sizes() -> dict[tuple[str, str, str], int]:
    return {(k, lang, s): len(rows(k, lang, s)) for k in KINDS for lang in LANGS for s in SPLITS}


if __name__ == "__main__":
    if not available():
        raise SystemExit(f"no shared data at {DATA}")
    for (kind, lang, split), n in sizes().items():
        print(f"{kind:10} {lang} {split:9} {n:6}  {SET_NAMES[(lang, split)]}")
