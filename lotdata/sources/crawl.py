"""A polite, resumable crawler of story sites, driven by a TOML recipe (format: pipelines/README.md).

What a site owner and a user can rely on:

- robots.txt is fetched once per host and obeyed for the recipe's user agent (a 4xx robots.txt
  allows everything, a 5xx or unreachable one forbids everything, as RFC 9309 says); its
  Crawl-delay is honoured when it is longer than the recipe's rate limit;
- only the hosts of a site's `start_urls` (plus `allowed_hosts`) are fetched, redirects included;
- requests to one host start at least 1 / `rate_limit` seconds apart, whatever `concurrency` is;
- 5xx answers, time-outs and connection errors are retried with exponential backoff; 4xx are not;
- redirects are followed by hand, at most `max_redirects`, and a loop is stopped at once;
- a body over `max_bytes` is cut off while streaming and the page recorded as too large.

Layout of the output folder (every fetched URL is logged once; a re-run or a resumed run fetches
nothing that the log holds):

    DIR/pages.jsonl        one JSON line per fetched URL: outcome, status, sha256, raw file
    DIR/raw/ab/<sha>.gz    raw page bytes, gzip, content-addressed
    DIR/robots/<host>.json robots.txt as fetched
    DIR/stories.parquet    stories extracted from story pages (provenance on every row)
    DIR/quarantine.parquet pages that gave no story, with the reason
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import urldefrag, urljoin, urlsplit

from lotdata import __version__
from lotdata.datasets.quality import QualityGate
from lotdata.errors import InputError, LotdataError, MissingFileError, must_exist, require
from lotdata.io import check_output_dir, output_lock, raise_disk_error, write_manifest, write_parquet, write_text
from lotdata.schema import QUARANTINE, STORIES, table_from_rows
from lotdata.sources.extract import DEFAULT_MAX_BYTES, ExtractOptions, Page, extract_pages, quarantine_row

DEFAULT_USER_AGENT = f"lotdata/{__version__} (story benchmark builder; polite crawler)"
REQUIRED_KEYS = ("name", "start_urls", "follow", "stories", "license", "rate_limit", "timeout", "max_pages")
OPTIONAL_KEYS = (
    "title_selector",
    "content_selector",
    "user_agent",
    "concurrency",
    "max_bytes",
    "encoding",
    "retries",
    "backoff",
    "max_redirects",
    "allowed_hosts",
    "lang",
)
_REDIRECTS = (301, 302, 303, 307, 308)
_LOG_LOCK = threading.Lock()


@dataclass
class SiteRecipe:
    """One `[[sites]]` table of a crawl recipe."""

    name: str
    start_urls: list[str]
    follow: list[str]
    stories: list[str]
    license: str
    rate_limit: float  # requests per second per host
    timeout: float  # seconds
    max_pages: int
    title_selector: str | None = None
    content_selector: str | None = None
    user_agent: str = DEFAULT_USER_AGENT
    concurrency: int = 1
    max_bytes: int = DEFAULT_MAX_BYTES
    encoding: str | None = None
    retries: int = 3
    backoff: float = 1.0  # seconds before the first retry; doubles each time
    max_redirects: int = 5
    allowed_hosts: list[str] = field(default_factory=list)
    lang: str | None = None

    def __post_init__(self) -> None:
        self._follow = [re.compile(p) for p in self.follow]
        self._stories = [re.compile(p) for p in self.stories]
        self.hosts = {urlsplit(u).netloc.lower() for u in self.start_urls} | {h.lower() for h in self.allowed_hosts}

    def is_story(self, url: str) -> bool:
        return any(p.search(url) for p in self._stories)

    def wants(self, url: str) -> bool:
        return urlsplit(url).netloc.lower() in self.hosts and (
            self.is_story(url) or any(p.search(url) for p in self._follow)
        )

    def extract_options(self) -> ExtractOptions:
        return ExtractOptions(
            source=self.name,
            license=self.license,
            title_selector=self.title_selector,
            content_selector=self.content_selector,
            encoding=self.encoding,
            max_bytes=self.max_bytes,
            lang=self.lang,
        )


def _as_list(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: '{key}' must be a string or a list of strings")
    return value


#: key -> (check, what it must be); every site key is checked before any request
_KEY_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "name": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "license": (lambda v: isinstance(v, str), "a string"),
    "rate_limit": (lambda v: _number(v) and v > 0, "a number of requests per second > 0 (e.g. 0.5)"),
    "timeout": (lambda v: _number(v) and v > 0, "a number of seconds > 0"),
    "max_pages": (lambda v: _integer(v) and v >= 0, "an integer >= 0"),
    "title_selector": (lambda v: isinstance(v, str), "a CSS selector string"),
    "content_selector": (lambda v: isinstance(v, str), "a CSS selector string"),
    "user_agent": (lambda v: isinstance(v, str) and v.strip() != "", "a non-empty string"),
    "concurrency": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "max_bytes": (lambda v: _integer(v) and v > 0, "an integer number of bytes > 0"),
    "encoding": (lambda v: isinstance(v, str), "an encoding name"),
    "retries": (lambda v: _integer(v) and v >= 0, "an integer >= 0"),
    "backoff": (lambda v: _number(v) and v >= 0, "a number of seconds >= 0"),
    "max_redirects": (lambda v: _integer(v) and v >= 0, "an integer >= 0"),
    "lang": (lambda v: v in ("zh", "en"), '"zh" or "en"'),
}


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_start_url(url: str, where: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(
            f"{where}: start_urls: {url!r} is not an http(s) URL (the crawler fetches web pages; "
            f"for saved pages use `lotdata extract`)"
        )


def load_crawl_recipe(path: str | Path) -> list[SiteRecipe]:
    """The sites of a crawl recipe; a missing, unknown or mistyped key is an error naming the file, site and key."""
    path = must_exist(path, "recipe file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))  # a BOM (Windows editors) is no TOML error
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid TOML ({exc})", path=str(path)) from None
    sites = data.get("sites")
    if not isinstance(sites, list) or not sites:
        raise InputError("a crawl recipe needs at least one [[sites]] table", path=str(path))
    defaults = data.get("defaults", {})
    if not isinstance(defaults, dict):
        raise InputError("[defaults] must be a table", path=str(path))
    recipes = []
    for i, raw in enumerate(sites, 1):
        table = {**defaults, **raw}
        where = f"{path}, site {table.get('name', i)}"
        missing = [k for k in REQUIRED_KEYS if k not in table]
        unknown = sorted(set(table) - set(REQUIRED_KEYS) - set(OPTIONAL_KEYS) - {"notes", "domain", "size"})
        if missing:
            raise InputError(f"{where}: missing keys {missing}")
        if unknown:
            raise InputError(f"{where}: unknown keys {unknown}")
        for key in ("start_urls", "follow", "stories", "allowed_hosts"):
            if key in table:
                table[key] = _as_list(table[key], key, where)
        for key, (check, expected) in _KEY_TYPES.items():
            if key in table and not check(table[key]):
                raise InputError(f"{where}: '{key}' must be {expected}, not {table[key]!r}")
        if not table["start_urls"]:
            raise InputError(f"{where}: start_urls is empty: the crawl would fetch nothing")
        for url in table["start_urls"]:
            _check_start_url(url, where)
        for key in ("follow", "stories"):
            if not table[key]:
                raise InputError(f"{where}: '{key}' is empty: give at least one regex")
            for pattern in table[key]:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise InputError(f"{where}: bad regex in '{key}': {pattern!r} ({exc})") from None
        if "encoding" in table:
            import codecs

            try:
                codecs.lookup(table["encoding"])
            except LookupError:
                raise InputError(f"{where}: 'encoding': unknown encoding {table['encoding']!r}") from None
        known = {k: table[k] for k in (*REQUIRED_KEYS, *OPTIONAL_KEYS) if k in table}
        recipes.append(SiteRecipe(**known))
    names = [r.name for r in recipes]
    if len(set(names)) != len(names):
        raise InputError("site names must be unique", path=str(path))
    return recipes


# ---------------------------------------------------------------------------------------------
# politeness


class HostClock:
    """Start times of requests, per host, at least `interval` seconds apart (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next: dict[str, float] = {}

    def wait(self, host: str, interval: float) -> None:
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next.get(host, now))
            self._next[host] = start + interval
        if start > now:
            time.sleep(start - now)

    def hold(self, host: str, seconds: float) -> None:
        """No request to `host` for `seconds` (a 429/503 Retry-After is for the whole host, not one page)."""
        with self._lock:
            self._next[host] = max(self._next.get(host, 0.0), time.monotonic() + seconds)


