"""Crowd submissions as the checks see them (`lotdata.annotate.checks`): read from a file, and a submission's
story as its writer's sentences or as one text.

A submission is a dict: `id`, `lang`, `title` (absent: the title rule is skipped), `sentences` (the writer's
five fields, in order; absent: `text` is split), `text`; an ending-writing case has `context` (the four
sentences), `right_ending` and `wrong_ending`; a rewrite its `segment`; a written candidate its `candidate`,
`context` and `original`. `read_submissions` adds the file's `row` number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from lotdata.text.story_split import split_submission

Row = Mapping[str, Any]


def story_sentences(row: Row, lang: str) -> list[str]:
    """The writer's sentences: the fields when the form had them, else the text split."""
    fields = row.get("sentences")
    if fields is not None:
        return [str(s or "").strip() for s in fields]
    return split_submission(str(row.get("text") or ""), lang)


def story_text(row: Row) -> str:
    fields = row.get("sentences")
    if fields is not None:
        return " ".join(str(s or "").strip() for s in fields if s)
    return str(row.get("text") or "")


SENTENCE_FIELDS = tuple(f"sentence{k}" for k in range(1, 6))
_ENDING_CSV = (
    "InputSentence1",
    "InputSentence2",
    "InputSentence3",
    "InputSentence4",
    "RandomFifthSentenceQuiz1",
    "RandomFifthSentenceQuiz2",
)
#: how a Story Cloze csv is read (`read_submissions`' `shape`): its cases as stories (the four sentences and the
#: right ending, for the story rules) or as ending cases (the four sentences and the two endings, for the ending rules)
SHAPES = ("story", "case")


def read_submissions(path: str | Path, shape: str = "case") -> list[dict[str, Any]]:
    """Submissions from a file: JSON lines or Parquet (`id`, `title`, `sentences` or `sentence1..5` or `text`;
    an ending case: `context`, `right_ending`, `wrong_ending`), a ROCStories csv (storyid, storytitle,
    sentence1..5), a Story Cloze csv, or Diffusion-LM's `["story"]` lines. Bad input: InputError naming the row.

    A Story Cloze csv is read in `shape`: "case", each row an ending case (the blind test, without
    AnswerRightEnding, too: its first ending stands as `right_ending`, the ending rules treat both alike); "story",
    each row the story a writer wrote: the four sentences and the right ending (the blind test has none: refused)."""
    from lotdata.errors import InputError, must_exist

    path = must_exist(path, "--input")
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            raw = pq.read_table(path).to_pylist()
        except Exception as exc:  # a damaged or non-Parquet file is bad input, not a crash
            raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from None
        _check_parquet_types(pq.read_schema(path), path)
        return [{**_submission(r, n, path), "row": n} for n, r in enumerate(raw, 1)]
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", path=str(path)) from None
    if path.suffix == ".csv":
        return _read_csv(text, path, shape)
    import json

    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON ({exc.msg})", path=str(path), row=n) from None
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            value = {"id": str(n), "text": value[0]}
        if not isinstance(value, dict):
            raise InputError("a line is a JSON object (or a one-story list)", path=str(path), row=n)
        rows.append({**_submission(value, n, path), "row": n})
    return rows


def _read_csv(text: str, path: Path, shape: str = "case") -> list[dict[str, Any]]:
    import csv
    import io

    from lotdata.errors import InputError

    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in reader.fieldnames or []]
    rows = []
    if all(c in header for c in _ENDING_CSV):
        return _storycloze_rows(reader, "AnswerRightEnding" in header, shape, path)
    if not all(c in header for c in SENTENCE_FIELDS):
        raise InputError(
            f"a csv of stories has the columns {', '.join(SENTENCE_FIELDS)} (ROCStories) or a Story Cloze "
            f"csv's; found {header}",
            path=str(path),
        )
    for n, rec in enumerate(reader, 1):
        row = {"row": n, "id": rec.get("storyid") or str(n), "sentences": [rec[c] for c in SENTENCE_FIELDS]}
        if "storytitle" in header:
            row["title"] = rec["storytitle"]
        rows.append(row)
    return rows


