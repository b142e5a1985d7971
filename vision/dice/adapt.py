"""Table adaptation: what the reader learns of one table's dice from labelled photos.

Real players bring their own dice, table, light and camera; a reader trained elsewhere
reads them worse than the dice it was trained on. A few photos of the players' own dice,
each die labelled with the face it shows (``dicetable adapt``), or the moves the players
confirm during a match (the live table) teach the reader two things:

- the dice's size in the photo (:attr:`Adaptation.die_side`): the detector then looks only
  at the scales where such dice lie, so the table's texture seen at other scales gives no
  boxes;
- a correction of the face classifier (:class:`vision.dice.residual.FaceResidual`) fitted on
  crops of this table: the labelled dice (each in four turns and mirrored, which keep its
  value) and, as "not a die", every box the reader makes on the photos where no die is
  (patterned cloth, keys, RPG dice). A symbol face (a skull for the 1) labelled as its value
  is learnt as that value.

An adaptation is tied to the classifier file it was fitted on (its SHA-256): the
correction acts on that network's features and means nothing to another one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.dice.classifier import NOT_A_DIE
from vision.dice.detections import NUM_FACE_CLASSES
from vision.dice.photometry import normalise_light
from vision.dice.reader import DiceReader
from vision.dice.residual import FaceResidual, fit_residual

logger = logging.getLogger(__name__)

#: The file format's version (bumped when a field's meaning changes).
FORMAT = 1
#: The sizes of the dice seen are widened by this factor each way: a phone held a little
#: closer or farther, perspective across the table, and the label's box (top face or whole
#: die) all move a die's side by up to about this much.
SIDE_MARGIN = 2.5
#: A detector box is a labelled die's when its centre lies in the label's box and its side
#: is within this factor of the label's; smaller boxes inside a die are its pips or parts,
#: learnt neither as the die nor as "not a die".
SAME_DIE = 2.0
#: ... and it overlaps the label's box by at least this IoU: a box round a corner or a half
#: of the die (centred in it, of about its size) is learnt neither as the die nor as "not a
#: die" - learnt as the die, the adapted reader kept such boxes as dice of their own beside
#: the die (a rendered table of 3 dice read as 4, tests/device/test_cli_adapt.py).
SAME_IOU = 0.5
#: Weight of the boxes on no die together, per labelled die (each die weighs 1, its views
#: sharing it).
NEGATIVE_WEIGHT = 1.0
#: Pull of the correction towards the shipped model per class row, in examples (as
#: vision.dice.residual.L2): strong on the faces (a few photos show few faces, and a face they
#: never showed must keep its shipped reading), weaker on "not a die" (the table's own
#: texture is what its photos teach best). Chosen on the leave-one-domain-out folds D1
#: (models.training.dice.domains), two photos, three draws each, skovy / damiantab: not-a-die's
#: pull 0.02 with a free bias read 0.975 / 0.983 with 8.5 / 5.7 % boxes on no die; 0.5 and
#: no bias 0.996 / 0.980 with 4.2 / 1.7 %; 0.1 and no bias 0.993 / 0.986 with 7.4 / 1.6 %.
PULL = np.array([4.0] * NUM_FACE_CLASSES + [0.5])
#: ... but never weaker than this many labelled dice over the number the photos hold: what
#: is not a die is learnt from the boxes beside a few dice of one look, and with few dice
#: it spread to every die unlike them (one kamil photo of two 6s among RPG dice made the
#: adapted reader lose half the dice of the other photos: read 0.46; 0.86 with this).
#: Leave-one-domain-out D1, three draws each (models.training.dice.domains' k_shot draws), read
#: with not-a-die's pull fixed at 0.5 / 2 / 8 / with this rule: one photo: kamil 0.754 /
#: 0.825 / 0.888 / 0.891, damiantab 0.930 / 0.962 / 0.956 / 0.958, skovy 0.986 / - / 0.993
#: / 0.993, real-dice 0.930 / - / - / 0.925; two photos: kamil 0.957 / 0.951 / 0.960 /
#: 0.952, damiantab 0.979 / 0.976 / 0.976 / 0.976, skovy 0.989 / - / 0.989 / 0.989,
#: real-dice 0.940 / 0.934 / 0.924 / 0.936.
NOT_A_DIE_DICE = 16.0
#: No row's bias moves: a bias moves every box of the table alike, towards the faces the
#: photos happened to show (skovy adapted to two photos read 0.65 with the faces' biases
#: free, 0.97 without) or, for "not a die", towards "a die" whenever the photos' boxes on no
#: die lie at scales the adapted reader does not look at (see PULL).
FREE_BIAS = np.zeros(NUM_FACE_CLASSES + 1)
#: The detector's threshold once adapted (None: the shipped one): with the dice's size known
#: and "not a die" learnt on the table's own boxes, fainter heat peaks can be read as dice.
ADAPTED_THRESHOLD: float | None = None
#: At most this many "not a die" boxes of one photo are kept (the surest first): a
#: patterned cloth gives thousands, and a few hundred teach as much.
MAX_NEGATIVES = 400


class AdaptationError(ValueError):
    """An adaptation file is unreadable, malformed, or for another classifier."""


@dataclass(frozen=True)
class Adaptation:
    """What the reader learnt of one table's dice."""

    classifier_sha256: str
    """SHA-256 of the classifier file the correction was fitted on."""
    residual: FaceResidual | None
    die_side: tuple[float, float] | None
    """The dice's longer side as a share of the photo's longer side (lo, hi), or None."""
    photos: int = 0
    dice: int = 0
    negatives: int = 0
    faces: dict[str, int] = field(default_factory=dict)
    """Labelled dice per face value learnt from."""
    source: str = "photos"
    detect_threshold: float | None = None
    """The detector's heat threshold to read with (None: the reader's own)."""

    def to_json(self) -> dict:
        """Its JSON form (floats to 7 significant digits: a profile stays small)."""
        r = self.residual

        def short(a: np.ndarray) -> list:
            return np.vectorize(lambda v: float(f"{v:.7g}"), otypes=[float])(a).tolist()

        return {
            "format": FORMAT, "source": self.source,
            "classifier_sha256": self.classifier_sha256,
            "photos": self.photos, "dice": self.dice, "negatives": self.negatives,
            "faces": self.faces,
            "die_side": list(self.die_side) if self.die_side else None,
            "detect_threshold": self.detect_threshold,
            "residual": None if r is None else {
                "mean": short(r.mean), "scale": short(r.scale),
                "weight": short(r.weight), "bias": short(r.bias)},
        }

    @classmethod
    def from_json(cls, data: object) -> Adaptation:
        """An adaptation from its JSON form; AdaptationError saying what is wrong."""
        if not isinstance(data, dict):
            raise AdaptationError("an adaptation is a JSON object")
        if data.get("format") != FORMAT:
            raise AdaptationError(f"adaptation format {data.get('format')!r} is not {FORMAT}; "
                                  "run dicetable adapt again")
        try:
            side = data.get("die_side")  # (a TOML table leaves out what is None)
            if side is not None:
                lo, hi = (float(v) for v in side)
                if not (0 < lo <= hi and math.isfinite(hi)):
                    raise ValueError("die_side must be 0 < lo <= hi")
                side = (lo, hi)
            res = data.get("residual")
            residual = None if res is None else FaceResidual(
                mean=np.array(res["mean"], np.float64), scale=np.array(res["scale"], np.float64),
                weight=np.array(res["weight"], np.float64), bias=np.array(res["bias"], np.float64))
            if residual is not None and residual.classes != NUM_FACE_CLASSES + 1:
                raise ValueError(f"the correction has {residual.classes} classes, the reader "
                                 f"{NUM_FACE_CLASSES + 1}")
            faces = {str(k): int(v) for k, v in dict(data.get("faces") or {}).items()}
            threshold = data.get("detect_threshold")
            if threshold is not None:
                threshold = float(threshold)
                if not 0 < threshold < 1:
                    raise ValueError("detect_threshold must lie between 0 and 1")
            return cls(classifier_sha256=str(data["classifier_sha256"]), residual=residual,
                       die_side=side, photos=int(data.get("photos", 0)),
                       dice=int(data.get("dice", 0)), negatives=int(data.get("negatives", 0)),
                       faces=faces, source=str(data.get("source", "photos")),
                       detect_threshold=threshold)
        except (KeyError, TypeError, ValueError) as exc:
            raise AdaptationError(f"malformed adaptation: {exc}") from None


