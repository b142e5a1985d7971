"""Which edge of the picture the players' arm crossed: who threw (engine.thrower).

A player's arm reaches over the table from the edge they sit at. While the scene moves,
each frame is compared with the last settled one (the table as it was read): what differs
and touches the picture's border is the arm (and its shadow). The changed pixels in a strip
along each of the four borders are summed over the moving frames; the edge with most of
them is the side, its share of all of them the confidence. No hand seen (a light change,
dice only), or arms from two sides, give None or a low confidence: the reconciler then asks
as it would without seats.

The picture's own edges are used, not the mat's outline: an arm crosses the picture's
border wherever the mat lies in it, and the seats are set as edges of this picture.
Cheap: the settler's small grey frame (160 px wide), a few array sums per moving frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.thrower import EDGES

STRIP = 3
"""width (small-frame pixels) of the border strip looked at"""
PIXEL_DELTA = 18
"""grey-level change that counts a pixel as changed (as the settler's)"""
MIN_PIXELS = 40
"""least changed border pixels, summed over the moving frames, for any side to be told"""


@dataclass
class HandSide:
    """Feed it the small frames of one move; ``side()`` says where the arm came from."""

    reference: np.ndarray | None = None
    votes: np.ndarray = field(default_factory=lambda: np.zeros(4))

    def settled(self, small: np.ndarray) -> None:
        """The table was read on this frame: the next move is compared with it."""
        self.reference = small
        self.votes = np.zeros(4)

    def feed(self, small: np.ndarray) -> None:
        """One frame while the scene moves."""
        ref = self.reference
        if ref is None or ref.shape != small.shape:
            return
        # a lamp or a cloud changes every pixel by about one factor: undo it first
        gain = (float(ref.mean()) + 1.0) / (float(small.mean()) + 1.0)
        cur = cv2.convertScaleAbs(small, alpha=gain)
        mask: np.ndarray = (cv2.absdiff(cur, ref) > PIXEL_DELTA).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        s = STRIP
        # EDGES order: bottom, left, top, right
        self.votes += (mask[-s:, :].sum(), mask[:, :s].sum(), mask[:s, :].sum(),
                       mask[:, -s:].sum())

    def side(self) -> tuple[str | None, float]:
        """(edge, confidence) for the move fed since the last reading; (None, 0.0) when
        too little crossed any border."""
        total = float(self.votes.sum())
        if total < MIN_PIXELS:
            return None, 0.0
        best = int(np.argmax(self.votes))
        return EDGES[best], round(float(self.votes[best]) / total, 3)
