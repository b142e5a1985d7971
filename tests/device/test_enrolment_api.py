"""Enrolment from the phone: photos posted to the API become shots in the profile, bad
photos and names get a 4xx with the reason, and nothing is written for a refused photo."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from fastapi.testclient import TestClient

from calibration.enrolment import load_enrolled
from device.enrolment import Enroller
from device.store import SQLiteStore
from device.web import create_app
from vision.synth.renderer import CameraPose, DieSpec, Scene, render


def photo(value: int, yaw: float) -> bytes:
    """A phone-like photo of one die lying on a table, `value` up."""
    cam = CameraPose(width=320, height=240, fov_deg=60, distance_mm=150)
    shot = render(Scene((DieSpec(0.0, 0.0, value, yaw_deg=yaw),), cam, seed=int(yaw)))
    return cv2.imencode(".jpg", shot.image)[1].tobytes()


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    app = create_app(SQLiteStore(tmp_path / "m.sqlite"),
                     enroller=Enroller(tmp_path / "profile.toml"))
    return TestClient(app)


def test_photos_become_shots_in_the_profile(client: TestClient, tmp_path: Path) -> None:
    for yaw in (0.0, 30.0, 65.0):
        r = client.post("/api/enrolment/skull die/skull?base=d6", content=photo(1, yaw),
                        headers={"content-type": "image/jpeg"})
        assert r.status_code == 201, r.text
    assert r.json() == {"die": "skull die", "base": "d6", "shots": {"skull": 3}}
    listed = client.get("/api/enrolment").json()
    assert listed["dice"] == {"skull die": {"base": "d6", "shots": {"skull": 3}}}
    assert "d6" in listed["bases"] and "icedice-size" in listed["bases"]
    stored = load_enrolled(tmp_path / "profile.toml")["skull die"]
    assert stored.base == "d6" and len(stored.shots["skull"]) == 3
    assert all(c.shape == (48, 48, 3) for c in stored.shots["skull"])  # the die, not the photo


@pytest.mark.parametrize(("path", "body", "status", "message"), [
    ("/api/enrolment/d/1", b"", 422, "empty file"),
    ("/api/enrolment/d/1", b"not a photo at all" * 10, 422, "not an image"),
    ("/api/enrolment/d/1?base=d13", None, 422, "unknown base type"),
    ("/api/enrolment/%7Bbad%7D/1", None, 422, "die name"),
])
def test_bad_photos_and_names_are_refused_and_nothing_is_written(
        client: TestClient, tmp_path: Path, path: str, body: bytes | None, status: int,
        message: str) -> None:
    r = client.post(path, content=photo(2, 10.0) if body is None else body,
                    headers={"content-type": "image/jpeg"})
    assert r.status_code == status
    assert message in r.json()["message"]
    assert not (tmp_path / "profile.toml").exists()


def test_a_server_without_profile_says_how_to_get_one(tmp_path: Path) -> None:
    client = TestClient(create_app(SQLiteStore(tmp_path / "m.sqlite")))
    r = client.get("/api/enrolment")
    assert r.status_code == 404 and "--profile" in r.json()["message"]
    r = client.post("/api/enrolment/d/1", content=photo(3, 0.0))
    assert r.status_code == 404


def test_enrolment_is_in_the_openapi_document(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert "image/jpeg" in paths["/api/enrolment/{die}/{face}"]["post"]["requestBody"]["content"]


def test_an_oversized_upload_is_refused_before_it_is_read(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    from device.web.routes import enrolment as route

    monkeypatch.setattr(route, "MAX_PHOTO_BYTES", 1000)
    r = client.post("/api/enrolment/d/1", content=photo(4, 0.0),
                    headers={"content-type": "image/jpeg"})
    assert r.status_code == 413 and "limit" in r.json()["message"]
