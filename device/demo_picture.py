"""The demo's picture of the table: the noise observer's table filmed as it looks.

The demo's default observer (``noise``) reads no pixels, so its frames were abstract
squares, and the phone showed them as "the camera's picture": a flat green rectangle a
player could not recognise, nor judge a question against. :class:`PicturedTable` wraps the
simulated table and gives the runtime each frame's table rendered as the camera would see it
(the printed mat, dice, pyramids, cards: :class:`calibration.render.table.TableRenderer`),
keeping the abstract frame as the settler's small grey stream (``Frame.lores``): motion,
hands and the noise model work exactly as before, bit for bit. A view is rendered once
(about 0.1 s), when the table first shows it; the frames a hand is over reuse it, since only
a settled frame is ever shown or kept.

It also locates, for a question, the doubtful objects in the picture and cuts the part
that holds them (:meth:`PicturedTable.crop`), which the match service keeps with the
question.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from device.question_crop import ringed_crop
from engine.observation import Expected, View
from vision.frame import Frame

logger = logging.getLogger(__name__)



class PicturedTable:
    """A frame source: ``table`` (a :class:`device.simtable.SimulatedTable` with the noise
    observer) with each frame's image rendered; anything else is the table's own."""

    def __init__(self, table: Any, players: int, seed: int) -> None:
        from calibration.layouts import LayoutError
        from calibration.render.table import TableRenderer

        self.table = table
        self.renderer: Any = None
        try:
            self.renderer = TableRenderer(table.game.info.name, players, seed)
        except LayoutError as exc:  # no printed mat for this many players: abstract frames
            logger.info("the demo shows abstract frames: %s", exc)
        self._view: View | None = None
        self._image: np.ndarray | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.table, name)

    def read(self) -> Frame | None:
        frame: Frame | None = self.table.read()
        if frame is None or self.renderer is None:
            return frame
        scene = self.table.scenes_at[frame.seq]
        if scene.view != self._view:
            self.renderer.place(scene.view, thrown=scene.rolled)
            self._image = self.renderer.render_still(scene.view, seed=frame.seq)
            self._view = scene.view
        assert self._image is not None
        grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
        return Frame(self._image, frame.seq, frame.t, frame.source, lores=grey)

    # --- where things lie in the picture -----------------------------------------------------
    def _pixels(self, mat_mm: np.ndarray) -> np.ndarray:
        r = self.renderer
        table = r.mr.to_table(np.asarray(mat_mm, np.float64).reshape(-1, 2))
        uv, _ = r.camera.project(np.column_stack([table, np.zeros(len(table))]))
        return np.asarray(uv)

    def locate(self, obj: Expected) -> tuple[np.ndarray, bool] | None:
        """Pixel box (x0, y0, x1, y1) of ``obj`` in the picture, and whether it is the
        object itself (True) or only its zone (False); None when it is not on the mat."""
        r = self.renderer
        if r is None:
            return None
        half = r.die_mm * 0.9
        spots = [(x, y) for e, x, y, *_ in r.placement.dice if e == obj]
        spots += [(x, y) for e, x, y, _ in r.placement.pieces.get(obj.zone, []) if e == obj]
        if not spots:  # the same kind of object in its place, whatever it shows
            spots = [(x, y) for e, x, y, *_ in r.placement.dice
                     if e.kind == obj.kind and e.zone == obj.zone and e.slot == obj.slot
                     and e.attr("type") == obj.attr("type")]
        if spots:
            x, y = spots[0]
            corners = np.array([[x - half, y - half], [x + half, y - half],
                                [x + half, y + half], [x - half, y + half]])
            uv = self._pixels(corners)
            return np.array([*uv.min(axis=0), *uv.max(axis=0)]), True
        polygon = r.layout.outline(obj.zone, obj.slot)
        if polygon is None:
            return None
        uv = self._pixels(np.array(polygon, np.float64))
        return np.array([*uv.min(axis=0), *uv.max(axis=0)]), False

    def crop(self, objects: Sequence[Expected]) -> bytes | None:
        """JPEG of the part of the last picture that holds ``objects``, each ringed
        (:func:`device.question_crop.ringed_crop`); None when none of them can be placed (or
        there is no picture)."""
        if self._image is None or not objects:
            return None
        found = [hit for hit in (self.locate(o) for o in objects) if hit is not None]
        return ringed_crop(self._image, found)
