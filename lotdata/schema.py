"""Arrow schemas of every table lotdata reads or writes: the single source of truth.

Every table has a stable id column and keeps where each row came from. Steps talk to each other
only through Parquet files with these schemas.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

import pyarrow as pa

from lotdata.errors import InputError

SCHEMA_VERSION = "1"

#: mask tokens of the official LOT release, one per task (the release itself is inconsistent)
MASK_TOKENS = {"clozet": "<mask>", "senpos": "[MASK]", "plotcom": "<MASK>"}
PLOTCOM_ORIGINS = ("auto", "clozet", "annotated")

STORY_STATUSES = ("raw", "clean", "accepted", "rejected", "rewritten")
SPLITS = ("train", "val", "test")

_str_list = pa.list_(pa.string())


def _schema(name: str, fields: list[pa.Field]) -> pa.Schema:
    return pa.schema(fields, metadata={"lotdata.table": name, "lotdata.schema_version": SCHEMA_VERSION})


STORIES = _schema(
    "stories",
    [
        pa.field("story_id", pa.string(), nullable=False),  # sha256 of the normalised text, 16 hex
        pa.field("title", pa.string()),
        pa.field("text", pa.string(), nullable=False),  # normalised text
        pa.field("sentences", _str_list, nullable=False),  # join(sentences) == text
        pa.field("lang", pa.string(), nullable=False),  # zh | en
        pa.field("source", pa.string(), nullable=False),  # site or corpus name
        pa.field("source_id", pa.string()),  # the id the source gave the story, if any
        pa.field("url", pa.string()),  # page URL, or file path (+ #row) for local corpora
        pa.field("license", pa.string()),
        pa.field("fetched_at", pa.string()),  # ISO 8601 UTC for crawled pages, null for local files
        pa.field("status", pa.string(), nullable=False),
        pa.field("flags", _str_list, nullable=False),
        # provenance of crawled pages and the result of `lotdata clean` (null for older files)
        pa.field("http_status", pa.int32()),  # HTTP status of the page the story came from
        pa.field("content_sha256", pa.string()),  # sha256 of the raw page bytes (or saved file / WARC record)
        pa.field("extraction", pa.string()),  # rule that found the text: css:<selector>, trafilatura, ...
        pa.field("cluster_id", pa.string()),  # near-duplicates kept by `clean` share it; splits group by it
        # indices into `sentences` where a paragraph of the source starts (null: no paragraph breaks, or older files)
        pa.field("paragraph_breaks", pa.list_(pa.int32())),
    ],
)

#: stories that `lotdata clean` rejected: the story row, the rule and its evidence
STORIES_QUARANTINE = _schema(
    "stories_quarantine",
    [
        *(STORIES.field(n) for n in STORIES.names),
        pa.field("rule", pa.string(), nullable=False),
        pa.field("evidence", pa.string()),
    ],
)

#: what `lotdata clean` did, per source and rule: stories flagged, stripped or removed
CLEAN_SUMMARY = _schema(
    "clean_summary",
    [
        pa.field("source", pa.string(), nullable=False),
        pa.field("rule", pa.string(), nullable=False),
        pa.field("action", pa.string(), nullable=False),  # flagged | stripped | removed
        pa.field("stories", pa.int64(), nullable=False),
    ],
)

SENPOS = _schema(
    "senpos",
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("story_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("sentences", _str_list, nullable=False),  # the paragraph without the removed sentence
        pa.field("removed", pa.string(), nullable=False),
        pa.field("label", pa.int32(), nullable=False),  # true gap, counted from 1 as in LOT
        pa.field("n_candidates", pa.int32(), nullable=False),  # gaps between adjacent sentences
        pa.field("refined", pa.bool_(), nullable=False),
        pa.field("lang", pa.string(), nullable=False),
    ],
)

PLOTCOM = _schema(
    "plotcom",
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("story_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),  # story with one <MASK>
        pa.field("target", pa.string(), nullable=False),
        pa.field("mask_sentence_index", pa.int32()),  # null when imported
        pa.field("lang", pa.string(), nullable=False),
        # auto (random removal) | clozet (a ClozeT right candidate, LOT 3.3) | annotated; null: unknown (older files, imports)
        pa.field("origin", pa.string()),
    ],
)

OUTGEN = _schema(
    "outgen",
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("story_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("title", pa.string()),  # null when the source has none
        pa.field("outline", _str_list, nullable=False),  # shuffled phrases
        pa.field("story", pa.string(), nullable=False),
        pa.field("lang", pa.string(), nullable=False),
    ],
)

CLOZET = _schema(
    "clozet",
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("story_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("context", pa.string(), nullable=False),  # story with one <mask>
        pa.field("candidates", _str_list, nullable=False),  # exactly 2
        pa.field("label", pa.int32(), nullable=False),  # index into candidates (0 or 1)
        pa.field("mask_sentence_index", pa.int32()),
        pa.field("annotator", pa.string()),  # annotation provenance; null for imported rows
        pa.field("annotation_id", pa.string()),
        pa.field("lang", pa.string(), nullable=False),
    ],
)

QUARANTINE = _schema(
    "quarantine",
    [
        pa.field("path", pa.string(), nullable=False),
        pa.field("row", pa.int64()),  # 1-based line or record number; null for whole-file problems
        pa.field("reason", pa.string(), nullable=False),
        pa.field("raw", pa.string()),  # the offending record, truncated
    ],
)

#: dataset cartography (Swayamdipta et al. 2020), written by `lotdata baseline cartography`
CARTOGRAPHY_REGIONS = ("easy", "ambiguous", "hard", "middle")
CARTOGRAPHY = _schema(
    "cartography",
    [
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("story_id", pa.string()),
        pa.field("confidence", pa.float64(), nullable=False),  # mean probability of the gold label over epochs
        pa.field("variability", pa.float64(), nullable=False),  # its standard deviation over epochs
        pa.field("correctness", pa.float64(), nullable=False),  # share of epochs the prediction was right
        pa.field("region", pa.string(), nullable=False),  # one of CARTOGRAPHY_REGIONS
        pa.field("gold_probs", pa.list_(pa.float64()), nullable=False),  # per epoch
    ],
)

TASK_SCHEMAS: dict[str, pa.Schema] = {
    "senpos": SENPOS,
    "plotcom": PLOTCOM,
    "outgen": OUTGEN,
    "clozet": CLOZET,
}

ALL_SCHEMAS: dict[str, pa.Schema] = {
    "stories": STORIES,
    "quarantine": QUARANTINE,
    "stories_quarantine": STORIES_QUARANTINE,
    "clean_summary": CLEAN_SUMMARY,
    **TASK_SCHEMAS,
}


#: `lotdata annotate check`: one row per violation of a named rule by a submission
CHECK_FLAGS = _schema(
    "check_flags",
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("rule", pa.string(), nullable=False),
        pa.field("detail", pa.string(), nullable=False),
        pa.field("level", pa.string()),  # the rule's level: refuse (to review) or warn (shown, goes on)
    ],
)


def table_from_rows(rows: Iterable[Mapping[str, Any]], schema: pa.Schema) -> pa.Table:
    """Build a table with exactly `schema`'s columns, in its order; unknown keys are an error."""
    rows = list(rows)
    names = schema.names
    for i, row in enumerate(rows):
        extra = set(row) - set(names)
        if extra:
            raise ValueError(
                f"row {i} has columns not in the {schema.metadata[b'lotdata.table'].decode()} schema: {sorted(extra)}"
            )
    columns = {name: [row.get(name) for row in rows] for name in names}
    return pa.Table.from_pydict(columns, schema=schema)


