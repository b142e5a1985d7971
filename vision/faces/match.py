"""Classical matching of a die's face against the players' shots of it.

A second opinion beside the learned embedding (:mod:`vision.faces.reading`), and one that needs no
training: normalised cross-correlation of the face's print against each shot. What differs
between a shot and a later sight of the same face is pose and light:

- yaw: a die's top face is a square, so the strongest edge orientations of a crop give its
  yaw up to a quarter turn (:func:`yaw_mod90`); both crops are turned upright by it and the
  shot is compared at its four quarter turns;
- position: the correlation is searched over every shift (``cv2.matchTemplate``);
- size: the face is larger or smaller in the crop (the detector's box, the sides showing),
  so the shot is compared at a few scales (:data:`SCALES`);
- light: a band-pass (difference of Gaussians) takes out shading and gradients, and the
  correlation is normalised (gain and offset drop out).

Measured on rendered new dice (validation seeds; ``vision.measure.faces``): 0.92 with the shot
at one scale and no band-pass, 0.94 with the band-pass, 0.98 with five scales (the 8 dice of
seed 60 000, at twice the crop's size). On 16 validation dice (seed 60 000, 5 shots, 20
crops per face): 0.9724 at twice the crop's size and 111 ms a crop, 0.9740 at its own size
and 26 ms (seven scales, the machine loaded by other work). Tried there and not kept: the
grey taken along the die's own ink-body colour axis (0.9703; half-half 0.9734), the mean of
the best two shots instead of the best one (0.9719). On 8 of those dice (10 crops per face,
twice the size, five scales, against 0.9688): a 1 px / 2 px blur before the band-pass
0.9708 / 0.9604, band-pass 5 / 12 px 0.9688 / 0.9625, windows 0.3 / 0.2 of the crop
0.9708 / 0.9458.

Normalising the die's scale in the crop (finding its face square and warping it to one size
before matching) cannot close the gap to 0.99 either, measured by its upper bound on those 16
validation dice (1920 crops; fused with the embedding, a rejected reading counted wrong:
0.9750, best label 0.9786): with the true face's own best scale given to every face (an
oracle, and a leaky one) 0.9865 / 0.9901; given to within one step of :data:`SCALES` (what a
good face-square finder would give) 0.9823 / 0.9849; two steps 0.9776. A penalty on the far
scales (0.02-0.12 per the 0.7-1.0 span), per-scale centring over the faces and a soft maximum
over the scales were all within 0.004 of it or below. The misreads left are mostly crops
where the print is a few dark or blurred pixels (``HARSH``: gain down to 0.45, blur up to
1.2 px, the face 0.55 of a 48 px crop) and glyphs of one shape family (thin wedges, a
quadrilateral against a triangle); the gap needs more pixels of the face or a network trained
for matching, not a better scale.
"""

from __future__ import annotations

import cv2
import numpy as np

UP = 1
"""Crops are compared at their own size: at twice it (sub-pixel shifts and turns) the
validation dice read no better (0.9724 against 0.9740, seven scales) and 4 times slower."""
HALF = 0.25
"""Half side of a shot's window, as a share of the upsampled crop: the face's middle, where
the print is; the die's edges would match any face."""
SCALES = (0.7, 0.78, 0.85, 0.93, 1.0, 1.08, 1.16)
"""Sizes of a shot's window against the crop: a thrown die's face is often smaller in its
crop than in a shot (the sides show, the box is loose). Validation dice (16 new dice, 5
shots, 20 crops per face): these seven 0.9740; 0.85-1.16 (five) 0.9688; 0.66-1.14 (five)
0.9724; 0.62-1.28 (nine) 0.9703."""
DOG_SIGMA = 4.0
"""Band-pass: the crop minus its blur by this many pixels."""
SHOT_BLUR = 1.0
"""A shot's windows are blurred by this many pixels: a thrown die's crop is seldom as sharp
as a shot of the die held still. Validation dice (as :data:`SCALES`): the correlation alone
0.9740 -> 0.9797 (0.7 px 0.9797, 1.4 px 0.9802), fused with the embedding 0.9818 -> 0.9833,
at no cost; sharp and blurred windows both 0.9802 / 0.9849 at twice the time."""
YAW_BLUR = 0.5
"""The crop is smoothed by this many pixels before its edges' direction is taken."""


def yaw_mod90(grey: np.ndarray) -> float:
    """Degrees to turn a crop by so its die's edges are upright (up to a quarter turn): the
    angle of the gradient energy's 4-fold mean direction."""
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    z = ((gx * gx + gy * gy) * np.exp(4j * np.arctan2(gy, gx))).sum()
    return float(np.degrees(np.angle(z) / 4))


def upright(crop: np.ndarray) -> np.ndarray:
    """(UP*h, UP*w) float32: a uint8 BGR crop in grey, upsampled, turned upright by its die's
    edges and band-passed."""
    h, w = crop.shape[:2]
    g: np.ndarray = cv2.resize(crop, (w * UP, h * UP),
                               interpolation=cv2.INTER_CUBIC).astype(np.float32)
    g = g.mean(axis=2)
    ang = yaw_mod90(cv2.GaussianBlur(g, (0, 0), YAW_BLUR))
    m = cv2.getRotationMatrix2D((w * UP / 2, h * UP / 2), ang, 1.0)
    g = cv2.warpAffine(g, m, (w * UP, h * UP), flags=cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)
    return g - cv2.GaussianBlur(g, (0, 0), DOG_SIGMA)


