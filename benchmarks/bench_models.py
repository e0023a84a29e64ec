"""Training examples/s and generated tokens/s of lotdata's baseline code next to plain transformers.

    python benchmarks/bench_models.py --out bench/models.md [--repeats 3] [--shapes tiny,base]

For each shape, the same GPT-2-style model (same initial weights), batch (12, the paper's) and length:

* train: ``lotdata.models.trainer.fit`` (our loop) against ``transformers.Trainer`` (``max_steps`` the
  same number of steps, no saving, no logging); examples/s as each reports for its training loop;
* generate: ``lotdata.models.generation.generate_batch`` against a plain ``model.generate`` call with the
  same arguments (top-k 40, temperature 0.7, the same seed); generated tokens/s.

Medians of ``--repeats`` runs, after one untimed warm-up run of each side (the first run pays for
kernel compilation, allocator growth and caches: it read 0.14 and 0.20 of the later ratios on an H100).
On CUDA the same runs use mixed precision, peak GPU memory is reset before each measured run and read
after it, the base shape trains enough steps to reach a steady state, and a second table (``--gpu-table``,
on by default on CUDA) sets the paper's batch of 12 against a large GPU batch (``--gpu-batch``, default
"auto": sized to free memory as the shipped configs do) for our training loop and for generation.
Inputs are synthetic token ids from a vocabulary built from lotdata's embedded sample corpus.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from machine import load_note  # benchmarks/machine.py

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPES = {
    # name: (model shape, sequence length, training steps on CPU, on CUDA, new tokens)
    "tiny": (
        {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 2, "intermediate_size": 128},
        128,
        20,
        200,
        64,
    ),
    "base": (
        {"num_hidden_layers": 12, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072},
        64,
        3,
        100,
        16,
    ),
}
#: the GPU table: the paper's bert-base-like length 512 and a story's worth of new tokens
GPU_TABLE = {"length": 512, "steps": 60, "new_tokens": 256, "prompts": 96}
BATCH = 12


def _sample_texts() -> list[str]:
    from lotdata.resources import sample_corpus_path

    return [
        json.loads(line).get("text", "")
        for line in sample_corpus_path().read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _setup(shape: dict, length: int, steps: int, workdir: Path):
    import torch
    import transformers

    from lotdata.models.backbone import model_config, quiet_transformers, specials_of
    from lotdata.models.vocab import build_tokenizer

    quiet_transformers()
    tokenizer = build_tokenizer(_sample_texts(), workdir / "tok", max_size=8000)
    config = model_config("gpt2", {**shape, "max_position_embeddings": 1024}, tokenizer)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(config)
    gen = torch.Generator().manual_seed(0)
    n = BATCH * steps
    ids = torch.randint(5, len(tokenizer), (n, length), generator=gen)
    return model, tokenizer, specials_of(tokenizer), ids


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def _reset_peak(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def _peak_mib(device: str) -> float | None:
    if device.startswith("cuda"):
        import torch

        return torch.cuda.max_memory_allocated() / 2**20
    return None


def _ours_train(model, ids, device, steps, batch=BATCH, gpu_batch=None) -> float:
    import torch

    from lotdata.models.config import TrainSettings
    from lotdata.models.trainer import fit

    items = list(ids)

    def collate(rows):
        batch = torch.stack(rows)
        return {"input_ids": batch, "attention_mask": torch.ones_like(batch), "labels": batch}

    settings = TrainSettings(batch_size=batch, gpu_batch_size=gpu_batch, epochs=1, learning_rate=3e-5, patience=1)
    with tempfile.TemporaryDirectory() as tmp:
        result = fit(
            model,
            items,
            [],
            collate=collate,
            loss_fn=lambda m, b: m(**b).loss,
            score_fn=lambda m, v: 0.0,
            settings=settings,
            out=tmp,
            device=device,
            resume=False,
        )
    return result.train_examples_per_s


def _hf_train(model, ids, device, steps) -> float:
    import transformers

    rows = [{"input_ids": r, "attention_mask": r * 0 + 1, "labels": r} for r in ids]
    with tempfile.TemporaryDirectory() as tmp:
        args = transformers.TrainingArguments(
            output_dir=tmp,
            per_device_train_batch_size=BATCH,
            max_steps=steps,
            learning_rate=3e-5,
            save_strategy="no",
            report_to=[],
            logging_strategy="no",
            disable_tqdm=True,
            use_cpu=device == "cpu",
            dataloader_num_workers=0,
            seed=0,
            bf16=device.startswith("cuda"),
        )
        trainer = transformers.Trainer(
            model=model, args=args, train_dataset=rows, data_collator=transformers.default_data_collator
        )
        out = trainer.train()
    return float(out.metrics["train_samples_per_second"])


def _prompts(ids, length: int) -> list[list[int]]:
    return [row[: length // 2].tolist() for row in ids[:BATCH]]


def _ours_generate(model, prompts, specials, new_tokens, device) -> float:
    import torch

    from lotdata.models.generation import generate_batch
    from lotdata.models.trainer import autocast

    torch.manual_seed(0)
    _sync(device)
    start = time.perf_counter()
    with autocast(device, True):
        outs = generate_batch(
            model, prompts, specials, top_k=40, temperature=0.7, max_new_tokens=new_tokens, device=device
        )
    return sum(len(o) for o in outs) / (time.perf_counter() - start)


def _hf_generate(model, prompts, specials, new_tokens, device) -> float:
    import torch

    from lotdata.models.trainer import autocast

    torch.manual_seed(0)
    ids = torch.tensor(prompts, device=device)  # prompts share one length: no padding needed
    _sync(device)
    start = time.perf_counter()
    with torch.no_grad(), autocast(device, True):
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=True,
            top_k=40,
            temperature=0.7,
            max_new_tokens=new_tokens,
            pad_token_id=specials.pad,
            eos_token_id=specials.eos,
        )
    new = out[:, ids.shape[1] :]
    tokens = 0
    for row in new.tolist():
        tokens += row.index(specials.eos) if specials.eos in row else len(row)
    return tokens / (time.perf_counter() - start)


def run(shapes: list[str], repeats: int, threads: int, gpu_table: bool | None = None, gpu_batch: str = "auto") -> dict:
    import torch

    torch.set_num_threads(threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    results = {}
    for name in shapes:
        shape, length, cpu_steps, gpu_steps, new_tokens = SHAPES[name]
        steps = gpu_steps if device == "cuda" else cpu_steps
        with tempfile.TemporaryDirectory() as tmp:
            model, tokenizer, specials, ids = _setup(shape, length, steps, Path(tmp))
        sides = {
            "ours_train": lambda: _ours_train(copy.deepcopy(model), ids, device, steps),
            "hf_train": lambda: _hf_train(copy.deepcopy(model), ids, device, steps),
        }
        gen_model = copy.deepcopy(model).to(device).eval()
        sides["ours_gen"] = lambda: _ours_generate(gen_model, _prompts(ids, length), specials, new_tokens, device)
        sides["hf_gen"] = lambda: _hf_generate(gen_model, _prompts(ids, length), specials, new_tokens, device)
        for measure in sides.values():  # warm-up, not timed
            measure()
        figures: dict[str, list] = {k: [] for k in sides}
        peaks: dict[str, list] = {k: [] for k in sides}
        for _ in range(repeats):  # interleaved, so drifting load hits both sides alike
            for key, measure in sides.items():
                _reset_peak(device)
                figures[key].append(measure())
                peaks[key].append(_peak_mib(device))
        results[name] = {
            "parameters": sum(p.numel() for p in model.parameters()),
            "length": length,
            "steps": steps,
            "new_tokens": new_tokens,
            "raw": figures,
            **{k: statistics.median(v) for k, v in figures.items()},
        }
        if device.startswith("cuda"):
            results[name]["peak_gpu_mib"] = {k: max(v) for k, v in peaks.items()}
        gen_model = None  # frees the GPU copy before the next shape
    report = {"device": device, "repeats": repeats, "threads": threads, "results": results}
    if gpu_table if gpu_table is not None else device == "cuda":
        report["gpu_table"] = run_gpu_table(device, repeats, gpu_batch)
    return report


def run_gpu_table(device: str, repeats: int, gpu_batch: str = "auto", shape_name: str = "base") -> dict:
    """Our training loop and generation at the paper's batch of 12 and at a large GPU batch, on the base
    shape (length 512 on CUDA); with utilisation where pynvml can read it."""
    import torch

    cuda = device.startswith("cuda")
    shape = SHAPES[shape_name if cuda else "tiny"][0]  # on CPU: a smoke run of the code path only
    length, steps, new_tokens, n_prompts = (
        (GPU_TABLE["length"], GPU_TABLE["steps"], GPU_TABLE["new_tokens"], GPU_TABLE["prompts"])
        if cuda
        else (64, 4, 8, 24)
    )
    big = gpu_batch if gpu_batch == "auto" else int(gpu_batch)
    with tempfile.TemporaryDirectory() as tmp:
        model, tokenizer, specials, _ = _setup(shape, length, 1, Path(tmp))
    gen = torch.Generator().manual_seed(1)
    rows = {}
    n = steps * (64 if big == "auto" else int(big))  # the same rows for both batches
    ids = torch.randint(5, len(tokenizer), (n, length), generator=gen)
    prompts = [r[: length // 4].tolist() for r in ids[:n_prompts]]
    for label, batch, gpu in (("batch 12", BATCH, None), (f"gpu batch {big}", BATCH, big)):
        size = BATCH if gpu is None else (64 if gpu == "auto" else int(gpu))
        # on CPU (a smoke run of this table) the GPU batch is given as the batch itself
        train = lambda: _ours_train(copy.deepcopy(model), ids, device, steps, batch if cuda else size, gpu)  # noqa: E731
        gen_model = copy.deepcopy(model).to(device).eval()

        def generate() -> float:
            from lotdata.models.generation import generate_batch
            from lotdata.models.trainer import autocast

            torch.manual_seed(0)
            _sync(device)
            start, tokens = time.perf_counter(), 0
            with autocast(device, True):
                for i in range(0, len(prompts), size):
                    outs = generate_batch(
                        gen_model,
                        prompts[i : i + size],
                        specials,
                        top_k=40,
                        temperature=0.7,
                        max_new_tokens=new_tokens,
                        device=device,
                    )
                    tokens += sum(len(o) for o in outs)
            _sync(device)
            return tokens / (time.perf_counter() - start)

        train(), generate()  # warm-up
        figures: dict[str, list] = {
            "train": [],
            "gen": [],
            "train_peak": [],
            "gen_peak": [],
            "train_busy": [],
            "gen_busy": [],
        }
        for _ in range(repeats):
            for key, measure in (("train", train), ("gen", generate)):
                _reset_peak(device)
                with _Utilisation(device) as busy:
                    figures[key].append(measure())
                figures[f"{key}_peak"].append(_peak_mib(device))
                figures[f"{key}_busy"].append(busy.mean)
        rows[label] = {
            "raw": figures,
            "train": statistics.median(figures["train"]),
            "gen": statistics.median(figures["gen"]),
            "train_peak_mib": _max(figures["train_peak"]),
            "gen_peak_mib": _max(figures["gen_peak"]),
            "train_busy": _median(figures["train_busy"]),
            "gen_busy": _median(figures["gen_busy"]),
        }
        gen_model = None  # frees the GPU copy before the next shape
    return {
        "shape": shape_name if cuda else "tiny",
        "length": length,
        "steps": steps,
        "new_tokens": new_tokens,
        "prompts": n_prompts,
        "rows": rows,
    }


def _max(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


class _Utilisation:
    """Mean GPU utilisation (%) over a block, sampled every 0.1 s with pynvml; None without it or on CPU."""

    def __init__(self, device: str) -> None:
        self.device, self.samples, self.mean = device, [], None

    def __enter__(self):
        import threading

        self._stop = threading.Event()
        self._thread = None
        if self.device.startswith("cuda"):
            try:
                import pynvml

                pynvml.nvmlInit()
                handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            except Exception:  # pynvml missing or no NVML: the column stays empty
                return self

            def sample() -> None:
                while not self._stop.wait(0.1):
                    self.samples.append(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)

            self._thread = threading.Thread(target=sample, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.mean = statistics.fmean(self.samples) if self.samples else None


def render(report: dict) -> str:
    lines = [
        "# Model baselines: our loop and generate vs plain transformers",
        "",
        f"Device: {report['device']} ({platform.processor() or platform.machine()}, {os.cpu_count()} cores). "
        f"torch threads: {report['threads']}. Medians of {report['repeats']} interleaved runs. Batch {BATCH}, GPT-2-style model from a config, the same initial weights.",
        load_note() + " Compare the two columns of a row.",
        "",
        "| shape | #P | length | train ex/s ours | train ex/s Trainer | ratio | gen tok/s ours | gen tok/s generate() | ratio |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in report["results"].items():
        lines.append(
            f"| {name} | {r['parameters'] / 1e6:.1f}M | {r['length']} | {r['ours_train']:.1f} | {r['hf_train']:.1f} | "
            f"{r['ours_train'] / r['hf_train']:.2f} | {r['ours_gen']:.1f} | {r['hf_gen']:.1f} | {r['ours_gen'] / r['hf_gen']:.2f} |"
        )
    lines += ["", "Ratio ours/transformers of each interleaved repeat (the spread shows the noise):", ""]
    for name, r in report["results"].items():
        raw = r["raw"]
        train = ", ".join(f"{a / b:.2f}" for a, b in zip(raw["ours_train"], raw["hf_train"]))
        gen = ", ".join(f"{a / b:.2f}" for a, b in zip(raw["ours_gen"], raw["hf_gen"]))
        lines.append(f"- {name}: train {train}; generate {gen}")
    if any("peak_gpu_mib" in r for r in report["results"].values()):
        lines += [
            "",
            "Peak GPU memory (MiB, reset before each measured run): "
            + "; ".join(
                f"{n}: " + ", ".join(f"{k} {v:.0f}" for k, v in r["peak_gpu_mib"].items())
                for n, r in report["results"].items()
            ),
        ]
    lines += [
        "",
        "Training steps per run: "
        + ", ".join(f"{n} {r['steps']}" for n, r in report["results"].items())
        + "; new tokens per generation: "
        + ", ".join(f"{n} {r['new_tokens']}" for n, r in report["results"].items())
        + ". One untimed warm-up run of each side precedes the measured ones.",
    ]
    table = report.get("gpu_table")
    if table:
        fmt = lambda v, f: "–" if v is None else format(v, f)  # noqa: E731
        lines += [
            "",
            f"## Our loop at the paper's batch and at a GPU batch ({report['device']})",
            "",
            f"{table['shape']} shape, length {table['length']}, {table['steps']} training steps; generation of "
            f"{table['new_tokens']} new tokens for {table['prompts']} prompts. Busy: mean GPU utilisation (pynvml).",
            "",
            "| batch | train ex/s | busy % | peak MiB | gen tok/s | busy % | peak MiB |",
            "|---|---|---|---|---|---|---|",
        ]
        for label, r in table["rows"].items():
            lines.append(
                f"| {label} | {r['train']:.1f} | {fmt(r['train_busy'], '.0f')} | {fmt(r['train_peak_mib'], '.0f')} | "
                f"{r['gen']:.1f} | {fmt(r['gen_busy'], '.0f')} | {fmt(r['gen_peak_mib'], '.0f')} |"
            )
        first, last = list(table["rows"].values())[0], list(table["rows"].values())[-1]
        lines += [
            "",
            f"Ratio GPU batch / batch 12: train {last['train'] / first['train']:.2f}, generation {last['gen'] / first['gen']:.2f}.",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="bench/models.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shapes", default="tiny,base")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (1 is fastest on a contended machine)"
    )
    parser.add_argument("--render", help="Only re-render the Markdown from a results JSON written before.")
    parser.add_argument(
        "--gpu-table",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="The batch-12 vs GPU-batch table (default: on when CUDA is present; on CPU a tiny smoke run).",
    )
    parser.add_argument("--gpu-batch", default="auto", help='The large batch of that table: a number or "auto".')
    args = parser.parse_args()
    if args.render:
        report = json.loads(Path(args.render).read_text(encoding="utf-8"))
    else:
        report = run(args.shapes.split(","), args.repeats, args.threads, args.gpu_table, args.gpu_batch)
    text = render(report)
    from lotdata.io import write_text

    write_text(text, args.out)
    write_text(json.dumps(report, indent=2) + "\n", Path(args.out).with_suffix(".json"))
    print(text)


if __name__ == "__main__":
    main()
