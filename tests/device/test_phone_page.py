"""The phone page in a real browser (Debian's chromium driven by Playwright), on a phone-sized
screen: start a match, see the state change, answer a question, undo; follow the demo
table; correct a die the camera misread; lose the connection and get it back."""

from __future__ import annotations

import threading
import time
from typing import Any

from phone import browser_fixtures, require_browser, wait_until

served, server, page = browser_fixtures(require_browser())


def test_new_match_play_answer_undo(server: tuple[str, Any], page: Any) -> None:
    url, app = server
    page.goto(url + "/")
    page.get_by_role("button", name="New match").click()
    page.locator("#game-select").select_option("icedice")
    page.locator("[name=title]").fill("Browser test")
    page.get_by_label("name of player 1").fill("Ann")
    page.get_by_label("name of player 2").fill("Bob")
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#m-title:has-text('IceDice')")
    assert page.locator("#m-turn").inner_text() == "Ann to play"
    assert page.locator("#m-scores th").all_inner_texts() == ["Ann", "Bob"]

    # the state changes: roll, then the only possible take
    page.locator("#m-filter").fill("roll green SL")
    page.locator("#m-actions button", has_text="roll green SL").click()
    page.wait_for_selector("#m-log li:has-text('roll green SL')")
    page.locator("#m-filter").fill("")
    page.wait_for_selector("#m-actions button:has-text('take green S')")
    page.locator("#m-actions button", has_text="take green L").click()
    page.wait_for_selector("#m-log li:has-text('take green L')")
    page.wait_for_selector("#m-table .zone:has-text('Counter') .piece[title='green L']")

    # the camera asks a question (through the live WebSocket); the players answer it
    match_id = page.evaluate("location.hash").split("/")[-1]
    service = app.state.service
    service.note(match_id, "question", "roll red S or roll red SM?",
                 data={"candidates": [{"actions": ["roll red S"]},
                                      {"actions": ["roll red SM"]}]})
    page.wait_for_selector("#m-pending.question")
    # the choices are said in words ("small+medium"); each button carries its action
    page.locator("#m-pending button.answer[data-action='roll red SM']").click()
    page.wait_for_selector("#m-log li.answer")
    assert page.locator("#m-pending").is_hidden()
    assert "red" in page.locator("#m-actions").inner_text()

    # undo takes the roll back
    page.get_by_role("button", name="Undo").click()
    page.wait_for_selector("#m-log li.undo")
    view = service.view(match_id)
    assert view["entries"][-1]["kind"] == "undo" and view["state"]["dice"] == ["green", "SL"]

    # with the live connection lost, a second phone moves: this phone's action is stale,
    # refused, and the page says so and shows the new state
    page.evaluate("() => { const live = state.ws; state.ws = null; live.socket.close(); }")
    service.act(match_id, "stop", None, source="other phone")
    page.locator("#m-typed").fill("roll red S")
    page.get_by_role("button", name="Send").click()
    page.wait_for_selector("#toast:has-text('changed')")
    page.wait_for_selector("#m-turn:has-text('Bob to play')")

    # the list shows the match
    page.goto(url + "/#")
    page.wait_for_selector("#matches li:has-text('Browser test')")


