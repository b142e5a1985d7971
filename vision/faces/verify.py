"""A per-die linear verifier for enrolled faces: the third opinion beside correlation and embedding.

The correlation (:mod:`vision.faces.match`) scores a crop by how well some shot of a face fits it
anywhere, every pixel of the window counting alike; two faces that differ only in a small
detail (a B and a D: the notch) fit a crop of either almost equally. The verifier learns, when
a die is enrolled, which pixels tell each face from the die's others and how the degraded
copies of its shots (:mod:`vision.faces.shotaug`, the ones the embedding's prototypes are made of)
vary there:

- for every face and each of its first :data:`REFS` shots (the *reference*), every shot and
  copy of every face of the die is placed on the reference by the correlation's own search
  (the shot's windows at :data:`vision.faces.match.SCALES` and four quarter turns, the best
  shift), and the crop's region under the best window is brought back to the reference's
  frame (its scale and turn undone): a :data:`PATCH`-pixel square, zero-mean, unit-norm;
- a two-class linear discriminant (this face against the die's other faces, covariance
  pooled and shrunk by :data:`SHRINK` to its mean variance) on those patches; its projection,
  scaled to a Gaussian log-likelihood ratio on the copies, is the face's score.

A crop is read by placing it on each reference with the correlation's search, which the
reader does anyway (:meth:`vision.faces.match.ShotMatcher.scores_where` returns the placement);
the verifier adds one warp of a 20-pixel square and a dot product per reference.

On in the reading of dice enrolled without a base type (:data:`vision.faces.reading.VERIFY_WEIGHT`,
chosen on validation dice: ``python -m models.training.enrol.validate_enrol --verify``, seeds
60 000-90 000; ``models/die_enrol.md``): with 5 shots it gained 3, 8, 5 and 17 crops in 1920
on the four seeds. Preparing a 5-shot die costs ~2 s more (every copy placed on every
reference by one :class:`vision.faces.match.WindowBank` search; 11 s more before).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.faces.match import SCALES, WindowBank, best_window, shot_windows, upright

REFS = 3
"""Reference shots per face (one verifier each; their log-likelihood ratios averaged)."""
PATCH = 20
"""Side of the reference-frame square the discriminant reads, in the shot's pixels."""
SHRINK = 0.1
"""Shrinkage of the pooled covariance towards its mean variance."""
MARGIN = 6
"""Enrolment: a copy is placed on a reference searching shifts only this far inside the crop
(the copies are centred up to :data:`vision.faces.shotaug.SHIFT`); a read crop is searched fully."""


def aligned_patch(g: np.ndarray, k: int, loc: tuple[int, int], win: int) -> np.ndarray:
    """(PATCH*PATCH,) the region of the band-passed upright crop `g` under reference window
    `k` (scale ``SCALES[k // 4]``, turn ``k % 4``) placed at `loc` (top-left, `win` square),
    brought to the reference's own frame; zero-mean, unit-norm."""
    sc = SCALES[k // 4]
    cx, cy = loc[0] + win / 2 - 0.5, loc[1] + win / 2 - 0.5
    off = sc * (PATCH / 2 - 0.5)
    m = np.array([[sc, 0, cx - off], [0, sc, cy - off]], np.float32)
    p = cv2.warpAffine(g, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                       borderMode=cv2.BORDER_REPLICATE)
    p = np.rot90(p, -(k % 4)).ravel().astype(np.float64)
    p -= p.mean()
    return p / max(float(np.linalg.norm(p)), 1e-9)


class FaceVerifier:
    """One-face-against-the-others discriminants of one die, learnt from its shots and copies."""

    def __init__(self, samples: dict[str, np.ndarray], refs: int = REFS,
                 shrink: float = SHRINK) -> None:
        """`samples`: per face label, (n, h, w, 3) uint8 crops, the shots first (the first
        `refs` of them are the references) and their degraded copies after."""
        self.labels = list(samples)
        gs, ys = [], []
        for j, lb in enumerate(self.labels):
            gs += [upright(c) for c in samples[lb]]
            ys += [j] * len(samples[lb])
        y = np.asarray(ys)
        #: per verifier: (face index, reference index among the face's shots)
        self.which = [(j, r) for j, lb in enumerate(self.labels)
                      for r in range(min(refs, len(samples[lb])))]
        self.windows = [shot_windows(samples[self.labels[j]][r]) for j, r in self.which]
        # Every sample is placed on every reference by one search of all their windows.
        bank = WindowBank([w for wins in self.windows for w in wins])
        n, side = len(self.windows[0]), self.windows[0][0].shape[0]
        x = np.empty((len(self.which), len(gs), PATCH * PATCH), np.float32)
        for i, g in enumerate(gs):
            corr, tops = bank.search(g, MARGIN)
            for v in range(len(self.which)):
                k = int(np.argmax(corr[v * n:(v + 1) * n]))
                x[v, i] = aligned_patch(g, k, tuple(tops[v * n + k]), side)
        self.w: list[np.ndarray] = []
        self.cal: list[tuple[float, float, float]] = []
        for v, (j, _) in enumerate(self.which):
            xv = x[v].astype(np.float64)
            w, cal = _discriminant(xv[y == j], xv[y != j], shrink)
            self.w.append(w)
            self.cal.append(cal)
        self.count = np.bincount([j for j, _ in self.which], minlength=len(self.labels))
        self.refs = refs

    def scores(self, crops: np.ndarray,
               where: list[list[list[tuple[int, tuple[int, int]]]]] | None = None
               ) -> np.ndarray:
        """(N, faces): per crop, each face's log-likelihood ratio against the die's others,
        averaged over its references. `where[i][j][r]`: the (window, top-left) of face j's
        shot r on crop i, as :meth:`vision.faces.match.ShotMatcher.scores_where` found it
        (searched here when not given)."""
        out = np.zeros((len(crops), len(self.labels)))
        for i, c in enumerate(crops):
            g = upright(c)
            for v, (j, r) in enumerate(self.which):
                wins = self.windows[v]
                if where is not None:
                    k, loc = where[i][j][r]
                else:
                    _, k, loc = best_window(g, wins)
                x = aligned_patch(g, k, loc, wins[0].shape[0])
                mp, mn, s2 = self.cal[v]
                out[i, j] += (mp - mn) * (float(x @ self.w[v]) - (mp + mn) / 2) / s2
        return out / np.maximum(self.count, 1)


def _discriminant(pos: np.ndarray, neg: np.ndarray, shrink: float
                  ) -> tuple[np.ndarray, tuple[float, float, float]]:
    """Fisher's direction between `pos` and `neg` (pooled covariance, shrunk) and the means
    and pooled variance of the two classes' projections on it."""
    mp, mn = pos.mean(axis=0), neg.mean(axis=0)
    r = np.concatenate([pos - mp, neg - mn])
    s = r.T @ r / len(r)
    d = s.shape[0]
    s = (1 - shrink) * s + shrink * np.trace(s) / d * np.eye(d)
    w = np.linalg.solve(s, mp - mn)
    pp, pn = pos @ w, neg @ w
    s2 = (((pp - pp.mean()) ** 2).sum() + ((pn - pn.mean()) ** 2).sum()) / len(r)
    return w, (float(pp.mean()), float(pn.mean()), float(max(s2, 1e-12)))
