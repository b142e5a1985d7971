"""Pyramid Dice (ピラミッド・ダイス) outside its rules: to the camera, three d6 thrown in the
rolling area, the card pyramid's slots, the side area and the players' areas (cards in
columns, each card's top band showing; a side card is known by the look of its band); on the
phone, the cards of the players' box and where each lies."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from calibration.perception import Perception, Problem, problem, register
from calibration.table.cards import Cards
from engine import EngineError


def _data(name: str) -> Any:
    return json.loads(resources.files("engine.games.pyramid_dice").joinpath(
        f"data/{name}").read_text("utf-8"))


def setup_form() -> dict[str, Any]:
    from engine.games.pyramid_dice.cards import DEFAULT_COUNTS, KINDS
    from engine.games.pyramid_dice.solver import ABILITIES

    example, layout = _data("example_cards.json"), _data("default_layout.json")
    return {
        "game": "pyramid_dice",
        "cards": {"example": example["cards"], "provenance": example["provenance"],
                  "doc": example["doc"], "kinds": list(KINDS), "abilities": list(ABILITIES),
                  "backs": [1, 2], "counts": dict(DEFAULT_COUNTS)},
        "layout": {"rows": 7, "provenance": layout["provenance"], "doc": layout["doc"]},
    }


def setup_rows(setup: Mapping[str, Any]) -> list[Problem]:
    """Each card on its own (so every wrong card gets its message), then the set (an id
    used twice, the number of cards), and the layout."""
    from engine.games.pyramid_dice.cards import KINDS, parse_cards, parse_layout

    out: list[Problem] = []
    cards = setup.get("cards")
    if "cards" in setup:
        for i, row in enumerate(cards if isinstance(cards, list) else []):
            kind = row.get("kind") if isinstance(row, Mapping) else None
            counts = {k: int(k == kind) for k in KINDS} if kind in KINDS else None
            try:
                parse_cards([row], counts or {"treasure": 1, "god": 0})
            except EngineError as exc:  # (at index 0 of the one-card set: card i)
                out.append(Problem(["cards", i, *exc.path[1:]],
                                   exc.field_message or str(exc)))
        if not out:
            try:
                parse_cards(cards, setup.get("card_counts"))
            except EngineError as exc:
                out.append(problem(exc, "cards"))
    if "layout" in setup:
        try:
            parse_layout(setup["layout"])
        except EngineError as exc:
            out.append(problem(exc, "layout"))
    return out


SPEC = register(Perception(
    "pyramid_dice",
    table_script="games/pyramid_dice.js",
    read_zones=("rolling", "pyramid", "side", "area:*"),
    dice_zones=("rolling",),
    pieces=(Cards(slots="pyramid", areas=("side", "area:*"), known_by_look=("side",)),),
    setup_form=setup_form,
    setup_rows=setup_rows,
))
