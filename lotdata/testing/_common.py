"""What the checks of every kind share."""

from __future__ import annotations

from typing import Any, Callable

from lotdata.registry import RegistryError


def held(get: Callable[[str], Any], name: str) -> Any:
    """The record a registry holds under `name` (None: none), for a check that the record is the registered one."""
    try:
        return get(name)
    except RegistryError:
        return None
