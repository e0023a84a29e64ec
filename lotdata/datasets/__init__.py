"""The datasets layer, below every stage: dataset folders, manifests and their `kind`, the dataset card,
LOT Table 3 statistics, the official LOT jsonl format, grouped splits, the task registry and `open_input`."""
