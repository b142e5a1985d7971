"""The reader's two models trained on every real domain but one, or on all of them.

``train_pair(held_out, out, recipe)`` leaves the detector and the int8 classifier (with its
features output, for table adaptation) in ``out``; ``held_out=None`` trains on every domain
(the shipped pair). What no real photo is in is trained once and cached in ``runs/cache``:

1. a detector base on rendered scenes only (``vision.synth.scenes`` and the wild tables of
   ``vision.synth.wild_scenes``), shown dice of the sizes the image pyramid hands it
   (``vision.dice.scales.BAND``);
2. the classifier's stage one on synthetic crops only (``train_classifier.pretrained``, the
   same base the earlier recipes used).

Per fold the detector goes on from its base with the fold's real photos mixed in (each
domain an equal share of the real draws, dice nobody labelled masked out of the loss), then
reads every real training photo at every level of the pyramid, as the reader will: its boxes
on labelled dice are classifier crops of their value, its boxes on nothing are "not a die"
(the carpet, the cloth, the RPG dice that domain's table really shows). The classifier's
stage two tunes the base on those real crops, synthetic and wild crops.

:func:`typed_stage` goes on from a trained fold's detector with rendered photos of the games'
custom dice (IceDice pyramids, Quarriors' symbol dice) mixed in, as
``models.training.dice.tune_detector`` did for the pair before: without it a phone's photo of a
game's table loses a quarter of its custom dice. The classifier is left as it is (it reads
pip faces; custom faces go to the face models).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch

from models.training.dice import cache as cache_file
from models.training.dice.dataset import background_boxes, jitter_boxes
from models.training.dice.real_domains import RealPhoto, training_photos
from models.training.dice.syndata import CACHE, base_path, synthetic_crops, synthetic_detector
from models.training.dice.train_classifier import (
    draw_weights,
    fit_temperature,
    logits_of,
    pretrained,
    train_classifier,
)
from models.training.dice.train_detector import train_detector
from models.training.dice.wild_data import wild_crops, wild_detector, wild_negatives
from models.training.export import add_features_output, export_classifier, export_detector
from models.training.nets import DiceDetector
from models.training.quantize import quantize
from vision.dice.classifier import CROP_PX, FEATURES_OUTPUT, NOT_A_DIE, crop_dice
from vision.dice.detector import DiceDetector as OnnxDetector
from vision.dice.photometry import normalise_light
from vision.dice.scales import detect_pyramid
from vision.imageio import load_image
from vision.onnx_models import CLASSIFIER_FILE, CLASSIFIER_FLOAT_FILE, DETECTOR_FILE

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recipe:
    """Everything that sets a trained pair (recorded beside it)."""

    seed: int = 0
    scenes: int = 3000
    """Synthetic scenes of ``vision.synth.scenes`` (the stage-one and detector caches)."""
    wild: int = 3000
    """Wild scenes of ``vision.synth.wild_scenes``."""
    det_base_steps: int = 3000
    det_steps: int = 1500
    det_lr: float = 1e-3
    det_real_share: float = 0.5
    det_die_px: tuple[float, float] = (12.0, 90.0)
    """Dice sizes the detector's training windows show: the pyramid's band (16-64 px) and
    beyond it both ways (the last pass run keeps smaller dice; the coarsest, bigger)."""
    det_real_side: float = 48.0
    """Real photos are kept for the detector at a scale where their median die is this many
    px (never enlarged): its windows then shrink them more often than they blow them up."""
    cls_steps: int = 2400
    cls_lr: float = 2e-3
    cls_real_share: float = 0.5
    wild_share: float = 0.5
    """Share of the synthetic draws of the classifier given to wild-scene crops."""
    negatives_per_photo: int = 300
    box_copies: int = 2
    symbol_boost: float = 4.0
    camera_aug: str = "mild"
    gloss: float = 0.25
    width: int = 24
    arch: str = "pool"
    pretrain_epochs: int = 10
    solids: int = 0
    """Solid scenes (``wild_data.wild_samples(solids=True)``: rendered RPG dice among the
    d6) mixed into the fold's stages; 0 leaves them out (the recipe before 2026-12-01)."""
    solid_share: float = 0.2
    """Their share of the detector's rendered draws and of the classifier's wild draws."""

    def key(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:10]


