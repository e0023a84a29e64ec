"""sct_write (ROCStories 4.2): writers see a story's first four sentences and write a right and a wrong ending. The
job's checks (each ending names a character of the four sentences, the endings differ, one sentence of bounded
length, no quotations, no slang, language) flag a case. A flag never drops it: a case a rule of level "refuse" flags
waits for review (`lotdata annotate push review --input` this pull's folder: a reviewer accepts it, edits it, or sends
it back to its writer, whose new version comes back through `revisions.jsonl`); a "warn" flag is only shown. The cases
no refuse flag holds are assembled into a ClozeT dataset (four sentences + <mask>, the two endings in a balanced order)
for `cloze_verify` (three raters, the SCT rule), whose kept cases `lotdata annotate sct-csv` writes in the published
Story Cloze csv layout; the cases a reviewer accepts follow in the review's own `clozet/`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.annotate.checks import ENDING_RULES, CheckOptions, run_checks
from lotdata.annotate.jobs.base import (
    Annotation,
    JobSpec,
    Output,
    Row,
    Task,
    by_uid,
    load_stories,
    opaque_uid,
    read_revisions,
    register_job,
    textarea,
)
from lotdata.annotate.jobs.clozet_write import balance_labels
from lotdata.annotate.template import InvalidResult
from lotdata.schema import MASK_TOKENS, SPLITS
from lotdata.tasks.storycloze import ANSWER_COLUMN, CONTEXT_COLUMNS, ENDING_COLUMNS
from lotdata.text import join_sentences, normalize_text, split_sentences


def load(path: Path, splits: Sequence[str] | None) -> list[Row]:
    """Stories of five sentences or more (approved story_write stories, ROCStories...): the first four are the
    context; the stories are shared among `splits` (default val,test) in seeded order. Or the `revisions.jsonl` of a
    review pull: refused cases back to their writers."""
    from lotdata.datasets.splits import story_order_key

    if path.suffix == ".jsonl":
        return load_revisions(path)
    splits = list(splits or ("val", "test"))
    unknown = [s for s in splits if s not in SPLITS]
    if unknown:
        raise ValueError(f"unknown split(s) {unknown}; splits: {', '.join(SPLITS)}")
    stories = [s for s in load_stories(path) if s["status"] != "rejected" and len(s["sentences"]) >= 5]
    rank = {s["story_id"]: i for i, s in enumerate(sorted(stories, key=lambda s: story_order_key(s["story_id"], 0)))}
    return [{**s, "split": splits[rank[s["story_id"]] % len(splits)]} for s in stories]


REVISION_FIELDS = ("story_id", "split", "lang", "four", "writer", "feedback", "version")


def load_revisions(path: Path) -> list[Row]:
    """The refused work of a review pull (`revisions.jsonl`), each back to its writer as a new version."""
    return read_revisions(path, REVISION_FIELDS, "sct_write")


FEEDBACK = {
    "en": (
        "Sent back to you ({writer}) by the reviewer: {comment}",
        "Your previous endings: right: {right} / wrong: {wrong}",
    ),
    "zh": ("审核人退回了你（{writer}）的结尾：{comment}", "你上次写的结尾：正确：{right} / 错误：{wrong}"),
}


def to_tasks(rows: list[Row], *, seed: int = 0, lang: str = "en") -> list[Task]:
    tasks = []
    for row in rows:
        revision = "four" in row  # a refused case back to its writer
        context = list(row["four"] if revision else row["sentences"][:4])
        version = int(row.get("version") or 1)
        data = {
            "uid": opaque_uid("sct", row["story_id"], version) if revision else opaque_uid("sct", row["story_id"]),
            "context": "\n".join(f"{k}. {s}" for k, s in enumerate(context, 1)),
            "feedback": _feedback(row, lang) if revision else "",
        }
        hidden = {
            "story_id": row["story_id"],
            "split": row["split"],
            "lang": row["lang"],
            "four": context,
            "original_ending": row.get("original_ending") if revision else row["sentences"][4],
            "license": row.get("license"),
            "version": version,
        }
        if revision:
            hidden["writer"] = row["writer"]  # per rater, the task goes to its writer only
        tasks.append({"data": data, "hidden": hidden})
    return tasks


def _feedback(row: Row, lang: str) -> str:
    said, before = FEEDBACK.get(lang, FEEDBACK["en"])
    lines = [said.format(comment=row["feedback"], writer=row["writer"])]
    if row.get("previous"):
        lines.append(before.format(**row["previous"]))
        if row["previous"].get("model_confidence") is not None:
            saw = SAW_THROUGH.get(lang, SAW_THROUGH["en"])
            lines.append(saw.format(c=row["previous"]["model_confidence"]))
    return "\n".join(lines)


#: the line a writer's revision task shows when a model saw through her previous endings (`model_easy`)
SAW_THROUGH = {
    "en": "A model that never read the story picked your right ending with {c:.0%} confidence: the endings alone gave "
    "the answer away (a length, a word, a tone). Write endings that only the story tells apart.",
    "zh": "一个没读故事的模型以 {c:.0%} 的把握选中了你的正确结尾：只看结尾就能猜出答案（长短、用词、语气）。"
    "请写只有读了故事才能分辨的结尾。",
}


def check(values: dict[str, Any], data: Mapping[str, Any], hidden: Mapping[str, Any]) -> dict[str, Any]:
    lang = hidden.get("lang", "en")
    right, wrong = (normalize_text(values.get(k, ""), lang).strip() for k in ("right_ending", "wrong_ending"))
    if not right or not wrong:
        raise InvalidResult("both endings are needed")
    return {"right_ending": right, "wrong_ending": wrong}


def case_rows(annotations: list[Annotation]) -> list[Row]:
    """Every written case (each version of a story its own case), in the order they were written per task."""
    cases = []
    for uid, anns in sorted(by_uid(annotations).items()):
        for ann in anns:
            h = ann.hidden
            cases.append(
                {
                    "id": f"{h['story_id']}-{ann.annotation_id}",
                    "story_id": h["story_id"],
                    "split": h["split"],
                    "lang": h.get("lang", "en"),
                    "context": list(h["four"]),
                    "right_ending": ann.values["right_ending"],
                    "wrong_ending": ann.values["wrong_ending"],
                    "writer": ann.annotator,
                    "annotation_id": str(ann.annotation_id),
                    "version": int(h.get("version") or 1),
                    "created_at": ann.created_at,
                    "license": h.get("license"),
                }
            )
    return cases


def check_cases(cases: list[Row]) -> list[dict[str, Any]]:
    """The flags of the job's checks on `cases` (id, rule, detail, level), each language on its own."""
    flags = []
    for lang in sorted({c["lang"] for c in cases}):
        flags += run_checks([c for c in cases if c["lang"] == lang], ENDING_RULES, CheckOptions(lang=lang)).flags
    return flags


