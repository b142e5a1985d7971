"""The phone's live view: after each reading the runtime keeps the frame with the dice the
reader found drawn on it; the API serves it with an ETag (304 when unchanged)."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
from fastapi.testclient import TestClient
from test_runtime import ScriptedSource, ScriptedTable, views

from device.matches.service import MatchService
from device.runtime import Runtime
from device.store import SQLiteStore
from device.web import create_app
from engine import Observation
from vision.dice.detections import NUM_FACE_CLASSES, Detections
from vision.frame import Frame


class KeepsDetections(ScriptedTable):
    """A reader that, like the real one, draws the dice it read on the live picture."""

    def __init__(self) -> None:
        table = views()
        super().__init__(lambda frame: table[int(frame.image[0, 0, 0])])
        self.last_detections: Detections | None = None

    def read(self, frame: Frame) -> Observation:
        x = 20 + 25 * int(frame.image[0, 0, 0])
        probs = np.zeros((1, NUM_FACE_CLASSES))
        probs[0, 2] = 1.0  # a 3
        self.last_detections = Detections(np.array([[x, 100.0, x + 20, 120]]),
                                          np.array([0.95]), probs)
        return super().read(frame)

    def annotated(self, image: np.ndarray) -> np.ndarray:
        from vision.dice.annotate import annotate

        assert self.last_detections is not None
        return annotate(image, self.last_detections)


def test_runtime_keeps_the_annotated_frame_and_the_api_serves_it(tmp_path: Path) -> None:
    service = MatchService(SQLiteStore(tmp_path / "live.sqlite"))
    mid = service.create("icedice", 2, {}, None, 1, "live")
    client = TestClient(create_app(service.store, service=service))
    r = client.get(f"/api/matches/{mid}/live.jpg")
    assert r.status_code == 404 and "no camera picture" in r.json()["message"]

    Runtime(ScriptedSource([0, 1]), KeepsDetections(), service, mid).run(threading.Event())
    r = client.get(f"/api/matches/{mid}/live.jpg")
    assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
    picture = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
    assert picture.shape == (240, 320, 3)
    # the box is drawn in the reader's colour for a sure die (green), around the die at x=45
    box_edge = picture[99:102, 43:68].reshape(-1, 3).astype(int)
    assert (box_edge[:, 1] - box_edge[:, 2] > 80).any()
    again = client.get(f"/api/matches/{mid}/live.jpg",
                       headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert client.get("/api/matches/nope/live.jpg").status_code == 404


def test_measurements_can_leave_the_picture_out(tmp_path: Path) -> None:
    service = MatchService(SQLiteStore(tmp_path / "live.sqlite"))
    mid = service.create("icedice", 2, {}, None, 1, "live")
    Runtime(ScriptedSource([0, 1]), KeepsDetections(), service, mid,
            live_view=False).run(threading.Event())
    assert service.picture(mid) is None
