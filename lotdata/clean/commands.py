"""`lotdata clean` as a record (`lotdata.command`): the CLI, the library call (`run_command`) and the
conformance checks are derived from it, and the one runner gives it its checks (the clean folder is never one
of the stories tables, the lexicon or the held-out test set), its lock and atomic publication: the clean
folder is built beside its target and swapped in whole, so a run that fails leaves the previous one as it was."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.clean.stage import PER_SOURCE, CleanStepParams
from lotdata.command import Command, Output, Run, execution_of, folder_kind, register_command
from lotdata.exec import ExecSettings
from lotdata.io import MANIFEST_NAME
from lotdata.stage import param

#: what a clean folder holds (`lotdata.clean.files`); one killed before its manifest holds its `.work/`
CLEAN_NAMES = frozenset({"stories.parquet", "quarantine.parquet", "summary.parquet", MANIFEST_NAME, ".work"})


@dataclass(frozen=True, kw_only=True)
class CleanCommandParams(ExecSettings, CleanStepParams):
    """`CleanStepParams` (the recipe's `[clean]`) with the stories tables and the folder on the command line."""

    stories: list[str] = param(help="stories Parquet file(s); duplicates are found across all of them.", path="input")
    out: str = param(help="Folder for stories.parquet, quarantine.parquet, summary.parquet, manifest.json.")
    quality_model: str | None = param(
        None, "A `lotdata quality train` model folder: score the kept stories with it (see --quality).", path="input"
    )
    quality: str = param(
        "order",
        "With --quality-model: order (best score first) or drop (below its threshold, to quarantine.parquet).",
        choices=("order", "drop"),
    )


def _is_clean_folder(path: Path) -> bool:
    held = folder_kind(path)
    return held == "clean" or (held is None and all(entry.name in CLEAN_NAMES for entry in path.iterdir()))


def _clean(run: Run) -> dict[str, Any]:
    from lotdata.clean.files import clean_files
    from lotdata.errors import InputError

    p: CleanCommandParams = run.params
    out = run.out("--out")
    if p.quality_model is not None:  # a wrong model folder fails now, not after the whole clean
        from lotdata.datasets.quality import quality_info

        quality_info(p.quality_model)
    result = clean_files(p.stories, out, p.clean_params(), execution=execution_of(p), **p.hold_out_settings())
    if not result.kept:
        raise InputError(
            f"no story kept: {result.counts['stories_in']} read, {result.counts['removed']} removed; "
            f"see {out / 'quarantine.parquet'} and {out / 'summary.parquet'} ({run.final('--out')} was not touched)",
            path=", ".join(map(str, p.stories)),
        )
    counts = dict(result.counts)
    if p.quality_model is not None:
        from lotdata.datasets.quality import apply_quality

        counts["quality"] = apply_quality(out, p.quality_model, p.quality)
    return {**counts, PER_SOURCE: result.summary}


def _clean_sample(folder: Path) -> list[str]:
    from lotdata.io import write_parquet
    from lotdata.schema import STORIES, table_from_rows
    from lotdata.sources.story import make_story_row

    texts = [
        "从前有一只小狐狸住在山脚下。它每天早上都去河边喝水，看见河里的小鱼游来游去。"
        "有一天，它想学游泳，结果掉进了水里，幸好一只老乌龟把它驮上了岸。",
        "小熊想给妈妈做一个生日蛋糕。它找来面粉、鸡蛋和蜂蜜，在厨房里忙了一个下午。"
        "蛋糕烤焦了一半，可是妈妈吃得很开心，说这是她吃过最甜的蛋糕。",
        "短。",
    ]
    stories = folder / "stories.parquet"
    write_parquet(table_from_rows([make_story_row(t, source="sample", lang="zh") for t in texts], STORIES), stories)
    return [str(stories), "--out", str(folder / "clean")]


CLEAN = register_command(
    Command(
        name="clean",
        params=CleanCommandParams,
        execute=_clean,
        inputs=lambda p: {
            "STORIES": p.stories,
            "--lexicon": p.lexicon,
            "--hold-out": p.hold_out,
            "--quality-model": p.quality_model,
        },
        outputs=lambda p: [Output("--out", Path(p.out), kind="clean", owned=_is_clean_folder)],
        summary="Clean stories: strip noise, flag for annotators, reject by rule, remove exact and near-duplicates.",
        arguments=("stories",),
        check=lambda p: p.check(),
        sample=_clean_sample,
    )
)