@dataclass
class FetchResult:
    url: str
    outcome: (
        str  # ok | http_error | too_large | timeout | error | redirect_loop | too_many_redirects | off_host | robots
    )
    status: int | None = None
    final_url: str | None = None
    content_type: str | None = None
    body: bytes | None = None
    attempts: int = 0
    error: str | None = None
    retry_after: float | None = None  # seconds a 429 / 503 asked us to wait


#: the longest Retry-After we wait for; a server asking for more gets the page recorded as http_error
MAX_RETRY_AFTER = 300.0


def parse_retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: delta-seconds or an HTTP-date (RFC 9110 10.2.3); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class Fetcher:
    """HTTP for one site: politeness, robots.txt, retries, redirects, size limit."""

    def __init__(self, site: SiteRecipe, out: Path, clock: HostClock) -> None:
        httpx = require("httpx", "sources")
        self.httpx = httpx
        self.site = site
        self.out = out
        self.clock = clock
        self.client = httpx.Client(
            timeout=site.timeout,
            follow_redirects=False,
            headers={"User-Agent": site.user_agent, "Accept-Encoding": "gzip, deflate"},
        )
        self._robots: dict[str, tuple[Any | None, bool, float]] = {}
        self._robots_lock = threading.Lock()
        #: host -> why its robots.txt could not be fetched (then the host is not crawled, RFC 9309 2.3.1.4)
        self.unreachable: dict[str, str] = {}

    def close(self) -> None:
        self.client.close()

    def interval(self, host: str) -> float:
        delay = self._robots.get(host, (None, True, 0.0))[2]
        return max(1.0 / self.site.rate_limit, delay)

    # robots.txt ---------------------------------------------------------------------------
    def allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        host = parts.netloc.lower()
        with self._robots_lock:
            if host not in self._robots:
                self._robots[host] = self._load_robots(f"{parts.scheme}://{parts.netloc}", host)
        parser, allow_all, _ = self._robots[host]
        if parser is None:
            return allow_all
        return parser.can_fetch(url, self.site.user_agent)

    def _load_robots(self, base: str, host: str) -> tuple[Any | None, bool, float]:
        """robots.txt of a host, parsed with protego (RFC 9309: `*` and `$` wildcards, longest match wins).

        Only a definite answer is kept in DIR/robots/ (the file, or a 4xx: no robots.txt); a 5xx or an
        unreachable host forbids the crawl of that host for this run only, is reported, and a re-run
        asks again."""
        protego = require("protego", "sources")
        cache = self.out / "robots" / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', host)}.json"
        saved = json.loads(cache.read_text(encoding="utf-8")) if cache.exists() else None
        if saved is not None and saved.get("text") is None and not 400 <= (saved.get("status") or 0) < 500:
            saved = None  # an outage cached by an older lotdata: ask again
        if saved is None:
            result = self._get(base + "/robots.txt", max_bytes=500_000)
            for _ in range(5):  # RFC 9309: follow at least five redirects (http -> https, say)
                if result.outcome != "redirect":
                    break
                result = self._get(urljoin(result.url, result.final_url or ""), max_bytes=500_000)
            saved = {
                "url": base + "/robots.txt",
                "status": result.status,
                "outcome": result.outcome,
                "text": (result.body or b"").decode("utf-8", "replace") if result.outcome == "ok" else None,
                "fetched_at": _now(),
                "error": result.error,
            }
            status = result.status or 0
            if result.outcome == "ok" or 400 <= status < 500:
                write_text(json.dumps(saved, ensure_ascii=False) + "\n", cache)
        status = saved.get("status")
        if saved["text"] is not None:
            parser = protego.Protego.parse(saved["text"])
            delay = parser.crawl_delay(self.site.user_agent) or 0.0
            return parser, True, float(delay)
        if status is not None and 400 <= status < 500:
            return None, True, 0.0  # no robots.txt: everything allowed
        # server error or unreachable: everything is forbidden (RFC 9309), and the user is told why
        why = f"HTTP {status}" if status else (saved.get("error") or saved.get("outcome") or "no answer")
        self.unreachable[host] = f"{saved['url']}: {why}"
        return None, False, 0.0

    # fetching -------------------------------------------------------------------------------
    def fetch(self, url: str) -> FetchResult:
        """GET with redirects followed by hand (each hop checked against hosts and robots.txt)."""
        chain = [url]
        current = url
        for _ in range(self.site.max_redirects + 1):
            result = self._get(current, self.site.max_bytes)
            result.url = url
            if result.outcome != "redirect":
                result.final_url = current
                return result
            target = urldefrag(urljoin(current, result.final_url or ""))[0]
            if target in chain:
                return FetchResult(
                    url,
                    "redirect_loop",
                    result.status,
                    target,
                    attempts=result.attempts,
                    error=" -> ".join(chain + [target]),
                )
            if urlsplit(target).netloc.lower() not in self.site.hosts:
                return FetchResult(url, "off_host", result.status, target, error=f"redirect to another host: {target}")
            if not self.allowed(target):
                return FetchResult(
                    url, "robots", result.status, target, error=f"redirect target disallowed by robots.txt: {target}"
                )
            chain.append(target)
            current = target
        return FetchResult(url, "too_many_redirects", None, current, error=" -> ".join(chain))

    def _get(self, url: str, max_bytes: int) -> FetchResult:
        host = urlsplit(url).netloc.lower()
        attempts = 0
        while True:
            attempts += 1
            self.clock.wait(host, self.interval(host))
            result = self._get_once(url, max_bytes)
            result.attempts = attempts
            retryable = result.outcome in ("timeout", "error") or (result.status or 0) >= 500 or result.status == 429
            if not retryable or attempts > self.site.retries:
                return result
            wait = self.site.backoff * 2 ** (attempts - 1)
            if result.retry_after is not None:  # the server said how long: honour it, within a bound
                if result.retry_after > MAX_RETRY_AFTER:
                    result.error = f"HTTP {result.status}, Retry-After {result.retry_after:.0f} s is over {MAX_RETRY_AFTER:.0f} s: not retried"
                    return result
                wait = max(wait, result.retry_after)
                self.clock.hold(host, wait)
            time.sleep(wait)

    def _get_once(self, url: str, max_bytes: int) -> FetchResult:
        httpx = self.httpx
        # `timeout` bounds the whole page, not each read: a server sending a byte a second never times out a read
        deadline = time.monotonic() + self.site.timeout
        try:
            with self.client.stream("GET", url) as response:
                status = response.status_code
                content_type = response.headers.get("content-type")
                if status in _REDIRECTS and "location" in response.headers:
                    return FetchResult(url, "redirect", status, response.headers["location"])
                if status >= 400:
                    retry_after = (
                        parse_retry_after(response.headers.get("retry-after")) if status in (429, 503) else None
                    )
                    return FetchResult(
                        url,
                        "http_error",
                        status,
                        content_type=content_type,
                        error=f"HTTP {status}",
                        retry_after=retry_after,
                    )
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > max_bytes:
                    return FetchResult(
                        url, "too_large", status, error=f"Content-Length {declared} > max_bytes {max_bytes}"
                    )
                chunks, size = [], 0
                for chunk in response.iter_raw():
                    size += len(chunk)
                    if size > max_bytes:
                        return FetchResult(url, "too_large", status, error=f"body over max_bytes {max_bytes}")
                    if time.monotonic() > deadline:
                        return FetchResult(
                            url,
                            "timeout",
                            status,
                            error=f"page not received within {self.site.timeout}s "
                            f"({size} bytes came): the timeout bounds the whole page",
                        )
                    chunks.append(chunk)
                body = b"".join(chunks)
                encoding = response.headers.get("content-encoding", "").lower()
                if encoding in ("gzip", "deflate", "br", "zstd"):
                    body = _decompress(body, encoding, max_bytes)
                    if body is None:
                        return FetchResult(
                            url, "too_large", status, error=f"decompressed body over max_bytes {max_bytes}"
                        )
                return FetchResult(url, "ok", status, content_type=content_type, body=body)
        except httpx.TimeoutException as exc:
            return FetchResult(url, "timeout", error=f"timed out after {self.site.timeout}s ({exc.__class__.__name__})")
        except httpx.HTTPError as exc:
            return FetchResult(url, "error", error=f"{exc.__class__.__name__}: {exc}"[:300])


