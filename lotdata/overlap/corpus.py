"""Reference corpora of any size, streamed: expand globs into files, files into shards, shards into documents.

A document is `(doc_id, [text, ...])`. Plain `.txt` and `.jsonl` files are cut into byte ranges (a line
belongs to the shard holding its first byte) so one big file still uses every worker; compressed files
(`.gz`, `.zst`) are one shard each; Parquet files are cut by row groups. Nothing is ever loaded whole.

Document ids: `path@byte` for plain text files (the line's byte offset), `path:line` for compressed ones,
`path:row` for Parquet (or `path:<id>` when the table has an id column), `path#N` for CMRC/CFT documents.

A line is read in pieces of at most `LINE_PIECE_BYTES`, each cut after a separator character (space or
punctuation, where the tokenizers cut anyway); the scan carries the last n-1 words of a piece into the next
(see `Continuation`), so a 20 MB single-line file costs a few MB of memory and yields the same n-grams.

Raw CMRC 2017 / CFT files (`N ||| sentence` lines, `XXXXX` blanks, answers in a sibling `.answer` file) are
recognised by their first line and read as `lotdata read --format cmrc` reads them (blank filled, word
spaces removed); their answer files are not documents and are refused.
"""

from __future__ import annotations

import codecs
import glob
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from lotdata.datasets.inputs import open_input
from lotdata.errors import InputError, LotdataError, require
from lotdata.exec import Shard, parquet_shards
from lotdata.overlap.texts import example_texts, text_fields_of
from lotdata.schema import table_kind

DEFAULT_SHARD_BYTES = 32 << 20
#: the longest piece of a line read at once (a longer line is read, and scanned, in pieces)
LINE_PIECE_BYTES = 4 << 20
#: characters after which a piece may end: the tokenizers (jieba's blocks, English words) cut there anyway
_SEPARATORS = frozenset(" \t\r\n\u3000。！？；，、：“”‘’（）《》〈〉【】「」『』…—!?;,:()[]{}\"'")
_CMRC_DOC_LINE = re.compile(rb"^\d+ \|\|\| ")
_CMRC_ANSWER_LINE = re.compile(rb"^<qid_\d+> \|\|\| ")


class Continuation(list):
    """The texts of a piece that continues the previous document (a long line): n-grams run across."""


_COMPRESSED = (".gz", ".zst")
_PLAIN = (".txt", ".jsonl", ".json", ".text")
_ID_COLUMNS = ("example_id", "story_id", "id", "doc_id")
#: jsonl / parquet fields that are never text to measure
_NOT_TEXT = {
    "id",
    "label",
    "url",
    "lang",
    "source",
    "license",
    "split",
    "status",
    "fetched_at",
    "story_id",
    "example_id",
    "source_id",
    "annotator",
    "annotation_id",
    "sha",
    "doc_id",
}


@dataclass
class Expanded:
    files: list[Path]
    missing: list[str]


def expand_references(patterns: list[str]) -> Expanded:
    """Files named by paths, globs or dataset folders (their split Parquet files), in a stable order."""
    files: list[Path] = []
    missing: list[str] = []
    for pattern in patterns:
        path = Path(pattern)
        if path.is_dir():
            folder = open_input(path)
            if folder.kind in ("dataset", "stories-splits"):  # its split tables
                found = [f for f in folder.files if f.exists()]
            elif folder.kind in ("clean", "crawl"):  # the stories kept, not the quarantine
                found = [path / "stories.parquet"]
            else:
                found = sorted(p for p in path.rglob("*") if p.is_file() and _kind(p) not in (None, "cmrc_answer"))
            files.extend(found)
            if not found:
                missing.append(f"{pattern} (a folder with no .txt/.jsonl/.parquet/.gz/.zst file)")
            continue
        matches = sorted(glob.glob(pattern, recursive=True)) if glob.has_magic(pattern) else [pattern]
        matches = [m for m in matches if Path(m).is_file()]
        if not matches:
            missing.append(pattern)
        files.extend(Path(m) for m in matches)
    unique = list(dict.fromkeys(files))
    return Expanded(unique, missing)