def save_adaptation(path: str | Path, adaptation: Adaptation) -> None:
    """Write ``adaptation`` as JSON: whole to a temporary file, then renamed over ``path``,
    so a crash leaves the old file or the new one."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w") as f:
        json.dump(adaptation.to_json(), f)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def load_adaptation(path: str | Path) -> Adaptation:
    """The adaptation in ``path``; AdaptationError with a one-line reason."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise AdaptationError(f"cannot read the adaptation {path}: {exc}") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise AdaptationError(f"{path} is not an adaptation (not JSON: {exc})") from None
    return Adaptation.from_json(data)


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def apply_adaptation(reader: DiceReader, adaptation: Adaptation | None) -> None:
    """Make ``reader`` read with ``adaptation`` (None: as shipped); AdaptationError when it
    was learnt with another classifier."""
    if adaptation is None:
        reader.classifier.adapt(None)
        reader.die_side = None
        reader.detector.threshold = reader.detect_threshold
        return
    have = file_sha256(reader.classifier.path)
    if adaptation.classifier_sha256 != have:
        raise AdaptationError("this adaptation was learnt with another classifier "
                              f"({adaptation.classifier_sha256[:12]}, this one is {have[:12]}); "
                              "run dicetable adapt again")
    try:
        reader.classifier.adapt(adaptation.residual)
    except ValueError as exc:
        raise AdaptationError(str(exc)) from None
    reader.die_side = adaptation.die_side
    reader.detector.threshold = adaptation.detect_threshold or reader.detect_threshold


