"""ClozeT: pick the right one of two candidate sentences for a masked position (LOT Section 3.1).

Its examples are written by people (the wrong candidate is a human rewrite), so it has no automatic
builder: datasets come from LOT jsonl (`lotdata import lot`), the Story Cloze Test csv or Label Studio.

`build_clozet` makes ClozeT splits from the written cases (LOT Table 3: 644 / 294 / 294).
LOT's annotators wrote 1,232 ClozeT cases and LOT split them; `build_clozet` pools the cases a `clozet_write` job (or LOT ClozeT jsonl) gives, whatever split they came with, and splits them again,
grouped by story and seeded, as every builder does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from lotdata.datasets.folder import BuildReport, load_clozet, split_warnings, write_dataset
from lotdata.datasets.lotformat import lot_row_base
from lotdata.datasets.registry import TaskSpec, register_task
from lotdata.datasets.splits import SplitSpec, parse_split_spec
from lotdata.datasets.stats import Vocabulary, avg, input_stats
from lotdata.errors import InputError
from lotdata.io import check_output_dir
from lotdata.paths import check_outputs
from lotdata.schema import CLOZET, MASK_TOKENS, SPLITS
from lotdata.tasks.build import build_tokenizer, check_sizes, split_examples
from lotdata.text import join_sentences

TASK = "clozet"
MASK = MASK_TOKENS[TASK]


def to_lot(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "story": row["context"],
        "plot0": row["candidates"][0],
        "plot1": row["candidates"][1],
        "label": str(row["label"]),
    }


def from_lot(record: Mapping[str, Any], *, split: str, index: int) -> dict[str, Any]:
    if record["story"].count(MASK) != 1:
        raise ValueError(f"story must hold exactly one {MASK}")
    if not isinstance(record["label"], str) or record["label"] not in ("0", "1"):
        raise ValueError(f"label must be the string '0' or '1', got {record['label']!r}")
    label = int(record["label"])
    candidates = [record["plot0"], record["plot1"]]
    full = record["story"].replace(MASK, candidates[label])
    base = lot_row_base(TASK, record, split=split, index=index, full_text=full)
    return {
        "example_id": base["example_id"],
        "story_id": base["story_id"],
        "split": split,
        "context": record["story"],
        "candidates": candidates,
        "label": label,
        "mask_sentence_index": None,
        "annotator": None,
        "annotation_id": None,
        "lang": base["lang"],
    }


def stats(rows: list[dict[str, Any]], vocab: Vocabulary) -> dict[str, Any]:
    result = input_stats([(r["context"].replace(MASK, ""), r["lang"]) for r in rows], vocab)
    result["avg_words_candidate"] = avg([len(vocab.words_of(c, r["lang"])) for r in rows for c in r["candidates"]])
    return result


def parse_label(label: Any) -> Any:
    """A predicted ClozeT label as scored: 0 / 1 or "0" / "1" (LOT writes strings); ValueError otherwise."""
    if isinstance(label, bool) or str(label) not in ("0", "1"):
        raise ValueError(f"ClozeT label {label!r} is not 0 or 1 (plot0 / plot1)")
    return label


def demo_examples(stories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mechanical ClozeT rows for tests and demos, not a benchmark: the middle sentence of each story is
    masked, the wrong candidate is a sentence of the next story (LOT's wrong candidates are written by people)."""
    usable = [s for s in stories if len(s["sentences"]) >= 3]
    rows = []
    for i, story in enumerate(usable):
        sentences, at = list(story["sentences"]), len(story["sentences"]) // 2
        other = usable[(i + 1) % len(usable)]["sentences"]
        right, wrong = sentences[at], other[len(other) // 2]
        label = i % 2
        rows.append(
            {
                "example_id": f"{TASK}-{story['story_id']}-0",
                "story_id": story["story_id"],
                "context": join_sentences(sentences[:at] + [MASK] + sentences[at + 1 :], story["lang"]),
                "candidates": [wrong, right] if label else [right, wrong],
                "label": label,
                "mask_sentence_index": at,
                "annotator": None,
                "annotation_id": None,
                "lang": story["lang"],
            }
        )
    return rows


# ---------------------------------------------------------------- splits from the written cases

#: LOT's ClozeT sizes (Table 3): 644 / 294 / 294 from the written cases
CLOZET_SPLIT = "val=294,test=294"


def _case_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".parquet", ".jsonl"))


