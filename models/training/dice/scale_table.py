"""The real test photos at other scales: zoomed in (close-ups) and tiled (a phone's photo
of a whole table), read with the main pass alone and with every pass (``vision.dice.scales``).

Usage::

    python -m models.training.dice.scale_table [--json] [--models DIR] [--rows 20,40,3x3]
        [--split test|train]

Rows (the model card's table of scales; ``tests/vision/test_scales.py`` checks two of them
with floors):

- ``as-published``: the 50 test photos as they are (dice about 6 % of the width);
- ``15`` ... ``50`` (% of the photo): every third test die cut out with its neighbourhood
  so that it is that share of a 640-px square photo (cubic upscale); the dice wholly inside
  are scored;
- ``shrink-66``, ``shrink-55``: each test photo shrunk to that % and set in the corner of
  a 640-px photo filled with its median colour (dice of about 4 / 3.4 % of the width: 21 /
  18 px at the main pass, the bottom of the detector's range, where the bench's camera
  frames are);
- ``2x2`` ... ``4x4``: n x n test photos side by side (640 px each), in order, as many whole
  groups as the 50 photos make;
- ``render-90`` ... ``render-160``: 60 rendered 640 x 480 photos of one die of that many px
  (``vision.synth.scenes.random_render``: random looks, tables, tilts up to 30 degrees, light,
  blur, noise, JPEG; seeds :data:`RENDER_SEED` + i); harder than the zoomed real dice (heavy
  perspective, the die often cut by the frame). Cocked or cut dice are not scored.

A die is found when a box's centre lies in its label box (``vision.measure.evaluate.match``), read
when that box's value is the label's; ``read_sized`` counts only boxes of at least half the
die's side (a pip's box can "read" a die no pass found). Also printed: boxes that match no
die (``extra``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from models.training.dice.dataset import read_photo
from vision.measure.evaluate import Labelled, match

ZOOMS = (15, 20, 30, 40, 50)
SHRINKS = (66, 55)
TILINGS = (2, 3, 4)
RENDERED_PX = (90, 120, 160)
ROWS = ("as-published", *(str(z) for z in ZOOMS), *(f"shrink-{k}" for k in SHRINKS),
        *(f"{n}x{n}" for n in TILINGS),
        *(f"render-{px}" for px in RENDERED_PX))
RENDERED_SCENES = 60
RENDER_SEED = 7_300_000
"""Seeds of the rendered rows (``RENDER_SEED + i``): far from the training scenes'."""
PHOTO_PX = 640
"""The real test photos are 640 x 640; a zoomed photo is cut and scaled to this side."""