@dataclass(frozen=True)
class LabelledPhoto:
    """One photo of the table with its dice labelled."""

    image: np.ndarray
    """(H, W, 3) uint8 BGR."""
    boxes: np.ndarray
    """(M, 4) x0, y0, x1, y1 pixels of each labelled die."""
    values: np.ndarray
    """(M,) the face each shows, 1..6."""
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    """(K, 4) pixel boxes of regions to learn nothing from (unreadable dice)."""


@dataclass
class Examples:
    """Crops' features and shipped logits with the class each should read; the views of
    one labelled die share that die's weight (its ``share``)."""

    features: list[np.ndarray] = field(default_factory=list)
    logits: list[np.ndarray] = field(default_factory=list)
    labels: list[np.ndarray] = field(default_factory=list)
    share: list[np.ndarray] = field(default_factory=list)

    def add(self, features: np.ndarray, logits: np.ndarray, label: int) -> None:
        n = len(features)
        self.features.append(features)
        self.logits.append(logits)
        self.labels.append(np.full(n, label, np.int64))
        self.share.append(np.full(n, 1.0 / n))

    def weighted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(features, logits, labels, weights): each die weighs 1 (its views share it); the
        boxes on no die together NEGATIVE_WEIGHT per die, each box alike."""
        labels = np.concatenate(self.labels)
        w = np.concatenate(self.share)
        neg = labels == NOT_A_DIE
        if neg.any():
            w[neg] = NEGATIVE_WEIGHT * w[~neg].sum() / neg.sum()
        return np.concatenate(self.features), np.concatenate(self.logits), labels, w


def _centre_in(xyxy: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(N, M) bool: box n's centre lies inside boxes[m]."""
    c = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    return ((c[:, None, 0] >= boxes[None, :, 0]) & (c[:, None, 0] <= boxes[None, :, 2])
            & (c[:, None, 1] >= boxes[None, :, 1]) & (c[:, None, 1] <= boxes[None, :, 3]))


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) IoU of boxes a[n] and b[m]."""
    lo = np.maximum(a[:, None, :2], b[None, :, :2])
    hi = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=2)
    area_a = np.prod(a[:, 2:] - a[:, :2], axis=1)
    area_b = np.prod(b[:, 2:] - b[:, :2], axis=1)
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-9)


def _views(crops: np.ndarray) -> list[np.ndarray]:
    """The crops in four turns and mirrored: a die's value does not change with either."""
    out = [np.ascontiguousarray(np.rot90(crops, k, axes=(1, 2))) for k in range(4)]
    return out + [np.ascontiguousarray(v[:, :, ::-1]) for v in out]


