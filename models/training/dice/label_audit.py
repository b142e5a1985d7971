"""Contact sheets of every labelled die of a folder, to check its labels by eye.

    python -m models.training.dice.label_audit ../shared/data/real-dice --split test --out DIR

Each tile is the die's label box (1.5x, so tilted dice keep their top face) from the full-size
photo, enlarged, with the photo's name, the die's index, its label (``L``) and the reader's
value (``R``; ``-`` when no box matched it), red where they differ. Every die is drawn, not
only the disagreements: a label the reader agrees with can be wrong too, and a fix list built
from disagreements alone would flatter the reader. A fix found goes into a CSV for
``dicetable eval --label-fixes`` (``models/real_dice_fixes.csv`` for the real-dice set).
Prints the disagreements, one per line, as JSON with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from vision.dice.detections import Detections
from vision.dice.reader import DiceReader
from vision.imageio import ImageError, load_image
from vision.measure.evaluate import (
    DatasetError,
    Labelled,
    fix_labels,
    list_dataset,
    match,
    read_label_fixes,
)

TILE = 120
COLUMNS = 8


def tile(img: np.ndarray, box: np.ndarray, caption: str, differs: bool) -> np.ndarray:
    h, w = img.shape[:2]
    c = (box[:2] + box[2:]) / 2
    s = max(box[2] - box[0], box[3] - box[1], 4.0) * 0.75
    x0, y0 = int(max(0, c[0] - s)), int(max(0, c[1] - s))
    x1, y1 = int(min(w, c[0] + s)) + 1, int(min(h, c[1] + s)) + 1
    t = cv2.resize(img[y0:y1, x0:x1], (TILE, TILE), interpolation=cv2.INTER_CUBIC)
    t = cv2.copyMakeBorder(t, 0, 22, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    cv2.putText(t, caption, (2, TILE + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.36,
                (0, 0, 255) if differs else (0, 0, 0), 1, cv2.LINE_AA)
    return cv2.copyMakeBorder(t, 2, 2, 2, 2, cv2.BORDER_CONSTANT, value=(128, 128, 128))


def audit(items: list[Labelled], read: Callable[[np.ndarray], Detections]
          ) -> tuple[list[np.ndarray], list[dict[str, object]]]:
    """Tiles of every labelled die, and the dice whose reading differs from the label."""
    tiles, differ = [], []
    for item in items:
        img = load_image(item.image)
        boxes = item.xyxy(img.shape[1], img.shape[0])
        det = read(img)
        pred = {lab: p for p, lab in match(det.xyxy, boxes)}
        for k, (box, value) in enumerate(zip(boxes, item.values, strict=True)):
            read_value = int(det.value[pred[k]]) if k in pred else None
            if read_value != int(value):
                differ.append({"image": item.image.name, "die_index": k, "label": int(value),
                               "read": read_value, "probability": None if k not in pred
                               else round(float(det.value_probability[pred[k]]), 3)})
            caption = f"{item.image.stem[-6:]}#{k} L{int(value)} R{read_value or '-'}"
            tiles.append(tile(img, box, caption, read_value != int(value)))
    return tiles, differ


def sheets(tiles: list[np.ndarray], per_sheet: int) -> list[np.ndarray]:
    out = []
    for i in range(0, len(tiles), per_sheet):
        chunk = tiles[i:i + per_sheet]
        chunk += [np.full_like(tiles[0], 255)] * (-len(chunk) % COLUMNS)
        out.append(np.vstack([np.hstack(chunk[j:j + COLUMNS])
                              for j in range(0, len(chunk), COLUMNS)]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.training.dice.label_audit",
                                 description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", metavar="DIR", type=Path)
    ap.add_argument("--split")
    ap.add_argument("--label-fixes", metavar="CSV", type=Path,
                    help="draw the fixed values as labels (to check a fix list)")
    ap.add_argument("--out", type=Path, required=True, help="folder for sheet_NN.png")
    ap.add_argument("--per-sheet", type=int, default=48)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        items = list_dataset(args.dataset, args.split)
        if args.label_fixes is not None:
            items, _ = fix_labels(items, read_label_fixes(args.label_fixes))
        tiles, differ = audit(items, DiceReader().read)
    except (DatasetError, ImageError) as exc:
        print(f"label_audit: {exc}", file=sys.stderr)
        return 2
    if not tiles:
        print("label_audit: no labelled dice", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    pages = sheets(tiles, max(COLUMNS, args.per_sheet))
    for n, page in enumerate(pages):
        cv2.imwrite(str(args.out / f"sheet_{n:02d}.png"), page)
    if args.json:
        print(json.dumps({"dice": len(tiles), "sheets": len(pages), "differ": differ}, indent=2))
    else:
        print(f"{len(tiles)} dice on {len(pages)} sheets in {args.out}; "
              f"{len(differ)} read otherwise than labelled:")
        for d in differ:
            print(f"  {d['image']} #{d['die_index']}: label {d['label']}, read {d['read']} "
                  f"({d['probability']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