def _decompress(body: bytes, encoding: str, max_bytes: int) -> bytes | None:
    import zlib

    if encoding == "gzip":
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        decoder = zlib.decompressobj()
    else:  # br / zstd: let httpx's decoders do it when installed
        return body
    out = decoder.decompress(body, max_bytes + 1)
    return None if len(out) > max_bytes else out


# ---------------------------------------------------------------------------------------------
# the crawl: log, raw store, frontier


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def raw_path(out: Path, sha256: str) -> Path:
    return out / "raw" / sha256[:2] / f"{sha256}.gz"


def _store_raw(out: Path, body: bytes) -> str:
    sha = hashlib.sha256(body).hexdigest()
    path = raw_path(out, sha)
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(gzip.compress(body, mtime=0))
            os.replace(tmp, path)
        except OSError as exc:  # a full disk names the file
            tmp.unlink(missing_ok=True)
            raise_disk_error(exc, path)
    return sha


def read_log(out: Path) -> list[dict[str, Any]]:
    """Entries of DIR/pages.jsonl; a line cut short by an interrupted run is ignored."""
    path = Path(out) / "pages.jsonl"
    if not path.exists():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries


def _links(body: bytes, content_type: str | None, base: str) -> list[str]:
    from lotdata.sources.extract import PageError, decode_html

    lxml_html = require("lxml.html", "sources")
    try:
        text = decode_html(body, content_type).text
        root = lxml_html.document_fromstring(text)
    except (PageError, Exception):  # a page we cannot parse has no links to follow
        return []
    links = []
    for element, attribute, link, _ in root.iterlinks():
        if element.tag == "a" and attribute == "href":
            links.append(urldefrag(urljoin(base, link.strip()))[0])
    return links


