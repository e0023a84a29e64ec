"""Training examples/s and generated tokens/s of lotdata's baseline code next to plain transformers.

    python benchmarks/bench_models.py --out bench/models.md [--repeats 3] [--shapes tiny,base]

For each shape, the same GPT-2-style model (same initial weights), batch (12, the paper's) and length:

* train: ``lotdata.models.trainer.fit`` (our loop) against ``transformers.Trainer`` (``max_steps`` the
  same number of steps, no saving, no logging); examples/s as each reports for its training loop;
* generate: ``lotdata.models.generation.generate_batch`` against a plain ``model.generate`` call with the
  same arguments (top-k 40, temperature 0.7, the same seed); generated tokens/s.

Medians of ``--repeats`` runs. On CUDA the same runs use mixed precision and the table adds peak GPU
memory. Inputs are synthetic token ids from a vocabulary built from lotdata's embedded sample corpus.
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
    # name: (model shape, sequence length, training steps, new tokens)
    "tiny": ({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 2, "intermediate_size": 128}, 128, 20, 64),
    "base": ({"num_hidden_layers": 12, "hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072}, 64, 3, 16),
}
BATCH = 12


def _sample_texts() -> list[str]:
    from lotdata.resources import sample_corpus_path

    return [json.loads(line).get("text", "") for line in sample_corpus_path().read_text(encoding="utf-8").splitlines() if line.strip()]


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


def _ours_train(model, ids, device, steps) -> float:
    import torch

    from lotdata.models.config import TrainSettings
    from lotdata.models.trainer import fit

    items = list(ids)

    def collate(rows):
        batch = torch.stack(rows)
        return {"input_ids": batch, "attention_mask": torch.ones_like(batch), "labels": batch}

    settings = TrainSettings(batch_size=BATCH, epochs=1, learning_rate=3e-5, patience=1)
    with tempfile.TemporaryDirectory() as tmp:
        result = fit(model, items, [], collate=collate, loss_fn=lambda m, b: m(**b).loss, score_fn=lambda m, v: 0.0,
                     settings=settings, out=tmp, device=device, resume=False)
    return result.train_examples_per_s


def _hf_train(model, ids, device, steps) -> float:
    import transformers

    rows = [{"input_ids": r, "attention_mask": r * 0 + 1, "labels": r} for r in ids]
    with tempfile.TemporaryDirectory() as tmp:
        args = transformers.TrainingArguments(
            output_dir=tmp, per_device_train_batch_size=BATCH, max_steps=steps, learning_rate=3e-5, save_strategy="no",
            report_to=[], logging_strategy="no", disable_tqdm=True, use_cpu=device == "cpu", dataloader_num_workers=0,
            seed=0, bf16=device.startswith("cuda"),
        )
        trainer = transformers.Trainer(model=model, args=args, train_dataset=rows, data_collator=transformers.default_data_collator)
        out = trainer.train()
    return float(out.metrics["train_samples_per_second"])


def _prompts(ids, length: int) -> list[list[int]]:
    return [row[: length // 2].tolist() for row in ids[:BATCH]]


def _ours_generate(model, prompts, specials, new_tokens, device) -> float:
    import torch

    from lotdata.models.generation import generate_batch

    torch.manual_seed(0)
    start = time.perf_counter()
    outs = generate_batch(model, prompts, specials, top_k=40, temperature=0.7, max_new_tokens=new_tokens, device=device)
    return sum(len(o) for o in outs) / (time.perf_counter() - start)


def _hf_generate(model, prompts, specials, new_tokens, device) -> float:
    import torch

    torch.manual_seed(0)
    ids = torch.tensor(prompts, device=device)  # prompts share one length: no padding needed
    start = time.perf_counter()
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, top_k=40, temperature=0.7,
                             max_new_tokens=new_tokens, pad_token_id=specials.pad, eos_token_id=specials.eos)
    new = out[:, ids.shape[1]:]
    tokens = 0
    for row in new.tolist():
        tokens += row.index(specials.eos) if specials.eos in row else len(row)
    return tokens / (time.perf_counter() - start)


def run(shapes: list[str], repeats: int, threads: int) -> dict:
    import torch

    torch.set_num_threads(threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    results = {}
    for name in shapes:
        shape, length, steps, new_tokens = SHAPES[name]
        with tempfile.TemporaryDirectory() as tmp:
            model, tokenizer, specials, ids = _setup(shape, length, steps, Path(tmp))
        figures = {"ours_train": [], "hf_train": [], "ours_gen": [], "hf_gen": []}
        for _ in range(repeats):  # interleaved, so drifting load hits both sides alike
            figures["ours_train"].append(_ours_train(copy.deepcopy(model), ids, device, steps))
            figures["hf_train"].append(_hf_train(copy.deepcopy(model), ids, device, steps))
            gen_model = copy.deepcopy(model).to(device).eval()
            figures["ours_gen"].append(_ours_generate(gen_model, _prompts(ids, length), specials, new_tokens, device))
            figures["hf_gen"].append(_hf_generate(gen_model, _prompts(ids, length), specials, new_tokens, device))
        results[name] = {
            "parameters": sum(p.numel() for p in model.parameters()), "length": length, "steps": steps, "new_tokens": new_tokens,
            "raw": figures, **{k: statistics.median(v) for k, v in figures.items()},
        }
        if device.startswith("cuda"):
            results[name]["peak_gpu_mib"] = torch.cuda.max_memory_allocated() / 2**20
    return {"device": device, "repeats": repeats, "threads": threads, "results": results}


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
        lines += ["", "Peak GPU memory (MiB): " + ", ".join(f"{n} {r['peak_gpu_mib']:.0f}" for n, r in report["results"].items())]
    lines += ["", "Training steps per run: " + ", ".join(f"{n} {r['steps']}" for n, r in report["results"].items()) +
              "; new tokens per generation: " + ", ".join(f"{n} {r['new_tokens']}" for n, r in report["results"].items()) + "."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="bench/models.md")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shapes", default="tiny,base")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (1 is fastest on a contended machine)")
    parser.add_argument("--render", help="Only re-render the Markdown from a results JSON written before.")
    args = parser.parse_args()
    if args.render:
        report = json.loads(Path(args.render).read_text(encoding="utf-8"))
    else:
        report = run(args.shapes.split(","), args.repeats, args.threads)
    text = render(report)
    from lotdata.io import write_text

    write_text(text, args.out)
    write_text(json.dumps(report, indent=2) + "\n", Path(args.out).with_suffix(".json"))
    print(text)


if __name__ == "__main__":
    main()
