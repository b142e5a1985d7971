"""What the live loop asks of a table reader: the one seam between the runtime and the
camera side. The real reader (calibration.table.reader.TableReader) and the simulator's
noise model (device.observer_sim) both provide it; the runtime asks nothing else."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from engine.observation import Expected, Observation, View
from vision.frame import Frame


class TableReading(Protocol):
    """A reader of one table: a settled frame in, the engine's Observation out."""

    timings: dict[str, float]
    """milliseconds of each of its own stages in the last reading (none it did not run)"""

    def read(self, frame: Frame) -> Observation:
        """The table in this settled frame (``moved`` and ``hand_edge`` are the runtime's)."""
        ...

    def expect(self, view: View) -> None:
        """The view of the state the match is believed in, told before each reading: what
        the table should show (a reader may learn from it, and read again a zone whose last
        reading disagrees with it)."""
        ...

    def learn(self, key: int, view: View, posterior: float, live: set[int]) -> None:
        """The rules explained the last reading with ``posterior`` and the match is now in
        the state of ``view``, its last live entry ``key`` (``live``: the seqs of the live
        entries): told after each reading that was accepted or matched the state."""
        ...

    def outline(self) -> tuple[np.ndarray, tuple[int, int]] | None:
        """The table's outline (pixels, (N, 2)) and the frame size (width, height) it is
        given in: where hands are looked for. None when not known (the whole frame)."""
        ...

    def annotated(self, image: np.ndarray) -> np.ndarray:
        """``image`` (the frame just read) with what was read drawn on it: the live view."""
        ...

    def locate(self, obj: Expected) -> tuple[np.ndarray, bool] | None:
        """Where ``obj`` (an object of the match's view) lies in the frame last read: its
        pixel box (x0, y0, x1, y1) and whether that is the object itself (True) or only its
        zone or slot (False); None when the reader cannot place it. The phone's question
        shows that part of the picture."""
        ...
