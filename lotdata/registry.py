"""One registry kernel for every extension kind: stages, tasks, annotation jobs, input formats, audit baselines,
check rules, clean rules, tokenizers.

A kind is one :class:`Registry` (`Registry("stage", modules=("*/stage.py", "*/*_stage.py"))`); its module keeps its
public functions (`register_stage`, `get_stage`, `stages`, ...) as thin wrappers over it. Every kind has the same
policy:

- `register(record)` adds a record under its `name`. A name another record already holds is a
  :class:`RegistryError` naming the modules of both; registering the same record again, or an equivalent one
  (the same module imported again: same type, same fields, functions defined at the same place) does nothing.
- the first read (`get`, `names`, `all`, `builtins`) discovers the records: the built-in ones by importing the
  modules of lotdata that the kind's glob patterns find (no hand-kept list: a new built-in is one new module),
  then the entry points of the group `lotdata.<kind>s` of every installed package, each loaded (a module that
  registers on import, a callable that registers when called, or a record), so a plug-in needs no lotdata edit.
- `get(name)` of an unknown name is a :class:`RegistryError` listing the known names (exit 1).
- `names()` and `all()` keep a stable order: the kind's `order` key, then the built-in records (by module, then
  as registered), then the others as registered; `builtins()` are the records lotdata ships.

This module imports nothing of lotdata but `lotdata.errors`, so every layer may use it.
"""

from __future__ import annotations

import functools
import importlib
import sys
import types
from contextlib import contextmanager
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any, Callable, Generic, Iterator, Mapping, TypeVar

from lotdata.errors import LotdataError

__all__ = ["PACKAGE", "Registry", "RegistryError", "registries", "same_record"]

PACKAGE = Path(__file__).resolve().parent
T = TypeVar("T")

_REGISTRIES: dict[str, "Registry[Any]"] = {}


class RegistryError(LotdataError, ValueError):
    """A registry refused a record (a name another record holds) or knows no record of a name (exit 1); the
    message names the modules of both records, or the known names. A ValueError too, as the registries raised."""

    exit_code = 1


def registries() -> list["Registry[Any]"]:
    """Every registry made so far, by kind (each kind's module makes its own when imported)."""
    return [_REGISTRIES[kind] for kind in sorted(_REGISTRIES)]


