"""What else decides the bytes of a build besides its parameters: recorded in every manifest."""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path
from typing import Any, Mapping

from lotdata.datasets.registry import get_task
from lotdata.io import sha256_file


def _parameter_files(params: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """sha256 of every parameter that names an existing file (a stopword list, a lexicon)."""
    found = {}
    for key, value in params.items():
        if isinstance(value, (str, Path)) and str(value) and Path(value).is_file():
            found[key] = {"path": str(value), "sha256": sha256_file(value)}
    return found


def build_environment(task: str, params: Mapping[str, Any], tokenizer: str) -> dict[str, Any]:
    """What else decides the bytes of a build: the tokenizer, package versions, the outline settings."""
    env: dict[str, Any] = {
        "python": platform.python_version(),
        "tokenizer": tokenizer,
        "packages": {name: _version(name) for name in ("jieba", "rake-nltk", "pyarrow", "snownlp")},
        "parameter_files": _parameter_files(params),
    }
    task_environment = get_task(task).build_environment
    if task_environment is not None:
        env.update(task_environment(params))
    return env


def _version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
