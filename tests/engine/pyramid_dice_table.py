"""The fixed Pyramid Dice table the rule and reconcile tests share (example cards, default
layout, a known placement): see the docstring of test_pyramid_dice_rules.py."""

from __future__ import annotations

from dataclasses import replace

from engine import get_game
from engine.games.pyramid_dice import PyramidState
from engine.games.pyramid_dice import table as t
from engine.games.pyramid_dice.cards import default_layout

GAME = get_game("pyramid dice")
TWOS = ["t14", "t15", "t16", "t17", "t18", "t19", "t20", "t21", "g6", "g7"]
ONES = ["t10", "t11", "g3", "g4", "g5", "t1", "t2", "t3", "t4", "t5", "t8",
        "t6", "t9", "t13", "g1", "t7", "t12", "g2"]


def placement() -> dict[str, str]:
    return dict(zip(default_layout()[1], TWOS + ONES, strict=True))


def new(players: int = 2, **options: object) -> PyramidState:
    return GAME.new_state(players, options, setup={"placement": placement()})


def play(state: PyramidState, *texts: str) -> PyramidState:
    return GAME.play(state, list(texts))


def holding(state: PyramidState, player: int, *cards: str) -> PyramidState:
    """Give ``player`` these cards face up (taken out of the pyramid)."""
    pyramid = tuple(x for x in state.pyramid if x[1] not in cards)
    areas = tuple(a + cards if p == player else a for p, a in enumerate(state.areas))
    gods = any(t.card(state, c).kind == "god" for c in cards)
    got = tuple(g or (p == player and gods) for p, g in enumerate(state.got_god))
    return replace(state, pyramid=pyramid, areas=areas, got_god=got)
