"""The camera fit, the table reader's first stage: the calibration profile fitted to each
frame (scaled to its size, re-estimated from the markers when the camera moved). The
markers are looked for again only when their patches of the image changed (a bumped
camera), and then first where they moved to (phase correlation), the whole image searched
as fallback."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from calibration.geometry.homography import check
from calibration.geometry.markers import MarkerSighting
from calibration.profile import Profile
from calibration.table.gate import mean_normalised

BUMP_RESPONSE = 0.3
"""Phase correlation peak (0..1) above which a marker's patch is taken as found shifted in
the new frame (a knocked camera moves the markers by up to ~14 px of ~70 on the simulated
table: 4 mm and 0.7 degrees); markers are then refined from there (calibration.geometry.markers).
Fewer than half the markers found so, or a fit whose error is over BUMP_FIT times the last
fit's, and the whole image is searched (~40 ms of CPU on a 1280 x 960 frame, against ~3 ms
this way; on 8 simulated bumps the two fits agree within 0.19 px, errors 0.68-0.73 px for a
last fit's 0.70)."""
BUMP_FIT = 1.5
MARKER_CHANGE = 14.0
"""Mean grey difference (0..255, each patch normalised to its mean) of the markers' patches
from the last fit above which the markers are looked for again (a bumped camera moves them
by pixels: a difference of 40+; sensor noise and light changes: under 5)."""



def current_geometry(profile: Profile, image: np.ndarray, sighting: MarkerSighting | None = None
                     ) -> tuple[Profile, str]:
    """The profile fitted to this frame: scaled to its size, re-estimated if the camera moved.
    `sighting`: the markers already found in this frame (calibration.geometry.markers), if any.

    Returns (profile, status) with status ``ok``, ``moved`` or ``unseen`` (see homography.check).
    """
    prof = profile.for_image(int(image.shape[1]), int(image.shape[0]))
    result = check(prof.layout, prof.geometry, image, sighting=sighting)
    if result.status == "moved":
        prof = replace(prof, geometry=result.geometry)
    return prof, result.status


Patch = tuple[tuple[int, int, int, int], np.ndarray, int, np.ndarray]
"""a marker's box in the image with room round it, the box's normalised grey, the marker's
id, its corners in pixels"""


@dataclass
class CameraFit:
    """One table's camera fit: its calibration, the fit of the last frame and the markers'
    patches in it, and the camera's status (``ok``, ``moved``, ``unseen``)."""

    profile: Profile
    status: str = "ok"
    fitted: Profile | None = None
    _patches: list[Patch] | None = field(default=None, repr=False)

    def outline(self) -> tuple[np.ndarray, tuple[int, int]]:
        """The mat's outline in the image (pixels) and the image size it is given in."""
        g = self.profile.geometry
        w, h = self.profile.layout.size_mm
        return g.to_px(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)), g.image_size

    def _patches_of(self, prof: Profile, grey: np.ndarray) -> list[Patch]:
        """Per marker in view: (its box with room round it, the box's normalised grey, the
        marker's id, its corners in pixels)."""
        out = []
        h, w = grey.shape
        for m in prof.layout.markers:
            px = prof.geometry.to_px(np.array(m.corners(), np.float64))
            (x0, y0), (x1, y1) = px.min(axis=0), px.max(axis=0)
            gx, gy = (x1 - x0) * 0.3, (y1 - y0) * 0.3
            box = (max(0, int(x0 - gx)), max(0, int(y0 - gy)), min(w, int(x1 + gx) + 1),
                   min(h, int(y1 + gy) + 1))
            if box[2] - box[0] > 4 and box[3] - box[1] > 4:
                out.append((box, mean_normalised(grey[box[1]:box[3], box[0]:box[2]]), m.id, px))
        return out

    def _shifted_markers(self, grey: np.ndarray) -> MarkerSighting | None:
        """The markers where their patches moved to since the last fit (phase correlation of
        each patch with the same box now), or None when fewer than half are found so."""
        import cv2

        ids, corners = [], []
        for (x0, y0, x1, y1), ref, mid, px in self._patches or []:
            now = mean_normalised(grey[y0:y1, x0:x1])
            win = cv2.createHanningWindow((now.shape[1], now.shape[0]), cv2.CV_32F)
            (dx, dy), response = cv2.phaseCorrelate(ref, now, win)
            if response >= BUMP_RESPONSE:
                ids.append(mid)
                corners.append(px + (dx, dy))
        if 2 * len(ids) < len(self._patches or []) or not ids:
            return None
        return MarkerSighting(np.array(ids, np.int64), np.array(corners, np.float64))

    def __call__(self, image: np.ndarray) -> Profile:
        """The profile fitted to this frame (markers searched only when they changed)."""
        import cv2

        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        last = self.fitted
        same_size = last is not None and last.geometry.image_size == (image.shape[1],
                                                                       image.shape[0])
        if last is not None and same_size and self._patches:
            diffs = [float(np.abs(mean_normalised(grey[b[1]:b[3], b[0]:b[2]]) - ref).mean())
                     for b, ref, _, _ in self._patches]
            if float(np.median(diffs)) <= MARKER_CHANGE:
                return last
        prof: Profile | None = None
        shifted = self._shifted_markers(grey) if same_size else None
        if last is not None and shifted is not None:
            prof, self.status = current_geometry(self.profile, image, shifted)
            if self.status == "unseen" or \
                    prof.geometry.error_px > BUMP_FIT * last.geometry.error_px:
                prof = None
        if prof is None:
            prof, self.status = current_geometry(self.profile, image)
        # (a bumped camera keeps the zone readings: they are compared on the table plane,
        # through the geometry fitted now, and read again only where the table changed)
        self.fitted = prof
        self._patches = self._patches_of(prof, grey)
        return prof
