"""K-fold validation over the real-dice train split: recipes ranked on 1487 dice, not 264.

The 200 train photos are cut into 5 folds of 40 (fold 0 is ``val_photo_names(40)``, the
validation photos of the earlier runs; the other 160 shuffled, seeded). A recipe is trained
once per fold without that fold's photos and read on them; the five readings together give
every train die an out-of-fold reading, so two recipes can be compared die by die.

Per photo this module caches (``runs/cache``): the training samples a recipe draws from
(jittered crops of the labelled dice, background crops, the detector's false alarms) and the
crops the reader would read (the detector's own boxes, each matched to a label or not), so
scoring a classifier on a fold takes seconds and never touches the detector again.
Scoring follows ``vision.dice.reader.DiceReader`` step by step: a second look in all four turns
below ``SECOND_LOOK_BELOW``, boxes dropped when P(not a die) >= ``NOT_A_DIE_DROP``.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from models.training.dice import cache as cache_file
from models.training.dice.dataset import (
    Samples,
    detector_box_crops,
    jitter_boxes,
    label_fixes,
    read_photo,
    real_images,
    samples_from_image,
    val_photo_names,
)
from vision.dice.classifier import NOT_A_DIE, FaceClassifier, crop_dice
from vision.dice.detections import Detections
from vision.dice.reader import NOT_A_DIE_DROP, SECOND_LOOK_BELOW
from vision.measure.evaluate import match

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[3]
N_FOLDS = 5
#: Bump when what is cached per photo changes (2: train labels corrected by LABEL_FIXES;
#: 3: crops round the detector's own boxes, ``Photo.box_crops``).
CACHE_VERSION = 3
#: Jittered crops per labelled die round the detector's box of it, kept per photo.
BOX_COPIES = 4


@dataclass
class Photo:
    """One real train photo: what training may draw from it and what the reader would see."""

    name: str
    train_crops: np.ndarray
    """(M, S, S, 3) uint8 crops to train on (labelled dice, background, false alarms)."""
    train_labels: np.ndarray
    """(M,) classes of ``train_crops``."""
    read_crops: np.ndarray
    """(D, S, S, 3) uint8 crops of the detector's boxes, as the reader cuts them."""
    truth: np.ndarray
    """(D,) pip value 1..6 of the label each detection matched, 0 for a detection of no die."""
    label_index: np.ndarray
    """(D,) index of that label in the photo's label file, -1 for none."""
    n_labels: int
    box_crops: np.ndarray | None = None
    """(K, S, S, 3) uint8 crops round the detector's own boxes of labelled dice
    (``dataset.detector_box_crops``, ``BOX_COPIES`` per die), for recipes that train on them."""
    box_labels: np.ndarray | None = None
    """(K,) classes of ``box_crops``."""
    box_copy: np.ndarray | None = None
    """(K,) which of the ``BOX_COPIES`` jittered copies each box crop is (a recipe takes the
    first n)."""


def fold_of(seed: int = 0) -> dict[str, int]:
    """Photo name -> fold 0..4 (fold 0: the 40 seeded validation photos)."""
    names = sorted(it[0].name for it in _train_items())
    val = val_photo_names(40, seed)
    rest = [n for n in names if n not in val]
    order = np.random.default_rng([seed, 4321]).permutation(len(rest))
    out = dict.fromkeys(val, 0)
    for k, i in enumerate(order):
        out[rest[i]] = 1 + k % (N_FOLDS - 1)
    return out


def _train_items() -> list:
    return real_images("train")


def _photo(path: Path, boxes: np.ndarray, classes: np.ndarray, detector: object, size: int,
           seed: int) -> Photo:
    img = read_photo(path)
    # One seed per photo: a photo's samples do not depend on which others are in the fold.
    digest = hashlib.sha256(path.name.encode()).digest()
    rng = np.random.default_rng([seed, int.from_bytes(digest[:4], "little")])
    s = samples_from_image(img, boxes, classes, rng, 6, 8, size)
    found = detector(img)  # type: ignore[operator]
    pairs = dict(match(found.xyxy, boxes))
    truth = np.array([int(classes[pairs[p]]) + 1 if p in pairs else 0
                      for p in range(len(found))], np.int64)
    label_index = np.array([pairs.get(p, -1) for p in range(len(found))], np.int64)
    # The detector's false alarms (not near any label) are hard negatives, as in training.
    crops, labels = list(s.crops), list(s.labels)
    if len(found):
        c = found.center
        w = (boxes[:, 2:] - boxes[:, :2]) * 0.25
        near = ((c[:, None, :] >= boxes[None, :, :2] - w) & (c[:, None, :] <= boxes[None, :, 2:]
                                                             + w)).all(axis=2).any(axis=1)
        neg = found.xyxy[~near].astype(np.float64)
        for _ in range(3):
            if len(neg):
                crops += list(crop_dice(img, jitter_boxes(neg, rng, 0.05), size))
                labels += [NOT_A_DIE] * len(neg)
    read = crop_dice(img, found.xyxy, size) if len(found) else np.zeros((0, size, size, 3),
                                                                         np.uint8)
    box = detector_box_crops(img, found.xyxy, boxes, classes, rng, BOX_COPIES, size)
    per_copy = len(box.labels) // BOX_COPIES  # copy by copy, as detector_box_crops promises
    box_crops = np.stack(box.crops) if box.crops else np.zeros((0, size, size, 3), np.uint8)
    return Photo(path.name, np.stack(crops), np.array(labels, np.int64), read, truth,
                 label_index, len(boxes), box_crops, np.array(box.labels, np.int64),
                 np.repeat(np.arange(BOX_COPIES), per_copy))