def shot_windows(shot: np.ndarray) -> list[np.ndarray]:
    """The middle of one shot (uint8 BGR crop), blurred, at every quarter turn and scale."""
    g = cv2.GaussianBlur(upright(shot), (0, 0), SHOT_BLUR)
    out = []
    for sc in SCALES:
        z = cv2.resize(g, None, fx=sc, fy=sc, interpolation=cv2.INTER_LINEAR)
        c, r = z.shape[0] // 2, int(round(HALF * g.shape[0]))
        win = z[c - r:c + r, c - r:c + r]
        out += [np.ascontiguousarray(np.rot90(win, q)) for q in range(4)]
    return out


class WindowBank:
    """Windows of one size searched over a band-passed crop all at once.

    ``cv2.matchTemplate`` (``TM_CCOEFF_NORMED``) is called once per window and shift search;
    a die's 5 shots x 6 faces x 28 windows made 840 calls a crop, most of the reading's time
    in call overhead on these small images. Here every shift of the crop is a row and every
    window (zero-mean, unit-norm) a column of one matrix product, divided by each shifted
    patch's own centred norm: the same normalised cross-correlation (within 1e-6 of OpenCV's,
    the same best shifts), 22 -> 10 ms a crop on 60 crops of a validation die.
    """

    def __init__(self, windows: list[np.ndarray]) -> None:
        self.side = windows[0].shape[0]
        if any(w.shape != (self.side, self.side) for w in windows):
            raise ValueError("a window bank holds square windows of one size")
        t = np.stack([w.ravel() for w in windows]).astype(np.float32)
        t -= t.mean(axis=1, keepdims=True)
        t /= np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-9)
        self.columns = np.ascontiguousarray(t.T)

    def search(self, g: np.ndarray, margin: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(best correlation (K,), its top-left (K, 2) as x, y) of every window on the
        band-passed upright crop `g`, shifts searched `margin` pixels inside its border."""
        if margin:
            g = g[margin:-margin, margin:-margin]
        v = np.lib.stride_tricks.sliding_window_view(g.astype(np.float32),
                                                     (self.side, self.side))
        rows, cols = v.shape[:2]
        p = v.reshape(rows * cols, self.side * self.side)
        s = p.sum(axis=1, dtype=np.float64)
        ss = np.einsum("ij,ij->i", p, p, dtype=np.float64)
        norm = np.sqrt(np.maximum(ss - s * s / p.shape[1], 0.0))
        flat = norm < 1e-6  # a patch with no contrast correlates with nothing
        corr = (p @ self.columns) / np.where(flat, 1.0, norm)[:, None].astype(np.float32)
        corr[flat] = 0.0
        at = corr.argmax(axis=0)
        best = corr[at, np.arange(corr.shape[1])]
        return best, np.stack([at % cols + margin, at // cols + margin], axis=1)


class ShotMatcher:
    """Correlation of crops with the shots of each face of one die."""

    def __init__(self, shots: dict[str, np.ndarray]) -> None:
        """`shots`: per face label, (n, h, w, 3) uint8 crops."""
        self.labels = list(shots)
        windows = [[w for s in shots[lb] for w in shot_windows(s)] for lb in self.labels]
        self.bank = WindowBank([w for wins in windows for w in wins])
        #: face j's windows are the bank's starts[j]:starts[j + 1]
        self.starts = np.cumsum([0] + [len(w) for w in windows])

    def scores(self, crops: np.ndarray) -> np.ndarray:
        """(N, faces): per crop, its best correlation with any shot of each face."""
        return self.scores_where(crops, 0)[0]

    def scores_where(self, crops: np.ndarray, refs: int
                     ) -> tuple[np.ndarray, list[list[list[tuple[int, tuple[int, int]]]]]]:
        """:meth:`scores`, and where each face's first `refs` shots fit each crop best:
        ``where[i][j][r]`` = (index of the window among that shot's, its top-left)."""
        out = np.zeros((len(crops), len(self.labels)), np.float64)
        where = []
        n = len(SCALES) * 4  # windows per shot
        for i, c in enumerate(crops):
            corr, tops = self.bank.search(upright(c))
            per_face = []
            for j in range(len(self.labels)):
                a, b = self.starts[j], self.starts[j + 1]
                out[i, j] = corr[a:b].max()
                fits = []
                for r in range(min(refs, (b - a) // n)):
                    k = int(np.argmax(corr[a + r * n:a + (r + 1) * n]))
                    x, y = tops[a + r * n + k]
                    fits.append((k, (int(x), int(y))))
                per_face.append(fits)
            where.append(per_face)
        return out, where


def best_window(g: np.ndarray, windows: list[np.ndarray], margin: int = 0
                ) -> tuple[float, int, tuple[int, int]]:
    """(correlation, window index, top-left) of the best placement of any of `windows` on
    the band-passed upright crop `g`, shifts searched `margin` pixels inside its border."""
    corr, tops = WindowBank(windows).search(g, margin)
    k = int(np.argmax(corr))
    return float(corr[k]), k, (int(tops[k, 0]), int(tops[k, 1]))
