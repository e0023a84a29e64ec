"""The overlap commands as records (`lotdata.command`): the CLI, the library call and the conformance checks
are derived from them, and the one runner gives each its checks, locks and atomic publication."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.command import Command, Output, Run, execution_of, register_command
from lotdata.exec import ExecSettings
from lotdata.stage import param


@dataclass(frozen=True, kw_only=True)
class IndexBuildParams(ExecSettings):
    references: list[str] = param(
        help="References: what `overlap --reference` reads (.txt/.jsonl/.parquet, .gz/.zst, folders, quoted globs).",
        path="input",
    )
    out: str = param(help="The index folder (built beside it and swapped in whole; a killed build run again resumes).")
    tokenizer: str | None = param(None, help="Chinese tokenizer (default rjieba; jieba for LOT's exact setting).")
    lang: str = param("zh", help="zh or en.", choices=("zh", "en"))
    drop_punct: bool = param(False, help="Drop punctuation tokens (queries must then use it too).")
    shard_mb: int = param(64, help="Shard size: memory per worker grows with it (about 56 bytes a word).", check=">0")


def _index_build(run: Run) -> dict[str, Any]:
    from lotdata.overlap import DEFAULT_TOKENIZER
    from lotdata.overlap.index import build_index
    from lotdata.overlap.texts import TokenSpec
    from lotdata.text.tokenize import get_tokenizer

    p: IndexBuildParams = run.params
    spec = TokenSpec(tokenizer=p.tokenizer or DEFAULT_TOKENIZER, lang=p.lang, drop_punct=p.drop_punct)
    get_tokenizer(spec.tokenizer)
    manifest = build_index(
        p.references, run.out("--out"), spec=spec, execution=execution_of(p), shard_bytes=p.shard_mb << 20
    )
    totals = manifest["totals"]
    return {
        "documents": totals["docs"],
        "words": totals["tokens"],
        "characters": totals["chars"],
        "shards": len(manifest["shards"]),
        "index MB": round(totals["index_bytes"] / 1e6, 1),
        "bytes per character": round(totals["index_bytes"] / max(totals["chars"], 1), 2),
        "seconds": manifest["build_seconds"],
    }


def _index_sample(folder: Path) -> list[str]:
    ref = folder / "ref.txt"
    ref.write_text("小明 今天 去 学校 上课 了 。\n他 很 高兴 地 回家 了 。\n", encoding="utf-8")
    return [str(ref), "--out", str(folder / "index"), "--tokenizer", "jieba"]


INDEX_BUILD = register_command(
    Command(
        name="index build",
        params=IndexBuildParams,
        execute=_index_build,
        inputs=lambda p: {"REF": [r for r in p.references if "*" not in r and "?" not in r]},
        outputs=lambda p: [Output("--out", Path(p.out), kind="overlap-index")],
        summary="Tokenise REF once (as `overlap` does) and write word ids, a suffix array per shard and a manifest.",
        arguments=("references",),
        metavars={"references": "REF"},
        sample=_index_sample,
    )
)
