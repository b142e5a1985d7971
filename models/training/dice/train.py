"""Reproduce the shipped dice models with one command (CPU only, about two hours on one core).

Usage::

    python -m models.training.dice.train [--seed 0] [--scenes 3000] [--det-steps 1500]
                                    [--pretrain-epochs 10] [--tune-steps 1800]
                                    [--box-copies 2] [--val-photos 0] [--no-real]
                                    [--out models]

Steps: synthetic scenes (+ the real-dice *train* split less the validation photos, unless
--no-real) -> detector -> classifier in two stages: stage one on synthetic crops only
(cached: it is the same network for every validation fold, ``models.training.dice.kfold``),
stage two on real and synthetic crops (the real ones also cut round the new detector's own
boxes, ``--box-copies``) with the detector's hard negatives -> temperature on
held-out crops -> ONNX export, int8 -> ``dice_reader.json`` (training record) and
``SHA256SUMS`` in the output folder. The generated data is cached under ``runs/cache``
(git-ignored) so a rerun with the same seed skips the rendering.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from models.training.dice.dataset import (
    Samples,
    hard_negatives,
    real_train,
    val_photo_names,
)
from models.training.dice.syndata import (
    base_path,
    load_synthetic,
    synthetic_crops,
    synthetic_negatives,
)
from models.training.dice.train_classifier import (
    ARCHES,
    CAMERA_SHIFTS,
    GLOSS_SPREAD,
    GLOSS_STYLES,
    draw_weights,
    ece,
    fit_temperature,
    logits_of,
    pretrained,
    train_classifier,
)
from models.training.dice.train_detector import train_detector
from models.training.export import export_classifier, export_detector, update_sha256sums
from models.training.quantize import calibration_crops, quantize
from vision.dice.classifier import NOT_A_DIE
from vision.onnx_models import CLASSIFIER_FILE, CLASSIFIER_FLOAT_FILE, DETECTOR_FILE

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[3]


def _real(args: argparse.Namespace, for_classifier: bool) -> Samples:
    """The real train samples; for the classifier also the crops round the detector's own
    boxes (``--box-copies``), cut with the detector in --out."""
    # Real samples are cut afresh (seconds): the validation photos must stay out of them.
    detector = args.out / DETECTOR_FILE
    return Samples() if args.no_real else real_train(
        args.seed, exclude=val_photo_names(args.val_photos, args.seed), size=args.crop_px,
        detector_path=detector if for_classifier and detector.exists() else None,
        detector_copies=args.box_copies)


def float_classifier_path(out: Path) -> Path:
    """Where training leaves the float classifier: under runs/, since only int8 ships."""
    return REPO / "runs" / "float" / out.resolve().name / CLASSIFIER_FLOAT_FILE


def _split(n: int, frac: float, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask of held-out items."""
    m = np.zeros(n, bool)
    m[rng.choice(n, int(n * frac), replace=False)] = True
    return m


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenes", type=int, default=3000, help="synthetic scenes to render")
    ap.add_argument("--det-steps", type=int, default=1500, help="detector training steps")
    ap.add_argument("--pretrain-epochs", type=int, default=10,
                    help="classifier stage one: epochs on synthetic crops only (0: one stage "
                         "of --cls-epochs on both)")
    ap.add_argument("--tune-steps", type=int, default=1800,
                    help="classifier stage two: steps on real and synthetic crops")
    ap.add_argument("--tune-lr", type=float, default=2e-3, help="peak learning rate of stage two")
    ap.add_argument("--cls-epochs", type=int, default=8,
                    help="classifier epochs of the one-stage recipe (--pretrain-epochs 0)")
    ap.add_argument("--real-share", type=float, default=0.5,
                    help="share of training draws taken from real train-split photos")
    ap.add_argument("--symbol-boost", type=float, default=4.0,
                    help="draw weight of synthetic crops of custom (non-pip) faces relative to "
                         "the other synthetic crops (train_classifier.draw_weights)")
    ap.add_argument("--box-copies", type=int, default=2,
                    help="classifier stage: crops per real die cut round the detector's own "
                         "box of it (the reader's crops; dataset.detector_box_crops)")
    ap.add_argument("--camera-aug", choices=("", *CAMERA_SHIFTS), default="",
                    help="classifier stage two: augment for other cameras and light "
                         "(train_classifier.camera_shift, CAMERA_SHIFTS; chosen by kfold)")
    ap.add_argument("--no-real", action="store_true", help="synthetic data only")
    ap.add_argument("--val-photos", type=int, default=0,
                    help="real train photos held out of training (seeded) to choose the recipe "
                         "on: models.training.dice.validate scores them. 0 trains on all 200 (the "
                         "shipped models; the recipe was chosen by models.training.dice.kfold)")
    ap.add_argument("--width", type=int, default=24, help="classifier width")
    ap.add_argument("--arch", choices=ARCHES, default="pool",
                    help="classifier design (train_classifier.make_classifier)")
    ap.add_argument("--crop-px", type=int, default=48,
                    help="classifier input size (multiple of 8)")
    ap.add_argument("--label-smoothing", type=float, default=0.0)
    ap.add_argument("--gloss", type=float, default=0.25,
                    help="share of classifier crops given a specular highlight streak")
    ap.add_argument("--tune-gloss", type=float, default=None,
                    help="stage two's share of highlight streaks (default: --gloss, which also "
                         "names stage one's cached base)")
    ap.add_argument("--gloss-spread", type=float, default=GLOSS_SPREAD,
                    help="stage two: highlight centres within this of the crop's centre")
    ap.add_argument("--gloss-style", choices=GLOSS_STYLES, default="blob",
                    help="stage two: the highlight streaks' look (train_classifier.GLOSS_STYLES)")
    ap.add_argument("--strong-aug", action="store_true",
                    help="classifier augmentation with colour cast and gamma")
    ap.add_argument("--out", type=Path, default=REPO / "models")
    ap.add_argument("--stage", choices=("all", "classifier", "detector", "data"), default="all",
                    help="train only one model (the classifier takes its hard negatives from "
                         "the detector already in --out)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (1 is fastest on a shared 2-core machine)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    t0 = time.time()
    if args.stage == "data":
        synthetic_crops(args.seed, args.scenes, args.crop_px)
        return 0
    real = _real(args, for_classifier=args.stage == "classifier")
    rng = np.random.default_rng(args.seed)

    args.out.mkdir(parents=True, exist_ok=True)
    record: dict = {}
    record.update({"seed": args.seed, "scenes": args.scenes, "real_share": args.real_share,
                   "real_train_photos": len(real.det_images),
                   "val_photos": args.val_photos,
                   "real_crops": len(real.labels),
                   "torch": torch.__version__})
    # The detector goes first: its false alarms become the classifier's hard negatives.
    if args.stage in ("all", "detector"):
        record.update(_detector_stage(args, load_synthetic(args.seed, args.scenes,
                                                           args.crop_px), real))
    if args.stage in ("all", "classifier"):
        if args.stage == "all" and args.box_copies:
            real = _real(args, for_classifier=True)  # now that the detector exists
        record.update(_classifier_stage(args, real, rng))
    record["minutes_" + args.stage] = round((time.time() - t0) / 60, 1)
    record["command_" + args.stage] = "python -m models.training.dice.train " + " ".join(
        sys.argv[1:] if argv is None else argv)
    # Read the record only now: the other stage may have written it while this one trained.
    record_path = args.out / "dice_reader.json"
    record = {**(json.loads(record_path.read_text()) if record_path.exists() else {}), **record}
    if args.stage == "all":
        # One process made both: older two-stage notes and commands no longer apply.
        for key in ("note", "command_detector", "command_classifier", "minutes_detector",
                    "minutes_classifier"):
            record.pop(key, None)
    names = [n for n in (DETECTOR_FILE, CLASSIFIER_FILE) if (args.out / n).exists()]
    record["files"] = {name: _sha256(args.out / name) for name in names}
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    update_sha256sums(args.out, record["files"], drop=(CLASSIFIER_FLOAT_FILE,))
    print(json.dumps(record, indent=2))
    return 0


def _classifier_stage(args: argparse.Namespace, real: Samples, rng: np.random.Generator
                      ) -> dict:
    detector = args.out / DETECTOR_FILE
    size, n_classes = args.crop_px, NOT_A_DIE + 1
    real_crops = len(real.labels)  # before the hard negatives join them
    syn_crops, syn_labels = synthetic_crops(args.seed, args.scenes, size)
    parts = [(syn_crops, syn_labels)]
    if detector.exists():
        parts.append(synthetic_negatives(args.seed, args.scenes, size, detector))
        neg = hard_negatives(real.det_images, real.det_boxes, detector, rng, 3, size)
        real = Samples(real.det_images, real.det_boxes, real.crops + neg.crops,
                       real.labels + neg.labels)
        print(f"hard negatives from {detector}", file=sys.stderr)
    else:
        print(f"no {detector} yet: training without hard negatives", file=sys.stderr)
    if real.crops:
        parts.append((np.stack(real.crops), np.array(real.labels, np.int64)))
    crops = np.concatenate([c for c, _ in parts])
    labels = np.concatenate([lab for _, lab in parts])
    is_real = np.zeros(len(crops), bool)
    if real.crops:
        is_real[-len(real.crops):] = True
    # Hold out 7% of the crops (synthetic and real) to fit the temperature. Stage one has
    # seen the synthetic ones, stage two none of them.
    held = _split(len(crops), 0.07, rng)
    w = draw_weights(is_real, labels, args.real_share, args.symbol_boost)
    print(f"classifier: {int((~held).sum())} train crops ({int((is_real & ~held).sum())} real),"
          f" {int(held.sum())} held out", file=sys.stderr)
    common = {"width": args.width, "arch": args.arch, "gloss": args.gloss}
    tune_gloss = args.gloss if args.tune_gloss is None else args.tune_gloss
    if args.pretrain_epochs:
        base = pretrained(syn_crops, syn_labels, base_path(
            args.seed, args.scenes, size, args.pretrain_epochs, args.width, args.arch,
            args.gloss), args.seed, args.pretrain_epochs, n_classes, **common)
        cls = train_classifier(crops[~held], labels[~held], w[~held], 0, args.seed, n_classes,
                               label_smoothing=args.label_smoothing, strong_aug=args.strong_aug,
                               init=base, lr=args.tune_lr, steps=args.tune_steps,
                               desc="tune (real + synthetic)", camera_aug=args.camera_aug,
                               gloss_spread=args.gloss_spread, gloss_style=args.gloss_style,
                               **{**common, "gloss": tune_gloss})
    else:
        cls = train_classifier(crops[~held], labels[~held], w[~held], args.cls_epochs,
                               args.seed, n_classes, label_smoothing=args.label_smoothing,
                               strong_aug=args.strong_aug, **common)
    val_logits = logits_of(cls, crops[held])
    temperature = fit_temperature(val_logits, labels[held])
    p_raw = torch.softmax(val_logits, 1).numpy()
    p_cal = torch.softmax(val_logits / temperature, 1).numpy()
    metrics = {
        "held_out_crops": int(held.sum()),
        "held_out_accuracy": float((p_raw.argmax(1) == labels[held]).mean()),
        "held_out_real_accuracy": float((p_raw.argmax(1) == labels[held])[is_real[held]].mean())
        if (is_real & held).any() else None,
        "temperature": temperature,
        "ece_before": ece(p_raw, labels[held]),
        "ece_after": ece(p_cal, labels[held]),
    }
    print(json.dumps(metrics), file=sys.stderr)
    float_path = float_classifier_path(args.out)
    float_path.parent.mkdir(parents=True, exist_ok=True)
    export_classifier(cls, temperature, float_path)
    quantize(float_path, args.out / CLASSIFIER_FILE,
             calibration_crops(args.seed, exclude=val_photo_names(args.val_photos, args.seed),
                               size=args.crop_px))
    return {"classifier": metrics, "synthetic_crops": len(syn_labels), "real_crops": real_crops,
            "pretrain_epochs": args.pretrain_epochs, "tune_steps": args.tune_steps,
            "tune_lr": args.tune_lr, "symbol_boost": args.symbol_boost,
            "box_copies": args.box_copies, "camera_aug": args.camera_aug,
            "cls_epochs": args.cls_epochs, "cls_width": args.width,
            "cls_arch": args.arch, "gloss": args.gloss, "tune_gloss": args.tune_gloss,
            "gloss_spread": args.gloss_spread, "gloss_style": args.gloss_style,
            "crop_px": args.crop_px,
            "label_smoothing": args.label_smoothing, "strong_aug": args.strong_aug}


def _detector_stage(args: argparse.Namespace, syn: Samples, real: Samples) -> dict:
    det_images = syn.det_images + real.det_images
    det_boxes = syn.det_boxes + real.det_boxes
    n_real = len(real.det_images)
    dw = np.array([(1 - args.real_share) / len(syn.det_images)] * len(syn.det_images)
                  + [args.real_share / max(n_real, 1)] * n_real)
    det = train_detector(det_images, det_boxes, dw, args.det_steps, args.seed)
    export_detector(det, args.out / DETECTOR_FILE)
    return {"det_steps": args.det_steps,
            "detector_command": "python -m models.training.dice.train --stage detector "
                                f"--seed {args.seed} --scenes {args.scenes} "
                                f"--det-steps {args.det_steps} --real-share {args.real_share}"}


if __name__ == "__main__":
    raise SystemExit(main())
