"""A linear correction of the face classifier learnt from one table's own dice, in numpy.

The shipped classifier ends in global average pooling and one linear layer; the pooled
vector (its *features*) is what the network knows of a crop. A few labelled crops of a
table's dice are far too few to retrain a network, but enough for a linear correction on
those features: ``logits + W f + b``, fitted by weighted cross-entropy with W and b pulled
towards zero. Zero is the shipped model, so a class the table never showed keeps its shipped
reading, and a face the table always showed one way (a skull the players call 1) moves
towards the players' label. This is the linear probe of few-shot learning (Tian et al.
2020, "Rethinking few-shot image classification"), started from the model's own head.

Everything here is numpy: the Raspberry Pi has no torch, and a fit on a few hundred crops
takes milliseconds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

logger = logging.getLogger(__name__)

#: Weight of the pull of W and b towards zero (the shipped model), in examples: the pull is
#: worth as much as this many examples of weight 1, so it counts less as examples come in.
L2 = 1.0
#: Adam steps and rate of the fit: the problem is convex and small; 400 steps reach a loss
#: within 1e-4 of their end on the domains' examples.
STEPS = 400
RATE = 0.05
#: Features whose spread over the examples is under this are not standardised up: a unit
#: that never fires on this table's crops must not blow up on the next one.
MIN_SPREAD = 0.05


@dataclass(frozen=True, slots=True)
class FaceResidual:
    """``logits + ((f - mean) / scale) @ weight.T + bias`` over the classifier's features."""

    mean: np.ndarray
    """(F,) the examples' feature means."""
    scale: np.ndarray
    """(F,) their spreads (at least MIN_SPREAD)."""
    weight: np.ndarray
    """(C, F) the correction's weights, C the classifier's classes."""
    bias: np.ndarray
    """(C,) its biases."""

    def __post_init__(self) -> None:
        f, c = len(self.mean), len(self.bias)
        shapes = {"mean": (self.mean, (f,)), "scale": (self.scale, (f,)),
                  "weight": (self.weight, (c, f)), "bias": (self.bias, (c,))}
        for name, (arr, shape) in shapes.items():
            arr = np.asarray(arr, np.float64)
            if arr.shape != shape:
                raise ValueError(f"{name} must have shape {shape}, not {arr.shape}")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"{name} must be finite")
            object.__setattr__(self, name, arr)
        if np.any(self.scale <= 0):
            raise ValueError("scale must be positive")

    @property
    def features(self) -> int:
        return len(self.mean)

    @property
    def classes(self) -> int:
        return len(self.bias)

    def apply(self, logits: np.ndarray, features: np.ndarray) -> np.ndarray:
        """Corrected logits (N, C) from the shipped ones and the crops' features (N, F)."""
        z = (np.asarray(features, np.float64) - self.mean) / self.scale
        return (np.asarray(logits, np.float64) + z @ self.weight.T + self.bias).astype(
            np.float32)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit_residual(features: np.ndarray, logits: np.ndarray, labels: np.ndarray,
                 weights: np.ndarray | None = None, l2: float | np.ndarray = L2,
                 steps: int = STEPS, rate: float = RATE,
                 free_bias: np.ndarray | None = None) -> FaceResidual:
    """The correction that best explains ``labels`` (N,) class indices from the shipped
    ``logits`` (N, C) and ``features`` (N, F), each example weighted by ``weights``
    (default 1 each), pulled towards zero by ``l2`` (:data:`L2`; one value, or one per
    class row). ``free_bias``: 1 for the rows whose bias may move (default all)."""
    x = np.asarray(features, np.float64)
    base = np.asarray(logits, np.float64)
    y = np.asarray(labels, np.int64)
    n, c = base.shape
    if x.shape[0] != n or y.shape != (n,) or n == 0:
        raise ValueError(f"need matching, non-empty examples: features {x.shape}, logits "
                         f"{base.shape}, labels {y.shape}")
    if y.min() < 0 or y.max() >= c:
        raise ValueError(f"labels must be class indices 0..{c - 1}")
    w = np.ones(n) if weights is None else np.asarray(weights, np.float64)
    total = float(w.sum())
    if not total > 0:
        raise ValueError("the examples' weights must sum to more than 0")
    share = w / total
    mean = (share[:, None] * x).sum(axis=0)
    scale = np.maximum(np.sqrt((share[:, None] * (x - mean) ** 2).sum(axis=0)), MIN_SPREAD)
    z = (x - mean) / scale
    onehot = np.eye(c)[y]
    params = np.zeros((c, z.shape[1] + 1))  # weight | bias
    # The gradient is taken per unit of total weight (Adam's steps keep their size however
    # many examples there are); the pull in examples is divided alike.
    pull = np.broadcast_to(np.asarray(l2, np.float64).reshape(-1, 1), (c, 1)) / total
    bias_on = np.ones(c) if free_bias is None else np.asarray(free_bias, np.float64)
    zb = np.column_stack([z, np.ones(n)])
    m1 = np.zeros_like(params)
    m2 = np.zeros_like(params)
    b1, b2 = 0.9, 0.999
    for t in range(1, steps + 1):
        p = _softmax(base + zb @ params.T)
        grad = ((p - onehot) * share[:, None]).T @ zb + pull * params
        grad[:, -1] *= bias_on
        m1 = b1 * m1 + (1 - b1) * grad
        m2 = b2 * m2 + (1 - b2) * grad**2
        params -= rate * (m1 / (1 - b1**t)) / (np.sqrt(m2 / (1 - b2**t)) + 1e-8)
    return FaceResidual(mean=mean, scale=scale, weight=params[:, :-1], bias=params[:, -1])
