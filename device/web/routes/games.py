"""Games: the list with their options, and the setup the players enter for a new match."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from calibration.perception import perception
from device.matches.service import ServiceError
from device.matches.setup import check_setup, setup_form
from device.web.schemas import ErrorOut, SetupCheckIn
from engine import EngineError, all_games

router = APIRouter(prefix="/api/games", tags=["games"])

ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorOut, "description": "no such game"},
    422: {"model": ErrorOut, "description": "invalid request"},
}


@router.get("", operation_id="list_games")
def games() -> list[dict[str, Any]]:
    return [{
        "name": g.info.name, "title": g.info.title,
        # the page's drawing of its table (the game's spec: calibration.games)
        "table": perception(g.info.name).table_script,
        "players": [g.info.min_players, g.info.max_players],
        "options": [{"name": o.name, "default": o.default,
                     "choices": list(o.choices) if o.choices else None,
                     "provenance": o.provenance, "doc": o.doc} for o in g.info.options],
    } for g in all_games()]


def _game_error(exc: EngineError) -> ServiceError:
    return ServiceError(404, exc.code, str(exc))


@router.get("/{game}/setup", operation_id="get_setup_form", responses=ERRORS)
def get_setup_form(game: str) -> dict[str, Any]:
    """What the players may enter for a new match of this game, with the shipped example
    (marked as an example: not the box's contents)."""
    try:
        return setup_form(game)
    except EngineError as exc:
        raise _game_error(exc) from None


@router.post("/{game}/setup/check", operation_id="check_setup", responses=ERRORS)
def post_setup_check(game: str, body: SetupCheckIn) -> dict[str, Any]:
    """The engine's verdict on a setup before the match starts, with each message on the
    field it is about (``path``: ["cards", 3, "number"])."""
    try:
        return check_setup(game, body.players, body.options, body.setup)
    except EngineError as exc:
        raise _game_error(exc) from None
