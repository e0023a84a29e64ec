"""Files that ship with lotdata: the embedded sample corpus, recipes, templates, model configs.

The top-level folders `pipelines/`, `annotation_templates/` and `baselines/` are copied into the
wheel under `lotdata/_assets/`; in a source checkout (editable install) they are read in place.
"""

from __future__ import annotations

from pathlib import Path

from lotdata.errors import MissingFileError

_PACKAGE = Path(__file__).resolve().parent
ASSET_DIRS = ("pipelines", "annotation_templates", "baselines")
SAMPLE_URI = "lotdata:sample"


def asset_dir(name: str) -> Path:
    """Where the shipped folder `name` lives in this installation."""
    if name not in ASSET_DIRS:
        raise ValueError(f"unknown asset folder {name!r}")
    for candidate in (_PACKAGE / "_assets" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"lotdata's {name}/ folder is missing from this installation")


def sample_corpus_path() -> Path:
    """The embedded corpus of original Chinese stories written for the project (jsonl)."""
    return _PACKAGE / "data" / "sample_stories.jsonl"


def resolve_input(path: str | Path) -> Path:
    """Map `lotdata:sample` to the embedded corpus; other paths are returned as they are."""
    if str(path) == SAMPLE_URI:
        return sample_corpus_path()
    return Path(path)


def resolve_recipe(name_or_path: str | Path) -> Path:
    """A recipe by path, or by name among the shipped ones (`senpos` -> pipelines/senpos.toml)."""
    path = Path(name_or_path)
    if path.exists():
        return path
    shipped = asset_dir("pipelines") / (path.name if path.suffix == ".toml" else f"{path.name}.toml")
    if shipped.exists():
        return shipped
    raise MissingFileError(
        f"recipe not found (shipped: {', '.join(sorted(p.stem for p in asset_dir('pipelines').glob('*.toml')))})",
        path=str(name_or_path),
    )
