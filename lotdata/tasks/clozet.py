"""ClozeT splits from the written cases (LOT Table 3: 644 / 294 / 294).

LOT's annotators wrote 1,232 ClozeT cases and LOT split them; `build_clozet` pools the cases a
`clozet_write` job (or LOT ClozeT jsonl) gives, whatever split they came with, and splits them again,
grouped by story and seeded, as every builder does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from lotdata.errors import InputError
from lotdata.io import check_output_dir
from lotdata.schema import SPLITS
from lotdata.tasks.build import BuildReport, build_tokenizer, check_sizes, load_clozet, split_examples, split_warnings, write_dataset
from lotdata.tasks.splits import SplitSpec, parse_split_spec
from lotdata.text.tokenize import using_tokenizer

#: LOT's ClozeT sizes (Table 3): 644 / 294 / 294 from the written cases
CLOZET_SPLIT = "val=294,test=294"


def _case_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".parquet", ".jsonl"))


def build_clozet(
    cases: str | Path | Mapping[str, list[dict[str, Any]]],
    out: str | Path,
    *,
    split: str | SplitSpec | None = CLOZET_SPLIT,
    seed: int = 0,
    n: int | None = None,
    lot_jsonl: bool = True,
    tokenizer: str | None = None,
    command: str | None = None,
    card: bool = True,
) -> BuildReport:
    """ClozeT splits from the written cases (LOT: 644 / 294 / 294): every case of `cases` (a ClozeT
    dataset folder, e.g. assembled from `clozet_write`, or LOT ClozeT jsonl; any splits) pooled and split
    again, grouped by story, seeded; `split` gives val/test sizes or ratios, train takes the rest."""
    check_sizes(n, None)
    spec = split if isinstance(split, SplitSpec) else parse_split_spec(split or CLOZET_SPLIT)
    check_output_dir(out)
    notes: list[str] = []
    by_given = cases if isinstance(cases, Mapping) else load_clozet(cases, notes)
    pool = [row for s in SPLITS for row in by_given.get(s, [])]
    if not pool:
        raise InputError("no ClozeT cases in the input", path=str(cases) if not isinstance(cases, Mapping) else "<rows>")
    by_split = split_examples(pool, spec, seed, n)
    stats = {
        "cases_in": len(pool),
        "cases_in_by_split": {s: len(by_given.get(s, [])) for s in SPLITS},
        "stories": len({row["story_id"] for row in pool}),
        "examples_written": sum(len(v) for v in by_split.values()),
    }
    inputs = [] if isinstance(cases, Mapping) else _case_files(Path(cases))
    with using_tokenizer(build_tokenizer(tokenizer)):  # the card's statistics count words
        rows = write_dataset(
            out, "clozet", by_split, command=command or "lotdata build clozet",
            params={"task": "clozet", "n": n, "seed": seed, "split": str(spec)}, inputs=inputs, stats=stats, lot_jsonl=lot_jsonl,
            extra={"languages": sorted({r["lang"] for r in pool}), "cases": None if isinstance(cases, Mapping) else str(cases)},
            card=card,
        )
    return BuildReport(task="clozet", out=Path(out), rows_per_split=rows, stats=stats, warnings=split_warnings(by_split, spec, None),
                       notes=notes)
