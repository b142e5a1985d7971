"""The demo's picture of the table (issue 32, 1): the noise observer's table filmed as it
looks, the same match read as with abstract frames, questions cut from it; and a finished
demo match whose last move is undone on the phone is finished again by its players."""

from __future__ import annotations

import threading

import cv2
import numpy as np

from device.demo import DemoTable
from device.demo_picture import PicturedTable
from device.matches.service import MatchService
from device.simtable import SimParams, SimulatedTable
from device.store import SQLiteStore


def picture_of(jpeg: bytes) -> np.ndarray:
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None
    return image


def test_frames_are_the_rendered_table_and_motion_the_abstract_one() -> None:
    params = SimParams(observer="noise", max_moves=3)
    plain = SimulatedTable("icedice", 2, 4, params)
    pictured = PicturedTable(SimulatedTable("icedice", 2, 4, params), 2, 4)
    for _ in range(60):
        a, b = plain.read(), pictured.read()
        assert a is not None and b is not None
        # the settler's stream is the abstract frame, unchanged
        assert np.array_equal(b.lores, cv2.cvtColor(a.image, cv2.COLOR_BGR2GRAY))
    assert b.image.shape[1] >= 640
    # a printed mat with objects on it, not a flat rectangle: many distinct colours
    colours = np.unique((b.image // 32).reshape(-1, 3), axis=0)
    assert len(colours) > 40 and b.image.std() > 40
    # a die on the table is located and ringed in its crop
    die = next(e for e in pictured.table.scenes_at[b.seq].view if e.kind == "die")
    box = pictured.locate(die)
    assert box is not None and box[1] is True
    crop = picture_of(pictured.crop([die]) or b"")
    assert crop.shape[1] == 360
    ring = np.all(np.abs(crop.astype(int) - (0, 200, 255)) < 40, axis=2)
    assert ring.sum() > 200  # the amber ring


def test_the_same_match_is_recorded_with_and_without_the_picture() -> None:
    def play(picture: bool) -> tuple[list[str], MatchService, str]:
        service = MatchService(SQLiteStore(":memory:"))
        demo = DemoTable(service, "icedice", 2, seed=6, speed=1e9, answer_after=0.0,
                         params=SimParams(observer="noise", max_moves=12), picture=picture)
        demo.play_match(6, threading.Event())
        assert demo.match_id is not None
        return [e.text for e in service.match(demo.match_id).entries], service, demo.match_id

    plain, _, _ = play(False)
    pictured, service, mid = play(True)
    assert plain == pictured
    live = service.picture(mid)
    assert live is not None and picture_of(live[1]).std() > 40
    assert service.croppers == {}  # let go with its table


def test_undoing_a_finished_demo_match_is_entered_again() -> None:
    service = MatchService(SQLiteStore(":memory:"))
    demo = DemoTable(service, "icedice", 2, seed=5, speed=1e9, answer_after=0.0,
                     picture=False)
    demo.play_match(5, threading.Event())
    mid = demo.match_id
    assert mid is not None
    assert service.view(mid)["outcome"] is not None
    service.undo(mid, None)
    assert service.view(mid)["outcome"] is None
    assert demo._keep_finished(threading.Event(), 0.0) is False
    view = service.view(mid)
    assert view["outcome"] is not None
    assert view["entries"][-1]["source"] == "players"
