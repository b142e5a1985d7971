"""Correcting what the camera misread: one logged correction that replaces the action, keeps
the later moves that still follow, is judged by the rules and version-checked, moves the
evidence with it, and makes the camera's next reading of that die agree with the players."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_runtime import ScriptedSource, ScriptedTable

from device.matches.corrections import Amendment, amend, parts
from device.runtime import Runtime
from device.store import SQLiteStore
from device.web import create_app
from engine import Match, NoChange, Observation, Violation, get_game, reconcile
from engine.observation import observe_view

ICE = get_game("icedice")
JPEG = b"\xff\xd8 the table"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(SQLiteStore(tmp_path / "c.sqlite"))) as c:
        yield c


def camera_match(client: TestClient, *texts: str) -> str:
    """A match where the camera accepted ``texts`` from one frame, with a picture."""
    mid = str(client.post("/api/matches", json={"game": "icedice", "players": 2}).json()["id"])
    service = client.app.state.service  # type: ignore[attr-defined]
    service.accept(mid, [ICE.parse_action(t) for t in texts], 0.94, thumbnail=JPEG,
                   data={"frame": 7})
    return mid


def test_the_view_offers_each_die_with_its_legal_faces(client: TestClient) -> None:
    mid = camera_match(client, "roll red SM", "take red M")
    last = client.get(f"/api/matches/{mid}").json()["last_camera"]
    assert last["evidence"] == 1  # the picture is kept with the last action of the frame
    roll, take = last["actions"]
    assert (roll["seq"], roll["text"], take["text"]) == (0, "roll red SM", "take red M")
    colour, size = roll["parts"]
    assert (colour["word"], colour["object"], size["word"], size["object"]) == \
        ("red", "die", "SM", "die")
    assert {o["value"] for o in colour["options"]} == {"atom", "black", "blue", "green",
                                                      "yellow"}
    assert {"value": "ML", "action": "roll red ML"} in size["options"]
    # the piece taken is a part too (the camera may have misread its size)
    assert take["parts"][0]["object"] == "piece"


def test_parts_of_a_sorted_roll() -> None:
    """Pyramid Dice rolls are sorted multisets: a 3 corrected to a 6 moves in the text."""
    game = get_game("pyramid_dice")
    before = game.new_state(2, seed=1)
    (three,) = [p for p in parts(game, before, game.parse_action("roll 2 3 4"))
                if p["word"] == "3"]
    assert three["object"] == "die"
    assert {"value": "6", "action": "roll 2 4 6"} in three["options"]
    assert [o["value"] for o in three["options"]] == ["1", "2", "4", "5", "6"]


def test_correct_a_die_later_moves_that_follow_are_kept(client: TestClient) -> None:
    mid = camera_match(client, "roll red SM", "take red M")
    r = client.post(f"/api/matches/{mid}/corrections",
                    json={"seq": 0, "action": "roll red ML", "version": 2})
    assert r.status_code == 200, r.text
    view = r.json()
    kinds = [(e["kind"], e["text"]) for e in view["entries"]]
    assert kinds[2:] == [("correction", "roll red SM → roll red ML"),
                         ("undo", "undo take red M (correction 2)"),
                         ("undo", "undo roll red SM (correction 2)"),
                         ("action", "roll red ML"), ("action", "take red M")]
    note = view["entries"][2]["data"]
    assert note["replaces"] == 0 and note["dropped"] == []
    assert note["amendments"] == [{"kind": "die", "zone": "rolling", "slot": None,
                                   "attr": "face", "seen": "SM", "value": "ML"}]
    assert view["state"]["dice"] == ["red", "ML"] and view["state"]["counter"] == ["red M"]
    # the corrected move is still the camera's last move, and its picture followed it
    assert [a["text"] for a in view["last_camera"]["actions"]] == ["roll red ML", "take red M"]
    assert view["last_camera"]["evidence"] == 6
    assert client.get(f"/api/matches/{mid}/evidence/6").content == JPEG
    # the record replays through the rules to the same state (the store was written in one go)
    service = client.app.state.service  # type: ignore[attr-defined]
    assert service.store.load(mid).state == service.match(mid).state


def test_a_correction_takes_back_moves_that_no_longer_follow(client: TestClient) -> None:
    mid = camera_match(client, "roll red SM", "take red M")
    view = client.post(f"/api/matches/{mid}/corrections",
                       json={"seq": 0, "action": "roll blue SM", "version": 2}).json()
    assert view["entries"][2]["data"]["dropped"] == ["take red M"]
    assert view["state"]["dice"] == ["blue", "SM"] and view["state"]["counter"] == []
    # the picture of the move taken back goes with the corrected roll
    assert client.get(f"/api/matches/{mid}/evidence/5").content == JPEG


@pytest.mark.parametrize("body, status, code", [
    ({"seq": 0, "action": "roll red SM", "version": 2}, 422, "correction/same"),
    ({"seq": 0, "action": "take red S", "version": 2}, 422, "action/illegal"),
    ({"seq": 0, "action": "roll purple SM", "version": 2}, 422, "action/illegal"),
    ({"seq": 0, "action": "jump", "version": 2}, 422, "action/invalid"),
    ({"seq": 5, "action": "roll red S", "version": 2}, 422, "correction/not_live"),
    ({"seq": 0, "action": "roll red S", "version": 1}, 409, "action/stale_state_id"),
    ({"seq": -1, "action": "roll red S"}, 422, "request/invalid"),
    ({"seq": "first", "action": "roll red S"}, 422, "request/invalid"),
    ({"action": "roll red S"}, 422, "request/invalid"),
])
def test_bad_corrections_change_nothing(client: TestClient, body: dict[str, Any], status: int,
                                        code: str) -> None:
    mid = camera_match(client, "roll red SM", "take red M")
    r = client.post(f"/api/matches/{mid}/corrections", json=body)
    assert r.status_code == status and r.json()["code"] == code, r.text
    assert r.json()["message"]
    view = client.get(f"/api/matches/{mid}").json()
    assert view["version"] == 2 and view["state"]["counter"] == ["red M"]
    if code == "action/illegal":
        assert r.json()["rule"].startswith("icedice.")


def test_undo_back_to_an_earlier_move(client: TestClient) -> None:
    mid = camera_match(client, "roll red SM", "take red M")
    client.post(f"/api/matches/{mid}/actions", json={"action": "roll blue L"})
    view = client.post(f"/api/matches/{mid}/undo", json={"to": 1, "version": 3}).json()
    assert [e["kind"] for e in view["entries"][3:]] == ["undo", "undo"]
    assert view["state"]["dice"] == ["red", "SM"] and view["live"] == [0]
    r = client.post(f"/api/matches/{mid}/undo", json={"to": 2, "version": 5})
    assert r.status_code == 422 and r.json()["code"] == "undo/not_live"
    r = client.post(f"/api/matches/{mid}/undo", json={"to": 0})  # not without the version
    assert r.status_code == 422 and r.json()["code"] == "request/invalid"


def test_the_next_reading_is_compared_with_the_correction(tmp_path: Path) -> None:
    """The camera keeps reading the size die as SM (it shows ML): after the players'
    correction the runtime takes that die as ML; without it the table is 'unexplained'."""
    corrected = ICE.play(ICE.new_state(2), ["roll red ML", "take red M"])
    seen = observe_view(ICE.expected_view(ICE.play(ICE.new_state(2),
                                                   ["roll red SM", "take red M"])))
    size = next(i for i, o in enumerate(seen.objects) if o.top("face") == "SM")
    seen = observe_view(ICE.expected_view(corrected),
                        overrides={size: {"face": {"SM": 0.99999, "ML": 0.000001}}})
    misread = Observation(seen.objects, seen.zones_seen, False, 3, False)
    assert isinstance(reconcile(ICE, corrected, misread), Violation)
    fix = Amendment("die", "rolling", None, "face", "SM", "ML")
    assert isinstance(reconcile(ICE, corrected, amend(misread, [fix])), NoChange)

    # through the service and the runtime: the correction is what the camera is held to
    with TestClient(create_app(SQLiteStore(tmp_path / "rt.sqlite"))) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        mid = camera_match(client, "roll red SM", "take red M")
        client.post(f"/api/matches/{mid}/corrections",
                    json={"seq": 0, "action": "roll red ML", "version": 2})
        table = {0: misread}
        Runtime(ScriptedSource([0]), ScriptedTable(lambda frame: table[0]), service, mid).run(
            threading.Event())
        kinds = [e["kind"] for e in service.view(mid)["entries"]]
        assert "violation" not in kinds and kinds[-1] == "action"
        # a reading that cannot tell whether the dice were rolled again is not amended (that
        # would hide a new roll), and the correction is spent with it
        unknown = Observation(misread.objects, misread.zones_seen, True, 9, None)
        assert service.amend(mid, unknown) is unknown
        assert service.amend(mid, misread) is misread


def test_a_store_failure_leaves_memory_as_the_store(tmp_path: Path) -> None:
    """A correction the store refuses leaves nothing behind in memory either."""
    store = SQLiteStore(tmp_path / "f.sqlite")
    with TestClient(create_app(store), raise_server_exceptions=False) as client:
        mid = camera_match(client, "roll red SM", "take red M")
        store._db.execute("CREATE TRIGGER refuse BEFORE INSERT ON events "
                          "BEGIN SELECT RAISE(ABORT, 'disk full'); END")
        r = client.post(f"/api/matches/{mid}/corrections",
                        json={"seq": 0, "action": "roll red ML", "version": 2})
        assert r.status_code == 503 and r.json()["code"] == "store/error"
        store._db.execute("DROP TRIGGER refuse")
        view = client.get(f"/api/matches/{mid}").json()
        assert view["version"] == 2 and view["state"]["dice"] == ["red", "SM"]
        assert Match.from_dict(client.get(f"/api/matches/{mid}/record").json()).version == 2
