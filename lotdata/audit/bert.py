"""BERT w/o Context and BERT w/o Long (LOT Section 5.5), fine-tuned from a local pretrained checkpoint.

Each option of an item becomes one text (pair), the encoder's [CLS] state goes through a linear
scorer, and a softmax over the item's options is trained with cross-entropy (multiple choice):

- ``bert_wo_context``: ClozeT reads each candidate alone; SenPos reads the removed sentence and the
  gap's position ("3/12"), so it knows only the sentence and where the gap is.
- ``bert_wo_long``: ClozeT reads the sentences on each side of the mask and the candidate; SenPos
  reads, per gap, its two adjacent sentences and the removed one.

Memory is bounded by the batch, not the dataset: items are tokenised a chunk at a time, a forward pass
reads at most `max_sequences` option texts (a step over `batch_size` items accumulates the gradients of
its chunks, so the update is the same as one pass over the whole batch), and scores leave the device as
plain floats. `fit_and_score` runs the fine-tuning in a fresh process: on CPU, glibc's heap grows with
every new tensor shape (a 20k SenPos audit in the audit's own process reached 4.2 GB), and a child's heap
is given back whole when it exits. GPU when one is present.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from lotdata.audit.items import Item
from lotdata.errors import checkpoint_load
from lotdata.io import check_weight_files

BERT_BASELINES = ("bert_wo_context", "bert_wo_long")


@dataclass
class BertSettings:
    epochs: int = 1
    batch_size: int = 8  # items per optimiser step (each with all its options)
    max_sequences: int = 64  # option texts per forward pass; an item with more options is one pass
    max_length: int = 128
    learning_rate: float = 2e-5
    device: str | None = None  # None: cuda when available, else cpu


def option_texts(name: str, item: Item) -> list[tuple[str, str | None]]:
    """The (text, pair) the model reads for each option of `item`."""
    join = " " if item.lang == "en" else ""
    if name == "bert_wo_context":
        if item.task == "clozet":
            return [(c, None) for c in item.candidates]
        return [(item.removed, f"{o + 1}/{item.n_options}") for o in range(item.n_options)]
    if name == "bert_wo_long":
        return [(join.join(item.neighbours(o)).strip(), item.option_text(o)) for o in range(item.n_options)]
    raise ValueError(f"unknown BERT baseline {name!r}; known: {', '.join(BERT_BASELINES)}")


def check_checkpoint(path: str | Path) -> Path:
    """A local folder with config.json (a transformers checkpoint), or a ValueError naming the path."""
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"--model-path {folder}: not a folder (give a local pretrained checkpoint, e.g. bert-base-chinese)")
    if not (folder / "config.json").is_file():
        raise ValueError(f"--model-path {folder}: no config.json, not a transformers checkpoint")
    return check_weight_files(folder)


class BertChoice:
    """fit(train items) then scores(items): one logit per option, from a checkpoint fine-tuned here."""

    def __init__(self, name: str, model_path: str | Path, *, seed: int = 0, settings: BertSettings | None = None) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        if name not in BERT_BASELINES:
            raise ValueError(f"unknown BERT baseline {name!r}; known: {', '.join(BERT_BASELINES)}")
        self.name, self.seed = name, seed
        self.settings = settings or BertSettings()
        self.device = torch.device(self.settings.device or ("cuda" if torch.cuda.is_available() else "cpu"))
        torch.manual_seed(seed)
        with checkpoint_load(model_path):
            self.tokenizer = AutoTokenizer.from_pretrained(str(model_path))
            self.encoder = AutoModel.from_pretrained(str(model_path)).to(self.device)
        self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1).to(self.device)

    def _logits(self, items: Sequence[Item]):
        """[len(items), max options] logits, -inf where an item has fewer options."""
        import torch

        texts = [t for it in items for t in option_texts(self.name, it)]
        firsts = [a for a, _ in texts]
        seconds = [b for _, b in texts] if any(b is not None for _, b in texts) else None
        enc = self.tokenizer(firsts, seconds, padding=True, truncation=True, max_length=self.settings.max_length,
                             return_tensors="pt").to(self.device)
        flat = self.head(self.encoder(**enc).last_hidden_state[:, 0]).squeeze(-1)
        widest = max(it.n_options for it in items)
        out = torch.full((len(items), widest), float("-inf"), device=self.device, dtype=flat.dtype)
        k = 0
        for row, it in enumerate(items):
            out[row, : it.n_options] = flat[k : k + it.n_options]
            k += it.n_options
        return out

    def _chunks(self, items: Sequence[Item]) -> list[Sequence[Item]]:
        """Runs of whole items with at most `max_sequences` option texts each (an item is never split)."""
        chunks: list[Sequence[Item]] = []
        start, width = 0, 0
        for i, it in enumerate(items):
            if i > start and width + it.n_options > self.settings.max_sequences:
                chunks.append(items[start:i])
                start, width = i, 0
            width += it.n_options
        if start < len(items):
            chunks.append(items[start:])
        return chunks

    def fit(self, train: Sequence[Item]) -> "BertChoice":
        import torch

        params = list(self.encoder.parameters()) + list(self.head.parameters())
        optimiser = torch.optim.AdamW(params, lr=self.settings.learning_rate)
        order = list(range(len(train)))
        rng = random.Random(f"{self.seed}:{self.name}")
        self.encoder.train()
        for _ in range(self.settings.epochs):
            rng.shuffle(order)
            for start in range(0, len(order), self.settings.batch_size):
                batch = [train[i] for i in order[start : start + self.settings.batch_size]]
                optimiser.zero_grad()
                for chunk in self._chunks(batch):  # summed chunk losses / batch size = the batch's mean loss
                    gold = torch.tensor([it.gold_option for it in chunk], device=self.device)
                    loss = torch.nn.functional.cross_entropy(self._logits(chunk), gold, reduction="sum") / len(batch)
                    loss.backward()
                optimiser.step()
        return self

    def scores(self, items: Sequence[Item]) -> list[list[float]]:
        import torch

        self.encoder.eval()
        out: list[list[float]] = []
        with torch.inference_mode():
            for chunk in self._chunks(items):
                logits = self._logits(chunk).float().cpu().tolist()
                out.extend(row[: it.n_options] for row, it in zip(logits, chunk))
        return out


def _fit_and_score_here(name: str, model_path: str, train: Sequence[Item], held_out: dict[str, Sequence[Item]],
                        seed: int, settings: BertSettings) -> dict[str, list[list[float]]]:
    model = BertChoice(name, model_path, seed=seed, settings=settings).fit(train)
    return {split: model.scores(items) for split, items in held_out.items()}


def fit_and_score(name: str, model_path: str | Path, train: Sequence[Item], held_out: dict[str, Sequence[Item]], *,
                  seed: int = 0, settings: BertSettings | None = None) -> dict[str, list[list[float]]]:
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

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent,
                             initargs=(os.getpid(),)) as pool:
        future = pool.submit(_fit_and_score_here, name, str(model_path), list(train),
                             {s: list(v) for s, v in held_out.items()}, seed, settings)
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise RuntimeError(f"{name}: the fine-tuning process died before it finished (out of memory? try a "
                               f"smaller --bert-batch-size; a script calling audit() needs an `if __name__ == "
                               f"'__main__':` guard, as the process is spawned): {exc}") from exc
