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


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    import uvicorn

    app = create_app(SQLiteStore(tmp_path / "page.sqlite"),
                     enroller=Enroller(tmp_path / "profile.toml"))
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    thread.join(timeout=10)


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
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#m-title:has-text('IceDice')")
    assert page.locator("#m-turn").inner_text() == "P1 to play"

    # the state changes: roll, then the only possible take
    page.locator("#m-filter").fill("roll green SL")
    page.locator("#m-actions button", has_text="roll green SL").click()
    page.wait_for_selector("#m-log li:has-text('roll green SL')")
    page.locator("#m-filter").fill("")
    page.wait_for_selector("#m-actions button:has-text('take green S')")
    page.locator("#m-actions button", has_text="take green L").click()
    page.wait_for_selector("#m-log li:has-text('take green L')")
    assert "green L" in (page.locator("#m-table").text_content() or "")

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
    page.evaluate("() => { const ws = state.ws; state.ws = null; ws.close(); }")
    service.act(match_id, "stop", None, source="other phone")
    page.locator("#m-typed").fill("roll red S")
    page.get_by_role("button", name="Send").click()
    page.wait_for_selector("#toast:has-text('changed')")
    page.wait_for_selector("#m-turn:has-text('P2 to play')")

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
