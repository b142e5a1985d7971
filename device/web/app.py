"""``create_app``: the FastAPI application, built from its parts (tests inject their own)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

import engine
from device.enrolment import Enroller
from device.store import Store, StoreError
from device.web.hub import Hub
from device.web.routes import enrolment, health, matches
from device.web.service import MatchService, ServiceError

logger = logging.getLogger(__name__)


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status)


def create_app(store: Store, *, service: MatchService | None = None,
               status: Callable[[], dict[str, Any]] | None = None,
               enroller: Enroller | None = None) -> FastAPI:
    """The app over ``store``.

    Args:
        store: where matches are recorded.
        service: the live-match service (one is made over ``store`` if not given; the camera
            runtime passes the one it pushes to).
        status: extra fields for /api/health (camera, model...); health answers without it.
        enroller: where phone enrolment stores dice (the profile); without it the enrolment
            API answers 404 with the reason.
    """
    service = service or MatchService(store)
    hub = Hub()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.bind(asyncio.get_running_loop())
        service.listeners.append(hub.publish)
        try:
            yield
        finally:
            service.listeners.remove(hub.publish)

    app = FastAPI(title="dicetable", version=engine.__version__, lifespan=lifespan,
                  description="The companion's API: matches, actions, live updates.")
    app.state.service = service
    app.state.hub = hub
    app.state.enroller = enroller
    app.state.status = status or (lambda: {"camera": "none", "model": "not loaded"})

    @app.exception_handler(ServiceError)
    async def service_error(_: Request, exc: ServiceError) -> JSONResponse:
        return _error(exc.status, exc.code, exc.message, **exc.extra)

    @app.exception_handler(StoreError)
    async def store_error(_: Request, exc: StoreError) -> JSONResponse:
        return _error(503, "store/error", str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where or 'request'}: {first.get('msg', 'invalid')}"
        return _error(422, "request/invalid", message)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http")
        return _error(exc.status_code, code, str(exc.detail))

    app.include_router(health.router)
    app.include_router(matches.router)
    app.include_router(enrolment.router)
    static = resources.files("device.web").joinpath("static")
    app.mount("/", StaticFiles(directory=str(static), html=True), name="static")
    return app
