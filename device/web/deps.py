"""Dependencies the routes declare (FastAPI ``Annotated`` style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends
from starlette.requests import HTTPConnection

from device.matches.service import MatchService
from device.web.hub import Hub


def get_service(request: HTTPConnection) -> MatchService:
    service: MatchService = request.app.state.service
    return service


def get_hub(request: HTTPConnection) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


ServiceDep = Annotated[MatchService, Depends(get_service)]
HubDep = Annotated[Hub, Depends(get_hub)]
