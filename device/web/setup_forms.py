"""Setup the players enter on the phone (Pyramid Dice cards and layout, the Pyradice sheet):
what the form offers, and the engine's own verdict on what was entered, field by field.

The engine is the only judge: each row is put through the game's own validation on its own
(so every wrong row gets its message, not only the first), then the whole set, then a new
game is set up with it exactly as the match will be. The messages are the engine's; this
module only says which field each one belongs to.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from typing import Any

from engine import EngineError, get_game

Path = list[str | int]

_QUOTED = re.compile(r"'([a-z_]+)'")
_CARD_PREFIX = re.compile(r"^card (\d+|'[^']*'): ")
_DEF_PREFIX = re.compile(r"^(skill|objective|card) \S+: ")


def _data(package: str, name: str) -> Any:
    return json.loads(resources.files(package).joinpath(f"data/{name}").read_text("utf-8"))


def _field(message: str, fields: Sequence[str]) -> str | None:
    """The field an engine message is about: the first quoted field name it gives."""
    for name in _QUOTED.findall(message):
        if name in fields:
            return name
    return None


def _error(path: Path, message: str) -> dict[str, Any]:
    return {"path": path, "message": message}


# --- Pyramid Dice -------------------------------------------------------------------------
CARD_FIELDS = ("id", "kind", "number", "points", "back", "ability")


def pyramid_dice_form() -> dict[str, Any]:
    from engine.games.pyramid_dice.cards import DEFAULT_COUNTS, KINDS
    from engine.games.pyramid_dice.solver import ABILITIES

    example = _data("engine.games.pyramid_dice", "example_cards.json")
    layout = _data("engine.games.pyramid_dice", "default_layout.json")
    return {
        "game": "pyramid_dice",
        "cards": {"example": example["cards"], "provenance": example["provenance"],
                  "doc": example["doc"], "kinds": list(KINDS), "abilities": list(ABILITIES),
                  "backs": [1, 2], "counts": dict(DEFAULT_COUNTS)},
        "layout": {"rows": 7, "provenance": layout["provenance"], "doc": layout["doc"]},
    }


def _pyramid_rows(cards: Any) -> list[dict[str, Any]]:
    from engine.games.pyramid_dice.cards import KINDS, parse_cards

    errors = []
    if not isinstance(cards, list):
        return errors
    for i, row in enumerate(cards):
        kind = row.get("kind") if isinstance(row, Mapping) else None
        counts = {k: int(k == kind) for k in KINDS} if kind in KINDS else None
        try:
            parse_cards([row], counts or {"treasure": 1, "god": 0})
        except EngineError as exc:
            message = _CARD_PREFIX.sub("", str(exc))
            field = _field(message, CARD_FIELDS)
            errors.append(_error(["cards", i] + ([field] if field else []), message))
    return errors


def _pyramid_set(cards: Any, counts: Any) -> list[dict[str, Any]]:
    """Problems of the set as a whole (an id used twice, the number of cards)."""
    from engine.games.pyramid_dice.cards import parse_cards

    try:
        parse_cards(cards, counts)
    except EngineError as exc:
        message = str(exc)
        twice = re.match(r"^card '([^']*)': the id is used twice", message)
        if twice and isinstance(cards, list):
            where = [i for i, c in enumerate(cards)
                     if isinstance(c, Mapping) and c.get("id") == twice.group(1)]
            return [_error(["cards", where[-1], "id"], "this id is used twice")]
        return [_error(["cards"], message)]
    return []


def _pyramid_errors(setup: Mapping[str, Any]) -> list[dict[str, Any]]:
    from engine.games.pyramid_dice.cards import parse_layout

    errors = []
    if "cards" in setup:
        errors = _pyramid_rows(setup["cards"])
        if not errors:
            errors = _pyramid_set(setup["cards"], setup.get("card_counts"))
    if "layout" in setup:
        try:
            parse_layout(setup["layout"])
        except EngineError as exc:
            errors.append(_error(["layout"], str(exc)))
    return errors


# --- Pyradice -----------------------------------------------------------------------------
SHEET_KINDS = {"skills": "skill", "objectives": "objective", "cards": "card"}


def pyradice_form() -> dict[str, Any]:
    from engine.games.pyradice.vocabulary import _CHOICES, SCHEMAS

    sheet = _data("engine.games.pyradice", "sheet.json")
    shapes = {kind: {shape: {name: {"type": typ,
                                    "default": list(d) if isinstance(d, tuple) else
                                    (None if d is ... else d),
                                    "required": d is None,
                                    "choices": list(_CHOICES.get(typ, ())) or None}
                             for name, (typ, d) in params.items()}
                     for shape, params in by_shape.items()}
              for kind, by_shape in SCHEMAS.items()}
    return {"game": "pyradice",
            "sheet": {key: sheet[key] for key in SHEET_KINDS},
            "provenance": sheet["provenance"], "doc": sheet["doc"], "shapes": shapes}


def _pyradice_errors(setup: Mapping[str, Any]) -> list[dict[str, Any]]:
    from engine.games.pyradice.vocabulary import SCHEMAS, parse_definition

    sheet = setup.get("sheet")
    if not isinstance(sheet, Mapping):
        return []
    errors = []
    for key, kind in SHEET_KINDS.items():
        rows = sheet.get(key, [])
        if not isinstance(rows, list):
            errors.append(_error(["sheet", key], f"'{key}' is a list of definitions"))
            continue
        for i, row in enumerate(rows):
            try:
                parse_definition(kind, row)
            except EngineError as exc:
                message = _DEF_PREFIX.sub("", str(exc))
                shape = row.get("shape") if isinstance(row, Mapping) else None
                fields = ["id", "shape", "text", *SCHEMAS[kind].get(str(shape), {})]
                field = _field(message, fields)
                errors.append(_error(["sheet", key, i] + ([field] if field else []), message))
    return errors


FORMS = {"pyramid_dice": pyramid_dice_form, "pyradice": pyradice_form}
_ROWS = {"pyramid_dice": _pyramid_errors, "pyradice": _pyradice_errors}


def setup_form(game_name: str) -> dict[str, Any]:
    """What the new-match page offers for a game's setup (empty for a game with none)."""
    name = get_game(game_name).info.name
    return FORMS[name]() if name in FORMS else {"game": name}


def check_setup(game_name: str, players: int, options: Mapping[str, object],
                setup: Mapping[str, Any] | None) -> dict[str, Any]:
    """``{"ok", "errors": [{"path", "message"}]}``: the engine's messages on each field,
    then (when every field passed) its verdict on the whole setup."""
    game = get_game(game_name)
    setup = dict(setup or {})
    rows = _ROWS.get(game.info.name)
    errors = rows(setup) if rows else []
    if not errors:
        try:
            game.new_state(players, options, setup=setup, seed=0)
        except EngineError as exc:
            message = str(exc)
            key = next((k for k in setup if f"'{k}'" in message or message.startswith(k)),
                       None)
            errors.append(_error([key] if key else [], message))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            errors.append(_error([], f"setup: {exc}"))
    return {"ok": not errors, "errors": errors}
