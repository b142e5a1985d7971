"""Table geometry from rendered photos of the mats under random poses (seeded): millimetre
accuracy, half the markers under hands, the camera moved, and the errors users see."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.geometry.homography import (
    DEFAULT_FOV_DEG,
    GeometryError,
    check,
    estimate,
    estimate_focal,
)
from calibration.geometry.lens import distort
from calibration.measure.evaluate import truth_detections
from calibration.render.synthetic import dice_in_zones, distort_image
from tests.calibration.conftest import table_grid
from vision.synth.renderer import CameraPose


def _errors(mr, photo, g) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(table point errors, die centre errors, die errors without the height correction)."""
    grid = table_grid(mr.layout)
    px = cv2.perspectiveTransform(grid[None], photo.true_h)[0]
    table = np.linalg.norm(g.to_mm(px) - grid, axis=1)
    r = photo.rendered
    centres = truth_detections(r).center
    truth = np.array([[photo.dice[j].x, photo.dice[j].y] for j in r.die_index])
    dice = np.linalg.norm(g.to_mm(centres, mr.layout.object_height_mm) - truth, axis=1)
    flat = np.linalg.norm(g.to_mm(centres) - truth, axis=1)
    return table, dice, flat


@pytest.mark.parametrize("game", ["icedice", "pyramid_dice", "quarriors"])
def test_random_poses_millimetre_accuracy(renderers, game: str) -> None:
    mr = renderers[game]
    rng = np.random.default_rng(11)
    table, dice, flat, tilts = [], [], [], []
    for k in range(6):
        cam = mr.random_pose(rng)
        tilts.append(cam.tilt_deg)
        photo = mr.photo(cam, dice_in_zones(mr.layout, rng), seed=k,
                         blur=float(rng.uniform(0, 1.5)), noise=float(rng.uniform(0, 4)),
                         cover=mr.half_covered(rng) if k % 2 else ())
        g = estimate(mr.layout, photo.image)
        assert g.markers_used >= len(mr.layout.markers) // 2 - 1
        assert g.error_px < 1.5
        t, d, f = _errors(mr, photo, g)
        table += t.tolist()
        dice += d.tolist()
        flat += f.tolist()
    assert max(tilts) > 15  # the sample includes oblique views
    assert np.percentile(dice, 95) <= 2.0
    assert np.percentile(table, 95) <= 2.0
    # the height correction is what makes it: uncorrected, dice land millimetres off
    assert np.percentile(flat, 95) > 2 * np.percentile(dice, 95)


def test_focal_length_measured_from_an_oblique_view(renderers) -> None:
    mr = renderers["icedice"]
    rng = np.random.default_rng(5)
    for _ in range(10):
        cam = mr.random_pose(rng)
        if cam.tilt_deg > 25:
            break
    g = estimate(mr.layout, mr.photo(cam, seed=1).image)
    assert g.focal_px == pytest.approx(cam.focal_px, rel=0.05)
    assert g.tilt_deg == pytest.approx(cam.tilt_deg, abs=2.0)
    _, centre = cam.extrinsics()
    assert g.camera_mm[2] == pytest.approx(centre[2], rel=0.05)
    # a square-on view cannot measure it: the usual camera's field of view is assumed
    flat = estimate(mr.layout, mr.photo(mr.random_pose(rng, max_tilt=0.5), seed=2).image)
    assert flat.focal_px == pytest.approx(640 / np.tan(np.radians(DEFAULT_FOV_DEG) / 2))
    assert estimate_focal(np.eye(3), (1280, 960)) is None


def test_camera_bump_is_detected_and_refitted(renderers) -> None:
    mr = renderers["pyradice"]
    rng = np.random.default_rng(3)
    cam = mr.random_pose(rng)
    g = estimate(mr.layout, mr.photo(cam, seed=1).image)
    same = check(mr.layout, g, mr.photo(cam, seed=2, noise=2).image)
    assert same.status == "ok" and same.geometry is g and same.error_px < 1.0
    bumped = replace(cam, azimuth_deg=cam.azimuth_deg + 2, tilt_deg=cam.tilt_deg + 3,
                     roll_deg=cam.roll_deg + 1.5)
    photo = mr.photo(bumped, dice_in_zones(mr.layout, rng), seed=3)
    moved = check(mr.layout, g, photo.image)
    assert moved.status == "moved" and moved.error_px > 5
    t, d, _ = _errors(mr, photo, moved.geometry)
    assert np.percentile(t, 95) < 1.5 and d.max() < 2.0
    assert moved.geometry.focal_px == g.focal_px  # the lens did not change
    # covered by hands: too few markers to tell, keep the old fit
    covered = mr.photo(bumped, seed=4, cover=tuple(m.id for m in mr.layout.markers[:-2]))
    assert check(mr.layout, g, covered.image).status == "unseen"


def test_few_markers_and_the_wrong_mat_are_clear_errors(renderers) -> None:
    mr = renderers["icedice"]
    rng = np.random.default_rng(8)
    cam = mr.random_pose(rng)
    n = len(mr.layout.markers)
    hidden = tuple(m.id for m in mr.layout.markers[2:])
    with pytest.raises(GeometryError, match=f"^2 of {n} markers seen: is the whole mat in view"):
        estimate(mr.layout, mr.photo(cam, seed=1, cover=hidden).image)
    with pytest.raises(GeometryError, match=f"^0 of {n} markers seen"):
        estimate(mr.layout, np.full((480, 640, 3), 128, np.uint8))
    other = renderers["quarriors"]
    photo = other.photo(other.random_pose(rng), seed=2)
    with pytest.raises(GeometryError, match="belong to the quarriors-2 mat, not icedice-2"):
        estimate(mr.layout, photo.image)


