"""Who may change a table: the table key, per-client rate limits, and the page's security
headers.

At a club the server listens on a shared network (``--host 0.0.0.0``), and anyone on it
could create matches, take back a whole match or add dice to the profile (issue 29). So when
the server listens beyond loopback it has a *table key*: every request that changes
something (any ``/api`` method but GET, HEAD and OPTIONS) must carry it, in the
``X-Table-Key`` header or a ``key`` query parameter (the WebSocket and ``<img>`` cannot set
headers). Without it the page is a spectator's: live view, scores, replay. With ``private``
even reading needs the key (the page's static files, which hold no match data, are still
served so that the page can say so). The key is compared in constant time.

Rate limits are per client address and apply whatever the key: a phone with the key that
loops on "new match" must not fill the database.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import math
import re
import secrets
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from starlette.datastructures import Headers, QueryParams
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

KEY_HEADER = "X-Table-Key"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
"""No inline script or style anywhere on the page; nothing from another origin."""
DOCS_CSP = ("default-src 'self'; script-src 'self' https://cdn.jsdelivr.net 'unsafe-inline'; "
            "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: "
            "https://fastapi.tiangolo.com; object-src 'none'; frame-ancestors 'none'")
"""FastAPI's /docs page loads Swagger UI from its CDN and starts it with an inline script;
it shows no match data, so it gets this looser policy instead of breaking."""
DOCS_PATHS = ("/docs", "/redoc")


def new_key() -> str:
    """A fresh table key: 12 characters a phone's QR code and a person can both carry."""
    return secrets.token_urlsafe(9)


KEY_PATTERN = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
"""A key given with --key: long enough not to be guessed, and safe in a link as it is."""


def is_loopback(host: str) -> bool:
    """Whether only this machine can reach ``host`` (a name other than localhost is not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def table_access(host: str, key: str | None, private: bool) -> Access:
    """The rule for a server on ``host``: a key (``key``, else a fresh one) when it listens
    beyond loopback, when one is given, or when it is private; none otherwise."""
    if key is None and not private and is_loopback(host):
        return Access()
    return Access(key or new_key(), private)


def players_link(host: str, port: int, key: str | None) -> str:
    """The address a phone on the network opens, with the key when there is one. For a
    server on every interface (0.0.0.0, ::) that is this machine's address on the network
    its default route leaves by (no packet is sent to find it)."""
    shown = host
    if host in ("0.0.0.0", "::", ""):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
                probe.connect(("192.0.2.1", 9))  # TEST-NET-1: routing only, nothing sent
                shown = probe.getsockname()[0]
        except OSError:
            shown = socket.gethostname()
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/" + (f"?key={key}" if key else "")


@dataclass(frozen=True, slots=True)
class Access:
    """The table's access rule.

    Attributes:
        key: the table key, or None when anyone may change the table (loopback only).
        private: whether reading the table needs the key too.
    """

    key: str | None = None
    private: bool = False

    def allows(self, given: str | None) -> bool:
        return self.key is None or (given is not None and hmac.compare_digest(
            given.encode(), self.key.encode()))

    def level(self, given: str | None) -> str:
        """``open`` (no key needed), ``players`` (right key) or ``spectator``."""
        if self.key is None:
            return "open"
        return "players" if self.allows(given) else "spectator"


def given_key(scope: Scope) -> str | None:
    headers = Headers(scope=scope)
    return headers.get(KEY_HEADER) or QueryParams(scope.get("query_string", b"")).get("key")


def _refusal(given: str | None) -> tuple[int, str, str]:
    if given is None:
        return 401, "key/missing", ("this table's key is needed to change anything: open the "
                                    "players' link (scan the QR code the server printed)")
    return 403, "key/wrong", ("this is not the table's key (it changes each time the server "
                              "starts unless it was given with --key): scan the QR code again")


class Guard:
    """ASGI middleware: the table key on every request that needs it, and the security
    headers on every response."""

    def __init__(self, app: ASGIApp, access: Access, routes: list[BaseRoute]) -> None:
        self.app, self.access, self.routes = app, access, routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        api = path.startswith("/api/") or path == "/api"
        # a WebSocket only reads (its scope has no method): it needs the key when private
        needs_key = api and (self.access.private
                             or scope.get("method", "GET") not in SAFE_METHODS)
        given = given_key(scope)
        # A method no route takes there is the API's 405 (or 404), key or not: nothing
        # would be written, and a client learns what the path does take.
        if needs_key and not self.access.allows(given) and any(
                route.matches(scope)[0] == Match.FULL for route in self.routes):
            status, code, message = _refusal(given)
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 4000 + status,
                            "reason": message[:120]})
                return
            body = json.dumps({"code": code, "message": message}).encode()
            await _headers(send, path)({"type": "http.response.start", "status": status,
                                        "headers": [(b"content-type", b"application/json"),
                                                    (b"content-length",
                                                     str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, _headers(send, path) if scope["type"] == "http"
                       else send)


def _headers(send: Send, path: str) -> Send:
    """``send`` with the security headers added to the response's start."""
    csp = DOCS_CSP if path.startswith(DOCS_PATHS) else CSP

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = dict(message)
            message["headers"] = [*message.get("headers", []),
                                  (b"content-security-policy", csp.encode()),
                                  (b"x-frame-options", b"DENY"),
                                  (b"x-content-type-options", b"nosniff"),
                                  (b"referrer-policy", b"no-referrer")]
        await send(message)

    return sending


class RateLimited(Exception):
    """Too many requests of one kind from one client: 429 with Retry-After."""

    def __init__(self, what: str, wait: float) -> None:
        super().__init__(f"too many {what} from this device: try again in {wait:.0f} s")
        self.wait = wait


class RateLimit:
    """A token bucket per client: ``burst`` requests at once, then one every ``every``
    seconds. At most ``clients`` buckets are kept (the least recently seen go first), so a
    flood of addresses cannot grow it without bound."""

    def __init__(self, burst: int, every: float, clients: int = 4096) -> None:
        self.burst, self.every, self.clients = burst, every, clients
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, client: str, what: str) -> None:
        """RateLimited unless ``client`` may go on (then one token is taken)."""
        wait = self.take(client)
        if wait:
            raise RateLimited(what, wait)

    def take(self, client: str, now: float | None = None) -> float:
        """0 when ``client`` may go on (one token taken), else the seconds to wait."""
        now = time.monotonic() if now is None else now
        with self._lock:
            tokens, since = self._buckets.pop(client, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - since) / self.every)
            wait = 0.0 if tokens >= 1 else (1 - tokens) * self.every
            self._buckets[client] = (tokens - 1 if wait == 0 else tokens, now)
            while len(self._buckets) > self.clients:
                self._buckets.popitem(last=False)
        return math.ceil(wait) if wait else 0.0