#: a pair an ending-only model gets right with at least this confidence without reading the story is `model_easy`
EASY_CONFIDENCE = 0.9
#: the fewest cases a pull trains its own ending-only model on (cross-fitted) when no --model is given
MODEL_MIN_PAIRS = 50
MODEL_EASY = "model_easy"
MODEL_EASY_DETAIL = {
    "en": "a model that never read the story picks the right ending with {c:.0%} confidence ({how})",
    "zh": "一个没读故事的模型以 {c:.0%} 的把握选中了正确结尾（{how}）",
}


def model_easy(
    cases: list[Row], model: str | None = None, easy_confidence: float = EASY_CONFIDENCE, seed: int = 0
) -> dict[str, Any]:
    """Score each case's (right, wrong) pair with an ending-only model (Schwartz et al. 2017: the endings alone give
    the answer away): `model` a folder `lotdata quality endings` (or an earlier pull's `ending_model/`) wrote; None:
    a model trained on these cases themselves, each case scored by one fitted on the folds without its story (needs
    MODEL_MIN_PAIRS cases and scikit-learn); "off": none. A case scored at `easy_confidence` or more is flagged
    `model_easy` (level refuse: it goes to review with the reason, never dropped). Returns the flags, each case's
    confidence, the model trained on all the cases (for the next round) and the stats."""
    from lotdata.quality.model import cross_confidence, load_ending, train_ending

    pairs = [(c["right_ending"], c["wrong_ending"]) for c in cases]
    why = _not_scored(cases, model)
    if why:
        return {"flags": [], "confidence": {}, "model": None, "stats": {"scored": 0, "why": why}}
    fitted = None
    if model is not None:
        confidence, how = load_ending(model).confidence(pairs), f"model {Path(model).name}"
    else:
        keys = [str(c.get("story_id") or c["id"]) for c in cases]
        confidence = cross_confidence(pairs, keys, folds=10, seed=seed)
        fitted, how = train_ending(pairs, seed=seed), "trained on the other cases of this pull"
    flags = [
        {
            "id": c["id"],
            "rule": MODEL_EASY,
            "detail": MODEL_EASY_DETAIL.get(c.get("lang") or "en", MODEL_EASY_DETAIL["en"]).format(c=conf, how=how),
            "level": "refuse",
        }
        for c, conf in zip(cases, confidence)
        if conf >= easy_confidence
    ]
    stats = {
        "scored": len(cases),
        "model_easy": len(flags),
        "rate": len(flags) / len(cases),
        "ending_only_accuracy": sum(c > 0.5 for c in confidence) / len(cases),
        "easy_confidence": easy_confidence,
        "model": how,
    }
    ids = [c["id"] for c in cases]
    return {"flags": flags, "confidence": dict(zip(ids, confidence)), "model": fitted, "stats": stats}


