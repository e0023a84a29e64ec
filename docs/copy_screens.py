"""Copy the pictures the documentation shows into docs/images/: rater screens from the browser tests, the audit report.

`make docs-images` runs the browser tests with LOTDATA_BROWSER_SHOTS=out/shots (they save a screenshot of every page a
rater opens), then this script:

    python docs/copy_screens.py SHOTS_DIR [--report AUDIT_REPORT_DIR] [--out docs/images]

- every `NN-<job>-<lang>-task.png` under SHOTS_DIR (the "every screen in both languages" test, and the story jobs'
  pages) is copied as `<job>-<lang>-task.png` when its name is in WANTED (a few screens, not all: the site stays small);
- with --report, the audit report's `report.html` is opened in headless chromium and saved as `audit-report.png`;
- a data map (`cartography.png` of `lotdata baseline cartography`) found under SHOTS_DIR is copied as `data-map.png`.

Look at the pictures before committing them.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: the screens the pages show (file names in docs/images/)
WANTED = (
    "story_filter-zh-task.png",
    "story_filter-en-task.png",
    "clozet_write-zh-task.png",
    "clozet_write-en-task.png",
    "senpos_refine-zh-task.png",
    "senpos_refine-en-task.png",
    "cloze_verify-zh-task.png",
    "cloze_verify-en-task.png",
    "human_eval-zh-task.png",
    "human_eval-en-task.png",
    "story-write-en-task.png",
    "story-review-en-task.png",
    "sct-write-en-task.png",
    "story-reorder-en-task.png",
)


def copy_screens(shots: Path, out: Path) -> list[Path]:
    copied = []
    for path in sorted(shots.rglob("*.png")):
        name = re.sub(r"^\d+-", "", path.name)
        if name in WANTED:
            shutil.copyfile(path, out / name)
            copied.append(out / name)
        elif path.name == "cartography.png":
            shutil.copyfile(path, out / "data-map.png")
            copied.append(out / "data-map.png")
    return copied


def render_report(report: Path, out: Path, chromium: str = "chromium") -> Path:
    """A screenshot of the audit report's HTML page (headless chromium, 1200 px wide)."""
    target = out / "audit-report.png"
    subprocess.run(
        [
            chromium,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1200,1400",
            f"--screenshot={target.resolve()}",
            (report / "report.html").resolve().as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("shots", type=Path, help="LOTDATA_BROWSER_SHOTS of the browser tests")
    parser.add_argument("--report", type=Path, help="an audit-bias output folder (report.html)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    copied = copy_screens(args.shots, args.out) if args.shots.exists() else []
    if args.report is not None:
        copied.append(render_report(args.report, args.out))
    for path in copied:
        print(path)
    missing = [name for name in WANTED if not (args.out / name).exists()]
    if missing:
        print(f"not found under {args.shots}: {', '.join(missing)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
