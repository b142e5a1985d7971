"""The dice stage's tracker: did the dice leave their places since the last reading?"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TRACK_MM = 6.0
"""A die whose nearest die of the last reading is farther than this has moved (a die that
is only looked at again moves < 1 mm; a thrown one lands centimetres away)."""


@dataclass
class DieTracker:
    """Did the dice leave their places since the last reading? (the camera's own answer to
    "was this a throw?": dice that were not thrown stay put).

    True when at least half of them did (a throw moves every die it throws; both IceDice
    dice, all three Pyramid Dice dice), False when none did, None when fewer did: one die
    of three off its place is a die turned by hand and put back a little aside, or a die
    the reader missed once, as likely as a throw whose dice landed where dice lay; the
    rules then weigh the moves by what the faces show alone."""

    last: np.ndarray | None = None

    def update(self, positions: np.ndarray) -> bool | None:
        prev, self.last = self.last, positions
        if prev is None:
            # The first reading is the reference the match starts from: the dice lie where
            # they were found, nothing has been thrown since.
            return False
        if len(positions) == 0 and len(prev) == 0:
            return False
        if len(positions) == 0 or len(prev) == 0:
            return True
        d = np.linalg.norm(positions[:, None, :] - prev[None, :, :], axis=2)
        moved = max(int((d.min(axis=1) > TRACK_MM).sum()), int((d.min(axis=0) > TRACK_MM).sum()))
        if moved == 0:
            return False
        return True if 2 * moved >= max(len(positions), len(prev)) else None
