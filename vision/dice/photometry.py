"""A photo's white balance and exposure brought near those the reader learnt from.

The detector and the classifier learnt from one phone's photos of one table (and from
renders): another camera's white balance or a dimmer room costs them dice. On the real test
photos (``python -m models.training.dice.robustness --photos test``) a cool cast (blue up a
quarter, red down a quarter) read 0.951 against 0.984 as published, the photo at 0.45 of
its exposure 0.964; the train photos (in-sample) 0.974 and 0.979 against 0.995.

Two global gains per photo, measured on a subsample of about 128 px:

- grey world: each channel's gain brings its mean over the photo's least saturated half
  (:data:`GREY_SHARE`: the table, pips, white dice) to the mean of the three, at most
  :data:`MAX_CAST` either way; a photo whose gains are all within :data:`CAST_DEAD_ZONE` of
  1 is left alone (every real-dice photo is, ``tests/vision/test_photometry.py``: a probe
  found their largest gain 0.014 from 1 at the median, 0.017 at most);
- exposure: a photo whose brightest 2 % (the max channel, after the balance) are dimmer than
  :data:`LEVEL` is brightened up to it (:data:`MAX_BRIGHTEN` at most), when that is more
  than :data:`EXPOSURE_DEAD_ZONE`; a photo is never darkened (not tried: no shift measured
  brightens a photo by a gain; gamma 0.6 lifts its shadows, which no gain undoes).

Both are per-channel gains of the whole photo, so they cannot make a pip or take one away;
they only move the photo's colours back to where the models were trained.
"""

from __future__ import annotations

import cv2
import numpy as np

SAMPLE_PX = 128
"""The statistics are taken on every n-th pixel, n = the longer side // this."""
MAX_CAST = 1.4
"""The largest (and 1 / the smallest) grey-world gain of a channel."""
CAST_DEAD_ZONE = 0.04
GREY_SHARE = 50.0
"""The grey world is the least saturated half of the photo (percentile), not all of it: a
close-up's dice fill much of it with their own colour, and the mean of every pixel took the
train photos zoomed so a die is 15 / 20 % of the width from 0.984 / 0.985 to 0.982 / 0.982
(``scale_table --split train`` run on each variant; this half: unchanged)."""
DARK = 20.0
"""Pixels this dark (max channel) are noise, not grey."""
MIN_GREY = 50
"""With fewer grey pixels than this (a black photo), every pixel of the sample counts."""
LEVEL = 190.0
"""Brightest 2 % of a photo (max channel), below which it is brightened: the 250 real-dice
photos' are 189-218 (median 193) by this measure (a probe), none lifted."""
MAX_BRIGHTEN = 2.5
EXPOSURE_DEAD_ZONE = 1.05


def light_gains(image: np.ndarray) -> np.ndarray:
    """(3,) float32 BGR gains that balance and expose a (H, W, 3) uint8 BGR photo."""
    step = max(1, max(image.shape[:2]) // SAMPLE_PX)
    # Channel by channel: numpy's max over a last axis of 3 is ten times slower.
    chans = [c.ravel().astype(np.float32) for c in cv2.split(image[::step, ::step])]
    top = np.maximum(np.maximum(chans[0], chans[1]), chans[2])
    bottom = np.minimum(np.minimum(chans[0], chans[1]), chans[2])
    saturation = (top - bottom) / (top + 1.0)
    grey = (saturation <= np.percentile(saturation, GREY_SHARE)) & (top > DARK)
    if grey.sum() < MIN_GREY:
        grey[:] = True
    mean = np.maximum([float(c[grey].mean()) for c in chans], 1.0)
    gains = np.clip(mean.mean() / mean, 1 / MAX_CAST, MAX_CAST)
    if np.abs(gains - 1).max() < CAST_DEAD_ZONE:
        gains = np.ones(3)
    lit = np.maximum(np.maximum(chans[0] * gains[0], chans[1] * gains[1]), chans[2] * gains[2])
    bright = float(np.percentile(lit, 98))
    lift = min(LEVEL / max(bright, 1.0), MAX_BRIGHTEN)
    if lift > EXPOSURE_DEAD_ZONE:
        gains = gains * lift
    return gains.astype(np.float32)


def normalise_light(image: np.ndarray) -> np.ndarray:
    """The photo with :func:`light_gains` applied (the same array when they are all 1)."""
    gains = light_gains(image)
    if np.all(gains == 1):
        return image
    lut = np.clip(np.arange(256, dtype=np.float32)[:, None] * gains[None, :] + 0.5, 0, 255)
    return cv2.LUT(image, lut.astype(np.uint8).reshape(256, 1, 3))
