"""Issue 16, one test (or a few) per class: no exit 0 on wrong or partial input, a right diagnosis,
parameters checked before work, exit codes as the README lists them, bounded resources, an output lock,
robots.txt per RFC 9309, and recipes that run the whole pipeline (issue 18).

Every server here is a real HTTP server on 127.0.0.1; every story is written for these tests.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from helpers import write_stories

from lotdata.errors import InputError, LotdataError
from lotdata.exec import Shard
from lotdata.io import lock_path_for, output_lock, write_parquet
from lotdata.overlap import corpus

REPO = Path(__file__).resolve().parents[1]

STORIES = [
    "从前有一只小狐狸住在山脚下。它每天早上都去河边喝水，看见河里的小鱼游来游去。有一天，它想学游泳，结果掉进了水里，幸好一只老乌龟把它驮上了岸。从那以后，小狐狸每天都跟着老乌龟练习，到了夏天，它终于能在河里游一个来回了。",
    "村口有一棵老槐树，树下住着一窝蚂蚁。夏天来了，蚂蚁们忙着搬运粮食。一只蝉在树上唱歌，笑它们太辛苦。到了冬天，蝉饿得发抖，只好去敲蚂蚁家的门。蚂蚁们没有记仇，分给它一些粮食，还请它春天以后一起干活。",
    "小熊想给妈妈做一个生日蛋糕。它找来面粉、鸡蛋和蜂蜜，在厨房里忙了一个下午。蛋糕烤焦了一半，可是妈妈吃得很开心，说这是她吃过最甜的蛋糕。小熊红着脸说，明年它一定做一个更好的。妈妈摸摸它的头，笑着点了点头。",
    "山里的小溪每天唱着歌往前流。一块大石头挡住了它的路，小溪没有生气，绕着石头慢慢地流过去。它流过草地，流过村庄，最后汇进了大河。大河带着它一直向东，终于有一天，小溪看见了宽阔的大海，高兴地笑了起来。",
    "老渔夫每天清晨都划着小船去湖中央撒网。有一天，他捞上来一只会说话的金色鲤鱼，鲤鱼请求他放自己回家。渔夫心软了，把它放回了湖里。第二天，湖面上漂来一只装满鱼的小木桶，渔夫知道，这是鲤鱼送给他的谢礼。",
    "森林里的小兔子想学会游泳。它请教了青蛙，青蛙说要多蹬腿；它又请教了鸭子，鸭子说不要害怕。小兔子每天都去小河边练习，摔了很多次跤，喝了很多口水。一个月以后，它终于在小河里游了一个来回，朋友们都为它鼓掌。",
]


def lotdata(
    *args, cwd: Path | None = None, env: dict | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lotdata.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "300", **(env or {})},
    )


def said(result: subprocess.CompletedProcess) -> str:
    return " ".join(result.stderr.split())


def story_html(title: str, text: str) -> bytes:
    paragraphs = "".join(f"<p>{s}。</p>" for s in text.rstrip("。").split("。"))
    return (
        f"<html><head><meta charset='utf-8'><title>{title}</title></head><body><h1>{title}</h1>"
        f"<div class='content'>{paragraphs}</div></body></html>"
    ).encode()


def links(*urls: str) -> bytes:
    return ("<html><body>" + "".join(f"<a href='{u}'>{u}</a>" for u in urls) + "</body></html>").encode()


class Site:
    """A tiny web server: routes by (host or '*', path) -> (status, headers, body) or a callable."""

    def __init__(self, port: int = 0) -> None:
        self.routes: dict[tuple[str, str], object] = {}
        self.requests: list[tuple[str, str, float]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                parts = urlsplit(self.path)  # absolute in proxy mode: http://host/path
                host = (parts.hostname or self.headers.get("Host", "").split(":")[0]).lower()
                path = parts.path if parts.scheme else self.path.split("?")[0]
                site.requests.append((host, path, time.monotonic()))
                route = site.routes.get((host, path), site.routes.get(("*", path)))
                if callable(route):
                    route = route()
                status, headers, body = route or (404, {}, b"not here")
                self.send_response(status)
                for key, value in {"Content-Type": "text/html; charset=utf-8", **headers}.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def page(self, path: str, body: bytes, status: int = 200, host: str = "*", **headers: str) -> None:
        """headers as keyword arguments: content_type="text/plain" is Content-Type."""
        named = {key.replace("_", "-").title(): value for key, value in headers.items()}
        self.routes[(host, path)] = (status, named, body)

    def fetched(self, host: str = "127.0.0.1") -> list[str]:
        return [p for h, p, _ in self.requests if h == host]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site():
    server = Site()
    yield server
    server.close()


def crawl_recipe(
    path: Path, start: str, *, follow: str = r"/list\.html$", stories: str = r"/s/\d+\.html$", extra: str = ""
) -> Path:
    path.write_text(
        f"[[sites]]\nname = \"fake\"\nstart_urls = [\"{start}\"]\nfollow = ['{follow}']\nstories = ['{stories}']\n"
        f'license = "test"\nrate_limit = 50\ntimeout = 5\nmax_pages = 50\nretries = 2\nbackoff = 0.05\n{extra}',
        encoding="utf-8",
    )
    return path


# ------------------------------------------------------------------ 1. no exit 0 on wrong or partial input


def _reference_and_test(tmp_path: Path) -> tuple[Path, bytes]:
    test = write_stories(tmp_path / "test.parquet", STORIES[:2])
    return test, "\n".join(STORIES).encode("utf-8") + b"\n"


def test_a_truncated_zst_reference_is_an_error_naming_the_file(tmp_path: Path):
    zstandard = pytest.importorskip("zstandard")
    test, text = _reference_and_test(tmp_path)
    whole = zstandard.ZstdCompressor().compress(text * 200)
    (tmp_path / "ok.zst").write_bytes(whole)
    (tmp_path / "cut.zst").write_bytes(whole[: len(whole) // 2])
    ok = lotdata("overlap", test, "--reference", tmp_path / "ok.zst", "--out", tmp_path / "o1", "--workers", "1")
    assert ok.returncode == 0, ok.stderr
    cut = lotdata("overlap", test, "--reference", tmp_path / "cut.zst", "--out", tmp_path / "o2", "--workers", "1")
    assert cut.returncode == 3 and "cut.zst" in said(cut) and "truncated" in said(cut), cut.stderr
    assert not (tmp_path / "o2" / "summary.json").exists()


def test_references_without_a_document_are_an_error(tmp_path: Path):
    test, _ = _reference_and_test(tmp_path)
    (tmp_path / "blank.txt").write_text("\n\n  \n", encoding="utf-8")
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    result = lotdata(
        "overlap",
        test,
        "--reference",
        tmp_path / "blank.txt",
        tmp_path / "empty.jsonl",
        "--out",
        tmp_path / "o",
        "--workers",
        "1",
    )
    assert result.returncode == 3 and "no document" in said(result), result.stderr


def _cmrc(tmp_path: Path) -> Path:
    """A raw CFT-style file written here: `N ||| words` lines, an XXXXX blank, a query line with its answer."""
    lines = []
    for doc, text in enumerate(STORIES[2:5], 1):
        sentences = [s + "。" for s in text.rstrip("。").split("。")]
        first, *rest = sentences
        blank_word = first[:2]
        lines.append(f"1 ||| XXXXX {' '.join(first[2:])}")
        lines += [f"{i} ||| {' '.join(s)}" for i, s in enumerate(rest, 2)]
        lines.append(f"{len(sentences) + 1} ||| 问题 XXXXX ||| {blank_word}")
        lines.append("")
    path = tmp_path / "cft.test.doc_query"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_raw_cmrc_files_are_read_as_the_cmrc_reader_reads_them(tmp_path: Path):
    raw = _cmrc(tmp_path)
    test = write_stories(tmp_path / "test.parquet", [STORIES[3][:60]])
    read = lotdata("read", raw, "--format", "cmrc", "--out", tmp_path / "cmrc.parquet")
    assert read.returncode == 0, read.stderr
    via_read = lotdata(
        "overlap", test, "--reference", tmp_path / "cmrc.parquet", "--out", tmp_path / "a", "--workers", "1"
    )
    direct = lotdata("overlap", test, "--reference", raw, "--out", tmp_path / "b", "--workers", "1")
    assert via_read.returncode == 0 and direct.returncode == 0, direct.stderr
    a, b = (json.loads((tmp_path / d / "summary.json").read_text())["splits"] for d in "ab")
    assert a == b and a[0]["examples"] == 1 and a[0]["percent"] > 0.9  # the blank filled, the word spaces gone
    raw.with_suffix(".answer").write_text("<qid_1> ||| 小熊\n", encoding="utf-8")
    answer = lotdata(
        "overlap", test, "--reference", raw.with_suffix(".answer"), "--out", tmp_path / "c", "--workers", "1"
    )
    assert answer.returncode == 3 and "answer file" in said(answer)


def test_empty_or_file_start_urls_and_extract_only_without_pages(tmp_path: Path):
    for start, words in (("", "start_urls is empty"), ("file:///etc/hostname", "not an http(s) URL")):
        recipe = tmp_path / "r.toml"
        recipe.write_text(
            f'[[sites]]\nname = "a"\nstart_urls = [{json.dumps(start) if start else ""}]\nfollow = ["x"]\n'
            f'stories = ["y"]\nlicense = "l"\nrate_limit = 1\ntimeout = 1\nmax_pages = 1\n',
            encoding="utf-8",
        )
        result = lotdata("crawl", "--recipe", recipe, "--out", tmp_path / "c")
        assert result.returncode == 3 and words in said(result) and "r.toml" in said(result), result.stderr
    crawl_recipe(tmp_path / "ok.toml", "http://127.0.0.1:9/list.html")
    (tmp_path / "empty").mkdir()
    result = lotdata("crawl", "--recipe", tmp_path / "ok.toml", "--out", tmp_path / "empty", "--extract-only")
    assert result.returncode == 1 and "pages.jsonl" in said(result), result.stderr
    assert not (tmp_path / "empty" / "stories.parquet").exists()


def test_a_text_column_holding_numbers_is_refused(tmp_path: Path):
    good = write_stories(tmp_path / "s.parquet", STORIES)
    table = pq.read_table(good)
    numbers = table.set_column(table.schema.get_field_index("text"), "text", pa.array(range(len(STORIES)), pa.int64()))
    pq.write_table(numbers, tmp_path / "numbers.parquet")
    result = lotdata("build", "senpos", "--stories", tmp_path / "numbers.parquet", "--out", tmp_path / "d")
    assert result.returncode == 3 and "numbers.parquet" in said(result) and "text (int64)" in said(result), (
        result.stderr
    )


# ------------------------------------------------------------------ 2. the right diagnosis


def test_an_unreachable_host_is_told_not_cached_and_fetched_after_the_outage(tmp_path: Path):
    probe = Site()
    port = probe.port
    probe.close()  # nothing listens on this port now: the host is unreachable
    recipe = crawl_recipe(tmp_path / "r.toml", f"http://127.0.0.1:{port}/list.html")
    out = tmp_path / "crawl"
    down = lotdata("crawl", "--recipe", recipe, "--out", out)
    assert down.returncode == 3, down.stderr
    assert "robots.txt could not be fetched" in said(down) and f"127.0.0.1:{port}" in said(down)
    assert not (out / "robots").exists() or not list((out / "robots").iterdir())  # the outage is not kept
    site = Site(port)  # the same host and port again, now serving the site
    try:
        site.page("/robots.txt", b"User-agent: *\nAllow: /\n", content_type="text/plain")
        site.page("/list.html", links("/s/1.html"))
        site.page("/s/1.html", story_html("小狐狸", STORIES[0]))
        again = lotdata("crawl", "--recipe", recipe, "--out", out)
        assert again.returncode == 0, again.stderr
        assert "/s/1.html" in site.fetched() and pq.read_table(out / "stories.parquet").num_rows == 1
    finally:
        site.close()


def test_a_bad_utf8_byte_deep_in_a_long_line_is_reported_at_its_offset(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(corpus, "LINE_PIECE_BYTES", 4096)  # a 40 kB line stands for a 20 MB one
    line = ("从前有座山，山里有座庙。" * 1200).encode("utf-8")
    bad_at = 30_000  # a character boundary: the bad byte itself starts the malformed sequence
    data = b"first line\n" + line[:bad_at] + b"\xff" + line[bad_at:] + b"\n"
    path = tmp_path / "ref.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        list(corpus.iter_documents(Shard(str(path), 0, None, len(data))))
    assert f"byte {len(b'first line') + 1 + bad_at:,}" in str(caught.value) and "ref.txt" in str(caught.value)


def test_write_filtered_is_checked_before_the_scan(tmp_path: Path):
    test, text = _reference_and_test(tmp_path)
    (tmp_path / "ref.txt").write_bytes(text)
    (tmp_path / "a_file").write_text("x", encoding="utf-8")
    result = lotdata(
        "overlap",
        test,
        "--reference",
        tmp_path / "ref.txt",
        "--out",
        tmp_path / "o",
        "--write-filtered",
        tmp_path / "a_file",
        "--workers",
        "1",
    )
    assert result.returncode == 1 and "a_file" in said(result) and "--write-filtered names a folder" in said(result), (
        result.stderr
    )
    assert not (tmp_path / "o" / "scan").exists()  # nothing was scanned


def test_429_with_retry_after_is_waited_for_and_retried(tmp_path: Path, site: Site):
    calls = []

    def limited():
        calls.append(time.monotonic())
        if len(calls) == 1:
            return 429, {"Retry-After": "1"}, b"slow down"
        return 200, {}, story_html("小熊", STORIES[2])

    site.page("/robots.txt", b"User-agent: *\nAllow: /\n")
    site.page("/list.html", links("/s/1.html"))
    site.routes[("*", "/s/1.html")] = limited
    result = lotdata(
        "crawl", "--recipe", crawl_recipe(tmp_path / "r.toml", f"{site.base}/list.html"), "--out", tmp_path / "c"
    )
    assert result.returncode == 0, result.stderr
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.95
    log = [json.loads(line) for line in (tmp_path / "c" / "pages.jsonl").read_text().splitlines()]
    assert any(e["url"].endswith("/s/1.html") and e["outcome"] == "ok" and e["attempts"] == 2 for e in log)


# ------------------------------------------------------------------ 3. every parameter checked before work


@pytest.mark.parametrize(
    "recipe_text, words",
    [
        ('[read]\ninputs = "lotdata:sample"\n', "'inputs' must be a list of strings"),
        (
            '[read]\ninputs = ["lotdata:sample"]\n[[build]]\ntask = "senpos"\nseed = "abc"\n',
            "'seed' must be an integer",
        ),
        ('[read]\ninputs = ["lotdata:sample"]\nlangg = "zh"\n', "unknown key(s) ['langg']"),
        ('[read]\ninputs = ["lotdata:sample"]\n[[build]]\ntask = "senpos"\nn = -3\n', "'n' must be an integer > 0"),
        ('[read]\ninputs = ["lotdata:sample"]\n[clean]\nnear_dup = 2\n', "'near_dup' must be a number in (0, 1]"),
    ],
)
def test_recipe_keys_are_checked_before_any_step(tmp_path: Path, recipe_text: str, words: str):
    recipe = tmp_path / "bad.toml"
    recipe.write_text(recipe_text, encoding="utf-8")
    result = lotdata("run", recipe, "--out", tmp_path / "out")
    assert result.returncode == 3 and "bad.toml" in said(result) and words in said(result), result.stderr
    assert not (tmp_path / "out" / "stories.parquet").exists()  # the read step never ran


def test_crawl_keys_name_the_file_site_and_key(tmp_path: Path):
    recipe = crawl_recipe(tmp_path / "r.toml", "http://127.0.0.1:9/list.html").read_text()
    (tmp_path / "bad.toml").write_text(recipe.replace("rate_limit = 50", 'rate_limit = "fast"'), encoding="utf-8")
    result = lotdata("crawl", "--recipe", tmp_path / "bad.toml", "--out", tmp_path / "c")
    assert result.returncode == 3 and "bad.toml, site fake: 'rate_limit' must be a number" in said(result), (
        result.stderr
    )


def test_command_line_parameters_are_checked_before_work(tmp_path: Path):
    test, text = _reference_and_test(tmp_path)
    (tmp_path / "ref.txt").write_bytes(text)
    result = lotdata("overlap", test, "--reference", tmp_path / "ref.txt", "--out", tmp_path / "o", "--threshold", "2")
    assert result.returncode == 1 and "--threshold" in said(result) and not (tmp_path / "o").exists(), result.stderr
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages" / "a.html").write_bytes(story_html("小熊", STORIES[2]))
    result = lotdata("extract", tmp_path / "pages", "--out", tmp_path / "e.parquet", "--max-bytes", "-1")
    assert result.returncode == 1 and "--max-bytes" in said(result), result.stderr


# ------------------------------------------------------------------ 4. exit codes as the README lists them


def test_missing_paths_exit_1_not_found_and_binary_stopwords_exit_3(tmp_path: Path):
    stories = write_stories(tmp_path / "s.parquet", STORIES)
    (
        tmp_path / "data"
    ).mkdir()  # a folder beside the run's --out, not containing it (an output never lies inside an input)
    (tmp_path / "r.toml").write_text('[read]\ninputs = ["no/such.jsonl"]\n', encoding="utf-8")
    cases = [
        ("run", tmp_path / "r.toml", "--out", tmp_path / "o"),
        (
            "baseline",
            "train",
            "--config",
            tmp_path / "nope.toml",
            "--data",
            tmp_path / "data",
            "--out",
            tmp_path / "run",
        ),
        ("baseline", "table", tmp_path / "no-run"),
        ("annotate", "push", "story_filter", "--input", tmp_path / "nope.parquet", "--project", "p"),
    ]
    for args in cases:
        result = lotdata(*args, env={"LABEL_STUDIO_URL": "http://127.0.0.1:9", "LABEL_STUDIO_API_KEY": "x"})
        assert result.returncode == 1 and "not found" in said(result), (args, result.stderr)
    (tmp_path / "stop.txt").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(range(256)))
    result = lotdata(
        "build", "outgen", "--stories", stories, "--out", tmp_path / "og", "--stopwords", tmp_path / "stop.txt"
    )
    assert result.returncode == 3 and "stop.txt" in said(result), result.stderr


# ------------------------------------------------------------------ 5. resources


def test_a_long_line_is_scanned_in_pieces_with_the_same_ngrams(tmp_path: Path, monkeypatch):
    from lotdata.overlap import TokenSpec, load_test_set, measure_overlap

    test = write_stories(tmp_path / "test.parquet", [s[:70] for s in STORIES])
    one_line = "".join(STORIES * 3)  # every test story inside one long line
    (tmp_path / "ref.txt").write_text("开头。" + one_line + "\n", encoding="utf-8")
    (tmp_path / "ref.jsonl").write_text(json.dumps({"text": one_line}, ensure_ascii=False) + "\n", encoding="utf-8")
    testset = load_test_set(test)
    whole = {
        ref: measure_overlap(testset, [str(tmp_path / ref)], tmp_path / f"w-{ref}", spec=TokenSpec(n=8))
        for ref in ("ref.txt", "ref.jsonl")
    }
    # the scan runs in this process with executor "local" and 1 worker? pieces must be set where the scan runs:
    monkeypatch.setattr(corpus, "LINE_PIECE_BYTES", 97)
    monkeypatch.setattr(corpus, "TEXT_PIECE_CHARS", 41)
    pieces = list(corpus.text_pieces(one_line, 41))
    assert "".join(pieces) == one_line and len(pieces) > 10 and max(map(len, pieces)) <= 41
    from lotdata.overlap.measure import ScanShard, index_test_set

    index, _ = index_test_set(testset, TokenSpec(n=8))
    import pickle

    (tmp_path / "index.pkl").write_bytes(pickle.dumps(index))
    for ref in ("ref.txt", "ref.jsonl"):
        size = (tmp_path / ref).stat().st_size
        stats = ScanShard(str(tmp_path / "index.pkl"))(
            Shard(str(tmp_path / ref), 0, None, size), tmp_path / f"{ref}.part"
        )
        found = set(pq.read_table(tmp_path / f"{ref}.part").column("ngram").to_pylist())
        assert stats["docs"] == 1
        assert len(found) == whole[ref].scan["distinct_test_ngrams_found"] > 0


def test_a_full_disk_names_the_file(tmp_path: Path, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq, "write_table", full)
    with pytest.raises(LotdataError) as caught:
        write_parquet(pa.table({"a": [1]}), tmp_path / "x.parquet")
    assert str(tmp_path / "x.parquet") in str(caught.value) and "no space left" in str(caught.value)
    assert not list(tmp_path.iterdir())  # no temporary file left behind


# ------------------------------------------------------------------ 6. one run at a time per output


def test_a_second_run_into_the_same_out_exits_1_naming_the_lock(tmp_path: Path):
    out = tmp_path / "stories.parquet"
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        lock = lock_path_for(out)
        lock.write_text(json.dumps({"pid": holder.pid, "host": os.uname().nodename}), encoding="utf-8")
        busy = lotdata("read", "lotdata:sample", "--out", out)
        assert busy.returncode == 1 and str(lock) in said(busy) and not out.exists(), busy.stderr
    finally:
        holder.kill()
        holder.wait()
    stale = lotdata("read", "lotdata:sample", "--out", out)  # its process is gone: the lock is stale
    assert stale.returncode == 0, stale.stderr
    assert out.exists() and not lock_path_for(out).exists()


def test_clean_and_audit_bias_also_refuse_an_output_another_run_holds(tmp_path: Path):
    stories = tmp_path / "s.parquet"
    assert lotdata("read", "lotdata:sample", "--out", stories).returncode == 0
    assert lotdata("build", "senpos", "--stories", stories, "--out", tmp_path / "senpos").returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for out, command in (
            (tmp_path / "clean", ("clean", stories)),
            (tmp_path / "report", ("audit-bias", tmp_path / "senpos", "--baseline", "random")),
        ):
            lock = lock_path_for(out)
            lock.write_text(json.dumps({"pid": holder.pid, "host": os.uname().nodename}), encoding="utf-8")
            busy = lotdata(*command, "--out", out)
            assert busy.returncode == 1 and str(lock) in said(busy) and not out.exists(), busy.stderr
    finally:
        holder.kill()
        holder.wait()


def test_the_lock_is_reentrant_in_one_process_and_released(tmp_path: Path):
    with output_lock(tmp_path / "o") as lock:
        with output_lock(tmp_path / "o"):
            assert lock.exists()
        assert lock.exists()
    assert not lock.exists()


# ------------------------------------------------------------------ 7. robots.txt as sites write it (RFC 9309)


def test_robots_wildcards_and_longest_match(tmp_path: Path, site: Site):
    site.page(
        "/robots.txt",
        b"User-agent: *\nDisallow: /private*/\nDisallow: /*.pdf$\nAllow: /private2/open.html\nDisallow: /s/3\n",
        content_type="text/plain",
    )
    site.page(
        "/list.html",
        links("/private1/a.html", "/private2/open.html", "/a/b.pdf", "/a/b.pdf.html", "/s/1.html", "/s/3.html"),
    )
    for path, story in (
        ("/private1/a.html", 0),
        ("/private2/open.html", 1),
        ("/a/b.pdf", 2),
        ("/a/b.pdf.html", 3),
        ("/s/1.html", 4),
        ("/s/3.html", 5),
    ):
        site.page(path, story_html(f"故事{story}", STORIES[story]))
    recipe = crawl_recipe(tmp_path / "r.toml", f"{site.base}/list.html", stories=r"(\.html|\.pdf)$")
    result = lotdata("crawl", "--recipe", recipe, "--out", tmp_path / "c")
    assert result.returncode == 0, result.stderr
    fetched = set(site.fetched())
    assert "/private1/a.html" not in fetched  # Disallow: /private*/
    assert "/a/b.pdf" not in fetched  # Disallow: /*.pdf$
    assert "/s/3.html" not in fetched  # a plain prefix rule
    assert {"/private2/open.html", "/a/b.pdf.html", "/s/1.html"} <= fetched  # longest match wins; $ anchors


# ------------------------------------------------------------------ issue 18: recipes run the whole pipeline


def test_a_recipe_runs_crawl_clean_build_and_audit(tmp_path: Path, site: Site):
    site.page("/robots.txt", b"User-agent: *\nAllow: /\n")
    site.page("/list.html", links(*(f"/s/{i}.html" for i in range(len(STORIES)))))
    for i, text in enumerate(STORIES):
        site.page(f"/s/{i}.html", story_html(f"故事{i}", text))
    recipe = crawl_recipe(
        tmp_path / "all.toml",
        f"{site.base}/list.html",
        extra=(
            '\n[crawl]\nout = "crawl"\n\n[clean]\nmin_chars = 20\n\n[[build]]\ntask = "senpos"\nseed = 1\n'
            'split = "train=0.5,val=0.25,test=0.25"\nparams = { min_chars = 5, max_words = 500, min_candidates = 2 }\n\n'
            '[[audit]]\ninput = "senpos"\nbaselines = ["random", "constant_first"]\nruns = 2\nworkers = 1\n'
        ),
    )
    result = lotdata("run", recipe, "--out", tmp_path / "out", timeout=300)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    assert pq.read_table(out / "crawl" / "stories.parquet").num_rows == len(STORIES)
    assert pq.read_table(out / "clean" / "stories.parquet").num_rows == len(STORIES)
    manifest = json.loads((out / "senpos" / "manifest.json").read_text())
    assert manifest["inputs"][0]["path"].endswith("clean/stories.parquet")
    assert {r["id"].split("/")[0] for r in json.loads((out / "audit-senpos" / "results.json").read_text())} >= {
        "random",
        "constant_first",
    }
    again = lotdata("run", recipe, "--out", out, timeout=300)
    assert again.returncode == 0 and again.stderr.count("skipped (done)") == 3, again.stderr  # clean, build, audit
    assert not lock_path_for(out).exists()


def test_annotate_steps_need_the_server_in_the_environment_before_any_step(tmp_path: Path):
    (tmp_path / "r.toml").write_text(
        '[read]\ninputs = ["lotdata:sample"]\n[[annotate]]\njob = "story_filter"\nproject = "p"\n', encoding="utf-8"
    )
    env = {"LABEL_STUDIO_URL": "", "LABEL_STUDIO_API_KEY": ""}
    result = lotdata("run", tmp_path / "r.toml", "--out", tmp_path / "o", env=env)
    assert result.returncode == 1 and "LABEL_STUDIO_URL" in said(result), result.stderr
    assert not (tmp_path / "o" / "stories.parquet").exists()


def test_the_shipped_lot_sources_recipe_runs(tmp_path: Path, site: Site):
    """`lotdata run lot-sources` with its sites and URL patterns as shipped; the local server answers as every
    http site through a proxy (nothing leaves 127.0.0.1; https sites cannot be reached and are reported)."""
    shipped = (REPO / "pipelines" / "lot-sources.toml").read_text(encoding="utf-8")
    fast = (
        shipped.replace("rate_limit = 0.5 ", "rate_limit = 50 ")
        .replace("retries = 3", "retries = 0")
        .replace("timeout = 20", "timeout = 5")
    )
    assert fast.count("rate_limit = 50") == 1 and "retries = 0" in fast
    (tmp_path / "lot-sources.toml").write_text(fast, encoding="utf-8")
    host = "www.00txt.com"
    site.page("/robots.txt", b"User-agent: *\nDisallow: /private/\n", host=host)
    site.page("/", links("/tonghua/", "/private/"), host=host)
    site.page("/tonghua/", links(*(f"/tonghua/{i}.html" for i in range(1, 4))), host=host)
    for i in range(1, 4):
        site.page(f"/tonghua/{i}.html", story_html(f"童话{i}", STORIES[i]), host=host)
    proxy = {
        name: site.base for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy")
    }
    result = lotdata(
        "run",
        tmp_path / "lot-sources.toml",
        "--out",
        tmp_path / "out",
        env={**proxy, "NO_PROXY": "", "no_proxy": ""},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    stories = pq.read_table(tmp_path / "out" / "crawl" / "stories.parquet").to_pylist()
    assert sorted(r["url"] for r in stories if r["source"] == "00txt") == [
        f"http://{host}/tonghua/{i}.html" for i in range(1, 4)
    ]
    assert "/private/" not in site.fetched(host)
    assert "www.517gj.com: robots.txt could not be fetched" in said(result)  # https: unreachable here, and told
