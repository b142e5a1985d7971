"""The thrower's side (engine.thrower, Params.thrower_side): seats, the edge seen, and the
unseen 'pass' told from a Ra re-roll by whose arm threw next."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pyramid_dice_table import holding, new, play

from engine import Accepted, Ambiguous, NoChange, Observation, get_game, reconcile
from engine.games.pyramid_dice import PyramidState
from engine.observation import observe_view
from engine.reconcile import Params
from engine.thrower import check_seats, default_seats, side_evidence

GAME = get_game("pyramid dice")
SEATS = ("bottom", "top")


def counted(obs: Observation, *, dice_moved: bool, edge: str | None = None,
            sure: float = 0.95) -> Observation:
    """The live camera's reading: the players' areas counted, not read, the tracker's word
    on the dice, and the edge the arm crossed."""
    objects = tuple(replace(o, dists=()) if o.kind == "card" and (o.zone or "").startswith(
        "area:") else o for o in obs.objects)
    return replace(obs, objects=objects, moved=True, dice_moved=dice_moved, hand_edge=edge,
                   hand_edge_confidence=sure if edge else 0.0)


def _empty_pyramid(*moves: str, roll: str = "roll 1 1 1") -> PyramidState:
    """P1 rolled 1 1 1 (then `moves`); the pyramid is empty, its cards in the side area."""
    s = play(new(), roll)
    return play(replace(s, side=s.side + tuple(c for _, c in s.pyramid), pyramid=()), *moves)


def texts(res: Accepted) -> list[str]:
    return [a.to_str() for a in res.actions]


def test_default_seats_and_their_check() -> None:
    assert default_seats(2) == ("bottom", "top")
    assert default_seats(4) == ("bottom", "left", "top", "right")
    assert check_seats(["Bottom ", "top"], 2) == ("bottom", "top")
    with pytest.raises(ValueError, match="not a table edge"):
        check_seats(["bottom", "under"], 2)
    with pytest.raises(ValueError, match="3 seats for 2 players"):
        check_seats(["bottom", "top", "left"], 2)


def test_the_edge_maps_to_the_one_player_seated_there() -> None:
    assert side_evidence("top", 0.9, SEATS, 0.7).player == 1  # type: ignore[union-attr]
    assert side_evidence("top", 0.5, SEATS, 0.7) is None  # unsure
    assert side_evidence("left", 0.9, SEATS, 0.7) is None  # nobody sits there
    assert side_evidence("top", 0.9, None, 0.7) is None  # no seats
    assert side_evidence("top", 0.9, ("top", "top", "bottom"), 0.7) is None  # shared edge
    assert side_evidence(None, 0.0, SEATS, 0.7) is None


def test_with_seats_an_unseen_pass_waits_for_the_next_throw() -> None:
    """The pass shows nothing; with seats the next throw will tell it, so it is not asked
    now. Without seats it is asked at once, as before."""
    s = _empty_pyramid()
    obs = counted(observe_view(GAME.expected_view(s)), dice_moved=False, edge="bottom")
    assert isinstance(reconcile(GAME, s, obs, seats=SEATS), NoChange)
    for res in (reconcile(GAME, s, obs), reconcile(GAME, s, obs, Params(thrower_side=False),
                                                   seats=SEATS)):
        assert isinstance(res, Ambiguous)
        assert {"pass", "no change"} <= {e.text() for e in res.candidates}


def test_a_throw_from_the_next_seat_means_the_pass_came_first() -> None:
    """P1 (bottom) may re-roll with Ra or pass; the next throw comes from the top edge, P2's
    seat: the unseen pass, then P2's roll, are recorded with no question."""
    s = _empty_pyramid()
    after = play(s, "pass", "roll 3 4 6")
    obs = counted(observe_view(GAME.expected_view(after)), dice_moved=True, edge="top")
    res = reconcile(GAME, s, obs, seats=SEATS)
    assert isinstance(res, Accepted) and texts(res) == ["pass", "roll 3 4 6"]


