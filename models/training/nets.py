"""The two small networks: a CenterNet-style dice detector and a die-face classifier.

Both are plain conv/BN/ReLU stacks so onnxruntime runs them fast on one ARM or x86 core.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def _cbr(cin: int, cout: int, stride: int = 1, dilation: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, groups=groups,
                  bias=False),
        nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def _dw(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    """Depthwise-separable 3x3: most of the quality of a full conv at a fraction of the cost."""
    return nn.Sequential(
        _cbr(cin, cin, stride, dilation, groups=cin),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class DiceDetector(nn.Module):
    """Image (B, 3, H, W) in [0, 1] -> heat (B, 1, H/4, W/4) logits, size and offset maps.

    Output channels: 0 centre heat logit, 1-2 log box width/height in units of 4 px,
    3-4 sub-cell offset of the centre in [0, 1).
    """

    def __init__(self, width: int = 24) -> None:
        super().__init__()
        w = width
        self.stem = nn.Sequential(_cbr(3, 16, 2), _cbr(16, w, 2), _dw(w, w))       # 1/4
        self.down8 = nn.Sequential(_cbr(w, 2 * w, 2), _dw(2 * w, 2 * w))             # 1/8
        self.down16 = nn.Sequential(_cbr(2 * w, 4 * w, 2), _dw(4 * w, 4 * w, dilation=2),
                                    _dw(4 * w, 4 * w, dilation=4))                    # 1/16
        self.lat8 = nn.Conv2d(4 * w, 2 * w, 1)
        self.lat4 = nn.Conv2d(2 * w, w, 1)
        dw = _dw(w, w)
        out = nn.Conv2d(w, 5, 1)
        self.head = nn.Sequential(dw, out)
        assert out.bias is not None
        out.bias.data[0] = -4.0  # most cells are background: start with low heat

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f4 = self.stem(x)
        f8 = self.down8(f4)
        f16 = self.down16(f8)
        u8 = F.relu(f8 + F.interpolate(self.lat8(f16), size=f8.shape[2:], mode="nearest"))
        u4 = F.relu(f4 + F.interpolate(self.lat4(u8), size=f4.shape[2:], mode="nearest"))
        return self.head(u4)


class DetectorExport(nn.Module):
    """What ships: sigmoid heat, its 3x3 max (for peak picking), size and offset."""

    def __init__(self, net: DiceDetector) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        out = self.net(x)
        heat = torch.sigmoid(out[:, :1])
        peak = F.max_pool2d(heat, 3, 1, 1)
        return heat, peak, out[:, 1:]


class FaceClassifier(nn.Module):
    """Crop (B, 3, S, S) in [0, 1] -> logits over the face classes (+ 'not a die').

    S is ``crop_px`` (a multiple of 8: three stride-2 stages).
    """

    def __init__(self, n_classes: int = 9, width: int = 24, crop_px: int = 32) -> None:
        super().__init__()
        w = width
        self.features = nn.Sequential(
            _cbr(3, w), _cbr(w, w, 2),                # 16x16
            _cbr(w, 2 * w), _cbr(2 * w, 2 * w, 2),    # 8x8
            _cbr(2 * w, 3 * w), _cbr(3 * w, 3 * w, 2),  # 4x4
        )
        self.crop_px = crop_px
        self.fc = nn.Linear(3 * w * (crop_px // 8) ** 2, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.features(x), 1))


class _Residual(nn.Module):
    """Two 3x3 conv/BN layers with an identity shortcut (He et al. 2016)."""

    def __init__(self, ch: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            _cbr(ch, ch), nn.Conv2d(ch, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(x + self.body(x))


class CentreContrast(nn.Module):
    """Adds three channels: the crop standardised by its centre's mean and spread, per channel.

    A dark smoky die with dark red pips on a white table has little contrast of its own and
    the table dominates the crop's range; standardised on the centre (the die itself), its
    pips stand out as clearly as a white die's. Mapped to [0, 1] (3 spreads each side) so the
    int8 model keeps one input scale for both halves.
    """

    def __init__(self, crop_px: int, centre: float = 0.6, floor: float = 0.03) -> None:
        super().__init__()
        self.lo = int(round(crop_px * (1 - centre) / 2))
        self.hi = crop_px - self.lo
        self.floor = floor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mid = x[:, :, self.lo:self.hi, self.lo:self.hi]
        mean = mid.mean(dim=(2, 3), keepdim=True)
        spread = (mid - mean).pow(2).mean(dim=(2, 3), keepdim=True).sqrt() + self.floor
        z = ((x - mean) / spread / 6 + 0.5).clamp(0, 1)
        return torch.cat([x, z], dim=1)


class PoolFaceClassifier(nn.Module):
    """Crop (B, 3, S, S) in [0, 1] -> logits; residual stages and global average pooling.

    Pooling over the whole 1/8-scale map makes the features the same for any turn of the
    face (pips are counted, not placed), and lets S (a multiple of 8) be anything.
    """

    def __init__(self, n_classes: int = 9, width: int = 24, crop_px: int = 48,
                 stem: int = 0, contrast: bool = False, grid: int = 0) -> None:
        super().__init__()
        w = width
        cin = 6 if contrast else 3
        first: list[nn.Module] = [_cbr(cin, stem), _cbr(stem, w, 2)] if stem \
            else [_cbr(cin, w, 2)]
        first = ([CentreContrast(crop_px)] if contrast else []) + first
        self.features = nn.Sequential(
            *first, _Residual(w),                               # 1/2: pips are 3-5 px here
            _cbr(w, 2 * w, 2), _Residual(2 * w),                # 1/4
            _cbr(2 * w, 4 * w, 2), _Residual(4 * w),            # 1/8
        )
        self.crop_px = crop_px
        # grid > 0 adds the map pooled over a grid x grid layout to the global mean: where a
        # blob lies (a 5's centre pip among four corners), not only how many there are.
        self.grid = nn.AdaptiveAvgPool2d(grid) if grid else None
        self.fc = nn.Linear(4 * w * (1 + grid * grid), n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x)
        pooled = f.mean(dim=(2, 3))
        if self.grid is not None:
            pooled = torch.cat([pooled, self.grid(f).flatten(1)], dim=1)
        return self.fc(pooled)
