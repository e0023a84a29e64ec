"""Outputs never touch inputs: the one check every command and recipe step makes before any work.

An output that is, contains or lies inside one of the run's inputs (or another output of the same run)
would overwrite or corrupt it (`audit-bias DIR --export-hard DIR` replaced the dataset it audited), so
it is refused with exit 1 naming both paths. Paths are compared after resolving symlinks and `..`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping, Union

from lotdata.errors import LotdataError

PathLike = Union[str, "os.PathLike[str]"]
#: one labelled option: a path, several, or None (the option was not given)
PathValue = Union[PathLike, Iterable[PathLike], None]


class PathClashError(LotdataError):
    """An output would overwrite an input or another output, or leave the run's folder (exit 1)."""

    exit_code = 1


def real_path(path: PathLike) -> Path:
    """The absolute path with symlinks and `..` resolved (a path that does not exist yet resolves as far as it can)."""
    return Path(os.path.realpath(os.path.abspath(os.fspath(path))))


def _labelled(paths: Mapping[str, PathValue]) -> list[tuple[str, Path, Path]]:
    """(label, path as given, resolved path) of every path; `lotdata:` resources are no file of the user's."""
    found = []
    for label, value in paths.items():
        if value is None:
            continue
        values = [value] if isinstance(value, (str, os.PathLike)) else list(value)
        for item in values:
            if item is None or str(item).startswith("lotdata:"):
                continue
            found.append((label, Path(item), real_path(item)))
    return found


def _relation(output: Path, other: Path) -> str | None:
    if output == other:
        return "is"
    if output in other.parents:
        return "contains"
    if other in output.parents:
        return "lies inside"
    return None


def check_outputs(outputs: Mapping[str, PathValue], inputs: Mapping[str, PathValue] | None = None) -> None:
    """Refuse (exit 1, naming both paths) an output that is, contains or lies inside an input or another output.

    `outputs` and `inputs` map an option's name (`--out`, `--export-hard`, `[[build]] step 2 out`) to its path(s).
    """
    outs = _labelled(outputs)
    ins = _labelled(inputs or {})
    for label, given, resolved in outs:
        for other_label, other_given, other_resolved in ins:
            relation = _relation(resolved, other_resolved)
            if relation:
                raise PathClashError(
                    f"{label} {given} {relation} the input {other_label} {other_given}: an output must not be, "
                    f"contain or lie inside an input (it would be overwritten); choose another {label}"
                )
    for i, (label, given, resolved) in enumerate(outs):
        for other_label, other_given, other_resolved in outs[i + 1 :]:
            relation = _relation(resolved, other_resolved)
            if relation:
                raise PathClashError(
                    f"{label} {given} {relation} the output {other_label} {other_given}: two outputs of one run "
                    f"must not overlap (one would overwrite the other); give them different paths"
                )


def check_inside(root: PathLike, path: PathLike, label: str) -> Path:
    """Refuse (exit 1) a path that resolves outside `root` (a recipe `out = "../../etc/x"`); returns `path`."""
    resolved, base = real_path(path), real_path(root)
    if resolved != base and base not in resolved.parents:
        raise PathClashError(
            f"{label} {path} resolves to {resolved}, outside the run's folder {root}; "
            f"a recipe writes only inside its run folder (use a relative path without '..')"
        )
    return Path(path)
