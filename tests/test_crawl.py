"""The crawler end to end against a real HTTP server on 127.0.0.1 serving a small fake story site.

The stories on the fake site are written here for the tests.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lotdata.errors import InputError
from lotdata.sources.crawl import crawl, load_crawl_recipe, read_log

STORY_UTF8 = "从前有一只小狐狸住在山脚下。它每天早上都去河边喝水，看见河里的小鱼游来游去。有一天，它想学游泳，结果掉进了水里，幸好一只老乌龟把它驮上了岸。"
STORY_GBK_WRONG = "村口有一棵老槐树，树下住着一窝蚂蚁。夏天来了，蚂蚁们忙着搬运粮食。一只蝉在树上唱歌，笑它们太辛苦。到了冬天，蝉饿得发抖，只好去敲蚂蚁家的门。"
STORY_GBK_NONE = "小熊想给妈妈做一个生日蛋糕。它找来面粉、鸡蛋和蜂蜜，在厨房里忙了一个下午。蛋糕烤焦了一半，可是妈妈吃得很开心，说这是她吃过最甜的蛋糕。"
STORY_FLAKY = "山里的小溪每天唱着歌往前流。一块大石头挡住了它的路，小溪没有生气，绕着石头慢慢地流过去，最后汇进了大河，看见了宽阔的大海。"
STORY_BIG5 = "從前有一個漁夫，每天划著小船去海上打魚。有一天，他撈起一個舊瓶子，瓶子裡跑出一個巨人，漁夫想了一個辦法，把巨人又騙回了瓶子裡。"

NAV = "<div class='nav'>首页 &gt; 童话故事</div>"
FOOT = "<div class='foot'>上一篇：龟兔赛跑 下一篇：小马过河</div>"
NAV_TRAD = "<div class='nav'>首頁 &gt; 童話故事</div>"
FOOT_TRAD = "<div class='foot'>上一篇：龜兔賽跑</div>"


def story_page(title: str, text: str, charset_meta: str | None = None, nav: str = NAV, foot: str = FOOT) -> str:
    meta = f"<meta charset='{charset_meta}'>" if charset_meta else ""
    paragraphs = "".join(f"<p>{s}。</p>" for s in text.rstrip("。").split("。"))
    return (
        f"<html><head>{meta}<title>{title} - 故事网</title></head><body>{nav}<h1 class='title'>{title}</h1>"
        f"<div class='content'>{paragraphs}</div>{foot}</body></html>"
    )


class FakeSite:
    """Routes of the fake site; every request is recorded (path, Host header, time)."""

    def __init__(self, timeout: float) -> None:
        self.requests: list[tuple[str, str, float]] = []
        self.lock = threading.Lock()
        self.flaky_calls = 0
        self.slow = timeout * 3
        self.delay = 0.0  # extra seconds on every story page (to make a crawl slow enough to kill)
        self.robots_redirect = False  # serve robots.txt through a redirect

    def index(self, page: int, port: int) -> str:
        links = {
            1: [
                "/stories/utf8.html",
                "/stories/gbk-wrong.html",
                "/private/secret.html",
                "/index2.html",
                f"http://localhost:{port}/stories/offhost.html",
                "/about.html",
            ],
            2: [
                "/stories/gbk-none.html",
                "/stories/big5.html",
                "/stories/missing.html",
                "/stories/flaky.html",
                "/stories/slow.html",
                "/loop/a",
                "/stories/big.html",
                "/index1.html#top",
                "/stories/utf8.html",
            ],
        }[page]
        return "<html><body>" + "".join(f"<a href='{u}'>{u}</a>" for u in links) + "</body></html>"


def serve(site: FakeSite):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet
            pass

        def send(self, status: int, body: bytes, content_type: str | None = "text/html; charset=utf-8", headers=()):
            self.send_response(status)
            if content_type:
                self.send_header("Content-Type", content_type)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):  # the crawler gave up on a slow page
                pass

        def do_GET(self):
            with site.lock:
                site.requests.append((self.path, self.headers.get("Host", ""), time.monotonic()))
            port = self.server.server_address[1]
            path = self.path
            if path.startswith("/stories/") and site.delay:
                time.sleep(site.delay)
            if path == "/robots.txt" and site.robots_redirect:
                return self.send(301, b"", None, [("Location", "/robots-real.txt")])
            if path in ("/robots.txt", "/robots-real.txt"):
                return self.send(200, b"User-agent: *\nDisallow: /private/\n", "text/plain")
            if path in ("/index1.html", "/index2.html"):
                return self.send(200, site.index(int(path[6]), port).encode())
            if path == "/stories/utf8.html":
                return self.send(200, story_page("小狐狸学游泳", STORY_UTF8).encode("utf-8"))
            if path == "/stories/gbk-wrong.html":  # GBK bytes, header says UTF-8
                return self.send(200, story_page("蚂蚁和蝉", STORY_GBK_WRONG).encode("gbk"), "text/html; charset=utf-8")
            if path == "/stories/gbk-none.html":  # GBK bytes, no charset anywhere
                return self.send(200, story_page("小熊做蛋糕", STORY_GBK_NONE).encode("gbk"), "text/html")
            if path == "/stories/big5.html":  # Big5 declared in a meta tag only
                return self.send(
                    200, story_page("漁夫和巨人", STORY_BIG5, "big5", NAV_TRAD, FOOT_TRAD).encode("big5"), "text/html"
                )
            if path == "/stories/flaky.html":
                with site.lock:
                    site.flaky_calls += 1
                    first = site.flaky_calls == 1
                if first:
                    return self.send(500, b"busy")
                return self.send(200, story_page("小溪", STORY_FLAKY).encode())
            if path == "/stories/slow.html":
                time.sleep(site.slow)
                return self.send(200, story_page("慢", STORY_UTF8).encode())
            if path == "/loop/a":
                return self.send(302, b"", None, [("Location", "/loop/b")])
            if path == "/loop/b":
                return self.send(302, b"", None, [("Location", "/loop/a")])
            if path == "/stories/big.html":
                return self.send(200, b"<html><body><p>" + "长".encode() * 400_000 + b"</p></body></html>")
            return self.send(404, b"not found")

    class QuietServer(ThreadingHTTPServer):
        def handle_error(self, request, client_address):  # a client that hung up is expected here
            pass

    server = QuietServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


RECIPE = """
[[sites]]
name = "fake"
start_urls = ["http://127.0.0.1:{port}/index1.html"]
follow = ['/index\\d+\\.html$', '/loop/', '/private/']
stories = ['/stories/']
title_selector = "h1.title"
content_selector = "div.content"
license = "CC BY 4.0 (test site)"
rate_limit = {rate}
timeout = {timeout}
max_pages = 50
retries = 2
backoff = 0.05
max_bytes = 200000
user_agent = "lotdata-test"
"""


@pytest.fixture()
def site():
    fake = FakeSite(timeout=0.4)
    server = serve(fake)
    yield fake, server.server_address[1]
    server.shutdown()
    server.server_close()


def write_recipe(tmp_path: Path, port: int, rate: float = 20.0, timeout: float = 0.4) -> Path:
    path = tmp_path / "site.toml"
    path.write_text(RECIPE.format(port=port, rate=rate, timeout=timeout), encoding="utf-8")
    return path


def test_crawl_fake_site_end_to_end(site, tmp_path: Path):
    fake, port = site
    recipe = write_recipe(tmp_path, port)
    out = tmp_path / "crawl"
    summary = crawl(recipe, out)

    paths = Counter(p for p, _, _ in fake.requests)
    # robots.txt fetched once and obeyed; the other host is never contacted
    assert paths["/robots.txt"] == 1
    assert not any(p.startswith("/private/") for p in paths)
    assert all(host == f"127.0.0.1:{port}" for _, host, _ in fake.requests)
    assert "/about.html" not in paths  # matches neither `follow` nor `stories`
    # 404 not retried, 500 retried once then fine, the slow page retried up to `retries`
    assert paths["/stories/missing.html"] == 1
    assert paths["/stories/flaky.html"] == 2
    assert paths["/stories/slow.html"] == 3
    # the redirect loop stops at once; every page fetched once
    assert paths["/loop/a"] == 1 and paths["/loop/b"] == 1
    assert paths["/stories/utf8.html"] == 1 and paths["/index1.html"] == 1
    # politeness: requests start 1/rate_limit apart (20/s -> 50 ms); arrival times jitter on a busy
    # machine, so the span of all requests is checked, and no two may arrive nearly together
    starts = sorted(t for _, _, t in fake.requests)
    assert starts[-1] - starts[0] >= 0.9 * 0.05 * (len(starts) - 1)
    assert min(b - a for a, b in zip(starts, starts[1:])) >= 0.02

    log = {e["url"].split(str(port))[1]: e for e in read_log(out)}
    assert log["/stories/missing.html"]["outcome"] == "http_error" and log["/stories/missing.html"]["status"] == 404
    assert log["/stories/slow.html"]["outcome"] == "timeout" and log["/stories/slow.html"]["attempts"] == 3
    assert log["/loop/a"]["outcome"] == "redirect_loop"
    assert log["/stories/big.html"]["outcome"] == "too_large"
    assert log["/stories/flaky.html"]["attempts"] == 2 and log["/stories/flaky.html"]["status"] == 200

    stories = {r["url"].split(str(port))[1]: r for r in pq.read_table(out / "stories.parquet").to_pylist()}
    assert set(stories) == {
        "/stories/utf8.html",
        "/stories/gbk-wrong.html",
        "/stories/gbk-none.html",
        "/stories/big5.html",
        "/stories/flaky.html",
    }
    assert stories["/stories/gbk-wrong.html"]["text"] == STORY_GBK_WRONG
    assert stories["/stories/gbk-none.html"]["text"] == STORY_GBK_NONE
    assert stories["/stories/big5.html"]["text"] == STORY_BIG5
    assert stories["/stories/utf8.html"]["title"] == "小狐狸学游泳"
    assert "上一篇" not in stories["/stories/utf8.html"]["text"]  # the selector kept the nav out
    for row in stories.values():  # provenance on every story row
        assert row["source"] == "fake" and row["license"] == "CC BY 4.0 (test site)"
        assert row["http_status"] == 200 and row["fetched_at"] and len(row["content_sha256"]) == 64
        assert row["extraction"].startswith("css:div.content;")
    assert stories["/stories/gbk-wrong.html"]["extraction"].endswith(";gb18030")
    assert stories["/stories/big5.html"]["extraction"].endswith(";big5hkscs")

    reasons = {
        r["path"].split(str(port))[1]: r["reason"] for r in pq.read_table(out / "quarantine.parquet").to_pylist()
    }
    assert reasons["/stories/missing.html"].startswith("http_error")
    assert reasons["/stories/slow.html"].startswith("timeout")
    assert reasons["/stories/big.html"].startswith("too_large")
    assert summary["stories"] == 5
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["splits"]["stories"]["rows"] == 5 and manifest["stats"]["fetched"] == 11

    # raw pages are kept compressed; extraction re-runs from them without the network
    entry = log["/stories/utf8.html"]
    raw = out / "raw" / entry["sha256"][:2] / f"{entry['sha256']}.gz"
    assert gzip.decompress(raw.read_bytes()).decode("utf-8").count("小狐狸") >= 1
    before = len(fake.requests)
    (out / "stories.parquet").unlink()
    again = crawl(recipe, out, extract_only=True)
    assert again["stories"] == 5 and len(fake.requests) == before
    # a plain re-run fetches nothing: everything is in the log
    rerun = crawl(recipe, out)
    assert rerun["fetched"] == 0 and len(fake.requests) == before

    # crawl -> clean: provenance survives cleaning; traditional text is made simplified on request
    from lotdata.clean.files import clean_files
    from lotdata.clean.step import CleanParams

    result = clean_files([out / "stories.parquet"], tmp_path / "clean", CleanParams(min_chars=20, t2s=True))
    kept = pq.read_table(result.files["stories"]).to_pylist()
    assert result.kept == len(kept) == 5
    for row in kept:
        assert row["status"] == "clean" and row["http_status"] == 200 and row["content_sha256"] and row["url"]
    assert any(row["text"].startswith("从前有一个渔夫") for row in kept)


def test_killed_crawl_resumes_without_refetching(site, tmp_path: Path):
    fake, port = site
    fake.delay = 0.15
    recipe = write_recipe(tmp_path, port, rate=10.0)
    out = tmp_path / "crawl"
    staged = tmp_path / ".crawl.lotdata-next" / "crawl"  # a run builds beside OUT; a killed one's pages wait there
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lotdata.cli", "crawl", "--recipe", str(recipe), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(read_log(staged)) < 5:
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    first = read_log(staged)
    assert 5 <= len(first) < 11, "the crawl should have been stopped midway"
    assert not out.exists()  # a killed run publishes nothing
    first_requests = len(fake.requests)
    from lotdata.command import run_command
    from lotdata.sources.commands import CRAWL, CrawlCommandParams

    summary = run_command(CRAWL, CrawlCommandParams(recipe=str(recipe), out=str(out)))  # as `lotdata crawl` again
    assert not staged.exists()
    fetched_before = {e["url"].split(str(port))[1] for e in first}
    later = Counter(p for p, _, _ in fake.requests[first_requests:])
    assert not fetched_before & set(later), "a page fetched before the kill was fetched again"
    assert later["/robots.txt"] == 0  # robots.txt is kept too
    urls = [e["url"] for e in read_log(out)]
    assert len(urls) == len(set(urls)) == 11
    assert summary["stories"] == 5


def test_page_budget_then_resume(site, tmp_path: Path):
    fake, port = site
    fake.robots_redirect = True
    recipe = write_recipe(tmp_path, port, rate=50.0)
    out = tmp_path / "crawl"
    crawl(recipe, out, max_pages=3)
    assert len(read_log(out)) == 3
    crawl(recipe, out)
    urls = [e["url"] for e in read_log(out)]
    assert len(urls) == len(set(urls)) == 11
    paths = Counter(p for p, _, _ in fake.requests)
    assert paths["/robots.txt"] == paths["/robots-real.txt"] == 1  # redirected robots.txt followed, then kept
    assert not any(p.startswith("/private/") for p in paths)


def test_recipe_errors_name_the_site(tmp_path: Path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[sites]]\nname = "x"\nstart_urls = ["http://127.0.0.1/"]\n', encoding="utf-8")
    with pytest.raises(InputError, match="site x: missing keys"):
        load_crawl_recipe(bad)
    bad.write_text(RECIPE.format(port=1, rate=1, timeout=1).replace("/stories/", "(["), encoding="utf-8")
    with pytest.raises(InputError, match="bad regex in 'stories'"):
        load_crawl_recipe(bad)
    bad.write_text("not toml [", encoding="utf-8")
    with pytest.raises(InputError, match="not valid TOML"):
        load_crawl_recipe(bad)


def test_shipped_lot_sources_recipe_is_valid():
    sites = load_crawl_recipe(Path(__file__).resolve().parents[1] / "pipelines" / "lot-sources.toml")
    assert len(sites) == 16
    assert all(s.license and s.rate_limit <= 1 and s.start_urls for s in sites)
    assert {s.name for s in sites} >= {"00txt", "517gj", "bestgushi", "49j"}


def test_sites_crawl_side_by_side_each_host_polite(site, tmp_path: Path):
    fake, port = site
    second = (
        RECIPE.format(port=port, rate=10.0, timeout=0.4)
        .replace('name = "fake"', 'name = "fake-b"')
        .replace(f"http://127.0.0.1:{port}/index1.html", f"http://localhost:{port}/index2.html")
    )
    recipe = tmp_path / "two.toml"
    recipe.write_text(RECIPE.format(port=port, rate=10.0, timeout=0.4) + second, encoding="utf-8")
    out = tmp_path / "crawl"
    summary = crawl(recipe, out, max_pages=6)
    log = read_log(out)
    assert Counter(e["site"] for e in log) == {"fake": 6, "fake-b": 6}
    by_host: dict[str, list[float]] = {}
    for _, host, started in fake.requests:
        by_host.setdefault(host.split(":")[0], []).append(started)
    a, b = sorted(by_host["127.0.0.1"]), sorted(by_host["localhost"])
    assert b[0] < a[-1] and a[0] < b[-1], ("the two sites should be crawled at the same time", a, b)
    for times in (a, b):  # 10 requests/s per host, arrival jitter allowed
        assert times[-1] - times[0] >= 0.9 * 0.1 * (len(times) - 1), times
    assert summary["stories_per_site"]["fake"] >= 1 and summary["stories_per_site"]["fake-b"] >= 1


def test_crawl_orders_or_drops_by_the_quality_model(site, tmp_path: Path):
    """`crawl --quality-model MODEL --quality drop|order` (issue 39): the same gate as clean's, applied when the
    stories table is written, so a budgeted crawl resumes as before and the log is never touched."""
    pytest.importorskip("sklearn")
    from lotdata.command import run_command
    from lotdata.io import sha256_file, story_id_for
    from lotdata.quality.model import train_quality
    from lotdata.sources.commands import CRAWL, CrawlCommandParams

    kept, rejected = (STORY_UTF8, STORY_GBK_NONE, STORY_FLAKY), (STORY_GBK_WRONG, STORY_BIG5)
    decisions = [
        {"story_id": story_id_for(f"{text}{i}"), "text": f"{text}{i}", "title": None, "status": status}
        for i in range(20)
        for texts, status in ((kept, "accepted"), (rejected, "rejected"))
        for text in texts
    ]
    model = tmp_path / "quality-model"
    train_quality(decisions).save(model)
    fake, port = site
    recipe = write_recipe(tmp_path, port, rate=50.0)
    out = tmp_path / "crawl"

    def run(**given) -> dict:
        return run_command(
            CRAWL, CrawlCommandParams(recipe=str(recipe), out=str(out), quality_model=str(model), **given)
        )

    run(max_pages=3, quality="drop")  # a page budget first, then the crawl resumes
    requests = len(fake.requests)
    summary = run(quality="drop")
    later = Counter(p for p, _, _ in fake.requests[requests:])
    assert later["/robots.txt"] == 0 and later["/index1.html"] == 0  # resumed: nothing fetched twice
    urls = [e["url"] for e in read_log(out)]
    assert len(urls) == len(set(urls)) == 11

    stories = pq.read_table(out / "stories.parquet").to_pylist()
    assert sorted(r["text"] for r in stories) == sorted(kept)
    dropped = [
        q
        for q in pq.read_table(out / "quarantine.parquet").to_pylist()
        if q["reason"].startswith("quality_below_threshold: score ")
    ]
    assert sorted(q["raw"] for q in dropped) == sorted(rejected)
    assert all("< threshold" in q["reason"] and q["path"].startswith("http://127.0.0.1") for q in dropped)
    manifest = json.loads((out / "manifest.json").read_text())
    quality = manifest["stats"]["quality"]
    assert quality["mode"] == "drop" and quality["dropped"] == 2 == summary["quality"]["dropped"]
    assert quality["model"] == str(model) and quality["model_sha256"] == sha256_file(model / "model.joblib")
    assert quality["threshold"] == json.loads((model / "manifest.json").read_text())["threshold"]
    assert manifest["params"]["quality"] == "drop" and manifest["splits"]["stories"]["rows"] == 3
    assert {i["path"] for i in manifest["inputs"]} >= {str(model / "model.joblib")}

    # order: every story kept, best score first; the quarantine holds no quality row any more
    run(quality="order", extract_only=True)
    ordered = [r["text"] for r in pq.read_table(out / "stories.parquet").to_pylist()]
    assert sorted(ordered[:3]) == sorted(kept) and sorted(ordered[3:]) == sorted(rejected)
    assert not any(q["reason"].startswith("quality") for q in pq.read_table(out / "quarantine.parquet").to_pylist())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["stats"]["quality"]["mode"] == "order" and manifest["stats"]["quality"]["dropped"] == 0
    assert manifest["stats"]["quality"]["below_threshold"] == 2


def test_crawl_with_a_wrong_quality_model_fails_before_fetching(site, tmp_path: Path):
    from lotdata.command import run_command
    from lotdata.errors import InputError
    from lotdata.sources.commands import CRAWL, CrawlCommandParams

    model = tmp_path / "ending-model"
    model.mkdir()
    (model / "manifest.json").write_text(json.dumps({"kind": "ending-model"}), encoding="utf-8")
    fake, port = site
    recipe = write_recipe(tmp_path, port, rate=50.0)
    params = CrawlCommandParams(recipe=str(recipe), out=str(tmp_path / "crawl"), quality_model=str(model))
    with pytest.raises(InputError, match="'ending-model' model, not a 'quality-model' one"):
        run_command(CRAWL, params)
    assert not fake.requests and not (tmp_path / "crawl" / "pages.jsonl").exists()
