"""Training of the die-face classifier and its temperature (calibration).

Crops are uint8 SxS BGR (S = --crop-px) from ``dataset``; augmentation is done per batch in
torch: dihedral flips/rotations (a face's value does not change under them), colour-channel
shuffles and inversion (a new body/pip colour pair), brightness/contrast, blur and noise, and
optionally specular highlight streaks (``highlights``, ``line_highlights``).
The temperature is fitted on held-out crops by minimising the NLL (Guo et al. 2017) and
the expected calibration error (ECE, 15 bins) is reported before and after.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np
import torch
from torch.nn import functional as F
from tqdm import tqdm

from models.training.dice.cache import building
from models.training.nets import FaceClassifier, PoolFaceClassifier
from vision.dice.detections import FACE_SYMBOL

logger = logging.getLogger(__name__)


#: Highlight centres lie within this of the crop's centre (fractions of its side).
GLOSS_SPREAD = 0.3


def _streak_axes(x: torch.Tensor, gen: torch.Generator, rate: float, spread: float
                 ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The crops a streak is drawn on (a share ``rate``: (B,) bool), and for each of them
    every pixel's (u, v) along and across its axis, (n, H, W) in crop sides; the axis has a
    random direction, its centre within ``spread`` of the crop's centre."""
    b, _, h, w = x.shape
    pick = torch.rand(b, generator=gen) < rate
    n = int(pick.sum())
    if n == 0:
        return pick, x.new_zeros(0, h, w), x.new_zeros(0, h, w)
    yy, xx = torch.meshgrid(torch.linspace(0, 1, h), torch.linspace(0, 1, w), indexing="ij")
    c = torch.empty(n, 2).uniform_(0.5 - spread, 0.5 + spread, generator=gen)
    ang = torch.empty(n).uniform_(0, 3.1416, generator=gen)
    dx, dy = xx[None] - c[:, 0, None, None], yy[None] - c[:, 1, None, None]
    cos, sin = torch.cos(ang)[:, None, None], torch.sin(ang)[:, None, None]
    return pick, dx * cos + dy * sin, -dx * sin + dy * cos


def highlights(x: torch.Tensor, gen: torch.Generator, rate: float,
               spread: float = GLOSS_SPREAD) -> torch.Tensor:
    """Soft white streaks on a share ``rate`` of the crops: the lamp's reflection on a glossy
    die, which on dark dice looks much like a light pip (a smoky 1 read as a 2). ``spread``
    below GLOSS_SPREAD puts more of them across the face's centre, where a streak joins
    pips or hides the centre pip (the real 4-5 and 3-2 misreads)."""
    pick, u, v = _streak_axes(x, gen, rate, spread)
    n = len(u)
    if n == 0:
        return x
    long = torch.empty(n).uniform_(0.04, 0.18, generator=gen)
    thin = long * torch.empty(n).uniform_(0.15, 0.6, generator=gen)
    blob = torch.exp(-0.5 * ((u / long[:, None, None]) ** 2 + (v / thin[:, None, None]) ** 2))
    amp = torch.empty(n, 1, 1).uniform_(0.3, 0.9, generator=gen)
    out = x.clone()
    out[pick] = x[pick] + (1 - x[pick]) * (amp * blob)[:, None]
    return out


def line_highlights(x: torch.Tensor, gen: torch.Generator, rate: float,
                    spread: float = GLOSS_SPREAD) -> torch.Tensor:
    """A long lamp's reflection on a glossy face, as the real photos show it: a thin, hard-
    edged, uneven bright band that runs across several pips. A pip is a dimple, so it does
    not mirror the lamp as the flat face does; its rim stays dark inside the band and the pip
    can still be counted. The rim is taken from the crop's own edges (no pip map is needed,
    so real crops get it too), the reason ``highlights``' glows cannot teach it: they wash
    everything under them out alike."""
    pick, u, v = _streak_axes(x, gen, rate, spread)
    n = len(u)
    if n == 0:
        return x
    # Lengths, widths and the unevenness were set by eye against the train photos' streaks.
    half_len = torch.empty(n, 1, 1).uniform_(0.12, 0.45, generator=gen)
    half_wid = torch.empty(n, 1, 1).uniform_(0.02, 0.08, generator=gen)
    edge = 0.012  # about half a pixel at 48 px: the band's sides are sharp
    band = torch.sigmoid((half_wid - v.abs()) / edge) * \
        torch.sigmoid((half_len - u.abs()) / (3 * edge))
    period = torch.empty(n, 1, 1).uniform_(0.15, 0.4, generator=gen)
    phase = torch.empty(n, 1, 1).uniform_(0, 6.2832, generator=gen)
    uneven = 0.8 + 0.2 * torch.cos(6.2832 * u / period + phase)
    amp = torch.empty(n, 1, 1).uniform_(0.5, 1.0, generator=gen)
    sel = x[pick]
    # Replicated, not zero, padding: the crop's own border is no edge.
    grey = F.pad(sel.mean(dim=1, keepdim=True), (1, 1, 1, 1), mode="replicate")
    gx = F.conv2d(grey, torch.tensor([[[[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]]]]))
    gy = F.conv2d(grey, torch.tensor([[[[-1.0, -2, -1], [0, 0, 0], [1, 2, 1]]]]))
    grad = (gx ** 2 + gy ** 2).sqrt()
    grad = grad / grad.amax(dim=(2, 3), keepdim=True).clamp_min(1e-6)
    rim = torch.empty(n, 1, 1, 1).uniform_(0.3, 0.8, generator=gen)
    glare = (amp * band * uneven)[:, None]
    lit = sel + (1 - sel) * glare
    out = x.clone()
    out[pick] = lit * (1 - rim * glare * grad)
    return out


