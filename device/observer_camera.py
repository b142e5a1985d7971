"""The observer's camera fit: the calibration profile fitted to each frame, the markers
looked for again only when their patches of the image changed (a bumped camera), and then
first where they moved to (phase correlation), the whole image searched as fallback."""

from __future__ import annotations

from typing import Any

import numpy as np

from device.observer_zones import _norm

BUMP_RESPONSE = 0.3
"""Phase correlation peak (0..1) above which a marker's patch is taken as found shifted in
the new frame (a knocked camera moves the markers by up to ~14 px of ~70 on the simulated
table: 4 mm and 0.7 degrees); markers are then refined from there (calibration.markers).
Fewer than half the markers found so, or a fit whose error is over BUMP_FIT times the last
fit's, and the whole image is searched (~40 ms of CPU on a 1280 x 960 frame, against ~3 ms
this way; on 8 simulated bumps the two fits agree within 0.19 px, errors 0.68-0.73 px for a
last fit's 0.70)."""
BUMP_FIT = 1.5
MARKER_CHANGE = 14.0
"""Mean grey difference (0..255, each patch normalised to its mean) of the markers' patches
from the last fit above which the markers are looked for again (a bumped camera moves them
by pixels: a difference of 40+; sensor noise and light changes: under 5)."""



class CameraFit:
    """Mixin of :class:`device.observer.TableObserver` (its profile, last fit, marker patches
    and camera status)."""

    profile: Any
    camera_status: str
    _fitted: Any
    _marker_patches: list[tuple[tuple[int, ...], np.ndarray, int, np.ndarray]] | None

    def _patches(self, prof: Any, grey: np.ndarray) -> list:
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
                out.append((box, _norm(grey[box[1]:box[3], box[0]:box[2]]), m.id, px))
        return out

    def _shifted_markers(self, grey: np.ndarray) -> Any:
        """The markers where their patches moved to since the last fit (phase correlation of
        each patch with the same box now), or None when fewer than half are found so."""
        import cv2

        from calibration.markers import MarkerSighting

        ids, corners = [], []
        for (x0, y0, x1, y1), ref, mid, px in self._marker_patches or []:
            now = _norm(grey[y0:y1, x0:x1])
            win = cv2.createHanningWindow((now.shape[1], now.shape[0]), cv2.CV_32F)
            (dx, dy), response = cv2.phaseCorrelate(ref, now, win)
            if response >= BUMP_RESPONSE:
                ids.append(mid)
                corners.append(px + (dx, dy))
        if 2 * len(ids) < len(self._marker_patches or []) or not ids:
            return None
        return MarkerSighting(np.array(ids, np.int64), np.array(corners, np.float64))

    def geometry(self, image: np.ndarray) -> Any:
        """The profile fitted to this frame (markers searched only when they changed)."""
        import cv2

        from calibration.observe import current_geometry

        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        same_size = self._fitted is not None and self._fitted.geometry.image_size == (
            image.shape[1], image.shape[0])
        if same_size and self._marker_patches:
            diffs = [float(np.abs(_norm(grey[b[1]:b[3], b[0]:b[2]]) - ref).mean())
                     for b, ref, _, _ in self._marker_patches]
            if float(np.median(diffs)) <= MARKER_CHANGE:
                return self._fitted
        prof = None
        shifted = self._shifted_markers(grey) if same_size else None
        if shifted is not None:
            last = self._fitted.geometry.error_px
            prof, self.camera_status = current_geometry(self.profile, image, shifted)
            if self.camera_status == "unseen" or prof.geometry.error_px > BUMP_FIT * last:
                prof = None
        if prof is None:
            prof, self.camera_status = current_geometry(self.profile, image)
        # (a bumped camera keeps the zone readings: they are compared on the table plane,
        # through the geometry fitted now, and read again only where the table changed)
        self._fitted = prof
        self._marker_patches = self._patches(prof, grey)
        return prof
