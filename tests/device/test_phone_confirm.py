"""The phone page's yes/no question (a real browser): the camera saw a Pyramid Dice snatch
by a player other than the next one, but not the players between saying nothing
(pyramid_dice.snatch: '…if that player says nothing the right passes to the following
player.'; 次のプレイヤーが何も言わなければその次のプレイヤーに権利があります). One question,
answered by tapping: yes records the snatch with the answer, no records nothing."""

from __future__ import annotations

import threading
from typing import Any

from phone import browser_fixtures, require_browser
from test_runtime import ScriptedSource, ScriptedTable

from device.runtime import Runtime
from engine import get_game
from engine.observation import observe_view

served, server, page = browser_fixtures(require_browser())
GAME = get_game("pyramid_dice")


def _camera_sees_a_later_snatch(service: Any) -> tuple[str, str]:
    """A 3-player match (snatch on) where P1 rolled 2 3 4 and the camera then sees P3's
    snatch: (match id, the snatch's text)."""
    mid = service.create("pyramid_dice", 3, {"snatch": True}, None, 1, "Snatch")
    service.act(mid, "roll 2 3 4", None)
    state = service.match(mid).state
    snatch = next(a for a in GAME.legal_actions(state) if a.to_str().startswith("snatch P3"))
    table = {0: observe_view(GAME.expected_view(state)),
             1: observe_view(GAME.expected_view(GAME.apply(state, snatch)[0]))}
    Runtime(ScriptedSource([0, 1]), ScriptedTable(lambda frame: table[int(frame.image[0, 0, 0])]),
            service, mid, live_view=False).run(threading.Event())
    return mid, snatch.to_str()


def test_yes_records_the_snatch_with_the_answer(server: tuple[str, Any], page: Any) -> None:
    url, app = server
    service = app.state.service
    mid, snatch = _camera_sees_a_later_snatch(service)
    page.goto(f"{url}/#/m/{mid}")
    box = page.locator("#m-pending.question")
    box.wait_for()
    assert "Please confirm. Did P2 say nothing (pass) before P3 snatched" in box.inner_text()
    assert f"The camera saw: {snatch}" in box.inner_text()
    assert box.locator("button").all_inner_texts() == ["Yes", "No"]
    box.get_by_role("button", name="Yes").click()
    page.wait_for_selector(f"#m-log li.action:has-text('{snatch}')")
    assert page.locator("#m-pending").is_hidden()
    entries = service.view(mid)["entries"]
    assert [(e["kind"], e["text"], e["source"]) for e in entries[-2:]] == [
        ("answer", snatch, "phone"), ("action", snatch, "phone")]
    assert entries[-2]["data"]["question"] == entries[-3]["seq"]


def test_no_records_nothing(server: tuple[str, Any], page: Any) -> None:
    url, app = server
    service = app.state.service
    mid, _ = _camera_sees_a_later_snatch(service)
    page.goto(f"{url}/#/m/{mid}")
    page.locator("#m-pending.question").get_by_role("button", name="No").click()
    page.wait_for_selector("#toast:has-text('Not recorded')")
    assert page.locator("#m-pending").is_hidden()
    assert service.match(mid).actions == ["roll 2 3 4"]
    last = service.view(mid)["entries"][-1]
    assert (last["kind"], last["text"], last["source"]) == ("answer", "no", "phone")
