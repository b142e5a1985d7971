"""Quarriors! on the phone in a real browser: the New match form with the Power Cards (a
repeated class named by the engine, then the table's own cards), the drawn table (the
Wilds' cards with their dice, each player's zones), a live draw and roll, the goal, a
question answered, and an attack resolved step by step."""

from __future__ import annotations

from typing import Any

from phone import browser_fixtures, require_browser

served, server, page = browser_fixtures(require_browser())

CREATURES = ["Mighty Deathdealer", "Defender of the Pale", "Devotee of the Holy Query",
             "Strong Ghostly Spirit", "Quake Dragon", "Questing Wizard", "Scavenging Goblin"]
SPELLS = ["Life Spell", "Death Charm", "Growth Incantation"]
DRAW = ["draw basic_quiddity"] * 5 + ["draw assistant"] + ["roll assistant L1-1/2"] + \
    ["roll basic_quiddity Q1"] * 3 + ["roll basic_quiddity Q2"] * 2
"""six dice out of the bag, rolled: an Assistant on its creature face"""


def test_quarriors_setup_live_move_and_question(server: tuple[str, Any], page: Any) -> None:
    url, app = server
    page.goto(url + "/#/new")
    page.locator("#game-select").select_option("quarriors")
    page.wait_for_selector("#power-box")
    assert "dealt at random" in page.locator("#power-tally").inner_text()
    # two cards of one class: the engine names the rule next to the cards
    for name in ["Quake Dragon", "Strong Quake Dragon"]:
        page.locator(f"#power-box input[value='{name}']").check()
    page.wait_for_selector("#power-box .msg:has-text('repeats the class')")
    page.locator("#power-box input[value='Strong Quake Dragon']").uncheck()
    for name in CREATURES + SPELLS:
        box = page.locator(f"#power-box input[value='{name}']")
        if not box.is_checked():
            box.check()
    page.wait_for_selector("#power-tally:has-text('Chosen: 10 cards')")
    page.wait_for_selector("#power-box .msg", state="hidden")
    page.get_by_label("name of player 1").fill("Quinn")
    page.get_by_label("name of player 2").fill("Monique")
    page.get_by_role("button", name="Start").click()
    page.wait_for_selector("#m-title:has-text('Quarriors')")
    mid = page.evaluate("location.hash").split("/")[-1]
    service = app.state.service
    assert sorted(service.view(mid)["state"]["cards"]) == sorted(CREATURES + SPELLS)

    # the Wilds: the three basic cards and the ten in play, with the dice left on each
    page.wait_for_selector("#q-wilds .qcard[title='Quake Dragon: 5 dice left']")
    assert page.locator("#q-wilds .qcard").count() == 13
    assert page.locator("#q-wilds .qcard[title='Basic Quiddity: 0 dice left']").count() == 1
    assert "goal 20 glory" in page.locator("#q-turn").inner_text()
    assert page.locator("#m-turn").inner_text() == "Quinn to play"
    assert "draw and roll" in page.locator("#m-phase").inner_text()
    # the list of moves (the fallback) in words, each button still sending the move's ids
    listed = page.locator("#m-actions button[data-action='draw basic_quiddity']")
    assert listed.inner_text() == "draw basic quiddity"
    assert "_" not in page.locator("#m-actions").inner_text()

    # a draw the camera is unsure of: what both readings say is said once, and each answer
    # is only what it says (two runs of twelve moves that differ in one die's face)
    other = [a if a != "roll assistant L1-1/2" else "roll assistant reroll*" for a in DRAW]
    service.note(mid, "question", "which draw?",
                 data={"candidates": [{"actions": DRAW}, {"actions": other}]})
    page.wait_for_selector("#m-pending.question")
    buttons = page.locator("#m-pending button.answer[data-action]")
    assert buttons.count() == 2
    assert [buttons.nth(i).inner_text() for i in range(2)] == [
        "roll assistant L1-1/2", "roll assistant reroll*"]
    asked = page.locator("#m-pending .ask").inner_text()
    assert "draw basic quiddity ×5" in asked and "_" not in asked and len(asked) < 200

    # a live move (which also closes the question): Quinn draws six dice and rolls them
    service.act(mid, "; ".join(DRAW), None, source="camera")
    page.wait_for_selector("#q-active-0 .qdie >> nth=5")
    assert page.locator("#q-active-0 .qdie[title='basic quiddity: Q2']").count() == 2
    assert "6 in the bag" in page.locator(".zone:has(#q-active-0) h3").inner_text()

    # the camera asks which die was spent; the players answer on the phone
    service.note(mid, "question", "spend basic_quiddity Q1 or spend basic_quiddity Q2?",
                 data={"candidates": [{"actions": ["spend basic_quiddity Q1"]},
                                      {"actions": ["spend basic_quiddity Q2"]}]})
    page.wait_for_selector("#m-pending.question")
    asked = page.locator("#m-pending").inner_text()
    assert "basic quiddity" in asked.lower() and "_" not in asked  # in words, not ids
    page.locator("#m-pending button.answer[data-action='spend basic_quiddity Q2']").click()
    page.wait_for_selector("#m-log li.answer")
    page.wait_for_selector("#q-spent-0 .qdie[title='basic quiddity: Q2']")
    assert "2 quiddity" in page.locator("#q-turn").inner_text()
    assert page.locator("#q-active-0 .qdie").count() == 5

    # an attack step by step: each summons an Assistant; Monique attacks, Quinn defends
    service.act(mid, "summon assistant L1-1/2; attack; end", None, source="camera")
    service.act(mid, "; ".join(DRAW + ["spend basic_quiddity Q2", "summon assistant L1-1/2",
                                       "attack"]), None, source="camera")
    page.wait_for_selector("#q-attack:has-text('Monique attacks: Quinn defends, 1 damage left')")
    assert page.locator("#m-turn").inner_text() == "Quinn to play"
    assert "choose a creature to defend" in page.locator("#m-phase").inner_text()
    assert page.locator("#q-ready-0 .qdie[title='assistant: L1 1/2']").count() == 1
    service.act(mid, "defend r1", None, source="camera")
    page.wait_for_selector("#q-attack", state="detached")
    assert "capture a die" in page.locator("#m-phase").inner_text()
