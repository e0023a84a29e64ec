"""Baselines as estimators (`fit` / `predict`) and the runs the CLI makes of them.

A run folder holds `best/` (model + tokenizer + `lotdata_baseline.json`, loadable by `load`), `last/state.pt`
(resume point), `history.jsonl` (per epoch: train loss, val score) and `results.json` (figures per split).
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa

from lotdata.datasets.registry import get_task
from lotdata.progress import progress
from lotdata.errors import InputError, require, must_exist
from lotdata.models import choice, generation
from lotdata.models.backbone import load_backbone, pick_device, specials_of
from lotdata.models.config import BaselineConfig, config_from_dict
from lotdata.models.trainer import FitResult, fit

META_FILE = "lotdata_baseline.json"
UNDERSTANDING = choice.TASKS
GENERATION = generation.TASKS


def _texts(task: str, rows: Sequence[dict]) -> list[str]:
    """Every text of the rows, for a from-scratch vocabulary."""
    spec = get_task(task)
    return [text for row in rows for text in spec.texts(row)]


def _rows(table: pa.Table | Sequence[dict]) -> list[dict]:
    return table.to_pylist() if isinstance(table, pa.Table) else list(table)


class _Baseline:
    kind = ""

    def __init__(self, config: BaselineConfig, task: str, *, device: str | None = None, checkpoint: str | Path | None = None) -> None:
        self.config, self.task, self.device = config, task, pick_device(device)
        self.checkpoint = checkpoint
        self.model = self.tokenizer = self.specials = None
        self.fit_result: FitResult | None = None

    def _backbone(self, rows: list[dict], workdir: Path) -> None:
        model, tokenizer = load_backbone(self.config, self.kind, texts=_texts(self.task, rows), workdir=workdir,
                                         checkpoint=self.checkpoint, seed=self.config.train.seed)
        self.tokenizer, self.specials = tokenizer, specials_of(tokenizer)
        self._wrap(model)

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    def _meta(self) -> dict[str, Any]:
        return {"task": self.task, "kind": self.kind, "config": self.config.to_dict()}

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        self._pretrained().save_pretrained(str(path))
        self.tokenizer.save_pretrained(str(path))
        (path / META_FILE).write_text(json.dumps(self._meta(), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        return path

    def fit(self, train: pa.Table | Sequence[dict], val: pa.Table | Sequence[dict] | None = None, *, out: str | Path | None = None,
            resume: bool = True):
        rows, val_rows = _rows(train), _rows(val) if val is not None else []
        if not rows:
            raise InputError(f"no training examples for {self.task}")
        if out is None:
            with tempfile.TemporaryDirectory(prefix="lotdata-run-") as tmp:
                return self._fit_in(rows, val_rows, Path(tmp), resume)
        return self._fit_in(rows, val_rows, Path(out), resume)

    def _fit_in(self, rows: list[dict], val_rows: list[dict], workdir: Path, resume: bool):
        if self.model is None:
            self._backbone(rows, workdir)
        self.fit_result = self._fit(rows, val_rows, workdir, resume)
        if (workdir / "best" / META_FILE).exists():  # predict with the best epoch's weights
            self._load_weights(workdir / "best")
        return self

    def _load_weights(self, path: Path) -> None:
        model, _ = load_backbone(self.config, self.kind, checkpoint=path)
        self._wrap(model)


class ChoiceBaseline(_Baseline):
    """ClozeT / SenPos: LOT's dot-product scheme over an encoder (or decoder states of an encoder-decoder)."""

    kind = "encoder"

    def __init__(self, config: BaselineConfig, task: str, *, variant: str = "full", **kwargs: Any) -> None:
        if task not in UNDERSTANDING:
            raise InputError(f"{task} is not an understanding task {UNDERSTANDING}")
        super().__init__(config, task, **kwargs)
        self.variant = variant

    def _wrap(self, model) -> None:
        self.model = choice.choice_module(model).to(self.device)

    def _pretrained(self):
        return self.model.backbone

    def _meta(self) -> dict[str, Any]:
        return {**super()._meta(), "variant": self.variant}

    def encoder(self) -> choice.Encoder:
        return choice.Encoder(self.tokenizer, self.specials, self.task, self.variant, self.config.train.max_length)

    def _fit(self, rows, val_rows, workdir, resume) -> FitResult:
        encode = self.encoder()
        train_items, val_items = [encode(r) for r in rows], [encode(r) for r in val_rows]
        return fit(
            self.model, train_items, val_items, collate=lambda b: choice.collate(b, self.specials.pad),
            loss_fn=lambda m, batch: m(batch)[1], score_fn=lambda m, items: _accuracy(self._predict_items(items), items),
            settings=self.config.train, out=workdir, device=self.device, resume=resume,
            save_best=lambda m, path: self.save(path), progress_label=f"{self.config.name} {self.task}",
        )

    def _predict_items(self, items: Sequence[choice.Encoded], show_progress: bool = False) -> list[int]:
        """Argmax candidate of each item; a progress bar only outside training (rich shows one at a time)."""
        if show_progress:
            with progress() as bars:
                bar = bars.add_task(f"predict {self.task}", total=len(items))
                return self._predict_loop(items, lambda n: bars.advance(bar, n))
        return self._predict_loop(items, lambda n: None)

    def _predict_loop(self, items: Sequence[choice.Encoded], advance) -> list[int]:
        torch = require("torch", "models")
        from lotdata.models.trainer import autocast, batch_size_for, to_device

        self.model.eval()
        size = batch_size_for(self.config.train, self.device)
        preds: list[int] = []
        with torch.no_grad():
            for i in range(0, len(items), size):
                batch = to_device(choice.collate(items[i : i + size], self.specials.pad), self.device)
                with autocast(self.device, self.config.train.mixed_precision):
                    scores, _ = self.model(batch)
                preds += scores.argmax(-1).tolist()
                advance(len(items[i : i + size]))
        return preds

    def predict(self, table: pa.Table | Sequence[dict]) -> list[int]:
        """Labels in the table's convention: ClozeT candidate index 0/1, SenPos gap counted from 1."""
        if self.model is None:
            raise ValueError("fit or load the baseline first")
        encode = self.encoder()
        preds = self._predict_items([encode(r) for r in _rows(table)], show_progress=True)
        return [p + 1 for p in preds] if self.task == "senpos" else preds


