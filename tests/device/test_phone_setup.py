"""Setup on the phone in a real browser: Pyramid Dice cards entered with a mistake then
started, IceDice for seven players, the Pyradice token sheet, and teaching the reader a
die."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from phone import browser_fixtures, require_browser

served, server, page = browser_fixtures(require_browser())


def test_pyramid_dice_cards_with_a_mistake_then_start(server: tuple[str, Any],
                                                      page: Any) -> None:
    """The card entry: the example is prefilled with its warning; a wrong number is named
    next to its field by the engine and stops the start; a removed card is counted; fixed,
    with the cards entered as they lie, the match starts with them."""
    url, app = server
    page.goto(url + "/#/new")
    page.locator("#game-select").select_option("pyramid_dice")
    page.wait_for_selector(".card-row[data-row='27']", state="attached")
    assert "EXAMPLE — not the box's contents" in page.locator("#cards-box .warning").inner_text()
    # the example's 28 rows are folded: the form is short, Start within about two screens
    assert page.locator(".card-row[data-row='0']").is_hidden()
    assert page.evaluate("document.querySelector('#new-form button[type=submit]')"
                         ".getBoundingClientRect().bottom + scrollY") < 2 * 844
    page.locator("#card-rows-box > summary").click()

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

    page.locator("#pyramid-box > summary").click()
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


def test_icedice_for_more_than_six_players(server: tuple[str, Any], page: Any) -> None:
    """icedice.number_of_players: 'Number of Players: 2 (although more can play if you have
    extra pyramids)': the form takes as many as the API does (8); a game with a limit keeps
    its own (Pyramid Dice: 5)."""
    url, app = server
    page.goto(url + "/#/new")
    page.locator("#game-select").select_option("pyramid_dice")
    players = page.locator("[name=players]")
    assert players.get_attribute("max") == "5"
    page.locator("#game-select").select_option("icedice")
    assert players.get_attribute("max") == "8"
    players.fill("7")
    players.dispatch_event("input")
    assert page.get_by_label("name of player 7").is_visible()
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#m-title:has-text('IceDice')")
    assert page.locator("#m-scores th").count() == 7
    mid = page.evaluate("location.hash").split("/")[-1]
    state = app.state.service.view(mid)["state"]
    assert len(state["vaults"]) == 7 and len(state["bank"]) == 7 * 15


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


def test_teach_a_die_from_the_phone(server: tuple[str, Any], page: Any, tmp_path: Path) -> None:
    """Enrolment on the page: photos of one face are sent, the die is listed with its shots;
    a file that is not a photo is refused with the reason."""
    import cv2

    from calibration.enrolment import load_enrolled
    from vision.synth.renderer import CameraPose, DieSpec, Scene, render

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