def test_a_throw_from_the_same_seat_is_the_same_players_reroll() -> None:
    s = _empty_pyramid()
    obs = counted(observe_view(GAME.expected_view(play(s, "reroll 3 4 6 by ra"))),
                  dice_moved=True, edge="bottom")
    res = reconcile(GAME, s, obs, seats=SEATS)
    assert isinstance(res, Accepted) and texts(res) == ["reroll 3 4 6 by ra"]


@pytest.mark.parametrize("edge,sure", [(None, 0.0), ("top", 0.5), ("left", 0.95)])
def test_an_unknown_or_unsure_side_falls_back_to_asking(edge: str | None, sure: float) -> None:
    """No edge, an unsure one, or one where nobody sits: the throw may be either story, and
    the players are asked, both offered."""
    s = _empty_pyramid()
    after = play(s, "pass", "roll 3 4 6")
    obs = counted(observe_view(GAME.expected_view(after)), dice_moved=True, edge=edge,
                  sure=sure)
    res = reconcile(GAME, s, obs, seats=SEATS)
    assert isinstance(res, Ambiguous)
    assert {"pass; roll 3 4 6", "reroll 3 4 6 by ra"} <= {e.text() for e in res.candidates}


def test_a_wrong_side_does_not_turn_a_plain_roll_into_a_pass() -> None:
    """At the start of a turn only the player to move may throw: the edge seen weighs the
    throw down, but nothing else explains the dice, so the roll is still recorded."""
    s = play(new(), "roll 2 3 4", "take r7c1")
    obs = counted(observe_view(GAME.expected_view(play(s, "roll 1 5 6"))), dice_moved=True,
                  edge="bottom")
    res = reconcile(GAME, s, obs, seats=SEATS)
    assert isinstance(res, Accepted) and texts(res) == ["roll 1 5 6"]


def test_a_pass_after_which_the_game_may_end_is_asked_at_once() -> None:
    """After this pass the stall rule lets the players end the game (on the phone): the
    pass is asked now, else the phone's 'end' would find the turn not over."""
    s = play(new(), "roll 1 1 1")  # only t21 (36) is left, in the side area: 1 1 1 stalls
    rest = tuple(c for _, c in s.pyramid if c != "t21")
    s = replace(holding(s, 1, *rest), pyramid=(), side=("t21",), stuck_turns=10)
    assert "end" in [a.to_str() for a in GAME.legal_actions(play(s, "pass"))]
    obs = counted(observe_view(GAME.expected_view(s)), dice_moved=False, edge="bottom")
    assert isinstance(reconcile(GAME, s, obs, seats=SEATS), Ambiguous)


def test_observation_round_trip_keeps_the_edge() -> None:
    obs = replace(observe_view(GAME.expected_view(new())), hand_edge="left",
                  hand_edge_confidence=0.8)
    assert Observation.from_dict(obs.to_dict()) == obs


def test_the_next_players_throw_to_the_same_values_is_not_the_pass_alone() -> None:
    """P2 throws 1 2 3 as P1 did, after P1's unseen pass: the faces are as they were, the
    dice left their places, and the arm came from P2's seat. The pass alone (P1's hand)
    fits the faces better than one throw's chance, but not the arm: the pair is the best
    story. (Still asked: "no change", a hand that only jostled the dice, keeps 0.28 against
    a throw to these very values, as for any throw that shows the faces as they were.)"""
    s = _empty_pyramid(roll="roll 1 2 3")
    obs = counted(observe_view(GAME.expected_view(play(s, "pass", "roll 1 2 3"))),
                  dice_moved=True, edge="top")
    res = reconcile(GAME, s, obs, seats=SEATS)
    assert isinstance(res, Ambiguous) and res.candidates[0].text() == "pass; roll 1 2 3"
    res = reconcile(GAME, s, replace(obs, hand_edge=None), seats=SEATS)
    assert isinstance(res, Ambiguous) and res.candidates[0].text() == "pass"
