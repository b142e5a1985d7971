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
    table's) or ``spectator`` (read only); the page shows its controls by it."""
    status = request.app.state.status
    access = request.app.state.access
    return {"status": "ok", "version": engine.__version__, **status(),
            "access": access.level(given_key(request.scope)), "private": access.private}
