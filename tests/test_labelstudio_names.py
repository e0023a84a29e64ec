"""The annotation test files share one Label Studio server per pytest-xdist worker, and which files share a worker
changes from run to run: an account name used by two files makes the second file's login depend on the order (a full
run once failed that way, each file passing alone). Every file names its own accounts."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# the ways a test file creates accounts on the shared server
ACCOUNT_LISTS = (
    re.compile(r"add_raters\(\s*conn,\s*\[([^\]]*)\]"),
    re.compile(r'"raters",\s*"add",((?:\s*"[^"]+",?)+)'),
    re.compile(r"\bnames = \[([^\]]*)\]"),
)


def account_names(text: str) -> set[str]:
    names: set[str] = set()
    for pattern in ACCOUNT_LISTS:
        for match in pattern.finditer(text):
            for group in match.groups():
                names.update(re.findall(r'"([^"]+)"', group or ""))
    return names


def test_the_finder_sees_the_forms_the_files_use():
    sample = 'add_raters(conn, ["a1", "b2"], state=s)\nrun("annotate", "raters", "add", "c3", "d4")\nnames = ["e5"]'
    assert account_names(sample) == {"a1", "b2", "c3", "d4", "e5"}


def test_no_account_name_is_used_by_two_test_files():
    files = defaultdict(set)
    for path in sorted(TESTS.glob("*.py")):
        for name in account_names(path.read_text(encoding="utf-8")):
            files[name].add(path.name)
    assert len(files) > 20, "the finder no longer sees the files' accounts"
    shared = {name: sorted(where) for name, where in files.items() if len(where) > 1}
    assert not shared, shared