@dataclass
class CrawlStats:
    fetched: int = 0
    skipped_logged: int = 0
    disallowed: int = 0
    robots_unreachable: dict[str, str] = field(default_factory=dict)  # host -> why; its URLs were not fetched
    not_fetched_unreachable: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)

    def count(self, outcome: str) -> None:
        self.outcomes[outcome] = self.outcomes.get(outcome, 0) + 1


def crawl_site(
    site: SiteRecipe,
    out: Path,
    clock: HostClock,
    *,
    max_pages: int | None = None,
    on_page: Callable[[dict[str, Any]], None] | None = None,
) -> CrawlStats:
    """Breadth-first crawl of one site into `out`, resuming from its log."""
    out.mkdir(parents=True, exist_ok=True)
    log = [e for e in read_log(out) if e.get("site") == site.name]
    done = {e["url"] for e in log}
    budget = site.max_pages if max_pages is None else min(site.max_pages, max_pages)
    stats = CrawlStats(skipped_logged=len(done))
    queue: list[str] = []
    queued: set[str] = set()

    def enqueue(urls: list[str], start: bool = False) -> None:
        for url in urls:  # a start URL is fetched whatever the patterns say (a home page matches none)
            if url not in queued and url not in done and (start or site.wants(url)):
                queued.add(url)
                queue.append(url)

    enqueue([urldefrag(u)[0] for u in site.start_urls if urlsplit(u).netloc.lower() in site.hosts], start=True)
    for entry in log:  # rebuild the frontier from the pages already kept
        if entry.get("sha256") and entry.get("outcome") == "ok":
            enqueue(
                _links(
                    gzip.decompress(raw_path(out, entry["sha256"]).read_bytes()),
                    entry.get("content_type"),
                    entry.get("final_url") or entry["url"],
                )
            )
    fetcher = Fetcher(site, out, clock)
    fetched_total = len(done)
    try:
        with (
            open(out / "pages.jsonl", "a", encoding="utf-8") as log_file,
            ThreadPoolExecutor(max(1, site.concurrency)) as pool,
        ):
            while queue and fetched_total < budget:
                wave = []
                while queue and len(wave) < budget - fetched_total:
                    url = queue.pop(0)
                    if fetcher.allowed(url):
                        wave.append(url)
                    elif urlsplit(url).netloc.lower() in fetcher.unreachable:
                        stats.not_fetched_unreachable += 1
                    else:
                        stats.disallowed += 1
                for result in pool.map(fetcher.fetch, wave):
                    entry = _log_entry(site, out, result)
                    with _LOG_LOCK:  # sites crawl in parallel threads and share the log
                        try:
                            log_file.write(json.dumps(entry, ensure_ascii=False) + "\n")
                            log_file.flush()
                        except OSError as exc:  # a full disk names the log
                            raise_disk_error(exc, out / "pages.jsonl")
                    done.add(result.url)
                    fetched_total += 1
                    stats.fetched += 1
                    stats.count(result.outcome)
                    if on_page:
                        on_page(entry)
                    if result.outcome == "ok":
                        enqueue(_links(result.body or b"", result.content_type, result.final_url or result.url))
    finally:
        fetcher.close()
        stats.robots_unreachable = dict(fetcher.unreachable)
    return stats