def build_clozet(
    cases: str | Path | Mapping[str, list[dict[str, Any]]],
    out: str | Path,
    *,
    split: str | SplitSpec | None = CLOZET_SPLIT,
    seed: int = 0,
    n: int | None = None,
    lot_jsonl: bool = True,
    tokenizer: str | None = None,
    command: str | None = None,
    card: bool = True,
) -> BuildReport:
    """ClozeT splits from the written cases (LOT: 644 / 294 / 294): every case of `cases` (a ClozeT
    dataset folder, e.g. assembled from `clozet_write`, or LOT ClozeT jsonl; any splits) pooled and split
    again, grouped by story, seeded; `split` gives val/test sizes or ratios, train takes the rest."""
    check_sizes(n, None)
    spec = split if isinstance(split, SplitSpec) else parse_split_spec(split or CLOZET_SPLIT)
    check_outputs({"--out": out}, {"--cases": None if isinstance(cases, Mapping) else cases})
    check_output_dir(out)
    notes: list[str] = []
    by_given = cases if isinstance(cases, Mapping) else load_clozet(cases, notes)
    pool = [row for s in SPLITS for row in by_given.get(s, [])]
    if not pool:
        raise InputError(
            "no ClozeT cases in the input", path=str(cases) if not isinstance(cases, Mapping) else "<rows>"
        )
    by_split = split_examples(pool, spec, seed, n)
    stats = {
        "cases_in": len(pool),
        "cases_in_by_split": {s: len(by_given.get(s, [])) for s in SPLITS},
        "stories": len({row["story_id"] for row in pool}),
        "examples_written": sum(len(v) for v in by_split.values()),
    }
    inputs = [] if isinstance(cases, Mapping) else _case_files(Path(cases))
    rows = write_dataset(
        out,
        "clozet",
        by_split,
        command=command or "lotdata build clozet",
        params={"task": "clozet", "n": n, "seed": seed, "split": str(spec)},
        inputs=inputs,
        stats=stats,
        lot_jsonl=lot_jsonl,
        extra={
            "languages": sorted({r["lang"] for r in pool}),
            "cases": None if isinstance(cases, Mapping) else str(cases),
        },
        card=card,
        tokenizer=build_tokenizer(tokenizer),  # the card's statistics count words
    )
    return BuildReport(
        task="clozet",
        out=Path(out),
        rows_per_split=rows,
        stats=stats,
        warnings=split_warnings(by_split, spec, None),
        notes=notes,
    )


# ---------------------------------------------------------------- the task record

SPEC = register_task(
    TaskSpec(
        name=TASK,
        order=1,  # LOT's order of the tasks
        schema=CLOZET,
        mask_token=MASK,
        lot_fields=(("story", "plot0", "plot1", "label"), ()),
        to_lot=to_lot,
        from_lot=from_lot,
        stats=stats,
        text_fields=("context", "candidates"),
        metric_family="understanding",
        prediction_field="label",
        prediction_type=str,
        card_category="multiple-choice",
        card_description="ClozeT: pick the right one of two candidate sentences for the masked position",
        card_limitations=(
            "The wrong candidates are written by people; check them for artifacts (`lotdata audit-bias`).",
        ),
        demo_examples=demo_examples,
        lot_metrics=("accuracy",),
        parse_prediction=parse_label,
        choice_shape="candidates",
        label_base=0,
        case_builder=build_clozet,
    )
)
