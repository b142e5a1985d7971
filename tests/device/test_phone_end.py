"""The phone page's "End match" (a real browser): offered only where the rules let the
players end a stalled Pyramid Dice match, and ending it there."""

from __future__ import annotations

from typing import Any

from phone import browser_fixtures, require_browser
from test_end_match import _stalled_moves

served, server, page = browser_fixtures(require_browser())


def test_end_a_stalled_match_on_the_phone(server: tuple[str, Any], page: Any) -> None:
    url, app = server
    service = app.state.service
    mid = service.create("pyramid_dice", 2, {}, None, 3, "Stalled")
    page.goto(f"{url}/#/m/{mid}")
    page.wait_for_selector("#m-title:has-text('Pyramid Dice')")
    assert page.locator("#m-end-box").is_hidden()
    for move in _stalled_moves():
        service.act(mid, move, None)
    page.wait_for_selector("#m-end-box:not([hidden])")
    page.get_by_role("button", name="End match").click()
    page.wait_for_selector("#m-outcome:not([hidden])")
    assert page.locator("#m-end-box").is_hidden()
    last = service.view(mid)["entries"][-1]
    assert last["text"] == "end" and last["source"] == "phone"


def test_the_new_match_form_seats_the_players(server: tuple[str, Any], page: Any) -> None:
    """The form prefills the seats by player count (two face each other) and sends them;
    a seat left "not set" sends none."""
    url, app = server
    service = app.state.service
    for change, want in ((None, ("bottom", "top")), ("right", ("right", "top")),
                         ("", None)):
        page.goto(url + "/")
        page.get_by_role("button", name="New match").click()
        page.locator("#game-select").select_option("icedice")
        assert page.get_by_label("seat of player 2").input_value() == "top"
        if change is not None:
            page.get_by_label("seat of player 1").select_option(change)
        page.get_by_role("button", name="Start").click()
        page.wait_for_selector("#m-title:has-text('IceDice')")
        mid = page.evaluate("location.hash").split("/")[-1]
        assert service.seats(mid) == want
