"""GPU speed of the model baselines through their public API: bert-base-shape SenPos training and
GPT-2-base-shape OutGen generation, with the GPU's utilisation sampled while each runs.

    python benchmarks/bench_gpu.py --senpos DIR --outgen DIR --label new --json out.json [--repeats 3]

Run it once with the current code and once with another tree first on PYTHONPATH (for instance the code
before the GPU changes, `git archive 0dc13e6^1 lotdata baselines`) to compare both on one machine in one
session; `--render A.json B.json ... --out bench/gpu.md` writes the side-by-side table.

* SenPos: `ChoiceBaseline(load_config("bert.toml"), "senpos", device=DEVICE).fit(train)` from scratch
  (bert-base shape, length 512, the config's batch: 12 and the GPU batch "auto"), one warm-up epoch then
  `--repeats` measured epochs; examples/s as the training loop reports it; GPU busy % from NVML sampled
  every 50 ms between the first and the last optimiser step (AdamW.step is wrapped to time them).
* OutGen: `GenBaseline(load_config("gpt2.toml"), "outgen", device=DEVICE)` built on the train split, then
  `generate` on `--prompts` val rows (top-k 40, temperature 0.7, the config's max new tokens); new tokens
  per second, tokens counted by the model's own tokenizer.
* CPU before the first GPU step: `lotdata baseline train` and `predict` run as commands; the process CPU
  time (user + system) when the first training step / first prediction batch starts, as the run writes it
  into `results.json` (`timing`), where the code records it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DEVICE = "cuda"


def _cuda(name: str, *args):
    """torch.cuda.NAME(*args) when CUDA is there (a CPU smoke run skips it)."""
    import torch

    return getattr(torch.cuda, name)(*args) if torch.cuda.is_available() else None


class Busy:
    """GPU utilisation samples (NVML, every 50 ms) with their times."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, int]] = []

    def __enter__(self) -> "Busy":
        self._stop = threading.Event()
        self._thread = threading.Thread()
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:  # no NVML (a CPU smoke run): no samples
            return self

        def sample() -> None:
            while not self._stop.wait(0.05):
                self.samples.append((time.perf_counter(), pynvml.nvmlDeviceGetUtilizationRates(handle).gpu))

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.ident is not None:
            self._thread.join()

    def mean(self, start: float, end: float) -> float | None:
        inside = [u for t, u in self.samples if start <= t <= end]
        return statistics.fmean(inside) if inside else None


class StepTimes:
    """The time of every optimiser step of a block (AdamW.step wrapped) and of every epoch's start
    (the training loop draws one `torch.randperm` order per epoch)."""

    def __enter__(self) -> "StepTimes":
        import torch

        self.steps: list[float] = []
        self.epochs: list[float] = []
        self._step, self._randperm = torch.optim.AdamW.step, torch.randperm
        outer = self

        def step(opt, *a, **k):
            out = outer._step(opt, *a, **k)
            outer.steps.append(time.perf_counter())
            return out

        def randperm(*a, **k):
            outer.epochs.append(time.perf_counter())
            return outer._randperm(*a, **k)

        torch.optim.AdamW.step, torch.randperm = step, randperm
        return self

    def __exit__(self, *exc) -> None:
        import torch

        torch.optim.AdamW.step, torch.randperm = self._step, self._randperm

    def epoch_windows(self) -> list[tuple[float, float, int]]:
        """(start, last step, steps) of each epoch."""
        bounds = self.epochs + [float("inf")]
        out = []
        for start, end in zip(bounds, bounds[1:]):
            inside = [t for t in self.steps if start <= t < end]
            if inside:
                out.append((start, inside[-1], len(inside)))
        return out


def _release() -> None:
    """The last measurement's model gone from the GPU before the next one sizes its batch to free memory
    (a reference cycle can keep its tensors alive until a collection)."""
    import gc

    gc.collect()
    _cuda("empty_cache")


def _rows(folder: Path, split: str, n: int | None = None) -> list[dict]:
    import pyarrow.parquet as pq

    rows = pq.read_table(folder / f"{split}.parquet").to_pylist()
    return rows[:n] if n else rows


