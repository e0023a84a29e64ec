"""`lotdata quality train|score`: derived from the records in `lotdata.quality.commands`."""

from __future__ import annotations

import typer

from lotdata.clikit import command_of
from lotdata.quality.commands import QUALITY_ENDINGS, QUALITY_SCORE, QUALITY_TRAIN

quality_app = typer.Typer(
    no_args_is_help=True, help="A story-quality classifier learnt from raters' story_filter decisions."
)
quality_app.command("train")(command_of(QUALITY_TRAIN))
quality_app.command("score")(command_of(QUALITY_SCORE))
quality_app.command("endings")(command_of(QUALITY_ENDINGS))
