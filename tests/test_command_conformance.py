"""Every command that writes passes the runner's guarantees (issue 33): `lotdata.testing`'s checks run over every
registered command record, as scikit-learn's `check_estimator` runs over every estimator."""

from __future__ import annotations

from pathlib import Path

import pytest

from lotdata.command import builtin_commands
from lotdata.testing import CHECKS

#: a command that talks to an outside service (annotate push, pull, qualify, raters add: Label Studio) runs these checks where
#: the service is started (tests/test_commands_annotate.py starts one); here, every other command
COMMANDS = [c for c in builtin_commands() if c.service is None]


def test_the_commands_are_found() -> None:
    names = {c.name for c in COMMANDS}
    assert {"index build", "read", "clean", "build senpos", "diff", "overlap", "audit-bias"} <= names, names


def test_the_service_commands_are_the_label_studio_ones() -> None:
    served = {c.name: c.service for c in builtin_commands() if c.service is not None}
    names = ("annotate push", "annotate pull", "annotate qualify", "annotate raters add")
    assert served == dict.fromkeys(names, "Label Studio"), served


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name.replace(" ", "-"))
def test_every_command_has_a_sample_and_a_summary(command) -> None:
    assert command.sample is not None, f"{command.name}: no sample for the conformance checks"
    assert command.summary.strip(), f"{command.name}: no summary (its --help line)"


@pytest.mark.parametrize("check", CHECKS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name.replace(" ", "-"))
def test_command_conformance(command, check, tmp_path: Path) -> None:
    check(command, tmp_path)
