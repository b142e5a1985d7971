"""Training of the CenterNet-style dice detector (see ``nets.DiceDetector``).

Samples are images already resized by the runtime's ``preprocess_image``; training takes
random 256x256 windows at a random extra scale (so other cameras' dice sizes are covered),
random dihedral flips and colour-channel shuffles, and learns a Gaussian centre heat map
(focal loss) plus log box size and sub-cell offset at the centre cells (L1).
"""

from __future__ import annotations

import logging

import cv2
import numpy as np
import torch
from torch.nn import functional as F
from tqdm import tqdm

from models.training.nets import DiceDetector
from vision.dice.detector import STRIDE

logger = logging.getLogger(__name__)

WINDOW = 256


def ignore_mask(ignore: np.ndarray | None, size: int) -> np.ndarray:
    """(g, g) 1 on the cells of the boxes (window px) to learn nothing from, else 0."""
    g = size // STRIDE
    mask = np.zeros((g, g), np.float32)
    for x0, y0, x1, y1 in ([] if ignore is None else ignore):
        a, b = max(int(x0 // STRIDE), 0), min(int(np.ceil(x1 / STRIDE)), g)
        c, d = max(int(y0 // STRIDE), 0), min(int(np.ceil(y1 / STRIDE)), g)
        if a < b and c < d:
            mask[c:d, a:b] = 1.0
    return mask


def make_targets(boxes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Heat (g, g), regression targets (4, g, g) and their mask (g, g) for boxes in window px."""
    g = size // STRIDE
    heat = np.zeros((g, g), np.float32)
    reg = np.zeros((4, g, g), np.float32)
    mask = np.zeros((g, g), np.float32)
    yy, xx = np.mgrid[0:g, 0:g].astype(np.float32)
    for x0, y0, x1, y1 in boxes:
        cx, cy = (x0 + x1) / 2 / STRIDE, (y0 + y1) / 2 / STRIDE
        if not (0 <= cx < g and 0 <= cy < g):
            continue
        w, h = max(x1 - x0, 2.0) / STRIDE, max(y1 - y0, 2.0) / STRIDE
        sigma = max(0.6, 0.12 * min(w, h))
        ix, iy = int(cx), int(cy)
        heat = np.maximum(heat, np.exp(-((xx - ix) ** 2 + (yy - iy) ** 2) / (2 * sigma**2)))
        reg[:, iy, ix] = (np.log(w), np.log(h), cx - ix, cy - iy)
        mask[iy, ix] = 1.0
    return heat, reg, mask


def sample_window(img: np.ndarray, boxes: np.ndarray, rng: np.random.Generator,
                  ignore: np.ndarray | None = None, die_px: tuple[float, float] | None = None
                  ) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random augmented WINDOW x WINDOW view of one training image and its boxes (and,
    when ``ignore`` is given, the regions to ignore, moved alike).

    ``die_px`` (lo, hi): scale the view so that a random die's side is log-uniform in this
    range (the sizes the image pyramid hands the detector, ``vision.dice.scales.BAND``), instead
    of the fixed jitter of the image's own scale."""
    sides = np.max(boxes[:, 2:] - boxes[:, :2], axis=1) if len(boxes) else np.zeros(0)
    if die_px is not None and len(sides):
        target = float(np.exp(rng.uniform(np.log(die_px[0]), np.log(die_px[1]))))
        s = target / max(float(sides[int(rng.integers(len(sides)))]), 1.0)
    else:
        # Wide scale jitter: close-up photos have dice of 100-250 px at the network's scale.
        s = float(np.exp(rng.uniform(np.log(0.5), np.log(2.6))))
    h, w = img.shape[:2]
    mat = np.array([[s, 0, 0], [0, s, 0]], np.float64)
    # Prefer windows that contain dice: centre on a random die most of the time.
    if len(boxes) and rng.random() < 0.8:
        b = boxes[int(rng.integers(len(boxes)))]
        cx, cy = (b[0] + b[2]) / 2 * s, (b[1] + b[3]) / 2 * s
    else:
        cx, cy = rng.uniform(0, w * s), rng.uniform(0, h * s)
    ox = cx - WINDOW / 2 + rng.uniform(-WINDOW / 3, WINDOW / 3)
    oy = cy - WINDOW / 2 + rng.uniform(-WINDOW / 3, WINDOW / 3)
    mat[:, 2] = (-ox, -oy)
    border = cv2.BORDER_REFLECT if rng.random() < 0.5 else cv2.BORDER_CONSTANT
    out = cv2.warpAffine(img, mat, (WINDOW, WINDOW), flags=cv2.INTER_LINEAR, borderMode=border,
                         borderValue=tuple(int(v) for v in rng.integers(0, 255, 3)))
    shift = np.array([ox, oy, ox, oy])
    bx = boxes * s - shift
    ig = None if ignore is None else np.asarray(ignore, np.float64).reshape(-1, 4) * s - shift
    if border == cv2.BORDER_REFLECT:
        # Reflected dice outside the image would be unlabelled: blank the outside instead.
        valid = np.zeros((h, w), np.uint8) + 255
        vm = cv2.warpAffine(valid, mat, (WINDOW, WINDOW), flags=cv2.INTER_NEAREST,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        out[vm == 0] = out[vm > 0].mean(axis=0) if np.any(vm > 0) else 128
    # Dihedral flips: boxes follow.
    flip_x, flip_y, swap = rng.random() < 0.5, rng.random() < 0.5, rng.random() < 0.5
    moved = [b for b in (bx, ig) if b is not None]
    if flip_x:
        out = out[:, ::-1]
        moved = [np.stack([WINDOW - b[:, 2], b[:, 1], WINDOW - b[:, 0], b[:, 3]], 1)
                 for b in moved]
    if flip_y:
        out = out[::-1]
        moved = [np.stack([b[:, 0], WINDOW - b[:, 3], b[:, 2], WINDOW - b[:, 1]], 1)
                 for b in moved]
    if swap:
        out = out.transpose(1, 0, 2)
        moved = [b[:, [1, 0, 3, 2]] for b in moved]
    out = out[..., rng.permutation(3)]
    out = np.clip(out.astype(np.float32) * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30), 0, 255)
    if ignore is None:
        return np.ascontiguousarray(out), moved[0]
    return np.ascontiguousarray(out), moved[0], moved[1]


def focal_loss(logit: torch.Tensor, target: torch.Tensor,
               ignore: torch.Tensor | None = None) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on the centre heat map; cells where
    ``ignore`` is 1 are no negatives (a die nobody labelled may lie there)."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1 - pos
    if ignore is not None:
        neg = neg * (1 - ignore)
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p**2 * (1 - target) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def train_detector(images: list[np.ndarray], boxes: list[np.ndarray], weights: np.ndarray,
                   steps: int, seed: int, batch: int = 24, width: int = 24,
                   net: DiceDetector | None = None, lr: float = 3e-3,
                   ignores: list[np.ndarray] | None = None,
                   die_px: tuple[float, float] | None = None,
                   init: dict | None = None) -> DiceDetector:
    """Train from images (uint8 BGR at network scale) with boxes; ``weights`` pick samples.
    ``ignores``: per image, boxes of regions that are neither dice nor background;
    ``die_px``: the dice sizes to show the network (:func:`sample_window`); ``init``: a
    state dict of a torch detector to go on from (its batch norms keep learning).

    With ``net`` (a trained detector, e.g. :func:`models.training.dice.tune_detector.from_onnx`)
    it is fine-tuned instead of a new one trained: its batch norms stay frozen (the shipped
    file has them folded into the convolutions, so they hold no statistics to update)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tuning = net is not None
    if net is None:
        net = DiceDetector(width=width)
        if init is not None:
            net.load_state_dict(init)
    # (Module.to takes memory_format; torch's type stubs do not say so)
    net = net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps,
                                                pct_start=0.1)
    p = weights / weights.sum()
    net.train()
    if tuning:
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.eval()
    bar = tqdm(range(steps), desc="detector", unit="step")
    for _ in bar:
        xs, hs, rs, ms, igs = [], [], [], [], []
        for i in rng.choice(len(images), batch, p=p):
            if ignores is None and die_px is None:
                win, bx = sample_window(images[i], boxes[i], rng)  # type: ignore[misc]
                ig = None
            else:
                win, bx, ig = sample_window(  # type: ignore[misc]
                    images[i], boxes[i], rng,
                    ignore=np.zeros((0, 4)) if ignores is None else ignores[i], die_px=die_px)
            h, r, m = make_targets(bx, WINDOW)
            xs.append(win)
            hs.append(h)
            rs.append(r)
            ms.append(m)
            igs.append(ignore_mask(ig, WINDOW))
        x = (torch.from_numpy(np.stack(xs)).permute(0, 3, 1, 2) / 255.0).contiguous(
            memory_format=torch.channels_last)
        heat_t = torch.from_numpy(np.stack(hs))[:, None]
        reg_t = torch.from_numpy(np.stack(rs))
        mask = torch.from_numpy(np.stack(ms))[:, None]
        out = net(x)
        ig_t = torch.from_numpy(np.stack(igs))[:, None] if ignores is not None else None
        l_heat = focal_loss(out[:, :1], heat_t, ig_t)
        n = mask.sum().clamp(min=1)
        l_size = (F.l1_loss(out[:, 1:3], reg_t[:, 0:2], reduction="none") * mask).sum() / n
        l_off = (F.l1_loss(out[:, 3:5], reg_t[:, 2:4], reduction="none") * mask).sum() / n
        loss = l_heat + 0.5 * l_size + l_off
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        bar.set_postfix(heat=f"{l_heat.item():.3f}", size=f"{l_size.item():.3f}",
                        off=f"{l_off.item():.3f}")
    net.eval()
    return net
