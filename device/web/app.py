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
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import engine
from device.enrolment import Enroller
from device.store import Store, StoreError
from device.web.hub import Hub
from device.web.routes import enrolment, games, health, matches
from device.web.service import MatchService, ServiceError

logger = logging.getLogger(__name__)


MAX_BODY_BYTES = 1_000_000
"""Largest request body outside enrolment (a Pyramid Dice setup is about 5 kB)."""


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"code": code, "message": message, **extra}, status_code=status)


class BodyLimit:
    """Refuses a request body over ``limit`` bytes with 413 before a route reads any of it:
    by its Content-Length when it gives one, else by counting (the body is small, so it is
    read here and handed on). Enrolment photos have their own, larger limit."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES,
                 exempt: tuple[str, ...] = ("/api/enrolment",)) -> None:
        self.app, self.limit, self.exempt = app, limit, exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH") \
                or scope["path"].startswith(self.exempt):
            await self.app(scope, receive, send)
            return
        too_large = _error(413, "request/too_large",
                           f"the request is larger than {self.limit // 1000} kB")
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.limit:
            await too_large(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await too_large(scope, receive, send)
                return
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


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

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        # A bug, not a bad request: logged with its traceback; the phone still gets a
        # sentence, never a bare error page.
        logger.exception("unexpected error: %s", exc)
        return _error(500, "internal", f"the server failed ({type(exc).__name__}); the "
                      "match is unchanged — please report it")

    app.add_middleware(BodyLimit)
    app.include_router(health.router)
    app.include_router(games.router)
    app.include_router(matches.router)
    app.include_router(enrolment.router)
    static = resources.files("device.web").joinpath("static")
    app.mount("/", StaticFiles(directory=str(static), html=True), name="static")
    return app
