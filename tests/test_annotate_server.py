"""`make labelstudio`'s wrapper (`python -m lotdata.annotate.server`): SIGTERM or Ctrl-C on it stops Label Studio too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from labelstudio_support import _migrated_data_dir

from lotdata.annotate import server as ls_server

REPO = Path(__file__).resolve().parents[1]


def processes_using(path: Path) -> list[int]:
    """Processes whose command line names `path` (Label Studio is started with --data-dir path)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if str(path).encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_stopping_the_wrapper_stops_label_studio(tmp_path, signum):
    template, key = _migrated_data_dir()
    data_dir = ls_server.copy_data_dir(template, tmp_path / "data")
    port = ls_server.free_port()
    env = {**os.environ, "LABEL_STUDIO_API_KEY": key, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "lotdata.annotate.server", "--data-dir", str(data_dir), "--port", str(port)]
    # started with SIGINT ignored, as a non-interactive shell starts a background job (CI does): it must still stop
    wrapper = subprocess.Popen(
        cmd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        lines = []
        for line in wrapper.stdout:
            lines.append(line)
            if line.startswith("Ctrl-C"):
                break
        output = "".join(lines)
        assert f"Label Studio is up at http://127.0.0.1:{port}" in output, output
        assert key not in output  # the key is named by its file or variable, never printed
        assert answers(f"http://127.0.0.1:{port}") and processes_using(data_dir)
        wrapper.send_signal(signum)
        assert wrapper.wait(60) == 0  # the server gets 10 s to stop, then SIGKILL; a loaded CI machine is slow
        assert "Label Studio stopped." in wrapper.stdout.read()
        deadline = time.monotonic() + 10
        while processes_using(data_dir) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not processes_using(data_dir) and not answers(f"http://127.0.0.1:{port}")
    finally:
        if wrapper.poll() is None:
            wrapper.kill()
        for pid in processes_using(data_dir):  # only what this test started (its own data dir)
            os.kill(pid, signal.SIGKILL)
