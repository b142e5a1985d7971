"""Quarriors! outside its rules: to the camera, its catalogued dice (18 types, shared/data/
games) in each player's Active Pool, Ready Area, Spent Pile and Used Pile on the Quarriors
mat (calibration/layouts/quarriors-*.json); on the phone, the 10 Power Cards the table shows.

The Wilds are not read: their dice stand on the Power Cards in rows of five, each card's die
known by the card it lies on, and the rules know every change of them from the moves.
Reading them cost more than the reading budget allows (a 2-player Wilds holds 57 dice:
simulate --game quarriors, rendered camera, 0.7 s a reading with them, most of it their
faces; counted without types or faces they were still miscounted by 1 to 12 in 67 of 78
readings, their rows touching). They are watched instead (calibration.table.watch): a
capture takes a die from its card and a cull puts one back, and the rules are told whether
the Wilds look changed since the record last changed them, which shows a capture whose die
the capturer's Used Pile, a heap, hides.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calibration.perception import Perception, Problem, problem, register
from engine import EngineError
from vision.faces.dietypes import game_types

PLAYER_ZONES = ("active:*", "ready:*", "spent:*", "used:*")


def setup_form() -> dict[str, Any]:
    """The base set's creature and spell cards (each with its class, cost, glory and text),
    the rulebook's numbers and which cards this engine does not play yet."""
    from engine.games.quarriors.cards import (
        CARDS,
        CREATURE_CLASSES,
        NOT_IMPLEMENTED,
        SPELL_CLASSES,
    )

    cards = [{"name": c.name, "class": c.cls, "category": c.category, "cost": c.cost,
              "glory": c.glory, "die": c.die,
              "text": [t.text for t in c.text], "playable": c.name not in NOT_IMPLEMENTED,
              "why_not": NOT_IMPLEMENTED.get(c.name)}
             for c in sorted(CARDS.values(), key=lambda c: (c.category, c.cls, c.name))
             if c.category != "basic"]
    return {"game": "quarriors", "power_cards": cards,
            "counts": {"creature": CREATURE_CLASSES, "spell": SPELL_CLASSES},
            "doc": "The 10 Power Cards in the Wilds: 7 creature and 3 spell cards, no class "
                   "twice (RULES setup_classes). Left empty, the cards are dealt as the "
                   "rulebook says. The Assistant, Basic Quiddity and Portal cards are always "
                   "out."}


def setup_rows(setup: Mapping[str, Any]) -> list[Problem]:
    """The engine's verdict on the entered cards (the first wrong one, with its reason)."""
    from engine.games.quarriors.setup import check_cards

    if "cards" not in setup:
        return []
    try:
        check_cards(setup["cards"])
    except EngineError as exc:
        return [problem(exc)]
    return []


SPEC = register(Perception(
    "quarriors",
    table_script="games/quarriors.js",
    read_zones=PLAYER_ZONES,
    dice_zones=PLAYER_ZONES,
    die_types=game_types("quarriors"),
    # the rules follow the Used Pile by type (RULES end_move: the dice are returned, not
    # kept as they lay), so its faces are not read
    type_only_zones=("used:*",),
    # a player's Used Pile is a dozen dice and more swept together (RULES end_move)
    heap_zones=("used:*",),
    # a capture takes a die from its card, a cull puts one back (RULES capture, cull): the
    # Wilds show both, whatever the Used Pile's heap hides
    watched_zones=("wilds",),
    # a move changes one or two of the eight zones (a spend: the Active Pool and the Spent
    # Pile): the others' dice are kept from the reading before
    partial_dice=True,
    in_play=("quarriors-basic-quiddity", "quarriors-assistant", "quarriors-portal"),
    setup_form=setup_form,
    setup_rows=setup_rows,
))