def _kind(path: Path) -> str | None:
    name = path.name.lower()
    if name.endswith(".parquet"):
        return "parquet"
    for ext in _COMPRESSED:
        if name.endswith(ext):
            return "compressed"
    if name.endswith((".jsonl", ".json")):
        return "plain"
    sniffed = _sniff_cmrc(path)
    if sniffed:
        return sniffed
    if name.endswith(_PLAIN) or "." not in name:
        return "plain"
    return None


def _sniff_cmrc(path: Path) -> str | None:
    """'cmrc' for a raw CMRC/CFT document file, 'cmrc_answer' for its answer file, else None."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    first = next((line for line in head.splitlines() if line.strip()), b"")
    if _CMRC_DOC_LINE.match(first):
        return "cmrc"
    if _CMRC_ANSWER_LINE.match(first):
        return "cmrc_answer"
    return None


def plan_shards(files: list[Path], shard_bytes: int = DEFAULT_SHARD_BYTES) -> list[Shard]:
    """Cut files into shards of about `shard_bytes` (byte ranges, row-group ranges, or whole files)."""
    shards: list[Shard] = []
    for path in files:
        kind = _kind(path) or "plain"
        size = path.stat().st_size
        if kind == "plain" and size > shard_bytes:
            for start in range(0, size, shard_bytes):
                stop = min(start + shard_bytes, size)
                shards.append(Shard(str(path), start, stop, stop - start))
        elif kind == "parquet":
            shards.extend(parquet_shards(path, shard_bytes))
        else:
            shards.append(Shard(str(path), 0, None, size))
    return shards


def iter_documents(shard: Shard) -> Iterator[tuple[str, list[str]]]:
    """Documents of one shard; a read problem raises InputError naming the file (and byte or line)."""
    path = Path(shard.path)
    kind = _kind(path) or "plain"
    if kind == "cmrc_answer":
        raise InputError(
            "a CMRC/CFT answer file (`<qid_N> ||| answer` lines), not documents: give the "
            ".doc_query file beside it (its answers are read from here)",
            path=shard.path,
        )
    try:
        if kind == "parquet":
            yield from _parquet_documents(path, shard)
        elif kind == "cmrc":
            yield from _cmrc_documents(path)
        else:
            yield from _line_documents(path, shard, kind)
    except LotdataError:
        raise
    except Exception as exc:  # noqa: BLE001 - any reader failure (gzip, zstd, arrow, OS) names the file
        raise InputError(f"cannot read ({type(exc).__name__}: {exc})", path=shard.path) from exc


class _ChunkReader(io.RawIOBase):
    """A readable stream over an iterator of byte chunks (errors raised by the iterator pass through)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks, self._buffer = chunks, b""

    def readable(self) -> bool:
        return True

    def readinto(self, target) -> int:
        while not self._buffer:
            try:
                self._buffer = next(self._chunks)
            except StopIteration:
                return 0
        n = min(len(target), len(self._buffer))
        target[:n] = self._buffer[:n]
        self._buffer = self._buffer[n:]
        return n


def _zstd_chunks(path: Path) -> Iterator[bytes]:
    """Decompressed bytes of a .zst file, frame after frame; a file cut inside a frame is an error
    (zstandard's stream reader would silently stop at the break and the figures would be wrong)."""
    zstandard = require("zstandard", "overlap")
    decompressor = zstandard.ZstdDecompressor()
    with open(path, "rb") as handle:
        frame, consumed, started = decompressor.decompressobj(), 0, False
        while chunk := handle.read(1 << 20):
            consumed += len(chunk)
            while chunk:
                started = True
                out = frame.decompress(chunk)
                if out:
                    yield out
                if not frame.eof:
                    break
                chunk = frame.unused_data  # the next frame starts here
                frame, started = decompressor.decompressobj(), False
        if started and not frame.eof:
            raise InputError(
                f"truncated zstd file: it ends inside a frame (after {consumed:,} compressed bytes); "
                "the file was cut short (an interrupted download or copy?)",
                path=str(path),
            )


