"""`build_dataset` takes a parameters object (`BuildRequest`, issue 33 item 5) and still takes its fields as keywords:
both paths write the same bytes, keywords override the request's fields, and an unknown keyword is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from lotdata.tasks.build import BuildRequest, build_dataset
from lotdata.tasks.commands import sample_stories


@pytest.fixture(scope="module")
def stories(tmp_path_factory) -> Path:
    return sample_stories(tmp_path_factory.mktemp("stories") / "stories.parquet")


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.parquet"))}


def test_a_request_and_keywords_build_the_same_bytes(stories, tmp_path):
    by_keywords = build_dataset("senpos", [stories], tmp_path / "kw", seed=4, split="val=2,test=2", card=False)
    request = BuildRequest(seed=4, split="val=2,test=2", card=False)
    by_request = build_dataset("senpos", [stories], tmp_path / "rq", request)
    assert by_request.rows_per_split == by_keywords.rows_per_split
    assert _files(tmp_path / "rq") == _files(tmp_path / "kw")
    assert not (tmp_path / "rq" / "README.md").exists()  # card=False reached the writer


def test_keywords_override_the_request(stories, tmp_path):
    base = BuildRequest(seed=4, split="val=2,test=2", card=False)
    build_dataset("senpos", [stories], tmp_path / "a", base, seed=9)
    build_dataset("senpos", [stories], tmp_path / "b", BuildRequest(seed=9, split="val=2,test=2", card=False))
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    build_dataset("senpos", [stories], tmp_path / "c", base)
    assert base.seed == 4  # the caller's request is not changed
    assert _files(tmp_path / "c") != _files(tmp_path / "a")  # and the seed tells the builds apart


def test_an_unknown_keyword_is_refused_before_any_work(stories, tmp_path):
    with pytest.raises(TypeError, match="sead"):
        build_dataset("senpos", [stories], tmp_path / "x", sead=4)
    assert not (tmp_path / "x").exists()
