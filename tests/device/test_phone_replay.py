"""Replay in a real browser: a finished match stepped through to its end and back, and
its play downloaded for BG Stats."""

from __future__ import annotations

from typing import Any

from phone import browser_fixtures, require_browser, wait_until

served, server, page = browser_fixtures(require_browser())


def test_replay_a_match_to_its_end_and_back(server: tuple[str, Any], page: Any) -> None:
    """A finished match, from the list: replay opens at its end (the result), steps back to
    the start and forward entry by entry, the slider jumps, the camera's picture shows."""
    import random

    import cv2
    import numpy as np

    from engine import get_game

    url, app = server
    service = app.state.service
    game = get_game("icedice")
    mid = service.create("icedice", 2, {}, None, 1, "Club night", ["Ann", "Bob"])
    picture = cv2.imencode(".jpg", np.full((60, 80, 3), 200, np.uint8))[1].tobytes()
    service.accept(mid, [game.parse_action("roll red SM"), game.parse_action("take red M")],
                   0.9, thumbnail=picture, data={"frame": 1})
    rng = random.Random(7)
    while service.view(mid)["outcome"] is None:
        service.act(mid, game.random_action(service.match(mid).state, rng).to_str(), None)
    steps = service.view(mid)["version"]

    page.goto(url + "/")
    page.locator("#matches li", has_text="Club night").get_by_role("link",
                                                                  name="Replay").click()
    page.wait_for_selector(f"#r-step:has-text('{steps} / {steps}')")
    page.wait_for_selector("#r-outcome:has-text('win')")
    assert page.locator("#r-turn").inner_text() == "Match over"
    assert page.locator("#r-next").is_disabled()

    page.get_by_role("button", name="first entry").click()
    page.wait_for_selector("#r-entry:has-text('Start of the match')")
    assert page.locator("#r-step").inner_text() == f"0 / {steps}"
    assert page.locator("#r-table .zone:has-text('Counter') .piece").count() == 0
    page.get_by_role("button", name="next entry").click()  # the camera's roll
    page.wait_for_selector("#r-entry:has-text('roll red SM')")
    page.get_by_role("button", name="next entry").click()  # ...and its take, with a picture
    page.wait_for_selector("#r-entry:has-text('take red M') img.evidence")
    assert page.evaluate("document.querySelector('#r-entry img').naturalWidth") == 80
    page.wait_for_selector("#r-table .zone:has-text('Counter') .piece[title='red M']")
    assert page.locator("#r-turn").inner_text() == "Ann to play"
    page.get_by_role("button", name="previous entry").click()
    page.wait_for_selector(f"#r-step:has-text('1 / {steps}')")
    page.wait_for_selector("#r-entry:has-text('roll red SM')")
    assert page.locator("#r-table .zone:has-text('Counter') .piece").count() == 0
    page.locator("#r-slider").evaluate(
        f"(s) => {{ s.value = {steps - 1}; s.dispatchEvent(new Event('input')); }}")
    page.wait_for_selector(f"#r-step:has-text('{steps - 1} / {steps}')")
    wait_until(page, f"location.hash.endsWith('/{steps - 1}')")
    page.get_by_role("button", name="last entry").click()
    page.wait_for_selector("#r-outcome:has-text('win')")
    with page.expect_download() as download:  # the play, for BG Stats on the same phone
        page.get_by_role("link", name="a BG Stats play").click()
    assert download.value.suggested_filename == f"dicetable-{mid}.bgsplay"
    page.get_by_role("link", name="Open").click()
    page.wait_for_selector("#m-turn:has-text('Match over')")
