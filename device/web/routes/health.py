"""Health: answers with no camera and no model."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

import engine

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", operation_id="health")
def health(request: Request) -> dict[str, Any]:
    status = request.app.state.status
    return {"status": "ok", "version": engine.__version__, **status()}
