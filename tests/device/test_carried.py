"""The match service hands a "no change" reading's carried moves (engine.carry) to the next
reading only while the record is where it was."""

from __future__ import annotations

from typing import Any

from device.matches.service import MatchService
from device.store import SQLiteStore
from engine import NoChange, get_game
from engine.observation import observe_view


def test_carried_moves_reach_the_next_reading_while_the_record_stays(monkeypatch: Any) -> None:
    service = MatchService(SQLiteStore(":memory:"))
    mid = service.create("quarriors", 2, {}, None, 1, "carry")
    game = get_game("quarriors")
    attack = (game.parse_action("attack"),)
    given: list[Any] = []
    answers = [NoChange(0.99, ((attack, 0.9), ((), 0.1))), NoChange(0.99), NoChange(0.99)]

    def fake(game: Any, state: Any, observation: Any, params: Any, seats: Any,
             carried: Any = ()) -> NoChange:
        given.append(carried)
        return answers.pop(0)

    monkeypatch.setattr("device.matches.service.reconcile", fake)
    seen = observe_view(game.expected_view(service.match(mid).state))
    service.see(mid, seen)
    service.see(mid, seen)
    assert given == [(), ((attack, 0.9), ((), 0.1))]
    # a move recorded since (here on the phone): what was carried is for another state
    answers[:] = [NoChange(0.99, ((attack, 0.9), ((), 0.1))), NoChange(0.99)]
    service.see(mid, seen)
    match = service.match(mid)
    service.act(mid, game.legal_actions(match.state)[0].to_str(), None)
    service.see(mid, seen)
    assert given[-1] == ()
