"""Accuracy of the reader on a folder of YOLO-labelled photos (``images/`` + ``labels/``).

A predicted die matches a labelled one when its centre falls inside the label's box, one
to one (closest centres first). The metric names are those of DESIGN.md; ``ece`` adds the
calibration error of the reported value's probability over matched dice.

A folder may list regions to ignore in ``unlabelled.csv`` (``image, kind, x_center_px,
y_center_px, width_px, height_px``): dice left unlabelled on purpose because their top face
cannot be read, or d6 with numerals instead of pips. A prediction there counts neither as
right nor as a box on no die. Rows of kind ``non-d6`` (RPG dice) are not ignored: a d6
reader must not report them, so a box on one is a box on no die.
"""

from __future__ import annotations

import csv
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.dice.detections import Detections
from vision.imageio import load_image

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
#: The file of regions to ignore, and the kinds in it that are not ignored (see above).
IGNORE_FILE = "unlabelled.csv"
NOT_IGNORED_KINDS = frozenset({"non-d6"})


class DatasetError(ValueError):
    """The folder is not a labelled dataset, or the split does not exist."""


@dataclass(frozen=True, slots=True)
class Labelled:
    """One labelled photo."""

    image: Path
    boxes: np.ndarray
    """(M, 4) YOLO boxes: centre x, centre y, width, height, normalised to the image."""
    values: np.ndarray
    """(M,) pip values 1..6."""
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    """(K, 4) regions to ignore: centre x, centre y, width, height in pixels; a width or
    height of 0 is unknown (then the photo's median labelled die side)."""

    def xyxy(self, width: int, height: int) -> np.ndarray:
        """The boxes as (M, 4) x0, y0, x1, y1 pixels of a ``width`` x ``height`` photo."""
        b = self.boxes * np.array([width, height, width, height])
        return np.column_stack([b[:, :2] - b[:, 2:] / 2, b[:, :2] + b[:, 2:] / 2])

    def ignore_xyxy(self, width: int, height: int) -> np.ndarray:
        """The regions to ignore as (K, 4) pixel corners."""
        if len(self.ignore) == 0:
            return np.zeros((0, 4))
        if len(self.boxes):
            side = float(np.median(np.maximum(self.boxes[:, 2] * width,
                                              self.boxes[:, 3] * height)))
        else:
            side = 0.05 * max(width, height)
        c, wh = self.ignore[:, :2], self.ignore[:, 2:].copy()
        wh[wh <= 0] = side
        return np.column_stack([c - wh / 2, c + wh / 2])


