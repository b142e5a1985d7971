"""Rank classifier recipes by 5-fold validation on the real train photos (``folds``).

Usage::

    python -m models.training.dice.kfold base --name A [--epochs 12] [--width 24] [--gloss 0.25]
    python -m models.training.dice.kfold tune --base A --name A_ft [--steps 600] [--lr 1e-3]
                                         [--real-share 0.5] [--symbol-boost 1]
                                         [--folds 0,1,2,3,4]
    python -m models.training.dice.kfold joint --name J [--epochs 8] [--folds 0]
    python -m models.training.dice.kfold onnx runs/E2 --name E2 [--folds 0]
    python -m models.training.dice.kfold compare A_ft B_ft
    python -m models.training.dice.kfold export A_ft --fold 0 --out runs/A_ft0

``base`` trains a classifier on synthetic crops only (no real photo, so one base serves
every fold; kept in runs/cache, where ``train`` finds it too); ``tune`` fine-tunes it per
fold on the other folds' real crops mixed with the synthetic ones and reads the fold's
photos; ``joint`` trains from scratch per fold on both (the one-stage recipe); ``onnx``
reads the folds with a finished model (it has seen the photos of the folds it was trained
on: only its own held-out folds count); ``compare`` pairs two results die by die. Results
go to ``runs/kfold/<name>.json``. ``export`` writes one fold's network as a float ONNX file
(temperature 1) beside a copy of the detector, for ``validate OUT --classifier
dice_classifier_202611.onnx`` (e.g. its ``--custom-scenes`` check). The detector is the one
in ``--detector`` (default runs/D1, trained without fold 0's photos).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from models.training.dice.folds import (
    N_FOLDS,
    REPO,
    fold_of,
    load_photos,
    score_photos,
    training_samples,
)
from models.training.dice.syndata import base_path, synthetic_crops, synthetic_negatives
from models.training.dice.train_classifier import (
    ARCHES,
    CAMERA_SHIFTS,
    GLOSS_SPREAD,
    GLOSS_STYLES,
    draw_weights,
    logits_of,
    make_classifier,
    pretrained,
    train_classifier,
)
from vision.dice.classifier import NOT_A_DIE

OUT = REPO / "runs" / "kfold"


def _synthetic(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    """Synthetic crops and the detector's hard negatives on the synthetic scenes."""
    crops, labels = synthetic_crops(args.seed, args.scenes, args.crop_px)
    neg_c, neg_l = synthetic_negatives(args.seed, args.scenes, args.crop_px, args.detector)
    return np.concatenate([crops, neg_c]), np.concatenate([labels, neg_l])