def _log_entry(site: SiteRecipe, out: Path, result: FetchResult) -> dict[str, Any]:
    sha = _store_raw(out, result.body) if result.outcome == "ok" and result.body is not None else None
    return {
        "site": site.name,
        "url": result.url,
        "final_url": result.final_url,
        "outcome": result.outcome,
        "status": result.status,
        "content_type": result.content_type,
        "sha256": sha,
        "bytes": len(result.body) if result.body is not None else None,
        "attempts": result.attempts,
        "error": result.error,
        "fetched_at": _now(),
    }


def logged_pages(out: Path, site: SiteRecipe) -> Iterator[Page | dict[str, Any]]:
    """Story pages of a site from the log: a Page for kept bytes, else a quarantine row."""
    for entry in read_log(out):
        if entry.get("site") != site.name or not site.is_story(entry["url"]):
            continue
        if entry["outcome"] != "ok":
            yield quarantine_row(entry["url"], f"{entry['outcome']}: {entry.get('error') or entry.get('status')}")
            continue
        body = gzip.decompress(raw_path(out, entry["sha256"]).read_bytes())
        yield Page(
            url=entry["url"],
            body=body,
            content_type=entry.get("content_type"),
            status=entry.get("status"),
            fetched_at=entry.get("fetched_at"),
            sha256=entry["sha256"],
        )


