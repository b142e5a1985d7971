"""Reproduce the shipped dice models with one command (CPU only, about an hour on one core).

Usage::

    python -m models.training.train [--seed 0] [--scenes 3000] [--det-steps 1500]
                                    [--cls-epochs 8] [--val-photos 40] [--no-real] [--out models]

Steps: synthetic scenes (+ the real-dice *train* split less the validation photos, unless
--no-real) -> detector -> classifier (hard negatives from that detector) -> temperature on
held-out crops -> ONNX export, int8 -> ``dice_reader.json`` (training record) and
``SHA256SUMS`` in the output folder. The generated data is cached under
``runs/cache`` (git-ignored) so a rerun with the same seed skips the rendering.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import pickle
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from models.training.dataset import (
    Samples,
    hard_negatives,
    real_train,
    synthetic,
    val_photo_names,
)
from models.training.export import export_classifier, export_detector, update_sha256sums
from models.training.quantize import calibration_crops, quantize
from models.training.train_classifier import (
    ece,
    fit_temperature,
    logits_of,
    train_classifier,
)
from models.training.train_detector import train_detector
from vision.classifier import NOT_A_DIE
from vision.onnx_models import CLASSIFIER_FILE, CLASSIFIER_FLOAT_FILE, DETECTOR_FILE

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[2]
#: Bump when the renderer or the sample format changes (invalidates runs/cache).
DATA_VERSION = 3


def _load_data(args: argparse.Namespace) -> tuple[Samples, Samples]:
    # The key names the renderer version too: a renderer change must not reuse old pixels.
    cache = REPO / "runs" / "cache" / (f"data_v{DATA_VERSION}_seed{args.seed}_n{args.scenes}"
                                       f"_px{args.crop_px}.pkl")
    if cache.exists():
        print(f"using cached data {cache}", file=sys.stderr)
        with open(cache, "rb") as f:
            syn, _ = pickle.load(f)
    else:
        syn = synthetic(args.scenes, args.seed, size=args.crop_px)
        cache.parent.mkdir(parents=True, exist_ok=True)
        with open(cache, "wb") as f:
            pickle.dump((syn, Samples()), f, protocol=pickle.HIGHEST_PROTOCOL)
    # Real samples are cut afresh (seconds): the validation photos must stay out of them.
    real = Samples() if args.no_real else real_train(
        args.seed, exclude=val_photo_names(args.val_photos, args.seed), size=args.crop_px)
    return syn, real


def _with(base: Samples, extra: Samples) -> Samples:
    """Crops of both (detector samples of base only)."""
    return Samples(base.det_images, base.det_boxes, base.crops + extra.crops,
                   base.labels + extra.labels)


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
    ap.add_argument("--cls-epochs", type=int, default=8, help="classifier epochs")
    ap.add_argument("--real-share", type=float, default=0.5,
                    help="share of training draws taken from real train-split photos")
    ap.add_argument("--no-real", action="store_true", help="synthetic data only")
    ap.add_argument("--val-photos", type=int, default=40,
                    help="real train photos held out of training (seeded) to choose the recipe "
                         "on: models.training.validate scores them. The shipped models hold "
                         "out 40, so their validation figures are honest; 0 trains on all 200")
    ap.add_argument("--width", type=int, default=24, help="classifier width")
    ap.add_argument("--arch", choices=("pool", "plain"), default="pool",
                    help="classifier design (nets.PoolFaceClassifier / nets.FaceClassifier)")
    ap.add_argument("--crop-px", type=int, default=48,
                    help="classifier input size (multiple of 8); cached synthetic crops of "
                         "another size are re-cut from the cached scenes")
    ap.add_argument("--label-smoothing", type=float, default=0.0)
    ap.add_argument("--gloss", type=float, default=0.25,
                    help="share of classifier crops given a specular highlight streak")
    ap.add_argument("--strong-aug", action="store_true",
                    help="classifier augmentation with colour cast and gamma")
    ap.add_argument("--out", type=Path, default=REPO / "models")
    ap.add_argument("--stage", choices=("all", "classifier", "detector", "data"), default="all",
                    help="train only one model (two stages can run side by side)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (1 is fastest on a shared 2-core machine)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    t0 = time.time()
    syn, real = _load_data(args)
    if args.stage == "data":
        return 0
    rng = np.random.default_rng(args.seed)

    args.out.mkdir(parents=True, exist_ok=True)
    record: dict = {}
    record.update({"seed": args.seed, "scenes": args.scenes, "real_share": args.real_share,
                   "real_train_photos": len(real.det_images),
                   "val_photos": args.val_photos,
                   "synthetic_crops": len(syn.labels), "real_crops": len(real.labels),
                   "torch": torch.__version__})
    # The detector goes first: its false alarms become the classifier's hard negatives.
    if args.stage in ("all", "detector"):
        record.update(_detector_stage(args, syn, real))
    if args.stage in ("all", "classifier"):
        record.update(_classifier_stage(args, syn, real, rng))
    record["minutes_" + args.stage] = round((time.time() - t0) / 60, 1)
    record["command_" + args.stage] = "python -m models.training.train " + " ".join(
        sys.argv[1:] if argv is None else argv)
    # Read the record only now: the other stage may have written it while this one trained.
    record_path = args.out / "dice_reader.json"
    record = {**(json.loads(record_path.read_text()) if record_path.exists() else {}), **record}
    names = [n for n in (DETECTOR_FILE, CLASSIFIER_FILE) if (args.out / n).exists()]
    record["files"] = {name: _sha256(args.out / name) for name in names}
    record_path.write_text(json.dumps(record, indent=2) + "\n")
    update_sha256sums(args.out, record["files"], drop=(CLASSIFIER_FLOAT_FILE,))
    print(json.dumps(record, indent=2))
    return 0


def _classifier_stage(args: argparse.Namespace, syn: Samples, real: Samples,
                      rng: np.random.Generator) -> dict:
    detector = args.out / DETECTOR_FILE
    size = args.crop_px
    if detector.exists():
        syn = _with(syn, hard_negatives(syn.det_images, syn.det_boxes, detector, rng, 2, size))
        real = _with(real, hard_negatives(real.det_images, real.det_boxes, detector, rng, 3,
                                          size))
        print(f"hard negatives from {detector}", file=sys.stderr)
    else:
        print(f"no {detector} yet: training without hard negatives", file=sys.stderr)
    # Hold out 7% of the crops (synthetic and real) to fit the temperature.
    crops = np.concatenate([np.stack(syn.crops)] + ([np.stack(real.crops)] if real.crops else []))
    labels = np.array(syn.labels + real.labels, np.int64)
    is_real = np.array([False] * len(syn.labels) + [True] * len(real.labels))
    held = _split(len(crops), 0.07, rng)
    w = np.where(is_real, args.real_share / max(is_real.sum(), 1),
                 (1 - args.real_share) / max((~is_real).sum(), 1)) if is_real.any() else \
        np.ones(len(crops))
    n_classes = NOT_A_DIE + 1
    print(f"classifier: {int((~held).sum())} train crops ({int((is_real & ~held).sum())} real),"
          f" {int(held.sum())} held out", file=sys.stderr)
    cls = train_classifier(crops[~held], labels[~held], w[~held], args.cls_epochs, args.seed,
                           n_classes, width=args.width, label_smoothing=args.label_smoothing,
                           strong_aug=args.strong_aug, arch=args.arch, gloss=args.gloss)
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
    return {"classifier": metrics, "cls_epochs": args.cls_epochs, "cls_width": args.width,
            "cls_arch": args.arch, "gloss": args.gloss,
            "crop_px": args.crop_px,
            "label_smoothing": args.label_smoothing, "strong_aug": args.strong_aug,
            "classifier_command": "python -m models.training.train --stage classifier "
                                  f"--seed {args.seed} --scenes {args.scenes} "
                                  f"--cls-epochs {args.cls_epochs} --real-share {args.real_share} "
                                  f"--val-photos {args.val_photos} --width {args.width} "
                                  f"--arch {args.arch} --gloss {args.gloss} "
                                  f"--crop-px {args.crop_px} "
                                  f"--label-smoothing {args.label_smoothing}"
                                  + (" --strong-aug" if args.strong_aug else "")}


def _detector_stage(args: argparse.Namespace, syn: Samples, real: Samples) -> dict:
    det_images = syn.det_images + real.det_images
    det_boxes = syn.det_boxes + real.det_boxes
    n_real = len(real.det_images)
    dw = np.array([(1 - args.real_share) / len(syn.det_images)] * len(syn.det_images)
                  + [args.real_share / max(n_real, 1)] * n_real)
    det = train_detector(det_images, det_boxes, dw, args.det_steps, args.seed)
    export_detector(det, args.out / DETECTOR_FILE)
    return {"det_steps": args.det_steps,
            "detector_command": "python -m models.training.train --stage detector "
                                f"--seed {args.seed} --scenes {args.scenes} "
                                f"--det-steps {args.det_steps} --real-share {args.real_share}"}


if __name__ == "__main__":
    raise SystemExit(main())
