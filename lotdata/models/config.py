"""Baseline configurations (`baselines/*.toml`): architecture, shape and the paper's settings."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from lotdata.errors import InputError, LotdataError, must_exist

#: architectures a from-scratch model can be built as (transformers model types)
ARCHITECTURES = ("bert", "roberta", "gpt2", "t5", "mt5", "bart")


@dataclass(frozen=True)
class TrainSettings:
    batch_size: int = 12  # LOT Section 5.2
    max_length: int = 512
    learning_rate: float = 3e-5
    epochs: int = 3
    grad_accum: int = 1
    gpu_batch_size: int | str | None = (
        None  # batch on a GPU: a number, "auto" (sized to free memory) or None (batch_size)
    )
    weight_decay: float = 0.0
    warmup_ratio: float = 0.0
    patience: int = 2  # early stopping: epochs without a better val score
    mixed_precision: bool = True  # only ever used on CUDA
    seed: int = 0


@dataclass(frozen=True)
class GenerateSettings:
    top_k: int = 40  # LOT Section 5.2
    temperature: float = 0.7
    max_new_tokens: int = 512
    batch_size: int = 12
    gpu_batch_size: int | str | None = None  # as TrainSettings.gpu_batch_size


@dataclass(frozen=True)
class BaselineConfig:
    name: str
    architecture: str  # bert | roberta | gpt2 | t5 | mt5 | bart
    generation_architecture: str = ""  # for PlotCom/OutGen when it differs (the Vanilla Transformer: bart)
    checkpoint: str = ""  # local folder with tokenizer + weights; empty: build from `model`
    model: dict[str, Any] = field(default_factory=dict)  # shape of a from-scratch model (transformers config keys)
    vocab_size: int = 21128  # most tokens kept when the vocabulary is built from training data
    train: TrainSettings = TrainSettings()
    generate: GenerateSettings = GenerateSettings()
    path: str = ""

    def with_train(self, **changes: Any) -> "BaselineConfig":
        changes = {k: v for k, v in changes.items() if v is not None}
        return replace(self, train=replace(self.train, **changes))

    def with_generate(self, **changes: Any) -> "BaselineConfig":
        changes = {k: v for k, v in changes.items() if v is not None}
        return replace(self, generate=replace(self.generate, **changes))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "architecture": self.architecture,
            "generation_architecture": self.generation_architecture,
            "checkpoint": self.checkpoint,
            "model": dict(self.model),
            "vocab_size": self.vocab_size,
            "train": {f.name: getattr(self.train, f.name) for f in fields(TrainSettings)},
            "generate": {f.name: getattr(self.generate, f.name) for f in fields(GenerateSettings)},
        }


#: the range of every number of [train] and [generate], as a `lotdata.stage` check (">0", ">=0"; a name not here, `seed`,
#: takes any integer): a config file is checked against it here, and `baseline train`'s options
#: (`lotdata.models.commands`) carry the same checks, so the CLI and a config refuse the same values
SETTING_CHECKS = {
    "batch_size": ">0",
    "gpu_batch_size": ">0",
    "max_length": ">0",
    "learning_rate": ">0",  # 0 would train nothing
    "epochs": ">0",
    "grad_accum": ">0",
    "patience": ">0",
    "weight_decay": ">=0",
    "warmup_ratio": ">=0",
    "top_k": ">0",
    "temperature": ">=0",
    "max_new_tokens": ">0",
}
_RANGE_WORDS = {">0": "positive ", ">=0": "non-negative ", None: ""}


def _in_range(kind: type, value: Any, check: str | None) -> bool:
    from lotdata.stage import in_range

    if isinstance(value, bool) or not isinstance(value, int if kind is int else (int, float)):
        return False
    return in_range(check, value)


def _check_types(section: str, values: Any, cls: type, path: str) -> None:
    """A wrong type (`batch_size = "twelve"`) or a value out of its range (`SETTING_CHECKS`) is named with its
    file and key (exit 1), not met later."""
    if not isinstance(values, dict):
        raise LotdataError(f"{path}: [{section}] must be a table of settings, not {values!r}")
    defaults = {f.name: f.default for f in fields(cls)}
    for key, value in values.items():
        if key not in defaults:
            continue  # reported by the constructor with the list of keys
        default, check = defaults[key], SETTING_CHECKS.get(key)
        if isinstance(default, bool):
            ok, kind = isinstance(value, bool), "boolean (true or false)"
        elif default is None:  # gpu_batch_size: a number, "auto" or None (a saved run's meta writes null)
            ok = value is None or value == "auto" or _in_range(int, value, check)
            kind = f'{_RANGE_WORDS[check]}integer or "auto"'
        elif isinstance(default, (int, float)):
            ok = _in_range(type(default), value, check)
            kind = _RANGE_WORDS[check] + ("integer" if isinstance(default, int) else "number")
        else:
            ok, kind = True, type(default).__name__
        if not ok:
            raise LotdataError(f"{path}: [{section}] {key} = {value!r} is not a {kind}")


#: per architecture, the [model] keys of its width and of its head counts (BERT-style and its own names): the width
#: must split evenly across the heads. T5/mT5 are held to it only for BERT-style keys without `d_kv` (the per-head
#: size is then width // heads: a remainder would be dropped silently); with their own keys each head has `d_kv`.
_WIDTH_AND_HEADS = {
    "bert": (("hidden_size",), ("num_attention_heads",)),
    "roberta": (("hidden_size",), ("num_attention_heads",)),
    "gpt2": (("hidden_size", "n_embd"), ("num_attention_heads", "n_head")),
    "bart": (("hidden_size", "d_model"), ("num_attention_heads", "encoder_attention_heads", "decoder_attention_heads")),
    "t5": (("hidden_size",), ("num_attention_heads",)),
    "mt5": (("hidden_size",), ("num_attention_heads",)),
}


def _check_heads(config: BaselineConfig, path: str) -> None:
    """A width that is not a multiple of the heads is refused here, naming the file and keys (exit 3), not deep
    inside transformers when the model is built."""
    if not isinstance(config.model, dict):
        raise InputError(f"[model] must be a table of transformers config keys, not {config.model!r}", path=path)
    for arch in dict.fromkeys((config.architecture, config.generation_architecture or config.architecture)):
        if arch in ("t5", "mt5") and "d_kv" in config.model:
            continue
        widths, heads = _WIDTH_AND_HEADS.get(arch, ((), ()))
        for w in (k for k in widths if k in config.model):
            for h in (k for k in heads if k in config.model):
                width, count = config.model[w], config.model[h]
                for key, value in ((w, width), (h, count)):
                    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                        raise InputError(f"[model] {key} = {value!r} is not a positive integer", path=path)
                if width % count:
                    raise InputError(
                        f"[model] {w} = {width} is not a multiple of {h} = {count} "
                        f"(each attention head of the {arch} model gets {w} / {h} dimensions)",
                        path=path,
                    )


def config_from_dict(data: dict[str, Any], path: str = "<config>") -> BaselineConfig:
    data = dict(data)
    _check_types("train", data.get("train", {}), TrainSettings, path)
    _check_types("generate", data.get("generate", {}), GenerateSettings, path)
    try:
        train = TrainSettings(**data.pop("train", {}))
        generate = GenerateSettings(**data.pop("generate", {}))
        config = BaselineConfig(**data, train=train, generate=generate, path=path)
    except TypeError as exc:
        raise InputError(f"bad baseline config: {exc}", path=path) from exc
    for arch in (config.architecture, config.generation_architecture or config.architecture):
        if arch not in ARCHITECTURES:
            raise InputError(f"architecture {arch!r} is not one of {ARCHITECTURES}", path=path)
    _check_heads(config, path)
    return config


def load_config(path: str | Path) -> BaselineConfig:
    """Read a baseline TOML; a bare name (`bert`) means the shipped `baselines/NAME.toml`."""
    path = Path(path)
    if not path.exists() and path.suffix != ".toml":
        from lotdata.resources import asset_dir

        path = asset_dir("baselines") / f"{path.name}.toml"
    must_exist(path, "baseline config", hint=" (give baselines/NAME.toml or a shipped name)")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Windows editors) is no TOML error
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})", path=str(path)) from exc
    return config_from_dict(data, str(path))