def extract_crawl(out: Path, sites: list[SiteRecipe], quality: QualityGate | None = None) -> dict[str, Any]:
    """(Re-)extract stories from the raw pages of a crawl folder: no network. With a `quality` gate, the stories
    table is ordered by the model's score or the stories below its threshold go to the quarantine
    (`lotdata.datasets.quality`, the rule clean applies) as the table is written: the log is untouched, so a
    resumed crawl re-extracts and scores every story again."""
    stories: list[dict] = []
    quarantine: list[dict] = []
    seen: set[str] = set()
    per_site = {}
    for site in sites:
        items = list(logged_pages(out, site))
        quarantine.extend(i for i in items if isinstance(i, dict))
        kept, rejected = extract_pages((i for i in items if isinstance(i, Page)), site.extract_options())
        quarantine.extend(rejected)
        fresh = [row for row in kept if row["story_id"] not in seen]
        seen.update(row["story_id"] for row in fresh)
        stories.extend(fresh)
        per_site[site.name] = len(fresh)
    found: dict[str, Any] = {}
    if quality is not None:
        stories, dropped, found["quality"] = _quality_gate(stories, quality)
        quarantine.extend(dropped)
    write_parquet(table_from_rows(stories, STORIES), out / "stories.parquet")
    write_parquet(table_from_rows(quarantine, QUARANTINE), out / "quarantine.parquet")
    return {"stories": len(stories), "quarantine": len(quarantine), "stories_per_site": per_site, **found}


def _quality_gate(stories: list[dict], quality: QualityGate) -> tuple[list[dict], list[dict], dict[str, Any]]:
    """(stories kept, in the gate's order; their quarantine rows: the rule and the score as the reason; counts)."""
    from lotdata.datasets.quality import QUALITY_RULE, quality_gate

    keep, dropped, counts = quality_gate(stories, quality.model, quality.mode)
    rows = [quarantine_row(stories[i]["url"], f"{QUALITY_RULE}: {why}", stories[i]["text"]) for i, why in dropped]
    return [stories[i] for i in keep], rows, counts


def crawl(
    recipe: str | Path,
    out: str | Path,
    *,
    max_pages: int | None = None,
    extract_only: bool = False,
    on_page: Callable[[dict[str, Any]], None] | None = None,
    parallel_sites: int = 8,
    on_warning: Callable[[str], None] | None = None,
    quality: QualityGate | None = None,
) -> dict[str, Any]:
    """Crawl every site of a recipe into `out` (resuming), then extract stories from the raw pages (ordered or
    filtered by the `quality` gate, as `extract_crawl` says).

    Hosts whose robots.txt could not be fetched are not crawled (RFC 9309) and are listed in the
    summary (`robots_unreachable`) and through `on_warning`; a re-run asks them again. No story at
    all (nothing fetched, or `--extract-only` on a folder without saved pages) is an error (exit 3)."""
    sites = load_crawl_recipe(recipe)
    if max_pages is not None and (isinstance(max_pages, bool) or not isinstance(max_pages, int) or max_pages < 0):
        raise LotdataError(f"--max-pages must be an integer >= 0, not {max_pages!r}")
    from lotdata.paths import check_outputs

    check_outputs({"--out": out}, {"--recipe": recipe})
    out = check_output_dir(out)
    if extract_only and not (out / "pages.jsonl").is_file():
        raise MissingFileError(
            "no pages.jsonl: not a crawl folder, nothing saved to re-extract (--extract-only)", path=str(out)
        )
    with output_lock(out):
        return crawl_into(
            recipe,
            sites,
            out,
            max_pages=max_pages,
            extract_only=extract_only,
            hooks={"on_page": on_page, "on_warning": on_warning},
            parallel_sites=parallel_sites,
            quality=quality,
        )


