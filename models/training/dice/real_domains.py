"""The real photo sets, one per table: each a *domain* (its own person, camera, dice, light).

``../shared/data/real-dice`` and the three sets of ``../shared/data/real-dice-domains`` are
four domains. A model is judged on a domain it never saw (``models.training.dice.domains``:
leave one domain out), so training code asks here for the photos of every domain but one.

``real-dice``'s test split is never trained on, in any fold or in the shipped models: it stays
the check that the reader did not get worse on the table it was first tuned on. Its train
split is read with the label fixes of ``models/real_dice_fixes.csv`` (dice seen by eye to show
another value than the source's label).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from models.training.dice.dataset import label_fixes, shared_dir
from vision.measure.evaluate import Labelled, list_dataset

logger = logging.getLogger(__name__)

#: Domain name -> folder under ``../shared/data``.
DOMAINS: dict[str, str] = {
    "real-dice": "real-dice",
    "skovy": "real-dice-domains/skovy",
    "damiantab": "real-dice-domains/damiantab",
    "kamil": "real-dice-domains/kamil",
}
#: The split of a domain that training may use (None: every photo).
TRAIN_SPLIT: dict[str, str | None] = {"real-dice": "train"}


@dataclass(frozen=True)
class RealPhoto:
    """One labelled real photo."""

    domain: str
    path: Path
    boxes: np.ndarray
    """(M, 4) x0, y0, x1, y1 pixels of each labelled die."""
    classes: np.ndarray
    """(M,) pip value - 1 (the classifier's class)."""
    ignore: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    """(K, 4) x0, y0, x1, y1 pixels of regions to learn nothing from (unreadable dice, d6
    with numerals: neither dice to find nor background)."""
    width: int = 0
    height: int = 0

    @property
    def values(self) -> np.ndarray:
        return self.classes + 1


def domain_dir(name: str) -> Path:
    if name not in DOMAINS:
        raise ValueError(f"unknown domain {name!r}; the domains are {', '.join(DOMAINS)}")
    return shared_dir() / "data" / DOMAINS[name]


def domain_items(name: str, split: str | None = None) -> list[Labelled]:
    """The labelled photos of a domain (all, or one split of real-dice), as published."""
    return list_dataset(domain_dir(name), split)


def _image_size(path: Path) -> tuple[int, int]:
    import cv2

    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"cannot read {path}")
    return int(img.shape[1]), int(img.shape[0])


def domain_photos(name: str, training: bool = True) -> list[RealPhoto]:
    """The photos of domain ``name``: with ``training`` only those training may use (its
    train split, labels fixed), else all of them as published."""
    split = TRAIN_SPLIT.get(name) if training else None
    fixes = label_fixes("train") if name == "real-dice" and training else {}
    out = []
    for item in domain_items(name, split):
        w, h = _image_size(item.image)
        classes = item.values.astype(np.int64) - 1
        for (image, j), (was, seen) in fixes.items():
            if image == item.image.name:
                if classes[j] != was:
                    raise ValueError(f"label fix for {image} die {j} expects {was + 1}, the "
                                     f"source has {classes[j] + 1}")
                classes[j] = seen
        out.append(RealPhoto(name, item.image, item.xyxy(w, h), classes,
                             item.ignore_xyxy(w, h), w, h))
    return out


def training_photos(held_out: str | None = None) -> list[RealPhoto]:
    """The photos of every domain but ``held_out`` that training may use."""
    out = []
    for name in DOMAINS:
        if name != held_out:
            out += domain_photos(name)
    return out
