"""Pyradice tokens and cards as data: the shipped sheet (A3 and C6 verified, the rest
examples), player-entered definitions with clear errors, and each shape of the vocabulary."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pyradice_table import GAME, new, play, setup

from engine import InvalidActionError, InvalidOptionError
from engine.games.pyradice import (
    DefinitionError,
    SetupError,
    example_sheet,
    parse_definition,
    parse_sheet,
)
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice.skills import Use, apply_use, parse_use, uses, why_not
from engine.games.pyradice.tokens import EXAMPLE
from engine.games.pyradice.vocabulary import card_points, objective_met

COLOURS = ("red", "yellow", "green", "blue")


def obj(shape: str, **params: Any) -> Any:
    return parse_definition("objective", {"id": "C1", "shape": shape, **params})


def card(shape: str, **params: Any) -> Any:
    return parse_definition("card", {"id": "X", "shape": shape, **params})


def skill(shape: str, **params: Any) -> Any:
    return parse_definition("skill", {"id": "B4", "shape": shape, **params})


def dice(text: str) -> list[tuple[int, str]]:
    names = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}
    return [(int(t[0]), names[t[1]]) for t in text.split()]


def board(spec: dict[str, str]) -> tuple[Any, ...]:
    b = list(pm.EMPTY)
    for space, text in spec.items():
        b[pm.INDEX[space]] = dice(text)[0]
    return tuple(b)


# --- the shipped sheet --------------------------------------------------------------------
def test_shipped_sheet_marks_what_is_verified() -> None:
    sheet = example_sheet()
    assert sorted(sheet.skills) == [f"{s}{n}" for s in "AB" for n in range(2, 7)]
    assert sorted(sheet.objectives) == [f"{s}{n}" for s in "CD" for n in range(1, 8)]
    verified = [d.id for group in (sheet.skills, sheet.objectives, sheet.cards)
                for d in group.values() if d.provenance.startswith("VERIFIED")]
    assert sorted(verified) == ["A3", "C6"]
    others = [d for group in (sheet.skills, sheet.objectives, sheet.cards)
              for d in group.values() if d.id not in ("A3", "C6")]
    assert others and all(d.provenance == EXAMPLE for d in others)
    assert sheet.skills["A3"].shape == "rotate180"
    assert sheet.objectives["C6"].shape == "values_in"
    assert sheet.objectives["C6"].ints("values") == (3, 5)


def test_players_enter_their_own_sheet() -> None:
    entered = {"skills": [{"id": "A2", "shape": "set", "values": [1, 6],
                           "text": "Turn a die to 1 or 6"}],
               "objectives": [{"id": "C1", "shape": "sum", "min": 20}],
               "cards": [{"id": "gold", "shape": "count", "points": 4}]}
    s = new(sheet=entered, cards=[["gold", "red"], ["K2", "yellow"], ["K3", "green"],
                                  ["K4", "blue"]])
    a2 = s.definition("skill", "A2")
    assert a2.shape == "set" and a2.provenance == "entered by the players"
    assert s.definition("objective", "C1").number("min") == 20
    assert s.definition("skill", "A3").provenance.startswith("VERIFIED")  # kept
    # the definitions travel with the state (the record replays under them)
    again = GAME.state_from_dict(json.loads(json.dumps(s.to_dict())))
    assert again == s and again.definition("card", "gold").number("points") == 4
    s = play(s, "take L3-1 to 1-1", "take L3-3 to 1-1", "take L3-7 to 1-2", "take L3-9 to 1-2")
    moves = {a.to_str() for a in GAME.legal_actions(s) if a.take == "L3-2" and a.to == "2-1"}
    assert "take L3-2 to 2-1 use A2 set 1-1 to 6" in moves
    assert "take L3-2 to 2-1 use A2 set 1-1 to 3" not in moves


@pytest.mark.parametrize("entry, message", [
    ({"id": "A2"}, "'shape' must be one of rotate180, adjust"),
    ({"id": "A2", "shape": "teleport"}, "not 'teleport'"),
    ({"shape": "rotate180"}, "needs an 'id'"),
    ({"id": "A2", "shape": "adjust", "by": [0]}, "not 0"),
    ({"id": "A2", "shape": "adjust", "by": "1"}, "'by' must be a non-empty list"),
    ({"id": "A2", "shape": "adjust", "wrap": "yes"}, "'wrap' must be true or false"),
    ({"id": "A2", "shape": "set", "values": [0, 7]}, "die values 1–6"),
    ({"id": "A2", "shape": "swap", "scope": "far"}, "one of any, same_level, adjacent"),
    ({"id": "A2", "shape": "rotate180", "values": [1]}, "has no parameter values"),
    ({"id": "A2", "shape": "move", "text": 5}, "'text' and 'provenance' must be text"),
    ("rotate", "an object with 'id' and 'shape'"),
])
def test_bad_skill_definitions_say_what_is_wrong(entry: Any, message: str) -> None:
    with pytest.raises(DefinitionError, match=message):
        parse_definition("skill", entry)


@pytest.mark.parametrize("kind, entry, message", [
    ("objective", {"id": "C1", "shape": "values_in"}, "needs 'values'"),
    ("objective", {"id": "C1", "shape": "sum"}, "needs 'min', 'max' or both"),
    ("objective", {"id": "C1", "shape": "sum", "min": 9, "max": 3}, "'min' 9 is above"),
    ("objective", {"id": "C1", "shape": "parity", "parity": "prime"}, "one of even, odd"),
    ("objective", {"id": "C1", "shape": "colours_in", "colours": [3]}, "colour names"),
    ("card", {"id": "K", "shape": "count_table", "table": [1, -2]}, "points ≥ 0"),
    ("card", {"id": "K", "shape": "count", "levels": [7]}, "levels 1–6"),
    ("card", {"id": "K", "shape": "levels_with"}, "needs 'points'"),
])
def test_bad_objective_and_card_definitions(kind: str, entry: Any, message: str) -> None:
    with pytest.raises(DefinitionError, match=message):
        parse_definition(kind, entry)


@pytest.mark.parametrize("data, message", [
    ({"skills": [{"id": "A7", "shape": "rotate180"}]}, "A2..A6 or B2..B6"),
    ({"objectives": [{"id": "A1", "shape": "parity", "parity": "odd"}]}, "C1..C7"),
    ({"skills": [{"id": "A2", "shape": "move"}, {"id": "A2", "shape": "move"}]},
     "defined twice"),
    ({"tokens": []}, "no field tokens"),
    ({"skills": {"A2": {}}}, "must be a list"),
    ([], "a sheet is"),
])
def test_bad_sheets(data: Any, message: str) -> None:
    with pytest.raises(DefinitionError, match=message):
        parse_sheet(data, example_sheet())


def test_definition_naming_an_unknown_colour_is_refused() -> None:
    entered = {"objectives": [{"id": "C1", "shape": "colour_count", "colour": "purple",
                               "min": 1}]}
    with pytest.raises(SetupError, match="names colour 'purple'"):
        GAME.new_state(2, setup=setup(sheet=entered))
    with pytest.raises(InvalidOptionError, match="option 'colours'"):
        GAME.new_state(2, {"colours": "red,red"}, seed=1)
    with pytest.raises(InvalidOptionError, match="option 'quarry_2p'.*3 layers"):
        GAME.new_state(2, {"quarry_2p": "5x5"}, seed=1)


# --- objectives ---------------------------------------------------------------------------
@pytest.mark.parametrize("defn, yes, no", [
    (obj("values_in", values=[3, 5]), "3r 5g 5b", "3r 2g"),
    (obj("parity", parity="even"), "2r 4g 6b", "2r 3g"),
    (obj("parity", parity="odd"), "1r 3g 5b", "1r 2g"),
    (obj("all_different"), "1r 2r 3r", "1r 1g 3b"),
    (obj("all_different", of="colour"), "1r 1g 1b", "1r 2r"),
    (obj("all_equal"), "4r 4g 4b", "4r 5r"),
    (obj("all_equal", of="colour"), "1b 2b 6b", "1b 1g"),
    (obj("sum", min=10, max=12), "4r 4g 3b", "4r 4g"),
    (obj("run"), "4r 2g 3b", "1r 2g 4b"),
    (obj("run", ordered=True), "4r 3g 2b", "4r 2g 3b"),
    (obj("colours_in", colours=["red", "blue"]), "1r 2b", "1r 2g"),
    (obj("colour_count", colour="red", min=2), "1r 2r 3g", "1r 2g 3g"),
    (obj("per_colour", max=1), "1r 2g 3b 4y", "1r 2r"),
    (obj("per_colour", min=1), "1r 2g 3b 4y", "1r 2g 3b 4b"),
    (obj("value_count", values=[6], min=1), "6r 2g", "1r 2g"),
    (obj("value_count", values=[1, 6], max=0), "2r 3g", "1r 2g"),
])
def test_objective_shapes(defn: Any, yes: str, no: str) -> None:
    assert objective_met(defn, dice(yes), COLOURS)
    assert not objective_met(defn, dice(no), COLOURS)


# --- cards ----------------------------------------------------------------------------------
def test_card_shapes() -> None:
    b = board({"1-1": "6r", "1-2": "2r", "1-3": "3g", "1-4": "6r", "2-1": "1r", "2-3": "5r",
               "3-1": "4r"})
    assert card_points(card("count", points=2), b, "red") == 12
    assert card_points(card("count", values=[6]), b, "red") == 2
    assert card_points(card("count", levels=[2, 3]), b, "red") == 3
    assert card_points(card("sum_values"), b, "red") == 6 + 2 + 6 + 1 + 5 + 4
    assert card_points(card("sum_values", factor=2, levels=[1]), b, "green") == 6
    assert card_points(card("count_table", table=[0, 1, 3]), b, "red") == 3
    assert card_points(card("count_table", table=[0, 1, 3]), b, "green") == 1
    assert card_points(card("levels_with", points=3), b, "red") == 9
    assert card_points(card("levels_with", points=3, min=2), b, "red") == 6  # levels 1, 2
    # 1-1, 1-2 and 2-1 touch (2-1 rests on them), 3-1 rests on 2-1; 1-4 touches 2-3
    assert card_points(card("largest_group"), b, "red") == 4
    assert card_points(card("distinct_values"), b, "red") == 5
    assert card_points(card("count"), b, "yellow") == 0


# --- skills -----------------------------------------------------------------------------------
def test_skill_text_forms_round_trip() -> None:
    for text in ("use A3 rotate 1-2", "use A2 +1 1-3", "use A2 -2 1-3", "use A4 set 1-2 to 5",
                 "use B3 reroll 1-2 to 4", "use B4 swap 1-2 2-3", "use A5 move 1-2 to 1-6"):
        assert parse_use(text.split()[1:]).to_str() == text
    for bad in ("use A3 rotate 7-1", "use A4 set 1-2 to 9", "use A4 fly 1-2", "use A2 +0 1-1"):
        with pytest.raises(InvalidActionError):
            parse_use(bad.split()[1:])
    for bad in ("take L3-1 to 1-1 as 8", "take L3-1 into 1-1", "take L3-1 to 1-1 rotate",
                "take 3-1 to 1-1"):
        with pytest.raises(InvalidActionError):
            GAME.parse_action(bad)


def test_skill_shapes_list_their_uses() -> None:
    b = board({"1-1": "6r", "1-2": "2g", "1-3": "3b", "2-1": "1y"})
    placed = pm.INDEX["2-1"]
    adjust = uses(skill("adjust"), b, placed)
    assert [u.to_str() for u in adjust] == ["use B4 -1 1-1", "use B4 +1 1-2", "use B4 -1 1-2",
                                           "use B4 +1 1-3", "use B4 -1 1-3"]
    wrap = uses(skill("adjust", wrap=True), b, placed)
    assert apply_use(b, wrap[0])[0] == (1, "red")  # 6 + 1 wraps to 1
    assert len(uses(skill("set"), b, placed)) == 18
    assert len(uses(skill("set", values=[1]), b, placed)) == 3
    assert len(uses(skill("reroll"), b, placed)) == 18
    assert len(uses(skill("rotate180", scope="below"), b, placed)) == 3
    assert uses(skill("rotate180", scope="same_level"), b, placed) == []
    swaps = uses(skill("swap"), b, placed)
    assert [u.to_str() for u in swaps] == ["use B4 swap 1-1 1-2", "use B4 swap 1-1 1-3",
                                          "use B4 swap 1-2 1-3"]
    assert len(uses(skill("swap", scope="adjacent"), b, placed)) == 2
    after = apply_use(b, swaps[0])
    assert after[0] == (2, "green") and after[1] == (6, "red")
    # move: 1-3 carries nothing; 1-1 and 1-2 carry 2-1
    moves = [u.to_str() for u in uses(skill("move"), b, placed)]
    assert moves == ["use B4 move 1-3 to 1-4", "use B4 move 1-3 to 1-5",
                     "use B4 move 1-3 to 1-6"]
    assert why_not(skill("move"), b, placed, Use("B4", "move", "1-1", "1-4")) is not None
    assert why_not(skill("move"), b, placed, Use("B4", "move", "1-3", "2-2")) is not None
    # never the die just placed: the on_placed listing is what reconcile names as illegal
    assert {u.target for u in uses(skill("rotate180"), b, placed, on_placed=True)} == {"2-1"}
