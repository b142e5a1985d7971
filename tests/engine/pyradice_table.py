"""The fixed Pyradice table the Pyradice tests share.

Two players, the default quarry (5x5, 4x4, 3x3) with known dice: slot ``L{k}-{i}`` holds
value ``(7k + i) % 6 + 1`` in colour ``COLOURS[(k + i) % 4]``; skills A2 (±1), A3 (rotate
180°, VERIFIED), A4 (set), A5 (move), A6 (swap adjacent) on levels 2..6; objectives C6
(VERIFIED), C1, C2, C3, C4 on levels 1..5; cards K1..K4 with discs red, yellow, green, blue.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine import get_game
from engine.games.pyradice import PyradiceState
from engine.games.pyradice import pyramid as pm
from engine.games.pyradice import quarry as qy

GAME = get_game("pyradice")
COLOURS = ("red", "yellow", "green", "blue")
SKILLS = ["A2", "A3", "A4", "A5", "A6"]
OBJECTIVES = ["C6", "C1", "C2", "C3", "C4"]
CARDS = [["K1", "red"], ["K2", "yellow"], ["K3", "green"], ["K4", "blue"]]


def quarry_dice(dims: str = "5x5,4x4,3x3") -> dict[str, str]:
    geo = qy.geometry(qy.parse_dims(dims))
    return {name: f"{(7 * (k + 1) + i + 1) % 6 + 1} {COLOURS[(k + 1 + i + 1) % 4]}"
            for k, layer in enumerate(geo.names) for i, name in enumerate(layer)}


def setup(**changes: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"skills": SKILLS, "objectives": OBJECTIVES, "cards": CARDS,
                           "quarry": quarry_dice()}
    out.update(changes)
    return out


def new(players: int = 2, options: Mapping[str, object] | None = None,
        **changes: Any) -> PyradiceState:
    s = setup(**changes)
    if players > 2 and "quarry" not in changes:
        s["quarry"] = quarry_dice("7x6,6x5,5x4")
    return GAME.new_state(players, options, setup=s)


def play(state: PyradiceState, *texts: str) -> PyradiceState:
    return GAME.play(state, list(texts))


def legal(state: PyradiceState) -> list[str]:
    return [a.to_str() for a in GAME.legal_actions(state)]


def die(text: str) -> tuple[int, str]:
    value, colour = text.split()
    return int(value), colour


def with_board(state: PyradiceState, player: int, dice: Mapping[str, str]) -> PyradiceState:
    """``state`` with ``player``'s pyramid holding exactly ``dice`` (space -> 'V COLOUR').
    Only for tests that look at boards, not at the quarry or the turn count."""
    board = list(pm.EMPTY)
    for space, text in dice.items():
        board[pm.INDEX[space]] = die(text)
    boards = list(state.boards)
    boards[player] = tuple(board)
    return replace(state, boards=tuple(boards))


def full_level(values: str, colours: str = "") -> dict[str, str]:
    """Dice for the spaces of the levels, given as '123456 12345 ...' (values by level) and
    optionally colours as initials 'rygb' per die in the same layout."""
    out = {}
    levels = values.split()
    cols = colours.split() if colours else [""] * len(levels)
    names = {"r": "red", "y": "yellow", "g": "green", "b": "blue"}
    for lv, (vals, cs) in enumerate(zip(levels, cols, strict=True), start=1):
        for i, v in enumerate(vals, start=1):
            colour = names[cs[i - 1]] if cs else "red"
            out[f"{lv}-{i}"] = f"{v} {colour}"
    return out
