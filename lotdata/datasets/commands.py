"""The dataset folder commands as records (`lotdata.command`): `import lot`, `export lot`, `stats`, `diff` and
`card`. The CLI, the library call and the conformance checks are derived from them, and the one runner gives
each its checks (an output never an input or inside one: `stats --json DIR/manifest.json` and
`diff A B --json A/manifest.json` are refused before any work), a lock, atomic publication and its exit codes.

`stats --json -` and `diff --json -` write to stdout: then the command declares no output."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lotdata.command import Command, Output, Run, register_command
from lotdata.datasets.registry import task_names
from lotdata.io import MANIFEST_NAME, write_text
from lotdata.stage import param

#: `--json -`: the JSON goes to stdout (no file)
STDOUT = "-"


def command_line() -> str:
    """The command line that made an output, for its manifest (as the user typed it)."""
    return shlex.join(["lotdata", *sys.argv[1:]])


def _json_file(value: str | None) -> Path | None:
    return None if value is None or str(value) == STDOUT else Path(value)


def _json_output(value: str | None) -> list[Output]:
    path = _json_file(value)
    return [] if path is None else [Output("--json", path)]


def sample_dataset(folder: Path) -> Path:
    """A small OutGen dataset folder at `folder` (imported from LOT jsonl made of lotdata's sample corpus), for
    the records' samples."""
    from lotdata.datasets.folder import import_lot

    lot = folder.with_name(folder.name + "-lot")
    _sample_lot(lot)
    import_lot([lot], "outgen", folder)
    return folder


def _sample_lot(lot: Path) -> Path:
    """LOT OutGen jsonl (train/val/test) of lotdata's sample corpus: the outline is the story's first words."""
    from lotdata.resources import sample_corpus_path

    lot.mkdir(parents=True, exist_ok=True)
    stories = [json.loads(line) for line in sample_corpus_path().read_text(encoding="utf-8").splitlines() if line]
    parts = {"train": stories[:-8], "val": stories[-8:-4], "test": stories[-4:]}
    for split, rows in parts.items():
        lines = [
            json.dumps(
                {"story": row["text"], "outline": [row["text"][:6], row["text"][8:14]], "title": row["title"]},
                ensure_ascii=False,
            )
            for row in rows
        ]
        (lot / f"{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lot


# ---------------------------------------------------------------------------------------------
# import lot


@dataclass(frozen=True, kw_only=True)
class ImportLotParams:
    files: list[str] = param(help="LOT jsonl files (train/val/test by name) or a folder holding them.", path="input")
    task: str = param(
        help="The task of the records (a registered task: an unknown name lists them).", choices=task_names
    )
    out: str = param(help="Dataset folder to write.")
    split: str | None = param(None, "Split of the file(s) when the name does not tell (default train).")
    license: str | None = param(
        None,
        "License of the imported records, for the card (a known corpus by name: lot, cmrc2017, cft, c3, storycloze; "
        "else as given; default: none recorded).",
    )


def _import_lot(run: Run) -> dict[str, Any]:
    from lotdata.datasets.folder import import_lot

    p: ImportLotParams = run.params
    return import_lot(
        list(p.files), p.task, run.out("--out"), split=p.split, command=command_line(), license=p.license
    ).summary()


def _import_sample(folder: Path) -> list[str]:
    return [str(_sample_lot(folder / "lot")), "--task", "outgen", "--out", str(folder / "imported")]


IMPORT_LOT = register_command(
    Command(
        name="import lot",
        params=ImportLotParams,
        execute=_import_lot,
        inputs=lambda p: {"FILES": list(p.files)},
        outputs=lambda p: [Output("--out", Path(p.out), kind="dataset", task=p.task)],
        summary="Import the official LOT jsonl format into a dataset folder.",
        arguments=("files",),
        sample=_import_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# export lot

#: what `export lot` writes into its folder
LOT_FILES = ("train.jsonl", "val.jsonl", "test.jsonl")


def _lot_export_folder(path: Path) -> bool:
    """A folder an earlier `export lot` wrote: it holds nothing but LOT split files."""
    return all(entry.is_file() and entry.name in LOT_FILES for entry in path.iterdir())


@dataclass(frozen=True, kw_only=True)
class ExportLotParams:
    folder: str = param(help="Dataset folder.")
    out: str = param(help="Folder for train.jsonl, val.jsonl, test.jsonl.")
    include_empty: bool = param(False, "Write empty files for empty splits.")


def _export_lot(run: Run) -> dict[str, Any]:
    from lotdata.datasets.folder import export_lot

    p: ExportLotParams = run.params
    out = run.out("--out")
    written = export_lot(p.folder, out, include_empty=p.include_empty)
    out.mkdir(parents=True, exist_ok=True)  # every split empty: the export is an empty folder
    return written


def _export_sample(folder: Path) -> list[str]:
    return [str(sample_dataset(folder / "dataset")), "--out", str(folder / "lot-export")]


EXPORT_LOT = register_command(
    Command(
        name="export lot",
        params=ExportLotParams,
        execute=_export_lot,
        inputs=lambda p: {"FOLDER": p.folder},
        outputs=lambda p: [Output("--out", Path(p.out), kind="folder", owned=_lot_export_folder)],
        summary="Export a dataset folder in the official LOT jsonl format.",
        arguments=("folder",),
        sample=_export_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# stats


@dataclass(frozen=True, kw_only=True)
class StatsParams:
    folder: str = param(help="Dataset folder.")
    json_out: str | None = param(None, "Also write the statistics as JSON here ('-' for stdout only).", flag="--json")


def _stats(run: Run) -> dict[str, Any]:
    from lotdata.datasets.folder import dataset_stats

    p: StatsParams = run.params
    stats = dataset_stats(p.folder)
    if _json_file(p.json_out) is not None:
        write_text(json.dumps(stats, ensure_ascii=False, indent=2) + "\n", run.out("--json"))
    return {"stats": stats}


def _stats_sample(folder: Path) -> list[str]:
    return [str(sample_dataset(folder / "dataset")), "--json", str(folder / "stats.json")]


STATS = register_command(
    Command(
        name="stats",
        params=StatsParams,
        execute=_stats,
        inputs=lambda p: {"FOLDER": p.folder},
        outputs=lambda p: _json_output(p.json_out),
        summary="LOT Table 3 statistics of a dataset, per split.",
        arguments=("folder",),
        sample=_stats_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# diff


@dataclass(frozen=True, kw_only=True)
class DiffParams:
    a: str = param(help="Before: a dataset folder, a `clean` output, an annotation pull folder or a Parquet table.")
    b: str = param(help="After: the same kind as A.")
    json_out: str | None = param(None, "Write the report as JSON here ('-': stdout, no text report).", flag="--json")
    sample: int = param(3, "Rows shown of each kind of change (added, removed, changed), seeded.", check=">=0")
    seed: int = param(0, "Seed of the sample.")


def _diff(run: Run) -> dict[str, Any]:
    from lotdata.datasets.diff import diff_paths

    p: DiffParams = run.params
    report = diff_paths(p.a, p.b, sample=p.sample, seed=p.seed)
    if _json_file(p.json_out) is not None:
        write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", run.out("--json"))
    return {"report": report}


def _diff_sample(folder: Path) -> list[str]:
    a = sample_dataset(folder / "a")
    b = sample_dataset(folder / "b")
    return [str(a), str(b), "--json", str(folder / "diff.json")]


DIFF = register_command(
    Command(
        name="diff",
        params=DiffParams,
        execute=_diff,
        inputs=lambda p: {"A": p.a, "B": p.b},
        outputs=lambda p: _json_output(p.json_out),
        summary="What changed from A to B: manifests, then rows by key and story, per split.\n\n"
        "Exit 0 equal, 1 different, 2 a refused option (a bad value, --json naming an input), 3 bad input (a missing "
        "path, two kinds or tasks, a folder and a file, a folder without a manifest), 5 stories moved between splits "
        "(never allowed by the split rules).",
        arguments=("a", "b"),
        refused_exit=2,
        sample=_diff_sample,
    )
)


# ---------------------------------------------------------------------------------------------
# card: FOLDER/README.md from FOLDER's manifest and split files (not FOLDER itself: the card is written there)

CARD = "README.md"


@dataclass(frozen=True, kw_only=True)
class CardParams:
    folder: str = param(help="Dataset folder (with manifest.json).")
    check: bool = param(
        False,
        "Write nothing: validate FOLDER/croissant.json with mlcroissant (every split loaded) and the README's YAML "
        "against the Hugging Face card fields, list what the authors must still fill in; exit 1 when a required "
        "field is missing or invalid.",
    )
    audit: str | None = param(
        None, "An `audit-bias` report folder of FOLDER: its verdicts and leaking tokens go into the card.", path="input"
    )
    overlap: list[str] | None = param(
        None, "`overlap` output folders of FOLDER (repeatable): their figures go into the card.", path="input"
    )
    authors: str | None = param(
        None,
        "The authors' answers (JSON or TOML: name, url, creators, cite_as, version, date_published, funding, "
        "annotator_demographics, annotator_pay, social_impact, out_of_scope_uses, maintenance, personal_information).",
        path="input",
    )


def _card_inputs(p: CardParams) -> dict[str, Any]:
    """The files the card is made of: the manifest and the split files it lists (a manifest that cannot be read
    is refused by `_card_check` before any work)."""
    folder = Path(p.folder)
    files = [folder / MANIFEST_NAME]
    try:
        manifest = json.loads(files[0].read_text(encoding="utf-8"))
        files += [folder / entry["file"] for entry in (manifest.get("splits") or {}).values()]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    if p.check:
        from lotdata.datasets.release import CROISSANT_NAME

        files += [folder / CARD, folder / CROISSANT_NAME]
    return {
        "FOLDER": files,
        **({"--audit": [Path(p.audit) / "results.json"]} if p.audit else {}),
        **({"--overlap": [Path(o) / "summary.json" for o in p.overlap]} if p.overlap else {}),
        **({"--authors": p.authors} if p.authors else {}),
    }


def _card_check(p: CardParams) -> None:
    from lotdata.datasets.inputs import open_input
    from lotdata.errors import InputError

    manifest = Path(p.folder) / MANIFEST_NAME
    if manifest.is_file():  # a manifest that is not JSON: bad input naming it (exit 3), before the lock
        try:
            json.loads(manifest.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise InputError(f"not valid JSON ({exc})", path=str(manifest)) from None
    open_input(p.folder, expect=("dataset",))  # a missing folder or another kind: refused before the lock


def _card_outputs(p: CardParams) -> list[Output]:
    from lotdata.datasets.card import STATS_CACHE
    from lotdata.datasets.release import CROISSANT_NAME

    if p.check:  # --check writes nothing
        return []
    folder = Path(p.folder)
    return [
        Output(f"FOLDER/{CARD}", folder / CARD, into=("dataset",)),
        Output(f"FOLDER/{STATS_CACHE}", folder / STATS_CACHE, side=True, into=("dataset",)),
        Output(f"FOLDER/{CROISSANT_NAME}", folder / CROISSANT_NAME, side=True, into=("dataset",)),
    ]


def _card(run: Run) -> dict[str, Any]:
    """The card and its statistics, staged in FOLDER (beside them). A failed run leaves no staging folder in the
    dataset folder: a card has no parts to resume, and FOLDER is the user's dataset."""
    import shutil

    from lotdata.datasets import release as rel
    from lotdata.datasets.card import STATS_CACHE, card_text

    p: CardParams = run.params
    if p.check:
        return {"check": rel.check_release(p.folder), "folder": p.folder}
    inputs = {
        "audit": rel.read_audit(p.audit) if p.audit else None,
        "overlaps": [rel.read_overlap(o) for o in p.overlap or []],
        "authors": rel.read_authors(p.authors) if p.authors else None,
        "croissant": run.out(f"FOLDER/{rel.CROISSANT_NAME}"),
    }
    card = run.out(f"FOLDER/{CARD}")
    try:
        write_text(card_text(p.folder, stats_path=run.out(f"FOLDER/{STATS_CACHE}"), release=inputs), card)
    except BaseException:
        shutil.rmtree(card.parent, ignore_errors=True)
        raise
    return {"card": str(run.final(f"FOLDER/{CARD}")), "croissant": str(run.final(f"FOLDER/{rel.CROISSANT_NAME}"))}


def _card_sample(folder: Path) -> list[str]:
    from lotdata.datasets.card import STATS_CACHE

    dataset = sample_dataset(folder / "dataset")
    for name in (CARD, STATS_CACHE, "croissant.json"):  # a dataset folder without its card: `card` writes it
        (dataset / name).unlink()
    return [str(dataset)]


CARD_COMMAND = register_command(
    Command(
        name="card",
        params=CardParams,
        execute=_card,
        inputs=_card_inputs,
        outputs=_card_outputs,
        check=_card_check,
        summary="Write FOLDER/README.md, a Hugging Face dataset card (datasets.load_dataset(FOLDER) loads the splits), "
        "and FOLDER/croissant.json (Croissant 1.0 with the Responsible-AI fields); --check validates both.\n\n"
        "Exit 0 written (or, with --check, valid: what the authors must still fill in is listed), 1 a required field "
        "missing or invalid (--check), 3 bad input, 4 mlcroissant missing (--check: pip install 'lotdata[release]').",
        arguments=("folder",),
        sample=_card_sample,
    )
)