def _open_binary(path: Path) -> io.BufferedIOBase:
    name = path.name.lower()
    if name.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if name.endswith(".zst"):
        return io.BufferedReader(_ChunkReader(_zstd_chunks(path)), buffer_size=1 << 20)
    return open(path, "rb")


def _pieces(path: Path, shard: Shard, kind: str) -> Iterator[tuple[str, bytes, bool, int]]:
    """(document id, bytes, whether the bytes continue the previous line, their byte offset) of each
    line of the shard, a line longer than LINE_PIECE_BYTES in several pieces."""
    with _open_binary(path) as handle:
        if kind == "compressed":
            line_no, offset, continues = 1, 0, False
            while piece := handle.readline(LINE_PIECE_BYTES):
                yield f"{path}:{line_no}", piece, continues, offset
                offset += len(piece)
                continues = not piece.endswith(b"\n")
                line_no += 0 if continues else 1
            return
        offset = shard.start
        if offset > 0:
            handle.seek(offset - 1)
            while True:  # skip the line that began in the previous shard
                skipped = handle.readline(LINE_PIECE_BYTES)
                offset += len(skipped)
                if not skipped or skipped.endswith(b"\n"):
                    break
            offset -= 1
        stop = shard.stop if shard.stop is not None else float("inf")
        line_start, continues = offset, False
        while offset < stop or continues:
            piece = handle.readline(LINE_PIECE_BYTES)
            if not piece:
                break
            yield f"{path}@{line_start}", piece, continues, offset
            offset += len(piece)
            continues = not piece.endswith(b"\n")
            if not continues:
                line_start = offset


def _line_documents(path: Path, shard: Shard, kind: str) -> Iterator[tuple[str, list[str]]]:
    is_jsonl = ".jsonl" in path.name.lower() or ".json" in path.name.lower()
    decoder = codecs.getincrementaldecoder("utf-8")()
    held = ""  # text after the last separator of a piece: it goes with the next piece
    pending_json: list[str] = []
    for doc_id, raw, continues, offset in _pieces(path, shard, kind):
        if not continues:
            decoder.reset()
            held = ""
        if b"\x00" in raw:
            at = offset + raw.index(b"\x00")
            raise InputError(
                f"binary data (NUL byte) at byte {at:,} (line at {doc_id}): not a text file", path=shard.path
            )
        ends_line = raw.endswith(b"\n")
        buffered = len(decoder.getstate()[0])  # bytes of a character cut by the previous piece
        try:
            text = decoder.decode(raw, final=ends_line)
        except UnicodeDecodeError as exc:
            offset -= buffered
            where = (
                f"byte {offset + exc.start:,}" if kind != "compressed" else f"decompressed byte {offset + exc.start:,}"
            )
            raise InputError(
                f"not UTF-8 text at {where} (line at {doc_id}; {exc.reason}): binary or mis-encoded file",
                path=shard.path,
            ) from exc
        if is_jsonl:  # a JSON record needs its whole line
            pending_json.append(text)
            if not ends_line and not _last_piece(raw):
                continue
            line, pending_json = "".join(pending_json), []
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise InputError(f"not a JSON line at {doc_id} ({exc})", path=shard.path) from exc
            yield doc_id, texts_of_record(obj)
            continue
        text = held + text
        held = ""
        if not ends_line and len(raw) == LINE_PIECE_BYTES:
            cut = _last_separator(text)
            text, held = text[:cut], text[cut:]
        text = text.rstrip("\r\n") if ends_line else text
        if continues:
            yield doc_id, Continuation([text])
        elif text.strip():
            yield doc_id, [text]
    if held:
        yield doc_id, Continuation([held])


def _last_piece(raw: bytes) -> bool:
    return len(raw) < LINE_PIECE_BYTES  # a short piece without a newline: the file's last line


