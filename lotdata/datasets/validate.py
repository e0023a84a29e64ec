"""Verified reads: what a stories row or a task example must hold to be used, checked whenever one is read.

A row that fails is not used: it goes to the reader's quarantine with the reason (`path`, `row`, `reason`,
`raw`), and a read that leaves nothing usable is bad input (exit 3). The checks are by field, so every task
that has the field gets them: ids, splits, labels in range, distinct non-empty candidates, non-empty text,
`lang` and `status` from their vocabularies with a language check of the text.
"""

from __future__ import annotations

from typing import Any, Mapping

from lotdata.schema import MASK_TOKENS, STORY_STATUSES
from lotdata.text.normalize import language_problem


def _blank(value: Any) -> bool:
    return not isinstance(value, str) or not value.strip()


def story_problem(row: Mapping[str, Any]) -> str | None:
    """Why a `stories` row cannot be used (None when it can)."""
    if _blank(row.get("story_id")):
        return "empty story_id"
    if _blank(row.get("text")):
        return "empty text"
    if row.get("status") not in STORY_STATUSES:
        return f"status {row.get('status')!r} is not one of {', '.join(STORY_STATUSES)}"
    return language_problem(row["text"], row.get("lang"))


def example_problem(task: str, row: Mapping[str, Any], split: str | None = None) -> str | None:
    """Why an example of `task` cannot be used (None when it can)."""
    if _blank(row.get("example_id")):
        return "empty example_id"
    if split is not None and row.get("split") != split:
        return f"split {row.get('split')!r} in the {split} file"
    if "lang" in row and row["lang"] is not None and _blank(row["lang"]):
        return "empty lang"  # a code outside zh/en is allowed here: audit-bias skips what needs resources
    for check in (_candidates_problem, _sentences_problem, _context_problem, _text_fields_problem):
        problem = check(task, row)
        if problem:
            return problem
    return None


def _candidates_problem(task: str, row: Mapping[str, Any]) -> str | None:
    if "candidates" not in row:
        return None
    candidates = row["candidates"] or []
    if len(candidates) < 2:
        return f"{len(candidates)} candidate(s), need at least 2"
    if any(_blank(c) for c in candidates):
        return "an empty candidate"
    if len({c.strip() for c in candidates}) < len(candidates):
        return "identical candidates"
    label = row.get("label")
    if not isinstance(label, int) or isinstance(label, bool) or not 0 <= label < len(candidates):
        return f"label {label!r} is not a candidate index (0..{len(candidates) - 1})"
    return None


def _sentences_problem(task: str, row: Mapping[str, Any]) -> str | None:
    if "sentences" not in row or "removed" not in row:
        return None
    sentences = row["sentences"] or []
    if len(sentences) < 2 or any(_blank(s) for s in sentences):
        return "fewer than 2 sentences, or an empty one"
    if _blank(row["removed"]):
        return "empty removed sentence"
    label = row.get("label")
    if not isinstance(label, int) or isinstance(label, bool) or not 1 <= label <= len(sentences) - 1:
        return f"label {label!r} is not a gap (1..{len(sentences) - 1})"
    return None


def _context_problem(task: str, row: Mapping[str, Any]) -> str | None:
    if "context" not in row:
        return None
    context, mask = row["context"], MASK_TOKENS.get(task)
    if _blank(context):
        return "empty context"
    if mask is not None:
        if context.count(mask) != 1:
            return f"the context holds {context.count(mask)} {mask}, not one"
        if not context.replace(mask, "").strip():
            return f"the context is only {mask}: no story around it"
    return None


def _text_fields_problem(task: str, row: Mapping[str, Any]) -> str | None:
    for field in ("target", "story"):
        if field in row and _blank(row[field]):
            return f"empty {field}"
    if "outline" in row and any(_blank(p) for p in row["outline"] or []):
        return "an empty outline phrase"
    return None
