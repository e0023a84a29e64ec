"""The source commands as records (`lotdata.command`): `read`, `extract` and `crawl`. The CLI, the library call
(`run_command`) and the conformance checks are derived from them, and the one runner gives each its checks
(an output is never an input, nor one of its side files), locks and atomic publication: a run that fails
publishes nothing, so the previous table and its quarantine stay as they were, together; what the failed run
wrote (a quarantine that says why nothing was read) stays in the staging folder its error names."""

from __future__ import annotations

import gzip
import hashlib
import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from lotdata.command import Command, Output, Run, execution_of, folder_kind, register_command
from lotdata.exec import ExecSettings
from lotdata.io import MANIFEST_NAME, quarantine_path_for
from lotdata.sources.crawl_stage import CrawlParams
from lotdata.sources.extract_stage import ExtractParams
from lotdata.sources.read_stage import ReadParams
from lotdata.stage import param


def _help(cls: type, name: str) -> str:
    return next(f.metadata["help"] for f in fields(cls) if f.name == name)


def _work_folder(out: Path) -> Path:
    """`OUT.work/`: the parts of a sharded run (a killed run resumes from them; removed when it succeeds)."""
    return out.with_name(out.name + ".work")


def _is_work_folder(path: Path) -> bool:
    """A work folder of `lotdata.exec.run_shards`: nothing in it but its `parts/` and `done/`."""
    return all(entry.name in ("parts", "done") and entry.is_dir() for entry in path.iterdir())


def _table_outputs(out: str, *, work: bool) -> list[Output]:
    """A stories table, its quarantine beside it (written only when a record was rejected) and, for a sharded
    run, its work folder (never published: a stale one of an older run is removed)."""
    path = Path(out)
    found = [
        Output("--out", path, format="parquet"),
        Output("--out (its quarantine)", quarantine_path_for(path), side=True, optional=True, format="parquet"),
    ]
    if work:
        found.append(
            Output(
                "--out (its work folder)",
                _work_folder(path),
                kind="folder",
                side=True,
                optional=True,
                owned=_is_work_folder,
            )
        )
    return found


# ---------------------------------------------------------------------------------------------
# read


@dataclass(frozen=True, kw_only=True)
class ReadCommandParams(ExecSettings, ReadParams):
    """`ReadParams` (the recipe's `[read]`) with the corpus files and the output given on the command line."""

    inputs: list[str] = param(help=_help(ReadParams, "inputs"), path="input")
    out: str = param(help="stories Parquet file to write.")
    seed: int = param(0, "Accepted so that a recipe may give its steps one seed; reading draws nothing at random.")


def _read(run: Run) -> dict[str, Any]:
    from lotdata.errors import must_exist
    from lotdata.resources import resolve_input
    from lotdata.sources.read_stage import read_into

    p: ReadCommandParams = run.params
    paths = [must_exist(resolve_input(x), "input") for x in p.inputs]
    summary = read_into(paths, run.out("--out"), p, execution_of(p))
    summary["out"] = str(run.final("--out"))
    if summary["quarantine"]:
        summary["quarantine_file"] = str(run.final("--out (its quarantine)"))
    return summary


def _read_sample(folder: Path) -> list[str]:
    return ["lotdata:sample", "--out", str(folder / "stories.parquet")]


def _formats_epilog() -> str:
    from lotdata.datasets.formats import all_formats

    return "Formats (--format; detected from each file by default):\n\n" + "\n\n".join(
        f"{spec.name}: {spec.description}" for spec in all_formats()
    )


READ = register_command(
    Command(
        name="read",
        params=ReadCommandParams,
        execute=_read,
        inputs=lambda p: {"FILES": p.inputs},
        outputs=lambda p: _table_outputs(p.out, work=True),
        summary="Read local corpora into a stories table; rejected records go to OUT.quarantine.parquet.",
        arguments=("inputs",),
        metavars={"inputs": "FILES"},
        sample=_read_sample,
        epilog=_formats_epilog,
    )
)


# ---------------------------------------------------------------------------------------------
# extract


@dataclass(frozen=True, kw_only=True)
class ExtractCommandParams(ExtractParams):
    """`ExtractParams` (the recipe's `[extract]`) with the saved pages and the output on the command line."""

    inputs: list[str] = param(help=".html files, folders of them, or WARC files (.warc, .warc.gz).", path="input")
    out: str = param(help="stories Parquet file to write (rejected pages: OUT.quarantine.parquet).")


def _extract(run: Run) -> dict[str, Any]:
    from lotdata.errors import must_exist
    from lotdata.sources.extract_stage import extract_into

    p: ExtractCommandParams = run.params
    return extract_into([must_exist(x, "input") for x in p.inputs], run.out("--out"), p, named=run.final("--out"))


_SAMPLE_STORY = (
    "从前有一只小狐狸住在山脚下。它每天早上都去河边喝水，看见河里的小鱼游来游去。"
    "有一天，它想学游泳，结果掉进了水里，幸好一只老乌龟把它驮上了岸。"
)


def _sample_page() -> bytes:
    paragraphs = "".join(f"<p>{s}。</p>" for s in _SAMPLE_STORY.rstrip("。").split("。"))
    return (
        "<html><head><meta charset='utf-8'><title>小狐狸学游泳</title></head><body>"
        f"<h1 class='title'>小狐狸学游泳</h1><div class='content'>{paragraphs}</div></body></html>"
    ).encode("utf-8")


