"""Start and stop a local Label Studio server (its own virtual environment) for tests, benchmarks and users.

`python -m lotdata.annotate.server --data-dir D --port P` is what `make labelstudio` runs. The API key
comes from LABEL_STUDIO_API_KEY (or a key file written with mode 600); it is never printed.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from lotdata.errors import LotdataError

REPO = Path(__file__).resolve().parents[2]
DEFAULT_BIN = REPO / ".venv-labelstudio" / "bin" / "label-studio"
USERNAME = "lotdata@localhost"


def label_studio_bin() -> Path:
    path = Path(os.environ.get("LOTDATA_LABEL_STUDIO_BIN", DEFAULT_BIN))
    if not path.exists():
        raise LotdataError(
            f"Label Studio is not installed at {path}: run `make labelstudio-venv` (or set LOTDATA_LABEL_STUDIO_BIN)"
        )
    return path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    url: str
    api_key: str = field(repr=False)  # never shown
    data_dir: Path
    process: subprocess.Popen
    log: Path

    def stop(self) -> None:
        """Stop the server and every process it started (it runs in its own process group)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)


def _environment(data_dir: Path, api_key: str, password: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LABEL_STUDIO_")}
    env.update(
        LABEL_STUDIO_USERNAME=USERNAME,
        LABEL_STUDIO_PASSWORD=password,
        LABEL_STUDIO_USER_TOKEN=api_key,
        LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN="true",
        LABEL_STUDIO_DISABLE_SIGNUP_WITHOUT_LINK="true",
        LABEL_STUDIO_BASE_DATA_DIR=str(data_dir),
        LATEST_VERSION_CHECK="false",
        COLLECT_ANALYTICS="false",
        SENTRY_DSN="",
        FRONTEND_SENTRY_DSN="",
        XDG_CONFIG_HOME=str(data_dir / ".config"),
        HOME=str(data_dir / ".home"),
        DJANGO_DB="sqlite",
    )
    return env


def start(
    data_dir: str | Path,
    *,
    port: int | None = None,
    api_key: str | None = None,
    password: str | None = None,
    timeout: float = 180,
) -> Server:
    """Start Label Studio on 127.0.0.1 with `data_dir`; wait until /health answers.

    The preset key only takes effect on the first boot of a data dir (or a copy of one made with it).
    """
    data_dir = Path(data_dir).resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    api_key = api_key or secrets.token_hex(20)
    password = password or secrets.token_urlsafe(16)
    log = data_dir / "server.log"
    cmd = [
        str(label_studio_bin()),
        "start",
        "--no-browser",
        "--internal-host",
        "127.0.0.1",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
    ]
    with open(log, "ab") as sink:
        process = subprocess.Popen(
            cmd,
            env=_environment(data_dir, api_key, password),
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Server(url=f"http://127.0.0.1:{port}", api_key=api_key, data_dir=data_dir, process=process, log=log)
    try:
        wait_healthy(server, timeout)
    except BaseException:
        server.stop()
        raise
    return server


def wait_healthy(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise LotdataError(f"Label Studio exited with code {server.process.returncode}; see {server.log}")
        try:
            with urllib.request.urlopen(f"{server.url}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise LotdataError(f"Label Studio did not answer {server.url}/health within {timeout:.0f} s; see {server.log}")


def copy_data_dir(source: str | Path, target: str | Path) -> Path:
    """A copy of a migrated data dir (SQLite database, media and `.env`) boots in seconds instead of ~40."""
    target = Path(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("server.log"), dirs_exist_ok=True)
    return target


def _secret(path: Path, new: str) -> str:
    """A secret kept in a file readable by its owner only (created on first use)."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.write_text(new)
    return new


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> int:
    """`make labelstudio`: run until Ctrl-C, SIGTERM or SIGHUP, then stop Label Studio (its own process group) too."""
    # SIGINT too: a shell that starts a job in the background hands it SIGINT ignored, and Ctrl-C must still stop it
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _interrupt)
    parser = argparse.ArgumentParser(description="Run a local Label Studio for lotdata.")
    parser.add_argument("--data-dir", default="out/labelstudio")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args(argv)
    data_dir = Path(args.data_dir).resolve()
    key_file, password_file = data_dir / "api_key", data_dir / "password"
    api_key = os.environ.get("LABEL_STUDIO_API_KEY") or _secret(key_file, secrets.token_hex(20))
    password = os.environ.get("LABEL_STUDIO_PASSWORD") or _secret(password_file, secrets.token_urlsafe(12))
    try:
        server = start(data_dir, port=args.port, api_key=api_key, password=password)
    except KeyboardInterrupt:  # stopped while starting: start() has stopped the server already
        return 0
    try:  # from here on a signal, however early, stops the server too
        print(f"Label Studio is up at {server.url} (log {server.log})")
        print(
            f"log in as {USERNAME}, password in {password_file} (or your LABEL_STUDIO_PASSWORD); both are set at the first start only"
        )
        print(f"export LABEL_STUDIO_URL={server.url}")
        print(
            f'export LABEL_STUDIO_API_KEY="$(cat {key_file})"'
            if key_file.exists()
            else "LABEL_STUDIO_API_KEY: the one in your environment"
        )
        print("Ctrl-C (or SIGTERM) stops it.", flush=True)
        server.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        print("Label Studio stopped.", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
