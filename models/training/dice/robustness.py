"""How a classifier holds up when the camera and light change: out-of-fold reading of the
real train photos' dice under photometric shifts (k-fold nets, ``models.training.dice.kfold``).

Usage::

    python -m models.training.dice.robustness J2 J2c [--folds 0,1,2]
    python -m models.training.dice.robustness --photos test [--models DIR]

Each shift is applied to the crops the reader cuts (``folds.Photo.read_crops``), which for a
per-pixel change (exposure, gamma, white balance, grey) is the same as changing the photo;
JPEG and blur on the 48-px crop stand in for the photo's own (the crop is about the photo's
pixels: a 40-px die). Prints errors per shift and net (the dice of the named folds).
With ``--photos SPLIT`` the shifts are applied to whole real-dice photos of that split instead,
read by the ONNX models in ``--models`` (default the shipped ones) as ``dicetable eval`` reads.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from models.training.dice.folds import REPO, fold_of, load_photos, score_photos
from models.training.dice.shifts import SHIFTS
from models.training.errors import kfold_readers


def on_photos(split: str, models: Path | None) -> dict[str, dict[str, float]]:
    """read_accuracy and image_exact of the reader on shifted whole photos of ``split``."""
    from models.training.dice.dataset import shared_dir
    from vision.dice.reader import DiceReader
    from vision.measure.evaluate import evaluate, list_dataset
    from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE

    reader = DiceReader(models / DETECTOR_FILE, models / CLASSIFIER_FILE) if models else \
        DiceReader()
    items = list_dataset(shared_dir() / "data" / "real-dice", split)
    out = {}
    for name, shift in SHIFTS.items():
        m = evaluate(items, partial(_read_shifted, reader, shift))
        out[name] = {"read_accuracy": round(m["read_accuracy"], 4),
                     "image_exact": round(m["image_exact"], 3)}
        print(name, out[name], flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="kfold results (runs/kfold/<name>_fold<k>.pt)")
    ap.add_argument("--photos", help="a real-dice split to read whole, shifted")
    ap.add_argument("--models", type=Path, help="folder of the ONNX models for --photos")
    ap.add_argument("--folds", default="0,1,2")
    ap.add_argument("--detector", type=Path,
                    default=REPO / "runs" / "D1" / "dice_detector_202611.onnx")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.photos:
        print(json.dumps(on_photos(args.photos, args.models), indent=1))
        return 0
    torch.set_num_threads(1)
    photos = load_photos(args.detector, 48, args.seed)
    fold = fold_of(args.seed)
    folds = [int(k) for k in args.folds.split(",")]
    report: dict[str, dict[str, int]] = {}
    for name in args.names:
        report[name] = dict.fromkeys(SHIFTS, 0)
        readers = kfold_readers(name)  # each fold's net, of the design its run recorded
        for k in folds:
            held = [p for p in photos if fold[p.name] == k]
            for shift, f in SHIFTS.items():
                moved = [dataclasses.replace(p, read_crops=np.stack([f(c) for c in p.read_crops])
                                             if len(p.read_crops) else p.read_crops)
                         for p in held]
                report[name][shift] += score_photos(moved, readers(k))["errors"]
        print(name, json.dumps(report[name]), flush=True)
    dice = sum(sum(p.n_labels for p in photos if fold[p.name] == k) for k in folds)
    print(json.dumps({"folds": folds, "dice": dice, "errors": report}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def _read_shifted(reader: Any, shift: Any, img: np.ndarray) -> Any:
    """The reader's dice in ``img`` shifted (another lamp, exposure...)."""
    return reader.read(shift(img))
