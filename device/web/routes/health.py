"""Health and the list of games: answer with no camera and no model."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

import engine
from engine import all_games

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", operation_id="health")
def health(request: Request) -> dict[str, Any]:
    status = request.app.state.status
    return {"status": "ok", "version": engine.__version__, **status()}


@router.get("/games", operation_id="list_games")
def games() -> list[dict[str, Any]]:
    return [{
        "name": g.info.name, "title": g.info.title,
        "players": [g.info.min_players, g.info.max_players],
        "options": [{"name": o.name, "default": o.default,
                     "choices": list(o.choices) if o.choices else None,
                     "provenance": o.provenance, "doc": o.doc} for o in g.info.options],
    } for g in all_games()]
