from __future__ import annotations

import os
from pathlib import Path

import pytest
from labelstudio_support import annotators, conn, label_studio, stories  # noqa: F401  (the Label Studio fixtures, one server per session)

REPO = Path(__file__).resolve().parents[1]
# LOTDATA_SHARED_DATA: the data elsewhere (a git worktree whose parent has no shared/)
SHARED_DATA = Path(os.environ.get("LOTDATA_SHARED_DATA") or REPO.parent / "shared" / "data")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not beside the repository")
    return SHARED_DATA


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray of 2 CPUs for the tests of one module (the executor's `--executor ray`)."""
    ray = pytest.importorskip("ray", reason="the ray extra is part of the test extra")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


#: the files that take minutes (a real browser against a real Label Studio); run first, so that on two processes
#: (`make test`: pytest-xdist, a file per process) each starts with one and the rest fills in around them
LONGEST_FIRST = ("test_story_browser.py", "test_annotate_browser.py")


def pytest_collection_modifyitems(session, config, items) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the order within a file is kept
