"""Generation baselines (PlotCom, OutGen): inputs, the LM loss and top-k sampling (LOT Section 5.2).

The task's `generation_input` says what the model reads and writes:

- PlotCom: the story with its <MASK> (as the tokenizer's mask/marker token) -> the missing sentence.
- OutGen: title, then the outline phrases, joined by the end token ([SEP] / </s>) -> the story.

Decoder-only models (GPT-2 style) read ``S source E target eos`` with the loss on the target only;
encoder-decoder models (T5/BART style) read the source and predict ``target eos``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lotdata.datasets.registry import family_tasks, get_task
from lotdata.errors import require
from lotdata.models.backbone import Specials

IGNORE = -100


@dataclass
class Pair:
    source: list[int]
    target: list[int]


class GenEncoder:
    def __init__(
        self, tokenizer, specials: Specials, task: str, max_length: int = 512, encoder_decoder: bool = False
    ) -> None:
        spec = get_task(task)
        if spec.generation_input is None:
            raise ValueError(f"task {task!r} is not a generation task {tuple(family_tasks('generation'))}")
        self.tokenizer, self.sp, self.task, self.max_length, self.encoder_decoder = (
            tokenizer,
            specials,
            task,
            max_length,
            encoder_decoder,
        )
        self.input, self.mask = spec.generation_input, spec.mask_token

    def ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"] if text else []

    def piece(self, text: str) -> list[int]:
        """A source piece's ids, the task's mask token (its first one) as the marker token."""
        if self.mask is None or self.mask not in text:
            return self.ids(text)
        left, _, right = text.partition(self.mask)
        return self.ids(left) + [self.sp.marker] + self.ids(right)

    def source(self, row: Mapping[str, Any]) -> list[int]:
        pieces: list[str] = []
        for name in self.input.source:
            value = row.get(name)
            pieces.extend(value) if isinstance(value, list) else pieces.append(value or "")
        ids = self.piece(pieces[0]) if pieces else []
        for text in pieces[1:]:
            ids += [self.sp.end] + self.piece(text)
        # a one-sentence target leaves an encoder-decoder's source the whole length
        budget = self.max_length - 2 if self.input.short_target and self.encoder_decoder else self.max_length // 2
        return ids[:budget]

    def target_text(self, row: Mapping[str, Any]) -> str:
        return row[self.input.target]

    def __call__(self, row: Mapping[str, Any]) -> Pair:
        source = self.source(row)
        room = self.max_length - 1 if self.encoder_decoder else self.max_length - len(source) - 3
        return Pair(source, self.ids(self.target_text(row))[: max(room, 1)])

    def prompt(self, pair: Pair) -> list[int]:
        """What the model is given at generation time."""
        return pair.source + [self.sp.end] if self.encoder_decoder else [self.sp.start] + pair.source + [self.sp.end]


def collate_lm(pairs: Sequence[Pair], specials: Specials, encoder_decoder: bool) -> dict[str, Any]:
    torch = require("torch", "models")
    if encoder_decoder:
        sources = [p.source + [specials.end] for p in pairs]
        targets = [p.target + [specials.eos] for p in pairs]
        ids, mask = _pad(torch, sources, specials.pad)
        labels, _ = _pad(torch, targets, IGNORE)
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}
    seqs, labels = [], []
    for p in pairs:
        prefix = [specials.start] + p.source + [specials.end]
        seqs.append(prefix + p.target + [specials.eos])
        labels.append([IGNORE] * len(prefix) + p.target + [specials.eos])
    ids, mask = _pad(torch, seqs, specials.pad)
    label_ids, _ = _pad(torch, labels, IGNORE)
    return {"input_ids": ids, "attention_mask": mask, "labels": label_ids}


def _pad(torch, seqs: Sequence[Sequence[int]], value: int, left: bool = False):
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), value, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        span = slice(width - len(s), width) if left else slice(0, len(s))
        ids[i, span] = torch.tensor(list(s), dtype=torch.long)
        mask[i, span] = 1
    return ids, mask


def lm_loss(model, batch):
    return model(**batch).loss


def _attention_without_cudnn(device: str):
    """Attention kernels for generation: every backend but cuDNN's on a GPU. cuDNN's SDPA builds an execution plan for
    each new key length, and generation grows the key length every step: the first pass at a batch shape spent 18 s
    of CPU in those plans (benchmarks/profile_generation.py on an H200, bench/gpu.md)."""
    import contextlib

    if not str(device).startswith("cuda"):
        return contextlib.nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])


def generate_batch(
    model,
    prompts: Sequence[Sequence[int]],
    specials: Specials,
    *,
    top_k: int = 40,
    temperature: float = 0.7,
    max_new_tokens: int = 512,
    encoder_decoder: bool = False,
    device: str = "cpu",
) -> list[list[int]]:
    """Top-k sampling (k 40, temperature 0.7 by default); the new token ids of each prompt, without eos."""
    torch = require("torch", "models")
    ids, mask = _pad(torch, prompts, specials.pad, left=not encoder_decoder)
    if not encoder_decoder:
        limit = getattr(model.config, "n_positions", None) or getattr(model.config, "max_position_embeddings", None)
        if limit:
            max_new_tokens = max(1, min(max_new_tokens, limit - ids.shape[1]))
    with torch.no_grad(), _attention_without_cudnn(device):
        out = model.generate(
            input_ids=ids.to(device),
            attention_mask=mask.to(device),
            do_sample=True,
            top_k=top_k,
            temperature=temperature,
            max_new_tokens=max_new_tokens,
            pad_token_id=specials.pad,
            eos_token_id=specials.eos,
            decoder_start_token_id=specials.start if encoder_decoder else None,
        )
    out = out.tolist()
    results = []
    for row in out:
        new = row[1:] if encoder_decoder else row[ids.shape[1] :]
        if specials.eos in new:
            new = new[: new.index(specials.eos)]
        results.append([t for t in new if t != specials.pad])
    return results


def decode(tokenizer, ids: Sequence[int], lang: str | None) -> str:
    text = tokenizer.decode(list(ids), skip_special_tokens=True)
    # BERT-style tokenizers put spaces between characters; LOT's Chinese text has none
    return "".join(text.split()) if (lang or "zh") == "zh" else " ".join(text.split())