def _domain_weights(domains: list[str]) -> np.ndarray:
    """Each domain an equal share, each photo an equal share of its domain's."""
    names, counts = np.unique(domains, return_counts=True)
    per = dict(zip(names, 1.0 / (len(names) * counts), strict=True))
    return np.array([per[d] for d in domains])


def _detector_base_path(recipe: Recipe) -> Path:
    return CACHE / (f"detbase_s{recipe.seed}_n{recipe.scenes}_w{recipe.wild}"
                    f"_st{recipe.det_base_steps}"
                    f"_px{recipe.det_die_px[0]:g}-{recipe.det_die_px[1]:g}.pt")


def detector_base_onnx(recipe: Recipe) -> Path:
    """The detector base as ONNX (what mines the wild scenes' hard negatives; cached)."""
    path = _detector_base_path(recipe).with_suffix(".onnx")
    if not path.exists():
        net = DiceDetector()
        net.load_state_dict(detector_base(recipe))
        export_detector(net.eval(), path)
    return path


def detector_base(recipe: Recipe) -> dict:
    """State dict of the detector trained on rendered scenes only (cached)."""
    path = _detector_base_path(recipe)
    if path.exists():
        logger.info("detector base from %s", path)
        return torch.load(path)
    syn_images, syn_boxes = synthetic_detector(recipe.seed, recipe.scenes, CROP_PX)
    wild_images, wild_boxes = wild_detector(recipe.seed, recipe.wild)
    images = syn_images + wild_images
    boxes = syn_boxes + wild_boxes
    w = np.array([0.5 / len(syn_images)] * len(syn_images)
                 + [0.5 / len(wild_images)] * len(wild_images))
    net = train_detector(images, boxes, w, recipe.det_base_steps, recipe.seed,
                         die_px=recipe.det_die_px, lr=3e-3)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), path)
    return net.state_dict()