def crawl_into(
    recipe: str | Path,
    sites: list[SiteRecipe],
    out: Path,
    *,
    max_pages: int | None = None,
    extract_only: bool = False,
    hooks: Mapping[str, Callable[[Any], None] | None] | None = None,
    parallel_sites: int = 8,
    quality: QualityGate | None = None,
) -> dict[str, Any]:
    """The crawl itself, into `out` (resuming from what it holds), once the recipe and the output are checked
    (`crawl`, or the `crawl` command's runner, which passes a staged copy of the crawl folder). `hooks`: the
    `on_page(log entry)` and `on_warning(message)` callbacks (absent or None: quiet)."""
    on_page, on_warning = (hooks or {}).get("on_page"), (hooks or {}).get("on_warning")
    if quality is not None:  # a wrong model folder fails now, not after the whole crawl
        from lotdata.datasets.quality import quality_info

        quality_info(quality.model)
    out.mkdir(parents=True, exist_ok=True)
    clock = HostClock()
    summary: dict[str, Any] = {"fetched": 0, "already_fetched": 0, "disallowed_by_robots": 0, "outcomes": {}}
    unreachable: dict[str, str] = {}
    not_fetched = 0
    started = time.perf_counter()
    if not extract_only:  # sites run side by side: politeness is per host, so a slow site holds up no other
        with ThreadPoolExecutor(max(1, min(len(sites), parallel_sites))) as pool:
            all_stats = list(
                pool.map(lambda site: crawl_site(site, out, clock, max_pages=max_pages, on_page=on_page), sites)
            )
        for stats in all_stats:
            summary["fetched"] += stats.fetched
            summary["already_fetched"] += stats.skipped_logged
            summary["disallowed_by_robots"] += stats.disallowed
            unreachable.update(stats.robots_unreachable)
            not_fetched += stats.not_fetched_unreachable
            for k, v in stats.outcomes.items():
                summary["outcomes"][k] = summary["outcomes"].get(k, 0) + v
        if unreachable:
            summary["robots_unreachable"] = unreachable
            summary["not_fetched_host_unreachable"] = not_fetched
            for host, why in sorted(unreachable.items()):
                if on_warning:
                    on_warning(
                        f"{host}: robots.txt could not be fetched ({why}); RFC 9309 treats that as "
                        f"'disallow all', so nothing was fetched from this host this run; a re-run asks again"
                    )
    logged = read_log(out)
    if not logged:
        hosts = ", ".join(sorted(unreachable)) or "none"
        raise InputError(
            f"nothing was fetched (hosts whose robots.txt could not be fetched: {hosts}; "
            f"disallowed by robots.txt: {summary['disallowed_by_robots']}); no stories.parquet written",
            path=str(out),
        )
    summary.update(extract_crawl(out, sites, quality))
    summary["seconds"] = round(time.perf_counter() - started, 2)
    write_manifest(
        out,
        kind="crawl",
        task="crawl",
        command="lotdata crawl",
        params={
            "recipe": str(recipe),
            "max_pages": max_pages,
            "extract_only": extract_only,
            "sites": [s.name for s in sites],
            **({} if quality is None else {"quality_model": str(quality.model), "quality": quality.mode}),
        },
        inputs=[recipe] + ([quality.model] if quality is not None else []),
        files={"stories": out / "stories.parquet", "quarantine": out / "quarantine.parquet"},
        stats=summary,
    )
    if not summary["stories"]:
        raise InputError(
            f"no story could be extracted from the {len(logged)} logged page(s); "
            f"see {out / 'quarantine.parquet'} and {out / 'pages.jsonl'}",
            path=str(out),
        )
    return summary
