"""The colour palette: enrolment from one photo, classification under another light and a
colour cast (white reference from the mat's paper), and the reject option."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.geometry.homography import estimate
from calibration.geometry.procedure import CalibrationError, calibrate_image
from calibration.measure.evaluate import truth_detections
from calibration.palette import (
    REJECT_D2,
    Palette,
    assign_names,
    build_palette,
    die_colour,
    lab,
    white_reference,
)
from calibration.render.synthetic import Placed, dice_in_zones
from vision.synth.renderer import Lighting


def _enrol(mr, colours, seed=0):
    rng = np.random.default_rng(seed)
    zone = mr.layout.zone("rolling" if "rolling" in [z.name for z in mr.layout.zones]
                          else "wilds")
    pts = np.array(zone.polygon)
    x0, y0 = pts.min(axis=0) + 18
    placed = tuple(Placed(float(x0 + 50 * (i % 5)), float(y0 + 50 * (i // 5)),
                          int(rng.integers(1, 7)), c) for i, c in enumerate(colours))
    cam = mr.random_pose(rng)
    return calibrate_image(mr.photo(cam, placed, seed=seed, blur=0.6, noise=2).image,
                           mr.layout), cam.fov_deg


def _accuracy(mr, profile, fov, colours, photos=4, seed=1, cast_range=(0.8, 1.0)):
    rng = np.random.default_rng(seed)
    right = rejected = total = 0
    for k in range(photos):
        tint = rng.uniform(0.85, 1.0, 3)
        cast = tuple(float(v) for v in rng.uniform(*cast_range) * tint / tint.max())
        photo = mr.photo(mr.random_pose(rng, fov_deg=fov), dice_in_zones(
            mr.layout, rng, colours=colours), seed=seed * 10 + k, cast=cast, noise=2,
            lighting=Lighting(ambient=float(rng.uniform(0.45, 0.75))))
        g = estimate(mr.layout, photo.image, focal_px=profile.geometry.focal_px)
        white = white_reference(photo.image, g, mr.layout)
        det = truth_detections(photo.rendered)
        for i, j in enumerate(photo.rendered.die_index):
            dist = profile.palette.classify(die_colour(photo.image, det.xyxy[i], white))
            total += 1
            if not dist:
                rejected += 1
            elif max(dist, key=dist.get) == photo.dice[j].colour:
                right += 1
    return right / total, rejected / total


def test_enrol_then_classify_under_another_light(renderers) -> None:
    mr = renderers["quarriors"]
    colours = mr.layout.palette
    profile, fov = _enrol(mr, colours)
    assert sorted(profile.palette.names()) == sorted(colours)
    acc, rej = _accuracy(mr, profile, fov, colours)
    assert acc >= 0.95, (acc, rej)


def test_white_reference_undoes_a_colour_cast(renderers) -> None:
    mr = renderers["icedice"]
    rng = np.random.default_rng(2)
    cam = mr.random_pose(rng)
    red = (Placed(250, 180, 3, "red"),)
    plain = mr.photo(cam, red, seed=1)
    warm = mr.photo(cam, red, seed=1, cast=(0.7, 0.85, 1.0))  # BGR: a warm lamp
    g = estimate(mr.layout, plain.image)
    box = truth_detections(plain.rendered).xyxy[0]
    w_plain, w_warm = white_reference(plain.image, g, mr.layout), \
        white_reference(warm.image, g, mr.layout)
    assert w_warm[0] < 0.75 * w_warm[2]  # the paper looks orange under the lamp
    a = die_colour(plain.image, box, w_plain)
    b = die_colour(warm.image, box, w_warm)
    raw = die_colour(warm.image, box, w_plain)  # no white balance
    assert np.linalg.norm(a - b) < 3.0
    assert np.linalg.norm(a - raw) > 3 * np.linalg.norm(a - b)


def test_reject_a_colour_that_is_none_of_the_palette() -> None:
    px = {name: [np.array([bgr] * 50, np.float32)] for name, bgr in
          (("red", (40, 35, 200)), ("blue", (190, 90, 30)), ("green", (60, 160, 40)))}
    palette = build_palette(px)
    red = lab(np.array([[42, 38, 195]]))[0]
    dist = palette.classify(red)
    assert max(dist, key=dist.get) == "red" and dist["red"] > 0.9
    assert sum(dist.values()) <= 1.0 + 1e-6
    purple = lab(np.array([[140, 40, 110]]))[0]
    assert palette.classify(purple) == {}
    assert palette.distances(purple).min() > REJECT_D2
    assert Palette(()).classify(red) == {}


def test_darker_shade_is_the_same_colour() -> None:
    palette = build_palette({"yellow": [np.array([[40, 215, 235]] * 30, np.float32)],
                             "orange": [np.array([[30, 120, 240]] * 30, np.float32)]})
    shaded = lab(np.array([[40, 215, 235]], np.float32) * 0.6)[0]
    dist = palette.classify(shaded)
    assert dist and max(dist, key=dist.get) == "yellow"


def test_assign_names_uses_each_colour_once() -> None:
    cols = [lab(np.array([[60, 160, 40]]) * 0.8)[0], lab(np.array([[40, 35, 200]]) * 0.8)[0]]
    assert assign_names(cols, ("red", "green")) == ["green", "red"]
    with pytest.raises(ValueError, match="unknown colour name 'mauve'"):
        assign_names(cols, ("mauve",))
    with pytest.raises(ValueError, match="unknown colour name 'zz'"):  # was dropped silently
        assign_names(cols, ("red", "zz"))


def test_missing_colour_is_a_clear_error(renderers) -> None:
    mr = renderers["icedice"]
    rng = np.random.default_rng(4)
    photo = mr.photo(mr.random_pose(rng), (Placed(250, 180, 2, "red"),), seed=1)
    with pytest.raises(CalibrationError, match="no die of colour blue found on the mat"):
        calibrate_image(photo.image, mr.layout, colours=("red", "blue"))
    empty = calibrate_image(mr.photo(mr.random_pose(rng), seed=2).image, mr.layout)
    assert empty.palette.classes == ()  # no dice shown: geometry only


def test_two_means_stops_early_with_the_labels_of_every_round() -> None:
    """two_means ends when a round relabels nothing: its labels are those of all its
    rounds run to the end (dice bodies with pips, and noise with no two colours)."""
    from calibration.palette import lab, two_means

    def every_round(px: np.ndarray, rounds: int) -> np.ndarray:
        centres = px[[px[:, 0].argmin(), px[:, 0].argmax()]].copy()
        labels = np.zeros(len(px), int)
        for _ in range(rounds):
            labels = ((px[:, None] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
            for k in (0, 1):
                if np.any(labels == k):
                    centres[k] = px[labels == k].mean(axis=0)
        return labels

    rng = np.random.default_rng(3)
    for trial in range(60):
        body = rng.integers(0, 256, 3)
        bgr = np.clip(body + rng.normal(0, 4 + trial, (400, 3)), 0, 255)
        bgr[rng.random(400) < 0.15] = rng.integers(0, 256, 3)  # pips
        px = lab(bgr)
        for rounds in (1, 2, 8):
            assert np.array_equal(two_means(px, rounds), every_round(px, rounds))
