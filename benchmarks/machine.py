"""How busy the machine was when a benchmark started, for the header of its table."""

from __future__ import annotations

import os


def load_note() -> str:
    one_minute = os.getloadavg()[0]
    return (
        f"Load average when the run started: {one_minute:.1f} on {os.cpu_count()} cores "
        "(above about 1, other jobs shared the cores and every timing is an upper bound)."
    )