def photo_examples(reader: DiceReader, photo: LabelledPhoto, out: Examples) -> tuple[int, int]:
    """Add the examples of one photo to ``out``: its labelled dice (the reader's own boxes
    on them and the labels' boxes, in every view) and the reader's boxes on no die. Returns
    (dice, boxes on no die) taken.

    """
    image = normalise_light(photo.image)
    found = reader.candidates(image)
    labels = np.asarray(photo.boxes, np.float64).reshape(-1, 4)
    values = np.asarray(photo.values, np.int64)
    clf = reader.classifier
    n_dice = len(labels)
    if n_dice:
        side = np.max(labels[:, 2:] - labels[:, :2], axis=1)
        xyxy = found.xyxy.astype(np.float64)
        fside = np.max(xyxy[:, 2:] - xyxy[:, :2], axis=1) if len(xyxy) else np.zeros(0)
        inside = _centre_in(xyxy, labels) if len(xyxy) else np.zeros((0, n_dice), bool)
        same = inside & (fside[:, None] * SAME_DIE >= side[None, :]) & (
            fside[:, None] <= side[None, :] * SAME_DIE) & (_iou(xyxy, labels) >= SAME_IOU)
        for j in range(n_dice):
            boxes = np.vstack([labels[j:j + 1], xyxy[same[:, j]]])
            crops = clf.preprocess(image, boxes)
            views = _views(crops)
            logits, feats = zip(*(clf.infer_features(v) for v in views), strict=True)
            f, lg = np.concatenate(feats), np.concatenate(logits)
            out.add(f, lg, int(values[j]) - 1)
        on_die = inside.any(axis=1)
    else:
        on_die = np.zeros(len(found), bool)
    neg = ~on_die
    if len(photo.ignore) and len(found):
        neg &= ~_centre_in(found.xyxy.astype(np.float64), np.asarray(photo.ignore)).any(axis=1)
    idx = np.nonzero(neg)[0]
    n_neg = 0
    if len(idx):
        crops = clf.preprocess(image, found.xyxy[idx])
        logits, feats = clf.infer_features(crops)
        # The boxes the reader would keep are the ones to learn from: most sure of a die.
        p_die = 1 - _softmax(logits)[:, NOT_A_DIE]
        order = np.argsort(-p_die)[:MAX_NEGATIVES]
        n_neg = len(order)
        for i in order:  # each box on no die is an example of its own
            out.add(feats[i:i + 1], logits[i:i + 1], NOT_A_DIE)
    return n_dice, n_neg


def _softmax(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def die_side_range(photos: Iterable[LabelledPhoto]) -> tuple[float, float] | None:
    """The labelled dice's longer side as a share of their photo's longer side, widened by
    :data:`SIDE_MARGIN` each way; None without dice."""
    shares = []
    for p in photos:
        if len(p.boxes):
            b = np.asarray(p.boxes, np.float64)
            shares += list(np.max(b[:, 2:] - b[:, :2], axis=1) / max(p.image.shape[:2]))
    if not shares:
        return None
    return float(min(shares) / SIDE_MARGIN), float(min(1.0, max(shares) * SIDE_MARGIN))


def pull_for(dice: int) -> np.ndarray:
    """:data:`PULL` for a fit on ``dice`` labelled dice (see :data:`NOT_A_DIE_DICE`)."""
    pull = PULL.copy()
    pull[NOT_A_DIE] = max(float(PULL[NOT_A_DIE]), NOT_A_DIE_DICE / max(dice, 1))
    return pull


def learn_adaptation(reader: DiceReader, photos: list[LabelledPhoto],
                     learn_scale: bool = True,
                     detect_threshold: float | None = ADAPTED_THRESHOLD) -> Adaptation:
    """Fit an adaptation to labelled photos of one table (the reader itself unchanged
    afterwards). ``learn_scale``: also keep the dice's size; False for photos taken at
    sizes the later ones will not share. ``detect_threshold``: the detector's threshold the
    adapted reader reads with (its boxes on no die at that threshold are learnt from).
    """
    if not reader.classifier.has_features:
        raise AdaptationError(f"the classifier {reader.classifier.path.name} has no features "
                              "output to adapt from; reinstall dicetable")
    saved = reader.classifier.residual, reader.die_side, reader.detector.threshold
    reader.classifier.adapt(None)
    side = die_side_range(photos) if learn_scale else None
    reader.die_side = side  # negatives from the scales the adapted reader will look at
    reader.detector.threshold = detect_threshold or reader.detect_threshold
    ex = Examples()
    n_dice = n_neg = 0
    faces: dict[str, int] = {}
    try:
        for p in photos:
            d, n = photo_examples(reader, p, ex)
            n_dice += d
            n_neg += n
            for v in np.asarray(p.values, np.int64):
                faces[str(int(v))] = faces.get(str(int(v)), 0) + 1
    finally:
        reader.classifier.adapt(saved[0])
        reader.die_side = saved[1]
        reader.detector.threshold = saved[2]
    if n_dice == 0:
        raise AdaptationError("the photos have no labelled dice to learn from")
    feats, logits, labels, w = ex.weighted()
    residual = fit_residual(feats, logits, labels, w, l2=pull_for(n_dice),
                            free_bias=FREE_BIAS)
    return Adaptation(classifier_sha256=file_sha256(reader.classifier.path), residual=residual,
                      die_side=side, photos=len(photos), dice=n_dice, negatives=n_neg,
                      faces=dict(sorted(faces.items())), detect_threshold=detect_threshold)