def _mix(syn: tuple[np.ndarray, np.ndarray], real_crops: np.ndarray, real_labels: np.ndarray,
         real_share: float, symbol_boost: float = 1.0
         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    crops = np.concatenate([syn[0], real_crops])
    labels = np.concatenate([syn[1], real_labels])
    is_real = np.arange(len(crops)) >= len(syn[0])
    return crops, labels, draw_weights(is_real, labels, real_share, symbol_boost)


def _logits(net: torch.nn.Module):  # noqa: ANN202
    return lambda crops: logits_of(net, crops).numpy()


def _folds(text: str) -> list[int]:
    return [int(k) for k in text.split(",")]


def _per_fold(args: argparse.Namespace, train_one) -> dict:  # noqa: ANN001
    """Train with ``train_one(real crops, real labels, fold)`` per fold; score out of fold."""
    photos = load_photos(args.detector, args.crop_px, args.seed)
    fold = fold_of(args.seed)
    result: dict = {"args": {k: str(v) for k, v in vars(args).items()}, "folds": {}}
    for k in _folds(args.folds):
        t0 = time.time()
        train = [p for p in photos if fold[p.name] != k]
        held = [p for p in photos if fold[p.name] == k]
        samples = training_samples(train, getattr(args, "box_copies", 0))
        crops, labels = np.stack(samples.crops), np.array(samples.labels, np.int64)
        net = train_one(crops, labels, k)
        OUT.mkdir(parents=True, exist_ok=True)
        torch.save(net.state_dict(), OUT / f"{args.name}_fold{k}.pt")  # to combine later
        s = score_photos(held, _logits(net))
        s["minutes"] = round((time.time() - t0) / 60, 1)
        result["folds"][str(k)] = s
        print(json.dumps({k: {n: v for n, v in s.items() if n != "wrong"}}), file=sys.stderr)
        _save(args.name, _summarise(result))
    return _summarise(result)


def _summarise(result: dict) -> dict:
    folds = result["folds"].values()
    dice = sum(f["dice"] for f in folds)
    errors = sum(f["errors"] for f in folds)
    images = sum(f["images"] for f in folds)
    exact = sum(f["image_exact"] * f["images"] for f in folds)
    result["total"] = {"folds": sorted(result["folds"]), "images": images, "dice": dice,
                       "errors": errors, "read_accuracy": 1 - errors / max(dice, 1),
                       "image_exact": exact / max(images, 1),
                       "extra": sum(f["extra"] for f in folds)}
    return result


def _save(name: str, result: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")


def cmd_base(args: argparse.Namespace) -> dict:
    crops, labels = synthetic_crops(args.seed, args.scenes, args.crop_px)
    path = base_path(args.seed, args.scenes, args.crop_px, args.epochs, args.width, args.arch,
                     args.gloss)
    state = pretrained(crops, labels, path, args.seed, args.epochs, NOT_A_DIE + 1,
                       width=args.width, arch=args.arch, gloss=args.gloss)
    net = make_classifier(args.arch, NOT_A_DIE + 1, args.width, args.crop_px)
    net.load_state_dict(state)
    # The base has seen no real photo: it reads all five folds honestly.
    photos = load_photos(args.detector, args.crop_px, args.seed)
    fold = fold_of(args.seed)
    result = {"args": {k: str(v) for k, v in vars(args).items()}, "base_path": str(path),
              "folds": {str(k): score_photos([p for p in photos if fold[p.name] == k],
                                             _logits(net.eval())) for k in range(N_FOLDS)}}
    return _summarise(result)


def cmd_tune(args: argparse.Namespace) -> dict:
    syn = _synthetic(args)
    info = json.loads((OUT / f"{args.base}.json").read_text())
    base = torch.load(info["base_path"])
    width, arch = int(info["args"]["width"]), info["args"]["arch"]
    seed = args.seed if args.tune_seed is None else args.tune_seed

    def one(real_crops: np.ndarray, real_labels: np.ndarray, k: int) -> torch.nn.Module:
        crops, labels, w = _mix(syn, real_crops, real_labels, args.real_share,
                                args.symbol_boost)
        return train_classifier(crops, labels, w, 0, seed + k, NOT_A_DIE + 1, width=width,
                                arch=arch, gloss=args.gloss, init=base, lr=args.lr,
                                steps=args.steps, desc=f"tune fold {k}",
                                camera_aug=args.camera_aug, gloss_spread=args.gloss_spread,
                                gloss_style=args.gloss_style)

    return _per_fold(args, one)


def cmd_joint(args: argparse.Namespace) -> dict:
    syn = _synthetic(args)

    def one(real_crops: np.ndarray, real_labels: np.ndarray, k: int) -> torch.nn.Module:
        crops, labels, w = _mix(syn, real_crops, real_labels, args.real_share,
                                args.symbol_boost)
        return train_classifier(crops, labels, w, args.epochs, args.seed, NOT_A_DIE + 1,
                                width=args.width, arch=args.arch, gloss=args.gloss,
                                desc=f"joint fold {k}")

    return _per_fold(args, one)


def cmd_onnx(args: argparse.Namespace) -> dict:
    from vision.dice.classifier import FaceClassifier
    from vision.onnx_models import CLASSIFIER_FILE

    cls = FaceClassifier(args.model / CLASSIFIER_FILE, turns=1)
    photos = load_photos(args.detector, cls.crop_px, args.seed)
    fold = fold_of(args.seed)
    result = {"args": {k: str(v) for k, v in vars(args).items()},
              "folds": {str(k): score_photos([p for p in photos if fold[p.name] == k],
                                             cls.infer_once) for k in _folds(args.folds)}}
    return _summarise(result)


def cmd_compare(args: argparse.Namespace) -> dict:
    a, b = (json.loads((OUT / f"{n}.json").read_text()) for n in (args.a, args.b))
    common = sorted(set(a["folds"]) & set(b["folds"]))
    wa = {d: v for k in common for d, v in a["folds"][k]["wrong"].items()}
    wb = {d: v for k in common for d, v in b["folds"][k]["wrong"].items()}
    return {"folds": common, "dice": sum(a["folds"][k]["dice"] for k in common),
            f"errors_{args.a}": len(wa), f"errors_{args.b}": len(wb),
            f"only_{args.a}_wrong": {d: wa[d] for d in sorted(set(wa) - set(wb))},
            f"only_{args.b}_wrong": {d: wb[d] for d in sorted(set(wb) - set(wa))},
            "both_wrong": {d: [wa[d], wb[d]] for d in sorted(set(wa) & set(wb))}}


def cmd_export(args: argparse.Namespace) -> dict:
    import shutil

    from models.training.export import export_classifier
    from vision.onnx_models import CLASSIFIER_FLOAT_FILE, DETECTOR_FILE

    info = json.loads((OUT / f"{args.name}.json").read_text())
    spec = json.loads((OUT / f"{info['args']['base']}.json").read_text())["args"]
    net = make_classifier(spec["arch"], NOT_A_DIE + 1, int(spec["width"]), args.crop_px)
    net.load_state_dict(torch.load(OUT / f"{args.name}_fold{args.fold}.pt"))
    args.out.mkdir(parents=True, exist_ok=True)
    export_classifier(net.eval(), 1.0, args.out / CLASSIFIER_FLOAT_FILE)
    shutil.copy(args.detector, args.out / DETECTOR_FILE)
    return {"exported": str(args.out / CLASSIFIER_FLOAT_FILE), "fold": args.fold}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_base, p_tune, p_joint = (sub.add_parser(n) for n in ("base", "tune", "joint"))
    p_onnx, p_cmp = sub.add_parser("onnx"), sub.add_parser("compare")
    p_exp = sub.add_parser("export")
    p_exp.add_argument("name")
    p_exp.add_argument("--fold", type=int, default=0)
    p_exp.add_argument("--out", type=Path, required=True)
    p_exp.add_argument("--crop-px", type=int, default=48)
    p_exp.add_argument("--detector", type=Path,
                       default=REPO / "runs" / "D1" / "dice_detector_202611.onnx")
    p_onnx.add_argument("model", type=Path)
    p_cmp.add_argument("a")
    p_cmp.add_argument("b")
    for p in (p_base, p_tune, p_joint, p_onnx):
        p.add_argument("--name", required=True)
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--scenes", type=int, default=3000)
        p.add_argument("--crop-px", type=int, default=48)
        p.add_argument("--detector", type=Path,
                       default=REPO / "runs" / "D1" / "dice_detector_202611.onnx")
        p.add_argument("--folds", default=",".join(str(k) for k in range(N_FOLDS)))
    for p in (p_base, p_joint):
        p.add_argument("--epochs", type=int, default=12)
        p.add_argument("--width", type=int, default=24)
        p.add_argument("--arch", default="pool", choices=ARCHES)
    for p in (p_base, p_tune, p_joint):
        p.add_argument("--gloss", type=float, default=0.25)
    for p in (p_tune, p_joint):
        p.add_argument("--box-copies", type=int, default=0,
                       help="crops per real die round the detector's own box of it (0-4; "
                            "folds.BOX_COPIES)")
        p.add_argument("--real-share", type=float, default=0.5)
        p.add_argument("--symbol-boost", type=float, default=1.0,
                       help="draw weight of synthetic symbol crops (train_classifier.draw_weights)")
    p_tune.add_argument("--base", required=True)
    p_tune.add_argument("--camera-aug", choices=("", *CAMERA_SHIFTS), default="",
                        help="augment for other cameras and light "
                             "(train_classifier.camera_shift, CAMERA_SHIFTS)")
    p_tune.add_argument("--gloss-spread", type=float, default=GLOSS_SPREAD,
                        help="highlight centres within this of the crop's centre "
                             "(train_classifier.highlights)")
    p_tune.add_argument("--gloss-style", choices=GLOSS_STYLES, default="blob",
                        help="highlight streaks' look (train_classifier.GLOSS_STYLES)")
    p_tune.add_argument("--tune-seed", type=int, default=None,
                        help="seed of the fine-tune alone (default --seed, which also picks "
                             "the folds and the synthetic scenes): reruns of one recipe on the "
                             "same folds show how far its errors move by chance")
    p_tune.add_argument("--steps", type=int, default=600)
    p_tune.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    cmd = {"base": cmd_base, "tune": cmd_tune, "joint": cmd_joint, "onnx": cmd_onnx,
           "compare": cmd_compare, "export": cmd_export}[args.cmd]
    result = cmd(args)
    if args.cmd not in ("compare", "export"):
        _save(args.name, result)
        print(json.dumps(result["total"], indent=1))
    else:
        print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