def _detector_view(photo: RealPhoto, image: np.ndarray, side: float
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The photo (balanced) shrunk so its median die is ``side`` px, with its boxes and
    regions to ignore."""
    sides = np.max(photo.boxes[:, 2:] - photo.boxes[:, :2], axis=1) if len(photo.boxes) \
        else np.array([side])
    s = min(1.0, side / float(np.median(sides)))
    if s < 1.0:
        image = cv2.resize(image, (max(1, round(image.shape[1] * s)),
                                   max(1, round(image.shape[0] * s))),
                           interpolation=cv2.INTER_AREA)
    return image, (photo.boxes * s).astype(np.float32), (photo.ignore * s).astype(np.float32)


def _mixed_draws(photos: list[RealPhoto], images: list[np.ndarray], recipe: Recipe,
                 keep: float = 1.0
                 ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], np.ndarray]:
    """The detector's rendered pip scenes, wild scenes and the fold's real photos (images,
    boxes, regions to ignore, draw weights summing to ``keep``): the real photos
    ``recipe.det_real_share`` of it, each domain an equal part; the rendered kinds halves of
    the rest."""
    syn_images, syn_boxes = synthetic_detector(recipe.seed, recipe.scenes, CROP_PX)
    wild_images, wild_boxes = wild_detector(recipe.seed, recipe.wild)
    solid_images, solid_boxes = wild_detector(recipe.seed, recipe.solids, solids=True) \
        if recipe.solids else ([], [])
    views = [_detector_view(p, img, recipe.det_real_side)
             for p, img in zip(photos, images, strict=True)]
    det_images = syn_images + wild_images + solid_images + [v[0] for v in views]
    det_boxes = syn_boxes + wild_boxes + solid_boxes + [v[1] for v in views]
    n_syn, n_wild, n_solid = len(syn_images), len(wild_images), len(solid_images)
    ignores = [np.zeros((0, 4))] * (n_syn + n_wild + n_solid) + [v[2] for v in views]
    real = keep * recipe.det_real_share if photos else 0.0
    solid_w = (keep - real) * recipe.solid_share if n_solid else 0.0
    rendered = (keep - real - solid_w) / 2
    w = np.concatenate([np.full(n_syn, rendered / n_syn), np.full(n_wild, rendered / n_wild),
                        np.full(n_solid, solid_w / max(n_solid, 1)),
                        real * _domain_weights([p.domain for p in photos])
                        if photos else np.zeros(0)])
    return det_images, det_boxes, ignores, w


def fold_detector(photos: list[RealPhoto], images: list[np.ndarray], recipe: Recipe
                  ) -> DiceDetector:
    """The detector base gone on with the real photos mixed in."""
    base = detector_base(recipe)
    det_images, det_boxes, ignores, w = _mixed_draws(photos, images, recipe)
    return train_detector(det_images, det_boxes, w, recipe.det_steps, recipe.seed + 1,
                          die_px=recipe.det_die_px, ignores=ignores, init=base,
                          lr=recipe.det_lr)


TYPED_SCENES = 1600
TYPED_SHARE = 0.4
TYPED_STEPS = 3000
"""The typed stage's recipe: that of the pair before's tuned detector (models/dice_reader.md,
V3), its real share given to the fold's domains, each an equal part."""


def _typed_photos_cached(n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``tune_detector.typed_photos(n)`` kept in runs/cache (8 minutes to render)."""
    import pickle

    from models.training.dice.tune_detector import TYPED_SEED, typed_photos

    path = CACHE / f"typed_s{TYPED_SEED}_n{n}.pkl"
    if path.exists():
        images, boxes = cache_file.load(path)
        return images, boxes
    images, boxes = typed_photos(n)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        pickle.dump((images, boxes), f, protocol=pickle.HIGHEST_PROTOCOL)
    return images, boxes


def typed_stage(detector: Path, photos: list[RealPhoto], images: list[np.ndarray],
                recipe: Recipe, steps: int = TYPED_STEPS) -> DiceDetector:
    """The fold's detector (ONNX file ``detector``) fine-tuned with the typed photos a
    ``TYPED_SHARE`` of the draws, the fold's real photos (each domain an equal part) and the
    rendered pip and wild scenes the rest, at the pyramid's dice sizes."""
    from models.training.dice.tune_detector import from_onnx

    typed_img, typed_box = _typed_photos_cached(TYPED_SCENES)
    images_, boxes_, ignores_, w_ = _mixed_draws(photos, images, recipe, 1 - TYPED_SHARE)
    det_images, det_boxes = typed_img + images_, typed_box + boxes_
    ignores = [np.zeros((0, 4))] * len(typed_img) + ignores_
    w = np.concatenate([np.full(len(typed_img), TYPED_SHARE / len(typed_img)), w_])
    return train_detector(det_images, det_boxes, w, steps, recipe.seed + 5,
                          die_px=recipe.det_die_px, ignores=ignores, net=from_onnx(detector),
                          lr=recipe.det_lr)


def typed_pair(fold: Path, out: Path, steps: int = TYPED_STEPS) -> dict:
    """Copy the pair in ``fold`` to ``out`` with its detector through :func:`typed_stage`;
    returns the record (also out/record.json)."""
    import shutil

    t0 = time.time()
    record = json.loads((fold / "record.json").read_text())
    saved: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                             for k, v in record["recipe"].items()}
    recipe = Recipe(**saved)
    photos = training_photos(record["held_out"])
    images = [normalise_light(load_image(p.path)) for p in photos]
    det = typed_stage(fold / DETECTOR_FILE, photos, images, recipe, steps)
    out.mkdir(parents=True, exist_ok=True)
    export_detector(det, out / DETECTOR_FILE)
    shutil.copyfile(fold / CLASSIFIER_FILE, out / CLASSIFIER_FILE)
    if (fold / "float").is_dir():
        shutil.copytree(fold / "float", out / "float", dirs_exist_ok=True)
    record["typed_stage"] = {"from": f"runs/domains/{fold.parent.name}/{fold.name}",
                             "steps": steps, "typed_scenes": TYPED_SCENES,
                             "typed_share": TYPED_SHARE,
                             "minutes": round((time.time() - t0) / 60, 1)}
    (out / "record.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def _centre_in(xyxy: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    c = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    return ((c[:, None, 0] >= boxes[None, :, 0]) & (c[:, None, 0] <= boxes[None, :, 2])
            & (c[:, None, 1] >= boxes[None, :, 1]) & (c[:, None, 1] <= boxes[None, :, 3]))


def photo_crops(photo: RealPhoto, image: np.ndarray, detector: OnnxDetector,
                recipe: Recipe, rng: np.random.Generator) -> tuple[list[np.ndarray], list[int]]:
    """Classifier crops of one real photo (balanced): its dice round jittered label boxes
    and round the detector's own boxes of them at every pyramid level, "not a die" round
    the detector's boxes on nothing (at most ``negatives_per_photo``, the surest first) and
    round random places of the table."""
    crops: list[np.ndarray] = []
    labels: list[int] = []
    boxes, classes = photo.boxes.astype(np.float64), photo.classes
    for _ in range(2):
        if len(boxes):
            crops += list(crop_dice(image, jitter_boxes(boxes, rng), CROP_PX))
            labels += [int(c) for c in classes]
    found = detect_pyramid(detector, image)
    xyxy = found.xyxy.astype(np.float64)
    if len(xyxy):
        side = np.max(xyxy[:, 2:] - xyxy[:, :2], axis=1)
        if len(boxes):
            lside = np.max(boxes[:, 2:] - boxes[:, :2], axis=1)
            inside = _centre_in(xyxy, boxes)
            same = inside & (side[:, None] * 2 >= lside[None]) & (side[:, None] <= 2 * lside[None])
            big = inside & (side[:, None] > 2 * lside[None])
        else:
            inside = same = big = np.zeros((len(xyxy), 0), bool)
        for j in range(len(boxes)):
            hits = xyxy[same[:, j]]
            for _ in range(recipe.box_copies):
                if len(hits):
                    crops += list(crop_dice(image, jitter_boxes(hits, rng, 0.05), CROP_PX))
                    labels += [int(classes[j])] * len(hits)
        # Pips and parts of a die (smaller boxes centred on it) are no die either; a box
        # much bigger than the die it is centred on is left out (loose, not wrong).
        neg = ~same.any(axis=1) & ~big.any(axis=1)
        if len(photo.ignore):
            neg &= ~_centre_in(xyxy, photo.ignore).any(axis=1)
        idx = np.nonzero(neg)[0]
        idx = idx[np.argsort(-found.confidence[idx])][:recipe.negatives_per_photo]
        if len(idx):
            crops += list(crop_dice(image, jitter_boxes(xyxy[idx], rng, 0.05), CROP_PX))
            labels += [NOT_A_DIE] * len(idx)
    bg = background_boxes(image.shape, boxes, 8, rng)
    if len(bg):
        crops += list(crop_dice(image, bg, CROP_PX))
        labels += [NOT_A_DIE] * len(bg)
    return crops, labels


def real_crops(photos: list[RealPhoto], images: list[np.ndarray], detector_path: Path,
               recipe: Recipe) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, labels, domain index of each) of all real training photos."""
    detector = OnnxDetector(detector_path)
    rng = np.random.default_rng(recipe.seed + 2)
    crops, labels, dom = [], [], []
    names = sorted({p.domain for p in photos})
    for p, img in zip(photos, images, strict=True):
        c, lab = photo_crops(p, img, detector, recipe, rng)
        crops += c
        labels += lab
        dom += [names.index(p.domain)] * len(c)
    return (np.stack(crops) if crops else np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8),
            np.array(labels, np.int64), np.array(dom, np.int64))


def _solid_crops(recipe: Recipe, detector: Path | None) -> tuple[np.ndarray, np.ndarray]:
    """The solid scenes' crops (dice, their RPG dice and look-alikes as "not a die") and
    "not a die" where ``detector`` (the fold's) fires on them but on no die."""
    crops, labels = wild_crops(recipe.seed, recipe.solids, solids=True)
    if detector is None:
        return crops, labels
    hard, hard_labels = wild_negatives(recipe.seed, recipe.solids, detector, solids=True)
    return np.concatenate([crops, hard]), np.concatenate([labels, hard_labels])


def fold_classifier(real: tuple[np.ndarray, np.ndarray, np.ndarray], recipe: Recipe,
                    detector: Path | None = None) -> tuple[torch.nn.Module, float, dict]:
    """Stage two of the classifier on the fold's real crops, synthetic, wild (and solid)
    crops; returns the network, its temperature and the training's figures. ``detector``:
    the fold's, which mines the solid scenes' hard negatives."""
    n_classes = NOT_A_DIE + 1
    syn_crops, syn_labels = synthetic_crops(recipe.seed, recipe.scenes, CROP_PX)
    crops_w, labels_w = wild_crops(recipe.seed, recipe.wild)
    hard, hard_labels = wild_negatives(recipe.seed, recipe.wild, detector_base_onnx(recipe))
    crops_w = np.concatenate([crops_w, hard])
    labels_w = np.concatenate([labels_w, hard_labels])
    crops_s, labels_s = _solid_crops(recipe, detector) if recipe.solids else \
        (np.zeros((0, CROP_PX, CROP_PX, 3), np.uint8), np.zeros(0, np.int64))
    r_crops, r_labels, r_dom = real
    crops = np.concatenate([syn_crops, crops_w, crops_s, r_crops])
    labels = np.concatenate([syn_labels, labels_w, labels_s, r_labels])
    n_syn, n_wild, n_solid, n_real = len(syn_crops), len(crops_w), len(crops_s), len(r_crops)
    del crops_w, labels_w, crops_s
    is_real = np.zeros(len(crops), bool)
    is_real[n_syn + n_wild + n_solid:] = True
    real_share = recipe.cls_real_share if n_real else 0.0
    # Rendered draws: the wild scenes their share (the solid scenes a part of it), custom
    # (symbol) faces boosted among the others; real draws: each domain an equal share.
    syn_w = draw_weights(np.zeros(n_syn, bool), syn_labels, 0.0, recipe.symbol_boost)
    wild_all = (1 - real_share) * recipe.wild_share
    solid_all = wild_all * recipe.solid_share if n_solid else 0.0
    w = np.concatenate([syn_w / syn_w.sum() * (1 - real_share) * (1 - recipe.wild_share),
                        np.full(n_wild, (wild_all - solid_all) / n_wild),
                        np.full(n_solid, solid_all / max(n_solid, 1)),
                        np.zeros(n_real)])
    if n_real:
        per = np.bincount(r_dom).astype(np.float64)
        w[n_syn + n_wild + n_solid:] = real_share / len(per[per > 0]) / per[r_dom]
    rng = np.random.default_rng(recipe.seed + 3)
    held = np.zeros(len(crops), bool)
    held[rng.choice(len(crops), int(0.05 * len(crops)), replace=False)] = True
    base = pretrained(syn_crops, syn_labels,
                      base_path(recipe.seed, recipe.scenes, CROP_PX, recipe.pretrain_epochs,
                                recipe.width, recipe.arch, recipe.gloss),
                      recipe.seed, recipe.pretrain_epochs, n_classes, width=recipe.width,
                      arch=recipe.arch, gloss=recipe.gloss)
    net = train_classifier(crops[~held], labels[~held], w[~held], 0, recipe.seed, n_classes,
                           width=recipe.width, arch=recipe.arch, gloss=recipe.gloss, init=base,
                           lr=recipe.cls_lr, steps=recipe.cls_steps, desc="tune (domains)",
                           camera_aug=recipe.camera_aug)
    val = logits_of(net, crops[held])
    temperature = fit_temperature(val, labels[held])
    if not np.isfinite(temperature) or temperature <= 0:
        raise RuntimeError(f"the classifier's temperature came out {temperature}: the "
                           "training diverged")
    acc = (val.argmax(1).numpy() == labels[held])
    return net, temperature, {
        "crops": {"synthetic": n_syn, "wild": n_wild, "wild_hard_negatives": len(hard),
                  "solid": n_solid, "real": n_real,
                  "real_not_a_die": int((r_labels == NOT_A_DIE).sum())},
        "held_out_accuracy": float(acc.mean()),
        "held_out_real_accuracy": float(acc[is_real[held]].mean()) if is_real[held].any()
        else None,
        "temperature": temperature}


def _export_classifier(net: torch.nn.Module, temperature: float, out: Path,
                       calibration: np.ndarray) -> None:
    """Float ONNX (kept under out/float), its int8 quantisation with the features output
    added (``export.add_features_output``) in ``out``."""
    float_dir = out / "float"
    float_dir.mkdir(parents=True, exist_ok=True)
    float_path = float_dir / CLASSIFIER_FLOAT_FILE
    export_classifier(net, temperature, float_path)
    plain = float_dir / "int8_plain.onnx"
    quantize(float_path, plain, calibration)
    add_features_output(plain, out / CLASSIFIER_FILE)
    plain.unlink()
    from vision.dice.classifier import FaceClassifier

    if not FaceClassifier(out / CLASSIFIER_FILE).has_features:
        raise RuntimeError(f"the int8 classifier lost its {FEATURES_OUTPUT!r} output")


def train_pair(held_out: str | None, out: Path, recipe: Recipe) -> dict:
    """Train the detector and classifier without domain ``held_out`` (None: with all) into
    ``out``; returns the training record (also written to out/record.json)."""
    t0 = time.time()
    out.mkdir(parents=True, exist_ok=True)
    photos = training_photos(held_out)
    images = [normalise_light(load_image(p.path)) for p in photos]
    print(f"{len(photos)} real training photos ({held_out or 'nothing'} held out)",
          file=sys.stderr)
    det = fold_detector(photos, images, recipe)
    export_detector(det, out / DETECTOR_FILE)
    real = real_crops(photos, images, out / DETECTOR_FILE, recipe)
    del images  # (the photos are some GB; the classifier needs only their crops)
    net, temperature, figures = fold_classifier(real, recipe, out / DETECTOR_FILE)
    rng = np.random.default_rng(recipe.seed + 4)
    calib = real[0][rng.choice(len(real[0]), min(600, len(real[0])), replace=False)] \
        if len(real[0]) else synthetic_crops(recipe.seed, recipe.scenes, CROP_PX)[0][:600]
    _export_classifier(net, temperature, out, calib)
    record = {"held_out": held_out, "recipe": asdict(recipe), "recipe_key": recipe.key(),
              "real_photos": len(photos),
              "domains": sorted({p.domain for p in photos}),
              "classifier": figures, "minutes": round((time.time() - t0) / 60, 1),
              "torch": torch.__version__}
    (out / "record.json").write_text(json.dumps(record, indent=2) + "\n")
    return record