def senpos_training(data: Path, config_path: Path, gpu_batch, repeats: int, n_train: int | None) -> dict:

    from lotdata.models.baseline import ChoiceBaseline
    from lotdata.models.config import load_config

    _release()
    train = _rows(data, "train", n_train)
    config = load_config(config_path).with_train(epochs=1 + repeats, patience=10**6, gpu_batch_size=gpu_batch)
    model = ChoiceBaseline(config, "senpos", device=DEVICE)
    _cuda("reset_peak_memory_stats")
    with tempfile.TemporaryDirectory() as tmp, Busy() as busy, StepTimes() as steps:
        model.fit(train, out=tmp)
    result = model.fit_result
    windows = steps.epoch_windows()[1:]  # the first epoch is the warm-up
    rates = [len(train) / (end - start) for start, end, _ in windows]
    return {
        "examples": len(train),
        "epochs": result.epochs_run,
        "steps_per_epoch": windows[0][2] if windows else None,
        "batch": -(-len(train) // windows[0][2]) if windows else None,
        "loop_examples_per_s": result.train_examples_per_s,
        "epoch_examples_per_s": rates,
        "measured_examples_per_s": statistics.median(rates) if rates else None,
        "busy_pct": statistics.median([busy.mean(s, e) or 0 for s, e, _ in windows]) if windows else None,
        "peak_gpu_mib": (_cuda("max_memory_allocated") or 0) / 2**20,
        "cpu_s_before_first_step": getattr(result, "cpu_s_before_first_step", None),
    }


def outgen_generation(data: Path, config_path: Path, gpu_batch, prompts: int, max_new: int) -> dict:

    from lotdata.models.baseline import GenBaseline
    from lotdata.models.config import load_config

    config = load_config(config_path).with_train(epochs=1).with_generate(max_new_tokens=max_new)
    if gpu_batch is not None:
        config = config.with_generate(gpu_batch_size=gpu_batch)
    _release()
    model = GenBaseline(config, "outgen", device=DEVICE)
    with tempfile.TemporaryDirectory() as tmp:
        model.fit(_rows(data, "train", 48), out=tmp)
    rows = (_rows(data, "val") * 10)[:prompts]
    model.generate(rows[:4])  # warm-up
    _cuda("synchronize")
    _cuda("reset_peak_memory_stats")
    with Busy() as busy:
        start = time.perf_counter()
        texts = model.generate(rows)
        _cuda("synchronize")
        end = time.perf_counter()
    tokens = sum(len(model.tokenizer.tokenize(t)) for t in texts)
    return {
        "prompts": len(rows),
        "tokens": tokens,
        "seconds": end - start,
        "tokens_per_s": tokens / (end - start),
        "batch": model.generation_batch_size,
        "busy_pct": busy.mean(start, end),
        "peak_gpu_mib": (_cuda("max_memory_allocated") or 0) / 2**20,
    }


def command_startup(senpos: Path, config_path: Path, python: str) -> dict:
    """CPU seconds before the first GPU step of `baseline train` and `baseline predict`, as results.json holds them."""
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        small = Path(tmp) / "cfg.toml"
        small.write_text(config_path.read_text(encoding="utf-8").replace("epochs = 3", "epochs = 1"), encoding="utf-8")
        for name, args in (
            ("train", ["baseline", "train", "--config", str(small), "--data", str(senpos), "--out", str(run)]),
            (
                "predict",
                [
                    "baseline",
                    "predict",
                    "--run",
                    str(run),
                    "--data",
                    str(senpos),
                    "--split",
                    "test",
                    "--out",
                    str(Path(tmp) / "pred.jsonl"),
                ],
            ),
        ):
            started = time.perf_counter()
            proc = subprocess.run([python, "-m", "lotdata", *args], capture_output=True, text=True)
            out[name] = {
                "rc": proc.returncode,
                "wall_s": time.perf_counter() - started,
                "stderr_tail": proc.stderr[-600:],
            }
        results = (
            json.loads((run / "results.json").read_text(encoding="utf-8")) if (run / "results.json").exists() else {}
        )
        out["timing"] = results.get("timing")
    return out


def _chosen(generation: dict) -> str:
    return f" ({generation['batch']})" if generation.get("batch") else ""


def render(reports: list[dict]) -> str:
    lines = ["# Model baselines on a GPU", ""]
    first = reports[0]
    lines += [
        f"GPU: {first['gpu']}; torch {first['torch']}, transformers {first['transformers']}. "
        f"bert-base shape (12 layers, hidden 768) from scratch on SenPos built from the CMRC 2017 + CFT stories "
        f"({first['senpos'][0].get('examples', '–')} training examples, length 512), measured epochs after one warm-up epoch; "
        "GPT-2 base shape (12 layers) generating OutGen stories (top-k 40, temperature 0.7). Busy: mean NVML "
        "utilisation every 50 ms between the first and last optimiser step of the measured epochs / during generation.",
        "",
        "| code | SenPos batch | train ex/s | busy % | peak MiB | gen batch | gen tok/s | busy % | peak MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    fmt = lambda v, f=".1f": "–" if v is None else format(v, f)  # noqa: E731
    for r in reports:
        for s, g in zip(r["senpos"], r["outgen"]):
            lines.append(
                f"| {r['label']} | {s['gpu_batch']} ({fmt(s['batch'], '.0f')}) | {fmt(s['measured_examples_per_s'])} | "
                f"{fmt(s['busy_pct'], '.0f')} | {fmt(s['peak_gpu_mib'], '.0f')} | {g['gpu_batch']}{_chosen(g)} | "
                f"{fmt(g['tokens_per_s'])} | "
                f"{fmt(g['busy_pct'], '.0f')} | {fmt(g['peak_gpu_mib'], '.0f')} |"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--senpos", type=Path)
    parser.add_argument("--outgen", type=Path)
    parser.add_argument("--configs", type=Path, default=Path(__file__).resolve().parents[1] / "baselines")
    parser.add_argument("--label", default="current")
    parser.add_argument(
        "--batches",
        default="none,auto",
        help="gpu_batch_size values to measure: none (the config's 12), auto, or numbers",
    )
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--n-train", type=int, default=None)
    parser.add_argument("--prompts", type=int, default=96)
    parser.add_argument("--max-new", type=int, default=256)
    parser.add_argument(
        "--startup", action="store_true", help="also time the CLI commands' CPU before the first GPU step"
    )
    parser.add_argument(
        "--only", choices=("senpos", "outgen"), help="measure one of the two (the other's columns read –)"
    )
    parser.add_argument("--json", type=Path)
    parser.add_argument("--render", nargs="*", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.render:
        text = render([json.loads(p.read_text(encoding="utf-8")) for p in args.render])
        if args.out:
            args.out.write_text(text, encoding="utf-8")
        print(text)
        return
    import torch
    import transformers

    global DEVICE
    DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
    report = {
        "label": args.label,
        "gpu": _cuda("get_device_name", 0) or "cpu",
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "senpos": [],
        "outgen": [],
    }
    for b in args.batches.split(","):
        batch = None if b == "none" else (b if b == "auto" else int(b))
        s = {"gpu_batch": b, "batch": None, "measured_examples_per_s": None, "busy_pct": None, "peak_gpu_mib": None}
        if args.only != "outgen":
            s |= senpos_training(args.senpos, args.configs / "bert.toml", batch, args.repeats, args.n_train)
        report["senpos"].append(s)
        print(json.dumps(s), flush=True)
        g = {"gpu_batch": b, "tokens_per_s": None, "busy_pct": None, "peak_gpu_mib": None}
        if args.only != "senpos":
            g |= outgen_generation(args.outgen, args.configs / "gpt2.toml", batch, args.prompts, args.max_new)
        report["outgen"].append(g)
        print(json.dumps(g), flush=True)
        _cuda("empty_cache")
    if args.startup:
        report["startup"] = command_startup(args.senpos, args.configs / "bert.toml", sys.executable)
        print(json.dumps(report["startup"]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
