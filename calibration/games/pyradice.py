"""Pyradice outside its rules: to the camera, coloured d6 in the quarry's three stacked
layers and on each player's pyramid board, every one in a slot: read slot by slot, a stack
from its top down (only the quarry dice whose top is uncovered count: the rules list no
other); on the phone, the token sheet the players use."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from calibration.perception import Perception, Problem, problem, register
from calibration.table.slot_dice import SlotDice
from engine import EngineError

SHEET_KINDS = {"skills": "skill", "objectives": "objective", "cards": "card"}


def setup_form() -> dict[str, Any]:
    from engine.games.pyradice.vocabulary import CHOICES, SCHEMAS

    sheet = json.loads(resources.files("engine.games.pyradice").joinpath(
        "data/sheet.json").read_text("utf-8"))
    shapes = {kind: {shape: {name: {"type": typ,
                                    "default": list(d) if isinstance(d, tuple) else
                                    (None if d is ... else d),
                                    "required": d is None,
                                    "choices": list(CHOICES.get(typ, ())) or None}
                             for name, (typ, d) in params.items()}
                     for shape, params in by_shape.items()}
              for kind, by_shape in SCHEMAS.items()}
    return {"game": "pyradice",
            "sheet": {key: sheet[key] for key in SHEET_KINDS},
            "provenance": sheet["provenance"], "doc": sheet["doc"], "shapes": shapes}


def setup_rows(setup: Mapping[str, Any]) -> list[Problem]:
    """Each definition of the sheet on its own, by the vocabulary."""
    from engine.games.pyradice.vocabulary import parse_definition

    sheet = setup.get("sheet")
    if not isinstance(sheet, Mapping):
        return []
    out: list[Problem] = []
    for key, kind in SHEET_KINDS.items():
        rows = sheet.get(key, [])
        if not isinstance(rows, list):
            out.append(Problem(["sheet", key], f"'{key}' is a list of definitions"))
            continue
        for i, row in enumerate(rows):
            try:
                parse_definition(kind, row)
            except EngineError as exc:
                out.append(problem(exc, "sheet", key, i))
    return out


SPEC = register(Perception(
    "pyradice",
    table_script="games/pyradice.js",
    dice_zones=("quarry", "board:*"),
    # a turn takes a die from the quarry (rule pyradice.take); nothing puts one back
    slot_dice=SlotDice(zones=("quarry", "board:*"), only_leave=("quarry",)),
    setup_form=setup_form,
    setup_rows=setup_rows,
))