def _extract_sample(folder: Path) -> list[str]:
    pages = folder / "pages"
    pages.mkdir(parents=True, exist_ok=True)
    (pages / "fox.html").write_bytes(_sample_page())
    return [str(pages), "--out", str(folder / "extracted.parquet"), "--content-selector", "div.content p"]


EXTRACT = register_command(
    Command(
        name="extract",
        params=ExtractCommandParams,
        execute=_extract,
        inputs=lambda p: {"INPUTS": p.inputs},
        outputs=lambda p: _table_outputs(p.out, work=False),
        summary="Extract stories from saved pages with the crawler's extractor; bad pages go to the quarantine.",
        arguments=("inputs",),
        sample=_extract_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# crawl

#: what a crawl folder holds (`lotdata.sources.crawl`); one killed before its first manifest is still a crawl's
CRAWL_NAMES = frozenset({"pages.jsonl", "raw", "robots", "stories.parquet", "quarantine.parquet", MANIFEST_NAME})


def _is_crawl_folder(path: Path) -> bool:
    held = folder_kind(path)
    return held == "crawl" or (held is None and all(entry.name in CRAWL_NAMES for entry in path.iterdir()))


@dataclass(frozen=True, kw_only=True)
class CrawlCommandParams(CrawlParams):
    """`CrawlParams` (the recipe's `[crawl]`) with the crawl recipe and the crawl folder on the command line."""

    recipe: str = param(
        help="Crawl recipe: a TOML path or a shipped name (lot-sources); format in pipelines/README.md.",
        path="file",
    )
    out: str = param(help="Crawl folder: pages.jsonl log, raw/ pages, stories.parquet, quarantine.parquet.")
    quality_model: str | None = param(
        None,
        "A `lotdata quality train` model folder: score the extracted stories with it (see --quality).",
        path="input",
    )
    quality: str = param(
        "order",
        "With --quality-model: order (best score first) or drop (below its threshold, to quarantine.parquet).",
        choices=("order", "drop"),
    )


def _recipe_path(name: str) -> Path:
    """The recipe file a name stands for (a path, or a shipped recipe); as given when there is none (the run
    then says so)."""
    from lotdata.errors import MissingFileError
    from lotdata.resources import resolve_recipe

    try:
        return resolve_recipe(name)
    except MissingFileError:
        return Path(name)


def _crawl(run: Run) -> dict[str, Any]:
    from lotdata.datasets.quality import QualityGate
    from lotdata.errors import MissingFileError
    from lotdata.progress import console
    from lotdata.resources import resolve_recipe
    from lotdata.sources.crawl import crawl_into, load_crawl_recipe

    p: CrawlCommandParams = run.params
    recipe = resolve_recipe(p.recipe)
    sites = load_crawl_recipe(recipe)
    out = run.out("--out")  # a copy of the published crawl (or a killed run's own): the crawl resumes from it
    if p.extract_only and not (out / "pages.jsonl").is_file():
        raise MissingFileError(
            "no pages.jsonl: not a crawl folder, nothing saved to re-extract (--extract-only)",
            path=str(run.final("--out")),
        )

    def show(entry: dict) -> None:
        console.print(f"{entry['outcome']:>12} {entry.get('status') or '-':>4} {entry['url']}", highlight=False)

    def warn(message: str) -> None:  # as `lotdata.clikit.warn` (this layer imports no CLI module)
        console.print("[bold yellow]warning:[/] ", end="")
        console.print(message, markup=False, highlight=False)

    return crawl_into(
        recipe,
        sites,
        out,
        max_pages=p.max_pages,
        extract_only=p.extract_only,
        # a recipe step's callbacks (None: quiet), else the console's
        hooks={"on_page": run.hooks.get("on_page", show), "on_warning": run.hooks.get("on_warning", warn)},
        quality=None if p.quality_model is None else QualityGate(p.quality_model, p.quality),
    )


def _crawl_sample(folder: Path) -> list[str]:
    """A crawl folder as a crawl leaves it (one story page logged and kept), re-extracted: no network."""
    recipe = folder / "site.toml"
    recipe.write_text(
        '[[sites]]\nname = "sample"\nstart_urls = ["http://stories.invalid/index.html"]\n'
        "follow = ['/index']\nstories = ['/stories/']\ncontent_selector = \"div.content p\"\n"
        'license = "CC0"\nrate_limit = 1\ntimeout = 5\nmax_pages = 1\n',
        encoding="utf-8",
    )
    out = folder / "crawl"
    body = _sample_page()
    sha = hashlib.sha256(body).hexdigest()
    raw = out / "raw" / sha[:2] / f"{sha}.gz"
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_bytes(gzip.compress(body, mtime=0))
    entry = {
        "site": "sample",
        "url": "http://stories.invalid/stories/fox.html",
        "final_url": None,
        "outcome": "ok",
        "status": 200,
        "content_type": "text/html; charset=utf-8",
        "sha256": sha,
        "bytes": len(body),
        "attempts": 1,
        "error": None,
        "fetched_at": "2024-01-01T00:00:00+00:00",
    }
    (out / "pages.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    return ["--recipe", str(recipe), "--out", str(out), "--extract-only"]


CRAWL = register_command(
    Command(
        name="crawl",
        params=CrawlCommandParams,
        execute=_crawl,
        inputs=lambda p: {"--recipe": _recipe_path(p.recipe), "--quality-model": p.quality_model},
        outputs=lambda p: [Output("--out", Path(p.out), kind="crawl", update=True, owned=_is_crawl_folder)],
        summary="Crawl story sites politely (robots.txt, rate limit, retries), resuming from OUT; then extract stories.",
        sample=_crawl_sample,
    )
)