def _not_scored(cases: list[Row], model: str | None) -> str | None:
    """Why no model scores `cases` (None: one does)."""
    import importlib.util

    if model == "off":
        return "off"
    if not cases:
        return "no case"
    if model is None and len(cases) < MODEL_MIN_PAIRS:
        return f"{len(cases)} cases, fewer than {MODEL_MIN_PAIRS} to train on (give --model)"
    if importlib.util.find_spec("sklearn") is None:
        return "scikit-learn is not installed (pip install 'lotdata[audit]')"
    return None


@dataclass(frozen=True)
class ModelEasyCheck:
    """`annotate check sct_write --model`: the model_easy flags of a file's cases (a `checks.FileCheck`)."""

    model: str
    easy_confidence: float = EASY_CONFIDENCE
    name: str = MODEL_EASY

    def __call__(self, rows: Sequence[Row]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        cases = [{**r, "id": str(r["id"])} for r in rows if r.get("right_ending") and r.get("wrong_ending")]
        easy = model_easy(cases, self.model, self.easy_confidence)
        return easy["flags"], easy["stats"]


def assemble(
    annotations: list[Annotation], *, model: str | None = None, easy_confidence: float = EASY_CONFIDENCE
) -> dict[str, Any]:
    """Every written case with its flags; a case that a rule of level "refuse" flags waits for review (never
    dropped); the others (the last one written per story) as ClozeT rows, their "warn" flags kept in cases.jsonl.
    An ending-only model scores each pair (`model_easy`): a pair it gets right with `easy_confidence` or more without
    the story waits for review too, and its writer's revision task says a model saw through her endings."""
    cases = case_rows(annotations)
    flags = check_cases(cases)
    easy = model_easy(cases, model, easy_confidence)
    flags += easy["flags"]
    refusing = {f["id"] for f in flags if f.get("level", "refuse") == "refuse"}
    chosen: dict[str, Row] = {}
    for case in cases:
        case["flags"] = sorted({f["rule"] for f in flags if f["id"] == case["id"]})
        case["to_review"] = case["id"] in refusing
        case["model_confidence"] = easy["confidence"].get(case["id"])
    for case in sorted(cases, key=_written_order):  # the latest version of a story that no refuse flag holds
        if not case["to_review"]:
            chosen[case["story_id"]] = case
    examples = clozet_examples(sorted(chosen.values(), key=lambda c: c["story_id"]))
    stats = {
        "cases": len(cases),
        "flagged": len({f["id"] for f in flags}),
        "to_review": sum(c["to_review"] for c in cases),
        "kept": len(examples),
        "per_rule": dict(Counter(f["rule"] for f in flags)),
        "per_level": dict(Counter(f.get("level", "refuse") for f in flags)),
        MODEL_EASY: easy["stats"],
    }
    return {"clozet": examples, "cases": cases, "flags": flags, "stats": stats, "ending_model": easy["model"]}


def _written_order(case: Row) -> tuple:
    return (case["version"], case["created_at"], int(case["annotation_id"]) if case["annotation_id"].isdigit() else 0)


def clozet_examples(cases: list[Row]) -> list[Row]:
    """ClozeT rows (four sentences + <mask>, the endings in a balanced order) of cases, one per story."""
    mask = MASK_TOKENS["clozet"]
    examples = [
        {
            "example_id": f"sct-{c['story_id']}",
            "story_id": c["story_id"],
            "split": c["split"],
            "context": join_sentences([*c["context"], mask], c["lang"]),
            "_right": c["right_ending"],
            "_wrong": c["wrong_ending"],
            "mask_sentence_index": 4,
            "annotator": c["writer"],
            "annotation_id": c["annotation_id"],
            "lang": c["lang"],
        }
        for c in cases
    ]
    return balance_labels(examples)


def write(assembled: dict[str, Any], output: Output) -> dict[str, Any]:
    """`cases.jsonl` (every case with its flags and whether it waits for review), `flags.parquet` (id, rule, detail,
    level) and the ClozeT dataset `clozet/` of the cases no refuse flag holds."""
    from lotdata.io import write_jsonl, write_parquet
    from lotdata.schema import CHECK_FLAGS, table_from_rows

    output.folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(assembled["cases"], output.folder / "cases.jsonl")
    write_parquet(table_from_rows(assembled["flags"], CHECK_FLAGS), output.folder / "flags.parquet")
    if assembled.get("ending_model") is not None:  # the data so far, for `annotate check sct_write --model`
        assembled["ending_model"].save(output.folder / "ending_model")
    return {
        "clozet": output.dataset("clozet", assembled["clozet"]),
        "flagged": assembled["stats"]["flagged"],
        "to_review": assembled["stats"]["to_review"],
    }


STORYCLOZE_HEADER = ["InputStoryid", *CONTEXT_COLUMNS, *ENDING_COLUMNS, ANSWER_COLUMN]


def write_storycloze(rows: Sequence[dict[str, Any]], path: str | Path) -> Path:
    """ClozeT rows of four-sentence contexts (`sct_write` after `cloze_verify`) as a Story Cloze Test csv, the published
    layout (`read_storycloze` reads it back). A row whose context is not four sentences and a mask is an error."""
    import csv
    import io

    from lotdata.io import write_text

    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(STORYCLOZE_HEADER)
    mask = MASK_TOKENS["clozet"]
    for row in rows:
        before, found, after = row["context"].partition(mask)
        sentences = _context_sentences(before.strip(), row.get("lang") or "en")
        if not found or after.strip() or len(sentences) != len(CONTEXT_COLUMNS):
            raise ValueError(
                f"example {row['example_id']}: the context is not {len(CONTEXT_COLUMNS)} sentences and a "
                f"final {mask} ({len(sentences)} sentences)"
            )
        story_id = str(row["example_id"]).removeprefix("sct-").removeprefix(f"storycloze-{row.get('split')}-")
        writer.writerow([story_id, *sentences, *row["candidates"], int(row["label"]) + 1])
    return write_text(out.getvalue(), path)


def _context_sentences(context: str, lang: str) -> list[str]:
    """The four sentences of a case's context: the splitter the stories were cut with, and where it finds another
    number (a real case's sentence without its full stop, or one starting in lower case after an abbreviation),
    `split_exactly_en`, which recovers the four columns of every published Story Cloze case."""
    from lotdata.text.story_split import split_exactly_en

    sentences = split_sentences(context, lang)
    if len(sentences) != len(CONTEXT_COLUMNS) and lang == "en":
        sentences = split_exactly_en(context, len(CONTEXT_COLUMNS)) or sentences
    return sentences


DEMO = {
    "en": [
        "Karen wanted to surprise her husband.",
        "She saved money for months.",
        "She bought him a guitar.",
        "She hid it behind the couch.",
        "He cried with joy when he found it.",
    ]
}


def demo_rows() -> list[Row]:
    return [
        {
            "story_id": f"demo{i}",
            "split": split,
            "lang": "en",
            "sentences": DEMO["en"],
            "license": "CC0",
            "status": "raw",
        }
        for i, split in enumerate(("val", "test"))
    ]


def simulate(task: Task, rater: int) -> list[dict[str, Any]]:
    return [
        textarea("right_ending", "context", "Her husband cried with joy when he found it."),
        textarea("wrong_ending", "context", "Karen forgot about the guitar and sold the couch."),
    ]


SPEC = register_job(
    JobSpec(
        name="sct_write",
        order=10,
        summary="write a right and a wrong ending to four sentences (Story Cloze Test, ROCStories 4.2)",
        input_help="stories Parquet of five-sentence stories",
        load=load,
        to_tasks=to_tasks,
        check=check,
        votes=lambda v: [("written", "yes")],
        assemble=assemble,
        assemble_options=("model", "easy_confidence"),
        write=write,
        demo_rows=demo_rows,
        simulate=simulate,
        templates={"en": "en/sct_write", "zh": "sct_write"},
        lang="en",
        default_splits=("val", "test"),
        checks=ENDING_RULES,
        # one story, one case: with a quiz gate (a project per writer) each story goes to --raters writers, not to all
        case_key=lambda hidden: hidden.get("story_id"),
        descriptions={
            "en": "Ending writing (Story Cloze Test): read the first four sentences of a story, then write a right and a wrong fifth sentence. One task per story.",
            "zh": "结尾写作（Story Cloze 测试题）：读故事的前四句，写一个正确结尾和一个错误结尾。每个故事一个任务。",
        },
    )
)
