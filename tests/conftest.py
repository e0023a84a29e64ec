from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: LOTDATA_SHARED_DATA points elsewhere (a git worktree has no ../shared beside it)
SHARED_DATA = Path(os.environ.get("LOTDATA_SHARED_DATA") or REPO.parent / "shared" / "data")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not beside the repository")
    return SHARED_DATA
