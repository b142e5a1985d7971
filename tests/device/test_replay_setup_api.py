"""Replay (each step replayed by the rules), player names, answers without an action, and
the setup the players enter (Pyramid Dice cards and layout, the Pyradice sheet), checked by
the engine field by field."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from device.store import SQLiteStore
from device.web import create_app
from engine import get_game


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(SQLiteStore(tmp_path / "r.sqlite"))) as c:
        yield c


def played(client: TestClient, game: str = "icedice", seed: int = 4) -> tuple[str, list[str]]:
    """A finished match played from the phone (random legal moves), with one undo."""
    mid = str(client.post("/api/matches", json={"game": game, "players": 2,
                                                "names": ["Ann", "Bob"]}).json()["id"])
    rules, rng, texts = get_game(game), random.Random(seed), []
    state = rules.new_state(2)
    while rules.outcome(state) is None:
        action = rules.random_action(state, rng)
        client.post(f"/api/matches/{mid}/actions", json={"action": action.to_str()})
        state = rules.apply(state, action)[0]
        texts.append(action.to_str())
        if len(texts) == 3:
            client.post(f"/api/matches/{mid}/undo",
                        json={"version": client.get(f"/api/matches/{mid}").json()["version"]})
            client.post(f"/api/matches/{mid}/actions", json={"action": action.to_str()})
    return mid, texts


def test_replay_steps_are_the_rules_replaying_the_log(client: TestClient) -> None:
    mid, texts = played(client)
    index = client.get(f"/api/matches/{mid}/replay").json()
    assert index["names"] == ["Ann", "Bob"] and index["steps"] == len(texts) + 2
    assert index["entries"][0]["kind"] == "action" and not index["entries"][0]["evidence"]
    game = get_game("icedice")
    state = game.new_state(2)
    start = client.get(f"/api/matches/{mid}/replay/0").json()
    assert start["entry"] is None and start["state"] == state.to_dict()
    assert start["names"] == ["Ann", "Bob"]  # the names are the record's, from the setup
    step3 = client.get(f"/api/matches/{mid}/replay/3").json()  # 3 moves
    assert step3["state"] == game.play(state, texts[:3]).to_dict()
    assert client.get(f"/api/matches/{mid}/replay/4").json()["state"] == \
        game.play(state, texts[:2]).to_dict()  # the undo
    end = client.get(f"/api/matches/{mid}/replay/{index['steps']}").json()
    live = client.get(f"/api/matches/{mid}").json()
    assert end["state"] == live["state"] and end["outcome"] == live["outcome"] is not None
    assert end["scores"] == live["scores"] and end["names"] == ["Ann", "Bob"]
    for bad in (-1, index["steps"] + 1):
        r = client.get(f"/api/matches/{mid}/replay/{bad}")
        assert r.status_code in (404, 422) and r.json()["message"]
    assert client.get("/api/matches/nope/replay").status_code == 404


def test_replay_marks_the_moves_with_a_picture(client: TestClient) -> None:
    mid = str(client.post("/api/matches", json={"game": "icedice", "players": 2}).json()["id"])
    service = client.app.state.service  # type: ignore[attr-defined]
    game = get_game("icedice")
    service.accept(mid, [game.parse_action("roll red S"), game.parse_action("take red S")],
                   0.9, thumbnail=b"\xff\xd8pic", data={"frame": 3})
    entries = client.get(f"/api/matches/{mid}/replay").json()["entries"]
    assert [e["evidence"] for e in entries] == [False, True]
    assert client.get(f"/api/matches/{mid}/evidence/1").content == b"\xff\xd8pic"


def test_names_are_the_records_and_renames_are_logged(client: TestClient) -> None:
    mid = str(client.post("/api/matches", json={"game": "icedice", "players": 3,
                                                "names": ["  Ann  ", ""]}).json()["id"])
    view = client.get(f"/api/matches/{mid}").json()
    assert view["names"] == ["Ann", "P2", "P3"] and view["version"] == 0
    assert client.app.state.service.record(mid)["names"] == ["Ann", ""]  # type: ignore
    view = client.put(f"/api/matches/{mid}/names",
                      json={"names": ["Ann", "Bob", "Cy"], "version": 0}).json()
    assert view["names"] == ["Ann", "Bob", "Cy"]
    assert view["entries"][-1] == {"seq": 0, "kind": "names", "text": "players: Ann, Bob, Cy",
                                   "source": "phone", "data": {"names": ["Ann", "Bob", "Cy"]}}
    for body, code in [({"names": ["a", "b", "c", "d"], "version": 1}, "names/invalid"),
                       ({"names": ["x" * 30], "version": 1}, "names/invalid"),
                       ({"names": "Ann", "version": 1}, "request/invalid"),
                       ({"names": ["Ann"]}, "request/invalid"),  # renames need the version
                       ({"names": ["Ann"], "version": 0}, "action/stale_state_id")]:
        r = client.put(f"/api/matches/{mid}/names", json=body)
        assert r.status_code in (409, 422) and r.json()["code"] == code, r.text
    r = client.post("/api/matches", json={"game": "icedice", "players": 2,
                                          "names": ["a", "b", "c"]})
    assert r.status_code == 422 and r.json()["code"] == "names/invalid"


def test_a_question_answered_with_no_action(client: TestClient) -> None:
    mid = str(client.post("/api/matches", json={"game": "icedice", "players": 2}).json()["id"])
    service = client.app.state.service  # type: ignore[attr-defined]
    service.note(mid, "violation", "a piece was taken without a roll",
                 data={"rule": "icedice.roll_again", "rule_text": "You may..."})
    assert client.get(f"/api/matches/{mid}").json()["pending"]["kind"] == "violation"
    view = client.post(f"/api/matches/{mid}/answers",
                       json={"question": 0, "text": "override: the camera is wrong",
                             "version": 1}).json()
    assert view["pending"] is None
    assert view["entries"][-1]["data"] == {"question": 0}
    r = client.post(f"/api/matches/{mid}/answers", json={"question": 1})
    assert r.status_code == 422 and r.json()["code"] == "answer/not_a_question"


# --- setup ----------------------------------------------------------------------------------
def test_pyramid_dice_form_carries_the_example_with_its_warning(client: TestClient) -> None:
    form = client.get("/api/games/pyramid_dice/setup").json()
    cards = form["cards"]
    assert len(cards["example"]) == 28 and cards["provenance"].startswith("EXAMPLE")
    assert cards["counts"] == {"treasure": 21, "god": 7} and "reroll" in cards["abilities"]
    assert form["layout"]["rows"] == 7 and form["layout"]["provenance"].startswith("EXAMPLE")
    assert client.get("/api/games/icedice/setup").json() == {"game": "icedice"}
    r = client.get("/api/games/chess/setup")
    assert r.status_code == 404 and r.json()["code"] == "game/unknown"


def check(client: TestClient, setup: dict[str, Any], game: str = "pyramid_dice",
          players: int = 2) -> dict[str, Any]:
    r = client.post(f"/api/games/{game}/setup/check", json={"players": players,
                                                            "setup": setup})
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_each_wrong_card_gets_the_engines_message_on_its_field(client: TestClient) -> None:
    cards = copy.deepcopy(client.get("/api/games/pyramid_dice/setup").json()["cards"]["example"])
    assert check(client, {"cards": cards}) == {"ok": True, "errors": []}
    cards[2]["number"] = 0
    cards[5]["back"] = 3
    cards[24]["ability"] = "fly"
    errors = check(client, {"cards": cards})["errors"]
    assert [e["path"] for e in errors] == [["cards", 2, "number"], ["cards", 5, "back"],
                                          ["cards", 24, "ability"]]
    assert errors[0]["message"] == "'number' must be a positive whole number, not 0"
    cards[2]["number"], cards[5]["back"], cards[24]["ability"] = 3, 1, "flip"
    cards[7]["id"] = cards[3]["id"]
    assert check(client, {"cards": cards})["errors"] == [
        {"path": ["cards", 7, "id"], "message": "this id is used twice"}]
    cards[7]["id"] = "t8"
    del cards[0]
    (error,) = check(client, {"cards": cards})["errors"]
    assert error["path"] == ["cards"] and "20 treasure cards, not 21" in error["message"]
    # the players' box has 20 treasure cards: they say so, and the layout no longer fits
    (error,) = check(client, {"cards": cards, "card_counts": {"treasure": 20, "god": 7}})[
        "errors"]
    assert error["message"] == "the layout has 28 slots for 27 cards"
    (error,) = check(client, {"layout": {"slots": "r1c1"}})["errors"]
    assert error["path"] == ["layout"]
    (error,) = check(client, {"placement": {"r1c1": "t1"}})["errors"]
    assert error["path"] == ["placement"] and "every slot" in error["message"]
    (error,) = check(client, {"first_player": 5})["errors"]
    assert error["path"] == ["first_player"]
    (error,) = check(client, {"cards": "all of them"})["errors"]
    assert error["path"] == ["cards"]


def test_pyradice_sheet_rows_are_checked_by_the_vocabulary(client: TestClient) -> None:
    form = client.get("/api/games/pyradice/setup").json()
    assert form["shapes"]["skill"]["adjust"]["by"] == {
        "type": "deltas", "default": [1, -1], "required": False, "choices": None}
    assert form["shapes"]["objective"]["values_in"]["values"]["required"] is True
    sheet = copy.deepcopy(form["sheet"])
    assert check(client, {"sheet": sheet}, "pyradice")["ok"]
    sheet["objectives"][0] = {"id": sheet["objectives"][0]["id"], "shape": "values_in",
                              "values": [3, 9], "text": "3 or 9"}
    sheet["skills"][1]["shape"] = "juggle"
    errors = check(client, {"sheet": sheet}, "pyradice")["errors"]
    assert [e["path"] for e in errors] == [["sheet", "skills", 1, "shape"],
                                          ["sheet", "objectives", 0, "values"]]
    assert "die values 1–6" in errors[1]["message"]


def test_a_match_starts_with_the_entered_cards(client: TestClient) -> None:
    cards = copy.deepcopy(client.get("/api/games/pyramid_dice/setup").json()["cards"]["example"])
    cards[0]["number"] = 33
    placement = {f"r{r}c{c}": "" for r in range(1, 8) for c in range(1, r + 1)}
    ids = [c["id"] for c in cards if c["back"] == 2] + [c["id"] for c in cards if c["back"] == 1]
    placement = dict(zip(placement, ids, strict=True))
    r = client.post("/api/matches", json={"game": "pyramid_dice", "players": 2,
                                          "setup": {"cards": cards, "placement": placement}})
    assert r.status_code == 201, r.text
    state = client.get(f"/api/matches/{r.json()['id']}").json()["state"]
    assert state["cards"][0]["number"] == 33 and state["pyramid"] == placement
    assert state["provenance"]["cards"] == "entered by the players"
