"""Health: answers with no camera and no model."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

import engine
from device.web.access import given_key

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", operation_id="health")
def health(request: Request) -> dict[str, Any]:
    """Also what this client may do: ``open`` (no key needed), ``players`` (its key is the
    table's) or ``spectator`` (read only); the page shows its controls by it. ``match``: the
    match the table's camera (or the demo) follows, which the page opens first; ``game``:
    the game served (``serve --game``); ``enrolment``: whether dice can be taught here."""
    status = request.app.state.status
    access = request.app.state.access
    out = {"status": "ok", "version": engine.__version__, **status(),
           "access": access.level(given_key(request.scope)), "private": access.private,
           # the page offers "Teach a die" only where what is taught is kept (a profile)
           "enrolment": request.app.state.enroller is not None}
    if request.app.state.game is not None:  # the game served: the New match form's own
        out["game"] = request.app.state.game
    return out