#: Highlight styles: ``blob``, soft elliptic glows; ``line``, the real set's lamp reflections.
_GLOSS_DRAW = {"blob": highlights, "line": line_highlights}
GLOSS_STYLES = tuple(_GLOSS_DRAW)


@dataclass(frozen=True)
class CameraShift:
    """camera_shift's ranges, drawn per crop."""

    cast: float
    """White balance: each channel times 1 +- this."""
    gamma: float
    """Gamma exponent's log within +- this."""
    exposure: tuple[float, float]
    grey_share: float
    jpeg_share: float
    jpeg_quality: tuple[int, int]
    blur_share: float = 0.0
    blur_sigma: float = 0.0
    """Largest Gaussian blur sigma, px of the 48-px crop (the least is 0.5)."""
    noise_share: float = 0.0
    noise_sigma: float = 0.0
    """Largest sensor noise sigma (x in [0, 1])."""


_MILD = CameraShift(0.2, 0.4, (0.5, 1.3), 0.05, 0.15, (30, 70))
#: "full": the ranges of the test's shifts and beyond; "mild": narrower; "mild_blur": mild
#: plus out-of-focus and noisy (dim light) crops.
CAMERA_SHIFTS = {
    "full": CameraShift(0.3, 0.5, (0.45, 1.3), 0.15, 0.3, (20, 60)),
    "mild": _MILD,
    "mild_blur": replace(_MILD, blur_share=0.2, blur_sigma=1.5, noise_share=0.15,
                         noise_sigma=0.04),
}


def _per_crop(x: torch.Tensor, idx: list[int], f) -> torch.Tensor:  # noqa: ANN001
    """A copy of x with crops ``idx`` replaced by ``f(k, crop)`` of each (HWC float32)."""
    arr = x[idx].permute(0, 2, 3, 1).numpy()
    out = x.clone()
    out[idx] = torch.from_numpy(np.stack([f(k, a) for k, a in enumerate(arr)])
                                ).permute(0, 3, 1, 2).float()
    return out


def camera_shift(x: torch.Tensor, gen: torch.Generator, kind: str = "full") -> torch.Tensor:
    """Another camera and light than the real train photos' one phone: a wide white-balance
    cast, gamma, under- and over-exposure, a share of grey crops (a monochrome or washed-out
    picture) and JPEG at low quality, for some kinds blur and noise (x in [0, 1], a new
    tensor).

    The real test photos so changed, read by the classifier trained without it (F3;
    ``python -m models.training.dice.robustness --photos test``): a cool cast 0.9416, JPEG
    quality 25 0.9318, exposure x0.45 0.9513, grey 0.9156, against 0.9805 unchanged.
    """
    c = CAMERA_SHIFTS[kind]
    b = x.shape[0]
    # (no draws for a kind without blur or noise: "full" and "mild" keep their streams)
    blur = (torch.nonzero(torch.rand(b, generator=gen) < c.blur_share).flatten().tolist()
            if c.blur_share > 0 else [])
    if blur:
        sigma = torch.empty(len(blur)).uniform_(0.5, c.blur_sigma, generator=gen).tolist()
        x = _per_crop(x, blur, lambda k, a: cv2.GaussianBlur(a, (0, 0), sigma[k]))
    if c.noise_share > 0:
        noisy = (torch.rand(b, 1, 1, 1, generator=gen) < c.noise_share).float()
        sd = torch.empty(b, 1, 1, 1).uniform_(0, c.noise_sigma, generator=gen) * noisy
        x = x + sd * torch.randn(x.shape, generator=gen)
    x = x * torch.empty(b, 3, 1, 1).uniform_(1 - c.cast, 1 + c.cast, generator=gen)
    x = x.clamp(0, 1) ** torch.exp(torch.empty(b, 1, 1, 1).uniform_(-c.gamma, c.gamma,
                                                                     generator=gen))
    x = x * torch.empty(b, 1, 1, 1).uniform_(*c.exposure, generator=gen)
    grey = torch.rand(b, 1, 1, 1, generator=gen) < c.grey_share
    x = torch.where(grey, x.mean(dim=1, keepdim=True).expand_as(x), x).clamp(0, 1)
    pick = torch.nonzero(torch.rand(b, generator=gen) < c.jpeg_share).flatten().tolist()
    if pick:
        q_lo, q_hi = c.jpeg_quality
        q = torch.randint(q_lo, q_hi + 1, (len(pick),), generator=gen).tolist()
        x = _per_crop(x, pick, lambda k, a: cv2.imdecode(cv2.imencode(
            ".jpg", (a * 255 + 0.5).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, q[k]])[1],
            cv2.IMREAD_COLOR) / np.float32(255.0))  # type: ignore[operator]
    return x