def _storycloze_rows(reader: Any, labelled: bool, shape: str, path: Path) -> list[dict[str, Any]]:
    """The rows of a Story Cloze csv as ending cases or as stories (`read_submissions`)."""
    from lotdata.errors import InputError

    if shape not in SHAPES:
        raise ValueError(f"shape {shape!r}: one of {', '.join(SHAPES)}")
    if shape == "story" and not labelled:
        raise InputError(
            "a Story Cloze csv without AnswerRightEnding (the blind test) has no right ending to make a story of; "
            "its endings are checked by the ending rules (sct_write)",
            path=str(path),
        )
    rows = []
    for n, rec in enumerate(reader, 1):
        rec = {k.strip(): (v or "") for k, v in rec.items() if k}
        right = 2 if labelled and rec.get("AnswerRightEnding", "").strip() == "2" else 1
        context = [rec[f"InputSentence{k}"] for k in range(1, 5)]
        row = {"row": n, "id": rec.get("InputStoryid") or str(n)}
        if shape == "story":
            row["sentences"] = [*context, rec[f"RandomFifthSentenceQuiz{right}"]]
        else:
            row["context"] = context
            row["right_ending"] = rec[f"RandomFifthSentenceQuiz{right}"]
            row["wrong_ending"] = rec[f"RandomFifthSentenceQuiz{3 - right}"]
        rows.append(row)
    return rows


_TEXT_FIELDS = ("title", "text", "right_ending", "wrong_ending", "segment", "original", "candidate", *SENTENCE_FIELDS)
_TEXT_LISTS = ("sentences", "context")  # a list of strings (`context` may also be one string)


def _check_parquet_types(schema: Any, path: Path) -> None:
    """A text column of a Parquet submission file holds strings (`sentences`, `context`: lists of strings):
    InputError naming the file and the column, not a number read as the story."""
    import pyarrow as pa

    from lotdata.errors import InputError

    def is_text(t: Any) -> bool:
        return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t)

    for field in schema:
        t = field.type
        if field.name in _TEXT_FIELDS and not is_text(t):
            raise InputError(f"column {field.name!r} is {t}, not a string column", path=str(path))
        if field.name in _TEXT_LISTS:
            listed = (pa.types.is_list(t) or pa.types.is_large_list(t)) and is_text(t.value_type)
            if not (listed or (field.name == "context" and is_text(t))):
                raise InputError(f"column {field.name!r} is {t}, not a list of strings", path=str(path))


def _check_value_types(value: Mapping[str, Any], n: int, path: Path) -> None:
    """The text fields of one submission are strings (or absent/null): InputError naming the row and field."""
    from lotdata.errors import InputError

    for key in _TEXT_FIELDS:
        if value.get(key) is not None and not isinstance(value[key], str):
            kind = type(value[key]).__name__
            raise InputError(f"field {key!r} is not a string ({kind})", path=str(path), row=n)
    for key in _TEXT_LISTS:
        item = value.get(key)
        if item is None or (key == "context" and isinstance(item, str)):
            continue
        if not isinstance(item, (list, tuple)) or not all(s is None or isinstance(s, str) for s in item):
            raise InputError(f"field {key!r} is not a list of strings", path=str(path), row=n)


def _submission(value: Mapping[str, Any], n: int, path: Path) -> dict[str, Any]:
    from lotdata.errors import InputError

    _check_value_types(value, n, path)
    row: dict[str, Any] = {"id": str(value.get("id") or value.get("story_id") or value.get("uid") or n)}
    for key in ("lang", "title", "right_ending", "wrong_ending", "segment", "original", "candidate"):
        if key in value:
            row[key] = value[key]
    if "context" in value:
        context = value["context"]
        row["context"] = (
            split_submission(context, value.get("lang") or "en") if isinstance(context, str) else list(context)
        )
    if isinstance(value.get("sentences"), (list, tuple)):
        row["sentences"] = [str(s or "") for s in value["sentences"]]
    elif any(k in value for k in SENTENCE_FIELDS):
        row["sentences"] = [str(value.get(k) or "") for k in SENTENCE_FIELDS if k in value]
    elif "text" in value:
        row["text"] = str(value["text"] or "")
    elif "context" not in value:
        raise InputError(
            "no story: give `sentences`, `sentence1`..`sentence5` or `text` (or `context` and the endings)",
            path=str(path),
            row=n,
        )
    return row
