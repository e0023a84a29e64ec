"""The understanding scheme of LOT Section 5.2 (ClozeT, SenPos) and its Section 5.5 variants.

An example becomes one or more token sequences. Each candidate is a (sequence, candidate position,
query position) triple: its score is the dot product of the hidden states at the two positions
(scaled by 1/sqrt(hidden size), which changes no prediction), and a softmax over an example's
candidates gives the distribution. Encoder-decoder models get the same input in the encoder and
the decoder and are read from the decoder states, as the paper does for mT5 and LongLM.

An example's layout follows the task's `choice_shape` ("candidates": ClozeT, "gaps": SenPos).
Layouts (S start, E end, M marker):

- ClozeT ``full``: S left M right E cand0 E cand1 E — query at M (the removed sentence's place),
  each candidate at the E that ends it.
- SenPos ``full``: S s1 M s2 M ... sn E removed E — each gap at its M, query at the E after the
  removed sentence.
- ``wo_context`` (BERT w/o Context): ClozeT S cand0 E cand1 E, query at S; SenPos S removed E M..M
  (one M per gap, so only the gap's index and the sentence itself are known), query at the first E.
- ``wo_long`` (BERT w/o Long): ClozeT S prev M next E cand0 E cand1 E with only the sentences next
  to the removed one; SenPos one sequence per gap, S s_k M s_k+1 E removed E.

Too long an input is cut to `max_length` by trimming the longest text pieces first (context before a
gap keeps its end, everything else keeps its start), so every gap and candidate stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from lotdata.datasets.registry import family_tasks, get_task
from lotdata.errors import InputError, require
from lotdata.models.backbone import Specials

VARIANTS = ("full", "wo_context", "wo_long")


@dataclass
class Encoded:
    seqs: list[list[int]]
    cands: list[tuple[int, int, int]]  # (sequence, candidate position, query position)
    label: int  # index of the right candidate (-1 when unknown)


def _fit(pieces: list[tuple[list[int], str]], budget: int) -> list[list[int]]:
    """Trim pieces (ids, "start"|"end": the side kept) so their lengths sum to at most `budget`."""
    lengths = [len(ids) for ids, _ in pieces]
    if sum(lengths) <= budget:
        return [ids for ids, _ in pieces]
    lo, hi = 0, max(lengths)
    while lo < hi:  # the largest cap c with sum(min(len, c)) <= budget
        mid = (lo + hi + 1) // 2
        if sum(min(n, mid) for n in lengths) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return [ids[-lo:] if keep == "end" and lo else ids[:lo] for ids, keep in pieces]


class Encoder:
    """Turns task rows into `Encoded` examples for one tokenizer, task and variant."""

    def __init__(self, tokenizer, specials: Specials, task: str, variant: str = "full", max_length: int = 512) -> None:
        spec = get_task(task)
        if spec.choice_shape is None:
            raise ValueError(f"task {task!r} is not an understanding task {tuple(family_tasks('understanding'))}")
        if variant not in VARIANTS:
            raise ValueError(f"variant {variant!r} is not one of {VARIANTS}")
        self.tokenizer, self.sp, self.task, self.variant, self.max_length = (
            tokenizer,
            specials,
            task,
            variant,
            max_length,
        )
        self.shape, self.mask, self.label_base = spec.choice_shape, spec.mask_token, spec.label_base

    def ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"] if text else []

    def __call__(self, row: Mapping[str, Any]) -> Encoded:
        return self.candidates(row) if self.shape == "candidates" else self.gaps(row)

    def label(self, row: Mapping[str, Any]) -> int:
        """The right option's index from 0 (-1 when unknown), whatever the task counts its labels from."""
        return int(row["label"]) - self.label_base if row.get("label") is not None else -1

    def candidates(self, row: Mapping[str, Any]) -> Encoded:
        S, E, M = self.sp.start, self.sp.end, self.sp.marker
        label = self.label(row)
        cands = [self.ids(c) for c in row["candidates"]]
        if self.variant == "wo_context":
            left = right = None
        else:
            left_text, _, right_text = row["context"].partition(self.mask)
            if self.variant == "wo_long":
                left_text, right_text = (
                    _last_sentence(left_text, row.get("lang")),
                    _first_sentence(right_text, row.get("lang")),
                )
            left, right = self.ids(left_text), self.ids(right_text)
        n_special = 1 + len(cands) + (2 if left is not None else 0)
        pieces = ([(left, "end"), (right, "start")] if left is not None else []) + [(c, "start") for c in cands]
        fitted = _fit(pieces, self.max_length - n_special)
        seq = [S]
        query = 0
        if left is not None:
            seq += fitted[0]
            query = len(seq)
            seq += [M] + fitted[1] + [E]
            fitted = fitted[2:]
        triples = []
        for cand in fitted:
            seq += cand + [E]
            triples.append((0, len(seq) - 1, query))
        return Encoded([seq], triples, label)

    def gaps(self, row: Mapping[str, Any]) -> Encoded:
        S, E, M = self.sp.start, self.sp.end, self.sp.marker
        label = self.label(row)
        sentences = [self.ids(s) for s in row["sentences"]]
        removed = self.ids(row["removed"])
        gaps = len(sentences) - 1
        if gaps < 1:
            raise InputError(f"SenPos example {row.get('example_id')} has no gap between two sentences")
        if self.variant == "wo_context":
            (removed_fit,) = _fit([(removed, "start")], self.max_length - 2 - gaps)
            seq = [S] + removed_fit + [E]
            query = len(seq) - 1
            triples = [(0, len(seq) + k, query) for k in range(gaps)]
            return Encoded([seq + [M] * gaps], triples, label)
        if self.variant == "wo_long":
            seqs, triples = [], []
            for k in range(gaps):
                a, b, r = _fit(
                    [(sentences[k], "end"), (sentences[k + 1], "start"), (removed, "start")], self.max_length - 4
                )
                seq = [S] + a + [M] + b + [E] + r + [E]
                triples.append((k, 1 + len(a), len(seq) - 1))
                seqs.append(seq)
            return Encoded(seqs, triples, label)
        fitted = _fit([(s, "start") for s in sentences] + [(removed, "start")], self.max_length - 2 - gaps - 1)
        seq, positions = [S], []
        for k, sent in enumerate(fitted[:-1]):
            seq += sent
            if k < gaps:
                positions.append(len(seq))
                seq.append(M)
        seq += [E] + fitted[-1] + [E]
        return Encoded([seq], [(0, p, len(seq) - 1) for p in positions], label)


