"""The documentation site (issue 40): it builds with warnings as errors (every internal link and anchor checked), the
commands its pages mark as runnable run on the sample data, the reference is made from the code, the README stays short.

A page marks a fenced ```bash block as run by the line `<!-- run -->` just above it, or says why not with
`<!-- not run: REASON -->`; in a tutorial every bash block carries one of the two. The runnable blocks of a page run
in order, in one bash (`set -euo pipefail`), in a temp folder, with this venv's `lotdata` and `python` first on PATH.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
BIN = Path(sys.executable).parent
BLOCK = re.compile(r"(?:^<!-- (run|not run: [^\n]*?) -->\n)?^```bash\n(.*?)^```", re.M | re.S)


def _blocks(page: Path) -> list[tuple[str | None, str]]:
    return [(m.group(1), m.group(2)) for m in BLOCK.finditer(page.read_text(encoding="utf-8"))]


def _pages_with_runnable_blocks() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if any(mark == "run" for mark, _ in _blocks(p)))


def _gen_reference():
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strict_with_every_link_and_anchor_checked(tmp_path):
    pytest.importorskip("material", reason="the docs extra: pip install -e '.[docs]' (make test installs it)")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    assert "WARNING" not in log, log
    site = tmp_path / "site"
    for page in ("reference/cli/index.html", "reference/registries/index.html", "reference/schemas/index.html"):
        assert (site / page).exists(), page
    # no page of the built site fetches anything from the network (fonts, scripts): it reads offline
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, html


@pytest.mark.parametrize("page", _pages_with_runnable_blocks(), ids=lambda p: str(p.relative_to(DOCS)))
def test_the_commands_a_page_marks_as_runnable_run(page, tmp_path):
    script = "\n".join(code for mark, code in _blocks(page) if mark == "run")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1", "COLUMNS": "120"}
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        env=env,
        timeout=900,
    )
    assert result.returncode == 0, f"{page}:\n{script}\n--- output\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"


def test_every_command_of_a_tutorial_is_run_or_says_why_not():
    for page in sorted((DOCS / "tutorials").glob("*.md")):
        for mark, code in _blocks(page):
            assert mark is not None, (
                f"{page.name}: a bash block with neither <!-- run --> nor <!-- not run: ... -->:\n{code}"
            )
            if mark != "run":
                assert len(mark) > len("not run: ") + 10, f"{page.name}: say why a block is not run: {mark}"


def test_the_tutorials_cover_both_main_jobs_with_runnable_commands():
    runnable = {p.name for p in _pages_with_runnable_blocks()}
    assert {"lot-from-your-corpus.md", "story-cloze-from-nothing.md"} <= runnable


def test_the_reference_is_made_from_the_registries_and_the_cli():
    from lotdata.registry import registries
    from lotdata.text.tokenize import TOKENIZER_REGISTRY, TokenizerSpec

    gen = _gen_reference()
    made_up = TokenizerSpec("doc-test-tokenizer", lambda: lambda text: list(text))
    TOKENIZER_REGISTRY.register(made_up)
    try:
        page = gen.registries_page()
    finally:
        TOKENIZER_REGISTRY.unregister("doc-test-tokenizer")
    assert "`doc-test-tokenizer`" in page and "(plug-in)" in page  # a new record shows up with no doc edit
    for registry in registries():
        for name in registry.names():
            assert f"`{name}`" in page, (registry.kind, name)
    assert "doc-test-tokenizer" not in gen.registries_page()

    import typer

    from lotdata.cli import app

    cli = gen.cli_page()
    root = typer.main.get_command(app)
    for name, command in root.commands.items():
        assert f"## `lotdata {name}`" in cli, name
        for param in command.params:
            for opt in getattr(param, "opts", []):
                if opt.startswith("--") and opt != "--help":
                    assert f"`{opt}`" in cli, (name, opt)


def test_no_page_types_a_list_the_reference_generates():
    """The generated pages exist only at build time: none is kept in docs/ (it would drift)."""
    gen = _gen_reference()
    for path in gen.PAGES:
        assert not (DOCS / path).exists(), f"docs/{path} is generated at build time; remove the file"


def test_readme_is_short_and_gives_the_two_set_up_commands_of_the_makefile_and_ci():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
    commands = [line for line in readme.splitlines() if line.startswith(("make demo ", "make test "))]
    assert [c.split()[1] for c in commands] == ["demo", "test"], commands
    for page in ("index.md", "how-to/install.md"):  # the docs say the same two commands, word for word
        text = (DOCS / page).read_text(encoding="utf-8")
        for command in commands:
            assert command in text, (page, command)
    for link in re.findall(r"\]\(((?:docs/|CHANGELOG)[^)#]*)", readme):  # the README's links into the docs resolve
        assert (REPO / link).exists(), link


FENCE = re.compile(r"^```(?:bash|sh|console)?\n(.*?)^```", re.M | re.S)


def _command_lines(text: str) -> list[str]:
    """The `lotdata ...` lines of a page's shell blocks, continuations joined, comments dropped."""
    lines = []
    for block in FENCE.findall(text):
        for line in block.replace("\\\n", " ").splitlines():
            line = re.sub(r"(^|\s)#.*$", "", line).strip()
            for part in re.split(r"&&|;|\|\|", line):
                part = part.strip()
                if part.startswith("lotdata "):
                    lines.append(part)
    return lines


def test_every_lotdata_command_a_page_shows_exists_with_its_options():
    """Also the commands no test runs (those needing Label Studio, usage lines of the how-to guides, the README's
    tastes): each names a real command, and every --option it uses is one that command has."""
    import typer

    from lotdata.cli import app

    root = typer.main.get_command(app)
    problems = []
    for page in [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for line in _command_lines(page.read_text(encoding="utf-8")):
            words = line.split()[1:]
            command, path = root, ["lotdata"]
            while getattr(command, "commands", None) and words and words[0] in command.commands:
                command = command.commands[words[0]]
                path.append(words.pop(0))
            if getattr(command, "commands", None):
                if words and not re.fullmatch(r"[A-Z_.|\[\]a-z-]*\|[A-Za-z_|.\[\]-]*|\.\.\.", words[0]):
                    problems.append(f"{page.relative_to(REPO)}: `{line}`: no command {' '.join(path)} {words[0]}")
                continue
            known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
            for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", line):
                if option not in known and option != "--help":
                    problems.append(f"{page.relative_to(REPO)}: `{line}`: {' '.join(path)} has no {option}")
    assert not problems, "\n".join(problems)


def test_every_page_is_in_the_nav_once():
    """A page nobody can reach from the navigation is as good as missing; a page listed twice shows twice."""
    import yaml

    def paths(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from paths(item)
        elif isinstance(node, dict):
            for value in node.values():
                yield from paths(value)

    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = [p for p in paths(config["nav"]) if p.endswith(".md")]
    assert len(listed) == len(set(listed)), sorted(p for p in listed if listed.count(p) > 1)
    generated = set(_gen_reference().PAGES)
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")} | generated
    assert sorted(pages - set(listed)) == [], "pages missing from the nav of mkdocs.yml"
