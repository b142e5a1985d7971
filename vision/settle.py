"""Settle detection: read the table only when it is still and no hand is over it.

The settler watches small grey frames. *Moving*: consecutive frames differ in more than a
small fraction of pixels. *Still*: no motion for ``still_frames`` frames in a row. A still
scene is handed on (once per settling) only if nothing large that touches the image border
differs from the last settled scene — a hand resting on the table reaches in from the edge,
dice do not — so a reading never sees a hand. *Empty*: the scene matches the empty-table
reference, when one was given.

With a calibrated camera the hand check looks at the table only (``set_table``: the mat's
outline in the image): a hand is something large over the table that reaches in across its
edge. Beyond the mat the floor or the table top can change at any time — a lamp turned on,
a cloud — and that is no reason to stop reading (the simulated table's light changes made
the check refuse every reading for hundreds of frames while the floor beside the mat stayed
brighter than at the last reading).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import cv2
import numpy as np


class SceneState(StrEnum):
    EMPTY = "empty"
    MOVING = "moving"
    STILL = "still"


@dataclass
class SettleParams:
    width: int = 160
    """Width the frames are scaled to (height follows the aspect ratio)."""
    pixel_delta: int = 18
    """Grey-level change that counts a pixel as changed (above sensor noise)."""
    motion_fraction: float = 0.002
    """Changed-pixel fraction between consecutive frames that counts as motion."""
    still_frames: int = 3
    """Frames without motion before the scene counts as still."""
    hand_fraction: float = 0.03
    """A change touching the border and larger than this fraction of the frame is a hand
    (or an arm, a sleeve) still over the table."""
    hand_patience: int = 150
    """Still frames after which a border change is taken as part of the table after all (a
    box put down at the edge must not block reading for ever)."""


@dataclass
class Settler:
    """Feed it every frame; it says when to read."""

    params: SettleParams = field(default_factory=SettleParams)
    empty_reference: np.ndarray | None = None
    state: SceneState = SceneState.MOVING
    _prev: np.ndarray | None = None
    _settled: np.ndarray | None = None
    _quiet: int = 0
    _handed: bool = False
    hand_seen: bool = False
    motion: bool = False
    """the last frame differed from the one before (the first frame has nothing to differ
    from: no motion, though the state stays MOVING until the scene has been still)"""
    table: np.ndarray | None = None
    """the mat's pixels in the small frame (``set_table``), or None: the whole frame"""
    _table_edge: np.ndarray | None = None
    last_small: np.ndarray | None = None
    """the small grey frame of the last ``update`` (for who looks at the same frame: the
    hand's side, device.observer_hands)"""

    def set_table(self, polygon_px: np.ndarray, image_size: tuple[int, int]) -> None:
        """Restrict the hand check to the table: `polygon_px` is its outline in a frame of
        `image_size` (width, height) pixels."""
        w, h = image_size
        width = self.params.width
        height = max(1, round(h * width / w))
        mask = np.zeros((height, width), np.uint8)
        pts = np.round(np.asarray(polygon_px, np.float64) * (width / w)).astype(np.int32)
        cv2.fillPoly(mask, [pts], 1)
        if mask.sum() < 0.05 * mask.size:
            return  # an outline this small is a wrong calibration: keep the whole frame
        # a bumped camera moves the outline by a few pixels: stay inside it
        inner = cv2.erode(mask, np.ones((5, 5), np.uint8))
        self.table = inner.astype(bool)
        self._table_edge = (inner - cv2.erode(inner, np.ones((3, 3), np.uint8))).astype(bool)

    def small(self, image: np.ndarray) -> np.ndarray:
        """The grey, downscaled, lightly blurred frame the settler works on."""
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        h, w = grey.shape
        width = self.params.width
        height = max(1, round(h * width / w))
        small = cv2.resize(grey, (width, height), interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(small, (3, 3), 0)

    def update(self, image: np.ndarray) -> bool:
        """Take one frame (BGR or grey, any size); True when this frame should be read."""
        cur = self.small(image)
        self.last_small = cur
        p = self.params
        self.motion = False
        if self._prev is None or self._prev.shape != cur.shape:
            self._prev, self._quiet, self._handed = cur, 0, False
            self.state = SceneState.MOVING
            return False
        changed = cv2.absdiff(cur, self._prev) > p.pixel_delta
        self._prev = cur
        if changed.mean() > p.motion_fraction:
            self.motion = True
            self._quiet, self._handed = 0, False
            self.state = SceneState.MOVING
            return False
        self._quiet += 1
        if self._quiet < p.still_frames:
            return False
        if self.empty_reference is not None and self._fraction_changed(
                cur, self.empty_reference) < p.motion_fraction:
            self.state = SceneState.EMPTY
        else:
            self.state = SceneState.STILL
        if self._handed:
            return False
        self.hand_seen = self._settled is not None and self._hand_over(cur, self._settled)
        if self.hand_seen and self._quiet < p.still_frames + p.hand_patience:
            return False
        self._handed = True
        return True

    def accept(self, image: np.ndarray) -> None:
        """Record the scene that was read as the new reference for hand checks."""
        self._settled = self.small(image)

    def set_empty(self, image: np.ndarray) -> None:
        """Remember the empty table (e.g. at calibration) to report EMPTY."""
        self.empty_reference = self.small(image)

    def _fraction_changed(self, a: np.ndarray, b: np.ndarray) -> float:
        if a.shape != b.shape:
            b = cv2.resize(b, (a.shape[1], a.shape[0]))
        return float((cv2.absdiff(a, b) > self.params.pixel_delta).mean())

    def _hand_over(self, cur: np.ndarray, ref: np.ndarray) -> bool:
        # Compensate the overall gain first: a cloud or a lamp changes every pixel by about
        # the same factor, and that must not look like an arm over the whole table.
        table = self.table if self.table is not None and self.table.shape == cur.shape \
            else None
        if table is None:
            gain = (float(ref.mean()) + 1.0) / (float(cur.mean()) + 1.0)
        else:
            gain = (float(ref[table].mean()) + 1.0) / (float(cur[table].mean()) + 1.0)
        cur = np.asarray(cv2.convertScaleAbs(cur, alpha=gain))
        # A bumped camera moves the whole picture by a pixel or two: every printed line and
        # marker then differs along its edges, and the mat's edge looked like an arm for the
        # rest of the match. The shift is measured (phase correlation) and undone first.
        (dx, dy), _ = cv2.phaseCorrelate(ref.astype(np.float32), cur.astype(np.float32))
        if abs(dx) + abs(dy) > 0.25:
            m = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
            ref = cv2.warpAffine(ref, m, (ref.shape[1], ref.shape[0]),
                                 borderMode=cv2.BORDER_REPLICATE)
        mask: np.ndarray = (cv2.absdiff(cur, ref) > self.params.pixel_delta).astype(np.uint8)
        if table is not None:
            mask &= table.astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        h, w = mask.shape
        if table is None:
            limit = self.params.hand_fraction * h * w
        else:
            limit = self.params.hand_fraction * float(table.sum())
            edge_labels = set(np.unique(labels[self._table_edge]).tolist()) - {0}
        for i in range(1, n):
            x, y, bw, bh, area = stats[i]
            if table is None:
                touches = x == 0 or y == 0 or x + bw >= w or y + bh >= h
            else:
                touches = i in edge_labels
            if touches and area > limit:
                return True
        return False
