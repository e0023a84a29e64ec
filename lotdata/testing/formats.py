"""Conformance checks of an input format (a `lotdata.datasets.formats.InputFormat` record), as scikit-learn's
`check_estimator`:

    from lotdata.testing import check_format
    check_format(MY_FORMAT, tmp_path)   # AssertionError naming the broken rule

The sample is the record's own: `sample(folder)` writes a small file of the format and says how many stories it
holds and on which row its one bad record sits (`FormatSample`). The format must be registered
(`register_format`, or an entry point of `lotdata.formats`): reading detects formats through the registry. Every
check takes `(format, folder)` and writes only under `folder`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from lotdata.datasets.formats import FormatSample, InputFormat, Probe, all_formats, get_format
from lotdata.testing._common import held as _held

__all__ = [
    "FORMAT_CHECKS",
    "check_format",
    "check_format_detects_its_own_sample_unambiguously",
    "check_format_has_a_sample",
    "check_format_round_trip_through_the_writer",
    "check_format_sample_reads_into_valid_rows_and_a_quarantine",
    "format_sample",
]


def format_sample(fmt: InputFormat, folder: Path) -> FormatSample:
    """The record's sample, written into `folder` (made if need be)."""
    if fmt.sample is None:
        raise AssertionError(f"format {fmt.name!r} has no sample: the conformance checks need one")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    sample = fmt.sample(folder)
    assert isinstance(sample, FormatSample), f"format {fmt.name!r}: sample() must return a FormatSample"
    assert sample.path.exists() and sample.good > 0, f"format {fmt.name!r}: the sample holds no story"
    return sample


def check_format_has_a_sample(fmt: InputFormat, folder: Path) -> None:
    """The format is the one the registry holds under its name, says what a record is, and carries a sample
    file."""
    held = _held(get_format, fmt.name)
    assert held is fmt, f"format {fmt.name!r}: not the record the registry holds under its name (register it first)"
    assert fmt.description.strip(), f"format {fmt.name!r}: no description (the help and README say it)"
    format_sample(fmt, folder)


def check_format_detects_its_own_sample_unambiguously(fmt: InputFormat, folder: Path) -> None:
    """The one detector gives the format for its sample, no other format of the same priority claims the file, and
    `open_input` says what kind of file it is (the record's `kind`)."""
    from lotdata.datasets.inputs import KINDS, open_input
    from lotdata.sources.readers import detect_format

    path = format_sample(fmt, folder).path
    found_format = detect_format(path)
    assert found_format == fmt.name, f"format {fmt.name!r}: its sample {path.name} is detected as {found_format!r}"
    claims = [other.name for other in all_formats() if other.priority == fmt.priority and other.detect(Probe(path))]
    assert claims == [fmt.name], f"formats of the same priority that claim a {fmt.name} file: {claims}"
    found = open_input(path)
    assert found.kind in KINDS and found.files == (path,)
    assert (found.kind, found.task) == fmt.kind(Probe(path))


def check_format_sample_reads_into_valid_rows_and_a_quarantine(fmt: InputFormat, folder: Path) -> None:
    """The sample reads into valid `stories` rows (text = the joined sentences, url `path#row`, status raw, the
    format's source), its one bad record goes to the quarantine with the file, the row, a reason and the raw
    record, the counts add up; naming the format reads the same."""
    from lotdata.schema import QUARANTINE, STORIES, check_table, table_from_rows
    from lotdata.sources.readers import read_stories
    from lotdata.text import join_sentences

    name = fmt.name
    sample = format_sample(fmt, folder)
    path = sample.path
    result = read_stories([path])
    stories = check_table(table_from_rows(result.stories, STORIES), STORIES, name).to_pylist()
    assert len(stories) == sample.good, f"format {name!r}: {len(stories)} stories read, the sample says {sample.good}"
    imposed = {r.source for r in fmt.parse(path) if r.source}  # a record may name its corpus (cmrc vs cft)
    for story in stories:
        assert story["text"] and join_sentences(story["sentences"], story["lang"]) == story["text"]
        assert story["url"].startswith(f"{path}#") and story["status"] == "raw"
        assert story["source"] in ({fmt.default_source or path.stem} | imposed)
    quarantine = check_table(table_from_rows(result.quarantine, QUARANTINE), QUARANTINE, name).to_pylist()
    assert [(q["path"], q["row"]) for q in quarantine] == [(str(path), sample.bad_row)], (name, quarantine)
    assert quarantine[0]["reason"] and quarantine[0]["raw"] is not None
    assert result.counts == {"read": sample.good + 1, "kept": sample.good, "quarantined": 1, "duplicates": 0}
    assert read_stories([path], fmt=name) == result, f"format {name!r}: named explicitly, it reads otherwise"


def check_format_round_trip_through_the_writer(fmt: InputFormat, folder: Path) -> None:
    """Where the format has a writer: the stories it writes are detected as the format and read back the same
    (text, title, language, sentences). A format without a writer passes."""
    from lotdata.sources.readers import detect_format, read_stories

    if fmt.write is None:
        return
    name = fmt.name
    sample = format_sample(fmt, folder).path
    stories = read_stories([sample]).stories
    target = Path(folder) / "out"
    target.mkdir()
    written = fmt.write(stories, target / f"again{sample.suffix}")
    assert detect_format(written) == name
    again = read_stories([written], fmt=name).stories
    keys = ("text", "title", "lang", "sentences")
    assert [{k: s[k] for k in keys} for s in again] == [{k: s[k] for k in keys} for s in stories], (
        f"format {name!r}: what its writer wrote reads back otherwise"
    )


#: every check of a format, in the order `check_format` runs them
FORMAT_CHECKS: tuple[Callable[[InputFormat, Path], None], ...] = (
    check_format_has_a_sample,
    check_format_detects_its_own_sample_unambiguously,
    check_format_sample_reads_into_valid_rows_and_a_quarantine,
    check_format_round_trip_through_the_writer,
)


def check_format(fmt: InputFormat, folder: Path) -> None:
    """Run every check on `fmt`, each in a folder of its own under `folder` (AssertionError on the first broken)."""
    for check in FORMAT_CHECKS:
        check(fmt, Path(folder) / check.__name__)
