"""The setup the players enter on the phone for a new match: what the form offers (each
game's spec gives it: calibration.games), and the engine's own verdict on what was entered,
field by field.

The engine is the only judge: each row is put through the game's own validation on its own
(so every wrong row gets its message, not only the first), then the whole set, then a new
game is set up with it exactly as the match will be. The messages are the engine's, and so
is the field each one is about (``EngineError.path``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from calibration.perception import Problem, perception, problem
from engine import EngineError, get_game


def setup_form(game_name: str) -> dict[str, Any]:
    """What the new-match page offers for a game's setup (only its name for a game with
    none)."""
    name = get_game(game_name).info.name
    form = perception(name).setup_form
    return form() if form is not None else {"game": name}


def check_setup(game_name: str, players: int, options: Mapping[str, object],
                setup: Mapping[str, Any] | None) -> dict[str, Any]:
    """``{"ok", "errors": [{"path", "message"}]}``: the engine's messages on each field,
    then (when every field passed) its verdict on the whole setup."""
    game = get_game(game_name)
    setup = dict(setup or {})
    rows = perception(game.info.name).setup_rows
    errors: list[Problem] = rows(setup) if rows is not None else []
    if not errors:
        try:
            game.new_state(players, options, setup=setup, seed=0)
        except EngineError as exc:
            errors.append(problem(exc))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            errors.append(Problem([], f"setup: {exc}"))
    return {"ok": not errors, "errors": [e.to_dict() for e in errors]}
