"""A question of the camera says what it is about (the objects its candidates disagree on)
and keeps that part of the picture, cut by the match's cropper, as the entry's picture."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from device.matches.questions import doubtful
from device.matches.service import MatchService
from device.store import SQLiteStore
from device.web import create_app
from engine import Ambiguous, Match, get_game
from engine.observation import observe_view
from engine.resolution import Explanation


def explanations(game: Any, *texts: str) -> tuple[Explanation, ...]:
    return tuple(Explanation((game.parse_action(t),), 0.5, 0.0) for t in texts)


def test_doubtful_is_what_the_candidates_disagree_on() -> None:
    game = get_game("icedice")
    state = Match(game, 2, None, seed=1).state
    objs = doubtful(game, state, explanations(game, "roll atom L", "roll atom ML"))
    assert [(o.kind, o.zone, o.attr("type"), o.attr("face")) for o in objs] == \
        [("die", "rolling", "icedice-size", "L")]
    # the same table either way: nothing to point at
    assert doubtful(game, state, explanations(game, "roll atom L")) == []


def test_a_question_keeps_the_crop_of_its_doubtful_die(monkeypatch: Any) -> None:
    service = MatchService(SQLiteStore(":memory:"))
    mid = service.create("icedice", 2, {}, None, 1, "crop")
    game = get_game("icedice")
    asked: list[Any] = []

    def cropper(objects: Any) -> bytes:
        asked.append(list(objects))
        return b"\xff\xd8crop"

    service.croppers[mid] = cropper
    ambiguous = Ambiguous(explanations(game, "roll atom L", "roll atom ML"))
    monkeypatch.setattr("device.matches.service.reconcile", lambda *a, **k: ambiguous)
    service.see(mid, observe_view(game.expected_view(service.match(mid).state)))
    question = service.view(mid)["pending"]
    assert question["kind"] == "question" and question["data"]["crop"] is True
    assert question["data"]["focus"] == [{"kind": "die", "zone": "rolling", "slot": None,
                                          "attrs": {"face": "L", "type": "icedice-size"}}]
    assert [o.attr("type") for o in asked[0]] == ["icedice-size"]
    client = TestClient(create_app(service.store, service=service))
    got = client.get(f"/api/matches/{mid}/evidence/{question['seq']}")
    assert got.status_code == 200 and got.content == b"\xff\xd8crop"
