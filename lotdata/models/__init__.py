"""Model baselines of LOT Section 5 (torch + transformers, imported lazily: `pip install 'lotdata[models]'`).

- `config`: baseline TOML files (`baselines/*.toml`).
- `vocab`: a character/word vocabulary built from training data (the from-scratch Vanilla Transformer).
- `backbone`: a model + tokenizer from a local checkpoint, or built from a config.
- `choice`: the understanding scheme (ClozeT, SenPos): dot products of hidden states, softmax over candidates.
- `generation`: PlotCom / OutGen inputs and top-k sampling.
- `trainer`: the training loop (accumulation, mixed precision, checkpoint/resume, early stopping).
- `baseline`: `train` / `predict` / results table / learning curve, as the CLI runs them.
"""