Photo = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""(image, label boxes xyxy in its pixels, values, boxes of dice cut by the photo's edge:
neither scored nor counted as extra when found)."""


def labelled(item: Labelled) -> Photo:
    img = read_photo(item.image)
    h, w = img.shape[:2]
    return img, item.xyxy(w, h), item.values, np.zeros((0, 4))


def zoomed(items: list[Labelled], share: float, every: int = 3) -> Iterator[Photo]:
    """Every ``every``-th die of each photo, cut out with its neighbourhood so that it is
    ``share`` of a :data:`PHOTO_PX` square photo; the dice wholly inside are its labels."""
    for it in items:
        img, lab, values, _ = labelled(it)
        h, w = img.shape[:2]
        for k in range(0, len(lab), every):
            side = min(int(max(lab[k, 2:] - lab[k, :2]) / share), h, w)
            cx, cy = (lab[k, :2] + lab[k, 2:]) / 2
            x0 = int(np.clip(cx - side / 2, 0, w - side))
            y0 = int(np.clip(cy - side / 2, 0, h - side))
            zoom = PHOTO_PX / side
            photo = cv2.resize(img[y0:y0 + side, x0:x0 + side], (PHOTO_PX, PHOTO_PX),
                               interpolation=cv2.INTER_CUBIC)
            z = (lab - [x0, y0, x0, y0]) * zoom
            inside = (z[:, :2] >= 0).all(axis=1) & (z[:, 2:] <= PHOTO_PX).all(axis=1)
            cut = ~inside & (z[:, 2:] > 0).all(axis=1) & (z[:, :2] < PHOTO_PX).all(axis=1)
            yield photo, z[inside], values[inside], np.clip(z[cut], 0, PHOTO_PX)


def shrunk(items: list[Labelled], share: float) -> Iterator[Photo]:
    """Each photo shrunk to ``share`` of its size, in the corner of a :data:`PHOTO_PX`
    photo of its median colour (a mirrored border would add copies of its dice)."""
    for it in items:
        img, lab, values, _ = labelled(it)
        small = cv2.resize(img, None, fx=share, fy=share, interpolation=cv2.INTER_AREA)
        h, w = small.shape[:2]
        colour = [int(v) for v in np.median(small.reshape(-1, 3), axis=0)]
        photo = cv2.copyMakeBorder(small, 0, max(PHOTO_PX - h, 0), 0, max(PHOTO_PX - w, 0),
                                   cv2.BORDER_CONSTANT, value=colour)
        yield photo, lab * share, values, np.zeros((0, 4))


def tiled(items: list[Labelled], columns: int, rows: int | None = None,
          px: int = PHOTO_PX) -> Iterator[Photo]:
    """``columns`` x ``rows`` (default as many) photos side by side, each scaled to ``px``,
    in order: as many whole groups as ``items`` make."""
    rows = rows or columns
    n = columns * rows
    for start in range(0, len(items) - n + 1, n):
        tiles = [labelled(it) for it in items[start:start + n]]
        lines, boxes, values = [], [], []
        for r in range(rows):
            line = []
            for c in range(columns):
                img, lab, val, _ = tiles[r * columns + c]
                sy, sx = px / img.shape[0], px / img.shape[1]
                line.append(cv2.resize(img, (px, px), interpolation=cv2.INTER_CUBIC))
                boxes.append(lab * [sx, sy, sx, sy] + [px * c, px * r] * 2)
                values.append(val)
            lines.append(np.hstack(line))
        yield np.vstack(lines), np.concatenate(boxes), np.concatenate(values), np.zeros((0, 4))


def rendered(die_px: float, scenes: int = RENDERED_SCENES) -> Iterator[Photo]:
    from vision.synth.scenes import random_render

    for i in range(scenes):
        _, r = random_render(np.random.default_rng(RENDER_SEED + i), width=640, height=480,
                             n_dice=(1, 1), die_px=(die_px, die_px))
        pips = r.face_class < 6
        yield r.image, r.boxes[pips], r.values[pips], r.boxes[~pips]


def photos_of(row: str, items: list[Labelled]) -> Iterator[Photo]:
    if row.startswith("render-"):
        return rendered(float(row.split("-")[1]))
    if row == "as-published":
        return (labelled(it) for it in items)
    if row.startswith("shrink-"):
        return shrunk(items, int(row.split("-")[1]) / 100)
    if "x" in row:
        return tiled(items, int(row.split("x")[0]))
    return zoomed(items, int(row) / 100)


#: A box at least this share of its die's label side is the die's, not a pip's or a speck's
#: (the detector's boxes of real dice are at least 0.66 of the label's side for 99 % of them:
#: the top face of a tilted die).
DIE_SIZED = 0.5


def _side(box: np.ndarray) -> float:
    return float(np.max(box[2:] - box[:2]))


def score(read: Callable, photos: Iterator[Photo]) -> dict[str, float]:
    """Dice, found and read shares, boxes matching no die (cut dice aside), and the share read
    right by a box of the die's size (``read_sized``): ``match`` pairs a die with any box
    whose centre lies in it, so a pip's box inside a die no pass found can "read" it."""
    total = found = right = sized = extra = 0
    for img, lab, values, cut in photos:
        det = read(img)
        pairs = {j: p for p, j in match(det.xyxy, lab)}
        total += len(lab)
        found += len(pairs)
        rest = np.setdiff1d(np.arange(len(det)), list(pairs.values()))
        extra += len(rest) - len(match(det.xyxy[rest], cut))
        ok = [(j, p) for j, p in pairs.items() if int(det.value[p]) == int(values[j])]
        right += len(ok)
        sized += sum(_side(det.xyxy[p]) >= DIE_SIZED * _side(lab[j]) for j, p in ok)
    return {"dice": total, "found": round(found / max(total, 1), 4),
            "read": round(right / max(total, 1), 4),
            "read_sized": round(sized / max(total, 1), 4), "extra": extra}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=Path, help="folder of the ONNX models (default: shipped)")
    ap.add_argument("--rows", default=",".join(ROWS), help=f"some of {', '.join(ROWS)}")
    ap.add_argument("--split", default="test", choices=("test", "train"),
                    help="the real photos to zoom and tile (default test; train: 200 photos, "
                         "to check a choice made on the test rows)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from models.training.dice.dataset import shared_dir
    from vision.dice.reader import DiceReader
    from vision.measure.evaluate import list_dataset
    from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE

    paths = {}
    if args.models:
        paths = {"detector_path": args.models / DETECTOR_FILE,
                 "classifier_path": args.models / CLASSIFIER_FILE}
    readers = {"main_pass": DiceReader(any_scale=False, **paths),
               "any_scale": DiceReader(**paths)}
    items = list_dataset(shared_dir() / "data" / "real-dice", args.split)
    rows = args.rows.split(",")
    unknown = [r for r in rows if r not in ROWS]
    if unknown:
        ap.error(f"unknown rows {unknown}; known: {', '.join(ROWS)}")
    out = {}
    for row in rows:
        out[row] = {name: score(r.read, photos_of(row, items)) for name, r in readers.items()}
        if not args.json:
            m, a = out[row]["main_pass"], out[row]["any_scale"]
            print(f"{row:>13}  dice {m['dice']:4d}  main pass found {m['found']:.3f} read "
                  f"{m['read']:.3f} extra {m['extra']:3d}  |  any scale found {a['found']:.3f} "
                  f"read {a['read']:.3f} ({a['read_sized']:.3f} by die-sized boxes) extra "
                  f"{a['extra']:3d}", flush=True)
    if args.json:
        print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
