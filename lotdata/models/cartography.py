"""Dataset cartography (Swayamdipta et al. 2020, "Dataset Cartography: Mapping and Diagnosing Datasets
with Training Dynamics"): train an understanding baseline and record, after every epoch, each training
item's probability of its gold label. Over the epochs:

- confidence: the mean of that probability; variability: its standard deviation; correctness: the share
  of epochs the model picked the gold candidate;
- regions as in the paper's map: ``ambiguous`` (the third of items with the highest variability),
  ``hard`` (to learn: the lowest third by confidence, not ambiguous), ``easy`` (to learn: the highest
  third by confidence, not ambiguous), ``middle`` for the rest.

The table (`cartography.parquet`, schema `CARTOGRAPHY`) lists every item with its region, so hard and
ambiguous items can be shown next to the bias audit and exported for rewriting.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any, Sequence

from lotdata.errors import InputError, must_exist, require
from lotdata.models.config import BaselineConfig

TABLE_FILE = "cartography.parquet"
MAP_FILE = "cartography.png"
SUMMARY_FILE = "cartography.json"


def measures(gold_probs: Sequence[Sequence[float]], correct: Sequence[Sequence[bool]]) -> list[dict[str, float]]:
    """Per item: confidence, variability (population standard deviation, as the paper's code) and correctness."""
    out = []
    for probs, rights in zip(gold_probs, correct):
        out.append(
            {
                "confidence": statistics.fmean(probs),
                "variability": statistics.pstdev(probs),
                "correctness": sum(rights) / len(rights),
            }
        )
    return out


def regions(rows: Sequence[dict[str, float]], share: float = 1 / 3) -> list[str]:
    """easy / ambiguous / hard / middle for each item (see the module's docstring)."""
    n = len(rows)
    if not n:
        return []
    k = max(1, round(share * n))
    by_var = sorted(range(n), key=lambda i: (-rows[i]["variability"], i))
    ambiguous = set(by_var[:k])
    rest = sorted((i for i in range(n) if i not in ambiguous), key=lambda i: (rows[i]["confidence"], i))
    hard, easy = set(rest[:k]), set(rest[-k:]) if len(rest) > k else set()
    return [
        "ambiguous" if i in ambiguous else "hard" if i in hard else "easy" if i in easy else "middle" for i in range(n)
    ]


def cartography_run(
    config: BaselineConfig,
    data: str | Path,
    out: str | Path,
    *,
    checkpoint: str | Path | None = None,
    device: str | None = None,
    train_size: int | None = None,
    published: str | Path | None = None,
) -> dict[str, Any]:
    """Train `config` on DATA's train split for its epochs (no early stopping: every epoch is a point of the
    dynamics), write OUT/cartography.parquet, OUT/cartography.png and OUT/cartography.json. `published`: where
    OUT will be once complete, when it is written elsewhere first (the paths the summary names)."""
    from dataclasses import replace

    from lotdata.io import check_output_dir, write_parquet, write_text
    from lotdata.models.baseline import make_baseline, subsample, understanding_tasks
    from lotdata.models.runs import _dataset
    from lotdata.schema import CARTOGRAPHY, table_from_rows

    must_exist(data, "dataset")
    task, splits = _dataset(data)
    if task not in understanding_tasks():
        raise ValueError(f"cartography maps understanding tasks {understanding_tasks()}; {data} holds {task}")
    rows = subsample(splits.get("train") or [], train_size, config.train.seed)
    if not rows:
        raise InputError("no training examples (train.parquet is empty or missing)", path=str(data))
    if config.train.epochs < 2:
        raise ValueError(f"cartography needs at least 2 epochs of training dynamics, not {config.train.epochs}")
    out = Path(out)
    check_output_dir(out)
    config = replace(config, train=replace(config.train, patience=config.train.epochs + 1))
    baseline = make_baseline(config, task, device=device, checkpoint=checkpoint)
    baseline.prepare(rows, out / "run")
    items = baseline.encode_rows(rows)
    probs: list[list[float]] = [[] for _ in rows]
    rights: list[list[bool]] = [[] for _ in rows]

    def record(module, epoch: int) -> None:
        gold, right = baseline.gold_probabilities(items)
        for i, (p, r) in enumerate(zip(gold, right)):
            probs[i].append(p)
            rights[i].append(r)

    baseline.fit_result = baseline._fit(rows, [], out / "run", resume=False, on_epoch_end=record)
    stats = measures(probs, rights)
    labels = regions(stats)
    table_rows = [
        {"example_id": row["example_id"], "story_id": row.get("story_id"), **m, "region": region, "gold_probs": p}
        for row, m, region, p in zip(rows, stats, labels, probs)
    ]
    write_parquet(table_from_rows(table_rows, CARTOGRAPHY), out / TABLE_FILE)
    plot_map(table_rows, out / MAP_FILE, title=f"{config.name} on {task} ({len(rows)} items, {len(probs[0])} epochs)")
    summary = {
        "model": config.name,
        "task": task,
        "data": str(data),
        "items": len(rows),
        "epochs": len(probs[0]),
        "regions": {r: labels.count(r) for r in ("easy", "ambiguous", "hard", "middle")},
        "table": str(Path(published or out) / TABLE_FILE),
        "map": str(Path(published or out) / MAP_FILE),
    }
    write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", out / SUMMARY_FILE)
    return summary


def plot_map(rows: Sequence[dict[str, Any]], path: str | Path, title: str = "") -> Path:
    """The data map: variability (x) against confidence (y), coloured by correctness (the paper's Figure 1)."""
    matplotlib = require("matplotlib", "models")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 5))
    points = ax.scatter(
        [r["variability"] for r in rows],
        [r["confidence"] for r in rows],
        c=[r["correctness"] for r in rows],
        cmap="coolwarm_r",
        vmin=0,
        vmax=1,
        s=14,
        alpha=0.8,
    )
    fig.colorbar(points, ax=ax, label="correctness")
    ax.set_xlabel("variability")
    ax.set_ylabel("confidence")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlim(left=0)
    for text, x, y in (("easy-to-learn", 0.02, 0.95), ("hard-to-learn", 0.02, 0.05), ("ambiguous", 0.6, 0.5)):
        ax.text(
            x,
            y,
            text,
            transform=ax.transAxes,
            fontsize=9,
            color="dimgray",
            bbox={"facecolor": "white", "alpha": 0.7, "edgecolor": "none"},
        )
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return Path(path)