def match(pred_xyxy: np.ndarray, label_xyxy: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one (pred, label) pairs whose prediction centre lies inside the label box."""
    if len(pred_xyxy) == 0 or len(label_xyxy) == 0:
        return []
    pc = (pred_xyxy[:, :2] + pred_xyxy[:, 2:]) / 2
    lc = (label_xyxy[:, :2] + label_xyxy[:, 2:]) / 2
    lb = label_xyxy[None]
    inside = ((pc[:, None, 0] >= lb[..., 0]) & (pc[:, None, 0] <= lb[..., 2])
              & (pc[:, None, 1] >= lb[..., 1]) & (pc[:, None, 1] <= lb[..., 3]))
    dist = np.linalg.norm(pc[:, None] - lc[None], axis=2)
    pairs = []
    used_p, used_l = set(), set()
    for flat in np.argsort(np.where(inside, dist, np.inf), axis=None):
        p, lab = np.unravel_index(flat, dist.shape)
        if not inside[p, lab]:
            break
        if p in used_p or lab in used_l:
            continue
        used_p.add(int(p))
        used_l.add(int(lab))
        pairs.append((int(p), int(lab)))
    return pairs


def list_dataset(root: str | Path, split: str | None = None) -> list[Labelled]:
    """Labelled photos of a folder with images/ and labels/ (YOLO: class x y w h, normalised)."""
    root = Path(root)
    if not (root / "images").is_dir() or not (root / "labels").is_dir():
        raise DatasetError(f"{root} has no images/ and labels/ folders (YOLO layout expected)")
    names = sorted(p.name for p in (root / "images").iterdir()
                   if p.suffix.lower() in IMAGE_SUFFIXES)
    if split is not None:
        manifest = root / "manifest.csv"
        if not manifest.is_file():
            raise DatasetError(f"--split needs {manifest} with a split_in_source column")
        with open(manifest, newline="") as f:
            rows = list(csv.DictReader(f))
        if not rows or "split_in_source" not in rows[0]:
            raise DatasetError(f"{manifest} has no split_in_source column")
        keep = {r["image"] for r in rows if r["split_in_source"] == split}
        if not keep:
            splits = sorted({r["split_in_source"] for r in rows})
            raise DatasetError(f"no images in split {split!r}; the splits are {splits}")
        names = [n for n in names if n in keep]
    ignore = read_ignore_regions(root / IGNORE_FILE)
    out = []
    for name in names:
        label = root / "labels" / (Path(name).stem + ".txt")
        table = np.loadtxt(label, ndmin=2) if label.is_file() and label.stat().st_size else \
            np.zeros((0, 5))
        out.append(Labelled(root / "images" / name, table[:, 1:5].copy(),
                            table[:, 0].astype(np.int64) + 1,
                            ignore.get(name, np.zeros((0, 4)))))
    return out


def read_ignore_regions(path: Path) -> dict[str, np.ndarray]:
    """Image name -> (K, 4) regions to ignore (centre, size; 0 unknown), from ``path`` if it
    exists (see the module docstring); DatasetError if malformed."""
    if not path.is_file():
        return {}
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DatasetError(f"cannot read the regions to ignore {path}: {exc}") from None
    out: dict[str, list[list[float]]] = {}
    for line, r in enumerate(rows, start=2):
        if r.get("kind") in NOT_IGNORED_KINDS:
            continue
        try:
            region = [float(r["x_center_px"]), float(r["y_center_px"]),
                      float(r.get("width_px") or 0), float(r.get("height_px") or 0)]
        except (KeyError, TypeError, ValueError):
            raise DatasetError(f"{path} line {line}: x_center_px and y_center_px must be "
                               "numbers") from None
        out.setdefault(r.get("image") or "", []).append(region)
    return {name: np.array(v, np.float64) for name, v in out.items()}


@dataclass(frozen=True, slots=True)
class LabelFix:
    """A die the source labels with one value while its photo shows another."""

    image: str
    die_index: int
    in_source: int
    seen: int
    what: str


FIX_COLUMNS = ("image", "die_index", "pip_value_in_source", "pip_value_seen", "what")


def read_label_fixes(path: str | Path) -> list[LabelFix]:
    """The rows of a label-fix CSV (columns ``FIX_COLUMNS``); DatasetError if malformed."""
    path = Path(path)
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DatasetError(f"cannot read the label fixes {path}: {exc}") from None
    if rows and not set(FIX_COLUMNS) <= set(rows[0]):
        raise DatasetError(f"{path} needs the columns {', '.join(FIX_COLUMNS)}")
    fixes = []
    for line, r in enumerate(rows, start=2):
        try:
            fix = LabelFix(r["image"], int(r["die_index"]), int(r["pip_value_in_source"]),
                           int(r["pip_value_seen"]), r["what"] or "")
        except (TypeError, ValueError):
            raise DatasetError(f"{path} line {line}: die_index and the pip values must be "
                               "whole numbers") from None
        if fix.die_index < 0 or not {fix.in_source, fix.seen} <= set(range(1, 7)):
            raise DatasetError(f"{path} line {line}: pip values are 1..6, the index >= 0")
        fixes.append(fix)
    return fixes


def fix_labels(items: Iterable[Labelled], fixes: Iterable[LabelFix]
               ) -> tuple[list[Labelled], int]:
    """``items`` with the fixed dice relabelled, and how many fixes applied.

    A fix for a photo not among ``items`` (another split) is skipped; one that names a die
    the folder labels otherwise is a DatasetError, so a fix list never silently rewrites
    another set whose photos happen to share a name.
    """
    by_image: dict[str, list[LabelFix]] = {}
    for fix in fixes:
        by_image.setdefault(fix.image, []).append(fix)
    out, applied = [], 0
    for item in items:
        todo = by_image.get(item.image.name)
        if not todo:
            out.append(item)
            continue
        values = item.values.copy()
        for fix in todo:
            if fix.die_index >= len(values) or values[fix.die_index] != fix.in_source:
                have = (f"labels {int(values[fix.die_index])}" if fix.die_index < len(values)
                        else f"has {len(values)} dice")
                raise DatasetError(f"label fix for {fix.image} die {fix.die_index} expects "
                                   f"{fix.in_source} in the source, but the folder {have}")
            values[fix.die_index] = fix.seen
            applied += 1
        out.append(Labelled(item.image, item.boxes, values, item.ignore))
    return out, applied


def _calibration_error(conf: np.ndarray, right: np.ndarray, bins: int = 15) -> float:
    edges = np.linspace(0, 1, bins + 1)
    err = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            err += m.mean() * abs(right[m].mean() - conf[m].mean())
    return float(err)


def evaluate(items: Iterable[Labelled], read: Callable[[np.ndarray], Detections],
             progress: Callable[[Iterable], Iterable] = lambda x: x) -> dict:
    """Run ``read`` on every photo and score it (see the module docstring).

    Besides DESIGN.md's metrics: ``extra`` boxes on no die (matching no labelled die and no
    region to ignore), ``extra_share`` their share of the boxes not ignored, ``ignored`` the
    boxes in regions to ignore (not counted in ``precision`` either); ``unsure`` the dice
    found whose value was reported unsure (``Detections.unsure``), ``sure_wrong`` those read
    wrong without being reported unsure: the misreads a player would trust."""
    n_img = n_dice = n_pred = n_match = n_right = n_exact = n_ignored = 0
    n_unsure = n_sure_wrong = 0
    times: list[float] = []
    conf_all: list[float] = []
    right_all: list[bool] = []
    for item in progress(list(items)):
        img = load_image(item.image)
        h, w = img.shape[:2]
        labels = item.xyxy(w, h)
        t = time.perf_counter()
        det = read(img)
        times.append((time.perf_counter() - t) * 1000)
        pairs = match(det.xyxy, labels)
        ignored = _ignored(det, {p for p, _ in pairs}, item.ignore_xyxy(w, h))
        values, probs = det.value, det.value_probability
        right = [values[p] == item.values[lab] for p, lab in pairs]
        unsure = det.unsure
        n_unsure += sum(int(unsure[p]) for p, _ in pairs)
        n_sure_wrong += sum(int(not unsure[p] and not ok)
                            for (p, _), ok in zip(pairs, right, strict=True))
        conf_all += [float(probs[p]) for p, _ in pairs]
        right_all += right
        n_img += 1
        n_dice += len(labels)
        n_pred += len(det)
        n_ignored += ignored
        n_match += len(pairs)
        n_right += int(sum(right))
        n_exact += int(sum(right) == len(labels) and len(det) - ignored == len(labels))
    counted = n_pred - n_ignored
    return {
        "images": n_img,
        "dice": n_dice,
        "detected_recall": n_match / n_dice if n_dice else 0.0,
        "precision": n_match / counted if counted else 0.0,
        "value_accuracy": n_right / n_match if n_match else 0.0,
        "read_accuracy": n_right / n_dice if n_dice else 0.0,
        "image_exact": n_exact / n_img if n_img else 0.0,
        "ms_per_image": float(np.mean(times)) if times else 0.0,
        "predicted": n_pred,
        "ece": _calibration_error(np.array(conf_all), np.array(right_all)) if conf_all else 0.0,
        "extra": counted - n_match,
        "extra_share": (counted - n_match) / counted if counted else 0.0,
        "ignored": n_ignored,
        "unsure": n_unsure,
        "sure_wrong": n_sure_wrong,
    }


def _ignored(det: Detections, matched: set[int], regions: np.ndarray) -> int:
    """How many predictions matching no labelled die have their centre in a region to
    ignore."""
    if len(regions) == 0 or len(det) == 0:
        return 0
    c = det.center
    inside = ((c[:, None, 0] >= regions[None, :, 0]) & (c[:, None, 0] <= regions[None, :, 2])
              & (c[:, None, 1] >= regions[None, :, 1]) & (c[:, None, 1] <= regions[None, :, 3]))
    return sum(1 for i in np.nonzero(inside.any(axis=1))[0] if int(i) not in matched)
