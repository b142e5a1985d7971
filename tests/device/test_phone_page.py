"""The phone page in a real browser (Debian's chromium driven by Playwright): start a match,
see the state change, answer a question, undo — on a phone-sized screen."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from device.enrolment import Enroller
from device.store import SQLiteStore
from device.web import create_app

CHROMIUM = os.environ.get("DICETABLE_CHROMIUM") or shutil.which("chromium") or \
    shutil.which("chromium-browser")
if os.environ.get("CI") and CHROMIUM is None:  # in CI the browser test must run
    pytest.fail("CI without chromium: .ci/run should have installed it", pytrace=False)
sync_api = pytest.importorskip("playwright.sync_api",
                               reason="playwright is not installed (extra 'dev')")
if CHROMIUM is None:
    pytest.skip("no chromium on this machine (.ci/run installs Debian's chromium)",
                allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """The app served by uvicorn in a thread; it can be stopped and started again on the
    same port over the same database (a restart, as the phone sees it)."""

    def __init__(self, db: Path, profile: Path) -> None:
        self.db, self.profile, self.port = db, profile, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.start()

    def start(self) -> None:
        import uvicorn

        self.app = create_app(SQLiteStore(self.db), enroller=Enroller(self.profile))
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
        yield pg
        browser.close()
        assert errors == []


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
    page.locator("#m-pending button.answer", has_text="roll red SM").click()
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
        page.goto(url + "/")
        page.wait_for_selector("#matches li:has-text('Demo table')")
        page.locator("#matches li", has_text="Demo table").first.click()
        page.wait_for_selector("#m-title:has-text('IceDice')")
        page.wait_for_function("Number(document.querySelector('#m-title').dataset.version) >= 3",
                               timeout=60_000)  # the state changes live
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
    page.locator("#m-pending button.answer", has_text=candidates[1]).click()
    page.wait_for_selector(f"#m-log li:has-text('{candidates[1]}')")
    assert service.view(mid)["entries"][-1]["text"] == candidates[1]
    page.get_by_role("button", name="Undo").click()
    page.wait_for_selector("#m-log li.undo")
    assert service.view(mid)["entries"][-1]["kind"] == "undo"


def test_teach_a_die_from_the_phone(server: tuple[str, Any], page: Any, tmp_path: Path) -> None:
    """Enrolment on the page: photos of one face are sent, the die is listed with its shots;
    a file that is not a photo is refused with the reason."""
    import cv2

    from calibration.enrolment import load_enrolled
    from vision.renderer import CameraPose, DieSpec, Scene, render

    cam = CameraPose(width=320, height=240, fov_deg=60, distance_mm=150)
    photos = []
    for k, yaw in enumerate((0.0, 40.0, 75.0)):
        shot = render(Scene((DieSpec(0.0, 0.0, 6, yaw_deg=yaw),), cam, seed=k)).image
        photos.append({"name": f"emblem{k}.jpg", "mimeType": "image/jpeg",
                       "buffer": cv2.imencode(".jpg", shot)[1].tobytes()})
    url, _ = server
    page.goto(url + "/")
    page.get_by_role("button", name="Teach a die").click()
    page.wait_for_selector("#enrolled li:has-text('No die taught yet')")
    page.locator("[name=die]").fill("club d6")
    page.locator("[name=face]").fill("emblem")
    page.locator("#enrol-base").select_option("d6")
    page.locator("[name=photos]").set_input_files(photos)
    page.get_by_role("button", name="Teach").click()
    page.wait_for_selector("#enrolled li:has-text('club d6')")
    assert "emblem ×3" in page.locator("#enrolled li", has_text="club d6").inner_text()
    assert len(load_enrolled(tmp_path / "profile.toml")["club d6"].shots["emblem"]) == 3

    page.locator("[name=photos]").set_input_files(
        [{"name": "notes.jpg", "mimeType": "image/jpeg", "buffer": b"not a photo" * 20}])
    page.get_by_role("button", name="Teach").click()
    page.wait_for_selector("#enrol-status:has-text('notes.jpg')")
    assert "not an image" in page.locator("#enrol-status").inner_text()


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
    page.wait_for_function(f"state.view.version > {view['version']}")
    after = service.view(mid)
    assert after["live"] == [] and after["state"]["dice"] is None


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
    page.get_by_role("button", name="next entry").click()  # the names
    page.get_by_role("button", name="next entry").click()  # the camera's roll
    page.wait_for_selector("#r-entry:has-text('roll red SM')")
    page.get_by_role("button", name="next entry").click()  # ...and its take, with a picture
    page.wait_for_selector("#r-entry:has-text('take red M') img.evidence")
    assert page.evaluate("document.querySelector('#r-entry img').naturalWidth") == 80
    page.wait_for_selector("#r-table .zone:has-text('Counter') .piece[title='red M']")
    assert page.locator("#r-turn").inner_text() == "Ann to play"
    page.get_by_role("button", name="previous entry").click()
    page.wait_for_selector(f"#r-step:has-text('2 / {steps}')")
    page.wait_for_selector("#r-entry:has-text('roll red SM')")
    assert page.locator("#r-table .zone:has-text('Counter') .piece").count() == 0
    page.locator("#r-slider").evaluate(
        f"(s) => {{ s.value = {steps - 1}; s.dispatchEvent(new Event('input')); }}")
    page.wait_for_selector(f"#r-step:has-text('{steps - 1} / {steps}')")
    page.wait_for_function(f"location.hash.endsWith('/{steps - 1}')")
    page.get_by_role("button", name="last entry").click()
    page.wait_for_selector("#r-outcome:has-text('win')")
    with page.expect_download() as download:  # the play, for BG Stats on the same phone
        page.get_by_role("link", name="a BG Stats play").click()
    assert download.value.suggested_filename == f"dicetable-{mid}.bgsplay"
    page.get_by_role("link", name="Open").click()
    page.wait_for_selector("#m-turn:has-text('Match over')")


def test_pyramid_dice_cards_with_a_mistake_then_start(server: tuple[str, Any],
                                                      page: Any) -> None:
    """The card entry: the example is prefilled with its warning; a wrong number is named
    next to its field by the engine and stops the start; a removed card is counted; fixed,
    with the cards entered as they lie, the match starts with them."""
    url, app = server
    page.goto(url + "/#/new")
    page.locator("#game-select").select_option("pyramid_dice")
    page.wait_for_selector(".card-row[data-row='27']")
    assert "EXAMPLE — not the box's contents" in page.locator("#cards-box .warning").inner_text()

    page.get_by_label("card 3 number", exact=True).fill("0")
    row = page.locator(".card-row[data-row='2']")
    row.locator(".msg:has-text('must be a positive whole number')").wait_for()
    assert page.get_by_label("card 3 number", exact=True).get_attribute("aria-invalid") == "true"
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#toast:has-text('The setup has problems')")
    assert not page.locator("#new-view").is_hidden()

    page.get_by_label("card 3 number", exact=True).fill("33")
    row.locator(".msg").wait_for(state="hidden")
    page.get_by_label("remove card 1", exact=True).click()
    page.wait_for_selector("#cards-box .msg:has-text('20 treasure cards, not 21')")
    page.get_by_role("button", name="Add a card").click()
    page.get_by_label("card 28 id", exact=True).fill("t1")
    page.get_by_label("card 28 number", exact=True).fill("1")
    page.wait_for_selector("#cards-box .msg:has-text('20 treasure')", state="hidden")
    assert "21 treasure + 7 god = 28 cards" in page.locator("#card-tally").inner_text()

    page.locator("#placement-on").check()
    page.get_by_label("card in r7c1", exact=True).wait_for()
    apex = page.get_by_label("card in r1c1", exact=True).input_value()
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#m-title:has-text('Pyramid Dice')")
    mid = page.evaluate("location.hash").split("/")[-1]
    state = app.state.service.view(mid)["state"]
    assert {c["id"]: c["number"] for c in state["cards"]}["t3"] == 33
    assert state["provenance"]["cards"] == "entered by the players"
    assert state["pyramid"]["r1c1"] == apex
    page.wait_for_selector("#m-table .card[data-slot='r1c1']")


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


def test_pyradice_sheet_entry(server: tuple[str, Any], page: Any) -> None:
    """The Pyradice token sheet as a form: an objective's values outside 1–6 get the
    vocabulary's message on the field; fixed, the entry is sent as the players' own."""
    url, _ = server
    page.goto(url + "/#/new")
    page.locator("#game-select").select_option("pyradice")
    page.wait_for_selector("#sheet-box .warning:has-text('EXAMPLE')")
    page.locator("#sheet-box summary", has_text="objectives").click()
    values = page.get_by_label("objective C6 values", exact=True)
    values.fill("3, 9")
    page.wait_for_selector("#sheet-box .msg:has-text('die values 1–6')")
    assert values.get_attribute("aria-invalid") == "true"
    values.fill("3, 4")
    page.wait_for_selector("#sheet-box .msg:has-text('die values')", state="hidden")
    with page.expect_request("**/api/matches") as sent:
        page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#m-title:has-text('Pyradice')")
    sheet = sent.value.post_data_json["setup"]["sheet"]
    (c6,) = [d for d in sheet["objectives"] if d["id"] == "C6"]
    assert c6["values"] == [3, 4] and "provenance" not in c6  # now the players' own
