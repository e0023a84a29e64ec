"""Word lists shipped as data files under `lotdata/data/`, each read once per process.

A list file (`.txt`) holds one entry a line, in a fixed order; a table file (`.tsv`) one `key<TAB>value` a line.
Everything after a `#` is a comment, blank lines are skipped, an entry keeps its inner spaces ("a lot").
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping


def _lines(name: str) -> list[str]:
    text = resources.files("lotdata").joinpath("data", name).read_text(encoding="utf-8")
    entries = (line.split("#", 1)[0].strip() for line in text.splitlines())
    return [entry for entry in entries if entry]


@lru_cache(maxsize=None)
def word_list(name: str) -> tuple[str, ...]:
    """The entries of `lotdata/data/NAME`, in file order, each once."""
    return tuple(dict.fromkeys(_lines(name)))


@lru_cache(maxsize=None)
def word_set(name: str) -> frozenset[str]:
    """The entries of `lotdata/data/NAME` as a set (built in file order)."""
    return frozenset(word_list(name))


@lru_cache(maxsize=None)
def word_table(name: str) -> Mapping[str, str]:
    """`lotdata/data/NAME` as a read-only mapping, one `key<TAB>value` a line, in file order."""
    table = {}
    for line in _lines(name):
        key, sep, value = line.partition("\t")
        if not sep or not value.strip():
            raise ValueError(f"lotdata/data/{name}: {line!r} is not key<TAB>value")
        table[key.strip()] = value.strip()
    return MappingProxyType(table)
