"""Training samples from wild table scenes (``vision.synth.wild_scenes``), cached in ``runs/cache``.

A wild scene's image is first balanced as the reader balances every photo
(``vision.dice.photometry.normalise_light``); it gives the detector one image (at the render's
own size: the detector's windows
are scaled from it, ``train_detector.sample_window``'s ``die_px``) and the classifier crops
of its dice (cut round jittered truth boxes, as the reader cuts them), "not a die" crops of
its look-alikes (keys, buttons, RPG dice...) and of random places on the table.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import sys
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from models.training.dice import cache as cache_file
from models.training.dice.dataset import (
    Samples,
    background_boxes,
    classifier_classes,
    jitter_boxes,
)
from models.training.dice.syndata import CACHE
from vision.dice.classifier import CROP_PX, NOT_A_DIE, crop_dice
from vision.dice.photometry import normalise_light

logger = logging.getLogger(__name__)

#: Bump when what is kept per scene changes (invalidates the cache); the renderer's own
#: version (``vision.synth.wild_scenes.WILD_SCENES_VERSION``) is in the cache's name too.
WILD_VERSION = 1
#: Render sizes (width, height): phones' 4:3 and 3:4, webcams' 16:9, square.
SIZES = ((640, 480), (480, 640), (800, 600), (640, 640), (960, 540), (768, 1024))
#: Crops per die, per look-alike and of random table per scene.
DIE_CROPS, LOOKALIKE_CROPS, TABLE_CROPS = 2, 2, 4


#: The solid scenes' polyhedral dice per scene (``wild_scene``'s ``solids``): RPG dice heaped
#: round the d6 or scattered, as players' tables hold them (``real-dice-domains/kamil``).
SOLIDS = (2, 14)
#: ... and the chance that their d6 are of the glossy sets hardest to tell from the table
#: (``wild_scene``'s ``hard_looks``).
HARD_LOOKS = 0.6
#: Bump when the solid scenes change (``vision.synth.polyhedra``, ``vision.synth.wild_solids``,
#: ``vision.synth.wild_looks.hard_look``). 2: hard looks.
SOLIDS_VERSION = 2


def wild_key(seed: int, scenes: int, size: int, solids: bool = False) -> str:
    from vision.synth.wild_scenes import WILD_SCENES_VERSION

    kind = f"solids{SOLIDS_VERSION}" if solids else ""
    return f"wild{WILD_VERSION}r{WILD_SCENES_VERSION}{kind}_seed{seed}_n{scenes}_px{size}"


def _one(job: tuple[int, int, bool]) -> tuple[Samples, np.ndarray]:
    from vision.synth.wild_scenes import wild_render

    seed, size, solids = job
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    w, h = SIZES[int(rng.integers(len(SIZES)))]
    extra = {"solids": SOLIDS, "hard_looks": HARD_LOOKS} if solids else {}
    scene, r, look = wild_render(rng, w, h, **extra)
    image = normalise_light(r.image)
    s = Samples()
    s.det_images.append(image)
    boxes = r.boxes.astype(np.float64)
    s.det_boxes.append(boxes.astype(np.float32))
    classes = classifier_classes(scene, r)
    for _ in range(DIE_CROPS):
        if len(boxes):
            s.crops += list(crop_dice(image, jitter_boxes(boxes, rng), size))
            s.labels += [int(c) for c in classes]
    for _ in range(LOOKALIKE_CROPS):
        if len(look):
            s.crops += list(crop_dice(image, jitter_boxes(look.astype(np.float64), rng, 0.05),
                                      size))
            s.labels += [NOT_A_DIE] * len(look)
    bg = background_boxes(image.shape, boxes, TABLE_CROPS, rng)
    if len(bg):
        s.crops += list(crop_dice(image, bg, size))
        s.labels += [NOT_A_DIE] * len(bg)
    return s, look.astype(np.float32)


def wild_samples(seed: int, scenes: int, size: int = CROP_PX, workers: int = 2,
                 solids: bool = False) -> tuple[Samples, list[np.ndarray]]:
    """Samples of ``scenes`` wild scenes (scene i seeded by (seed, i)) and each scene's
    look-alike boxes; rendered the first time (about 0.3 s a scene on one core), then read
    from the cache. ``solids``: the solid scenes instead (RPG dice among the d6,
    :data:`SOLIDS`; their seeds are others than the wild scenes')."""
    cache = CACHE / f"data_{wild_key(seed, scenes, size, solids)}.pkl"
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache_file.building(cache) as make:
        if not make:
            print(f"using cached wild scenes {cache}", file=sys.stderr)
            return cache_file.load(cache)
        seeds = [int(np.random.SeedSequence([seed, 13 if solids else 7, i]).generate_state(1)[0])
                 for i in range(scenes)]
        out, looks = Samples(), []
        with Pool(workers) as pool:
            for s, look in tqdm(pool.imap(_one, [(sd, size, solids) for sd in seeds],
                                          chunksize=4),
                                total=scenes, desc="wild scenes", unit="scene", mininterval=30):
                out.extend(s)
                looks.append(look)
        tmp = cache.with_name(cache.name + ".tmp")
        with open(tmp, "wb") as f:
            pickle.dump((out, looks), f, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(cache)
    return out, looks


def wild_detector(seed: int, scenes: int, size: int = CROP_PX, solids: bool = False
                  ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(images, boxes) of the wild (or solid) scenes for the detector, memory-mapped
    (``cache.detector_images``)."""
    def make() -> tuple[list[np.ndarray], list[np.ndarray]]:
        samples, _ = wild_samples(seed, scenes, size, solids=solids)
        return samples.det_images, samples.det_boxes

    return cache_file.detector_images(CACHE / f"det_{wild_key(seed, scenes, size, solids)}",
                                      make)


def wild_crops(seed: int, scenes: int, size: int = CROP_PX, solids: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
    """(crops, labels) of the wild (or solid) scenes alone, from a cache of their own: the
    classifier needs none of the scenes' images (the whole samples are some 5 GB)."""
    cache = CACHE / f"crops_{wild_key(seed, scenes, size, solids)}.npz"
    with cache_file.building(cache) as make:
        if not make:
            z = np.load(cache)
            return z["crops"], z["labels"]
        samples, _ = wild_samples(seed, scenes, size, solids=solids)
        crops, labels = np.stack(samples.crops), np.array(samples.labels, np.int64)
        del samples
        tmp = cache.with_name(cache.name + ".tmp.npz")
        np.savez(tmp, crops=crops, labels=labels)
        tmp.replace(cache)
    return crops, labels


#: At most this many "not a die" crops where the detector fires on a wild scene's table.
HARD_PER_SCENE = 12


def wild_negatives(seed: int, scenes: int, detector: Path, size: int = CROP_PX,
                   solids: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """'Not a die' crops where ``detector`` fires, at any level of the image pyramid, on the
    wild (or solid) scenes' tables but on no die (the surest first), cached per detector
    file."""
    from vision.dice.detector import DiceDetector
    from vision.dice.scales import detect_pyramid

    tag = hashlib.sha256(Path(detector).read_bytes()).hexdigest()[:10]
    cache = CACHE / f"wildneg_{wild_key(seed, scenes, size, solids)}_{tag}.npz"
    if cache.exists():
        z = np.load(cache)
        return z["crops"], z["labels"]
    images, all_boxes = wild_detector(seed, scenes, size, solids)
    det = DiceDetector(detector)
    rng = np.random.default_rng([seed, 11])
    crops: list[np.ndarray] = []
    for img, boxes in tqdm(list(zip(images, all_boxes, strict=True)),
                           desc="wild hard negatives", unit="scene", mininterval=30):
        found = detect_pyramid(det, img)
        if not len(found):
            continue
        c = found.center
        if len(boxes):
            pad = (boxes[:, 2:] - boxes[:, :2]) * 0.25
            near = ((c[:, None, :] >= boxes[None, :, :2] - pad)
                    & (c[:, None, :] <= boxes[None, :, 2:] + pad)).all(axis=2).any(axis=1)
        else:
            near = np.zeros(len(found), bool)
        idx = np.nonzero(~near)[0]
        idx = idx[np.argsort(-found.confidence[idx])][:HARD_PER_SCENE]
        if len(idx):
            crops += list(crop_dice(img, jitter_boxes(found.xyxy[idx].astype(np.float64), rng,
                                                      0.05), size))
    out = np.stack(crops) if crops else np.zeros((0, size, size, 3), np.uint8)
    labels = np.full(len(out), NOT_A_DIE, np.int64)
    np.savez(cache, crops=out, labels=labels)
    return out, labels
