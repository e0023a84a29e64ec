"""Resources (issue 23, class 7): a crawl's `timeout` bounds a whole page, so a server trickling a byte at a time
cannot stall a worker for ever (a real HTTP server on 127.0.0.1)."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from lotdata.sources.crawl import Fetcher, HostClock, SiteRecipe


class _Trickle(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "200")
        self.end_headers()
        try:
            for _ in range(200):  # one byte every 0.1 s: each read is quick, the page takes 20 s
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args) -> None:
        pass


@pytest.fixture()
def trickle_url():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/story.html"
    server.shutdown()
    server.server_close()


def test_a_page_trickling_bytes_times_out_as_a_whole(tmp_path, trickle_url):
    site = SiteRecipe(
        name="t",
        start_urls=[trickle_url],
        follow=[],
        stories=[".*"],
        license="x",
        rate_limit=100,
        timeout=0.5,
        max_pages=1,
    )
    fetcher = Fetcher(site, tmp_path, HostClock())
    try:
        started = time.monotonic()
        result = fetcher._get_once(trickle_url, 10_000)
        took = time.monotonic() - started
    finally:
        fetcher.close()
    assert result.outcome == "timeout" and "whole page" in result.error
    assert took < 2.0  # bounded by the page timeout (plus one read), not 20 s of trickle
