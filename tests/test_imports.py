"""Import hygiene, read from the source with `ast` (module-level and function-level imports alike):
no cycle between packages, no import from a lower layer into a higher one, and the library imports
no CLI code (only `*cli*.py` and `clikit.py` import typer)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "lotdata"

#: lowest first; a module may import modules of its own layer or of a lower one. `*/cli.py` and
#: `clikit.py` (and `lotdata/__main__.py`) are the CLI layer whatever package they sit in.
LAYERS = [
    {"lotdata", "errors", "registry", "schema", "resources"},
    {"io", "progress", "paths"},
    {"text"},
    {"exec", "stage", "command"},
    {"datasets"},
    {"sources", "clean", "tasks", "quality"},
    {"metrics"},
    {"annotate", "audit", "overlap", "models"},
    {"pipeline", "testing"},
    {"cli"},
]
LAYER_OF = {name: i for i, names in enumerate(LAYERS) for name in names}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _unit(module: str) -> str:
    """The node of the package graph: `cli` for CLI modules, else the top-level package under lotdata."""
    parts = module.split(".")
    if parts[-1] in ("cli", "clikit", "__main__"):
        return "cli"
    return parts[1] if len(parts) > 1 else "lotdata"


def _imports(path: Path) -> list[tuple[str, int]]:
    """(imported module, line) of every import of a lotdata module or of typer in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.append((base, node.lineno))
            # `from lotdata import io` imports the module lotdata.io
            found += [
                (f"{base}.{alias.name}", node.lineno)
                for alias in node.names
                if (ROOT.parent / Path(*f"{base}.{alias.name}".split("."))).with_suffix(".py").exists()
                or (ROOT.parent / Path(*f"{base}.{alias.name}".split("."))).is_dir()
            ]
    return [(name, line) for name, line in found if name == "lotdata" or name.startswith(("lotdata.", "typer"))]


def _graph() -> dict[str, list[tuple[str, str, int]]]:
    """module -> [(imported lotdata module or typer, file, line)]."""
    return {
        _module_name(p): [(name, str(p.relative_to(ROOT.parent)), line) for name, line in _imports(p)]
        for p in sorted(ROOT.rglob("*.py"))
    }


GRAPH = _graph()


def test_the_graph_sees_known_imports():
    # guard against a walker that finds nothing (the other tests would then pass vacuously)
    assert ("lotdata.io", "lotdata/datasets/folder.py") in {(n, f) for n, f, _ in GRAPH["lotdata.datasets.folder"]}
    assert any(n == "typer" for n, _, _ in GRAPH["lotdata.cli"])
    assert all(_unit(m) in LAYER_OF for m in GRAPH), sorted({_unit(m) for m in GRAPH} - set(LAYER_OF))


def test_no_import_from_a_lower_layer_into_a_higher_one():
    wrong = []
    for module, imports in GRAPH.items():
        for name, file, line in imports:
            if name.startswith("lotdata") and LAYER_OF[_unit(name)] > LAYER_OF[_unit(module)]:
                wrong.append(
                    f"{file}:{line}: {_unit(module)} (layer {LAYER_OF[_unit(module)]}) imports {name} "
                    f"({_unit(name)}, layer {LAYER_OF[_unit(name)]})"
                )
    assert not wrong, "\n".join(wrong)


def test_only_cli_modules_import_typer():
    wrong = [
        f"{file}:{line}"
        for module, imports in GRAPH.items()
        for name, file, line in imports
        if name.split(".")[0] == "typer" and _unit(module) != "cli"
    ]
    assert not wrong, wrong


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


@pytest.mark.parametrize("level", ["package", "module"])
def test_no_import_cycle(level: str):
    edges: dict[str, set[str]] = {}
    for module, imports in GRAPH.items():
        for name, _, _ in imports:
            if not name.startswith("lotdata") or name not in GRAPH:
                continue
            a, b = (_unit(module), _unit(name)) if level == "package" else (module, name)
            if a != b and not (level == "module" and module.startswith(name + ".")):  # a module may import its package
                edges.setdefault(a, set()).add(b)
    assert _cycle(edges) is None, " -> ".join(_cycle(edges) or [])


def test_a_cycle_is_found():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_recipe_runner_stays_a_runner():
    """pipeline.py runs recipes from the stage records; stage code and schemas live with the stages."""
    lines = (ROOT / "pipeline.py").read_text(encoding="utf-8").count("\n")
    assert lines < 350, f"lotdata/pipeline.py has {lines} lines: move stage-specific code into its stage's folder"
