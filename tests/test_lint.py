"""The repository passes its own linter and formatter (ruff, configured in pyproject.toml and pinned in the test
extra), so a contributor's `ruff check` / `ruff format` never rewrites code they did not touch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_ruff_is_the_pinned_version():
    pinned = next(line for line in (REPO / "pyproject.toml").read_text().splitlines() if line.startswith("test = "))
    version = _ruff("--version")
    assert version.returncode == 0, version.stderr
    assert f"ruff=={version.stdout.split()[1]}" in pinned, (version.stdout, pinned)


def test_ruff_check_finds_nothing():
    result = _ruff("check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_would_change_nothing():
    result = _ruff("format", "--no-cache", "--check", ".")
    assert result.returncode == 0, result.stdout + result.stderr
