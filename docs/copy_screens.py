"""Copy the pictures the documentation shows into docs/images/: every rater screen from the browser tests, the audit report.

`make docs-images` runs the browser tests with LOTDATA_BROWSER_SHOTS=out/shots (they save a screenshot of every page a
rater opens), then this script:

    python docs/copy_screens.py SHOTS_DIR [--report AUDIT_REPORT_DIR] [--out docs/images]

- for every registered annotation job (`lotdata.annotate.jobs.JOB_REGISTRY`, so a new job needs no edit here) and each
  language, the first `NN-<job>-<lang>-task.png` under SHOTS_DIR (the job's name with `_` or `-`) is saved as
  `<job>-<lang>-task.png`, at most 1000 pixels wide; the generated page "Rater screens" shows them;
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

LANGS = ("zh", "en")
WIDTH = 1000


def screen_name(path: Path, jobs: list[str]) -> str | None:
    """`<job>-<lang>-task.png` for a browser-test screenshot of a job's task screen, else None."""
    match = re.fullmatch(r"\d+-(.+)-(zh|en)-task\.png", path.name)
    if match is None:
        return None
    job = match.group(1).replace("-", "_")
    return f"{job}-{match.group(2)}-task.png" if job in jobs else None


def save(source: Path, target: Path) -> None:
    """Copy a PNG, scaled down to WIDTH pixels when wider (Pillow, when installed; else as it is)."""
    try:
        from PIL import Image
    except ImportError:
        shutil.copyfile(source, target)
        return
    with Image.open(source) as image:
        if image.width > WIDTH:
            image = image.resize((WIDTH, round(image.height * WIDTH / image.width)), Image.LANCZOS)
        # a screenshot has few colours: a 256-colour palette keeps it sharp at a fraction of the size
        image.convert("RGB").quantize(colors=256).save(target, optimize=True)


def copy_screens(shots: Path, out: Path) -> list[Path]:
    from lotdata.annotate.jobs import JOB_REGISTRY

    jobs = JOB_REGISTRY.names()
    copied: dict[str, Path] = {}
    for path in sorted(shots.rglob("*.png")):
        name = screen_name(path, jobs)
        if name is not None and name not in copied:
            save(path, out / name)
            copied[name] = out / name
        elif path.name == "cartography.png" and "data-map.png" not in copied:
            save(path, out / "data-map.png")
            copied["data-map.png"] = out / "data-map.png"
    missing = [f"{job}-{lang}" for job in jobs for lang in LANGS if f"{job}-{lang}-task.png" not in copied]
    if missing:
        print(f"no screenshot under {shots} of: {', '.join(missing)}", file=sys.stderr)
    return list(copied.values())


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
