"""The live loop: source → settle → read → judge (match → rules → store → hub).

Nothing is read while something moves. Each settled frame is turned into an Observation
by the table reader (``table``: calibration.table.protocol.TableReading), one call, and
handed to the match service (``service.see``), one call, which has the rules explain it
and records what they decided:

* ``Accepted``: the actions are recorded with the camera as their source, the confidence,
  and a small JPEG of the table as evidence;
* ``Ambiguous``: a question for the phones, asked once while the table stays the same ("which
  was it?", or yes/no on what the camera cannot see of a move it saw);
* ``Violation``: an alert quoting the rule, until the players fix the table, answer or undo;
* ``NoChange``: nothing — but an open alert is closed when the table matches again.

A reading that fits no legal move may mean the record, not the table, is wrong (a wrong
answer, a misread die accepted): ``recovery`` (device.matches.recovery) then proposes the
cheapest repair of the record, and after a few such readings "take the table as the camera
sees it", each a one-tap question.

A camera that vanishes is reopened with back-off; no event is lost, since every accepted
move was stored before the next frame was taken.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration.table.protocol import TableReading
from device.camera import CameraUnavailableError, FrameSource
from device.matches.recovery import Recovery
from device.matches.service import MatchService
from device.observer_hands import HandSide
from device.question_crop import ringed_crop
from engine import Accepted, NoChange, Observation, Resolution
from engine.observation import Expected
from engine.reconcile import Params
from vision.frame import Frame
from vision.settle import Settler

logger = logging.getLogger(__name__)


def thumbnail(image: np.ndarray, width: int = 320, quality: int = 70) -> bytes:
    """A small JPEG of the table: the evidence kept for each accepted move."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (width, max(1, round(h * width / w))),
                       interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else b""


@dataclass
class Step:
    """What one settled frame led to (for logs, tests and the simulator's figures)."""

    frame: int
    still_since: int
    resolution: Resolution
    processing_ms: float
    observation: Observation | None = None
    timings: dict[str, float] = field(default_factory=dict)
    """per-stage milliseconds: the table reader's own stages and ``observe`` (all of them),
    ``reconcile`` / ``record``"""


