"""A transformers model + tokenizer: from a local checkpoint, or built from a baseline config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from lotdata.errors import InputError, checkpoint_load, must_exist, require
from lotdata.io import check_weight_files
from lotdata.models.config import BaselineConfig
from lotdata.models.vocab import build_tokenizer

#: BERT-style shape keys -> each architecture's own config keys
_SHAPE_KEYS = {
    "gpt2": {
        "num_hidden_layers": ["n_layer"],
        "hidden_size": ["n_embd"],
        "num_attention_heads": ["n_head"],
        "intermediate_size": ["n_inner"],
        "max_position_embeddings": ["n_positions"],
    },
    "t5": {
        "num_hidden_layers": ["num_layers", "num_decoder_layers"],
        "hidden_size": ["d_model"],
        "num_attention_heads": ["num_heads"],
        "intermediate_size": ["d_ff"],
        "max_position_embeddings": [],
    },
    "bart": {
        "num_hidden_layers": ["encoder_layers", "decoder_layers"],
        "hidden_size": ["d_model"],
        "num_attention_heads": ["encoder_attention_heads", "decoder_attention_heads"],
        "intermediate_size": ["encoder_ffn_dim", "decoder_ffn_dim"],
        "max_position_embeddings": ["max_position_embeddings"],
    },
}
_SHAPE_KEYS["mt5"] = _SHAPE_KEYS["t5"]


@dataclass(frozen=True)
class Specials:
    """Token ids the input layouts use, whatever the tokenizer calls them."""

    start: int  # [CLS] / <s> / </s>
    end: int  # [SEP] / </s>: closes a piece; its hidden state represents what precedes it
    marker: int  # [MASK] / <extra_id_0>: a gap or a removed sentence
    pad: int
    eos: int  # ends a generated text


def specials_of(tokenizer) -> Specials:
    def first(*names: str) -> int | None:
        for name in names:
            value = getattr(tokenizer, f"{name}_token_id", None)
            if value is not None:
                return int(value)
        return None

    extra = [tokenizer.convert_tokens_to_ids(t) for t in getattr(tokenizer, "additional_special_tokens", [])[:1]]
    end = first("sep", "eos")
    if end is None:
        raise InputError("the tokenizer has neither a sep nor an eos token")
    marker = first("mask") or (extra[0] if extra else None) or first("unk") or end
    return Specials(
        start=first("cls", "bos") or end, end=end, marker=marker, pad=first("pad") or 0, eos=first("eos", "sep")
    )


def model_config(architecture: str, shape: dict[str, Any], tokenizer):
    """A transformers config of `architecture` with `shape` (BERT-style keys translated) for `tokenizer`."""
    transformers = require("transformers", "models")
    specials = specials_of(tokenizer)
    keys = _SHAPE_KEYS.get(architecture, {})
    kwargs: dict[str, Any] = {}
    for key, value in shape.items():
        for target in keys.get(key, [key]):
            kwargs[target] = value
    if architecture in ("t5", "mt5") and "hidden_size" in shape and "num_attention_heads" in shape:
        kwargs.setdefault("d_kv", shape["hidden_size"] // shape["num_attention_heads"])
    kwargs.update(
        vocab_size=len(tokenizer),
        pad_token_id=specials.pad,
        bos_token_id=specials.start,
        eos_token_id=specials.eos,
        decoder_start_token_id=specials.start,
    )
    return transformers.AutoConfig.for_model(architecture, **kwargs)


def quiet_transformers() -> None:
    """No per-file progress bars or load reports from transformers: lotdata shows its own."""
    transformers = require("transformers", "models")
    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()


def _model_class(kind: str, is_encoder_decoder: bool):
    transformers = require("transformers", "models")
    if kind == "encoder":
        return transformers.AutoModel
    return transformers.AutoModelForSeq2SeqLM if is_encoder_decoder else transformers.AutoModelForCausalLM


def load_backbone(
    config: BaselineConfig,
    kind: str,
    *,
    texts: Iterable[str] = (),
    workdir: str | Path | None = None,
    checkpoint: str | Path | None = None,
    seed: int = 0,
):
    """(model, tokenizer). `kind`: "encoder" (understanding: hidden states) or "lm" (generation).

    A checkpoint folder (argument, else the config's) is loaded as is; otherwise a vocabulary is built
    from `texts` into `workdir` and the model is initialised from the config's shape with `seed`.
    """
    transformers = require("transformers", "models")
    torch = require("torch", "models")
    quiet_transformers()
    source = str(checkpoint or config.checkpoint or "")
    if source:
        must_exist(source, "checkpoint folder", hint=" (give a local folder with tokenizer and weights)")
        check_weight_files(source)
        with checkpoint_load(source):
            tokenizer = transformers.AutoTokenizer.from_pretrained(source)
            auto_config = transformers.AutoConfig.from_pretrained(source)
            model = _model_class(kind, bool(getattr(auto_config, "is_encoder_decoder", False))).from_pretrained(source)
        return model, tokenizer
    if workdir is None:
        raise ValueError("a from-scratch model needs a workdir for its vocabulary")
    tokenizer = build_tokenizer(texts, Path(workdir) / "tokenizer", max_size=config.vocab_size)
    architecture = config.architecture if kind == "encoder" else (config.generation_architecture or config.architecture)
    if kind == "lm" and architecture in ("bert", "roberta"):
        raise InputError(
            f"{config.name}: a {architecture} encoder cannot generate; set generation_architecture", path=config.path
        )
    auto_config = model_config(architecture, dict(config.model), tokenizer)
    torch.manual_seed(seed)
    model = _model_class(kind, bool(getattr(auto_config, "is_encoder_decoder", False))).from_config(auto_config)
    return model, tokenizer


def pick_device(device: str | None = None) -> str:
    """CUDA when present unless told otherwise."""
    torch = require("torch", "models")
    if device:
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"
