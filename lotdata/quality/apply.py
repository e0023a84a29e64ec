"""`clean --quality-model MODEL`: order a clean folder's stories by the quality classifier's score (best first, so a
story_filter push serves the likeliest keepers first) or drop the ones below its threshold. A dropped story is never
lost: it goes to the folder's quarantine.parquet with the rule `quality_below_threshold` and its score as evidence
(DESIGN.md, "How a gate earns trust"), and the manifest says how many and at what threshold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

QUALITY_RULE = "quality_below_threshold"
MODES = ("order", "drop")


def apply_quality(folder: Path, model_folder: str | Path, mode: str) -> dict[str, Any]:
    """Rewrite `folder/stories.parquet` (and quarantine.parquet, manifest.json) per `mode`; returns the counts."""
    import pyarrow as pa

    from lotdata.io import MANIFEST_NAME, read_parquet, sha256_file, write_parquet
    from lotdata.quality.model import load_quality, story_text
    from lotdata.schema import STORIES_QUARANTINE

    if mode not in MODES:
        raise ValueError(f"quality mode {mode!r}: one of {', '.join(MODES)}")
    model = load_quality(model_folder)
    stories_path = folder / "stories.parquet"
    table = read_parquet(stories_path)
    rows = table.to_pylist()
    scores = model.score([story_text(r) for r in rows])
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], rows[i]["story_id"]))
    keep = [i for i in order if mode == "order" or scores[i] >= model.threshold]
    dropped = [i for i in order if i not in set(keep)]
    write_parquet(table.take(pa.array(keep, pa.int64())), stories_path)
    files = {"stories": stories_path}
    if dropped:
        quarantine_path = folder / "quarantine.parquet"
        before = read_parquet(quarantine_path) if quarantine_path.exists() else None
        held = before.to_pylist() if before is not None else []
        held += [
            {**rows[i], "rule": QUALITY_RULE, "evidence": f"score {scores[i]:.3f} < threshold {model.threshold:.3f}"}
            for i in dropped
        ]
        write_parquet(
            pa.Table.from_pylist(held, schema=before.schema if before is not None else STORIES_QUARANTINE),
            quarantine_path,
        )
        files["quarantine"] = quarantine_path
    counts = {"mode": mode, "threshold": model.threshold, "below_threshold": sum(s < model.threshold for s in scores)}
    counts["dropped"] = len(dropped)
    manifest_path = folder / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for name, path in files.items():
        entry = manifest.setdefault("splits", {}).setdefault(name, {"file": path.name})
        entry.update({"rows": read_parquet(path).num_rows, "sha256": sha256_file(path)})
    manifest.setdefault("stats", {})["quality"] = {**counts, "model": str(model_folder)}
    if dropped:
        manifest["stats"]["kept"] = len(keep)
        manifest["stats"]["removed"] = manifest["stats"].get("removed", 0) + len(dropped)
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    return counts
