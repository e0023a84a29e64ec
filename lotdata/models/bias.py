"""BERT w/o Context and BERT w/o Long (LOT Section 5.5), as estimators `lotdata audit-bias` can call.

`make_bias_model(name, task, **kwargs)` returns an object with `fit(train: pa.Table) -> self` and
`predict(table: pa.Table) -> list[int]` (ClozeT: candidate index 0/1; SenPos: gap counted from 1).

- ``bert_wo_context``: ClozeT sees the two candidates alone (the [CLS] state is the query); SenPos
  sees the removed sentence and one [MASK] per gap, so it knows only the sentence and the gap's index.
- ``bert_wo_long``: ClozeT sees only the sentences next to the removed one; SenPos encodes each gap
  with its two adjacent sentences (and the removed one) separately and compares the states at the gaps.

kwargs: `model_path` (a local checkpoint folder, e.g. bert-base-chinese; default: a tiny from-scratch
BERT so it runs anywhere), `seed`, `epochs`, `batch_size`, `max_length`, `learning_rate`, `device`.
"""

from __future__ import annotations

from typing import Any

from lotdata.models.config import BaselineConfig, TrainSettings

BIAS_MODELS = {"bert_wo_context": "wo_context", "bert_wo_long": "wo_long"}

#: the default backbone: a small BERT built from the training data (no download, CPU friendly)
TINY_BERT = {"num_hidden_layers": 2, "hidden_size": 128, "num_attention_heads": 2, "intermediate_size": 256, "max_position_embeddings": 512}


def make_bias_model(name: str, task: str, **kwargs: Any):
    if name not in BIAS_MODELS:
        raise ValueError(f"unknown bias model {name!r}: choose from {sorted(BIAS_MODELS)}")
    if task not in ("clozet", "senpos"):
        raise ValueError(f"bias models cover clozet and senpos, not {task!r}")
    from lotdata.models.baseline import ChoiceBaseline

    model_path = kwargs.pop("model_path", None)
    device = kwargs.pop("device", None)
    train = TrainSettings(
        batch_size=kwargs.pop("batch_size", 12), max_length=kwargs.pop("max_length", 512),
        learning_rate=kwargs.pop("learning_rate", 3e-5 if model_path else 5e-4), epochs=kwargs.pop("epochs", 3),
        seed=kwargs.pop("seed", 0), patience=kwargs.pop("patience", 10**6), mixed_precision=kwargs.pop("mixed_precision", True),
    )
    if kwargs:
        raise TypeError(f"unknown arguments for {name}: {sorted(kwargs)}")
    config = BaselineConfig(name=name, architecture="bert", checkpoint=str(model_path or ""),
                            model={} if model_path else dict(TINY_BERT), vocab_size=21128, train=train)
    return ChoiceBaseline(config, task, variant=BIAS_MODELS[name], device=device)
