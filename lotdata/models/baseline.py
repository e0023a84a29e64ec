"""Baselines as estimators (`fit` / `predict`) and the runs the CLI makes of them.

A run folder holds `best/` (model + tokenizer + `lotdata_baseline.json`, loadable by `load`), `last/state.pt`
(resume point), `history.jsonl` (per epoch: train loss, val score) and `results.json` (figures per split).
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import pyarrow as pa

from lotdata.datasets.registry import family_tasks, get_task
from lotdata.errors import InputError, must_exist, require
from lotdata.models import choice, generation
from lotdata.models.backbone import load_backbone, pick_device, specials_of
from lotdata.models.config import BaselineConfig, config_from_dict
from lotdata.models.trainer import FitResult, fit
from lotdata.progress import progress

META_FILE = "lotdata_baseline.json"


def understanding_tasks() -> tuple[str, ...]:
    """The multiple-choice tasks (ClozeT, SenPos and any registered since): `ChoiceBaseline`."""
    return tuple(family_tasks("understanding"))


def generation_tasks() -> tuple[str, ...]:
    """The generation tasks (PlotCom, OutGen and any registered since): `GenBaseline`."""
    return tuple(family_tasks("generation"))


def _texts(task: str, rows: Sequence[dict]) -> list[str]:
    """Every text of the rows, for a from-scratch vocabulary."""
    spec = get_task(task)
    return [text for row in rows for text in spec.texts(row)]


def _rows(table: pa.Table | Sequence[dict]) -> list[dict]:
    return table.to_pylist() if isinstance(table, pa.Table) else list(table)


class _Baseline:
    kind = ""

    def __init__(
        self, config: BaselineConfig, task: str, *, device: str | None = None, checkpoint: str | Path | None = None
    ) -> None:
        self.config, self.task, self.device = config, task, pick_device(device)
        self.checkpoint = checkpoint
        self.model = self.tokenizer = self.specials = None
        self.fit_result: FitResult | None = None
        self._encoded: dict[str, Any] = {}  # example_id -> encoded item: tokenised once per baseline
        self._best_state: dict[str, Any] | None = None
        self._initial_state: dict[str, Any] | None = None
        #: the process's CPU seconds when the first prediction / generation batch started (start-up cost)
        self.cpu_s_before_first_step: float | None = None

    def _mark_first_step(self) -> None:
        if self.cpu_s_before_first_step is None:
            self.cpu_s_before_first_step = time.process_time()

    def encode_rows(self, rows: Sequence[dict]) -> list[Any]:
        """Rows as model inputs, each row tokenised once (cached by example_id) for this baseline's tokenizer."""
        encode = self.encoder()
        out = []
        for row in rows:
            key = row.get("example_id")
            if key is None:
                out.append(encode(row))
                continue
            if key not in self._encoded:
                self._encoded[key] = encode(row)
            out.append(self._encoded[key])
        return out

    def prepare(self, rows: Sequence[dict], workdir: str | Path) -> "_Baseline":
        """Build the model and tokenizer once (vocabulary from `rows`) and remember the initial weights,
        so `reset()` gives a fresh model without building it again (a learning curve trains several)."""
        if self.model is None:
            self._backbone(list(rows), Path(workdir))
        self._initial_state = _cpu_state(self.model)
        return self

    def reset(self) -> None:
        if self._initial_state is None:
            raise ValueError("prepare() the baseline before reset()")
        self.model.load_state_dict(self._initial_state)
        self._best_state, self.fit_result = None, None

    def _remember_best(self, path: Path) -> None:
        self.save(path)
        self._best_state = _cpu_state(self.model)

    def _backbone(self, rows: list[dict], workdir: Path) -> None:
        model, tokenizer = load_backbone(
            self.config,
            self.kind,
            texts=_texts(self.task, rows),
            workdir=workdir,
            checkpoint=self.checkpoint,
            seed=self.config.train.seed,
        )
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

    def fit(
        self,
        train: pa.Table | Sequence[dict],
        val: pa.Table | Sequence[dict] | None = None,
        *,
        out: str | Path | None = None,
        resume: bool = True,
    ):
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
        if self._best_state is not None:  # predict with the best epoch's weights, kept in memory
            self.model.load_state_dict(self._best_state)
        elif (workdir / "best" / META_FILE).exists():  # a resumed run whose best epoch was an earlier process's
            self._load_weights(workdir / "best")
        return self

    def _load_weights(self, path: Path) -> None:
        model, _ = load_backbone(self.config, self.kind, checkpoint=path)
        self._wrap(model)


