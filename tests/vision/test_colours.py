"""Colour naming: palette entries name themselves; body and pips are told apart on dice."""

from __future__ import annotations

import numpy as np
import pytest

from vision.colours import (
    PALETTE,
    _masked_median,
    die_colour_names,
    measure_die_colours,
    name_colours,
)
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Scene, render
from vision.synth.textures import DieLook


def test_palette_names_itself() -> None:
    assert name_colours(np.array(list(PALETTE.values()))) == tuple(PALETTE)
    assert name_colours(np.zeros((0, 3))) == ()


def test_greys_by_lightness_not_hue() -> None:
    assert name_colours(np.array([[250, 250, 252], [20, 22, 20], [120, 128, 125]])) == (
        "white", "black", "grey")


@pytest.mark.parametrize(("body", "pip"), [("red", "white"), ("green", "black"),
                                           ("blue", "white"), ("yellow", "black"),
                                           ("black", "white"), ("purple", "white")])
def test_rendered_die_colours(body: str, pip: str) -> None:
    from vision.dice.classifier import crop_dice

    look = DieLook(body_bgr=PALETTE[body], pip_bgr=PALETTE[pip], pip_scale=1.3)
    cam = CameraPose(width=200, height=200, distance_mm=120)
    out = render(Scene(dice=(DieSpec(0, 0, 5, yaw_deg=10, look=look),), camera=cam,
                       lighting=Lighting(elevation_deg=89, ambient=0.95, shadow=0.0),
                       mat=np.full((20, 20, 3), 128, np.uint8)))
    names = die_colour_names(crop_dice(out.image, out.boxes))
    assert names == ((body,), (pip,))


def test_measure_is_vectorised() -> None:
    crops = np.zeros((3, 32, 32, 3), np.uint8)
    crops[:] = (200, 50, 50)
    crops[:, 14:18, 14:18] = (250, 250, 250)
    body, pip = measure_die_colours(crops)
    assert body.shape == pip.shape == (3, 3)
    np.testing.assert_allclose(body, [[200, 50, 50]] * 3, atol=1)
    np.testing.assert_allclose(pip, [[250, 250, 250]] * 3, atol=1)


def test_the_masked_median_is_numpys_median_row_by_row() -> None:
    # The pip colour's cut (measure_die_colours) was np.median in a loop over the dice; the
    # vectorised one must give the same values, empty rows included (0).
    rng = np.random.default_rng(0)
    for _ in range(300):
        n, m = int(rng.integers(1, 6)), int(rng.integers(1, 30))
        values = (rng.random((n, m)) * 1000).astype(np.float32)
        mask = rng.random((n, m)) < rng.random()
        want = [np.median(v[k]) if k.any() else 0.0 for v, k in zip(values, mask, strict=True)]
        assert np.array_equal(_masked_median(values, mask), np.array(want))
