"""One training loop for every baseline: seeded, gradient accumulation, mixed precision on CUDA,
a checkpoint each epoch (resumable), early stopping on the validation score, progress bars."""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from lotdata.errors import require
from lotdata.models.config import TrainSettings

STATE_FILE = "state.pt"


@dataclass
class FitResult:
    epochs_run: int
    best_epoch: int
    best_score: float
    history: list[dict[str, Any]] = field(default_factory=list)
    train_examples_per_s: float = 0.0
    resumed_from: int | None = None
    #: the process's CPU seconds (all threads) when the first training step started: start-up cost
    cpu_s_before_first_step: float | None = None


def seed_everything(seed: int) -> None:
    torch = require("torch", "models")
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy

        numpy.random.seed(seed % 2**32)
    except ImportError:  # pragma: no cover
        pass


def to_device(batch: dict[str, Any], device: str) -> dict[str, Any]:
    """Tensors to `device`; on CUDA from pinned memory without blocking the host."""
    if device.startswith("cuda"):
        return {
            k: v.pin_memory().to(device, non_blocking=True) if hasattr(v, "pin_memory") else v for k, v in batch.items()
        }
    return {k: v.to(device) if hasattr(v, "to") else v for k, v in batch.items()}


def length_batches(lengths: Sequence[int], size: int) -> list[list[int]]:
    """Indices in batches of `size` grouped by length (longest first), so that a batch pads little;
    used where the order does not matter (evaluation, generation): results go back to each index."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    return [order[i : i + size] for i in range(0, len(order), size)]


def autocast(device: str, enabled: bool):
    """bf16 autocast where the GPU supports it, fp16 otherwise; a no-op on CPU."""
    torch = require("torch", "models")
    if not enabled or not device.startswith("cuda"):
        import contextlib

        return contextlib.nullcontext()
    dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return torch.autocast(device_type="cuda", dtype=dtype)


def batch_size_for(
    settings: Any, device: str, probe: Callable[[int], None] | None = None, most: int | None = None
) -> int:
    """The batch for `device`: `gpu_batch_size` on CUDA (a number, or "auto": sized to free memory by
    `probe`, never searching past `most` items, the number there are to batch), else `batch_size`."""
    if not device.startswith("cuda") or not settings.gpu_batch_size:
        return settings.batch_size
    if settings.gpu_batch_size != "auto":
        return int(settings.gpu_batch_size)
    if probe is None:
        return settings.batch_size
    return auto_batch_size(probe, settings.batch_size, limit=min(AUTO_BATCH_LIMIT, most or AUTO_BATCH_LIMIT))


AUTO_BATCH_LIMIT = 512


def auto_batch_size(probe: Callable[[int], None], start: int, limit: int = AUTO_BATCH_LIMIT) -> int:
    """The largest batch (doubling from `start`, at most `limit`) for which `probe(n)` (one forward and
    backward pass on the longest inputs) runs without running out of GPU memory, halved once for headroom
    when the search stopped at an out-of-memory error."""
    torch = require("torch", "models")
    size, best = start, start
    while size <= limit:
        try:
            probe(size)
        except torch.cuda.OutOfMemoryError:
            torch.cuda.empty_cache()
            return max(start, best // 2 if best > start else start)
        best, size = size, size * 2
        torch.cuda.empty_cache()
    return best


def fit(
    module,
    train_items: Sequence[Any],
    val_items: Sequence[Any],
    *,
    collate: Callable[[Sequence[Any]], dict],
    loss_fn: Callable[[Any, dict], Any],
    score_fn: Callable[[Any, Sequence[Any]], float],
    settings: TrainSettings,
    out: str | Path,
    device: str = "cpu",
    resume: bool = True,
    save_best: Callable[[Any, Path], None] | None = None,
    higher_is_better: bool = True,
    progress_label: str = "train",
    on_epoch_end: Callable[[Any, int], None] | None = None,
) -> FitResult:
    """Train `module` on `train_items`; after each epoch score `val_items` with `score_fn`, keep the best
    with `save_best(module, out / "best")`, write `out/last/state.pt` (resume point) and stop after
    `settings.patience` epochs without improvement. `on_epoch_end(module, epoch)` runs after each epoch's
    training, before validation."""
    torch = require("torch", "models")
    transformers = require("transformers", "models")
    from lotdata.progress import progress

    out = Path(out)
    seed_everything(settings.seed)
    module.to(device)
    batch_size = batch_size_for(settings, device, probe=_probe(module, train_items, collate, loss_fn, device, settings))
    steps_per_epoch = math.ceil(len(train_items) / batch_size / settings.grad_accum)
    total_steps = max(1, steps_per_epoch * settings.epochs)
    optimizer = torch.optim.AdamW(module.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    scheduler = transformers.get_linear_schedule_with_warmup(
        optimizer, int(settings.warmup_ratio * total_steps), total_steps
    )
    use_amp = settings.mixed_precision and device.startswith("cuda")
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp and not torch.cuda.is_bf16_supported()) if use_amp else None

    sign = 1.0 if higher_is_better else -1.0
    start_epoch, best, best_epoch, bad_epochs, history, resumed = 0, -math.inf, -1, 0, [], None
    state_path = out / "last" / STATE_FILE
    if resume and state_path.exists():
        state = torch.load(state_path, map_location=device, weights_only=False)
        module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch, best, best_epoch, bad_epochs, history = (
            state["epoch"] + 1,
            state["best"],
            state["best_epoch"],
            state["bad_epochs"],
            state["history"],
        )
        torch.set_rng_state(state["torch_rng"])
        random.setstate(state["py_rng"])
        resumed = state["epoch"]

    seen, train_seconds, cpu_before_first = 0, 0.0, None
    epoch = start_epoch - 1
    with progress() as bars:
        for epoch in range(start_epoch, settings.epochs):
            if bad_epochs >= settings.patience:
                break
            module.train()
            order = torch.randperm(
                len(train_items), generator=torch.Generator().manual_seed(settings.seed * 1000 + epoch)
            ).tolist()
            batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
            bar = bars.add_task(f"{progress_label} epoch {epoch + 1}/{settings.epochs}", total=len(batches))
            # the loss is summed on the device: reading it each step would wait for the GPU every step
            started, total_loss = time.perf_counter(), torch.zeros((), device=device)
            optimizer.zero_grad(set_to_none=True)
            for i, indices in enumerate(batches):
                if cpu_before_first is None:
                    cpu_before_first = time.process_time()
                batch = to_device(collate([train_items[j] for j in indices]), device)
                with autocast(device, use_amp):
                    loss = loss_fn(module, batch) / settings.grad_accum
                (scaler.scale(loss) if scaler else loss).backward()
                total_loss += loss.detach().float() * settings.grad_accum
                if (i + 1) % settings.grad_accum == 0 or i + 1 == len(batches):
                    if scaler:
                        scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(module.parameters(), 1.0)
                    if scaler:
                        scaler.step(optimizer)
                        scaler.update()
                    else:
                        optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad(set_to_none=True)
                bars.advance(bar)
            train_loss = float(total_loss) / max(1, len(batches))  # the epoch's one synchronisation
            train_seconds += time.perf_counter() - started
            seen += len(order)
            module.eval()
            if on_epoch_end is not None:  # e.g. dataset cartography's per-item training dynamics
                on_epoch_end(module, epoch + 1)
            # without a val set the training loss decides, in the direction the score is read
            score = (
                float(score_fn(module, val_items))
                if len(val_items)
                else (-train_loss if higher_is_better else train_loss)
            )
            record = {"epoch": epoch + 1, "train_loss": train_loss, "val_score": score}
            history.append(record)
            if sign * score > best:
                best, best_epoch, bad_epochs = sign * score, epoch + 1, 0
                if save_best is not None:
                    save_best(module, out / "best")
            else:
                bad_epochs += 1
            _save_state(torch, state_path, module, optimizer, scheduler, epoch, best, best_epoch, bad_epochs, history)
            (out / "history.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history), encoding="utf-8")
    return FitResult(
        epochs_run=len(history),
        best_epoch=best_epoch,
        best_score=sign * best if best_epoch > 0 else math.nan,
        history=history,
        train_examples_per_s=seen / train_seconds if train_seconds else 0.0,
        resumed_from=resumed,
        cpu_s_before_first_step=cpu_before_first,
    )


def _probe(
    module, items: Sequence[Any], collate, loss_fn, device: str, settings: TrainSettings
) -> Callable[[int], None]:
    """One training step's memory on the longest items at batch n (weights restored by zero_grad: no update)."""
    require("torch", "models")

    def run(n: int) -> None:
        longest = sorted(items, key=_size, reverse=True)[:1] * n
        batch = to_device(collate(longest), device)
        with autocast(device, settings.mixed_precision):
            loss = loss_fn(module, batch)
        loss.backward()
        module.zero_grad(set_to_none=True)
        del loss, batch

    return run


def _size(item: Any) -> int:
    if hasattr(item, "seqs"):
        return sum(len(s) for s in item.seqs)
    return len(getattr(item, "source", [])) + len(getattr(item, "target", []))


def _save_state(torch, path: Path, module, optimizer, scheduler, epoch, best, best_epoch, bad_epochs, history) -> None:
    import random as _random

    from lotdata.io import atomic_path

    path.parent.mkdir(parents=True, exist_ok=True)
    state = {
        "model": module.state_dict(),
        "optimizer": optimizer.state_dict(),
        "scheduler": scheduler.state_dict(),
        "epoch": epoch,
        "best": best,
        "best_epoch": best_epoch,
        "bad_epochs": bad_epochs,
        "history": history,
        "torch_rng": torch.get_rng_state(),
        "py_rng": _random.getstate(),
    }
    # saved through a handle: torch names the archive inside after a file name, and the temporary name is random
    # (a resumed run's state.pt would differ from an uninterrupted one's in that name alone)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        torch.save(state, handle)