def augment(x: torch.Tensor, gen: torch.Generator, strong: bool = False,
            gloss: float = 0.0, camera: str = "", gloss_spread: float = GLOSS_SPREAD,
            gloss_style: str = "blob") -> torch.Tensor:
    """x: (B, 3, H, W) float in [0, 1] -> augmented copy (``strong``: + colour cast, gamma;
    ``gloss``: share of crops given a specular highlight of ``gloss_style`` (GLOSS_STYLES),
    centred within ``gloss_spread``; ``camera``: ``camera_shift`` of that kind, "" for none)."""
    if gloss > 0:
        x = _GLOSS_DRAW[gloss_style](x, gen, gloss, gloss_spread)
    b = x.shape[0]
    k = int(torch.randint(0, 4, (1,), generator=gen))
    x = torch.rot90(x, k, dims=(2, 3))
    if torch.rand(1, generator=gen) < 0.5:
        x = x.flip(3)
    perm = torch.stack([torch.randperm(3, generator=gen) for _ in range(b)])
    x = torch.gather(x, 1, perm[:, :, None, None].expand_as(x))
    inv = (torch.rand(b, 1, 1, 1, generator=gen) < 0.15).float()
    x = x * (1 - inv) + (1 - x) * inv
    if strong:
        # Colour cast (white balance), then gamma: other cameras and lamps than the real ones.
        x = x * torch.empty(b, 3, 1, 1).uniform_(0.85, 1.15, generator=gen)
        x = x.clamp(0, 1) ** torch.exp(torch.empty(b, 1, 1, 1).uniform_(-0.4, 0.4,
                                                                       generator=gen))
    if camera:
        x = camera_shift(x, gen, camera)
    gain = torch.empty(b, 1, 1, 1).uniform_(0.6, 1.4, generator=gen)
    bias = torch.empty(b, 1, 1, 1).uniform_(-0.15, 0.15, generator=gen)
    x = x * gain + bias
    blur = torch.rand(b, 1, 1, 1, generator=gen) < 0.25
    if blur.any():
        soft = F.avg_pool2d(F.pad(x, (1, 1, 1, 1), mode="replicate"), 3, 1)
        x = torch.where(blur, 0.5 * x + 0.5 * soft, x)
    x = x + torch.randn(x.shape, generator=gen) * torch.empty(b, 1, 1, 1).uniform_(
        0, 0.04, generator=gen)
    return x.clamp(0, 1)


def _to_tensor(crops: np.ndarray) -> torch.Tensor:
    # NHWC memory (channels_last) is markedly faster for these small convs on CPU.
    x = torch.from_numpy(np.ascontiguousarray(crops)).permute(0, 3, 1, 2).float() / 255.0
    return x.contiguous(memory_format=torch.channels_last)


def logits_of(net: torch.nn.Module, crops: np.ndarray, batch: int = 1024) -> torch.Tensor:
    net.eval()
    with torch.no_grad():
        return torch.cat([net(_to_tensor(crops[i:i + batch]))
                          for i in range(0, len(crops), batch)])


#: Classifier designs: "pool" (residual, global pooling: ``nets.PoolFaceClassifier``), "stem"
#: (the same with a 16-channel 3x3 layer at the crop's full resolution first, where pips are
#: 4-6 px across), "contrast" (with the centre-standardised channels, ``nets.CentreContrast``),
#: "grid" (the global mean plus the map pooled over 3 x 3 cells) and "plain" (the first
#: shipped design, ``nets.FaceClassifier``): the class and its extra arguments.
_ARCHES: dict[str, tuple[type[torch.nn.Module], dict]] = {
    "pool": (PoolFaceClassifier, {}),
    "stem": (PoolFaceClassifier, {"stem": 16}),
    "contrast": (PoolFaceClassifier, {"contrast": True}),
    "grid": (PoolFaceClassifier, {"grid": 3}),
    "plain": (FaceClassifier, {}),
}
ARCHES = tuple(_ARCHES)


