"""The REST API and WebSocket: status codes, stable error codes, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from device.store import SQLiteStore
from device.web import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(SQLiteStore(tmp_path / "t.sqlite"))
    with TestClient(app) as c:
        yield c


def new_match(client: TestClient, **body: object) -> str:
    r = client.post("/api/matches", json={"game": "icedice", "players": 2, **body})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def test_health_answers_without_camera(client: TestClient) -> None:
    body = client.get("/api/health").json()
    assert body["status"] == "ok" and body["camera"] == "none"


def test_openapi_and_docs(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    assert "/api/matches/{match_id}/actions" in spec["paths"]
    assert client.get("/docs").status_code == 200


def test_games_list_options(client: TestClient) -> None:
    games = {g["name"]: g for g in client.get("/api/games").json()}
    assert {o["name"] for o in games["icedice"]["options"]} >= {"colour_die", "trios"}


def test_play_undo_and_record(client: TestClient) -> None:
    mid = new_match(client, title="Friday")
    view = client.post(f"/api/matches/{mid}/actions",
                       json={"action": "roll red SM", "version": 0}).json()
    assert view["version"] == 1 and view["legal_actions"] == ["take red S", "take red M"]
    view = client.post(f"/api/matches/{mid}/actions",
                       json={"action": "take red M", "version": 1}).json()
    assert view["state"]["counter"] == ["red M"]
    view = client.post(f"/api/matches/{mid}/undo", json={"version": 2}).json()
    assert view["state"]["counter"] == [] and view["entries"][-1]["kind"] == "undo"
    record = client.get(f"/api/matches/{mid}/record").json()
    assert record["format"] == "dicetable-match/1" and len(record["entries"]) == 3
    (summary,) = client.get("/api/matches").json()
    assert summary["id"] == mid and summary["title"] == "Friday" and summary["entries"] == 3


def test_state_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with TestClient(create_app(SQLiteStore(db))) as c:
        mid = new_match(c)
        c.post(f"/api/matches/{mid}/actions", json={"action": "roll blue L"})
    with TestClient(create_app(SQLiteStore(db))) as c:
        assert c.get(f"/api/matches/{mid}").json()["state"]["dice"] == ["blue", "L"]


def test_stale_version_is_409(client: TestClient) -> None:
    mid = new_match(client)
    client.post(f"/api/matches/{mid}/actions", json={"action": "roll red S", "version": 0})
    r = client.post(f"/api/matches/{mid}/actions", json={"action": "take red S", "version": 0})
    assert r.status_code == 409 and r.json()["code"] == "action/stale_state_id"
    assert r.json()["version"] == 1


def test_illegal_action_names_the_rule(client: TestClient) -> None:
    mid = new_match(client)
    client.post(f"/api/matches/{mid}/actions", json={"action": "roll red S"})
    r = client.post(f"/api/matches/{mid}/actions", json={"action": "take blue S"})
    body = r.json()
    assert r.status_code == 422 and body["code"] == "action/illegal"
    assert body["rule"] == "icedice.take_rolled" and body["rule_text"].startswith("Choose")
    assert client.get(f"/api/matches/{mid}").json()["version"] == 1  # nothing logged


def test_answering_a_question_logs_the_answer(client: TestClient) -> None:
    mid = new_match(client)
    service = client.app.state.service  # type: ignore[attr-defined]
    service.note(mid, "question", "roll red S or roll red SM?",
                 data={"candidates": [{"actions": ["roll red S"]}, {"actions": ["roll red SM"]}]})
    view = client.get(f"/api/matches/{mid}").json()
    assert view["pending"]["kind"] == "question"
    view = client.post(f"/api/matches/{mid}/actions",
                       json={"action": "roll red SM", "answer_to": 0}).json()
    assert [e["kind"] for e in view["entries"]] == ["question", "answer", "action"]
    assert view["pending"] is None


def test_an_answer_of_two_actions_is_recorded_whole(client: TestClient) -> None:
    """The camera often asks 'roll red S; take red S or ...?': both, or nothing."""
    mid = new_match(client)
    service = client.app.state.service  # type: ignore[attr-defined]
    service.note(mid, "question", "Which was it?", data={"candidates": [
        {"actions": ["roll red S", "take red S"]}, {"actions": ["roll red M", "take red M"]}]})
    r = client.post(f"/api/matches/{mid}/actions",
                    json={"action": "roll red M; take red S", "answer_to": 0, "version": 1})
    assert r.status_code == 422 and r.json()["rule"] == "icedice.take_rolled"
    assert client.get(f"/api/matches/{mid}").json()["version"] == 1
    view = client.post(f"/api/matches/{mid}/actions",
                       json={"action": "roll red M; take red M", "answer_to": 0,
                             "version": 1}).json()
    assert [(e["kind"], e["text"]) for e in view["entries"][1:]] == [
        ("answer", "roll red M; take red M"), ("action", "roll red M"),
        ("action", "take red M")]
    assert view["pending"] is None and view["state"]["counter"] == ["red M"]


@pytest.mark.parametrize("method, path, body, status, code", [
    ("post", "/api/matches", {"game": "chess", "players": 2}, 422, "game/unknown"),
    ("post", "/api/matches", {"game": "icedice", "players": 1}, 422, "state/invalid"),
    ("post", "/api/matches", {"game": "icedice", "players": 99}, 422, "request/invalid"),
    ("post", "/api/matches", {"game": "icedice", "players": "two"}, 422, "request/invalid"),
    ("post", "/api/matches", {"game": "icedice", "players": 2, "options": {"x": 1}}, 422,
     "option/invalid"),
    ("post", "/api/matches", {"game": "icedice", "players": 2, "options": {"trios": 5}}, 422,
     "option/invalid"),
    ("post", "/api/matches", {"game": "icedice", "players": 2, "extra": 1}, 422,
     "request/invalid"),
    ("post", "/api/matches", None, 422, "request/invalid"),
    ("get", "/api/matches/nope", None, 404, "match/not_found"),
    ("post", "/api/matches/nope/actions", {"action": "stop"}, 404, "match/not_found"),
    ("post", "/api/matches/nope/undo", {"version": 0}, 404, "match/not_found"),
    ("post", "/api/matches/nope/undo", {}, 422, "request/invalid"),  # undo needs the version
    ("get", "/api/nothing-here", None, 404, "not_found"),
    ("delete", "/api/matches", None, 405, "method_not_allowed"),
])
def test_bad_requests_get_4xx_with_a_message(client: TestClient, method: str, path: str,
                                             body: object, status: int, code: str) -> None:
    r = client.request(method.upper(), path, json=body)
    assert r.status_code == status, r.text
    assert r.json()["code"] == code and r.json()["message"]


def test_bad_action_bodies(client: TestClient) -> None:
    mid = new_match(client)
    for body, code in [({"action": ""}, "request/invalid"),
                       ({"action": "x" * 500}, "request/invalid"),
                       ({"action": "jump"}, "action/invalid"),
                       ({"action": "stop", "version": -1}, "request/invalid"),
                       ({"version": 0}, "request/invalid")]:
        r = client.post(f"/api/matches/{mid}/actions", json=body)
        assert r.status_code == 422 and r.json()["code"] == code, (body, r.text)
    r = client.post(f"/api/matches/{mid}/undo", json={"version": 0})
    assert r.status_code == 422 and r.json()["code"] == "action/illegal"
    r = client.post(f"/api/matches/{mid}/actions", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_evidence(client: TestClient) -> None:
    mid = new_match(client)
    assert client.get(f"/api/matches/{mid}/evidence/0").status_code == 404


def test_websocket_pushes_each_change(client: TestClient) -> None:
    mid = new_match(client)
    with client.websocket_connect(f"/api/matches/{mid}/live") as ws:
        assert ws.receive_json()["version"] == 0
        client.post(f"/api/matches/{mid}/actions", json={"action": "roll red S"})
        assert ws.receive_json()["version"] == 1
        client.post(f"/api/matches/{mid}/undo", json={"version": 1})
        assert ws.receive_json()["version"] == 2


def test_websocket_unknown_match_is_closed(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect
    with pytest.raises(WebSocketDisconnect) as closed, \
            client.websocket_connect("/api/matches/nope/live") as ws:
        ws.receive_json()
    assert closed.value.code == 4404 and "nope" in closed.value.reason


def test_phone_page_is_served(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "dicetable" in r.text and "app.js" in r.text
    assert client.get("/app.js").status_code == 200


def bodies() -> list[tuple[str, bytes, str]]:
    """Request bodies no route may answer with a 500: (name, bytes, content type)."""
    return [("malformed JSON", b"{not json", "application/json"),
            ("a list", b"[1, 2]", "application/json"),
            ("wrong types", b'{"version": "new", "seq": [], "action": 5, "names": 7, '
                            b'"players": {}, "question": "?", "to": -3}', "application/json"),
            ("unknown fields", b'{"hack": true}', "application/json"),
            ("not JSON at all", b"\x00\xff\xfe", "text/plain"),
            ("deep nesting", b"[" * 5000 + b"]" * 5000, "application/json"),
            ("huge", b'{"action": "' + b"x" * 2_000_000 + b'"}', "application/json")]


def test_no_route_answers_bad_input_with_a_500(client: TestClient) -> None:
    """Every route of the API, each bad body and each bad path value: a 4xx with a code and
    a one-line message, never a 500 (the routes are read from the OpenAPI document, so a new
    route is covered without editing this test)."""
    mid = new_match(client)
    client.post(f"/api/matches/{mid}/actions", json={"action": "roll red S"})
    spec = client.get("/openapi.json").json()
    seen = 0
    for path, methods in spec["paths"].items():
        if path.startswith("/api/enrolment"):
            continue  # its own tests (no profile here: 404 for every call)
        for method in methods:
            for fill in ({"match_id": mid, "game": "icedice"},
                         {"match_id": "nope", "game": "chess"},
                         {"match_id": "../../etc", "game": "%00"}):
                url = path.replace("{match_id}", fill["match_id"]).replace(
                    "{game}", fill["game"]).replace("{step}", "abc").replace("{seq}", "-x")
                cases = bodies() if method in ("post", "put") else [("none", b"", "")]
                for name, body, ctype in cases:
                    headers = {"content-type": ctype} if ctype else {}
                    r = client.request(method.upper(), url, content=body, headers=headers)
                    seen += 1
                    assert r.status_code < 500, (method, url, name, r.status_code)
                    good = fill["match_id"] == mid and not {"{step}", "{seq}"} & set(
                        path.replace("}", "} ").replace("{", " {").split())
                    if method in ("post", "put") or ("{" in path and not good):
                        assert r.status_code >= 400, (method, url, name, r.status_code)
                    if r.status_code >= 400:
                        assert r.json()["code"] and r.json()["message"], (method, url, name)
                    if name == "huge":
                        assert r.status_code == 413
    assert seen > 100
    view = client.get(f"/api/matches/{mid}").json()
    assert view["version"] == 1  # nothing was recorded by any of it


def test_huge_body_without_a_length_is_refused(client: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(30):
            yield b"x" * 100_000

    r = client.post("/api/matches", content=chunks(),
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "request/too_large"
