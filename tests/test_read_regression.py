"""`read` gives the rows it gave before the formats became registered records (issue 22): a digest of the
stories rows of the embedded sample and of the shared corpora, as the reader wrote them before the change
(its `lotdata read` outputs, read back), with the input's path replaced by INPUT. A change to normalisation,
splitting or a parser shows here; a deliberate one updates the digest and says so in CHANGELOG.md.

The large corpora are checked where test_readers.py reads them anyway (`assert_rows_as_before`)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from lotdata.resources import sample_corpus_path
from lotdata.schema import STORIES, table_from_rows
from lotdata.sources.readers import ReadResult, read_stories

#: input (its path from the shared data, or "sample") -> (rows digest, stories)
DIGESTS = {
    "sample": ("bbcd07d874c8cbb1", 40),
    "lot_outgen_dev/dev.jsonl": ("2400e8e63ded518c", 111),
    # issue 34: the English splitter cuts 5 more of these stories into their five sentences (a sentence after "an F."
    # / "an A." / "ball Z." or starting in lower case: "she wasn't able ..."); was 724792d99d48b41b
    "rocstories_diffusionlm_valid5k/datasets/ROCstory/roc_valid.json": ("7b72c198bd509974", 5000),
    "storycloze_spring2016_labeled/val.csv": ("985874af6563ceba", 1871),
    "cmrc2017_children_stories/validation/cloze.valid.doc_query": ("40e7c72b70a9f583", 1159),
    "cft_children_fairy_tale/children_fairy_tale/cft.zip": ("34808e87b8b92a4d", 1303),
}


def rows_digest(rows: list[dict], path: Path) -> str:
    text = json.dumps(rows, ensure_ascii=False, sort_keys=True, default=str).replace(str(path), "INPUT")
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def assert_rows_as_before(result: ReadResult, path: Path, name: str) -> None:
    """The stories read from `path` (DIGESTS' `name`) are the rows read before the change, but for the licence
    that `read` stores since issue 38 for a corpus it knows by name (CMRC 2017, CFT, Story Cloze, ROCStories): the
    digests were taken with none, so that licence is compared apart (it must be the corpus's terms)."""
    from lotdata.datasets.licenses import corpus_license

    rows = table_from_rows(result.stories, STORIES).to_pylist()
    for row in rows:
        assert row["license"] == corpus_license(row["source"])  # read without --license: the known terms or none
        row["license"] = None
    assert result.quarantine == []
    assert (rows_digest(rows, path), len(rows)) == DIGESTS[name]


@pytest.mark.parametrize("name", ["sample", "lot_outgen_dev/dev.jsonl"])
def test_read_gives_the_rows_it_gave_before(name: str, shared_data: Path):
    path = sample_corpus_path() if name == "sample" else shared_data / name
    assert_rows_as_before(read_stories([path]), path, name)
