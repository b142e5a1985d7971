"""Where a typed die's top face is inside its box in a photo, and the face read there.

A photo's die shows its sides as well as its top face, the more so the farther it lies from
the camera's axis (a side as wide as 0.5-1 face at a wide phone's edge), and the sides are
printed with the die's other faces. Which part of the box the top face fills depends on the
camera's pose, which a photo of no calibrated table does not give, so the box and squares
inside it are all candidates (:func:`top_candidates`). Each is read (:func:`read_candidates`:
the type whose rendered face means lie nearest, and the face with that type), and one is
chosen, for the games whose perception spec asks for it (calibration.games:
``top_face_chooser``) by :class:`TopFaceChooser` when its weights are shipped
(``top_face_choice.json`` beside the face model): a logistic model of "this candidate reads
the die right" over the candidate's nearness to the face means, how sure its reading is, its
size and place in the box and that place against the die's place in the photo (a camera sees
the top face displaced away from the point under it). Otherwise the nearest candidate is
chosen, as before the weights were trained.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from vision.faces.dietypes import get_type
from vision.faces.reading import DieFaceReader, FaceReading
from vision.manifest import file_of

#: Squares cut inside a die's box, as fractions of its shorter side, each on a 3 x 3 grid of
#: places (corners, edges' middles, centre), besides the box itself: where the top face is.
TOP_FRACTIONS = (0.6, 0.75, 0.9)
SCALE_CODED_FRACTION = 0.75
"""The smallest square a scale-coded type's face is read from when the nearest candidate is
chosen (see :func:`scale_coded`)."""
CHOICE_FILE = file_of("top_face_choice")

logger = logging.getLogger(__name__)


@cache
def scale_coded(type_name: str) -> bool:
    """Whether a type's faces are told apart by the size of what they show (IceDice's size
    die: a small, a medium or a large pyramid). A square cut inside such a face zooms its
    pictogram, so a medium pyramid read from a 0.6 square looks large (of the IceDice dice
    seen within 15 degrees of square-on and misread in models.measure.photo_angles' seed-1 photos,
    7 of 8 were size dice read one size up, every one read right from its box). The nearest
    candidate is then chosen among those of at least SCALE_CODED_FRACTION, chosen on seed 0
    (size dice read as such, 323 in 200 photos: 253 right as before, 267 with 0.75, 222 with
    0.9; the box when it is nearly as near, a vote of the squares, or the surest square: no
    better). Held out, ``python -m models.measure.photo_angles`` (seed 1): size dice 256 -> 267 of
    320, all IceDice dice 726 -> 737 of 925 (25-45 degrees 370 -> 381). It does not mend the
    near-axis ones (114 -> 115 of 122): a 0.75 square still zooms a face that fills the box,
    and the box alone misreads the oblique ones (141 of 323)."""
    return any(f.look_dict().get("kind") == "pictogram" for f in get_type(type_name).faces)


def top_candidates(xyxy: np.ndarray) -> np.ndarray:
    """(N, 1 + 9 x len(TOP_FRACTIONS), 4) boxes per die: its box, then squares inside it
    (fraction by fraction, each on its grid column by column: x left, middle, right, and in
    each y top, middle, bottom)."""
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    out = [xyxy]
    side = np.minimum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
    for f in TOP_FRACTIONS:
        a = side * f
        for cx in (xyxy[:, 0] + a / 2, (xyxy[:, 0] + xyxy[:, 2]) / 2, xyxy[:, 2] - a / 2):
            for cy in (xyxy[:, 1] + a / 2, (xyxy[:, 1] + xyxy[:, 3]) / 2, xyxy[:, 3] - a / 2):
                out.append(np.stack([cx - a / 2, cy - a / 2, cx + a / 2, cy + a / 2], axis=1))
    return np.stack(out, axis=1).astype(np.float32)


def _layout() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per candidate of :func:`top_candidates`: fraction (the box 1), grid place (the box
    -1), and its centre's offset from the box's centre in x and y (units of the box side)."""
    fraction = np.array([1.0, *np.repeat(TOP_FRACTIONS, 9)])
    place = np.array([-1, *np.tile(np.arange(9), len(TOP_FRACTIONS))])
    ox = np.where(place >= 0, (place // 3 - 1) * (1 - fraction) / 2, 0.0)
    oy = np.where(place >= 0, (place % 3 - 1) * (1 - fraction) / 2, 0.0)
    return fraction, place, ox, oy


@dataclass
class Candidates:
    """One die's candidates, each read with the type whose face mean lies nearest it."""

    types: list[str]
    """Per candidate, the nearest type."""
    nearness: np.ndarray
    """(K,) cosine to the nearest face mean."""
    margin: np.ndarray
    """(K,) that cosine less the nearest of any other type's."""
    readings: list[FaceReading]
    """Per candidate, its face read with its type (empty when not read)."""
    crops: np.ndarray
    """(K, h, w, 3) the candidates' crops."""


def read_candidates(reader: DieFaceReader, image: np.ndarray, xyxy: np.ndarray,
                    types: list[str], read: bool = True) -> list[Candidates]:
    """Every die's candidates (:func:`top_candidates`): nearest type and, when `read`, its
    face (what :class:`TopFaceChooser` weighs; :func:`nearest` needs only the types)."""
    boxes = top_candidates(xyxy)
    n, k = boxes.shape[:2]
    crops = reader.crops(image, boxes.reshape(-1, 4))  # die i's candidate c at i * k + c
    emb = reader.embed(crops)  # turned like the rendered faces' means
    owner, means = [], []
    for j, t in enumerate(types):
        for m in reader.base_means(t).values():
            owner.append(j)
            means.append(m)
    owner_arr = np.array(owner)
    sims = emb @ np.stack(means).T  # (n * k, means)
    per_type = np.stack([sims[:, owner_arr == j].max(axis=1) for j in range(len(types))], 1)
    best = per_type.argmax(axis=1)
    ranked = np.sort(per_type, axis=1)
    near = ranked[:, -1]
    margin = near - (ranked[:, -2] if len(types) > 1 else 0.0)
    readings: list[FaceReading | None] = [None] * len(crops)
    for j, t in enumerate(types if read else []):  # one batch per type
        idx = np.flatnonzero(best == j)
        if len(idx):
            for i, r in zip(idx, reader.read_type(crops[idx], t), strict=True):
                readings[int(i)] = r
    return [Candidates([types[int(j)] for j in best[i * k:(i + 1) * k]],
                       near[i * k:(i + 1) * k], margin[i * k:(i + 1) * k],
                       readings[i * k:(i + 1) * k] if read else [],  # type: ignore[arg-type]
                       crops[i * k:(i + 1) * k])
            for i in range(n)]


FEATURES = ("nearness", "nearness_below_best", "margin", "probability", "log_doubt",
            "box", "square_0.6", "square_0.75", "square_0.9",
            *(f"place_{p}" for p in range(9)),
            "dx_x_ox", "dy_x_oy", "dy_x_ox", "dx_x_oy", "ox", "oy", "scale_coded_inside",
            "gap_squared", "gap_over_0.1", "gap_over_0.2")
"""Columns of :func:`features`: ``dx``/``dy`` the die's centre from the photo's centre (a
fraction of its width / height), ``ox``/``oy`` the candidate's centre from the box's,
``gap`` how much less near than the die's nearest candidate (a linear score alone let the
place outweigh a far worse likeness: chosen on photo seed 12, neither trained on nor
measured)."""


def features(c: Candidates, box: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """(K, len(FEATURES)) of one die's candidates; `image_size` is (height, width)."""
    fraction, place, ox, oy = _layout()
    h, w = image_size
    dx = ((box[0] + box[2]) / 2 - w / 2) / w
    dy = ((box[1] + box[3]) / 2 - h / 2) / h
    p = np.clip(np.array([r.probability for r in c.readings]), 1e-6, 1 - 1e-6)
    inside = np.array([scale_coded(t) for t in c.types]) & (fraction < SCALE_CODED_FRACTION)
    gap = c.nearness.max() - c.nearness
    cols = [c.nearness, -gap, c.margin, p, np.log(1 - p),
            *(np.isclose(fraction, f) for f in (1.0, *TOP_FRACTIONS)),
            *(place == q for q in range(9)),
            ox * dx, oy * dy, ox * dy, oy * dx, ox, oy, inside,
            gap ** 2, np.maximum(0.0, gap - 0.1), np.maximum(0.0, gap - 0.2)]
    return np.column_stack([np.asarray(v, np.float64) for v in cols])


def nearest(c: Candidates) -> int:
    """The candidate nearest a face mean (a scale-coded type's among squares of at least
    SCALE_CODED_FRACTION): the choice without :class:`TopFaceChooser`."""
    fraction = _layout()[0]
    best = int(np.argmax(c.nearness))
    if scale_coded(c.types[best]) and fraction[best] < SCALE_CODED_FRACTION:
        own = np.array([t == c.types[best] for t in c.types]) & (
            fraction >= SCALE_CODED_FRACTION)
        if own.any():
            best = int(np.flatnonzero(own)[np.argmax(c.nearness[own])])
    return best


class TopFaceChooser:
    """The learnt choice of a die's candidate (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        meta = json.loads(Path(path).read_text())
        if tuple(meta["features"]) != FEATURES:
            raise ValueError(f"{path}: made for other features than this version's")
        self.face_model_sha256 = str(meta["face_model_sha256"])
        self.mean = np.asarray(meta["mean"], np.float64)
        self.scale = np.asarray(meta["scale"], np.float64)
        self.weights = np.asarray(meta["weights"], np.float64)
        self.bias = float(meta["bias"])

    def scores(self, x: np.ndarray) -> np.ndarray:
        """(K,) log-odds that each candidate reads the die right."""
        return ((x - self.mean) / self.scale) @ self.weights + self.bias

    def choose(self, c: Candidates, box: np.ndarray, image_size: tuple[int, int]) -> int:
        return int(np.argmax(self.scores(features(c, box, image_size))))

    @staticmethod
    def beside(reader: DieFaceReader) -> TopFaceChooser | None:
        """The chooser shipped beside the reader's face model and made for it, else None."""
        return _chooser_beside(str(reader.path))


@cache
def _chooser_beside(face_model: str) -> TopFaceChooser | None:
    path = Path(face_model).with_name(CHOICE_FILE)
    if not path.is_file():
        return None
    try:
        chooser = TopFaceChooser(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:  # unreadable, or for another version
        logger.warning("%s not used (%s): the nearest candidate is read", path, exc)
        return None
    if chooser.face_model_sha256 != hashlib.sha256(Path(face_model).read_bytes()).hexdigest():
        return None  # learnt on another face model's readings
    return chooser
