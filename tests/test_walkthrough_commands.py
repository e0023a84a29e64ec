"""The team walkthrough's commands are the CLI's (issue 35, item 6): every `lotdata ...` command of a bash block of
docs/tutorials/story-cloze-from-nothing.md, run or not, parses against the real command line (the command exists,
every option is one of its options with a value of the right type, no argument is missing), and the walkthrough gives
the exact commands of every round: Label Studio started outside the checkout, a quiz resent, the second review
round, the revisions that a pull sends straight back."""

from __future__ import annotations

import shlex
from pathlib import Path

import typer
from test_docs import _command_lines

from lotdata.cli import app

PAGE = Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "story-cloze-from-nothing.md"


def _commands(text: str) -> list[list[str]]:
    """The `lotdata` commands of the page's shell blocks (test_docs reads them the same way), as words."""
    return [shlex.split(line, comments=True)[1:] for line in _command_lines(text)]


def _parse(words: list[str]) -> None:
    group = typer.main.get_command(app)  # typer's own click: a group is what has commands
    path = []
    while hasattr(group, "commands"):
        name = words[0]
        assert name in group.commands, f"lotdata {' '.join(path)} has no command {name!r}"
        path.append(name)
        group, words = group.commands[name], words[1:]
    with group.make_context(" ".join(["lotdata", *path]), list(words), resilient_parsing=False) as ctx:
        assert ctx.params is not None


def test_every_command_of_the_walkthrough_parses_against_the_cli():
    commands = _commands(PAGE.read_text(encoding="utf-8"))
    assert len(commands) >= 30
    for words in commands:
        try:
            _parse(words)
        except Exception as exc:  # a usage error of typer's click: a bad option, value or missing argument
            message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
            raise AssertionError(f"lotdata {shlex.join(words)}: {message}") from None


def test_the_walkthrough_gives_every_round_exactly():
    text = PAGE.read_text(encoding="utf-8")
    lines = [" ".join(w) for w in _commands(text)]
    # Label Studio outside the checkout, by its own binary
    assert (
        "LOTDATA_LABEL_STUDIO_BIN=~/labelstudio/bin/label-studio" in text
        and "python -m lotdata.annotate.server" in text
    )
    # the quiz resent at once to one rater, then scored
    assert "annotate qualify story_write --retry-after 0 --rater ann" in lines
    # the second review round: revisions back to the writers, their new versions pulled and reviewed again
    second = text[text.index("# round 2") :]
    for command in (
        "lotdata annotate push story_write --input out/review/revisions.jsonl --project Stories",
        "lotdata annotate pull story_write --project Stories --out out/write",
        "lotdata annotate push story_review --input out/write --project Review",
        "lotdata annotate pull story_review --project Review --out out/review",
    ):
        assert command in second, command
    # what a pull sends straight back (a blank title) is pushed back in each round
    assert text.count("test -s out/write/revisions.jsonl && lotdata annotate push story_write") == 2
