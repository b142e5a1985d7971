"""/docs from local files, and the page from the server's own copy (issue 32, 9 and 10)."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

from fastapi.testclient import TestClient

from device.store import SQLiteStore
from device.web import create_app
from device.web.pagefiles import page_directory


def test_docs_load_nothing_from_the_network(tmp_path: Path) -> None:
    with TestClient(create_app(SQLiteStore(tmp_path / "t.sqlite"))) as client:
        html = client.get("/docs").text
        assert "SwaggerUIBundle" in html
        # every script, style and icon the page names is served here
        urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
        urls += re.findall(r"""url: ?["']([^"']+)["']""", html)
        assert urls and not [u for u in urls if "//" in u], urls
        for url in urls:
            r = client.get(url)
            assert r.status_code == 200 and r.content, url
        assert "SwaggerUIBundle" in client.get("/docs-assets/swagger-ui-bundle.js").text
        assert client.get("/redoc").status_code == 404  # FastAPI's ReDoc is a CDN page


def test_the_page_is_served_from_a_copy_a_reinstall_cannot_remove(tmp_path: Path) -> None:
    """`pip install -e .` over a running `pip install .` demo deletes the installed static
    files: the server serves its own copy, made when it started."""
    copy = page_directory()
    source = Path(str(resources.files("device.web").joinpath("static")))
    assert copy.resolve() != source.resolve() and not copy.resolve().is_relative_to(
        source.resolve().parents[2])
    assert (copy / "index.html").read_bytes() == (source / "index.html").read_bytes()
    with TestClient(create_app(SQLiteStore(tmp_path / "t.sqlite"))) as client:
        (copy / "probe.txt").write_text("from the copy")
        try:
            r = client.get("/probe.txt")
            assert r.status_code == 200 and r.text == "from the copy"
        finally:
            (copy / "probe.txt").unlink()
        assert client.get("/").headers["content-type"].startswith("text/html")
