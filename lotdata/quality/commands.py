"""`lotdata quality train` and `lotdata quality score` as records (`lotdata.command`): a story-quality classifier
learnt from raters' story_filter decisions (issue 39, item 3), and the scores it gives a stories table."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.command import Command, Output, Run, register_command
from lotdata.stage import param

SCORE_COLUMN = "quality_score"
SCORES_KIND = "quality-scores"


def stories_file(path: str | Path) -> Path:
    """A stories Parquet file, or a folder that holds one (`stories.parquet`: a clean folder, a story_filter pull)."""
    path = Path(path)
    return path / "stories.parquet" if path.is_dir() else path


def read_rows(paths: list[str]) -> list[dict[str, Any]]:
    from lotdata.errors import InputError
    from lotdata.io import read_parquet

    rows = []
    for path in paths:
        table = read_parquet(stories_file(path))
        missing = [c for c in ("story_id", "text") if c not in table.column_names]
        if missing:
            raise InputError(f"not a stories table: no {', '.join(missing)} column", path=str(path))
        rows += table.to_pylist()
    return rows


# ---------------------------------------------------------------------------------------------
# lotdata quality train


@dataclass(frozen=True, kw_only=True)
class QualityTrainParams:
    stories: list[str] = param(
        help="stories tables with a `status` (a story_filter pull: accepted, rewritten, rejected), or their folders.",
        path="input",
    )
    out: str = param(
        help="Model folder to write (model.joblib, manifest.json with the threshold and held-out figures)."
    )
    keep_recall: float = param(
        0.95,
        "The proposed threshold keeps at least this share of the stories raters kept (out-of-fold on the training part).",
        check="share",
    )
    held_out: float = param(
        0.2, "Share of the decisions held out (by story id, seeded) for precision/recall.", check="share"
    )
    seed: int = param(0, "Seed of the held-out split and the folds.")


def _train(run: Run) -> dict[str, Any]:
    from lotdata.quality.model import train_quality

    p: QualityTrainParams = run.params
    model = train_quality(read_rows(p.stories), seed=p.seed, held_out_share=p.held_out, keep_recall=p.keep_recall)
    model.info.update({"command": "quality train", "inputs": [str(s) for s in p.stories]})
    model.save(run.out("--out"))
    held = model.info["held_out"]
    return {
        "trained on": model.info["train_stories"],
        "held out": model.info["held_out_stories"],
        "threshold": round(model.threshold, 4),
        "held-out reject precision": held["reject_precision"],
        "held-out reject recall": held["reject_recall"],
        "held-out kept lost": held["kept_lost"],
        "held-out share skipped": held["share_skipped"],
    }


def decision_rows(n: int) -> list[dict[str, Any]]:
    """Stories with a rater's decision for samples and tests: kept ones tell a story, rejected ones are minutes of a meeting."""
    from lotdata.io import story_id_for

    kept = "Tom found a lost puppy in the rain. He carried it home and dried it. The puppy slept on his bed. {i}"
    rejected = (
        "The committee reviewed the quarterly budget figures. The revised tax schedule was approved in session {i}."
    )
    rows = []
    for i in range(n):
        for text, status in ((kept.format(i=i), "accepted"), (rejected.format(i=i), "rejected")):
            rows.append({"story_id": story_id_for(text), "text": text, "title": None, "status": status, "lang": "en"})
    return rows


def _write_rows(rows: list[dict[str, Any]], path: Path) -> Path:
    import pyarrow as pa

    from lotdata.io import write_parquet

    return write_parquet(pa.Table.from_pylist(rows), path)


def _train_sample(folder: Path) -> list[str]:
    stories = _write_rows(decision_rows(40), folder / "decisions.parquet")
    return [str(stories), "--out", str(folder / "quality-model")]