@dataclass
class Runtime:
    """Drives one match from one frame source."""

    source: FrameSource
    table: TableReading
    service: MatchService
    match_id: str
    settler: Settler = field(default_factory=Settler)
    params: Params = field(default_factory=Params)
    reopen: Callable[[], FrameSource] | None = None
    live_view: bool = True
    """keep the last read frame, annotated, for the phone's live view (off for measurements)"""
    steps: list[Step] = field(default_factory=list)
    status: str = "starting"
    _still_since: int | None = None
    _moved: bool | None = None
    """motion seen since the last reading; None before the first (the table was found as it
    is: whether anything was done before is not known)"""
    hands: HandSide = field(default_factory=HandSide)
    """where the arm crossed into the picture while the table moved (who threw)"""
    recovery: Recovery = field(default_factory=Recovery)
    """the repairs of the record proposed when the camera is lost"""
    _read_image: np.ndarray | None = None
    """the frame last read (what a question's crop is cut from)"""

    def __post_init__(self) -> None:
        outline = self.table.outline()
        if outline is not None:  # a calibrated table: hands are looked for over it
            self.settler.set_table(*outline)

    def step(self) -> Step | None:
        """Take one frame; returns the Step when the frame was read."""
        frame = self.source.read()
        if frame is None:
            self.status = "source ended"
            return None
        ready = self.settler.update(frame.lores if frame.lores is not None else frame.image)
        if self.settler.motion:
            self._moved = True
        if self.settler.state.value == "moving" and self.settler.last_small is not None:
            self.hands.feed(self.settler.last_small)
        if self.settler.state.value == "moving":
            self._still_since = None
        elif self._still_since is None:
            self._still_since = frame.seq
        self.status = self.settler.state.value
        if not ready:
            return None
        t0, cpu0 = time.perf_counter(), time.process_time()
        match = self.service.match(self.match_id)
        # what the table should show (a reader learns from it and re-reads what disagrees)
        self.table.expect(match.game.expected_view(match.state))
        observation = self.table.read(frame)
        self._read_image = frame.image
        edge, sure = self.hands.side()
        observation = replace(observation, moved=self._moved, frame=frame.seq, hand_edge=edge,
                              hand_edge_confidence=sure)
        t1 = time.perf_counter()
        judged: dict[str, float] = {}
        resolution = self.service.see(self.match_id, observation, self.params,
                                      evidence=lambda: thumbnail(frame.image), timings=judged)
        t2 = time.perf_counter()
        self.recovery.after(self.service, self.match_id, resolution, observation, self.params)
        recovered = (time.perf_counter() - t2) * 1000
        self._learn(resolution)
        self.settler.accept(frame.lores if frame.lores is not None else frame.image)
        if self.settler.last_small is not None:
            self.hands.settled(self.settler.last_small)
        self._moved = False
        t3 = time.perf_counter()
        timings = dict(self.table.timings)
        reconciled = judged.get("reconcile", 0.0)
        timings.update(observe=round((t1 - t0) * 1000, 1), reconcile=round(reconciled, 1),
                       recover=round(recovered, 1),
                       record=round((t3 - t1) * 1000 - reconciled - recovered, 1),
                       cpu=round((time.process_time() - cpu0) * 1000, 1))
        step = Step(frame.seq, self._still_since if self._still_since is not None else frame.seq,
                    resolution, (t3 - t0) * 1000, observation, timings)
        self.steps.append(replace(step, observation=None))  # (kept for the summary only)
        if self.live_view:
            self.service.set_picture(self.match_id, self._picture(frame))
        return step

    def crop(self, objects: Sequence[Expected]) -> bytes | None:
        """The part of the frame last read that holds ``objects``, each ringed, as the
        table reader locates them (the match service's cropper for a question); None when
        it places none of them."""
        if self._read_image is None:
            return None
        found = [hit for hit in (self.table.locate(o) for o in objects) if hit is not None]
        return ringed_crop(self._read_image, found)

    def _picture(self, frame: Frame) -> bytes:
        """The frame just read, with what the reader read drawn on it."""
        image = self.table.annotated(frame.image)
        return thumbnail(image, width=min(640, image.shape[1]), quality=75)

    def _learn(self, res: Resolution) -> None:
        """Tell the reader what the match is now sure of (it learns its dice from it:
        calibration.table.learning): the state after an accepted move, or the state a
        reading matched."""
        if not isinstance(res, (Accepted, NoChange)):
            return
        match = self.service.match(self.match_id)
        live = {e.seq for e in match.live_entries}
        self.table.learn(max(live, default=-1), match.game.expected_view(match.state),
                         res.confidence, live)

    def run(self, stop: threading.Event, *, max_backoff: float = 10.0) -> None:
        """Loop until ``stop`` is set or a finite source ends."""
        backoff = 0.5
        while not stop.is_set():
            try:
                self.step()
                backoff = 0.5
                if self.status == "source ended":
                    return
            except CameraUnavailableError as exc:
                self.status = f"camera lost: {exc}"
                logger.warning("%s; reopening in %.1f s", exc, backoff)
                if self.reopen is None or stop.wait(backoff):
                    return
                backoff = min(max_backoff, backoff * 2)
                try:
                    self.source.close()
                    self.source = self.reopen()
                except CameraUnavailableError as again:
                    logger.warning("camera still unavailable: %s", again)

    def summary(self) -> dict[str, Any]:
        kinds: dict[str, int] = {}
        for s in self.steps:
            kind = type(s.resolution).__name__
            kinds[kind] = kinds.get(kind, 0) + 1
        return {"readings": len(self.steps), "resolutions": kinds, "status": self.status}
