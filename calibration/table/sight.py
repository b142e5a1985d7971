"""One frame as the table reader's stages see it: the picture, the table fitted to it, the
paper's white in it, and the state the match is believed to be in."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.profile import Profile
from engine.observation import View


@dataclass
class Sight:
    """See the module docstring. ``balanced`` is made on first use (only the stages that
    read again need it)."""

    image: np.ndarray
    """the frame, (H, W, 3) uint8 BGR"""
    table: Profile
    """the calibration fitted to this frame (calibration.table.fit)"""
    paper: np.ndarray
    """BGR of the mat's paper in this frame (calibration.palette.white_reference): the
    white the colours are measured against"""
    expected: View | None = None
    """the view of the state the match is believed in (None: not known)"""
    _balanced: np.ndarray | None = field(default=None, repr=False)

    @property
    def balanced(self) -> np.ndarray:
        """The frame with its light balanced (vision.dice.photometry): a lamp far warmer or
        cooler than the face models trained with, or a quarter of the exposure, cost
        square-on readings (models/measure/light_faces)."""
        if self._balanced is None:
            from vision.dice.photometry import normalise_light

            self._balanced = normalise_light(self.image)
        return self._balanced
