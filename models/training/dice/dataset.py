"""Training data: synthetic scenes from ``vision.synth.scenes`` plus the real-dice train split.

Each scene gives one detector sample (the image exactly as the detector's preprocess makes
it, with boxes in those pixels) and classifier crops cut by the runtime's own ``crop_dice``
around jittered truth boxes (the detector is never pixel-perfect), plus "not a die" crops
from places with no die. Real photos are used only when their split is ``train``.
"""

from __future__ import annotations

import csv
import logging
import os
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from vision.dice.classifier import CROP_PX, NOT_A_DIE, crop_dice
from vision.dice.detections import FACE_SYMBOL, FACE_UNREADABLE
from vision.dice.detector import preprocess_image
from vision.measure.evaluate import match, read_label_fixes
from vision.synth.renderer import Rendered, Scene
from vision.synth.scenes import random_render

logger = logging.getLogger(__name__)

SIZES = ((640, 640), (640, 480), (480, 640), (800, 600), (512, 512))
#: Share of synthetic scenes that also hold catalogued custom dice, and their share of the
#: dice in such a scene (the detector must find IceDice / Quarriors / skull dice too).
TYPED_SCENES = 0.25
TYPED_RATE = 0.35


@dataclass
class Samples:
    det_images: list[np.ndarray] = field(default_factory=list)
    det_boxes: list[np.ndarray] = field(default_factory=list)
    crops: list[np.ndarray] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)

    def extend(self, other: Samples) -> None:
        self.det_images += other.det_images
        self.det_boxes += other.det_boxes
        self.crops += other.crops
        self.labels += other.labels



def read_photo(path: Path) -> np.ndarray:
    """A labelled photo (BGR uint8); FileNotFoundError naming it when it cannot be read."""
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(f"{path}: not an image OpenCV can read")
    return img

def jitter_boxes(boxes: np.ndarray, rng: np.random.Generator, amount: float = 0.1
                 ) -> np.ndarray:
    """Shift and rescale boxes the way an imperfect detector would."""
    wh = boxes[:, 2:] - boxes[:, :2]
    c = (boxes[:, :2] + boxes[:, 2:]) / 2 + rng.normal(0, amount, (len(boxes), 2)) * wh
    wh = wh * np.exp(rng.normal(0, amount, (len(boxes), 2)))
    return np.concatenate([c - wh / 2, c + wh / 2], axis=1)


def background_boxes(image_shape: tuple[int, ...], boxes: np.ndarray, n: int,
                     rng: np.random.Generator) -> np.ndarray:
    """Die-sized boxes whose centres are not inside any die (for the 'not a die' class)."""
    h, w = image_shape[:2]
    med = float(np.median(boxes[:, 2:] - boxes[:, :2])) if len(boxes) else 40.0
    out: list[list[float]] = []
    for _ in range(n * 10):
        if len(out) >= n:
            break
        s = med * rng.uniform(0.6, 1.6)
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        if len(boxes):
            # Centre well away from every die: a crop half on a die is still "a die".
            inside = (np.abs(cx - (boxes[:, 0] + boxes[:, 2]) / 2) < (boxes[:, 2] - boxes[:, 0])
                      * 0.75) & (np.abs(cy - (boxes[:, 1] + boxes[:, 3]) / 2) <
                                 (boxes[:, 3] - boxes[:, 1]) * 0.75)
            if inside.any():
                continue
        out.append([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2])
    return np.array(out, np.float64).reshape(-1, 4)


def samples_from_image(image: np.ndarray, boxes: np.ndarray, classes: np.ndarray,
                       rng: np.random.Generator, crops_per_die: int, bg_per_image: int,
                       size: int = CROP_PX) -> Samples:
    s = Samples()
    small, lb = preprocess_image(image)
    s.det_images.append(small)
    s.det_boxes.append((boxes * lb.scale).astype(np.float32))
    for _ in range(crops_per_die):
        jb = jitter_boxes(boxes, rng)
        s.crops += list(crop_dice(image, jb, size))
        s.labels += [int(c) for c in classes]
    bg = background_boxes(image.shape, boxes, bg_per_image, rng)
    if len(bg):
        s.crops += list(crop_dice(image, bg, size))
        s.labels += [NOT_A_DIE] * len(bg)
    return s


