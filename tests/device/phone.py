"""The phone page's browser tests share this: Debian's chromium driven by Playwright on a
phone-sized screen, and the app served by uvicorn in a thread (restartable).

The server has a table key, as one listening on a club's network does (issue 29), and the
``page`` fixture first opens the players' link (``/?key=...``), so the page keeps the key and
every test plays as the players do."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from device.enrolment import Enroller
from device.store import SQLiteStore
from device.web import create_app
from device.web.access import Access

KEY = "browser-test-key"
PLAYERS = Access(KEY)
"""A table with a key, read by spectators without it."""

CHROMIUM = os.environ.get("DICETABLE_CHROMIUM") or shutil.which("chromium") or \
    shutil.which("chromium-browser")


def require_browser() -> Any:
    """Playwright's sync API; skips the calling test module when there is no browser, and
    fails it in CI (where the browser tests must run)."""
    if os.environ.get("CI") and CHROMIUM is None:
        pytest.fail("CI without chromium: .ci/run should have installed it", pytrace=False)
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="playwright is not installed (extra 'dev')")
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium)",
                    allow_module_level=True)
    return sync_api


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """The app served by uvicorn in a thread; it can be stopped and started again on the
    same port over the same database (a restart, as the phone sees it)."""

    def __init__(self, db: Path, profile: Path, access: Access = PLAYERS) -> None:
        self.db, self.profile, self.port, self.access = db, profile, free_port(), access
        self.url = f"http://127.0.0.1:{self.port}"
        self.start()

    def start(self) -> None:
        import uvicorn

        self.app = create_app(SQLiteStore(self.db), enroller=Enroller(self.profile),
                              access=self.access)
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port,
                                log_level="warning")
        self.srv = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.srv.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.srv.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.srv.should_exit = True
        self.thread.join(timeout=10)


@contextmanager
def phone(sync_api: Any) -> Iterator[Any]:
    """A page in headless chromium on a 390x844 touch screen; no script error allowed."""
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"])
        context = browser.new_context(viewport={"width": 390, "height": 844},
                                      device_scale_factor=2, is_mobile=True, has_touch=True)
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        # the page runs under its Content-Security-Policy: anything it blocks is a defect
        pg.on("console", lambda msg: errors.append(msg.text)
              if "Content Security Policy" in msg.text else None)
        yield pg
        browser.close()
        assert errors == []


def wait_until(page: Any, expression: str, timeout: float = 30.0) -> None:
    """Poll a JavaScript expression until it is true. (Playwright's wait_for_function
    evaluates a string in the page, which the page's Content-Security-Policy forbids, as it
    should: the page runs under its real headers in these tests.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        time.sleep(0.1)


def browser_fixtures(sync_api: Any) -> tuple[Any, Any, Any]:
    """The fixtures a browser test module takes as its own: ``served`` (the restartable
    server), ``server`` ((url, app)) and ``page`` (a phone-sized page)::

        served, server, page = browser_fixtures(require_browser())
    """
    @pytest.fixture
    def served(tmp_path: Path) -> Iterator[Served]:
        s = Served(tmp_path / "page.sqlite", tmp_path / "profile.toml")
        yield s
        s.stop()

    @pytest.fixture
    def server(served: Served) -> tuple[str, Any]:
        return served.url, served.app

    @pytest.fixture
    def page(server: tuple[str, Any]) -> Iterator[Any]:
        with phone(sync_api) as pg:
            pg.goto(f"{server[0]}/?key={KEY}")  # the players' link: the page keeps the key
            wait_until(pg, "document.location.search === ''")
            yield pg

    return served, server, page
