"""``create_app``: the FastAPI application, built from its parts (tests inject their own)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import engine
from device.enrolment import Enroller
from device.matches.service import MatchService, ServiceError
from device.store import Store, StoreError
from device.web.access import KEY_HEADER, Access, Guard, RateLimit, RateLimited
from device.web.hub import Hub
from device.web.pagefiles import add_docs, page_directory
from device.web.routes import enrolment, games, health, matches

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
               enroller: Enroller | None = None, access: Access | None = None,
               game: str | None = None) -> FastAPI:
    """The app over ``store``.

    Args:
        store: where matches are recorded.
        service: the live-match service (one is made over ``store`` if not given; the camera
            runtime passes the one it pushes to).
        status: extra fields for /api/health (camera, model...); health answers without it.
        enroller: where phone enrolment stores dice (the profile); without it the enrolment
            API answers 404 with the reason.
        access: the table key (device.web.access); none: anyone may change the table, as
            on loopback.
        game: the game on this table (``serve --game``): the page's New match form opens
            on it.
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

    # /docs from local files (device.web.pagefiles): FastAPI's own loads Swagger UI from a CDN
    app = FastAPI(title="dicetable", version=engine.__version__, lifespan=lifespan,
                  description="The companion's API: matches, actions, live updates.",
                  docs_url=None, redoc_url=None)
    app.state.service = service
    app.state.hub = hub
    app.state.enroller = enroller
    app.state.game = game
    app.state.access = access = access or Access()
    # A club creates a match every few minutes and teaches a die in 30 or so photos.
    app.state.limits = {"matches": RateLimit(burst=10, every=30.0),
                        "uploads": RateLimit(burst=40, every=2.0)}
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

    @app.exception_handler(RateLimited)
    async def rate_limited(_: Request, exc: RateLimited) -> JSONResponse:
        response = _error(429, "rate/limited", str(exc))
        response.headers["Retry-After"] = f"{exc.wait:.0f}"
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {400: "request/malformed", 404: "not_found",
                405: "method_not_allowed"}.get(exc.status_code, "http")
        message = str(exc.detail)
        if exc.status_code == 400:  # FastAPI's words for a body it cannot parse
            message = "the request body cannot be read (malformed JSON or not UTF-8)"
        response = _error(exc.status_code, code, message)
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:
            response.headers["Allow"] = _allowed(request.app, request.scope)
        return response

    @app.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        # A bug, not a bad request: logged with its traceback; the phone still gets a
        # sentence, never a bare error page.
        logger.exception("unexpected error: %s", exc)
        return _error(500, "internal", f"the server failed ({type(exc).__name__}); the "
                      "match is unchanged — please report it")

    app.add_middleware(BodyLimit)
    # outermost: a refused request is not read
    app.add_middleware(Guard, access=access, routes=app.router.routes)
    app.include_router(health.router)
    app.include_router(games.router)
    app.include_router(matches.router)
    app.include_router(enrolment.router)
    add_docs(app)
    # a copy: a reinstall while the server runs must not take its page away (pagefiles)
    app.router.routes.append(_Page("/", app=StaticFiles(directory=str(page_directory()),
                                                        html=True), name="static"))
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _allowed(app: FastAPI, scope: Scope) -> str:
    """The methods a path takes, for the Allow header of a 405. Each FastAPI route holds one
    method, and Starlette names only the first route that matched the path: so ask every
    route about every method."""
    allowed = [method for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
               if any(route.matches({**scope, "method": method})[0] == Match.FULL
                      and (method in ("GET", "HEAD") or not isinstance(route, _Page))
                      for route in app.router.routes)]
    if "GET" in allowed and "HEAD" not in allowed:
        allowed.insert(1, "HEAD")  # Starlette answers HEAD wherever GET is
    return ", ".join(allowed)


class _Page(Mount):
    """The page's static files, mounted at / but not under /api: there a path asked with the
    wrong method must get the API's 405 with its Allow header, not the files' own 405."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and (scope["path"] == "/api"
                                        or scope["path"].startswith("/api/")):
            return Match.NONE, {}
        return super().matches(scope)


COMMON: dict[str, tuple[str, str]] = {
    "400": ("the body cannot be read (malformed JSON, not UTF-8)", "body"),
    "401": ("the table's key is needed (the server listens beyond loopback)", "key"),
    "403": ("not the table's key", "key"),
    "405": ("method not allowed here (the Allow header lists those that are)", "all"),
    "413": ("the request is too large", "body"),
}
"""Responses every operation of a kind may give (body: it takes a body; key: it needs the
table's key, where the server has one; all), documented once here rather than on each
route."""


def _link(schema: dict[str, Any], op: dict[str, Any]) -> None:
    """OpenAPI links from a new match (and the games' list) to every operation that takes
    its id, so that a client (or a fuzzer's stateful phase) knows where ids come from."""
    params = {p["name"] for p in op.get("parameters", []) if p.get("in") == "path"}
    sources = {"match_id": ("create_match", "201", "$response.body#/id"),
               "game": ("list_games", "200", "$response.body#/0/name")}
    for name in params & set(sources):
        source, status, value = sources[name]
        target = next((o for p in schema["paths"].values() for o in p.values()
                       if o.get("operationId") == source), None)
        if target is not None and status in target.get("responses", {}):
            target["responses"][status].setdefault("links", {})[op["operationId"]] = {
                "operationId": op["operationId"], "parameters": {name: value}}


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's description plus the responses the middleware and the error handlers give
    (400, 401/403, 405 with Allow, 413), and the table key as a security scheme."""
    if app.openapi_schema:
        return app.openapi_schema
    from fastapi.openapi.utils import get_openapi

    schema = get_openapi(title=app.title, version=app.version, description=app.description,
                         routes=app.routes)
    error = {"$ref": "#/components/schemas/ErrorOut"}
    schema.setdefault("components", {}).setdefault("schemas", {}).setdefault(
        "ErrorOut", {"type": "object", "required": ["code", "message"], "properties": {
            "code": {"type": "string"}, "message": {"type": "string"}}})
    schema["components"]["securitySchemes"] = {"tableKey": {
        "type": "apiKey", "in": "header", "name": KEY_HEADER,
        "description": "the table's key, printed by serve and demo with the players' link; "
                       "needed to change anything when the server listens beyond loopback, "
                       "and to read with --private"}}
    for path in schema["paths"].values():
        for method, op in path.items():
            responses = op.setdefault("responses", {})
            kinds = {"all"} | ({"body"} if "requestBody" in op else set()) | (
                {"write"} if method not in ("get", "head", "options") else set())
            for status, (text, kind) in COMMON.items():
                if kind in kinds and status not in responses:
                    responses[status] = {"description": text,
                                         "content": {"application/json": {"schema": error}}}
            if "405" in responses:
                responses["405"]["headers"] = {"Allow": {
                    "description": "the methods this path takes", "schema": {"type": "string"}}}
            access: Access = app.state.access
            _link(schema, op)
            if access.key is not None and ("write" in kinds or access.private):
                op["security"] = [{"tableKey": []}]
                for status in ("401", "403"):
                    responses.setdefault(status, {
                        "description": COMMON[status][0],
                        "content": {"application/json": {"schema": error}}})
    app.openapi_schema = schema
    return schema
