"""Match: append-only log, undo, JSON record, replay to the identical state; playouts."""

from __future__ import annotations

import json

import pytest

from engine import IllegalActionError, InvalidStateError, Match, all_games, get_game
from engine.playout import playout, run_playouts


def icedice_match() -> Match:
    match = Match(get_game("icedice"), 2)
    for text in ("roll red S", "take red S", "roll blue M", "take blue M", "stop"):
        match.push_text(text, source="camera", confidence=0.97)
    return match


def test_push_logs_actions_and_events() -> None:
    match = icedice_match()
    assert match.actions == ["roll red S", "take red S", "roll blue M", "take blue M", "stop"]
    assert match.version == 5 and match.state.vaults[0] == (("blue", "M"), ("red", "S"))
    assert match.entries[0].source == "camera" and match.entries[0].confidence == 0.97


def test_illegal_push_logs_nothing() -> None:
    match = icedice_match()
    with pytest.raises(IllegalActionError):
        match.push_text("take red S")
    assert match.version == 5


def test_undo_is_an_entry_and_restores_the_state() -> None:
    match = icedice_match()
    before = match.state
    match.push_text("roll green L")
    assert match.undo(source="phone") == "roll green L"
    assert match.state == before and match.version == 7
    assert match.entries[-1].kind == "undo" and match.entries[-1].data == {"undoes": 5}
    match.note("question", "Was it green L or green S?", source="camera")
    match.note("answer", "green S", source="phone")
    assert [e.kind for e in match.entries[-3:]] == ["undo", "question", "answer"]


def test_state_before_a_live_action() -> None:
    match = icedice_match()
    game = get_game("icedice")
    assert match.state_before(2) == game.play(match.initial, ["roll red S", "take red S"])
    match.undo()
    with pytest.raises(KeyError, match="not a live action"):
        match.state_before(4)  # undone
    with pytest.raises(KeyError):
        match.state_before(5)  # the undo entry itself


def test_undo_with_nothing_to_undo() -> None:
    with pytest.raises(IllegalActionError, match="no action"):
        Match(get_game("icedice"), 2).undo()


def test_record_replays_to_the_identical_state() -> None:
    match = icedice_match()
    match.push_text("roll green L")
    match.undo()
    match.note("violation", "a blue S was taken on a red roll")
    record = json.loads(match.to_json())
    assert record["format"] == "dicetable-match/1" and record["game"] == "icedice"
    again = Match.from_json(match.to_json())
    assert again.state == match.state and [e.to_dict() for e in again.entries] == \
        [e.to_dict() for e in match.entries]


@pytest.mark.parametrize("mutate, message", [
    (lambda r: r.update(format="pgn"), "not a dicetable match record"),
    (lambda r: r.update(game="chess"), "unknown game"),
    (lambda r: r["entries"][1].update(text="take blue L"), "entry 1"),
    (lambda r: r["entries"][2].update(text="fly away"), "entry 2"),
    (lambda r: r["entries"].append({"kind": "undo"}), "replayed state differs"),
    (lambda r: r["entries"].append({"text": "x"}), "entry 5 is malformed"),
    (lambda r: r.update(entries={}), "must be a list"),
    (lambda r: r.pop("initial_state"), "lacks a field"),
    (lambda r: r["initial_state"].update(bank=[]), "add up"),
    (lambda r: r.update(final_state={"x": 1}), "differs"),
    # a header or a numbering edited by hand (issue 29: replay called these valid)
    (lambda r: r.update(players=1_000_000_000), "header says 1000000000 players"),
    (lambda r: r.update(players="2"), "header says '2' players"),
    (lambda r: r["entries"][3].update(seq=1e30), "entry 3 is numbered 1e\\+30, not 3"),
    (lambda r: r["entries"][1].update(seq=0), "entry 1 is numbered 0"),
])
def test_malformed_records_are_rejected_clearly(mutate, message) -> None:  # type: ignore
    record = icedice_match().to_dict()
    mutate(record)
    with pytest.raises(InvalidStateError, match=message):
        Match.from_dict(record)


def test_not_json() -> None:
    with pytest.raises(InvalidStateError, match="not JSON"):
        Match.from_json("{oops")
    with pytest.raises(InvalidStateError, match="nested too deeply"):
        Match.from_json("[" * 200_000 + "]" * 200_000)


PLAYOUTS = {"quarriors": 8}
"""Quarriors' matches are some 900 moves each; its own playouts with the die-count invariants
are tests/engine/test_quarriors_rules.py's (the other games: 40)"""


@pytest.mark.parametrize("game", [g.info.name for g in all_games()])
def test_seeded_random_playouts(game: str) -> None:
    """Legal actions never raise, JSON round trips, replay equals the state, matches end."""
    n = PLAYOUTS.get(game, 40)
    stats = run_playouts(get_game(game), n, seed=1234, check_candidates=True)
    assert stats.matches == stats.finished == n and stats.actions > n


def test_playouts_are_reproducible() -> None:
    game = get_game("icedice")
    assert playout(game, 3, seed=7).actions == playout(game, 3, seed=7).actions
    assert playout(game, 3, seed=7).actions != playout(game, 3, seed=8).actions


def test_names_and_seats_are_the_records_and_older_records_keep_theirs() -> None:
    """Names and seats are set at setup and kept in the record's header; a rename is an
    entry. A record made before kept them in notes' data: it loads with them."""
    from engine.match import InvalidNamesError

    game = get_game("icedice")
    match = Match(game, 2, names=["Ann", ""], seats=["bottom", "top"])
    assert match.names == ["Ann", "P2"] and match.seats == ("bottom", "top")
    match.rename(["Ann", "Bob"], source="phone")
    again = Match.from_dict(match.to_dict())
    assert again.names == ["Ann", "Bob"] and again.seats == ("bottom", "top")
    assert again.entries[-1].kind == "names"
    with pytest.raises(InvalidNamesError) as exc:
        Match(game, 2, names=["a", "b", "c"])
    assert exc.value.path == ("names",)
    older = Match(game, 2).to_dict()
    older["entries"] = [
        {"seq": 0, "kind": "note", "text": "players: Cy, Di", "source": "phone",
         "data": {"names": ["Cy", "Di"]}},
        {"seq": 1, "kind": "note", "text": "seats: P1 left, P2 right", "source": "phone",
         "data": {"seats": ["left", "right"]}}]
    old = Match.from_dict(older)
    assert old.names == ["Cy", "Di"] and old.seats == ("left", "right")


def test_live_tail_is_the_last_live_actions_with_their_states() -> None:
    match = icedice_match()
    match.push_text("roll green L")
    match.undo()
    live = match.live_entries
    tail = match.live_tail(2)
    assert [e.seq for e, _ in tail] == [e.seq for e in live[-2:]]
    assert all(before == match.state_before(e.seq) for e, before in tail)
    assert len(match.live_tail(100)) == len(live) and match.live_tail(0) == []
