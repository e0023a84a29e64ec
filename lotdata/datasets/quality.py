"""The story-quality gate that `clean` and `crawl` share (`--quality-model MODEL --quality order|drop`, issue 39):
a `lotdata quality train` model folder loaded and applied to a stories table. It lives below the stages (sources,
clean, quality are one layer, and quality reads tasks' Story Cloze files, which read sources' tables), so both
stages import this one rule; training and the `quality` commands stay in `lotdata.quality`.

`order` puts the best score first (a story_filter push then serves the likeliest keepers first); `drop` takes the
stories below the model's threshold out. A dropped story is never lost: the caller writes it to its quarantine with
the rule `quality_below_threshold` and its score as evidence (DESIGN.md, "How a gate earns trust"), and the counts,
the threshold and the model (path and sha256) land in the manifest. Loading runs pickle: load only models you or
your team trained."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lotdata.errors import InputError, require
from lotdata.io import MANIFEST_NAME

MODEL_FILE = "model.joblib"
QUALITY_KIND = "quality-model"
QUALITY_RULE = "quality_below_threshold"
MODES = ("order", "drop")


@dataclass(frozen=True)
class QualityGate:
    """`--quality-model MODEL --quality MODE` as one value a stage passes on."""

    model: str | Path
    mode: str = "order"


def story_text(row: dict[str, Any]) -> str:
    title = str(row.get("title") or "").strip()
    return f"{title}\n{row['text']}" if title else str(row["text"])


@dataclass
class QualityModel:
    pipeline: Any
    threshold: float
    info: dict[str, Any] = field(default_factory=dict)

    def score(self, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        classes = list(self.pipeline.classes_)
        return [float(p[classes.index(1)]) for p in self.pipeline.predict_proba(list(texts))]

    def save(self, folder: Path) -> None:
        import joblib

        folder.mkdir(parents=True, exist_ok=True)
        joblib.dump(self.pipeline, folder / MODEL_FILE)
        (folder / MANIFEST_NAME).write_text(
            json.dumps({"threshold": self.threshold, **self.info}, ensure_ascii=False, indent=2) + "\n",
            encoding="utf-8",
        )


def model_info(folder: str | Path, kind: str) -> dict[str, Any]:
    """The manifest of a model folder of `kind`, sklearn there to load it: a folder of another kind is bad input
    (cheap, no unpickling: a stage checks its model with it before its long work)."""
    folder = Path(folder)
    try:
        info = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"not a lotdata model folder (manifest.json: {exc})", path=str(folder)) from None
    if not isinstance(info, dict) or info.get("kind") != kind:
        found = info.get("kind") if isinstance(info, dict) else None
        raise InputError(f"a {found!r} model, not a {kind!r} one", path=str(folder))
    require("sklearn", "audit")
    return info


def load_model(folder: str | Path, kind: str) -> tuple[Any, dict[str, Any]]:
    """(pipeline, model.json) of a model folder of `kind`; a folder of another kind is bad input."""
    import joblib

    info = model_info(folder, kind)
    return joblib.load(Path(folder) / MODEL_FILE), info


def quality_info(folder: str | Path) -> dict[str, Any]:
    """The manifest of a story-quality model folder with its threshold, checked without loading the model: `clean`
    and `crawl` call it before their long work, so a wrong folder fails at once."""
    info = model_info(folder, QUALITY_KIND)
    try:
        float(info["threshold"])
    except (KeyError, TypeError, ValueError):
        raise InputError(
            f"no numeric threshold in the quality model's manifest ({info.get('threshold')!r}): "
            "a model folder written by `lotdata quality train` has one",
            path=str(Path(folder) / MANIFEST_NAME),
        ) from None
    return info


def load_quality(folder: str | Path) -> QualityModel:
    import joblib

    info = quality_info(folder)
    return QualityModel(joblib.load(Path(folder) / MODEL_FILE), float(info["threshold"]), info)


def quality_gate(
    rows: Sequence[dict[str, Any]], model_folder: str | Path, mode: str
) -> tuple[list[int], list[tuple[int, str]], dict[str, Any]]:
    """The one rule: (indices of the rows to keep, best score first; (index, evidence) of each row dropped, in
    the same order; counts for the manifest: mode, threshold, below_threshold, dropped, model path and sha256)."""
    from lotdata.io import sha256_file

    if mode not in MODES:
        raise ValueError(f"quality mode {mode!r}: one of {', '.join(MODES)}")
    model = load_quality(model_folder)
    scores = model.score([story_text(r) for r in rows])
    order = sorted(range(len(rows)), key=lambda i: (-scores[i], rows[i]["story_id"]))
    below = {i for i in order if scores[i] < model.threshold}
    keep = [i for i in order if mode == "order" or i not in below]
    gone = below if mode == "drop" else set()
    dropped = [(i, f"score {scores[i]:.3f} < threshold {model.threshold:.3f}") for i in order if i in gone]
    counts = {"mode": mode, "threshold": model.threshold, "below_threshold": len(below), "dropped": len(dropped)}
    counts.update({"model": str(model_folder), "model_sha256": sha256_file(Path(model_folder) / MODEL_FILE)})
    return keep, dropped, counts


def apply_quality(folder: Path, model_folder: str | Path, mode: str) -> dict[str, Any]:
    """`clean --quality-model`: rewrite `folder/stories.parquet` (and quarantine.parquet, manifest.json) per
    `mode` by `quality_gate`; returns the counts."""
    import pyarrow as pa

    from lotdata.io import read_parquet, sha256_file, write_parquet
    from lotdata.schema import STORIES_QUARANTINE

    stories_path = folder / "stories.parquet"
    table = read_parquet(stories_path)
    rows = table.to_pylist()
    keep, dropped, counts = quality_gate(rows, model_folder, mode)
    write_parquet(table.take(pa.array(keep, pa.int64())), stories_path)
    files = {"stories": stories_path}
    if dropped:
        quarantine_path = folder / "quarantine.parquet"
        before = read_parquet(quarantine_path) if quarantine_path.exists() else None
        held = before.to_pylist() if before is not None else []
        held += [{**rows[i], "rule": QUALITY_RULE, "evidence": evidence} for i, evidence in dropped]
        write_parquet(
            pa.Table.from_pylist(held, schema=before.schema if before is not None else STORIES_QUARANTINE),
            quarantine_path,
        )
        files["quarantine"] = quarantine_path
    manifest_path = folder / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for name, path in files.items():
        entry = manifest.setdefault("splits", {}).setdefault(name, {"file": path.name})
        entry.update({"rows": read_parquet(path).num_rows, "sha256": sha256_file(path)})
    manifest.setdefault("stats", {})["quality"] = counts
    if dropped:
        manifest["stats"]["kept"] = len(keep)
        manifest["stats"]["removed"] = manifest["stats"].get("removed", 0) + len(dropped)
    manifest_path.write_text(json.dumps(manifest, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8")
    return counts