QUALITY_TRAIN = register_command(
    Command(
        name="quality train",
        params=QualityTrainParams,
        execute=_train,
        inputs=lambda p: {"STORIES": [str(stories_file(s)) for s in p.stories]},
        outputs=lambda p: [Output("--out", Path(p.out), kind="quality-model")],
        summary="""Learn a story-quality classifier from raters' decisions (story_filter: kept or rejected).

A linear model (TF-IDF of character 1-3-grams, logistic regression) that runs on one core. It proposes the
threshold below which a story need not reach a rater (it keeps --keep-recall of the stories raters kept) and reports
precision and recall of that rejection on held-out decisions. Pass its folder to `quality score` or
`clean --quality-model`.""",
        arguments=("stories",),
        metavars={"stories": "STORIES"},
        sample=_train_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# lotdata quality score


@dataclass(frozen=True, kw_only=True)
class QualityScoreParams:
    stories: str = param(help="stories table (or a folder holding stories.parquet) to score.", path="input")
    model: str = param(help="Model folder written by `lotdata quality train`.", path="input")
    out: str = param(help="Folder for stories.parquet (with a quality_score column) and manifest.json (the threshold).")
    threshold: float | None = param(None, "Threshold written to the manifest (default: the one the model proposes).")


def add_scores(rows: list[dict[str, Any]], model_folder: str | Path) -> tuple[list[dict[str, Any]], Any]:
    """`rows`, each with its `quality_score` (P(a rater keeps it)); and the model."""
    from lotdata.quality.model import load_quality, story_text

    model = load_quality(model_folder)
    scores = model.score([story_text(r) for r in rows])
    return [{**r, SCORE_COLUMN: s} for r, s in zip(rows, scores)], model


def _score(run: Run) -> dict[str, Any]:
    import pyarrow as pa

    from lotdata.io import read_parquet, write_manifest, write_parquet

    p: QualityScoreParams = run.params
    table = read_parquet(stories_file(p.stories))
    scored, model = add_scores(table.to_pylist(), p.model)
    threshold = model.threshold if p.threshold is None else p.threshold
    out = run.out("--out")
    out.mkdir(parents=True, exist_ok=True)
    column = pa.array([r[SCORE_COLUMN] for r in scored], pa.float64())
    write_parquet(table.append_column(SCORE_COLUMN, column), out / "stories.parquet")
    below = sum(r[SCORE_COLUMN] < threshold for r in scored)
    stats = {"stories": len(scored), "below_threshold": below}
    write_manifest(
        out,
        task="stories",
        kind=SCORES_KIND,
        command="quality score",
        params={"model": p.model, "threshold": p.threshold},
        inputs=[stories_file(p.stories)],
        files={"stories": out / "stories.parquet"},
        stats=stats,
        extra={
            "score_column": SCORE_COLUMN,
            "threshold": threshold,
            "score_meaning": "P(a rater keeps the story), from the raters' story_filter decisions",
            "model_held_out": model.info.get("held_out"),
        },
    )
    return {**stats, "threshold": round(threshold, 4)}


def _score_sample(folder: Path) -> list[str]:
    from lotdata.quality.model import train_quality

    train_quality(decision_rows(40)).save(folder / "quality-model")
    stories = _write_rows(decision_rows(3), folder / "stories.parquet")
    return [str(stories), "--model", str(folder / "quality-model"), "--out", str(folder / "scored")]


QUALITY_SCORE = register_command(
    Command(
        name="quality score",
        params=QualityScoreParams,
        execute=_score,
        inputs=lambda p: {"STORIES": str(stories_file(p.stories)), "--model": p.model},
        outputs=lambda p: [Output("--out", Path(p.out), kind=SCORES_KIND)],
        summary="Score a stories table with a `quality train` model: a quality_score column, the threshold in the manifest.",
        arguments=("stories",),
        metavars={"stories": "STORIES"},
        sample=_score_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# lotdata quality endings


@dataclass(frozen=True, kw_only=True)
class QualityEndingsParams:
    pairs: list[str] = param(
        help="Labelled Story Cloze csv files, or sct_write pull folders (cases.jsonl): the right and wrong endings.",
        path="input",
    )
    out: str = param(help="Model folder to write (model.joblib, manifest.json).")
    seed: int = param(0, "Seed of the model.")


#: the keys of an sct_write pull folder's case that `quality endings` learns from
ENDING_KEYS = ("right_ending", "wrong_ending")


def ending_pairs(path: str | Path) -> list[tuple[str, str]]:
    """(right, wrong) endings of a labelled Story Cloze csv, or of an sct_write pull folder's cases.jsonl."""
    from lotdata.errors import InputError
    from lotdata.io import iter_jsonl
    from lotdata.tasks.storycloze import read_storycloze

    path = Path(path)
    if path.is_dir():
        if not (path / "cases.jsonl").exists():
            raise InputError("expected an sct_write pull folder (cases.jsonl)", path=str(path))
        cases = path / "cases.jsonl"
        pairs = []
        for line, case in iter_jsonl(cases):
            if not isinstance(case, dict) or not all(isinstance(case.get(k), str) for k in ENDING_KEYS):
                raise InputError(f"expected a case with {' and '.join(ENDING_KEYS)} (text)", path=str(cases), row=line)
            pairs.append((case["right_ending"], case["wrong_ending"]))
        return pairs
    rows, _ = read_storycloze(path, "val")
    return [(r["candidates"][r["label"]], r["candidates"][1 - r["label"]]) for r in rows]


def _endings(run: Run) -> dict[str, Any]:
    from lotdata.quality.model import train_ending

    p: QualityEndingsParams = run.params
    pairs = [pair for path in p.pairs for pair in ending_pairs(path)]
    model = train_ending(pairs, seed=p.seed)
    model.info.update({"command": "quality endings", "inputs": [str(x) for x in p.pairs]})
    model.save(run.out("--out"))
    return {"pairs": len(pairs), "model": str(run.final("--out"))}


def _endings_sample(folder: Path) -> list[str]:
    header = "InputStoryid,InputSentence1,InputSentence2,InputSentence3,InputSentence4,"
    header += "RandomFifthSentenceQuiz1,RandomFifthSentenceQuiz2,AnswerRightEnding\n"
    lines = []
    for i in range(20):  # the right ending first in even rows, second in odd ones
        right, wrong = f"He found it {i}.", f"He hated dogs {i}."
        endings, answer = ((right, wrong), 1) if i % 2 == 0 else ((wrong, right), 2)
        lines.append(
            f"s{i},Tom had a dog {i}.,It was old.,One day it ran.,Tom looked for it.,{','.join(endings)},{answer}\n"
        )
    csv = folder / "sct.csv"
    csv.write_text(header + "".join(lines), encoding="utf-8")
    return [str(csv), "--out", str(folder / "ending-model")]


QUALITY_ENDINGS = register_command(
    Command(
        name="quality endings",
        params=QualityEndingsParams,
        execute=_endings,
        inputs=lambda p: {"PAIRS": [str(Path(x) / "cases.jsonl") if Path(x).is_dir() else x for x in p.pairs]},
        outputs=lambda p: [Output("--out", Path(p.out), kind="ending-model")],
        summary="""Train the ending-only model (no story) that flags sct_write pairs as model_easy.

From right and wrong endings (labelled Story Cloze csvs, sct_write pull folders): TF-IDF of character 1-4-grams
and logistic regression, as the ending-only baselines of the Story Cloze audits (Schwartz et al. 2017). Give its folder
to `annotate check sct_write --model` or `annotate pull sct_write --model`.""",
        arguments=("pairs",),
        metavars={"pairs": "PAIRS"},
        sample=_endings_sample,
    )
)
