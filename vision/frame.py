"""One camera frame: the image plus when and where it was taken."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame from a camera, a file or the simulated table.

    Attributes:
        image: (H, W, 3) uint8 BGR.
        seq: sequence number within its source, from 0.
        t: capture time, seconds on the monotonic clock.
        source: the source's id (``usb:0``, ``file:table.mp4``, ``sim:icedice``...).
        lores: an optional small grey frame of the same moment (the Pi camera's second
            stream), for motion detection without touching the full frame.
    """

    image: np.ndarray
    seq: int
    t: float
    source: str
    lores: np.ndarray | None = None

    def __post_init__(self) -> None:
        img = self.image
        if not (isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3
                and img.shape[2] == 3 and img.shape[0] > 0 and img.shape[1] > 0):
            shape = getattr(img, "shape", None)
            raise ValueError(f"a frame is an (H, W, 3) uint8 BGR image, not {shape}")