def make_classifier(arch: str, n_classes: int, width: int, crop_px: int) -> torch.nn.Module:
    """A fresh classifier of design ``arch`` (one of ``ARCHES``)."""
    make, extra = _ARCHES[arch]
    return make(n_classes=n_classes, width=width, crop_px=crop_px, **extra)


def draw_weights(is_real: np.ndarray, labels: np.ndarray, real_share: float,
                 symbol_boost: float = 1.0) -> np.ndarray:
    """How often each crop is drawn: real crops together ``real_share`` of the draws.

    ``symbol_boost`` multiplies the weight of synthetic crops labelled ``symbol`` (custom
    faces exist only in the renders): a fine-tune that leans on real photos, where every die
    has pips, otherwise forgets them and gives non-pip faces a pip value.
    """
    w = np.where(labels == FACE_SYMBOL, symbol_boost, 1.0) * ~is_real
    w = w * (1 - real_share) / max(w.sum(), 1e-12) if is_real.any() else w / max(w.sum(), 1e-12)
    if is_real.any():
        w = w + is_real * (real_share / is_real.sum())
    return w


def train_classifier(crops: np.ndarray, labels: np.ndarray, weights: np.ndarray, epochs: int,
                     seed: int, n_classes: int, batch: int = 256, width: int = 24,
                     label_smoothing: float = 0.0, strong_aug: bool = False,
                     arch: str = "pool", gloss: float = 0.0, init: dict | None = None,
                     lr: float = 4e-3, steps: int | None = None,
                     desc: str = "classifier", camera_aug: str = "",
                     gloss_spread: float = GLOSS_SPREAD, gloss_style: str = "blob"
                     ) -> torch.nn.Module:
    """Train on uint8 crops (N, S, S, 3); ``weights`` set how often each crop is drawn.

    ``epochs`` passes over the crops (or ``steps`` batches when given) under a one-cycle
    schedule peaking at ``lr``; ``init``: a state dict to start from (a fine-tune).
    """
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = make_classifier(arch, n_classes, width, crops.shape[1])
    if init is not None:
        net.load_state_dict(init)
    # (Module.to takes memory_format; torch's type stubs do not say so)
    net = net.to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    total = steps if steps is not None else epochs * (len(crops) // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=total,
                                                pct_start=0.15)
    p = weights / weights.sum()
    y_all = torch.from_numpy(labels.astype(np.int64))
    bar = tqdm(range(total), desc=desc, unit="step", mininterval=30)
    net.train()
    correct = seen = 0
    for step in bar:
        idx = rng.choice(len(crops), batch, p=p)
        x = augment(_to_tensor(crops[idx]), gen, strong_aug, gloss, camera_aug, gloss_spread,
                    gloss_style)
        x = x.contiguous(memory_format=torch.channels_last)
        y = y_all[idx]
        out = net(x)
        loss = F.cross_entropy(out, y, label_smoothing=label_smoothing)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        correct += int((out.argmax(1) == y).sum())
        seen += batch
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}", acc=f"{correct / seen:.3f}")
            correct = seen = 0
    net.eval()
    return net


def pretrained(crops: np.ndarray, labels: np.ndarray, cache: Path, seed: int, epochs: int,
               n_classes: int, width: int, arch: str, gloss: float) -> dict:
    """State dict of a classifier trained on synthetic crops only (stage one of two).

    It has seen no real photo, so one such network serves every validation fold and the
    shipped model alike; it is kept at ``cache`` (under runs/cache, whose name must say
    which data, seed and settings made it) and trained only when that file is missing.
    """
    cache.parent.mkdir(parents=True, exist_ok=True)
    with building(cache) as make:
        if not make:
            logger.info("pretrained classifier from %s", cache)
            return torch.load(cache)
        net = train_classifier(crops, labels, np.ones(len(crops)), epochs, seed, n_classes,
                               width=width, arch=arch, gloss=gloss, desc="pretrain (synthetic)")
        state = net.state_dict()
        tmp = cache.with_name(cache.name + ".tmp")
        torch.save(state, tmp)
        tmp.replace(cache)
    return state


def ece(probs: np.ndarray, labels: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of the top-1 probability."""
    conf = probs.max(axis=1)
    right = probs.argmax(axis=1) == labels
    edges = np.linspace(0, 1, bins + 1)
    total = 0.0
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            total += m.mean() * abs(right[m].mean() - conf[m].mean())
    return float(total)


def fit_temperature(logits: torch.Tensor, labels: np.ndarray, max_iter: int = 200) -> float:
    """Temperature T minimising the NLL of softmax(logits / T) on held-out data."""
    y = torch.from_numpy(np.asarray(labels).astype(np.int64))
    log_t = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=max_iter)

    def closure() -> torch.Tensor:
        opt.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), y)
        loss.backward()
        return loss

    opt.step(closure)
    return float(log_t.detach().exp())