class ChoiceBaseline(_Baseline):
    """ClozeT / SenPos: LOT's dot-product scheme over an encoder (or decoder states of an encoder-decoder)."""

    kind = "encoder"

    def __init__(self, config: BaselineConfig, task: str, *, variant: str = "full", **kwargs: Any) -> None:
        if task not in understanding_tasks():
            raise InputError(f"{task} is not an understanding task {understanding_tasks()}")
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

    def _fit(self, rows, val_rows, workdir, resume, on_epoch_end=None) -> FitResult:
        train_items, val_items = self.encode_rows(rows), self.encode_rows(val_rows)
        return fit(
            self.model,
            train_items,
            val_items,
            collate=lambda b: choice.collate(b, self.specials.pad),
            loss_fn=lambda m, batch: m(batch)[1],
            score_fn=lambda m, items: _accuracy(self._predict_items(items), items),
            settings=self.config.train,
            out=workdir,
            device=self.device,
            resume=resume,
            save_best=lambda m, path: self._remember_best(path),
            progress_label=f"{self.config.name} {self.task}",
            on_epoch_end=on_epoch_end,
        )

    def gold_probabilities(self, items: Sequence[choice.Encoded]) -> tuple[list[float], list[bool]]:
        """Per item: the model's probability of the gold candidate and whether its argmax is right."""
        torch = require("torch", "models")
        from lotdata.models.trainer import autocast, length_batches, to_device

        self.model.eval()
        batches = length_batches(
            [max(len(s) for s in it.seqs) for it in items], _eval_batch(self.config.train, self.device)
        )
        probs, rights = [], []
        with torch.inference_mode():
            for indices in batches:
                batch = to_device(choice.collate([items[i] for i in indices], self.specials.pad), self.device)
                with autocast(self.device, self.config.train.mixed_precision):
                    scores, _ = self.model(batch)
                dist = scores.float().softmax(-1)
                probs.append(dist.gather(1, batch["labels"].unsqueeze(1)).squeeze(1))
                rights.append(dist.argmax(-1) == batch["labels"])
        gold, right = [0.0] * len(items), [False] * len(items)
        order = [i for b in batches for i in b]
        for index, p, r in zip(
            order, torch.cat(probs).tolist() if probs else [], torch.cat(rights).tolist() if rights else []
        ):
            gold[index], right[index] = p, r
        return gold, right

    def _predict_items(self, items: Sequence[choice.Encoded], show_progress: bool = False) -> list[int]:
        """Argmax candidate of each item; a progress bar only outside training (rich shows one at a time)."""
        if show_progress:
            with progress() as bars:
                bar = bars.add_task(f"predict {self.task}", total=len(items))
                return self._predict_loop(items, lambda n: bars.advance(bar, n))
        return self._predict_loop(items, lambda n: None)

    def _predict_loop(self, items: Sequence[choice.Encoded], advance, batch_size: int | None = None) -> list[int]:
        """Batched by length under autocast; the argmaxes stay on the device until the end (one sync)."""
        torch = require("torch", "models")
        from lotdata.models.trainer import autocast, length_batches, to_device

        self.model.eval()
        size = batch_size or _eval_batch(self.config.train, self.device)
        batches = length_batches([max(len(s) for s in it.seqs) for it in items], size)
        picked = []
        with torch.inference_mode():
            for indices in batches:
                self._mark_first_step()
                batch = to_device(choice.collate([items[i] for i in indices], self.specials.pad), self.device)
                with autocast(self.device, self.config.train.mixed_precision):
                    scores, _ = self.model(batch)
                picked.append(scores.argmax(-1))
                advance(len(indices))
        preds = [0] * len(items)
        flat = torch.cat(picked).tolist() if picked else []
        for index, pred in zip((i for b in batches for i in b), flat):
            preds[index] = pred
        return preds

    def option_scores(self, table: pa.Table | Sequence[dict], batch_size: int | None = None) -> list[list[float]]:
        """Per row, the score of each candidate (ClozeT: each candidate; SenPos: each gap), before the softmax."""
        torch = require("torch", "models")
        from lotdata.models.trainer import autocast, length_batches, to_device

        if self.model is None:
            raise ValueError("fit or load the baseline first")
        items = self.encode_rows(_rows(table))
        self.model.eval()
        batches = length_batches(
            [max(len(s) for s in it.seqs) for it in items], batch_size or _eval_batch(self.config.train, self.device)
        )
        out: list[list[float]] = [[] for _ in items]
        with torch.inference_mode():
            for indices in batches:
                batch = to_device(choice.collate([items[i] for i in indices], self.specials.pad), self.device)
                with autocast(self.device, self.config.train.mixed_precision):
                    scores, _ = self.model(batch)
                for i, row in zip(indices, scores.float().cpu().tolist()):
                    out[i] = row[: len(items[i].cands)]
        return out

    def predict(self, table: pa.Table | Sequence[dict], batch_size: int | None = None) -> list[int]:
        """Labels in the table's convention: ClozeT candidate index 0/1, SenPos gap counted from 1."""
        if self.model is None:
            raise ValueError("fit or load the baseline first")
        items = self.encode_rows(_rows(table))
        with progress() as bars:
            bar = bars.add_task(f"predict {self.task}", total=len(items))
            preds = self._predict_loop(items, lambda n: bars.advance(bar, n), batch_size)
        return [p + get_task(self.task).label_base for p in preds]