def _last_sentence(text: str, lang: str | None) -> str:
    from lotdata.text.sentences import split_sentences

    parts = split_sentences(text, lang or "zh") if text.strip() else []
    return parts[-1] if parts else ""


def _first_sentence(text: str, lang: str | None) -> str:
    from lotdata.text.sentences import split_sentences

    parts = split_sentences(text, lang or "zh") if text.strip() else []
    return parts[0] if parts else ""


def collate(examples: Sequence[Encoded], pad: int) -> dict[str, Any]:
    """Pad every sequence of a batch of examples to one length; index the candidates."""
    torch = require("torch", "models")
    seqs, cand_seq, cand_pos, query_pos, cand_example, cand_slot, labels = [], [], [], [], [], [], []
    for e, example in enumerate(examples):
        offset = len(seqs)
        seqs.extend(example.seqs)
        for slot, (s, c, q) in enumerate(example.cands):
            cand_seq.append(offset + s)
            cand_pos.append(c)
            query_pos.append(q)
            cand_example.append(e)
            cand_slot.append(slot)
        labels.append(example.label)
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, : len(s)] = 1
    as_long = lambda values: torch.tensor(values, dtype=torch.long)  # noqa: E731
    return {
        "input_ids": ids,
        "attention_mask": mask,
        "cand_seq": as_long(cand_seq),
        "cand_pos": as_long(cand_pos),
        "query_pos": as_long(query_pos),
        "cand_example": as_long(cand_example),
        "cand_slot": as_long(cand_slot),
        "labels": as_long(labels),
        "n_cands": max(len(e.cands) for e in examples),
    }


def choice_module(backbone):
    """Wrap a transformers base model (`AutoModel`) into the scorer: batch -> (scores, loss)."""
    torch = require("torch", "models")

    class ChoiceModel(torch.nn.Module):
        def __init__(self, backbone) -> None:
            super().__init__()
            self.backbone = backbone
            self.encoder_decoder = bool(getattr(backbone.config, "is_encoder_decoder", False))
            size = getattr(backbone.config, "hidden_size", None) or getattr(backbone.config, "d_model")
            self.scale = float(size) ** -0.5

        def hidden(self, input_ids, attention_mask):
            if self.encoder_decoder:  # same input to encoder and decoder; decoder states
                out = self.backbone(
                    input_ids=input_ids,
                    attention_mask=attention_mask,
                    decoder_input_ids=input_ids,
                    decoder_attention_mask=attention_mask,
                )
            else:
                out = self.backbone(input_ids=input_ids, attention_mask=attention_mask)
            return out.last_hidden_state

        def forward(self, batch):
            h = self.hidden(batch["input_ids"], batch["attention_mask"])
            cand = h[batch["cand_seq"], batch["cand_pos"]]
            query = h[batch["cand_seq"], batch["query_pos"]]
            flat = (cand * query).sum(-1).float() * self.scale
            n_examples = batch["labels"].shape[0]
            scores = torch.full((n_examples, batch["n_cands"]), float("-inf"), device=flat.device)
            scores = scores.index_put((batch["cand_example"], batch["cand_slot"]), flat)
            loss = None
            if bool((batch["labels"] >= 0).all()):
                loss = torch.nn.functional.cross_entropy(scores, batch["labels"])
            return scores, loss

    return ChoiceModel(backbone)
