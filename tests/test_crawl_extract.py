"""The extractor on saved pages (a folder of .html files, WARC files), encodings and bad input."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from lotdata.cli import app
from lotdata.sources.extract import ExtractOptions, PageError, decode_html, extract_pages, extract_text, saved_pages

FOX = "从前有一只小狐狸住在山脚下。它每天早上都去河边喝水，看见河里的小鱼游来游去。有一天，它想学游泳，结果掉进了水里，幸好一只老乌龟把它驮上了岸。"
BEAR = "小熊想给妈妈做一个生日蛋糕。它找来面粉、鸡蛋和蜂蜜，在厨房里忙了一个下午。蛋糕烤焦了一半，可是妈妈吃得很开心，说这是她吃过最甜的蛋糕。"


def page(title: str, text: str, meta: str = "") -> str:
    paragraphs = "".join(f"<p>{s}。</p>" for s in text.rstrip("。").split("。"))
    return (
        f"<html><head>{meta}<title>{title}</title></head><body><div class='nav'>首页 | 童话 | 寓言</div>"
        f"<article><h1>{title}</h1>{paragraphs}</article><footer>版权所有 2024</footer></body></html>"
    )


@pytest.mark.parametrize(
    ("body", "content_type", "expected", "how"),
    [
        (FOX.encode("utf-8"), "text/html; charset=utf-8", "utf-8", "header"),
        (FOX.encode("gbk"), "text/html; charset=utf-8", "gb18030", "bytes"),  # wrong header
        (FOX.encode("gbk"), None, "gb18030", "bytes"),  # nothing declared
        (("<meta charset='gb2312'>" + FOX).encode("gbk"), None, "gb18030", "meta"),
        (("<meta charset='gb2312'>" + FOX).encode("utf-8"), None, "utf-8", "utf-8"),  # UTF-8 labelled gb2312
        (
            (
                "<meta http-equiv='Content-Type' content='text/html; charset=big5'>從前有一個漁夫，每天划船去海上打魚。"
            ).encode("big5"),
            "text/html",
            "big5hkscs",
            "meta",
        ),
        (b"\xef\xbb\xbf" + FOX.encode("utf-8"), "text/html; charset=gbk", "utf-8-sig", "bom"),
    ],
)
def test_encoding_detection_order(body: bytes, content_type: str | None, expected: str, how: str):
    decoded = decode_html(body, content_type)
    assert decoded.encoding == expected and decoded.how == how
    assert "小狐狸" in decoded.text or "漁夫" in decoded.text


def test_recipe_encoding_wins_and_binary_is_refused():
    assert decode_html(FOX.encode("gbk"), "text/html; charset=utf-8", encoding="gbk").how == "recipe"
    with pytest.raises(PageError, match="binary"):
        decode_html(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200), None)


def test_trafilatura_and_css_extraction():
    html = page("小狐狸学游泳", FOX)
    found = extract_text(html)
    assert found.rule.startswith("trafilatura") and found.title == "小狐狸学游泳"
    assert "小狐狸住在山脚下" in found.text and "版权所有" not in found.text
    by_css = extract_text(html, title_selector="h1", content_selector="article p")
    assert by_css.rule == "css:article p" and by_css.text.replace("\n", "") == FOX
    with pytest.raises(PageError, match="matched nothing"):
        extract_text(html, content_selector="div.nothing")
    with pytest.raises(ValueError, match="bad CSS selector"):
        extract_text(html, content_selector="p[[")


def test_saved_folder_with_bad_files_keeps_the_rest(tmp_path: Path):
    folder = tmp_path / "pages"
    (folder / "sub").mkdir(parents=True)
    (folder / "fox.html").write_bytes(page("小狐狸学游泳", FOX).encode("utf-8"))
    (folder / "sub" / "bear.htm").write_bytes(page("小熊做蛋糕", BEAR, "<meta charset='gbk'>").encode("gbk"))
    (folder / "empty.html").write_bytes(b"")
    (folder / "binary.html").write_bytes(bytes(range(256)) * 40)
    (folder / "huge.html").write_bytes(
        b"<html><body><p>" + "长".encode() * 3_500_000 + b"</p></body></html>"
    )  # 10 MB, one line
    (folder / "broken.html").write_bytes(f"<html><body><div><p>{BEAR}</div></span><<<>>></html".encode())  # malformed
    (folder / "nothing.html").write_bytes(
        b"<html><head><title>x</title></head><body><script>var a;</script></body></html>"
    )
    (folder / "notes.txt").write_text("not a page", encoding="utf-8")  # not .html: skipped in a folder
    stories, quarantine = extract_pages(saved_pages([folder]), ExtractOptions(source="saved", license="test"))
    assert sorted(str(r["title"]) for r in stories) == ["None", "小熊做蛋糕", "小狐狸学游泳"]
    assert [r["text"] for r in stories if r["title"] is None][0].startswith(BEAR)  # lxml recovers the malformed page
    assert all(r["content_sha256"] and r["extraction"].startswith("trafilatura") for r in stories)
    reasons = {Path(q["path"]).name: q["reason"] for q in quarantine}
    assert reasons["empty.html"] == "empty file"
    assert reasons["binary.html"].startswith("binary content")
    assert reasons["huge.html"].startswith("larger than max_bytes")
    assert reasons["nothing.html"] == "no main text found"
    assert "notes.txt" not in reasons


def test_warc_files_and_the_extract_command(tmp_path: Path):
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    path = tmp_path / "crawl.warc.gz"
    with open(path, "wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for url, body, ctype in (
            ("http://stories.example/fox", page("小狐狸学游泳", FOX).encode("gbk"), "text/html"),
            ("http://stories.example/bear", page("小熊做蛋糕", BEAR).encode("utf-8"), "text/html; charset=utf-8"),
            ("http://stories.example/logo.png", b"\x89PNG" + bytes(50), "image/png"),
        ):
            headers = StatusAndHeaders("200 OK", [("Content-Type", ctype)], protocol="HTTP/1.1")
            writer.write_record(
                writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=headers)
            )
    broken = tmp_path / "broken.warc"
    broken.write_bytes(b"this is not a WARC file")
    out = tmp_path / "stories.parquet"
    result = CliRunner().invoke(
        app, ["extract", str(path), str(broken), "--out", str(out), "--source", "warc-test", "--license", "CC0"]
    )
    assert result.exit_code == 0, result.output
    rows = {r["url"]: r for r in pq.read_table(out).to_pylist()}
    assert set(rows) == {"http://stories.example/fox", "http://stories.example/bear"}
    fox = rows["http://stories.example/fox"]
    assert fox["text"] == FOX and fox["http_status"] == 200 and fox["fetched_at"] and fox["license"] == "CC0"
    assert fox["extraction"].endswith(";gb18030")
    quarantine = pq.read_table(tmp_path / "stories.quarantine.parquet").to_pylist()
    assert [q["path"] for q in quarantine] == [str(broken)] and "WARC" in quarantine[0]["reason"]
    missing = CliRunner().invoke(app, ["extract", str(tmp_path / "nope.warc"), "--out", str(out)])
    assert missing.exit_code == 1 and "nope.warc" in missing.output  # a wrong path, not bad data


def test_extract_with_no_story_exits_3_and_writes_no_table(tmp_path: Path):
    binary = tmp_path / "bin.dat"
    binary.write_bytes(bytes(range(256)) * 40)
    out = tmp_path / "ex.parquet"
    result = CliRunner().invoke(app, ["extract", str(binary), "--out", str(out)])
    assert result.exit_code == 3, result.output
    assert "bin.dat" in result.output and "no story" in result.output and "ex.quarantine.parquet" in result.output
    assert not out.exists() and not (tmp_path / "ex.quarantine.parquet").exists()  # a failed run publishes nothing
    # the quarantine that says why waits in the staging folder the message names
    quarantine = pq.read_table(tmp_path / ".ex.parquet.lotdata-next" / "ex.quarantine.parquet").to_pylist()
    assert [Path(q["path"]).name for q in quarantine] == ["bin.dat"]


def test_lines_repeated_across_a_sites_pages_are_dropped():
    from lotdata.sources.extract import Page

    sentences = [FOX, BEAR, FOX[::-1], BEAR[::-1], FOX[20:] + BEAR[:30], BEAR[10:] + FOX[:25]]
    pager = "<div class='pager'>上一篇：龟兔赛跑 下一篇：小马过河</div>"
    pages = [
        Page(
            url=f"http://s.example/{i}",
            body=page(f"故事{i}", text).replace("</article>", "</article>" + pager).encode(),
        )
        for i, text in enumerate(sentences)
    ]
    kept, _ = extract_pages(pages, ExtractOptions(source="s"))
    assert len(kept) == 6 and not any("上一篇" in r["text"] for r in kept)
    assert any(r["extraction"].startswith("trafilatura+boilerplate") for r in kept)
    assert kept[0]["text"] == FOX  # story lines are never repeated across pages, so none is lost
    raw, _ = extract_pages(pages, ExtractOptions(source="s", drop_repeated_lines=False))
    assert any("上一篇" in r["text"] for r in raw)