#: a text longer than this is tokenized in pieces (cut after a separator; the scan carries n-1 words across)
TEXT_PIECE_CHARS = 1 << 20


def text_pieces(text: str, limit: int | None = None) -> Iterator[str]:
    """`text` in pieces of at most `limit` characters (TEXT_PIECE_CHARS), each ending just after a separator."""
    limit = limit or TEXT_PIECE_CHARS
    start = 0
    while len(text) - start > limit:
        cut = start + _last_separator(text[start : start + limit])
        yield text[start:cut]
        start = cut
    yield text[start:] if start else text


def _last_separator(text: str) -> int:
    """Where to end a piece: just after its last separator (the whole piece if it has none)."""
    for i in range(len(text) - 1, max(-1, len(text) - 65536), -1):
        if text[i] in _SEPARATORS:
            return i + 1
    return len(text)


def _cmrc_documents(path: Path) -> Iterator[tuple[str, list[str]]]:
    """A raw CMRC/CFT file read exactly as `lotdata read --format cmrc` reads it."""
    from lotdata.sources.readers import read_stories

    result = read_stories([path], fmt="cmrc")
    if not result.stories:
        raise InputError(
            f"no CMRC/CFT document could be read ({len(result.quarantine)} quarantined); "
            f"see `lotdata read --format cmrc {path} --out stories.parquet`",
            path=str(path),
        )
    for row in result.stories:
        yield row["url"], [t for t in (row.get("title"), row["text"]) if t]


def texts_of_record(obj: Any) -> list[str]:
    """The text of a JSON record: `text` (+ `title`) when present, else every string field but ids and labels."""
    if isinstance(obj, str):
        return [obj]
    if not isinstance(obj, dict):
        return []
    if isinstance(obj.get("text"), str):
        return [t for t in (obj.get("title"), obj["text"]) if isinstance(t, str)]
    texts: list[str] = []
    for key, value in obj.items():
        if key in _NOT_TEXT:
            continue
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list):
            texts.extend(v for v in value if isinstance(v, str))
    return texts


def _parquet_documents(path: Path, shard: Shard) -> Iterator[tuple[str, list[str]]]:
    import pyarrow.parquet as pq

    file = pq.ParquetFile(path)
    schema = file.schema_arrow
    kind = table_kind(schema)
    known = text_fields_of(kind)
    fields = list(known) if known else _generic_text_fields(schema)
    fields = [f for f in fields if f in schema.names]
    if not fields:
        raise InputError("no text column (text, story, or any string column)", path=str(path))
    id_column = next((c for c in _ID_COLUMNS if c in schema.names), None)
    extra = [c for c in (id_column, "lang") if c and c in schema.names and c not in fields]
    groups = list(range(shard.start, shard.stop if shard.stop is not None else file.num_row_groups))
    row = sum(file.metadata.row_group(g).num_rows for g in range(shard.start))
    for batch in file.iter_batches(row_groups=groups, columns=fields + extra, batch_size=4096):
        for record in batch.to_pylist():
            row += 1
            doc_id = f"{path}:{record[id_column]}" if id_column else f"{path}:{row}"
            if known:
                yield doc_id, [text for _, text in example_texts(kind, record)]
            else:
                yield doc_id, texts_of_record({k: record[k] for k in fields})


def _generic_text_fields(schema) -> list[str]:
    import pyarrow as pa

    if "text" in schema.names:
        return [n for n in ("title", "text") if n in schema.names]
    return [
        f.name
        for f in schema
        if f.name not in _NOT_TEXT
        and (
            pa.types.is_string(f.type)
            or pa.types.is_large_string(f.type)
            or (pa.types.is_list(f.type) and pa.types.is_string(f.type.value_type))
        )
    ]


__all__ = [
    "DEFAULT_SHARD_BYTES",
    "Continuation",
    "expand_references",
    "iter_documents",
    "plan_shards",
    "text_pieces",
    "texts_of_record",
]
