"""Small builders of stories tables for tests (text invented here, never copied from shared data)."""

from __future__ import annotations

from pathlib import Path

from lotdata.io import write_parquet
from lotdata.schema import STORIES, table_from_rows
from lotdata.sources.story import make_story_row


def write_stories(path: Path, texts: list[str], lang: str = "zh", titles: list[str] | None = None) -> Path:
    rows = [
        make_story_row(t, source="test", lang=lang, title=(titles[i] if titles else None)) for i, t in enumerate(texts)
    ]
    write_parquet(table_from_rows(rows, STORIES), path)
    return path
