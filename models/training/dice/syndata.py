"""The synthetic training data on disk (``runs/cache``, git-ignored): rendered once per seed.

``load_synthetic`` gives the whole samples (detector images too, a 2-3 GB pickle);
``synthetic_crops`` only the classifier's crops (a quicker cache of its own), and
``synthetic_negatives`` the crops where a given detector fires on no die (hard negatives,
cached per detector file). Every cache name says the renderer's data version, the seed, the
number of scenes and the crop size, so a change of any of them never reuses old pixels.
"""

from __future__ import annotations

import hashlib
import logging
import pickle
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from models.training.dice import cache as cache_file
from models.training.dice.dataset import Samples, hard_negatives, synthetic

logger = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parents[3]
CACHE = REPO / "runs" / "cache"
#: Bump when the renderer or the sample format changes (invalidates runs/cache).
#: 4: glossy dice (glints, lit bevels and pip rims), see-through pips, smoky bodies.
DATA_VERSION = 4


def data_key(seed: int, scenes: int, size: int) -> str:
    return f"v{DATA_VERSION}_seed{seed}_n{scenes}_px{size}"


def load_synthetic(seed: int, scenes: int, size: int) -> Samples:
    """All synthetic samples (rendered with 2 processes the first time, minutes)."""
    cache = CACHE / f"data_{data_key(seed, scenes, size)}.pkl"
    if cache.exists():
        print(f"using cached data {cache}", file=sys.stderr)
        syn, _ = cache_file.load(cache)
        return syn
    syn = synthetic(scenes, seed, size=size)
    cache.parent.mkdir(parents=True, exist_ok=True)
    with open(cache, "wb") as f:
        pickle.dump((syn, Samples()), f, protocol=pickle.HIGHEST_PROTOCOL)
    return syn


def synthetic_detector(seed: int, scenes: int, size: int
                       ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(images, boxes) of the synthetic scenes for the detector, memory-mapped
    (``cache.detector_images``)."""
    def make() -> tuple[list[np.ndarray], list[np.ndarray]]:
        syn = load_synthetic(seed, scenes, size)
        return syn.det_images, syn.det_boxes

    return cache_file.detector_images(CACHE / f"det_{data_key(seed, scenes, size)}", make)


def _cached_crops(cache: Path, make: Callable[[], tuple[np.ndarray, np.ndarray]]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(crops, labels) from the .npz ``cache``, made by ``make`` and kept there the first time."""
    if cache.exists():
        z = np.load(cache)
        return z["crops"], z["labels"]
    crops, labels = make()
    np.savez(cache, crops=crops, labels=labels)
    return crops, labels


def synthetic_crops(seed: int, scenes: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(crops (N, S, S, 3) uint8, classes (N,)) of the synthetic scenes."""
    def make() -> tuple[np.ndarray, np.ndarray]:
        syn = load_synthetic(seed, scenes, size)
        return np.stack(syn.crops), np.array(syn.labels, np.int64)

    return _cached_crops(CACHE / f"crops_{data_key(seed, scenes, size)}.npz", make)


def synthetic_negatives(seed: int, scenes: int, size: int, detector: Path
                        ) -> tuple[np.ndarray, np.ndarray]:
    """'Not a die' crops where ``detector`` fires on the synthetic scenes but no die is."""
    tag = hashlib.sha256(Path(detector).read_bytes()).hexdigest()[:10]

    def make() -> tuple[np.ndarray, np.ndarray]:
        syn = load_synthetic(seed, scenes, size)
        neg = hard_negatives(syn.det_images, syn.det_boxes, detector,
                             np.random.default_rng(seed), 2, size)
        crops = np.stack(neg.crops) if neg.crops else np.zeros((0, size, size, 3), np.uint8)
        return crops, np.array(neg.labels, np.int64)

    return _cached_crops(CACHE / f"negatives_{data_key(seed, scenes, size)}_{tag}.npz", make)


def base_path(seed: int, scenes: int, size: int, epochs: int, width: int, arch: str,
              gloss: float) -> Path:
    """Where the synthetic-only (stage one) classifier of these settings is kept."""
    return CACHE / (f"base_{data_key(seed, scenes, size)}_e{epochs}_w{width}_{arch}"
                    f"_g{gloss:g}.pt")
