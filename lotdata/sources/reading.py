"""`lotdata read` on the executor (`lotdata.exec`): a shard per input file -> a part file -> combined in order.

Each shard reads one file with :func:`~lotdata.sources.readers.read_stories` into a stories part and a
quarantine part; the combine step concatenates them in input order and keeps the first copy of a story
read from several files, so the output is byte-identical whatever the executor and number of workers.
Parts and done markers live in ``OUT.work/`` beside the output (a killed run resumes from it) and are
removed when the run succeeds.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from lotdata.exec import ExecSettings, Shard, run_shards
from lotdata.io import write_parquet
from lotdata.schema import QUARANTINE, STORIES, table_from_rows
from lotdata.sources.readers import read_stories


@dataclass
class ReadTables:
    stories: pa.Table
    quarantine: pa.Table
    counts: dict[str, int]


def quarantine_part(part: Path) -> Path:
    return part.with_name(part.name.removesuffix(".parquet") + ".quarantine.parquet")


def read_shard(
    shard: Shard, part: Path, fmt: str | None, lang: str | None, source: str | None, license: str | None
) -> dict:
    """Read one file into a stories part and its quarantine part (written first: the stories part marks it done)."""
    result = read_stories([shard.path], fmt=fmt, lang=lang, source=source, license=license)
    write_parquet(table_from_rows(result.quarantine, QUARANTINE), quarantine_part(part))
    write_parquet(table_from_rows(result.stories, STORIES), part)
    return result.counts


def read_files(
    paths: Sequence[Path],
    work: Path,
    *,
    fmt: str | None = None,
    lang: str | None = None,
    source: str | None = None,
    license: str | None = None,
    execution: ExecSettings = ExecSettings(),
    progress: bool | None = None,
) -> ReadTables:
    """Read `paths` (one shard each) with parts under `work`; the tables in input order, duplicates dropped."""
    shards = [Shard(str(p), 0, None, p.stat().st_size) for p in paths]
    files = [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in paths]
    fingerprint = hashlib.sha256(json.dumps([fmt, lang, source, license, files]).encode()).hexdigest()[:16]
    results = run_shards(
        partial(read_shard, fmt=fmt, lang=lang, source=source, license=license),
        shards,
        work,
        execution=execution,
        fingerprint=fingerprint,
        progress=progress,
        description="read",
    )
    stories = (
        pa.concat_tables([pq.read_table(r.part, schema=STORIES) for r in results]) if results else STORIES.empty_table()
    )
    quarantine = (
        pa.concat_tables([pq.read_table(quarantine_part(r.part), schema=QUARANTINE) for r in results])
        if results
        else QUARANTINE.empty_table()
    )
    seen: set[str] = set()
    first = []
    for story_id in stories.column("story_id").to_pylist():
        first.append(story_id not in seen)
        seen.add(story_id)
    across = first.count(False)
    stories = stories.filter(pa.array(first, pa.bool_())) if across else stories
    counts = {key: sum(r.stats.get(key, 0) for r in results) for key in ("read", "kept", "quarantined", "duplicates")}
    counts["kept"] -= across
    counts["duplicates"] += across
    return ReadTables(stories.combine_chunks(), quarantine.combine_chunks(), counts)


def remove_work(work: Path) -> None:
    shutil.rmtree(work, ignore_errors=True)
