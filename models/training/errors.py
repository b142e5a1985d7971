"""Where the reader's errors on the real train photos come from, fold by fold, out of fold.

Usage::

    python -m models.training.errors --kfold I2 [--folds 0,1,2,3,4] [--crops /tmp/e]
    python -m models.training.errors --onnx runs/E2 --folds 0     # only its held-out folds

Each photo is read the way ``vision.dice.reader.DiceReader`` reads it (the detector in
``--detector``, then the classifier with its second look), and every labelled die that is not
read right gets one cause:

- ``missed``: no detection at the reader's threshold; ``weak_peak`` says whether the detector
  had a peak there at 0.1 (a threshold question) or none (the detector does not see it);
- ``dropped``: detected, then called "not a die" by the classifier;
- ``placement``: misread from the detector's box but read right from the labelled box (the
  crop was cut in the wrong place or size);
- ``misread``: misread from both boxes (the classifier does not read this face).

Each error also carries the box's IoU with its label, the die's size in pixels, the named
body and pip colours, and what all four turns of the crop read. The classifier is either a
finished ONNX file (``--onnx``: trained on the other folds' photos only if it was made with
``--val-photos``) or the per-fold networks of a ``kfold`` result (``--kfold NAME``: each
fold read by the network trained without it; a stage-one base reads every fold).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path

import cv2
import numpy as np
import torch

from models.training.dice.dataset import read_photo, real_images
from models.training.dice.folds import N_FOLDS, REPO, fold_of, read_like_the_reader
from models.training.dice.train_classifier import logits_of, make_classifier
from vision.colours import die_colour_names
from vision.dice.classifier import CROP_PX, NOT_A_DIE, crop_dice
from vision.dice.detector import DiceDetector
from vision.measure.evaluate import match

KFOLD = REPO / "runs" / "kfold"
#: A detector peak this strong near a missed die counts as "seen, under the threshold".
WEAK_PEAK = 0.1


def iou(a: np.ndarray, b: np.ndarray) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / max(union, 1e-9))


def kfold_readers(name: str) -> Callable[[int], Callable[[np.ndarray], np.ndarray]]:
    """fold -> logits function of the network that did not see that fold."""
    info = json.loads((KFOLD / f"{name}.json").read_text())
    base = info["args"].get("base")
    spec = json.loads((KFOLD / f"{base}.json").read_text())["args"] if base else info["args"]
    width, arch = int(spec["width"]), spec["arch"]
    cache: dict[int, Callable[[np.ndarray], np.ndarray]] = {}

    def reader(k: int) -> Callable[[np.ndarray], np.ndarray]:
        if k not in cache:
            path = KFOLD / f"{name}_fold{k}.pt"
            if not path.exists() and "base_path" in info:
                path = Path(info["base_path"])  # stage one: saw no real photo at all
            net = make_classifier(arch, NOT_A_DIE + 1, width, CROP_PX)
            net.load_state_dict(torch.load(path))
            net.eval()
            cache[k] = partial(_logits, net)
        return cache[k]

    return reader


def onnx_reader(folder: Path) -> Callable[[int], Callable[[np.ndarray], np.ndarray]]:
    from vision.dice.classifier import FaceClassifier
    from vision.onnx_models import CLASSIFIER_FILE

    cls = FaceClassifier(folder / CLASSIFIER_FILE, turns=1)
    return lambda k: cls.infer_once


def analyse_photo(image: np.ndarray, boxes: np.ndarray, classes: np.ndarray,
                  detector: DiceDetector, weak: DiceDetector,
                  logits: Callable[[np.ndarray], np.ndarray]
                  ) -> tuple[list[dict], int, int, list[tuple[float, float]]]:
    """(errors, dice read right, extra boxes kept, (IoU, side / label side) of each detected
    die) of one photo."""
    found = detector(image)
    crops = crop_dice(image, found.xyxy, CROP_PX) if len(found) else \
        np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8)
    value, prob, kept = read_like_the_reader(logits, crops)
    pairs = {j: p for p, j in match(found.xyxy, boxes)}
    extra = int(sum(kept[p] for p in range(len(found)) if p not in pairs.values()))
    truth_crops = crop_dice(image, boxes, CROP_PX)
    t_value, t_prob, t_kept = read_like_the_reader(logits, truth_crops)
    errors, right = [], 0
    fit = [(iou(found.xyxy[p], boxes[j]), _side(found.xyxy[p]) / _side(boxes[j]))
           for j, p in pairs.items()]
    for j, c in enumerate(classes):
        truth = int(c) + 1
        side = _side(boxes[j])
        row: dict = {"label": j, "truth": truth, "side_px": round(side, 1),
                     "truth_box_read": int(t_value[j]) if t_kept[j] else None,
                     "truth_box_p": round(float(t_prob[j]), 3)}
        p = pairs.get(j)
        if p is None:
            strong = weak(image)
            near = [q for q, jj in match(strong.xyxy, boxes) if jj == j]
            row.update(cause="missed", weak_peak=bool(near))
        elif not kept[p]:
            row.update(cause="dropped", iou=round(iou(found.xyxy[p], boxes[j]), 3))
        elif int(value[p]) == truth:
            right += 1
            continue
        else:
            fixed = t_kept[j] and int(t_value[j]) == truth
            body, pip = die_colour_names(crops[p:p + 1])
            row.update(cause="placement" if fixed else "misread", read=int(value[p]),
                       p=round(float(prob[p]), 3), iou=round(iou(found.xyxy[p], boxes[j]), 3),
                       body=body[0], pip=pip[0], four_turns=_four_turns(logits, crops[p]),
                       _crop=crop_dice(image, boxes[j:j + 1], 96)[0])
        errors.append(row)
    return errors, right, extra, fit


def _side(box: np.ndarray) -> float:
    return float(max(box[2] - box[0], box[3] - box[1]))


def _four_turns(logits: Callable[[np.ndarray], np.ndarray], crop: np.ndarray) -> int:
    """The value read from the mean of all four turns' logits (what turns=4 would say)."""
    four = np.ascontiguousarray(np.stack([np.rot90(crop, k) for k in range(4)]))
    mean = logits(four).mean(axis=0, keepdims=True)
    value, _, _ = read_like_the_reader(lambda _x: mean, four[:1], second_look_below=0.0)
    return int(value[0])