def _accuracy(preds: Sequence[int], items: Sequence[choice.Encoded]) -> float:
    return sum(p == it.label for p, it in zip(preds, items)) / len(items) if items else 0.0


class GenBaseline(_Baseline):
    """PlotCom / OutGen: a decoder-only or encoder-decoder LM, top-k sampling."""

    kind = "lm"

    def __init__(self, config: BaselineConfig, task: str, **kwargs: Any) -> None:
        if task not in GENERATION:
            raise InputError(f"{task} is not a generation task {GENERATION}")
        super().__init__(config, task, **kwargs)

    def _wrap(self, model) -> None:
        self.model = model.to(self.device)
        self.encoder_decoder = bool(getattr(model.config, "is_encoder_decoder", False))

    def _pretrained(self):
        return self.model

    def encoder(self) -> generation.GenEncoder:
        return generation.GenEncoder(self.tokenizer, self.specials, self.task, self.config.train.max_length, self.encoder_decoder)

    def _collate(self, pairs):
        return generation.collate_lm(pairs, self.specials, self.encoder_decoder)

    def _fit(self, rows, val_rows, workdir, resume) -> FitResult:
        encode = self.encoder()
        train_items, val_items = [encode(r) for r in rows], [encode(r) for r in val_rows]
        return fit(
            self.model, train_items, val_items, collate=self._collate, loss_fn=generation.lm_loss,
            score_fn=self._val_loss, settings=self.config.train, out=workdir, device=self.device, resume=resume,
            save_best=lambda m, path: self.save(path), higher_is_better=False, progress_label=f"{self.config.name} {self.task}",
        )

    def _val_loss(self, model, items) -> float:
        torch = require("torch", "models")
        from lotdata.models.trainer import to_device

        total, n = 0.0, 0
        with torch.no_grad():
            for i in range(0, len(items), self.config.train.batch_size):
                chunk = items[i : i + self.config.train.batch_size]
                total += float(generation.lm_loss(model, to_device(self._collate(chunk), self.device))) * len(chunk)
                n += len(chunk)
        return total / max(n, 1)

    def generate(self, table: pa.Table | Sequence[dict], seed: int | None = None) -> list[str]:
        """One sampled text per row (top-k, temperature from the config), seeded."""
        torch = require("torch", "models")
        if self.model is None:
            raise ValueError("fit or load the baseline first")
        settings = self.config.generate
        torch.manual_seed(self.config.train.seed if seed is None else seed)
        encode = self.encoder()
        rows = _rows(table)
        self.model.eval()
        texts: list[str] = []
        with progress() as bars:
            bar = bars.add_task(f"generate {self.task}", total=len(rows))
            for i in range(0, len(rows), settings.batch_size):
                texts += self._generate_chunk(encode, rows[i : i + settings.batch_size])
                bars.advance(bar, len(rows[i : i + settings.batch_size]))
        return texts

    def _generate_chunk(self, encode: generation.GenEncoder, chunk: list[dict]) -> list[str]:
        settings = self.config.generate
        prompts = [encode.prompt(encode(r)) for r in chunk]
        outs = generation.generate_batch(
            self.model, prompts, self.specials, top_k=settings.top_k, temperature=settings.temperature,
            max_new_tokens=settings.max_new_tokens, encoder_decoder=self.encoder_decoder, device=self.device,
        )
        return [generation.decode(self.tokenizer, ids, r.get("lang")) for ids, r in zip(outs, chunk)]

    predict = generate


def make_baseline(config: BaselineConfig, task: str, **kwargs: Any):
    return ChoiceBaseline(config, task, **kwargs) if task in UNDERSTANDING else GenBaseline(config, task, **kwargs)


def load(path: str | Path, *, device: str | None = None):
    """A fitted baseline from a saved folder (`RUN/best` or a run folder)."""
    path = must_exist(path, "run folder")
    if (path / "best" / META_FILE).exists():
        path = path / "best"
    if not (path / META_FILE).exists():
        raise InputError(f"no {META_FILE}: not a saved lotdata baseline", path=str(path))
    meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    config = config_from_dict(meta["config"], str(path))
    kwargs = {"variant": meta.get("variant", "full")} if meta["task"] in UNDERSTANDING else {}
    baseline = make_baseline(config, meta["task"], device=device, checkpoint=path, **kwargs)
    model, tokenizer = load_backbone(config, baseline.kind, checkpoint=path)
    baseline.tokenizer, baseline.specials = tokenizer, specials_of(tokenizer)
    baseline._wrap(model)
    return baseline


def subsample(rows: list[dict], n: int | None, seed: int) -> list[dict]:
    """The first `n` rows of a seeded shuffle (all of them when n is None)."""
    if n is None or n >= len(rows):
        return rows
    picked = list(rows)
    random.Random(seed).shuffle(picked)
    return picked[:n]
