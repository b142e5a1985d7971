"""A server open to a club's network (issue 29): the table key on every change, spectators
and --private, rate limits, bounds on memory and WebSocket clients, the page's security
headers, and the API's answers to odd requests (405 with Allow, 400, huge numbers, binary
frames, uploads that are not images)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from device.enrolment import Enroller
from device.store import SQLiteStore
from device.web import create_app
from device.web.access import Access, RateLimit, is_loopback, players_link, table_access
from tests.vision.test_imageio import tiff_claiming, vp8l_claiming

KEY = "club-table-key-1"
STATIC = Path(__file__).resolve().parents[2] / "device" / "web" / "static"


def app_with(tmp_path: Path, access: Access | None = None) -> Any:
    return create_app(SQLiteStore(tmp_path / "m.sqlite"), access=access,
                      enroller=Enroller(tmp_path / "profile.toml"))


@pytest.fixture
def keyed(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_with(tmp_path, Access(KEY))) as client:
        yield client


def changes(app: Any) -> list[tuple[str, str]]:
    """(method, path) of every operation that changes something, from the app's own API
    description: a route added later is covered without editing this test."""
    return [(method.upper(), path) for path, ops in app.openapi()["paths"].items()
            for method in ops if method not in ("get", "head")]


def fill(path: str, match_id: str) -> str:
    return (path.replace("{match_id}", match_id).replace("{die}", "d").replace("{face}", "1")
            .replace("{game}", "icedice"))


def test_every_change_needs_the_key_and_writes_nothing_without_it(
        keyed: TestClient, tmp_path: Path) -> None:
    mid = keyed.post("/api/matches", json={"game": "icedice", "players": 2},
                     headers={"X-Table-Key": KEY}).json()["id"]
    routes = changes(keyed.app)
    assert len(routes) >= 9 and ("POST", "/api/enrolment/{die}/{face}") in routes
    bodies = {"actions": {"action": "roll red S", "version": 0}, "undo": {"version": 0},
              "names": {"names": ["A"], "version": 0}}
    for method, path in routes:
        body = next((b for k, b in bodies.items() if path.endswith(k)),
                    {"game": "icedice", "players": 2, "version": 0})
        for headers, status, code in (({}, 401, "key/missing"),
                                      ({"X-Table-Key": "guess-guess"}, 403, "key/wrong")):
            r = keyed.request(method, fill(path, mid), json=body, headers=headers)
            assert (r.status_code, r.json()["code"]) == (status, code), (method, path, r.text)
    # a method no route takes is the API's 405 with Allow, key or not
    r = keyed.request("TRACE", "/api/matches")
    assert r.status_code == 405 and "POST" in r.headers["allow"]
    assert keyed.delete(f"/api/matches/{mid}").status_code == 405
    assert [m.id for m in keyed.app.state.service.store.matches()] == [mid]
    assert keyed.get(f"/api/matches/{mid}").json()["version"] == 0
    assert not (tmp_path / "profile.toml").exists()
    # with the key everything works as before, in the header or the query
    r = keyed.post(f"/api/matches/{mid}/actions", json={"action": "roll red S", "version": 0},
                   headers={"X-Table-Key": KEY})
    assert r.status_code == 200 and r.json()["version"] == 1
    r = keyed.post(f"/api/matches/{mid}/undo?key={KEY}", json={"version": 1})
    assert r.status_code == 200 and r.json()["version"] == 2


def test_without_the_key_a_phone_watches(keyed: TestClient) -> None:
    mid = keyed.post("/api/matches", json={"game": "icedice", "players": 2},
                     headers={"X-Table-Key": KEY}).json()["id"]
    assert keyed.get("/api/health").json()["access"] == "spectator"
    assert keyed.get("/api/health", headers={"X-Table-Key": KEY}).json()["access"] == "players"
    for path in ("/api/matches", f"/api/matches/{mid}", f"/api/matches/{mid}/replay",
                 f"/api/matches/{mid}/replay/0", "/api/games", "/"):
        assert keyed.get(path).status_code == 200, path
    with keyed.websocket_connect(f"/api/matches/{mid}/live") as ws:
        assert ws.receive_json()["version"] == 0


def test_private_shows_nothing_without_the_key(tmp_path: Path) -> None:
    with TestClient(app_with(tmp_path, Access(KEY, private=True))) as client:
        for path in ("/api/matches", "/api/health", "/api/games"):
            r = client.get(path)
            assert r.status_code == 401 and r.json()["code"] == "key/missing", path
        assert client.get("/api/matches", headers={"X-Table-Key": KEY}).status_code == 200
        assert client.get("/").status_code == 200  # the page, which holds no match data
        with pytest.raises(WebSocketDisconnect) as closed, \
                client.websocket_connect("/api/matches/x/live") as ws:
            ws.receive_json()
        assert closed.value.code == 4401
        with client.websocket_connect(f"/api/matches/x/live?key={KEY}") as ws:
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == 4404  # let in: then told there is no such match


def test_who_needs_a_key() -> None:
    assert table_access("127.0.0.1", None, False).key is None
    assert table_access("localhost", None, False).key is None
    assert table_access("::1", None, False).key is None
    for host in ("0.0.0.0", "192.168.1.20", "::", "table.local"):
        assert not is_loopback(host)
        access = table_access(host, None, False)
        assert access.key is not None and len(access.key) >= 12
    assert table_access("0.0.0.0", None, False).key != table_access("0.0.0.0", None, False).key
    assert table_access("127.0.0.1", KEY, False).key == KEY  # given: used even on loopback
    assert table_access("127.0.0.1", None, True).key is not None  # private needs one
    link = players_link("0.0.0.0", 8000, KEY)
    assert re.fullmatch(rf"http://[^/:]+:8000/\?key={KEY}", link), link
    assert players_link("192.168.1.20", 80, None) == "http://192.168.1.20:80/"


def test_match_creation_and_uploads_are_rate_limited(keyed: TestClient) -> None:
    headers = {"X-Table-Key": KEY}
    codes = [keyed.post("/api/matches", json={"game": "icedice", "players": 2},
                        headers=headers).status_code for _ in range(12)]
    assert codes == [201] * 10 + [429] * 2
    r = keyed.post("/api/matches", json={"game": "icedice", "players": 2}, headers=headers)
    assert r.json()["code"] == "rate/limited" and int(r.headers["retry-after"]) >= 1
    limit = RateLimit(burst=2, every=10.0, clients=3)
    assert [limit.take("a", now=0.0) for _ in range(3)] == [0, 0, 10]
    assert limit.take("b", now=0.0) == 0  # another client has its own bucket
    assert limit.take("a", now=10.0) == 0  # one back every 10 s
    for c in "cdefg":
        limit.take(c, now=11.0)
    assert len(limit._buckets) == 3


def test_uploads_need_an_image_type_and_bombs_are_refused(tmp_path: Path) -> None:
    with TestClient(app_with(tmp_path)) as client:
        for kind in ("text/plain", "application/x-www-form-urlencoded", "image/gif", None):
            headers = {"content-type": kind} if kind else {}
            r = client.post("/api/enrolment/d/1", content=b"\xff\xd8 photo", headers=headers)
            assert r.status_code == 415 and r.json()["code"] == "enrolment/not_an_image", kind
        for bomb, kind in ((vp8l_claiming(16383, 16383), "image/webp"),
                           (tiff_claiming(20000, 20000), "image/tiff")):
            r = client.post("/api/enrolment/d/1", content=bomb, headers={"content-type": kind})
            assert r.status_code == 422 and "MP limit" in r.json()["message"]
        assert not (tmp_path / "profile.toml").exists()


def test_a_server_without_a_profile_says_how_to_start_with_one(tmp_path: Path) -> None:
    with TestClient(create_app(SQLiteStore(tmp_path / "m.sqlite"))) as client:
        r = client.post("/api/enrolment/d/1", content=b"x", headers={"content-type": "image/png"})
        assert r.status_code == 404 and "dicetable serve --profile" in r.json()["message"]


def test_security_headers_and_no_inline_script(tmp_path: Path) -> None:
    with TestClient(app_with(tmp_path)) as client:
        for path in ("/", "/app.js", "/api/health", "/api/nothing"):
            h = client.get(path).headers
            assert h["x-frame-options"] == "DENY" and h["x-content-type-options"] == "nosniff"
            csp = h["content-security-policy"]
            assert "script-src 'self';" in csp and "frame-ancestors 'none'" in csp
            assert "unsafe-inline" not in csp
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == []  # every script is a file
    assert not re.search(r"\son[a-z]+=|\sstyle=|javascript:", html)
    for js in STATIC.glob("*.js"):
        assert not re.search(r"\bstyle:\s*`|setAttribute\(\"style\"|innerHTML",
                             js.read_text(encoding="utf-8")), js.name


def test_405_carries_allow_and_400_is_a_sentence(tmp_path: Path) -> None:
    with TestClient(app_with(tmp_path)) as client:
        r = client.delete("/api/matches")
        assert r.status_code == 405 and set(r.headers["allow"].split(", ")) >= {"GET", "POST"}
        r = client.post("/")
        assert r.status_code == 405 and r.headers["allow"] == "GET, HEAD"
        r = client.post("/api/matches", content=b'{"game": "\xff\xfe"}',
                        headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["code"] == "request/malformed"
        ops = client.get("/openapi.json").json()["paths"]
        create = ops["/api/matches"]["post"]["responses"]
        assert {"400", "405", "413", "429"} <= set(create)
        assert "Allow" in create["405"]["headers"]
        assert "400" not in ops["/api/matches"]["get"]["responses"]  # no body, no 400
        assert "401" not in create  # loopback: no key to document


def test_the_key_is_in_the_openapi_document(keyed: TestClient) -> None:
    ops = keyed.get("/openapi.json").json()["paths"]
    create = ops["/api/matches"]["post"]
    assert create["security"] == [{"tableKey": []}] and {"401", "403"} <= set(create["responses"])
    assert "security" not in ops["/api/matches"]["get"]


def test_huge_entry_numbers_are_a_4xx(tmp_path: Path) -> None:
    with TestClient(app_with(tmp_path)) as client:
        mid = client.post("/api/matches", json={"game": "icedice", "players": 2}).json()["id"]
        for seq in (2**63, 2**64 + 5, -1):
            for path in (f"/api/matches/{mid}/evidence/{seq}",
                         f"/api/matches/{mid}/replay/{seq}"):
                r = client.get(path)
                assert r.status_code == 422 and r.json()["code"] == "request/invalid", path
        assert client.get(f"/api/matches/{mid}/evidence/{2**63 - 1}").status_code == 404


def test_a_binary_frame_is_dropped_and_the_socket_goes_on(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with TestClient(app_with(tmp_path)) as client, caplog.at_level(logging.ERROR):
        mid = client.post("/api/matches", json={"game": "icedice", "players": 2}).json()["id"]
        with client.websocket_connect(f"/api/matches/{mid}/live") as ws:
            assert ws.receive_json()["version"] == 0
            ws.send_bytes(b"\x00\x01binary")
            ws.send_text("hello")
            client.post(f"/api/matches/{mid}/actions", json={"action": "roll red S"})
            assert ws.receive_json()["version"] == 1
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


def test_so_many_phones_follow_a_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from device.web.routes import matches

    monkeypatch.setattr(matches, "MAX_WATCHERS", 2)
    with TestClient(app_with(tmp_path)) as client:
        mid = client.post("/api/matches", json={"game": "icedice", "players": 2}).json()["id"]
        with client.websocket_connect(f"/api/matches/{mid}/live") as a, \
                client.websocket_connect(f"/api/matches/{mid}/live") as b:
            a.receive_json(), b.receive_json()
            with pytest.raises(WebSocketDisconnect) as closed, \
                    client.websocket_connect(f"/api/matches/{mid}/live") as c:
                c.receive_json()
            assert closed.value.code == 4429 and "try again later" in closed.value.reason
        with client.websocket_connect(f"/api/matches/{mid}/live") as d:  # room again
            assert d.receive_json()["version"] == 0
        assert client.app.state.hub.watchers(mid) == 0


def test_finished_and_old_matches_leave_memory(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from device.matches import service as module
    from engine import get_game

    monkeypatch.setattr(module, "MAX_LIVE", 5)
    service = module.MatchService(SQLiteStore(tmp_path / "m.sqlite"))
    ids = [service.create("icedice", 2, {}, None, None, "") for _ in range(12)]
    assert service.held() == 5
    assert service.view(ids[0])["version"] == 0  # loaded again from the store when asked
    rules, rng, mid = get_game("icedice"), random.Random(3), ids[-1]
    view = service.view(mid)
    while view["outcome"] is None:
        state = service.match(mid).state
        view = service.act(mid, rules.random_action(state, rng).to_str(), view["version"])
    assert mid not in service._live  # finished: it left at its last move
    again = service.view(mid)
    assert again["outcome"] is not None and again["version"] == view["version"]


@pytest.fixture
def served_apps(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What `serve` and `demo` would serve: device.listen.serve hands the app to each
    callable the test put in the list (while the server's store is open) and returns; no
    port is taken (device.listen.bind gives an unbound socket)."""
    import socket

    from device import listen

    checks: list[Any] = []
    monkeypatch.setattr(listen, "bind", lambda host, port: socket.socket())
    monkeypatch.setattr(listen, "serve", lambda app, *_: [check(app) for check in checks])
    return checks


