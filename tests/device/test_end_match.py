"""Ending a stalled match on the phone (POST /api/matches/{id}/end) and seating the
players at setup: the rules decide, a refusal is a 4xx with the reason, never a 500."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device.store import SQLiteStore
from device.web import create_app
from engine import get_game


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(SQLiteStore(tmp_path / "t.sqlite"))) as c:
        yield c


def new_match(client: TestClient, game: str, **body: object) -> str:
    r = client.post("/api/matches", json={"game": game, "players": 2, "seed": 3, **body})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def _stalled_moves() -> list[str]:
    """Moves of a seeded Pyramid Dice match (setup seed 3) up to where 'end' is legal."""
    game = get_game("pyramid_dice")
    for seed in range(50):
        rng, state, moves = random.Random(seed), game.new_state(2, seed=3), []
        while game.outcome(state) is None:
            if "end" in [a.to_str() for a in game.legal_actions(state)]:
                return moves
            action = game.random_action(state, rng)
            if action.to_str() == "end":
                break
            moves.append(action.to_str())
            state = game.apply(state, action)[0]
    pytest.fail("no seeded match reached the stall rule")


def test_the_players_end_a_stalled_match(client: TestClient) -> None:
    mid = new_match(client, "pyramid_dice")
    view = client.get(f"/api/matches/{mid}").json()
    assert view["can_end"] is False
    r = client.post(f"/api/matches/{mid}/end", json={"version": view["version"]})
    assert r.status_code == 409 and "stall" in r.json()["message"]
    for move in _stalled_moves():
        r = client.post(f"/api/matches/{mid}/actions", json={"action": move})
        assert r.status_code == 200, r.text
    view = client.get(f"/api/matches/{mid}").json()
    assert view["can_end"] is True and view["outcome"] is None
    r = client.post(f"/api/matches/{mid}/end", json={"version": view["version"] - 1})
    assert r.status_code == 409 and r.json()["code"] == "action/stale_state_id"
    r = client.post(f"/api/matches/{mid}/end", json={"version": view["version"]})
    assert r.status_code == 200, r.text
    end = r.json()
    assert end["outcome"] is not None and end["can_end"] is False
    last = end["entries"][-1]
    assert last["kind"] == "action" and last["text"] == "end" and last["source"] == "phone"
    r = client.post(f"/api/matches/{mid}/end", json={})
    assert r.status_code == 409  # over already


def test_a_game_with_no_early_end_refuses_it(client: TestClient) -> None:
    mid = new_match(client, "icedice")
    r = client.post(f"/api/matches/{mid}/end", json={})
    assert r.status_code == 409 and "no early end" in r.json()["message"]
    assert client.post("/api/matches/nope/end", json={}).status_code == 404
    assert client.post(f"/api/matches/{mid}/end", json={"version": -1}).status_code == 422


def test_seats_are_set_at_setup_and_checked(client: TestClient) -> None:
    mid = new_match(client, "icedice", seats=["bottom", "top"])
    assert client.get(f"/api/matches/{mid}").json()["seats"] == ["bottom", "top"]
    assert client.get(f"/api/matches/{new_match(client, 'icedice')}").json()["seats"] is None
    for seats, why in ((["bottom"], "1 seats for 2 players"),
                       (["bottom", "under"], "not a table edge")):
        r = client.post("/api/matches", json={"game": "icedice", "players": 2, "seats": seats})
        assert r.status_code == 422 and why in r.json()["message"], r.text
