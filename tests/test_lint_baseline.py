"""The long functions do not grow back (issue 33, item 5): the pinned ruff (tests/test_lint.py) runs over lotdata/ with
the complexity and argument-count rules, and every violation must be in `tests/lint_baseline.json`, at most as large
as it is written there. The rules and their limits live in that file too (not in pyproject's lint selection, so
`ruff check .` stays green while the listed functions wait for their turn).

- a new violation (a function that passes a limit, or a listed function breaking another rule) fails;
- a listed one that grew (more arguments, branches, statements, or more complex) fails;
- a listed one that shrank or disappeared fails too, asking to tighten the baseline, so the file is always today's.

A function is named by its file and its qualified name (`Class.method`, `outer.inner`), found from the line ruff
reports, so moving code around in a file changes nothing. After a change on purpose (a function split, or a
limit changed in the file), rewrite the baseline and review its diff:

    .venv/bin/python tests/test_lint_baseline.py --write
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "tests" / "lint_baseline.json"
#: rule -> the ruff setting that holds its limit
SETTINGS = {
    "C901": "lint.mccabe.max-complexity",
    "PLR0912": "lint.pylint.max-branches",
    "PLR0913": "lint.pylint.max-args",
    "PLR0915": "lint.pylint.max-statements",
}
_MEASURED = re.compile(r"\((\d+) > (\d+)\)")
_NAMED = re.compile(r"^`([^`]+)`")


def _limits() -> dict[str, int]:
    return json.loads(BASELINE.read_text(encoding="utf-8"))["limits"]


def run_ruff(limits: dict[str, int]) -> list[dict]:
    """The violations of the rules `limits` names over lotdata/, as ruff's JSON records."""
    command = [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "json"]
    command += ["--select", ",".join(sorted(limits))]
    for rule, limit in sorted(limits.items()):
        command += ["--config", f"{SETTINGS[rule]}={int(limit)}"]
    result = subprocess.run([*command, "lotdata"], cwd=REPO, capture_output=True, text=True, timeout=300)
    if result.returncode not in (0, 1) or not result.stdout.strip().startswith("["):
        raise RuntimeError(f"ruff failed (exit {result.returncode}): {result.stderr or result.stdout}")
    return json.loads(result.stdout)


@lru_cache(maxsize=None)
def _functions(path: Path) -> dict[int, str]:
    """Line of each `def` -> the function's qualified name (`Class.method`, `outer.inner`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: dict[int, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    names[child.lineno] = name
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return names


def measure(records: list[dict]) -> dict[str, dict[str, int]]:
    """`file::function` -> {rule: measured value} of ruff's records."""
    found: dict[str, dict[str, int]] = {}
    for record in records:
        path = Path(record["filename"])
        file = path.resolve().relative_to(REPO).as_posix()
        value = _MEASURED.search(record["message"])
        if value is None or record["code"] not in SETTINGS:
            raise AssertionError(f"unexpected ruff record: {record['code']} {record['message']}")
        function = _functions(path.resolve()).get(record["location"]["row"])
        named = _NAMED.match(record["message"])  # C901 names the function: it must be the one found
        if function is None or (named and function.rsplit(".", 1)[-1] != named.group(1)):
            raise AssertionError(f"{file}:{record['location']['row']}: no function for {record['message']!r}")
        rules = found.setdefault(f"{file}::{function}", {})
        rules[record["code"]] = max(rules.get(record["code"], 0), int(value.group(1)))
    return found


def compare(baseline: dict[str, dict[str, int]], measured: dict[str, dict[str, int]]) -> list[str]:
    """What differs, one line each: new or grown violations (to fix), shrunk or gone ones (to take out of the
    baseline)."""
    problems = []
    for key in sorted(set(baseline) | set(measured)):
        was, now = baseline.get(key, {}), measured.get(key, {})
        for rule in sorted(set(was) | set(now)):
            if rule not in was:
                problems.append(f"NEW {key} {rule} {now[rule]}: over the limit; split the function (not the baseline)")
            elif rule not in now:
                problems.append(
                    f"GONE {key} {rule} (was {was[rule]}): fixed, thank you; remove it from tests/lint_baseline.json"
                )
            elif now[rule] > was[rule]:
                problems.append(f"GREW {key} {rule} {was[rule]} -> {now[rule]}: it may not grow; split the function")
            elif now[rule] < was[rule]:
                problems.append(
                    f"SHRANK {key} {rule} {was[rule]} -> {now[rule]}: lower it to {now[rule]} in tests/lint_baseline.json"
                )
    return problems


def test_the_rules_run_and_find_the_listed_functions():
    # guard against a command that finds nothing (every listed function would then read as fixed)
    measured = measure(run_ruff(_limits()))
    assert measured, "ruff reported no violation at all: is the command right?"
    assert set(_limits()) == set(SETTINGS)
    assert any(rule == "PLR0913" for rules in measured.values() for rule in rules)


def test_no_function_grows_past_the_baseline():
    baseline = json.loads(BASELINE.read_text(encoding="utf-8"))
    problems = compare(baseline["violations"], measure(run_ruff(baseline["limits"])))
    assert not problems, (
        "the complexity/argument-count baseline differs (tests/lint_baseline.json; after a change on purpose "
        "rewrite it with `python tests/test_lint_baseline.py --write` and review the diff):\n" + "\n".join(problems)
    )


def test_compare_tells_new_grown_shrunk_and_gone_apart():
    baseline = {"a.py::f": {"C901": 12, "PLR0913": 9}, "a.py::g": {"PLR0915": 60}}
    measured = {"a.py::f": {"C901": 13, "PLR0913": 9, "PLR0912": 14}, "a.py::h": {"PLR0913": 10}}
    problems = compare(baseline, measured)
    assert [p.split()[0] for p in problems] == ["GREW", "NEW", "GONE", "NEW"]
    assert compare(baseline, {"a.py::f": {"C901": 11, "PLR0913": 9}, "a.py::g": {"PLR0915": 60}}) == [
        "SHRANK a.py::f C901 12 -> 11: lower it to 11 in tests/lint_baseline.json"
    ]
    assert compare(baseline, baseline) == []


def test_a_function_is_named_by_its_qualified_name(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("class A:\n    def f(self):\n        def g():\n            pass\n\n\ndef h():\n    pass\n")
    assert _functions(path) == {2: "A.f", 3: "A.f.g", 7: "h"}


def write_baseline() -> None:
    limits = _limits()
    measured = measure(run_ruff(limits))
    text = json.dumps({"limits": limits, "violations": dict(sorted(measured.items()))}, indent=1, sort_keys=False)
    BASELINE.write_text(text + "\n", encoding="utf-8")
    print(
        f"{BASELINE.relative_to(REPO)}: {sum(len(r) for r in measured.values())} violations in {len(measured)} functions"
    )


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    write_baseline()