def analyse(reader_of: Callable[[int], Callable[[np.ndarray], np.ndarray]], folds: list[int],
            detector_path: Path, crops_dir: Path | None) -> dict:
    fold = fold_of(0)
    detector = DiceDetector(detector_path)
    weak = DiceDetector(detector_path, threshold=WEAK_PEAK)
    rows, dice, right, extra, sides, fits = [], 0, 0, 0, [], []
    for path, boxes, classes in real_images("train"):
        k = fold[path.name]
        if k not in folds:
            continue
        image = read_photo(path)
        errs, ok, ext, fit = analyse_photo(image, boxes, classes, detector, weak, reader_of(k))
        fits += fit
        dice += len(classes)
        right += ok
        extra += ext
        sides += list(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))
        for e in errs:
            crop = e.pop("_crop", None)
            e = {"photo": path.name, "fold": k, **e}
            rows.append(e)
            if crops_dir is not None and crop is not None:
                crops_dir.mkdir(parents=True, exist_ok=True)
                name = (f"{e['cause']}_{path.stem}_{e['label']}_true{e['truth']}"
                        f"_read{e['read']}_p{e['p']:.2f}.png")
                cv2.imwrite(str(crops_dir / name), crop)
    causes = Counter(r["cause"] for r in rows)
    confusions = Counter(f"{r['truth']}->{r['read']}" for r in rows if "read" in r)
    err_sides = [r["side_px"] for r in rows]
    return {"folds": folds, "dice": dice, "read_right": right,
            "read_accuracy": right / max(dice, 1), "extra_boxes_kept": extra,
            "causes": dict(causes),
            "missed_with_weak_peak": sum(1 for r in rows if r.get("weak_peak")),
            "misread_fixed_by_four_turns": sum(1 for r in rows if "read" in r
                                               and r["four_turns"] == r["truth"]),
            "confusions": dict(confusions.most_common()),
            "die_side_px_median": {"all": float(np.median(sides)) if sides else None,
                                   "errors": float(np.median(err_sides)) if err_sides else None},
            "detector_boxes": _box_fit(np.array(fits).reshape(-1, 2)),
            "pip_colour_of_misreads": dict(Counter(r["pip"] for r in rows if "pip" in r)),
            "body_colour_of_misreads": dict(Counter(r["body"] for r in rows if "body" in r)),
            "errors": rows}


def _box_fit(fits: np.ndarray) -> dict:
    """How the detector's boxes sit on the labelled ones (median and 10th percentile)."""
    if len(fits) == 0:
        return {}
    return {"iou_median": round(float(np.median(fits[:, 0])), 3),
            "iou_p10": round(float(np.percentile(fits[:, 0], 10)), 3),
            "side_ratio_median": round(float(np.median(fits[:, 1])), 3),
            "side_ratio_p10": round(float(np.percentile(fits[:, 1], 10)), 3),
            "side_ratio_p90": round(float(np.percentile(fits[:, 1], 90)), 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--kfold", help="name of a models.training.dice.kfold result")
    src.add_argument("--onnx", type=Path, help="folder holding a classifier ONNX file")
    ap.add_argument("--folds", default=",".join(str(k) for k in range(N_FOLDS)))
    ap.add_argument("--detector", type=Path,
                    default=REPO / "runs" / "D1" / "dice_detector_202611.onnx")
    ap.add_argument("--crops", type=Path, default=None, help="write each misread die here")
    ap.add_argument("--json", type=Path, default=None, help="write the whole result here")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    reader_of = kfold_readers(args.kfold) if args.kfold else onnx_reader(args.onnx)
    result = analyse(reader_of, [int(k) for k in args.folds.split(",")], args.detector,
                     args.crops)
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k != "errors"}, indent=1))
    for r in result["errors"]:
        print(json.dumps(r), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def _logits(net: object, crops: np.ndarray) -> np.ndarray:
    """The network's logits of crops, as an array."""
    return logits_of(net, crops).numpy()  # type: ignore[arg-type]
