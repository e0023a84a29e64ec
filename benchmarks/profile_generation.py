"""Where the first generation pass at a new batch shape spends its time (bench/gpu.md: the first pass at batch 96
ran at 1,449 tokens/s, the second at 8,814).

    python benchmarks/profile_generation.py --outgen DIR [--prompts 96] [--max-new 256] [--out FILE]

Builds the GPT-2-shape OutGen baseline as `bench_gpu.py` does, generates a 4-prompt warm-up, then generates the
prompts twice with a fresh model each time (as the benchmark's rounds do), each pass under `torch.profiler`
(CPU and CUDA activities). Prints each pass's wall time and the operators with the largest self CPU and self CUDA
time, so the two passes can be compared operator by operator.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_gpu  # noqa: E402


def _model(outgen: Path, config_path: Path, max_new: int):
    from lotdata.models.baseline import GenBaseline
    from lotdata.models.config import load_config

    config = load_config(config_path).with_train(epochs=1).with_generate(max_new_tokens=max_new, gpu_batch_size="auto")
    bench_gpu._release()
    model = GenBaseline(config, "outgen", device=bench_gpu.DEVICE)
    with tempfile.TemporaryDirectory() as tmp:
        model.fit(bench_gpu._rows(outgen, "train", 48), out=tmp)
    return model


def profiled_pass(model, rows: list[dict], label: str, top: int) -> str:
    import torch
    from torch.profiler import ProfilerActivity, profile

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    bench_gpu._cuda("synchronize")
    with profile(activities=activities) as prof:
        start = time.perf_counter()
        model.generate(rows)
        bench_gpu._cuda("synchronize")
        seconds = time.perf_counter() - start
    events = prof.key_averages()
    parts = [f"## {label}: {seconds:.2f} s at batch {model.generation_batch_size} (under the profiler)", ""]
    parts.append(events.table(sort_by="self_cpu_time_total", row_limit=top))
    if torch.cuda.is_available():
        parts.append(events.table(sort_by="self_cuda_time_total", row_limit=top))
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--outgen", type=Path, required=True)
    parser.add_argument("--configs", type=Path, default=Path(__file__).resolve().parents[1] / "baselines")
    parser.add_argument("--prompts", type=int, default=96)
    parser.add_argument("--max-new", type=int, default=256)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    import torch

    bench_gpu.DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
    rows = (bench_gpu._rows(args.outgen, "val") * 10)[: args.prompts]
    report = []
    for label in ("first pass", "second pass"):
        model = _model(args.outgen, args.configs / "gpt2.toml", args.max_new)
        model.generate(rows[:4])  # the benchmark's warm-up
        report.append(profiled_pass(model, rows, label, args.top))
        print(report[-1], flush=True)
        del model
    if args.out:
        args.out.write_text("\n\n".join(report) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