class Registry(Generic[T]):
    """The records of one extension kind, found on first read.

    `kind`: the singular name ("stage", "annotation_job"); messages say it with spaces, the entry-point group is
    `lotdata.<kind>s` unless `group` says otherwise. `modules`: glob patterns, relative to the lotdata package, of
    the modules holding the built-in records (a file whose name starts with `_` is never one); `calls`: where
    given, only the modules whose source contains it (e.g. "register_task(") are imported, so a folder's helper
    modules are not. `order`: a sort key of a record, applied before the built-in-first order. `check(record)`:
    raises on a malformed record, at registration. `name_of(record)`: its name (default: `record.name`).
    """

    def __init__(
        self,
        kind: str,
        *,
        modules: tuple[str, ...] = (),
        calls: str | None = None,
        group: str | None = None,
        order: Callable[[T], Any] | None = None,
        check: Callable[[T], None] | None = None,
        name_of: Callable[[T], str] | None = None,
    ) -> None:
        # a module run as a script (`python -m lotdata.stage`) makes its registry once as __main__ and once when
        # imported by its own name: only the second is the kind's registry
        script = _caller_module(2) == "__main__"
        if kind in _REGISTRIES and not script:
            raise RegistryError(f"a registry of {kind!r} exists already (one registry per kind)")
        self.kind = kind
        self.label = kind.replace("_", " ")
        self.group = group or f"lotdata.{kind}s"
        self.patterns = tuple(modules)
        self.calls = calls
        self._order = order
        self._check = check
        self._name_of = name_of or (lambda record: record.name)  # type: ignore[attr-defined]
        self._records: dict[str, T] = {}
        self._origins: dict[str, str | None] = {}
        self._seq: dict[str, int] = {}
        self._counter = 0
        self._state = "new"  # new -> loading -> loaded
        self._sorted: list[str] | None = None
        if not script:
            _REGISTRIES[kind] = self

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._records)} records, group {self.group!r})"

    # ------------------------------------------------------------------ registering

    def register(self, record: T, *, module: str | None = None, stacklevel: int = 1) -> T:
        """Add `record` under its name; the record that holds the name is returned. `module`: the module that
        declares it (default: the caller's, `stacklevel` frames up, as `warnings.warn` counts: a wrapper such as
        `register_stage` passes 2). RegistryError when another record holds the name."""
        name = self._name_of(record)
        if not isinstance(name, str) or not name:
            raise RegistryError(f"a {self.label} needs a non-empty name, not {name!r}")
        if module is None:
            module = _caller_module(stacklevel + 1)
        held = self._records.get(name)
        if held is not None:
            if same_record(held, record):
                return held
            raise RegistryError(
                f"{self.label} {name!r} is registered twice: by {self._origins.get(name) or 'an unknown module'} "
                f"and by {module or 'an unknown module'}; a {self.label} needs a name of its own"
            )
        if self._check is not None:
            self._check(record)
        self._records[name] = record
        self._origins[name] = module
        self._seq[name] = self._counter
        self._counter += 1
        self._sorted = None
        return record

    def unregister(self, name: str) -> None:
        """Forget a record registered at run time (a test's made-up one); a built-in one cannot be dropped
        (RegistryError: `override` swaps one for the length of a test). An unknown name is ignored."""
        if name not in self._records:
            return
        if self._origins.get(name) in self.builtin_modules():
            raise RegistryError(f"{self.label} {name!r} is built in; it cannot be unregistered")
        del self._records[name], self._origins[name], self._seq[name]
        self._sorted = None

    @contextmanager
    def override(self, record: T) -> Iterator[T]:
        """Put `record` under its name for the length of the block, whatever held it (a test that swaps a built-in
        record for a broken one); the previous state comes back after."""
        self.discover()
        name = self._name_of(record)
        saved = (self._records.get(name), self._origins.get(name), self._seq.get(name))
        self._records[name] = record
        self._origins.setdefault(name, None)  # a swapped record keeps its slot: its place, built in or not
        self._seq.setdefault(name, self._counter)
        self._counter += 1
        self._sorted = None
        try:
            yield record
        finally:
            held, origin, seq = saved
            if held is None:
                self._records.pop(name, None)
                self._origins.pop(name, None)
                self._seq.pop(name, None)
            else:
                self._records[name], self._origins[name], self._seq[name] = held, origin, seq  # type: ignore[assignment]
            self._sorted = None

    # ------------------------------------------------------------------ discovery

    @functools.cache
    def builtin_modules(self) -> tuple[str, ...]:
        """The modules of lotdata the kind's patterns find (sorted by path): where its built-in records live."""
        found = sorted({path for pattern in self.patterns for path in PACKAGE.glob(pattern)})
        found = [path for path in found if path.suffix == ".py" and not path.name.startswith("_")]
        if self.calls is not None:
            found = [path for path in found if self.calls in path.read_text(encoding="utf-8")]
        return tuple(".".join(("lotdata", *path.relative_to(PACKAGE).with_suffix("").parts)) for path in found)

    def discover(self, *, refresh: bool = False) -> None:
        """Import the built-in modules, then load the entry points of `group` (once; `refresh` reads the entry
        points again, for a package installed since). A read while discovery runs sees what is there so far."""
        if self._state == "loading" or (self._state == "loaded" and not refresh):
            return
        if refresh:
            _entry_points.cache_clear()
        self._state = "loading"
        try:
            for module in self.builtin_modules():
                importlib.import_module(module)
            self._load_entry_points()
        except BaseException:
            self._state = "new"  # the next read tries again (records already there are registered again as no-ops)
            raise
        self._state = "loaded"

    def entry_points(self) -> list[Any]:
        """The installed entry points of the kind's group, by name."""
        return sorted(_entry_points().select(group=self.group), key=lambda e: (e.name, e.value))

    def _load_entry_points(self) -> None:
        for entry in self.entry_points():
            try:
                loaded = entry.load()
                if isinstance(loaded, types.ModuleType):
                    continue  # importing it registered its records
                if callable(loaded) and not isinstance(loaded, type):
                    loaded = loaded()
                if loaded is not None:
                    for record in loaded if isinstance(loaded, (list, tuple)) else [loaded]:
                        self.register(record, module=entry.module)
            except RegistryError:
                raise
            except Exception as exc:
                dist = getattr(getattr(entry, "dist", None), "name", None)
                raise RegistryError(
                    f"the {self.group} entry point {entry.name} = {entry.value}"
                    f"{f' (package {dist})' if dist else ''} cannot be loaded: {type(exc).__name__}: {exc}"
                ) from exc

    # ------------------------------------------------------------------ reading

    def _names(self) -> list[str]:
        self.discover()
        if self._sorted is None:
            modules = {name: i for i, name in enumerate(self.builtin_modules())}

            def key(name: str) -> tuple[Any, ...]:
                origin = self._origins.get(name)
                rank = (0, modules[origin]) if origin in modules else (1, 0)
                first = (self._order(self._records[name]),) if self._order is not None else ()
                return (*first, rank, self._seq[name])

            self._sorted = sorted(self._records, key=key)
        return self._sorted

    def names(self) -> list[str]:
        """Every record's name, in the registry's order."""
        return list(self._names())

    def all(self) -> list[T]:
        """Every record, in the registry's order."""
        return [self._records[name] for name in self._names()]

    def get(self, name: str) -> T:
        """The record of `name`; RegistryError listing the known names when there is none."""
        self.discover()
        try:
            return self._records[name]
        except (KeyError, TypeError):
            raise RegistryError(
                f"unknown {self.label} {name!r}; known: {', '.join(self._names()) or '(none)'}"
            ) from None

    def __contains__(self, name: object) -> bool:
        self.discover()
        return name in self._records

    def builtins(self) -> list[T]:
        """The records lotdata ships (those its built-in modules register), in the registry's order."""
        modules = set(self.builtin_modules())
        return [self._records[n] for n in self._names() if self._origins.get(n) in modules]

    def module_of(self, name: str) -> str | None:
        """The module that registered `name` (None: not known)."""
        self.discover()
        return self._origins.get(name)

    def view(self, *, builtin: bool = False) -> Mapping[str, T]:
        """A read-only mapping name -> record that reads the registry when used (so a module may hold it as a
        constant before discovery); `builtin`: only the records lotdata ships."""
        return _View(self, builtin)


