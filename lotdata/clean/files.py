"""`lotdata clean` on files, on the executor (`lotdata.exec`): plan shards -> process a shard -> combine.

Phases, each resumable (done markers under ``OUT/.work/``, removed when the run succeeds):

1. **clean + signatures** (sharded by rows, ``rows_per_shard`` a shard): the rules of
   :func:`~lotdata.clean.step.clean_story` and the MinHash signature of every story no rule rejected;
2. **exact duplicates** (driver): same cleaned text, the best copy stays;
3. **buckets** (sharded by LSH bands): candidate pairs of stories sharing a band;
4. **clusters + filter** (driver): each candidate pair checked, clusters, copies rejected against a better
   kept copy (:func:`~lotdata.clean.dedup.cluster_and_filter`), then the tables are written.

The driver holds per story only its id, flags, length, source, url and signature until it writes the
output; the texts stay in the part files. The result does not depend on the executor, the number of
workers or the shard size: the outputs are byte-identical (tests/test_clean_exec.py).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from lotdata.clean.columns import column, indices, table_of
from lotdata.clean.dedup import (
    NearDuplicates,
    band_pair_keys,
    cluster_and_filter,
    lsh_bands,
    lsh_threshold,
    merge_sorted,
    pairs_of,
    signatures,
)
from lotdata.clean.heldout import HeldOutMatcher, HoldOut
from lotdata.clean.step import (
    CLEAN_NEEDS,
    EVIDENCE_LIMIT,
    CleanParams,
    Deduplicated,
    StoryKeys,
    clean_story,
    count_story,
    deduplicate,
    pii_stats,
    summary_rows,
)
from lotdata.errors import InputError, must_exist, require_all
from lotdata.exec import ExecSettings, Shard, run_shards
from lotdata.io import atomic_path, check_output_dir, write_manifest, write_parquet, write_parquet_pieces
from lotdata.paths import check_outputs
from lotdata.schema import CLEAN_SUMMARY, STORIES, STORIES_QUARANTINE, check_table

ROWS_PER_SHARD = 500
BANDS_PER_SHARD = 4
OUTPUT_ROWS = 4096  # rows gathered and written at a time (a row group of the outputs)
WORK_DIR = ".work"

# a part of phase 1: the cleaned story, the rule that rejects it (if any) and its signature
_PART = pa.schema(
    [
        *STORIES,
        pa.field("_rule", pa.string()),
        pa.field("_evidence", pa.string()),
        pa.field("_len", pa.int64()),
        pa.field("_sig", pa.binary()),
    ]
)

_META = ["story_id", "flags", "source", "url", "title", "_rule", "_evidence", "_len"]


@dataclass
class CleanFilesResult:
    kept: int
    removed: int
    summary: list[dict[str, Any]]
    counts: dict[str, Any]
    files: dict[str, Path]


def plan_clean_shards(
    paths: Sequence[str | Path], rows_per_shard: int = ROWS_PER_SHARD, stage: Path | None = None
) -> list[Shard]:
    """Row ranges of the stories files; a file that is not a stories table fails here, naming it.

    With `stage` (a folder), a file with a row group larger than a shard is first copied there as an Arrow IPC file
    (`_stage`) and its shards name the copy: a shard of it reads its rows alone, where a shard of the Parquet file
    would decode its row group from the first row (each shard of a one-group file decoding most of the file)."""
    shards = []
    for path in map(Path, paths):
        must_exist(path, "stories file")
        try:
            meta = pq.ParquetFile(path).metadata
        except (pa.ArrowInvalid, OSError) as exc:
            raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
        check_table(_empty(meta.schema.to_arrow_schema()), STORIES, str(path))
        rows, size = meta.num_rows, path.stat().st_size
        groups = (meta.row_group(g).num_rows for g in range(meta.num_row_groups))
        read_from = _stage(path, stage) if stage is not None and max(groups, default=0) > rows_per_shard else path
        for start in range(0, rows, rows_per_shard):
            stop = min(rows, start + rows_per_shard)
            shards.append(Shard(str(read_from), start, stop, size * (stop - start) // max(rows, 1)))
    return shards


def _stage(path: Path, folder: Path) -> Path:
    """`path` as an Arrow IPC file in `folder` (named by its path, size and time, so a resumed run finds it), written
    a batch at a time; the workers map it and slice their rows without decoding anything."""
    stat = path.stat()
    key = hashlib.sha256(f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    staged = folder / f"{key}.arrow"
    if staged.exists():
        return staged
    try:
        # small reads and batches: the decoder's peak (36,200 stories: 42 MiB at 64 KiB and 500 rows, 90 at 1 MiB
        # and 4,096)
        file = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 16)
        with atomic_path(staged) as tmp, pa.ipc.new_file(tmp, file.schema_arrow) as writer:
            for batch in file.iter_batches(batch_size=ROWS_PER_SHARD, use_threads=False):
                writer.write_batch(batch)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
    finally:
        pa.default_memory_pool().release_unused()  # before the workers fork: they would inherit the pages
    return staged


def clean_shard(shard: Shard, part: Path, params: CleanParams) -> dict:
    """Phase 1 on one shard: clean each story, sign those no rule rejected."""
    rows = []
    pii: Counter = Counter()
    table = _read_rows(Path(shard.path), shard.start, shard.stop)
    for row in table.to_pylist():
        new, rule, evidence = clean_story(row, params, pii)
        rows.append(
            {
                **new,
                "_rule": rule,
                "_evidence": (evidence or "")[:EVIDENCE_LIMIT] if rule else None,
                "_len": len(new["text"]),
                "_sig": None,
            }
        )
    candidates = [r for r in rows if r["_rule"] is None]
    signing = time.perf_counter()
    sigs = signatures([r["text"] for r in candidates], [r["lang"] for r in candidates], params.dedup)
    for row, sig in zip(candidates, sigs):
        row["_sig"] = sig.tobytes()
    signing = time.perf_counter() - signing
    _write_part(table_of(rows, _PART), part)
    pa.default_memory_pool().release_unused()  # mimalloc keeps freed pages: a worker would hold its largest shard
    stats = {"stories": len(rows), "candidates": len(candidates), "signature_seconds": round(signing, 4)}
    return stats | {"pii": [[kind, what, n] for (kind, what), n in sorted(pii.items())]}


def _read_rows(path: Path, start: int, stop: int) -> pa.Table:
    """Rows [start, stop) of a stories file (Parquet, or its staged Arrow IPC copy)."""
    try:
        if _is_arrow_file(path):  # a staged copy (`_stage`); a stories file named *.arrow is Parquet still
            table = _read_part(path).slice(start, stop - start)
        else:
            table = _read_parquet_rows(path, start, stop)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"not a readable Parquet file ({exc})", path=str(path)) from exc
    return check_table(table, STORIES, str(path))


def _is_arrow_file(path: Path) -> bool:
    """Whether `path` is an Arrow IPC file (its magic bytes), not a Parquet one, whatever its name."""
    with open(path, "rb") as handle:
        return handle.read(6) == b"ARROW1"


def _read_parquet_rows(path: Path, start: int, stop: int) -> pa.Table:
    """Rows [start, stop) of a Parquet file, decoded batch by batch from the row groups that hold them: a worker
    never holds a whole row group at once."""
    file = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)  # not whole column chunks at once
    groups, position, offset = [], None, 0
    for group in range(file.metadata.num_row_groups):
        rows = file.metadata.row_group(group).num_rows
        if offset < stop and offset + rows > start:
            groups.append(group)
            position = offset if position is None else position
        offset += rows
    batches = []
    for batch in (
        file.iter_batches(batch_size=max(1, stop - start), row_groups=groups, use_threads=False) if groups else ()
    ):
        low, position = position, position + batch.num_rows
        if position > start:
            batches.append(batch.slice(max(0, start - low), min(position, stop) - max(low, start)))
        if position >= stop:
            break
    return pa.Table.from_batches(batches, schema=file.schema_arrow)


def _write_part(table: pa.Table, path: Path) -> None:
    """A part of phase 1 as an Arrow IPC file: the driver maps it and copies out only the rows it takes (a Parquet
    part would be decoded whole for every run of output rows)."""
    with atomic_path(path) as tmp, pa.ipc.new_file(tmp, table.schema) as writer:
        writer.write_table(table)


def _read_part(path: Path, columns: Sequence[str] | None = None) -> pa.Table:
    """An Arrow IPC file, mapped (nothing is read until a row is used), its `columns` only when given."""
    with pa.memory_map(str(path)) as source:
        table = pa.ipc.open_file(source).read_all()
    return table if columns is None else table.select(columns)


def bucket_shard(shard: Shard, part: Path, rows: int) -> dict:
    """Phase 3 on one range of bands: the candidate pairs, saved as sorted `pair_keys`."""
    sigs = np.load(shard.path, mmap_mode="r")
    keys = band_pair_keys(sigs, rows, range(shard.start, shard.stop))
    with open(part, "wb") as handle:  # run_shards writes the done marker only after this returns
        np.save(handle, keys)
    return {"pairs": len(keys)}


def _fingerprint(params: CleanParams, paths: Sequence[Path], rows_per_shard: int) -> str:
    files = [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in paths]
    text = json.dumps([asdict(params), files, rows_per_shard], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def clean_files(
    paths: Sequence[str | Path],
    out: str | Path,
    params: CleanParams = CleanParams(),
    *,
    execution: ExecSettings = ExecSettings(),
    rows_per_shard: int = ROWS_PER_SHARD,
    progress: bool | None = None,
    hold_out: HoldOut | None = None,
) -> CleanFilesResult:
    """Clean stories Parquet files into OUT/{stories,quarantine,summary}.parquet + manifest.json.

    `hold_out`: the val/test cases of a test set (`lotdata.clean.heldout`); every story that is the source of one
    (by id, by its first sentences, or a near copy of the whole text) is removed with rule `held_out`."""
    if not paths:
        raise InputError("no stories file given")
    require_all(CLEAN_NEEDS)  # exit 4 before the output folder exists, not after the first phase
    started = time.perf_counter()
    paths = [Path(p) for p in paths]
    check_outputs({"--out": out}, {"--stories": paths})
    out = check_output_dir(out)
    held_out = hold_out if hold_out is not None and hold_out.cases else None
    run = partial(run_shards, execution=execution, progress=progress)
    return _CleanRun(paths, out, params, run, held_out, started).run(rows_per_shard)


class _CleanRun:
    """One `clean_files` run in its phases (the module's docstring): clean and sign the stories (`clean`), read
    back what the driver keeps per story (`read_keys`), exact then near duplicates (`deduplicate`, `find_near`),
    the held-out cases' sources (`drop_held_out`), the tables (`write_tables`) and the manifest (`write_manifest`).
    """

    def __init__(
        self,
        paths: list[Path],
        out: Path,
        params: CleanParams,
        run: Callable[..., list],
        held_out: HoldOut | None,
        started: float,
    ) -> None:
        self.paths, self.out, self.work, self.params = paths, out, out / WORK_DIR, params
        self.run_shards, self.held_out, self.started = run, held_out, started
        self.clock = _Clock(started)
        self.summary: Counter = Counter()  # (source, rule, action) -> stories
        self.parts: list[Path] = []  # phase 1's parts: the cleaned stories and their signatures
        self.starts = np.zeros(1, dtype=np.int64)  # part k holds the global rows starts[k]:starts[k + 1]
        self.ids: list[str] = []  # story id by global row
        self.held: dict[int, tuple[str, str]] = {}  # story position -> (how it matched, evidence)

    def run(self, rows_per_shard: int) -> CleanFilesResult:
        started = self.started
        cleaned = self.clean(rows_per_shard)
        _release_story_models()
        self.clock.lap("clean_and_signatures")
        keys, rules, evidence = self.read_keys(cleaned)
        # phase 2 (exact duplicates), then phases 3 and 4 in find_near
        rejected = [(g, rules[g], evidence[g]) for g in range(len(keys.ids)) if rules[g] is not None]
        dedup = deduplicate(keys, (g for g in range(len(keys.ids)) if rules[g] is None), self.find_near, self.summary)
        rejected += dedup.rejected
        kept, cluster_ids, held_counts = self.drop_held_out(dedup, keys, rejected)
        self.clock.lap("clusters_filter")
        files = self.write_tables(kept, cluster_ids, rejected)
        self.clock.lap("write")
        seconds = time.perf_counter() - started
        self.clock.phases["signatures_cpu"] = round(sum(r.stats.get("signature_seconds", 0.0) for r in cleaned), 3)
        counts = {
            "stories_in": len(keys.ids),
            "kept": len(kept),
            "removed": len(rejected),
            "clusters": dedup.clusters,
            "seconds": round(seconds, 3),
            "stories_per_second": round(len(keys.ids) / seconds, 1) if seconds else None,
            "phase_seconds": self.clock.phases,
            "pii": pii_stats(_pii_counts(cleaned), self.params),
        }
        if self.held_out is not None:
            counts["held_out"] = self.held_out.stats(held_counts)
        self.write_manifest(files, counts)
        shutil.rmtree(self.work, ignore_errors=True)
        return CleanFilesResult(len(kept), len(rejected), summary_rows(self.summary), counts, files)

    def clean(self, rows_per_shard: int) -> list:
        """Phase 1 on the executor: each shard of stories cleaned and signed into a part."""
        shards = plan_clean_shards(self.paths, rows_per_shard, stage=self.work / "input")
        fingerprint = _fingerprint(self.params, self.paths, rows_per_shard)
        cleaned = self.run_shards(
            partial(clean_shard, params=self.params),
            shards,
            self.work / "clean",
            fingerprint=fingerprint,
            suffix=".arrow",
            description="clean",
        )
        self.parts = [r.part for r in cleaned]
        self.starts = np.cumsum([0] + [r.stats["stories"] for r in cleaned])
        return cleaned

    def read_keys(self, cleaned: list) -> tuple[StoryKeys, list[str | None], list[str | None]]:
        """What the driver holds per story (id, flags, length, source, url, title or not; the rule that rejected
        it and its evidence), each story counted in the summary; the texts stay in the parts."""
        keys = _read_meta(self.parts)
        ids, flags, lengths, sources, urls = (keys[c] for c in ("story_id", "flags", "_len", "source", "url"))
        rules, evidence = keys["_rule"], keys["_evidence"]
        self.ids = ids
        for g in range(len(ids)):
            count_story(self.summary, sources[g] or "", flags[g], rules[g])
        return StoryKeys(ids, flags, lengths, sources, urls, keys["title"]), rules, evidence

    def find_near(self, unique: list[int], rank: Callable[[int], tuple]) -> NearDuplicates:
        """Phases 3 and 4 over the unique stories: buckets of their signatures on the executor, then clusters; the
        sources of held-out cases among them are noted in `held`."""
        self.clock.lap("exact")
        params, work = self.params, self.work
        sigs = _signatures_of(self.parts, self.starts, unique, params.dedup.num_perm)
        sig_path = work / "signatures.npy"
        work.mkdir(parents=True, exist_ok=True)
        with open(sig_path, "wb") as handle:
            np.save(handle, sigs)
        bands, rows = lsh_bands(lsh_threshold(params.dedup), params.dedup.num_perm)
        band_shards = [
            Shard(str(sig_path), lo, min(bands, lo + BANDS_PER_SHARD), sigs.nbytes * BANDS_PER_SHARD // bands)
            for lo in range(0, bands, BANDS_PER_SHARD)
        ]
        sig_print = hashlib.sha256(sigs.data).hexdigest()[:16]
        # from here the signatures are read from their file, mapped: never two copies in this process (nor one in
        # each worker forked for the buckets)
        del sigs
        _trim_heap()
        pair_parts = [
            r.part
            for r in self.run_shards(
                partial(bucket_shard, rows=rows),
                band_shards,
                work / "buckets",
                fingerprint=f"{sig_print}-{rows}-keys",
                suffix=".npy",
                description="buckets",
            )
        ]
        found = np.zeros(0, dtype=np.int64)
        for part in pair_parts:  # merged a part at a time (sorted, unique): never every band's copies at once
            found = merge_sorted(found, np.load(part))
        sigs = np.load(sig_path, mmap_mode="r")
        pairs = pairs_of(found, len(sigs))
        del found
        self.clock.lap("buckets")
        near = cluster_and_filter(sigs, pairs, rank, params.dedup)
        if self.held_out is not None:
            self.match_held_out(unique, sigs)
        del sigs, pairs  # not needed from here: the write phase starts from what the clusters left
        _trim_heap()
        return near

    def match_held_out(self, unique: list[int], sigs: np.ndarray) -> None:
        """The sources of held-out cases among the unique stories (`lotdata.clean.heldout`), noted in `held`: their
        ids, sentences and whole-text signatures, read a part at a time."""
        if self.held_out is None:
            return
        matcher = HeldOutMatcher(self.held_out, self.params.dedup)
        columns = ["story_id", "sentences", *(c for c in self.held_out.id_columns if c != "story_id")]
        for k, rows, slot in _by_part(self.starts, unique):
            table = _read_part(self.parts[k], columns).take(indices(rows))
            for i, reason in matcher.match(table.to_pydict(), sigs[slot]).items():
                self.held[unique[int(slot[i])]] = reason

    def drop_held_out(
        self, dedup: Deduplicated, keys: StoryKeys, rejected: list[tuple[int, str, str | None]]
    ) -> tuple[list[int], list[str | None], Counter]:
        """The kept stories and their cluster ids, less the sources of held-out cases (added to `rejected`)."""
        kept, cluster_ids = [], []
        held_counts: Counter = Counter()
        summary, held, sources = self.summary, self.held, keys.sources
        for g, cluster_id in zip(dedup.kept, dedup.cluster_ids):
            if g in held:  # the source of a held-out case leaves the corpus (ROCStories 4.2)
                rejected.append((g, "held_out", held[g][1]))
                summary[(sources[g] or "", "held_out", "removed")] += 1
                if cluster_id is not None:  # counted as a cluster member by deduplicate: no longer kept
                    summary[(sources[g] or "", "near_duplicate_cluster", "flagged")] -= 1
                    summary += Counter()  # drops a count that fell to zero (in place)
                held_counts[held[g][0]] += 1
                continue
            kept.append(g)
            cluster_ids.append(cluster_id)
        return kept, cluster_ids, held_counts

    def write_tables(
        self, kept: list[int], cluster_ids: list[str | None], rejected: list[tuple[int, str, str | None]]
    ) -> dict[str, Path]:
        """The outputs one after the other, a run of OUTPUT_ROWS rows at a time, each gathered part by part: the
        driver's memory is bounded by the run, not by the corpus. The generators keep no reference to a run once
        it is yielded: two runs are never alive at once."""
        parts, starts, out = self.parts, self.starts, self.out
        pa.default_memory_pool().release_unused()  # what the earlier phases freed, back to the system first
        _trim_heap()

        def kept_pieces() -> Iterator[pa.Table]:
            for lo in range(0, max(len(kept), 1), OUTPUT_ROWS):  # no story kept: one empty row group
                yield _take_rows(parts, starts, kept[lo : lo + OUTPUT_ROWS]).set_column(
                    STORIES.get_field_index("cluster_id"),
                    STORIES.field("cluster_id"),
                    column(cluster_ids[lo : lo + OUTPUT_ROWS], pa.string()),
                )

        def quarantine_pieces() -> Iterator[pa.Table]:
            for lo in range(0, max(len(rejected), 1), OUTPUT_ROWS):
                yield _rejected_rows(parts, starts, rejected[lo : lo + OUTPUT_ROWS])

        files = {"stories": write_parquet_pieces(kept_pieces(), STORIES, out / "stories.parquet")}
        pa.default_memory_pool().release_unused()
        files |= {
            "quarantine": write_parquet_pieces(quarantine_pieces(), STORIES_QUARANTINE, out / "quarantine.parquet"),
            "summary": write_parquet(table_of(summary_rows(self.summary), CLEAN_SUMMARY), out / "summary.parquet"),
        }
        return files

    def write_manifest(self, files: dict[str, Path], counts: dict[str, Any]) -> None:
        recorded = {k: v for k, v in asdict(self.params).items() if k != "lexicon"}
        recorded["lexicon_terms"] = len(self.params.lexicon)
        write_manifest(
            self.out,
            kind="clean",
            task="clean",
            command="lotdata clean",
            params=recorded,
            inputs=self.paths,
            files=files,
            stats=counts,
        )


def _read_meta(parts: Sequence[Path]) -> dict[str, list]:
    """The _META columns of every part as lists, read a part at a time (never every part's Arrow columns at once);
    one object for each distinct flag list and source (a few dozen), not one a story, and `title` as whether the
    story has one."""
    keys: dict[str, list] = {c: [] for c in _META}
    seen: dict[Any, Any] = {}
    for part in parts:
        meta = _read_part(part, _META)
        for name in _META:
            values = meta.column(name).to_pylist()
            if name == "flags":
                values = [seen.setdefault(v, v) for v in map(tuple, values)]
            elif name == "source":
                values = [seen.setdefault(v, v) for v in values]
            elif name == "title":
                values = [bool((t or "").strip()) for t in values]
            keys[name] += values
    return keys


def _pii_counts(cleaned: list) -> Counter:
    """The `pii` rule's (kind, values|stories) counts of every shard of phase 1, summed."""
    counts: Counter = Counter()
    for result in cleaned:
        for kind, what, n in result.stats.get("pii", []):
            counts[(kind, what)] += n
    return counts


class _Clock:
    """Wall seconds per phase (a lap ends a phase), for the benchmark; never part of the outputs."""

    def __init__(self, started: float) -> None:
        self.last, self.phases = started, {}

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name], self.last = round(now - self.last, 3), now


def _take_rows(parts: Sequence[Path], starts: np.ndarray, positions: Sequence[int]) -> pa.Table:
    """The stories at global row `positions`, in that order, reading one part at a time."""
    pieces, slots = [], []
    for k, rows, slot in _by_part(starts, positions):
        pieces.append(_read_part(parts[k], STORIES.names).take(indices(rows)))  # a copy: the part is unmapped
        slots.append(slot)
    table = pa.concat_tables(pieces) if pieces else _empty(pa.schema([_PART.field(c) for c in STORIES.names]))
    back = np.empty(len(positions), dtype=np.int64)  # row i of the result is row back[i] of the parts' pieces
    back[np.concatenate(slots) if slots else []] = np.arange(len(positions))
    return table.take(indices(back))


def _release_story_models() -> None:
    """The tagger and the language model the rules of phase 1 loaded, freed when phase 1 ran in this process (one
    worker): no later phase uses them, and they held about 30 MiB through the rest of the run."""
    from lotdata.text.langid import release_model
    from lotdata.text.postag import release_tagger

    release_tagger()
    release_model()
    _trim_heap()


def _trim_heap() -> None:
    """Hand the heap's free pages back to the system (glibc keeps them after big numpy arrays are freed)."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _rejected_rows(parts: Sequence[Path], starts: np.ndarray, batch: Sequence[tuple[int, str, str | None]]) -> pa.Table:
    """The quarantine rows of `batch` (global row, rule, evidence): the story, its status, rule and evidence."""
    table = _take_rows(parts, starts, [g for g, _, _ in batch])
    table = table.set_column(
        table.schema.get_field_index("status"), "status", column(["rejected"] * len(batch), pa.string())
    )
    table = table.append_column("rule", column([r for _, r, _ in batch], pa.string()))
    return table.append_column("evidence", column([(e or "")[:EVIDENCE_LIMIT] for _, _, e in batch], pa.string()))


def _by_part(starts: np.ndarray, positions: Sequence[int]) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """For each part k holding some of `positions` (part k holds the global rows starts[k]:starts[k + 1]):
    (k, the rows in the part, where they go in `positions`), in part order."""
    wanted = np.asarray(positions, dtype=np.int64)
    order = np.argsort(wanted, kind="stable")
    ordered = wanted[order]
    bounds = np.searchsorted(ordered, starts)
    for k in range(len(starts) - 1):
        if bounds[k + 1] > bounds[k]:
            yield k, ordered[bounds[k] : bounds[k + 1]] - starts[k], order[bounds[k] : bounds[k + 1]]


def _empty(schema: pa.Schema) -> pa.Table:
    # not Schema.empty_table(): it imports pandas (about 50 MiB, in every forked worker too)
    return pa.Table.from_batches([], schema=schema)


def _signatures_of(parts: Sequence[Path], starts: np.ndarray, positions: list[int], num_perm: int) -> np.ndarray:
    """The signatures of the stories at global `positions`, in that order, read part by part."""
    sigs = np.zeros((len(positions), num_perm), dtype=np.uint32)
    for k, rows, slot in _by_part(starts, positions):
        column = _read_part(parts[k], ["_sig"]).column("_sig")
        found = column.take(indices(rows)).to_pylist()
        sigs[slot] = np.frombuffer(b"".join(found), dtype=np.uint32).reshape(len(rows), num_perm)
    return sigs