def test_serve_beyond_loopback_prints_the_players_link_and_its_qr_code(
        cli: Any, served_apps: list[Any], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    served_apps.append(check_keyed_serve)
    code, out, err = cli("serve", "--host", "0.0.0.0", "--db", str(tmp_path / "m.sqlite"),
                         "--key", KEY)
    assert code == 0, err
    link = re.search(r"http://\S+/\?key=(\S+)", out)
    assert link is not None and link.group(1) == KEY
    assert out.count("\u2588") > 100  # the QR code, drawn with blocks
    assert "only watches" in out
    assert all(p.name.startswith("m.sqlite") for p in tmp_path.iterdir())  # no profile


def check_keyed_serve(app: Any) -> None:
    with TestClient(app) as client:
        r = client.post("/api/matches", json={"game": "icedice", "players": 2})
        assert r.status_code == 401
        r = client.post("/api/matches", json={"game": "icedice", "players": 2},
                        headers={"X-Table-Key": KEY})
        assert r.status_code == 201
        # without --profile nothing is enrolled, and nothing is written here
        r = client.post("/api/enrolment/d/1", content=b"x",
                        headers={"X-Table-Key": KEY, "content-type": "image/png"})
        assert r.status_code == 404 and "--profile" in r.json()["message"]


def test_a_new_key_each_start_unless_given(cli: Any, served_apps: list[Any],
                                           tmp_path: Path) -> None:
    keys = []
    for _ in range(2):
        code, out, _ = cli("serve", "--host", "0.0.0.0", "--db", str(tmp_path / "m.sqlite"))
        assert code == 0
        keys.append(re.search(r"\?key=(\S+)", out).group(1))  # type: ignore[union-attr]
    assert keys[0] != keys[1] and all(len(k) >= 12 for k in keys)
    code, _, err = cli("serve", "--key", "short", "--db", str(tmp_path / "m.sqlite"))
    assert code == 2 and "--key must be 8-64" in err
    code, out, _ = cli("serve", "--db", str(tmp_path / "m.sqlite"))  # loopback: no key
    assert code == 0 and "?key=" not in out and "http://127.0.0.1:8000/" in out


def test_demo_private_needs_the_key_to_read(cli: Any, served_apps: list[Any]) -> None:
    def check(app: Any) -> None:
        with TestClient(app) as client:
            assert client.get("/api/matches").status_code == 401
            assert client.get("/api/matches", headers={"X-Table-Key": KEY}).status_code == 200

    served_apps.append(check)
    code, out, err = cli("demo", "--host", "0.0.0.0", "--private", "--key", KEY)
    assert code == 0, err
    assert f"?key={KEY}" in out and "shows nothing (--private)" in out