def test_demo_table_live_question_and_undo(server: tuple[str, Any], page: Any) -> None:
    """The demo: the simulated table plays while the page watches; a question is answered
    on the page; undo takes the answer back."""
    from device.demo import DemoTable

    url, app = server
    service = app.state.service
    demo = DemoTable(service, "icedice", 2, seed=3, speed=8.0, answer_after=1000.0)
    stop = threading.Event()
    thread = threading.Thread(target=demo.run, args=(stop,), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while demo.match_id is None and time.monotonic() < deadline:
            time.sleep(0.05)
        # as `dicetable demo` wires it: /api/health names the match the table follows, whose
        # picture the page keeps asking for until the camera has read the table
        app.state.status = lambda: {"camera": "simulated table", "match": demo.match_id}
        page.goto(url + "/")  # opens on the match the table follows
        page.wait_for_selector("#m-title:has-text('IceDice')")
        wait_until(page, "Number(document.querySelector('#m-title').dataset.version) >= 3",
                   timeout=60)  # the state changes live
        # the live view shows the table as the camera last read it
        page.wait_for_selector("#m-live-box:not([hidden])", timeout=30_000)
        assert page.evaluate("document.querySelector('#m-live').naturalWidth") >= 320
    finally:
        stop.set()
        thread.join(timeout=10)
    mid = demo.match_id
    view = service.view(mid)
    candidates = [a for a in view["legal_actions"] if a != "stop"][:2]
    service.note(mid, "question", " or ".join(candidates) + "?",
                 data={"candidates": [{"actions": [a]} for a in candidates]})
    page.wait_for_selector("#m-pending.question")
    # the recorded move's own log line (the question's line names the candidates too, and
    # matched before the answer was recorded: issue 32, 11); the demo may have played the
    # same move before (IceDice's 'take red L' twice), so one more such line is the answer's
    lines = page.locator(f"#m-log li.action.live > span.text:text-is('{candidates[1]}')")
    before = lines.count()
    page.locator(f"#m-pending button.answer[data-action='{candidates[1]}']").click()
    deadline = time.monotonic() + 30
    while lines.count() <= before:
        assert time.monotonic() < deadline, f"no log line for the answer {candidates[1]!r}"
        time.sleep(0.1)
    assert service.view(mid)["entries"][-1]["text"] == candidates[1]
    page.get_by_role("button", name="Undo").click()
    page.wait_for_selector("#m-log li.undo")
    assert service.view(mid)["entries"][-1]["kind"] == "undo"


def run_demo_until(service: Any, until: Any, seed: int = 5) -> str:
    """Play the demo table (simulated camera) until ``until(view)``; returns the match."""
    from device.demo import DemoTable

    demo = DemoTable(service, "icedice", 2, seed=seed, speed=8.0, answer_after=1000.0)
    stop = threading.Event()
    thread = threading.Thread(target=demo.run, args=(stop,), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if demo.match_id is not None and until(service.view(demo.match_id)):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the demo table never got there")
    finally:
        stop.set()
        thread.join(timeout=10)
    assert demo.match_id is not None
    return demo.match_id


def test_correct_a_die_after_a_demo_roll(server: tuple[str, Any], page: Any) -> None:
    """The camera's last roll is shown with its dice; the players tap the colour die, pick
    what it really shows; one correction is logged and the table follows. An older move is
    then taken back by undoing back to it from the log."""
    url, app = server
    service = app.state.service

    def rolled_twice(view: dict[str, Any]) -> bool:
        rolls = [e for e in view["entries"] if e["kind"] == "action"
                 and e["text"].startswith("roll") and e["source"] == "camera"]
        last = view["last_camera"]
        return len(rolls) >= 2 and last is not None and \
            last["actions"][0]["text"].startswith("roll") and view["pending"] is None

    mid = run_demo_until(service, rolled_twice)
    before = service.view(mid)
    roll = before["last_camera"]["actions"][0]
    colour = roll["parts"][0]
    option = colour["options"][0]
    page.goto(f"{url}/#/m/{mid}")
    page.wait_for_selector("#m-camera h2:has-text('The camera read')")
    page.locator(f"#m-camera button.part.die[data-seq='{roll['seq']}']",
                 has_text=colour["word"]).first.click()
    page.wait_for_selector(f"#m-fix:has-text('The camera read {colour['word']}')")
    page.locator("#m-fix .faces button", has_text=option["value"]).first.click()
    page.wait_for_selector("#m-log li.correction")
    page.wait_for_selector("#toast:has-text('Corrected')")
    view = service.view(mid)
    note = next(e for e in view["entries"] if e["kind"] == "correction")
    assert note["data"]["was"] == roll["text"] and note["data"]["now"] == option["action"]
    assert note["data"]["amendments"][0]["value"] == option["value"]
    assert view["state"]["dice"][0] == option["value"]
    # the page shows the corrected move and die
    page.wait_for_selector(f"#m-camera button.part.die:has-text('{option['value']}')")
    assert page.locator("#m-table .die").first.inner_text() == option["value"]

    # a wrong acceptance further back: undo back to the first roll, from the log
    first = next(e for e in view["entries"] if e["kind"] == "action")
    row = page.locator(f"#m-log li.live[data-seq='{first['seq']}']")
    row.click()
    row.get_by_role("button", name="Undo back to here").click()
    wait_until(page, f"state.view.version > {view['version']}")
    after = service.view(mid)
    assert after["live"] == [] and after["state"]["dice"] is None


def test_lost_connection_and_server_restart(served: Any, page: Any) -> None:
    """The server goes away: the page says so, an action is not lost silently, and when the
    server is back (restarted over the same database) the page reconnects by itself."""
    mid = served.app.state.service.create("icedice", 2, {}, None, 1, "restart", None)
    page.goto(f"{served.url}/#/m/{mid}")
    page.wait_for_selector("#m-turn:has-text('P1 to play')")
    page.wait_for_selector("#conn:has-text('live')")
    served.stop()
    page.wait_for_selector("#net:has-text('reconnecting')", timeout=15_000)
    assert page.locator("#conn").inner_text() == "offline"
    page.locator("#m-filter").fill("roll red S")
    page.locator("#m-actions button", has_text="roll red SM").click()
    page.wait_for_selector("#toast:has-text('No connection to the table')")

    served.start()
    page.wait_for_selector("#net", state="hidden", timeout=30_000)
    served.app.state.service.act(mid, "roll red SM", None, source="other phone")
    page.wait_for_selector("#m-log li:has-text('roll red SM')")
    page.locator("#m-filter").fill("")
    page.locator("#m-actions button", has_text="take red M").click()
    page.wait_for_selector("#m-log li:has-text('take red M')")

    # a server restarted without this match (a demo's in-memory table): the page says so
    served.stop()
    served.db = served.db.with_name("other.sqlite")
    served.start()
    page.wait_for_selector("#net:has-text('not on the table')", timeout=30_000)
    page.get_by_role("link", name="See the matches").click()
    page.wait_for_selector("#matches li:has-text('No match yet')")
    assert page.locator("#net").is_hidden()
    # away from a match the page retries by itself too, and refreshes the list
    served.stop()
    page.evaluate("location.hash = '#/list'")
    page.wait_for_selector("#net:has-text('No connection to the table')")
    served.start()
    served.app.state.service.create("icedice", 2, {}, None, 1, "after the restart", None)
    page.wait_for_selector("#matches li:has-text('after the restart')", timeout=20_000)
    assert page.locator("#net").is_hidden()