def _eval_batch(settings, device: str) -> int:
    """Evaluation keeps no activations for a backward pass: twice the training batch fits."""
    from lotdata.models.trainer import batch_size_for

    size = batch_size_for(settings, device)
    return size * 2 if device.startswith("cuda") else size


def _cpu_state(model) -> dict[str, Any]:
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}


def _accuracy(preds: Sequence[int], items: Sequence[choice.Encoded]) -> float:
    return sum(p == it.label for p, it in zip(preds, items)) / len(items) if items else 0.0


class GenBaseline(_Baseline):
    """PlotCom / OutGen: a decoder-only or encoder-decoder LM, top-k sampling."""

    kind = "lm"

    def __init__(self, config: BaselineConfig, task: str, **kwargs: Any) -> None:
        if task not in generation_tasks():
            raise InputError(f"{task} is not a generation task {generation_tasks()}")
        super().__init__(config, task, **kwargs)
        self.generation_batch_size: int | None = None  # the batch the last `generate` used

    def _wrap(self, model) -> None:
        self.model = model.to(self.device)
        self.encoder_decoder = bool(getattr(model.config, "is_encoder_decoder", False))

    def _pretrained(self):
        return self.model

    def encoder(self) -> generation.GenEncoder:
        return generation.GenEncoder(
            self.tokenizer, self.specials, self.task, self.config.train.max_length, self.encoder_decoder
        )

    def _collate(self, pairs):
        return generation.collate_lm(pairs, self.specials, self.encoder_decoder)

    def _fit(self, rows, val_rows, workdir, resume) -> FitResult:
        train_items, val_items = self.encode_rows(rows), self.encode_rows(val_rows)
        return fit(
            self.model,
            train_items,
            val_items,
            collate=self._collate,
            loss_fn=generation.lm_loss,
            score_fn=self._val_loss,
            settings=self.config.train,
            out=workdir,
            device=self.device,
            resume=resume,
            save_best=lambda m, path: self._remember_best(path),
            higher_is_better=False,
            progress_label=f"{self.config.name} {self.task}",
        )

    def _val_loss(self, model, items) -> float:
        """Mean per-example LM loss: the GPU batch, autocast, length batches, summed on the device."""
        torch = require("torch", "models")
        from lotdata.models.trainer import autocast, length_batches, to_device

        size = _eval_batch(self.config.train, self.device)
        total = torch.zeros((), device=self.device)
        with torch.inference_mode():
            for indices in length_batches([len(it.source) + len(it.target) for it in items], size):
                batch = to_device(self._collate([items[i] for i in indices]), self.device)
                with autocast(self.device, self.config.train.mixed_precision):
                    loss = generation.lm_loss(model, batch)
                total += loss.float() * len(indices)
        return float(total) / max(len(items), 1)

    def generate(
        self, table: pa.Table | Sequence[dict], seed: int | None = None, batch_size: int | None = None
    ) -> list[str]:
        """One sampled text per row (top-k, temperature from the config), seeded; prompts batched by length
        (a batch runs to its longest output, so similar prompts go together), results in the rows' order."""
        torch = require("torch", "models")
        from lotdata.models.trainer import batch_size_for, length_batches

        if self.model is None:
            raise ValueError("fit or load the baseline first")
        torch.manual_seed(self.config.train.seed if seed is None else seed)
        rows = _rows(table)
        prompts = [self.encoder().prompt(item) for item in self.encode_rows(rows)]
        self.model.eval()
        size = batch_size or batch_size_for(
            self.config.generate, self.device, probe=self._generation_probe(prompts), most=len(prompts)
        )
        self.generation_batch_size = size
        texts: list[str] = [""] * len(rows)
        with progress() as bars:
            bar = bars.add_task(f"generate {self.task}", total=len(rows))
            for indices in length_batches([len(p) for p in prompts], size):
                self._mark_first_step()
                outs = self._generate_ids([prompts[i] for i in indices])
                for i, ids in zip(indices, outs):
                    texts[i] = generation.decode(self.tokenizer, ids, rows[i].get("lang"))
                bars.advance(bar, len(indices))
        return texts

    def _generation_probe(self, prompts: list[list[int]]):
        """A forward pass at batch n over the longest prompt plus every new token: the memory a batch of
        generation peaks at (no gradients), for `gpu_batch_size = "auto"`."""
        torch = require("torch", "models")
        from lotdata.models.trainer import autocast

        longest = max((len(p) for p in prompts), default=1)
        limit = (
            getattr(self.model.config, "n_positions", None)
            or getattr(self.model.config, "max_position_embeddings", None)
            or 10**9
        )
        width = min(limit, longest + self.config.generate.max_new_tokens)

        def run(n: int) -> None:
            ids = torch.full((n, width), self.specials.start, dtype=torch.long, device=self.device)
            extra = {"decoder_input_ids": ids} if self.encoder_decoder else {}
            with torch.inference_mode(), autocast(self.device, self.config.train.mixed_precision):
                self.model(input_ids=ids, **extra)

        return run

    def _generate_ids(self, prompts: list[list[int]]) -> list[list[int]]:
        from lotdata.models.trainer import autocast

        settings = self.config.generate
        with autocast(self.device, self.config.train.mixed_precision):
            return generation.generate_batch(
                self.model,
                prompts,
                self.specials,
                top_k=settings.top_k,
                temperature=settings.temperature,
                max_new_tokens=settings.max_new_tokens,
                encoder_decoder=self.encoder_decoder,
                device=self.device,
            )

    predict = generate


def make_baseline(config: BaselineConfig, task: str, **kwargs: Any):
    return (
        ChoiceBaseline(config, task, **kwargs) if task in understanding_tasks() else GenBaseline(config, task, **kwargs)
    )


def load(path: str | Path, *, device: str | None = None):
    """A fitted baseline from a saved folder (`RUN/best` or a run folder)."""
    path = must_exist(path, "run folder")
    if (path / "best" / META_FILE).exists():
        path = path / "best"
    if not (path / META_FILE).exists():
        raise InputError(f"no {META_FILE}: not a saved lotdata baseline", path=str(path))
    meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    config = config_from_dict(meta["config"], str(path))
    kwargs = {"variant": meta.get("variant", "full")} if meta["task"] in understanding_tasks() else {}
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
