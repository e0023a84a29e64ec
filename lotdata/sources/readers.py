"""Readers of local story corpora into `stories` rows, with a quarantine for bad records.

One entry point, :func:`read_stories`, reads files of every registered format
(:mod:`lotdata.datasets.formats`; the built-in ones are the modules of :mod:`lotdata.sources.formats`:
txt, jsonl, csv, parquet, rocstories, storycloze, cmrc, roc_lines). `lotdata read --help` and
the README list them with what a record is and what its ``row`` counts.

Every story's ``url`` is ``f"{path}#{row}"``; for a member of a zip archive the path is
``f"{zip}!{member}"``. Records that cannot become a story go to the quarantine (path, row, reason,
raw record truncated to 500 characters) and reading goes on. Identical stories (same ``story_id``)
are kept once per call and counted in ``counts["duplicates"]``. A missing file, a directory, an
unknown format, an undecodable file or a file whose header lacks the format's columns raises
:class:`~lotdata.errors.InputError` naming the file. An empty result is not an error here.

Where a format gives the source's own sentence boundaries (``rocstories``, ``storycloze``) they are kept
when they rebuild the normalised text exactly: ``join_sentences(sentences) == text`` always holds.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lotdata.datasets import formats as _registry
from lotdata.datasets.formats import Record, format_names, get_format
from lotdata.errors import InputError, LotdataError, must_exist
from lotdata.sources.story import make_story_row
from lotdata.text import join_sentences, normalize_text
from lotdata.text.decoding import invalid_bytes, printable
from lotdata.text.normalize import language_problem
from lotdata.text.sentences import paragraph_breaks

RAW_LIMIT = 500


def __getattr__(name: str) -> Any:
    """`FORMATS`: the names of the registered formats, read when asked (a plug-in may register one later)."""
    if name == "FORMATS":
        return tuple(format_names())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass
class ReadResult:
    stories: list[dict]
    quarantine: list[dict]
    counts: dict[str, int] = field(default_factory=dict)


def detect_format(path: str | Path) -> str:
    """The format of the file `path` (the registry's one detector); InputError naming it when none claims it."""
    path = Path(path)
    _check_file(path)
    return _registry.detect_format(path)


def _check_file(path: Path) -> None:
    must_exist(path, "input")
    if path.is_dir():
        raise InputError("is a directory, not a corpus file", path=str(path))


# ---------------------------------------------------------------------------------------------
# the entry point


def _quarantine_row(path: str, record: Record) -> dict[str, Any]:
    return {"path": path, "row": record.row, "reason": record.reason, "raw": printable(record.raw[:RAW_LIMIT])}


def _undecodable(record: Record) -> str | None:
    """The reason a record of a damaged UTF-8 file holds invalid bytes (kept apart by `decode_bytes`), or None."""
    fields = [record.raw, record.text, record.title, record.source_id, *(record.sentences or [])]
    return next((reason for f in fields if isinstance(f, str) and (reason := invalid_bytes(f))), None)


def _story_row(
    record: Record, *, path: str, lang: str | None, source: str | None, license: str | None, default_source: str
) -> dict[str, Any]:
    from lotdata.datasets.licenses import corpus_license

    lang = lang or record.lang
    source = source or record.source or default_source
    row = make_story_row(
        record.text or "",
        source=source,
        title=record.title,
        lang=lang,
        source_id=record.source_id,
        url=f"{path}#{record.row}",
        license=license or corpus_license(source),  # a known corpus's terms, recognised by its name
        fetched_at=None,
    )
    if record.sentences:
        # keep the source's own sentence boundaries when they rebuild the normalised text exactly
        sentences = [normalize_text(s, row["lang"]) for s in record.sentences]
        if all(sentences) and join_sentences(sentences, row["lang"]) == row["text"]:
            row["sentences"] = sentences
            if row["paragraph_breaks"]:  # the breaks index the sentences
                row["paragraph_breaks"] = paragraph_breaks(record.text or "", row["text"], sentences, row["lang"])
    return row


def common_reasons(quarantine: list[dict], top: int = 3) -> str:
    """The most common quarantine reasons with their counts: "2000 x: no answer ...; 3 x: empty story"."""
    counts: Counter = Counter()
    shown: dict[str, str] = {}
    for row in quarantine:  # reasons that differ only in a number (a qid, a line) count as one: "<qid_N>", "line N"
        reason = row.get("reason") or "unknown"
        key = re.sub(r"\d+", "N", reason)
        counts[key] += 1
        shown[key] = reason if shown.get(key, reason) == reason else key
    parts = [f"{n} x: {shown[key]}" for key, n in counts.most_common(top)]
    if len(counts) > top:
        parts.append(f"{len(counts) - top} other reason(s)")
    return "; ".join(parts)


LANGS = ("zh", "en")


def check_lang(lang: str | None) -> None:
    """A bad --lang is a bad parameter (exit 1) naming the accepted values, not bad data."""
    if lang is not None and lang not in LANGS:
        raise LotdataError(f"--lang: unknown language {lang!r}; accepted: {', '.join(LANGS)}")


def read_stories(
    paths: list[str | Path],
    *,
    fmt: str | None = None,
    lang: str | None = None,
    source: str | None = None,
    license: str | None = None,
) -> ReadResult:
    """Read corpus files into `stories` rows (input order) and `quarantine` rows.

    `fmt` applies to every path (default: :func:`detect_format` per path); `lang` to every story
    (default: detected per story; CMRC/CFT documents are Chinese); `source` defaults to the corpus
    name of the known formats or the file's stem; `license` is stored as given, else the terms of a corpus
    lotdata knows by that source name (`lotdata.datasets.licenses`: CMRC 2017 and CFT CC-BY-SA-4.0, C3, ...).
    """
    if fmt is not None and fmt not in format_names():
        raise InputError(
            f"unknown format {fmt!r}; known: {', '.join(format_names())}", path=", ".join(str(p) for p in paths) or None
        )
    check_lang(lang)
    stories: list[dict] = []
    quarantine: list[dict] = []
    seen: set[str] = set()
    counts = {"read": 0, "kept": 0, "quarantined": 0, "duplicates": 0}
    for raw_path in paths:
        path = Path(raw_path)
        _check_file(path)
        spec = get_format(fmt or detect_format(path))
        default_source = spec.default_source or path.stem
        for record in spec.parse(path):
            counts["read"] += 1
            record_path = record.path or str(path)
            if record.reason is None:
                record.reason = _undecodable(record)
            if record.reason is None and not (record.text or "").strip():
                record.reason = "empty story"
            if record.reason is not None:
                quarantine.append(_quarantine_row(record_path, record))
                counts["quarantined"] += 1
                continue
            row = _story_row(
                record, path=record_path, lang=lang, source=source, license=license, default_source=default_source
            )
            if not row["text"]:
                record.reason = "empty story after normalisation"
            else:
                # judged on the text as read (lotdata.text.langid): Chinese normalisation takes out the spaces
                # between the words of a Cyrillic or Greek passage, which would hide it in a Chinese story
                record.reason = language_problem(record.text or row["text"], row["lang"])
            if record.reason is not None:
                quarantine.append(_quarantine_row(record_path, record))
                counts["quarantined"] += 1
                continue
            if row["story_id"] in seen:
                counts["duplicates"] += 1
                continue
            seen.add(row["story_id"])
            stories.append(row)
            counts["kept"] += 1
    return ReadResult(stories=stories, quarantine=quarantine, counts=counts)