def _is_text(dtype: pa.DataType) -> bool:
    """Strings, lists of strings (or nulls: an all-null column, an empty list, carry no wrong value)."""
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        return _is_text(dtype.value_type)
    if pa.types.is_dictionary(dtype):
        return _is_text(dtype.value_type)
    return pa.types.is_string(dtype) or pa.types.is_large_string(dtype) or pa.types.is_null(dtype)


def check_table(table: pa.Table, schema: pa.Schema, path: str = "<table>") -> pa.Table:
    """Check that a table read from disk has the columns of `schema`; cast it to the exact schema."""
    for name in [n for n in schema.names if n not in table.column_names]:
        field = schema.field(name)
        if field.nullable:  # a column added after the file was written reads as null
            table = table.append_column(name, pa.nulls(table.num_rows, field.type))
    missing = [n for n in schema.names if n not in table.column_names]
    if missing:
        name = schema.metadata[b"lotdata.table"].decode()
        raise InputError(f"not a '{name}' table: missing columns {missing}", path=path)
    table = table.select(schema.names)
    # a cast to string would turn numbers into text silently: a text column must already hold text
    wrong = [
        f"{n} ({table.schema.field(n).type})"
        for n in schema.names
        if _is_text(schema.field(n).type) and not _is_text(table.schema.field(n).type)
    ]
    if wrong:
        raise InputError(f"columns that must hold text hold something else: {', '.join(wrong)}", path=path)
    try:
        return table.cast(schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, ValueError) as exc:
        # a type with no cast at all (a list stored as a string) raises ArrowNotImplementedError: bad input too
        raise InputError(f"columns do not match the schema: {_cast_failures(table, schema) or exc}", path=path) from exc


def _cast_failures(table: pa.Table, schema: pa.Schema) -> str:
    """The columns that do not cast to `schema`, each with its type and the one expected ("" if none alone fails)."""
    failed = []
    for field in schema:
        try:
            table.column(field.name).cast(field.type)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, ValueError) as exc:
            failed.append(
                f"column '{field.name}' is {table.schema.field(field.name).type}, expected {field.type} ({exc})"
            )
    return "; ".join(failed)


def table_kind(schema_or_table: pa.Schema | pa.Table) -> str | None:
    """The table name stored in the schema metadata ('stories', 'senpos', ...), if any."""
    schema = schema_or_table.schema if isinstance(schema_or_table, pa.Table) else schema_or_table
    meta = schema.metadata or {}
    value = meta.get(b"lotdata.table")
    return value.decode() if value else None