def load_photos(detector_path: Path, size: int = 48, seed: int = 0) -> list[Photo]:
    """Every train photo's samples and reader crops (cached per detector file and size)."""
    from vision.dice.detector import DiceDetector

    # The photos' labels are cached too: a new label fix must not be read from an old cache.
    fixes = repr(sorted(label_fixes("train").items())).encode()
    tag = hashlib.sha256(Path(detector_path).read_bytes() + fixes).hexdigest()[:10]
    cache = REPO / "runs" / "cache" / f"folds_v{CACHE_VERSION}_seed{seed}_px{size}_{tag}.pkl"
    if cache.exists():
        return cache_file.load(cache)
    det = DiceDetector(detector_path, faint=None)
    photos = [_photo(p, b, c, det, size, seed)
              for p, b, c in tqdm(_train_items(), desc="real train photos", unit="photo")]
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache, "wb") as f:
        pickle.dump(photos, f, protocol=pickle.HIGHEST_PROTOCOL)
    return photos


def training_samples(photos: list[Photo], box_copies: int = 0) -> Samples:
    """The training crops of these photos (no detector images: the classifier's data only),
    with ``box_copies`` of the crops round the detector's boxes of each die."""
    out = Samples()
    for ph in photos:
        out.crops += list(ph.train_crops)
        out.labels += ph.train_labels.tolist()
        if box_copies and ph.box_crops is not None and ph.box_copy is not None \
                and ph.box_labels is not None:
            take = ph.box_copy < box_copies
            out.crops += list(ph.box_crops[take])
            out.labels += ph.box_labels[take].tolist()
    return out


def read_like_the_reader(logits_of: Callable[[np.ndarray], np.ndarray], crops: np.ndarray,
                         second_look_below: float = SECOND_LOOK_BELOW
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(value 0..6, its probability, kept) per crop, the reader's steps on ``logits_of``."""
    if len(crops) == 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, bool)
    faces, not_die = FaceClassifier.postprocess(logits_of(crops))
    unsure = np.nonzero(faces.max(axis=1) < second_look_below)[0]
    if len(unsure):
        sub = crops[unsure]
        turned = np.concatenate([np.rot90(sub, k, axes=(1, 2)) for k in (1, 2, 3)])
        f, nd = FaceClassifier.postprocess(logits_of(np.ascontiguousarray(turned)))
        n = len(unsure)
        faces[unsure] = (faces[unsure] + f.reshape(3, n, -1).sum(axis=0)) / 4
        not_die[unsure] = (not_die[unsure] + nd.reshape(3, n).sum(axis=0)) / 4
    faces = faces / faces.sum(axis=1, keepdims=True)
    det = Detections(xyxy=np.zeros((len(crops), 4)), confidence=np.ones(len(crops)),
                     face_probs=faces)
    return det.value, det.value_probability, not_die < NOT_A_DIE_DROP


def score_photos(photos: list[Photo], logits_of: Callable[[np.ndarray], np.ndarray],
                 second_look_below: float = SECOND_LOOK_BELOW) -> dict:
    """Read accuracy, image_exact and every wrong die ("photo#label": [truth, read, p])."""
    dice = right = exact = extra = 0
    wrong: dict[str, list] = {}
    for ph in photos:
        value, prob, kept = read_like_the_reader(logits_of, ph.read_crops, second_look_below)
        ok = 0
        for d in range(len(ph.read_crops)):
            if not kept[d]:
                continue
            if ph.truth[d] == 0:
                extra += 1
            elif value[d] == ph.truth[d]:
                ok += 1
            else:
                wrong[f"{ph.name}#{ph.label_index[d]}"] = [int(ph.truth[d]), int(value[d]),
                                                           round(float(prob[d]), 3)]
        found = {int(ph.label_index[d]) for d in range(len(kept)) if kept[d] and
                 ph.truth[d] > 0}
        for j in range(ph.n_labels):
            if j not in found:
                wrong[f"{ph.name}#{j}"] = [None, None, 0.0]  # missed: detector or dropped
        dice += ph.n_labels
        right += ok
        exact += int(ok == ph.n_labels and int(kept.sum()) == ph.n_labels)
    return {"images": len(photos), "dice": dice, "read_accuracy": right / max(dice, 1),
            "image_exact": exact / max(len(photos), 1), "errors": dice - right,
            "extra": extra, "wrong": dict(sorted(wrong.items()))}
