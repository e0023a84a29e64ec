"""A Hugging Face dataset card (`README.md`) for any lotdata dataset folder.

The YAML header lists the splits as `configs`/`data_files`, so `datasets.load_dataset(DIR)` loads
them; the body gives the LOT Table 3 statistics, the exact command and seed, the drop counts and
the known limitations. It is a function of the folder (its manifest and split files), so every
dataset (builds, imports, Label Studio assemblies, overlap-filtered sets) gets the same card.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from lotdata.datasets.inputs import open_input
from lotdata.datasets.registry import get_task
from lotdata.datasets.stats import split_stats
from lotdata.io import read_parquet, write_text
from lotdata.schema import SPLITS

CARD_NAME = "README.md"


def _license_tag(licenses: list[str]) -> str:
    """The card's `license:` tag (`lotdata.datasets.licenses`: a known corpus's terms recognised by name)."""
    from lotdata.datasets.licenses import license_tag

    return license_tag(licenses)


def _size_category(rows: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if rows < limit:
            return label
    return "1M<n<10M"


def _yaml_header(task: str, manifest: Mapping[str, Any], splits: list[str], release: Sequence[str] = ()) -> str:
    q = lambda value: json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML string
    category = get_task(task).card_category
    languages = manifest.get("languages") or ["zh"]
    total = sum(entry["rows"] for entry in manifest.get("splits", {}).values())
    lines = [
        "---",
        f"pretty_name: {q(f'lotdata {task}')}",
        f"license: {_license_tag(manifest.get('licenses') or [])}",
        "language:",
        *[f"- {lang}" for lang in languages],
        "task_categories:",
        f"- {category}",
        "size_categories:",
        f"- {_size_category(total)}",
        "tags:",
        "- lot",
        "- story",
        f"- {task}",
        *release,  # annotations/language creators, source datasets, task ids, dataset_info (lotdata.datasets.release)
        "configs:",
        "- config_name: default",
        "  data_files:",
    ]
    for split in splits:
        lines += [f"  - split: {split}", f"    path: {q(manifest['splits'][split]['file'])}"]
    lines.append("---")
    return "\n".join(lines)


def _stats_table(task: str, stats: Mapping[str, Mapping[str, Any]], splits: list[str]) -> str:
    if not splits:
        return "_No examples._"
    keys = list(stats[splits[0]])
    lines = ["| statistic | " + " | ".join(splits) + " |", "| --- |" + " ---: |" * len(splits)]
    for key in keys:
        cells = ["–" if stats[s].get(key) is None else str(stats[s].get(key)) for s in splits]
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _drops(manifest: Mapping[str, Any]) -> str:
    stats = manifest.get("stats", {})
    rules = manifest.get("drop_rules", {})
    lines = []
    for title, counts in (
        ("stories", stats.get("stories_dropped")),
        ("paragraphs", stats.get("paragraphs_dropped")),
        ("annotated items", stats.get("annotation_dropped")),
    ):
        for reason, count in (counts or {}).items():
            lines.append(f"| {title} | {reason} | {count} | {rules.get(reason, '')} |")
    if not lines and "annotation_dropped" in stats:
        return "No annotated item was dropped."
    if not lines:
        return "Nothing was dropped (or the dataset was imported, not built)."
    return "\n".join(["| unit | reason | dropped | rule |", "| --- | --- | ---: | --- |", *lines])


def _limitations(task: str, rows: Mapping[str, list[Mapping[str, Any]]]) -> list[str]:
    """The task's known limitations, as its `card_notes` adapts them to the rows (SenPos: which splits were refined)."""
    spec = get_task(task)
    notes = list(spec.card_limitations)
    return spec.card_notes(rows, notes) if spec.card_notes is not None else notes