def detector_box_crops(image: np.ndarray, found_xyxy: np.ndarray, boxes: np.ndarray,
                       classes: np.ndarray, rng: np.random.Generator, copies: int,
                       size: int = CROP_PX) -> Samples:
    """Crops cut round the detector's own boxes of labelled dice, with the label's class.

    The reader cuts its crops from the detector's boxes, not from labels: on a tilted die
    the detector often boxes the top face only (a third smaller than the label, which holds
    the sides), and a classifier that saw only label-sized crops loses a pip at the crop's
    edge (a white 3 read as 2 from its 22-px box, 3 at p 1.0 from its 33-px label). Training
    on the boxes the reader will cut, jittered a little, teaches those scales.

    The crops come copy by copy (all matched dice of copy 0, then of copy 1, ...), each copy
    in the same order of dice: ``folds._photo`` tags them by copy on that order.
    """
    s = Samples()
    pairs = match(found_xyxy, boxes)
    if not pairs or copies <= 0:
        return s
    det = np.asarray(found_xyxy, np.float64)[[p for p, _ in pairs]]
    cls = [int(classes[j]) for _, j in pairs]
    for _ in range(copies):
        s.crops += list(crop_dice(image, jitter_boxes(det, rng, 0.05), size))
        s.labels += cls
    return s


def classifier_classes(scene: Scene, r: Rendered) -> np.ndarray:
    """The classifier's class of each rendered die.

    A custom die's face counts as its pip value when it shows pips and as a symbol
    otherwise (a colour, a pictogram, a Quarriors face): the pip reader reports it as a symbol.
    """
    out = r.face_class.copy()
    for k, i in enumerate(r.die_index):
        dtype = scene.dice[int(i)].die_type
        if dtype is None or out[k] == FACE_UNREADABLE:
            continue
        face = dtype.faces[scene.dice[int(i)].value - 1]
        pips = face.look_dict().get("kind") == "pips" and face.label.isdigit()
        out[k] = int(face.label) - 1 if pips else FACE_SYMBOL
    return out


def _synthetic_one(job: tuple[int, int]) -> Samples:
    seed, size = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    w, h = SIZES[int(rng.integers(len(SIZES)))]
    die_px = (14, 60) if rng.random() < 0.7 else (30, 130)
    typed = TYPED_RATE if rng.random() < TYPED_SCENES else 0.0
    scene, r = random_render(rng, width=w, height=h, die_px=die_px, n_dice=(1, 30),
                             typed_rate=typed)
    return samples_from_image(r.image, r.boxes.astype(np.float64), classifier_classes(scene, r),
                              rng, 2, 4, size)


def synthetic(n_scenes: int, seed: int, workers: int = 2, size: int = CROP_PX) -> Samples:
    """Samples from ``n_scenes`` random scenes; scene i uses seed (seed, i).

    Crops are cut at ``size`` px from the full-resolution render (as the reader cuts them).
    """
    seeds = [int(np.random.SeedSequence([seed, i]).generate_state(1)[0]) for i in range(n_scenes)]
    out = Samples()
    with Pool(workers) as pool:
        for s in tqdm(pool.imap(_synthetic_one, [(sd, size) for sd in seeds], chunksize=8),
                      total=n_scenes,
                      desc="synthetic scenes", unit="scene"):
            out.extend(s)
    return out


def hard_negatives(images: list[np.ndarray], boxes: list[np.ndarray], detector_path: Path,
                   rng: np.random.Generator, copies: int = 2, size: int = CROP_PX) -> Samples:
    """'Not a die' crops where a trained detector fires but no die is labelled.

    These are the look-alikes a detector really confuses with dice (round magnets, buttons,
    printed dots...), far more useful negatives than random background.
    """
    from vision.dice.detector import DiceDetector

    det = DiceDetector(detector_path, threshold=0.2)
    out = Samples()
    for img, bx in tqdm(list(zip(images, boxes, strict=True)), desc="hard negatives",
                        unit="image"):
        found = det(img)
        if len(found) == 0:
            continue
        c = found.center
        if len(bx):
            # Generous: a detection anywhere near a labelled die is not a negative.
            w = (bx[:, 2:] - bx[:, :2]) * 0.25
            near = ((c[:, None, :] >= bx[None, :, :2] - w) & (c[:, None, :] <= bx[None, :, 2:]
                                                               + w)).all(axis=2).any(axis=1)
            neg = found.xyxy[~near]
        else:
            neg = found.xyxy
        for _ in range(copies):
            if len(neg):
                jb = jitter_boxes(neg.astype(np.float64), rng, 0.05)
                out.crops += list(crop_dice(img, jb, size))
                out.labels += [NOT_A_DIE] * len(neg)
    return out


