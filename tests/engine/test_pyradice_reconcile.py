"""reconcile on hand-made observations of Pyradice tables: what the game predicts the camera
sees (``expected_view`` / ``view_after``) read back perfectly or with a misread."""

from __future__ import annotations

from dataclasses import replace

from pyradice_table import GAME, new, play

from engine import Accepted, NoChange, Violation, reconcile
from engine.games.pyradice import PyradiceState, Turn, Use
from engine.observation import Observation, View, observe_view

OPENING = ("take L3-1 to 1-1", "take L3-3 to 1-1", "take L3-7 to 1-2", "take L3-9 to 1-2")


def opened() -> PyradiceState:
    """P1 to move: 5 red on 1-1, 5 green on 1-2; L3-2 (6 yellow) and L3-4 (2 blue) free."""
    return play(new(), *OPENING)


def seen(view: View) -> Observation:
    return replace(observe_view(view), moved=True)


def texts(res: Accepted) -> list[str]:
    return [a.to_str() for a in res.actions]


def index(view: View, zone: str, slot: str) -> int:
    return next(i for i, e in enumerate(view) if e.zone == zone and e.slot == slot)


def violation(state: PyradiceState, turn: Turn) -> str:
    res = reconcile(GAME, state, seen(GAME.view_after(state, turn)))
    assert isinstance(res, Violation), res
    return res.rule.id


def test_the_view_names_quarry_and_board_slots() -> None:
    s = opened()
    view = GAME.expected_view(s)
    quarry = {e.slot for e in view if e.zone == "quarry"}
    assert "L3-2" in quarry and "L3-1" not in quarry
    assert "L2-6" not in quarry  # under L3-2, L3-5 (its top is covered: not seen)
    assert "L2-1" in quarry  # uncovered when L3-1 left
    die = view[index(view, "board:0", "1-1")]
    assert dict(die.attrs) == {"colour": "red", "face": "5", "type": "d6"}


def test_unchanged_table_is_no_change() -> None:
    s = opened()
    assert isinstance(reconcile(GAME, s, observe_view(GAME.expected_view(s))), NoChange)


def test_a_plain_turn_is_accepted() -> None:
    s = opened()
    res = reconcile(GAME, s, seen(GAME.expected_view(play(s, "take L3-2 to 1-3"))))
    assert isinstance(res, Accepted) and texts(res) == ["take L3-2 to 1-3"]


def test_a_turn_with_its_skill_is_accepted() -> None:
    """Which die left the quarry, where it went, and which die the skill changed."""
    s = opened()
    turn = "take L3-2 to 2-1 use A2 +1 1-1"
    res = reconcile(GAME, s, seen(GAME.expected_view(play(s, turn))))
    assert isinstance(res, Accepted) and texts(res) == [turn]


def test_an_unavailable_die_is_a_violation() -> None:
    s = opened()
    assert violation(s, Turn("L3-5", "1-3")) == "pyradice.available"


def test_a_die_turned_when_placed_is_a_violation() -> None:
    s = opened()
    assert violation(s, Turn("L3-2", "1-3", face=3)) == "pyradice.place_unchanged"


def test_a_skill_on_the_die_just_placed_is_a_violation() -> None:
    s = opened()
    turn = Turn("L3-2", "2-1", None, (Use("A2", "adjust", "2-1", value=-1),))
    assert violation(s, turn) == "pyradice.not_placed_die"


def test_two_skills_in_a_turn_is_a_violation() -> None:
    s = opened()
    turn = Turn("L3-2", "2-1", None, (Use("A2", "adjust", "1-1", value=1),
                                      Use("A2", "adjust", "1-2", value=-1)))
    assert violation(s, turn) == "pyradice.one_skill"


def test_a_die_on_an_unsupported_space_is_a_violation() -> None:
    s = opened()
    assert violation(s, Turn("L3-2", "2-2")) == "pyradice.place_above"


def test_a_misread_is_corrected_by_the_state() -> None:
    """After a turn on level 1 (no skill), the camera reads P1's 1-1 (a 5) as a 6 with 0.6
    against 0.4: no legal turn changes that die, so the state's 5 stands."""
    s = opened()
    view = GAME.expected_view(play(s, "take L3-2 to 1-3"))
    i = index(view, "board:0", "1-1")
    obs = replace(observe_view(view, overrides={i: {"face": {"6": 0.6, "5": 0.4}}}), moved=True)
    res = reconcile(GAME, s, obs)
    assert isinstance(res, Accepted) and texts(res) == ["take L3-2 to 1-3"]


def test_candidates_name_their_rule() -> None:
    s = opened()
    rules = {c.error.rule.id for c in GAME.candidates(s) if c.error is not None}
    assert {"pyradice.available", "pyradice.place_unchanged", "pyradice.place_above",
            "pyradice.not_placed_die", "pyradice.one_skill"} <= rules
    assert all(c.legal == GAME.is_legal(s, c.action) for c in GAME.candidates(s))


def test_a_view_joined_from_parts_is_the_view_and_scores_as_it() -> None:
    """A Pyradice view is joined from its zones' parts (engine.observation.join_parts): it
    equals and hashes as the plain sorted tuple of its objects, and reconcile's fitter
    scores it, zone by zone and in sum, exactly as it scores that plain tuple."""
    import importlib

    from engine.observation import PartedView, make_view

    rc = importlib.import_module("engine.reconcile")  # (engine.reconcile is the function)
    s = play(opened(), "take L3-2 to 1-3")
    view = GAME.expected_view(s)
    plain = make_view(list(view))
    assert isinstance(view, PartedView) and type(plain) is tuple
    assert view == plain and hash(view) == hash(plain)
    assert [e for part in view.parts for e in part] == list(plain)
    assert [p[0].zone for p in view.parts] == ["board:0", "board:1", "quarry"]
    from engine.games.pyradice import pyramid as pm

    assert list(pm.NAMES) == sorted(pm.NAMES)  # (a pyramid's part is built in this order)
    i = index(view, "board:0", "1-3")
    obs = seen(view)
    misread = replace(obs, objects=obs.objects[:i] + (replace(
        obs.objects[i], dists=(("colour", (("red", 0.6), ("green", 0.4))),
                               ("face", (("2", 0.7), ("5", 0.3))))),) + obs.objects[i + 1:])
    # (the board's zone out of sight: its part is left out, as the plain view's objects)
    for o in (obs, misread, replace(misread, zones_seen=frozenset({"quarry", "board:1"}))):
        for other in (GAME.expected_view(opened()), view):
            a, b = rc._Fitter(o, rc.Params()), rc._Fitter(o, rc.Params())
            assert a.group_fits(other) == b.group_fits(make_view(list(other)))
            assert a.log_likelihood(other) == b.log_likelihood(make_view(list(other)))


def test_a_view_part_holds_one_zone() -> None:
    import pytest

    from engine.observation import Expected, join_parts, part_view

    a = Expected.make("die", "quarry", "L1-1", face="1")
    b = Expected.make("die", "board:0", "1-1", face="2")
    with pytest.raises(ValueError, match="one kind and zone"):
        part_view([a, b])
    with pytest.raises(ValueError, match="two parts"):
        join_parts([part_view([a]), part_view([a])])
    assert join_parts([part_view([a]), part_view([]), part_view([b])]) == (b, a)
