"""Pyradice: seeded random playouts for 2, 3 and 4 players (legal actions never raise, every
state round-trips through JSON, records replay), state loading, and the check that every
rule has a test quoting it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyradice_table import GAME, new, play

from engine import InvalidStateError, Match
from engine.games.pyradice import RULES
from engine.games.pyradice import pyramid as pm
from engine.playout import playout, run_playouts

HERE = Path(__file__).parent


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_playouts(players: int) -> None:
    """A dozen matches per player count; the first also checks, at every step, that the
    candidates reconcile weighs (legal and illegal) agree with is_legal."""
    stats = run_playouts(GAME, 12, seed=100 * players, players=players)
    assert stats.matches == stats.finished == 12
    assert stats.actions == 12 * pm.SIZE * players
    playout(GAME, players, seed=100 * players + 99, check_candidates=True)


def test_playouts_with_entered_options() -> None:
    options = {"colours": "red,white,black", "objective_levels": "2-6",
               "quarry_2p": "6x4,5x3,4x2"}
    match = Match(GAME, 2, options, seed=4)
    rng_match = playout(GAME, 2, seed=4)
    assert len(rng_match.actions) == 42
    import random
    rng = random.Random(4)
    while GAME.outcome(match.state) is None:
        match.push(GAME.random_action(match.state, rng))
    assert Match.from_json(match.to_json()).state == match.state
    assert {c for b in match.state.boards for d in b if d for c in [d[1]]} <= {
        "red", "white", "black"}


def test_every_text_form_parses_back() -> None:
    s = play(new(), "take L3-1 to 1-1", "take L3-3 to 1-1", "take L3-7 to 1-2",
             "take L3-9 to 1-2")
    for cand in GAME.candidates(s):
        assert GAME.parse_action(cand.action.to_str()) == cand.action


def test_state_from_dict_rejects_bad_states() -> None:
    s = play(new(), "take L3-1 to 1-1")
    good = json.loads(json.dumps(s.to_dict()))
    assert GAME.state_from_dict(good) == s

    def broken(**changes: object) -> dict[str, object]:
        return {**json.loads(json.dumps(good)), **changes}

    cases = [
        (broken(players=5), "players must be 2..4"),
        (broken(game="icedice"), "not a Pyradice state"),
        (broken(turn=5), "do not fit turn"),
        (broken(current=0), "do not fit"),
        (broken(boards=[["9 red"] + [None] * 20, [None] * 21]), "VALUE COLOUR"),
        (broken(boards=[[None] * 6 + ["1 red"] + [None] * 14, [None] * 21]), "rest on 2"),
        (broken(boards=[[None] * 21]), "2 pyramids of 21"),
        (broken(skills=["A2", "A3", "A4", "A5", "A7"]), "level-6 recess"),
        (broken(cards=[["K1", "red"]]), "4 cards"),
        (broken(colours=["red", "yellow", "green", "pink"]), "not option 'colours'"),
        (broken(quarry={"layers": ["6x4", "5x3", "4x2"], "dice": []}), "not option quarry_2p"),
        (broken(definitions=[{"kind": "skill", "id": "A2", "shape": "fly"}]), "shape"),
        ({"players": 2}, "lacks or mangles"),
        ("nonsense", "not a Pyradice state"),
    ]
    for data, message in cases:
        with pytest.raises(InvalidStateError, match=message):
            GAME.state_from_dict(data)  # type: ignore[arg-type]


def test_every_rule_has_a_test() -> None:
    """Each rule id of the game names a test in the Pyradice test files, which quotes the
    rule's sentence."""
    text = " ".join(" ".join(p.read_text("utf-8").split())
                    for p in sorted(HERE.glob("test_pyradice_*.py")))
    missing = [rid for rid in RULES if rid not in text]
    assert missing == []
    unquoted = [rid for rid, rule in RULES.items()
                if rule.source.startswith("shared/") and rule.text[:40] not in text]
    assert unquoted == []


def _every_use(token: str) -> list[object]:
    """Every syntactically possible use of a token on a pyramid (all ops, spaces, values)."""
    from engine.games.pyradice import Use
    out: list[object] = []
    for a in pm.NAMES:
        out.append(Use(token, "rotate", a))
        out += [Use(token, "adjust", a, value=d) for d in (-2, -1, 1, 2)]
        out += [Use(token, op, a, value=v) for op in ("set", "reroll") for v in range(1, 7)]
        out += [Use(token, op, a, b) for op in ("swap", "move") for b in pm.NAMES]
    return out


@pytest.mark.parametrize("skills, seed", [
    (["A2", "A3", "A4", "A5", "A6"], 1),
    (["B2", "B3", "B4", "B5", "B6"], 2),
])
def test_legal_turns_are_exactly_the_turns_that_check(skills: list[str], seed: int) -> None:
    """For the placements on skill levels along a random match, the listed turns with a
    skill are exactly the uses (of every shape, space and value) that the check accepts."""
    import random

    from engine.games.pyradice import Turn
    rng = random.Random(seed)
    s = GAME.new_state(2, setup={"skills": skills}, seed=seed)
    every = {t: _every_use(t) for t in skills}
    checked = 0
    while GAME.outcome(s) is None:
        listed = set(GAME.legal_actions(s))
        spaces = sorted({a.to for a in listed if pm.LEVEL[pm.INDEX[a.to]] >= 2})
        if spaces and rng.random() < 0.5:
            take = min(a.take for a in listed)
            to = rng.choice(spaces)
            token = skills[pm.LEVEL[pm.INDEX[to]] - 2]
            for use in every[token]:
                turn = Turn(take, to, None, (use,))  # type: ignore[arg-type]
                assert GAME.is_legal(s, turn) == (turn in listed), turn.to_str()
            checked += 1
        s = GAME.apply(s, GAME.random_action(s, rng))[0]
    assert checked >= 5