def shared_dir() -> Path:
    """The shared third-party data folder (env DICETABLE_SHARED, else ../shared)."""
    env = os.environ.get("DICETABLE_SHARED")
    return Path(env) if env else Path(__file__).resolve().parents[4] / "shared"


#: Dice whose label in the source disagrees with the photo (each seen by eye at full size).
#: Training and the k-fold validation use the value seen for the train split's; the test
#: split's rows are for ``dicetable eval --label-fixes`` only; training never reads test
#: photos. Every die of both splits was looked at (``models.training.dice.label_audit``).
LABEL_FIXES = Path(__file__).resolve().parents[2] / "real_dice_fixes.csv"


def label_fixes(split: str) -> dict[tuple[str, int], tuple[int, int]]:
    """(image name, die index) -> (class in the source, class seen) for ``train``, else {}."""
    if split != "train":
        return {}
    with open(shared_dir() / "data" / "real-dice" / "manifest.csv", newline="") as f:
        train = {r["image"] for r in csv.DictReader(f) if r["split_in_source"] == "train"}
    return {(x.image, x.die_index): (x.in_source - 1, x.seen - 1)
            for x in read_label_fixes(LABEL_FIXES) if x.image in train}


def real_images(split: str, root: Path | None = None
                ) -> list[tuple[Path, np.ndarray, np.ndarray]]:
    """(image path, boxes xyxy pixels, classes) of the real-dice photos of one split
    (train-split labels corrected by ``LABEL_FIXES``)."""
    root = root or shared_dir() / "data" / "real-dice"
    with open(root / "manifest.csv", newline="") as f:
        names = sorted({r["image"] for r in csv.DictReader(f) if r["split_in_source"] == split})
    fixes = label_fixes(split)
    out = []
    for name in names:
        img = read_photo(root / "images" / name)
        h, w = img.shape[:2]
        rows = np.loadtxt(root / "labels" / (Path(name).stem + ".txt"), ndmin=2)
        for (fixed_name, j), (was, seen) in fixes.items():
            if fixed_name == name:
                if int(rows[j, 0]) != was:
                    raise ValueError(f"{LABEL_FIXES.name}: {name} die {j} is "
                                     f"{int(rows[j, 0]) + 1} in the source, not {was + 1}")
                rows[j, 0] = seen
        c, x, y, bw, bh = rows.T
        boxes = np.stack([(x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w,
                          (y + bh / 2) * h], axis=1)
        out.append((root / "images" / name, boxes, c.astype(np.int64)))
    return out


def val_photo_names(n: int, seed: int = 0) -> set[str]:
    """Names of ``n`` train-split photos held out for validation (seeded, by photo).

    Every decision (recipe, thresholds) is made on these; the test split is only reported.
    """
    if n <= 0:
        return set()
    with open(shared_dir() / "data" / "real-dice" / "manifest.csv", newline="") as f:
        names = sorted({r["image"] for r in csv.DictReader(f) if r["split_in_source"] == "train"})
    pick = np.random.default_rng([seed, 1234]).choice(len(names), n, replace=False)
    return {names[i] for i in sorted(pick)}


def real_train(seed: int, crops_per_die: int = 6, exclude: set[str] | frozenset = frozenset(),
               size: int = CROP_PX, detector_path: Path | None = None,
               detector_copies: int = 0) -> Samples:
    """Samples from the real-dice train split (an honest symbol/1 label stays a 1).

    Photos named in ``exclude`` (the validation photos) are left out. With a detector and
    ``detector_copies`` > 0 each die also gives that many crops round the detector's own
    box of it (``detector_box_crops``); its detector image is kept either way.
    """
    rng = np.random.default_rng(seed)
    out = Samples()
    det = None
    if detector_path is not None and detector_copies > 0:
        from vision.dice.detector import DiceDetector

        det = DiceDetector(detector_path, faint=None)
    items = [it for it in real_images("train") if it[0].name not in exclude]
    for path, boxes, classes in tqdm(items, desc="real train photos", unit="photo"):
        img = read_photo(path)
        out.extend(samples_from_image(img, boxes, classes, rng, crops_per_die, 8, size))
        if det is not None:
            out.extend(detector_box_crops(img, det(img).xyxy, boxes, classes, rng,
                                          detector_copies, size))
    return out
