"""Score a set of dice models on the validation photos (real train photos held out of training).

Usage::

    python -m models.training.dice.validate runs/B1 [--val-photos 40] [--turns 1] [--errors /tmp/e]
                                       [--custom-scenes 60]

The recipe (architecture, data mix, thresholds) is chosen on these photos; the test split of
``real-dice`` is only reported at the end. Besides the usual metrics (``vision.measure.evaluate``)
it
splits the errors into missed dice, extra boxes and misread values, and can write a crop of
each misread die (named ``<photo>_<i>_true<t>_read<r>.png``) to look at.
``--custom-scenes N`` also scores N rendered scenes (seeds no training run uses) where about
half the dice are catalogued custom dice (IceDice, Quarriors, skull/emblem d6): how many of
those the detector finds, and how many faces without pips are reported as a symbol or as
unreadable rather than as a pip value.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from models.training.dice.dataset import classifier_classes, shared_dir, val_photo_names
from vision.dice.classifier import crop_dice
from vision.dice.detections import FACE_SYMBOL
from vision.dice.reader import DiceReader
from vision.imageio import load_image
from vision.measure.evaluate import evaluate, list_dataset, match
from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE
from vision.synth.scenes import random_render

#: Seeds of the custom-dice check: far from training's (SeedSequence of (seed, scene index)).
CUSTOM_SEED = 7_000_000


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
        lab = item.xyxy(w, h)
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


def custom_dice_check(reader: DiceReader, n_scenes: int) -> dict:
    """Detector recall on custom vs pip dice in rendered scenes, and what non-pip faces read as."""
    found = {"custom": [0, 0], "pip": [0, 0]}
    symbol_or_unreadable = as_number = 0
    for i in range(n_scenes):
        rng = np.random.default_rng([CUSTOM_SEED, i])
        scene, r = random_render(rng, width=640, height=480, die_px=(25, 60), n_dice=(4, 16),
                                 typed_rate=0.5)
        cls = classifier_classes(scene, r)
        det = reader.read(r.image)
        pairs = {j: p for p, j in match(det.xyxy, r.boxes.astype(np.float64))}
        for j, i_die in enumerate(r.die_index):
            kind = "pip" if scene.dice[int(i_die)].die_type is None else "custom"
            found[kind][1] += 1
            if j not in pairs:
                continue
            found[kind][0] += 1
            if kind == "custom" and cls[j] == FACE_SYMBOL:
                p = pairs[j]
                if bool(det.symbol[p]) or int(det.value[p]) == 0:
                    symbol_or_unreadable += 1
                else:
                    as_number += 1
    return {"custom_dice": found["custom"][1],
            "custom_recall": found["custom"][0] / max(found["custom"][1], 1),
            "pip_dice": found["pip"][1], "pip_recall": found["pip"][0] / max(found["pip"][1], 1),
            "non_pip_faces_found": symbol_or_unreadable + as_number,
            "non_pip_read_as_symbol_or_unreadable": symbol_or_unreadable
            / max(symbol_or_unreadable + as_number, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", type=Path, help="folder with the detector and int8 classifier")
    ap.add_argument("--val-photos", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--classifier", default=CLASSIFIER_FILE, help="classifier file name")
    ap.add_argument("--turns", type=int, default=None, help="orientations always read")
    ap.add_argument("--errors", type=Path, default=None, help="write misread crops here")
    ap.add_argument("--custom-scenes", type=int, default=0,
                    help="also score this many rendered scenes with custom dice")
    args = ap.parse_args(argv)
    kw = {} if args.turns is None else {"turns": args.turns}
    reader = DiceReader(args.models / DETECTOR_FILE, args.models / args.classifier, **kw)
    items = val_items(args.val_photos, args.seed)
    metrics = evaluate(items, reader.read)
    metrics.update(error_breakdown(items, reader, args.errors))
    if args.custom_scenes:
        metrics["custom_scenes"] = custom_dice_check(reader, args.custom_scenes)
    print(json.dumps(metrics, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