def test_two_mats_on_one_table_are_told_apart(renderers) -> None:
    """An IceDice mat and a Pyradice mat side by side: each fit uses only its own markers
    and puts each mat where it is."""
    ice, rad = renderers["icedice"], renderers["pyradice"]
    gap_px = round(30 * ice.ppm)
    a, b = ice.mat, rad.mat
    table = np.full((max(a.shape[0], b.shape[0]), a.shape[1] + gap_px + b.shape[1], 3), 255,
                    np.uint8)
    table[:a.shape[0], :a.shape[1]] = a
    table[:b.shape[0], a.shape[1] + gap_px:] = b
    # both rasters are stored flipped (see calibration.render.synthetic); flipped rows align at the
    # bottom of the composite, so shift each mat's y accordingly
    combo = ice.__class__.__new__(ice.__class__)
    combo.layout, combo.ppm, combo.mat = ice.layout, ice.ppm, table
    w, h = table.shape[1] / ice.ppm, table.shape[0] / ice.ppm
    combo.to_table_h = np.array([[1, 0, -w / 2 - 0.5 / ice.ppm], [0, -1, h / 2 - 0.5 / ice.ppm],
                                 [0, 0, 1.0]])
    cam = CameraPose(1920, 1440, 62.0, (0.0, 0.0), 1100.0, tilt_deg=15.0, azimuth_deg=-70.0,
                     roll_deg=10.0)  # aimed at the middle of the two mats
    photo = combo.photo(cam, seed=1, noise=2)
    rows_a, rows_b = a.shape[0] / ice.ppm, b.shape[0] / ice.ppm
    for renderer, dx, rows in ((ice, 0.0, rows_a), (rad, a.shape[1] / ice.ppm + 30, rows_b)):
        g = estimate(renderer.layout, photo.image)
        assert g.markers_used == len(renderer.layout.markers)
        # mat (x, y) sits at composite (x + dx, y + (h - rows)) in the flipped raster frame
        shift = np.array([[1, 0, dx], [0, 1, h - rows], [0, 0, 1.0]])
        true_h = photo.true_h @ shift
        grid = table_grid(renderer.layout)
        px = cv2.perspectiveTransform(grid[None], true_h)[0]
        assert np.percentile(np.linalg.norm(g.to_mm(px) - grid, axis=1), 95) < 1.0


@pytest.mark.parametrize("k1", [0.0, -0.12, -0.25])
def test_lens_distortion_is_measured_and_undone(renderers, k1: float) -> None:
    """A barrel lens bends the mat; the fit measures the bend from the markers' points and
    positions stay sub-millimetre. A lens without distortion keeps k1 = 0."""
    mr = renderers["quarriors"]
    rng = np.random.default_rng(23)
    errs = []
    for k in range(2):
        cam = mr.random_pose(rng, fov_deg=62.0)
        photo = mr.photo(cam, dice_in_zones(mr.layout, rng), seed=k, noise=2)
        image = distort_image(photo.image, k1, cam.focal_px)
        g = estimate(mr.layout, image)
        # the bend in pixels (k1 is in focal lengths, and the focal length is itself measured)
        assert g.k1 / g.focal_px**2 == pytest.approx(k1 / cam.focal_px**2, rel=0.15, abs=1e-9)
        centres = distort(truth_detections(photo.rendered).center, k1, cam.focal_px,
                          (1280, 960))
        truth = np.array([[photo.dice[j].x, photo.dice[j].y] for j in photo.rendered.die_index])
        errs += np.linalg.norm(g.to_mm(centres, 8.0) - truth, axis=1).tolist()
        # and back: the fitted geometry draws the markers where the distorted image has them
        again = check(mr.layout, g, image)
        assert again.status == "ok"
    assert np.percentile(errs, 95) < 1.0


def test_markers_partly_under_fingers(renderers) -> None:
    """Fingertips over a corner of several markers: those markers are lost or their bad
    corners are voted out; the fit stays within millimetres."""
    mr = renderers["pyramid_dice"]
    rng = np.random.default_rng(29)
    for k in range(3):
        photo = mr.photo(mr.random_pose(rng), dice_in_zones(mr.layout, rng), seed=k, noise=2)
        img = photo.image.copy()
        for m in mr.layout.markers[::2]:
            corner = np.array([m.corners()[int(rng.integers(4))]], np.float64)
            uv = cv2.perspectiveTransform(corner[None], photo.true_h)[0, 0]
            side = np.linalg.norm(np.diff(cv2.perspectiveTransform(
                np.array([m.corners()[:2]], np.float64), photo.true_h)[0], axis=0))
            cv2.circle(img, (int(uv[0]), int(uv[1])), int(side * 0.45), (120, 150, 205), -1)
        g = estimate(mr.layout, img)
        grid = table_grid(mr.layout)
        px = cv2.perspectiveTransform(grid[None], photo.true_h)[0]
        assert np.percentile(np.linalg.norm(g.to_mm(px) - grid, axis=1), 95) < 1.5
        assert g.markers_used >= len(mr.layout.markers) // 2