# ---- annotation loop (Label Studio): appended by the annotate stage

ANNOTATIONS = _schema(
    "annotations",
    [
        pa.field("uid", pa.string()),  # the stable external id pushed in the task data; null if the task has none
        pa.field("task_id", pa.int64(), nullable=False),
        pa.field("annotation_id", pa.int64(), nullable=False),
        pa.field("annotator", pa.string()),  # e-mail of the Label Studio user
        pa.field("result", pa.string(), nullable=False),  # the Label Studio result list, as JSON
        pa.field("lead_time", pa.float64()),  # seconds the annotator spent
        pa.field("created_at", pa.string()),
        pa.field("updated_at", pa.string()),
        pa.field("was_cancelled", pa.bool_()),  # skipped by the annotator
        pa.field("project_id", pa.int64()),  # the Label Studio project (one per rater for multi-rater jobs)
        pa.field("gold", pa.bool_()),  # a known-answer task mixed in with --gold (scored in gold.json, never assembled)
    ],
)

STORY_DECISIONS = _schema(
    "story_decisions",
    [
        pa.field("story_id", pa.string(), nullable=False),
        pa.field("decision", pa.string(), nullable=False),  # accept | reject | rewrite
        pa.field("reason", pa.string()),  # reject reasons, comma-separated
        pa.field("old_text", pa.string(), nullable=False),
        pa.field("new_text", pa.string()),  # the rewrite, for decision 'rewrite'
        pa.field("annotator", pa.string()),
        pa.field("annotation_id", pa.string(), nullable=False),
        pa.field("time", pa.string()),  # when the annotation was made (ISO 8601 UTC)
        pa.field("final", pa.bool_(), nullable=False),  # the annotation whose decision the stories table shows
        pa.field("source_story_id", pa.string()),  # the whole story a segment was cut from (`lotdata build segments`)
    ],
)

#: `lotdata build segments`: story segments of about 50-500 words for filtering (LOT appendix Figure 1), each with
#: the whole story as a reference and character offsets back into it (story_text[start_char:end_char] == text)
SEGMENTS = _schema(
    "segments",
    [
        pa.field("segment_id", pa.string(), nullable=False),  # sha256 of the segment text, 16 hex (a story id to be)
        pa.field("story_id", pa.string(), nullable=False),  # the story it was cut from
        pa.field("title", pa.string()),
        pa.field("text", pa.string(), nullable=False),
        pa.field("story_text", pa.string(), nullable=False),  # the whole story, shown as the reference
        pa.field("start_char", pa.int32(), nullable=False),
        pa.field("end_char", pa.int32(), nullable=False),
        pa.field("first_sentence", pa.int32(), nullable=False),  # 0-based index of its first sentence in the story
        pa.field("n_sentences", pa.int32(), nullable=False),
        pa.field("n_words", pa.int32(), nullable=False),  # jieba words (as the builders count them)
        pa.field("lang", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("source_id", pa.string()),
        pa.field("url", pa.string()),
        pa.field("license", pa.string()),
        pa.field("fetched_at", pa.string()),
        pa.field("seed", pa.int64(), nullable=False),
    ],
)

HUMAN_EVAL = _schema(
    "human_eval",
    [
        pa.field("uid", pa.string(), nullable=False),
        pa.field("input_id", pa.string(), nullable=False),
        pa.field("system", pa.string(), nullable=False),
        pa.field("task", pa.string()),  # plotcom | outgen, when given
        pa.field("raters", pa.int32(), nullable=False),
        pa.field("grammaticality", pa.int32()),  # majority of the raters' 0/1; null on a tie
        pa.field("coherence", pa.int32()),
        pa.field("relatedness", pa.int32()),
    ],
)

ALL_SCHEMAS.update(annotations=ANNOTATIONS, story_decisions=STORY_DECISIONS, human_eval=HUMAN_EVAL, segments=SEGMENTS)

# `lotdata overlap`: one row per test example (DIR/examples.parquet)
_OVERLAP_SPAN = pa.struct(
    [
        pa.field("field", pa.string()),  # the example's text field (story, candidates[1], ...)
        pa.field("token_start", pa.int32()),  # token range of the overlapping run within that field
        pa.field("token_end", pa.int32()),
        pa.field("text", pa.string()),
        pa.field("ref_doc", pa.string()),  # the first reference document holding the run's first n-gram
    ]
)
OVERLAP_EXAMPLES = _schema(
    "overlap_examples",
    [
        pa.field("split", pa.string(), nullable=False),
        pa.field("example_id", pa.string(), nullable=False),
        pa.field("ngrams", pa.int64(), nullable=False),  # n-gram occurrences in the example
        pa.field("overlapped", pa.int64(), nullable=False),  # of those, found in the references
        pa.field("share", pa.float64(), nullable=False),
        pa.field("over_threshold", pa.bool_(), nullable=False),
        pa.field("spans", pa.list_(_OVERLAP_SPAN), nullable=False),  # the first overlapping runs
    ],
)
ALL_SCHEMAS["overlap_examples"] = OVERLAP_EXAMPLES
