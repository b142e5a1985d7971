"""What /api/health tells the page of its table (issue 32): the game served (the New match
form opens on it), whether dice can be taught here ("Teach a die" is offered only then), and
the match the table follows (the page opens it first)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from device.enrolment import Enroller
from device.store import SQLiteStore
from device.web import create_app


def test_health_says_the_game_and_whether_dice_can_be_taught(tmp_path: Path) -> None:
    plain = TestClient(create_app(SQLiteStore(":memory:"))).get("/api/health").json()
    assert plain["enrolment"] is False and "game" not in plain
    served = TestClient(create_app(SQLiteStore(":memory:"), game="pyradice",
                                   enroller=Enroller(tmp_path / "p.toml"),
                                   status=lambda: {"match": "m1"})).get("/api/health").json()
    assert served["enrolment"] is True and served["game"] == "pyradice"
    assert served["match"] == "m1"


def test_serve_passes_its_game_to_the_page(monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import socket

    from device import listen
    from device.cli import main

    apps = []
    monkeypatch.setattr(listen, "bind", lambda host, port: socket.socket())
    monkeypatch.setattr(listen, "serve", lambda app, *_: apps.append(app))
    assert main(["serve", "--game", "pyradice", "--db", str(tmp_path / "m.sqlite")]) == 0
    assert TestClient(apps[0]).get("/api/health").json()["game"] == "pyradice"
