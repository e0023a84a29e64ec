"""BERT w/o Context and BERT w/o Long (LOT Section 5.5), fine-tuned from a local pretrained checkpoint.

They run through the same code as `lotdata baseline train --variant wo_context|wo_long`
(`lotdata.models.baseline.ChoiceBaseline`): LOT Section 5.2's scheme, a distribution over an item's candidates
from the dot products of each candidate's and the context's hidden states, with LOT's settings by default
(batch 12, maximum length 512, learning rate 3e-5; `BertSettings`). What each variant reads
(`lotdata.models.choice`):

- ``bert_wo_context``: ClozeT reads the candidates alone; SenPos reads the removed sentence and one marker per
  gap, so it knows only the sentence and how many gaps there are.
- ``bert_wo_long``: ClozeT reads the sentences on each side of the mask and the candidates; SenPos reads, per
  gap, its two adjacent sentences and the removed one.

LOT gives no epoch count; the audit fine-tunes one epoch on the training split (`--bert-epochs`) and scores the
other splits. `fit_and_score` runs the fine-tuning in a fresh process: on CPU, glibc's heap grows with every
new tensor shape (a 20k SenPos audit in the audit's own process reached 4.2 GB), and a child's heap is given back
whole when it exits. GPU when one is present (the batch stays `batch_size`: LOT's 12, not sized to the GPU).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from lotdata.audit.items import CANDIDATES, Item
from lotdata.io import check_weight_files

BERT_BASELINES = ("bert_wo_context", "bert_wo_long")
#: the `baseline train --variant` of each audit baseline
VARIANTS = {"bert_wo_context": "wo_context", "bert_wo_long": "wo_long"}


@dataclass
class BertSettings:
    """LOT Section 5.2's settings, and one epoch (LOT gives none)."""

    epochs: int = 1
    batch_size: int = 12  # items per optimiser step (each with all its candidates)
    max_length: int = 512
    learning_rate: float = 3e-5
    device: str | None = None  # None: cuda when available, else cpu

    def describe(self) -> dict[str, Any]:
        """The settings as the report shows them."""
        return {"scheme": "LOT 5.2 dot-product scorer (lotdata baseline train --variant)", **asdict(self)}


def item_row(item: Item) -> dict[str, Any]:
    """An audit item as the task row the models' encoder reads (ClozeT: the context with its mask)."""
    from lotdata.datasets.registry import get_task

    key = f"{item.split}/{item.example_id}"  # the encoder caches by example id: one per split and item
    if item.shape == CANDIDATES:
        mask = get_task(item.task).mask_token
        context = (
            " ".join([*item.before, mask, *item.after])
            if item.lang == "en"
            else "".join([*item.before, mask, *item.after])
        )
        return {
            "example_id": key,
            "context": context,
            "candidates": list(item.candidates),
            "label": item.label,
            "lang": item.lang,
        }
    return {
        "example_id": key,
        "sentences": list(item.sentences),
        "removed": item.removed,
        "label": item.label,
        "lang": item.lang,
    }


def check_checkpoint(path: str | Path) -> Path:
    """A local folder with config.json (a transformers checkpoint), or a ValueError naming the path."""
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(
            f"--model-path {folder}: not a folder (give a local pretrained checkpoint, e.g. bert-base-chinese)"
        )
    if not (folder / "config.json").is_file():
        raise ValueError(f"--model-path {folder}: no config.json, not a transformers checkpoint")
    return check_weight_files(folder)


def _baseline(name: str, task: str, model_path: str | Path, seed: int, settings: BertSettings):
    """The `baseline train` model of this audit baseline: the shipped `bert` config with the checkpoint and settings."""
    from lotdata.models.baseline import ChoiceBaseline
    from lotdata.models.config import load_config

    if name not in BERT_BASELINES:
        raise ValueError(f"unknown BERT baseline {name!r}; known: {', '.join(BERT_BASELINES)}")
    config = load_config("bert")
    config = config.with_train(
        batch_size=settings.batch_size,
        max_length=settings.max_length,
        epochs=settings.epochs,
        learning_rate=settings.learning_rate,
        seed=seed,
    )
    config = replace(config, checkpoint=str(model_path), train=replace(config.train, gpu_batch_size=None))
    return ChoiceBaseline(config, task, variant=VARIANTS[name], device=settings.device)


def _fit_and_score_here(
    name: str,
    model_path: str,
    train: Sequence[Item],
    held_out: dict[str, Sequence[Item]],
    seed: int,
    settings: BertSettings,
) -> dict[str, list[list[float]]]:
    from lotdata.models.trainer import seed_everything

    seed_everything(seed)
    task = (train[0] if train else next(it for items in held_out.values() for it in items)).task
    model = _baseline(name, task, model_path, seed, settings)
    model.fit([item_row(it) for it in train])
    return {split: model.option_scores([item_row(it) for it in items]) for split, items in held_out.items()}


def fit_and_score(
    name: str,
    model_path: str | Path,
    train: Sequence[Item],
    held_out: dict[str, Sequence[Item]],
    *,
    seed: int = 0,
    settings: BertSettings | None = None,
) -> dict[str, list[list[float]]]:
    """Fine-tune `name` on `train` and score every split of `held_out`, in a fresh (spawned) process whose
    memory goes back to the system when it ends. Raises RuntimeError naming the baseline if that process
    dies (killed for memory, for one)."""
    import importlib.util
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    for package in ("torch", "transformers"):  # said here, not as a child's traceback
        if importlib.util.find_spec(package) is None:
            raise ImportError(f"No module named {package!r}")
    settings = settings or BertSettings()
    from lotdata.exec import die_with_parent

    with ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    ) as pool:
        future = pool.submit(
            _fit_and_score_here,
            name,
            str(model_path),
            list(train),
            {s: list(v) for s, v in held_out.items()},
            seed,
            settings,
        )
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise RuntimeError(
                f"{name}: the fine-tuning process died before it finished (out of memory? try a "
                f"smaller --bert-batch-size; a script calling audit() needs an `if __name__ == "
                f"'__main__':` guard, as the process is spawned): {exc}"
            ) from exc
