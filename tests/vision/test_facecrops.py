"""The printed sides of vision.synth.facecrops (Conditions.printed_sides)."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.faces.dietypes import catalogue
from vision.faces.draw import face_texture
from vision.synth.facecrops import TRAIN, WIDE, render_crop


def _blue_px(crop: np.ndarray) -> int:
    b, g, r = (crop[..., k].astype(np.int32) for k in range(3))
    return int(((b > 70) & (b > 2 * r) & (b > g + 40)).sum())


def test_printed_sides_show_the_other_faces() -> None:
    dt = catalogue()["icedice-colour-rainbow"]  # white body; the top face yellow
    faces = {f.label: f for f in dt.faces}
    top = face_texture(dt, faces["yellow"], 64)
    blue = face_texture(dt, faces["blue"], 64)
    plain = dataclasses.replace(WIDE, printed_sides=False)
    body = (234.0, 240.0, 242.0)
    # The table, shadow and the side's shade are drawn before the sides: with one seed both
    # crops lie on the same table, so blue pixels come from the printed sides only.
    printed_px = plain_px = 0
    for seed in range(12):
        printed_px += _blue_px(render_crop(top, body, np.random.default_rng(seed), WIDE,
                                           side_textures=[blue]))
        plain_px += _blue_px(render_crop(top, body, np.random.default_rng(seed), plain,
                                         side_textures=[blue]))
    # measured 1791 against 0 (seeds 0-11): the sides average ~6 % of a crop in blue
    assert printed_px > plain_px + 12 * 48 * 48 * 0.03


def test_default_conditions_ignore_side_textures() -> None:
    dt = catalogue()["icedice-size"]
    top = face_texture(dt, dt.faces[0], 64)
    others = [face_texture(dt, f, 64) for f in dt.faces[1:]]
    assert not TRAIN.printed_sides
    a = render_crop(top, (240.0, 240.0, 240.0), np.random.default_rng(3), TRAIN)
    b = render_crop(top, (240.0, 240.0, 240.0), np.random.default_rng(3), TRAIN,
                    side_textures=others)
    assert np.array_equal(a, b)