class _View(Mapping[str, Any]):
    def __init__(self, registry: Registry[Any], builtin: bool) -> None:
        self._registry = registry
        self._builtin = builtin

    def _keys(self) -> list[str]:
        reg = self._registry
        if not self._builtin:
            return reg._names()
        return [reg._name_of(record) for record in reg.builtins()]

    def __getitem__(self, name: str) -> Any:
        reg = self._registry
        reg.discover()
        if name not in reg._records or (self._builtin and reg._origins.get(name) not in reg.builtin_modules()):
            raise KeyError(name)
        return reg._records[name]

    def __contains__(self, name: object) -> bool:
        try:
            self[name]  # type: ignore[index]
        except (KeyError, TypeError):
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._keys()))

    def __len__(self) -> int:
        return len(self._keys())

    def __repr__(self) -> str:
        return f"<{'built-in ' if self._builtin else ''}{self._registry.label}s: {', '.join(self._keys())}>"


@functools.cache
def _entry_points() -> Any:
    """Every installed entry point, read once for all the registries (`discover(refresh=True)` reads them again)."""
    from importlib import metadata

    return metadata.entry_points()


def _caller_module(depth: int) -> str | None:
    """The module of the frame `depth` levels up from the caller of this function."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        return None
    return frame.f_globals.get("__name__")


# ---------------------------------------------------------------------- one record, or an equivalent one


def same_record(a: Any, b: Any) -> bool:
    """Whether `b` is `a` again: the same object, an equal one, or the one a second import of `a`'s module made
    (same type name and fields; functions and classes defined at the same place of the same file)."""
    return _equivalent(a, b, 0)


def _equivalent(a: Any, b: Any, depth: int) -> bool:
    if a is b:
        return True
    if depth > 8:
        return False
    if _place(a) is not None or _place(b) is not None:
        return _place(a) == _place(b)
    if isinstance(a, functools.partial) and isinstance(b, functools.partial):
        return _equivalent((a.func, a.args, a.keywords), (b.func, b.args, b.keywords), depth + 1)
    if type(a).__qualname__ != type(b).__qualname__:
        return False
    try:
        if a == b:
            return True
    except Exception:  # an object whose == raises is compared field by field below
        pass
    if is_dataclass(a) and is_dataclass(b) and not isinstance(a, type):
        names = [f.name for f in fields(a)]
        if names != [f.name for f in fields(b)]:
            return False
        return all(_equivalent(getattr(a, n), getattr(b, n), depth + 1) for n in names)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_equivalent(x, y, depth + 1) for x, y in zip(a, b))
    if isinstance(a, Mapping):
        return list(a) == list(b) and all(_equivalent(a[k], b[k], depth + 1) for k in a)
    return False


def _place(obj: Any) -> tuple[Any, ...] | None:
    """Where a function or class is defined (its file, line and qualified name); None for other objects."""
    if isinstance(obj, type):
        module = sys.modules.get(obj.__module__)
        return ("class", getattr(module, "__file__", obj.__module__), obj.__qualname__)
    code = getattr(obj, "__code__", None)
    if isinstance(code, types.CodeType):
        return ("code", code.co_filename, code.co_firstlineno, code.co_code, getattr(obj, "__qualname__", ""))
    return None