def card_text(
    folder: str | Path,
    manifest: Mapping[str, Any] | None = None,
    tokenizer: str | None = None,
    *,
    stats_path: str | Path | None = None,
    release: Mapping[str, Any] | None = None,
) -> str:
    """The card of a dataset folder (its manifest is read unless given); words counted with `tokenizer`. The
    statistics it computes are saved to `stats_path` (default: the folder's `stats.json`), the Croissant file to
    `release["croissant"]` (default: the folder's `croissant.json`); `release` may hold an `audit` report, `overlaps`
    summaries and the `authors`' answers (`lotdata.datasets.release`)."""
    from lotdata.datasets import release as rel

    folder = Path(folder)
    manifest = manifest if manifest is not None else open_input(folder, expect=("dataset",)).manifest
    task = manifest["task"]
    schema = get_task(task).schema
    present = [s for s in SPLITS if s in manifest.get("splits", {})] + [
        s for s in manifest.get("splits", {}) if s not in SPLITS
    ]
    rows = {s: read_parquet(folder / manifest["splits"][s]["file"], schema).to_pylist() for s in present}
    non_empty = [s for s in present if rows[s]]  # datasets cannot load an empty split
    stats = {s: split_stats(task, rows[s], tokenizer) for s in non_empty}
    save_stats(folder, manifest, stats, tokenizer, path=stats_path)
    description = get_task(task).card_description
    env = manifest.get("environment", {})
    params = manifest.get("params", {})
    inputs = (
        "\n".join(f"- `{i['path']}` (sha256 `{i['sha256'][:16]}…`)" for i in manifest.get("inputs", []))
        or "- (none recorded)"
    )
    origin = manifest.get("split_origin")
    release = dict(release or {})
    facts = rel.release_facts(
        manifest,
        limitations=_limitations(task, rows),
        audit=release.get("audit"),
        overlaps=release.get("overlaps") or (),
        authors=release.get("authors"),
    )
    rel.write_croissant(folder, rel.croissant_dict(manifest, facts, schema, non_empty), release.get("croissant"))
    body = [
        f"# lotdata {task}",
        "",
        f"{description}. Built with lotdata {manifest.get('lotdata_version', '')} the way the LOT benchmark "
        "(Guan et al., 2022) built its tasks. 数据格式与 LOT 官方发布一致（`lot/*.jsonl`）。",
        "",
        "## Splits",
        "",
        "| split | examples | file | sha256 |",
        "| --- | ---: | --- | --- |",
        *[
            f"| {s} | {e['rows']} | `{e['file']}` | `{e['sha256'][:16]}…` |"
            for s, e in manifest.get("splits", {}).items()
        ],
        "",
        *(
            [
                "Empty splits are left out of `configs` (`datasets` cannot load an empty split): "
                + ", ".join(sorted(set(present) - set(non_empty))),
                "",
            ]
            if set(present) - set(non_empty)
            else []
        ),
        *([f"Where the rows come from (`origin`): {json.dumps(origin, ensure_ascii=False)}.", ""] if origin else []),
        "## 数据统计 Statistics (LOT Table 3)",
        "",
        _stats_table(task, stats, non_empty),
        "",
        "## How it was built",
        "",
        "```bash",
        manifest.get("command", ""),
        "```",
        "",
        f"- seed: `{manifest.get('seed')}`",
        f"- parameters: `{json.dumps(params, ensure_ascii=False)}`",
        f"- tokenizer: `{env.get('tokenizer', 'n/a')}`; packages: `{json.dumps(env.get('packages', {}))}`",
        f"- licenses of the source stories: {', '.join(manifest.get('licenses') or []) or 'not recorded'}",
        "- inputs:",
        inputs,
        "",
        "`manifest.json` holds all of it (with the full sha256 of every input and output file).",
        "",
        "## Drops",
        "",
        _drops(manifest),
        "",
        "## Known limitations",
        "",
        *[f"- {text}" for text in facts["limitations"]],
        "- Splits are grouped by story: no story is in two splits of this dataset.",
        "",
        *rel.license_section(manifest),
        *rel.datasheet(facts),
    ]
    header = _yaml_header(task, manifest, non_empty, rel.yaml_fields(folder, manifest, facts, schema, non_empty))
    return header + "\n\n" + "\n".join(body)


#: the Table 3 statistics the card computed, for `lotdata stats` to read instead of tokenising every split again
STATS_CACHE = "stats.json"


def save_stats(
    folder: Path,
    manifest: Mapping[str, Any],
    stats: Mapping[str, Any],
    tokenizer: str | None = None,
    *,
    path: str | Path | None = None,
) -> None:
    """Save the card's statistics to `path` (default: the folder's `stats.json`) for `lotdata stats` to read."""
    from lotdata.text.tokenize import default_tokenizer

    splits = {s: {"sha256": e.get("sha256"), "stats": stats.get(s)} for s, e in (manifest.get("splits") or {}).items()}
    write_text(
        json.dumps({"tokenizer": tokenizer or default_tokenizer(), "splits": splits}, ensure_ascii=False, indent=1)
        + "\n",
        Path(path) if path is not None else folder / STATS_CACHE,
    )


def saved_stats(folder: Path, manifest: Mapping[str, Any]) -> dict[str, Any] | None:
    """The statistics saved with the card, when they still describe the split files the manifest lists
    (same sha256) and were counted with the tokenizer asked for now (LOTDATA_TOKENIZER, if set); else None."""
    import os

    try:
        saved = json.loads((folder / STATS_CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    asked = os.environ.get("LOTDATA_TOKENIZER")
    splits = manifest.get("splits") or {}
    if (
        not isinstance(saved, dict)
        or (asked and saved.get("tokenizer") != asked)
        or set(saved.get("splits") or {}) != set(splits)
    ):
        return None
    if any(saved["splits"][s].get("sha256") != e.get("sha256") for s, e in splits.items()):
        return None
    return {s: v["stats"] for s, v in saved["splits"].items() if v.get("stats") is not None}


def write_card(folder: str | Path, manifest: Mapping[str, Any] | None = None, tokenizer: str | None = None) -> Path:
    """Write `folder/README.md`, a Hugging Face dataset card that `datasets.load_dataset(folder)` reads."""
    return write_text(card_text(folder, manifest, tokenizer), Path(folder) / CARD_NAME)
