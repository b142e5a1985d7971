"""The page with and without the table's key (issue 29): the players' link gives the page
the key, which it keeps and takes out of the address bar; without it the page watches (the
controls that change the table are not there) or, on a private table, says how to get in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from phone import KEY, Served, browser_fixtures, phone, require_browser

from device.web.access import Access

sync_api = require_browser()
served, server, page = browser_fixtures(sync_api)


def test_the_players_link_keeps_the_key_out_of_sight(server: tuple[str, Any],
                                                     page: Any) -> None:
    url, _ = server
    assert page.url == url + "/"  # the key left the address bar
    assert page.evaluate("localStorage.getItem('dicetable-key')") == KEY
    page.wait_for_selector("#new-btn")
    assert page.is_visible("#new-btn") and page.is_hidden("#watching")
    page.click("#new-btn")
    page.wait_for_selector("#new-view:not([hidden])")
    page.click("#new-form button[type=submit]")
    page.wait_for_selector("#m-actions button")  # created with the key


def test_without_the_key_the_page_watches(server: tuple[str, Any]) -> None:
    url, app = server
    mid = app.state.service.create("icedice", 2, {}, None, None, "Club table")
    app.state.service.act(mid, "roll red S", None)
    with phone(sync_api) as pg:
        pg.goto(url + "/")
        pg.wait_for_selector("#watching:not([hidden])")
        assert "Watching only" in pg.inner_text("#watching")
        assert pg.is_hidden("#new-btn") and pg.is_hidden("#enrol-btn")
        pg.click("#matches li a.open")
        pg.wait_for_selector("#m-log li")
        assert "roll red S" in pg.inner_text("#m-log")
        assert pg.is_hidden("#m-actions") and pg.is_hidden("#m-undo")
        app.state.service.act(mid, "take red S", None)  # still live for a spectator
        pg.wait_for_selector("#m-log li:has-text('take red S')")
        pg.click("#m-log li.live >> nth=0")
        assert pg.locator("#m-log button.back:visible").count() == 0


def test_a_private_table_shows_nothing_without_the_key(tmp_path: Path) -> None:
    private = Served(tmp_path / "p.sqlite", tmp_path / "p.toml", Access(KEY, private=True))
    try:
        with phone(sync_api) as pg:
            pg.goto(private.url + "/")
            pg.wait_for_selector("#watching:not([hidden])")
            assert "private" in pg.inner_text("#watching")
            assert pg.is_hidden("#new-btn")
            assert pg.locator("#matches li a.open").count() == 0  # no match is listed
    finally:
        private.stop()
