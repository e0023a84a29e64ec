"""Turn one raw text into a `stories` row: normalise, split, hash."""

from __future__ import annotations

from typing import Any

from lotdata.io import story_id_for
from lotdata.text import detect_lang, normalize_text, split_sentences
from lotdata.text.sentences import paragraph_breaks


def make_story_row(
    raw_text: str,
    *,
    source: str,
    title: str | None = None,
    lang: str | None = None,
    source_id: str | None = None,
    url: str | None = None,
    license: str | None = None,
    fetched_at: str | None = None,
    flags: list[str] | None = None,
) -> dict[str, Any]:
    """A `stories` row (status 'raw') from raw text; `lang` is detected when not given."""
    lang = lang or detect_lang(raw_text)
    text = normalize_text(raw_text, lang)
    sentences = split_sentences(text, lang)
    return {
        "story_id": story_id_for(text),
        "title": normalize_text(title, lang) if title else None,
        "text": text,
        "sentences": sentences,
        "paragraph_breaks": paragraph_breaks(raw_text, text, sentences, lang) if "\n" in raw_text.strip() else None,
        "lang": lang,
        "source": source,
        "source_id": source_id,
        "url": url,
        "license": license,
        "fetched_at": fetched_at,
        "status": "raw",
        "flags": list(flags or []),
    }
