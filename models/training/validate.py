"""Score a set of dice models on the validation photos (real train photos held out of training).

Usage::

    python -m models.training.validate runs/B1 [--val-photos 40] [--turns 1] [--errors /tmp/e]

The recipe (architecture, data mix, thresholds) is chosen on these photos; the test split of
``real-dice`` is only reported at the end. Besides the usual metrics (``vision.evaluate``) it
splits the errors into missed dice, extra boxes and misread values, and can write a crop of
each misread die (named ``<photo>_<i>_true<t>_read<r>.png``) to look at.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from models.training.dataset import shared_dir, val_photo_names
from vision.classifier import crop_dice
from vision.evaluate import evaluate, list_dataset, match
from vision.imageio import load_image
from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE
from vision.reader import DiceReader


def val_items(n: int, seed: int = 0) -> list:
    names = val_photo_names(n, seed)
    return [it for it in list_dataset(shared_dir() / "data" / "real-dice", "train")
            if it.image.name in names]


def error_breakdown(items: list, reader: DiceReader, out: Path | None) -> dict:
    missed = extra = misread = 0
    confusions: dict[str, int] = {}
    for item in items:
        img = load_image(item.image)
        h, w = img.shape[:2]
        lab = item.boxes * np.array([w, h, w, h])
        lab = np.column_stack([lab[:, :2] - lab[:, 2:] / 2, lab[:, :2] + lab[:, 2:] / 2])
        det = reader.read(img)
        pairs = match(det.xyxy, lab)
        missed += len(lab) - len(pairs)
        extra += len(det) - len(pairs)
        for p, j in pairs:
            t, r = int(item.values[j]), int(det.value[p])
            if t == r:
                continue
            misread += 1
            key = f"{t}->{r}"
            confusions[key] = confusions.get(key, 0) + 1
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                crop = crop_dice(img, lab[j:j + 1], 96)[0]
                name = f"{item.image.stem}_{j}_true{t}_read{r}_p{det.value_probability[p]:.2f}"
                cv2.imwrite(str(out / f"{name}.png"), crop)
    return {"missed": missed, "extra": extra, "misread": misread,
            "confusions": dict(sorted(confusions.items()))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", type=Path, help="folder with the detector and int8 classifier")
    ap.add_argument("--val-photos", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--classifier", default=CLASSIFIER_FILE, help="classifier file name")
    ap.add_argument("--turns", type=int, default=None, help="orientations always read")
    ap.add_argument("--errors", type=Path, default=None, help="write misread crops here")
    args = ap.parse_args(argv)
    kw = {} if args.turns is None else {"turns": args.turns}
    reader = DiceReader(args.models / DETECTOR_FILE, args.models / args.classifier, **kw)
    items = val_items(args.val_photos, args.seed)
    metrics = evaluate(items, reader.read)
    metrics.update(error_breakdown(items, reader, args.errors))
    print(json.dumps(metrics, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
