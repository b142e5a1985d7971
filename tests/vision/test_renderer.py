"""The renderer's truth: camera geometry, top-face values (pips counted in the image), boxes."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice.detections import FACE_SYMBOL, FACE_UNREADABLE
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Scene, cut_by_frame, render
from vision.synth.scenes import random_render
from vision.synth.textures import DieLook

WHITE = DieLook(body_bgr=(235.0, 235.0, 235.0), pip_bgr=(15.0, 15.0, 15.0), corner=0.1)
TOP = CameraPose(width=320, height=240, fov_deg=60, distance_mm=150)
SOFT = Lighting(elevation_deg=89, ambient=0.9, shadow=0.0)


@pytest.mark.parametrize("tilt", [0.0, 25.0])
def test_pixel_to_table_inverts_project(tilt: float) -> None:
    cam = CameraPose(width=640, height=480, tilt_deg=tilt, azimuth_deg=30, roll_deg=10,
                     target_mm=(20, -10))
    pts = np.array([[0.0, 0.0], [50.0, 20.0], [-30.0, 40.0]])
    uv, depth = cam.project(np.column_stack([pts, np.zeros(3)]))
    assert np.all(depth > 0)
    np.testing.assert_allclose(cam.pixel_to_table(uv), pts, atol=1e-6)
    hom = cam.table_homography() @ np.column_stack([pts, np.ones(3)]).T
    np.testing.assert_allclose((hom[:2] / hom[2]).T, uv, atol=1e-6)
    # The target is on the optical axis: the image centre.
    centre_uv, _ = cam.project(np.array([[20.0, -10.0, 0.0]]))
    np.testing.assert_allclose(centre_uv[0], [320, 240], atol=1e-6)


def test_view_angle_is_the_tilt_at_the_target_and_grows_off_axis() -> None:
    cam = CameraPose(tilt_deg=25.0, azimuth_deg=30, distance_mm=500, target_mm=(20, -10))
    at_target, aside = cam.view_angle_deg(np.array([[20.0, -10.0, 0.0], [-200.0, 150.0, 0.0]]))
    assert at_target == pytest.approx(25.0)
    assert aside > 25.0
    straight = CameraPose(distance_mm=400)
    assert straight.view_angle_deg(np.array([[300.0, 0.0, 0.0]]))[0] == pytest.approx(
        np.degrees(np.arctan2(300, 400)))


def count_pips(image: np.ndarray, box: np.ndarray) -> int:
    x0, y0, x1, y1 = box.astype(int)
    inner = image[y0 + 3:y1 - 3, x0 + 3:x1 - 3]
    dark = (cv2.cvtColor(inner, cv2.COLOR_BGR2GRAY) < 100).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(dark)
    return int(np.sum(stats[1:, cv2.CC_STAT_AREA] >= 8))


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_top_face_shows_the_value(value: int) -> None:
    die = DieSpec(x_mm=0, y_mm=0, value=value, yaw_deg=17.0 * value, look=WHITE)
    out = render(Scene(dice=(die,), camera=TOP, lighting=SOFT, seed=value,
                       mat=np.full((50, 50, 3), 150, np.uint8)))
    assert out.values.tolist() == [value]
    assert out.face_class.tolist() == [value - 1]
    assert count_pips(out.image, out.boxes[0]) == value


def test_boxes_enclose_dice_and_match_their_size() -> None:
    dice = tuple(DieSpec(x_mm=x, y_mm=y, value=3, yaw_deg=0, look=WHITE)
                 for x, y in [(-40, -25), (35, 20), (0, 0)])
    cam = CameraPose(width=320, height=240, fov_deg=60, distance_mm=300, tilt_deg=20)
    out = render(Scene(dice=dice, camera=cam, lighting=SOFT))
    assert len(out.boxes) == 3
    for box, idx in zip(out.boxes, out.die_index, strict=True):
        d = dice[idx]
        uv, _ = cam.project(np.array([[d.x_mm, d.y_mm, d.size_mm / 2]]))
        assert box[0] < uv[0, 0] < box[2] and box[1] < uv[0, 1] < box[3]
        # A 16 mm die 300 mm away with f = 277 px is about 15 px wide (plus its sides).
        assert 10 < box[2] - box[0] < 30
    # The table behind a die is not the die: its box's corner pixels stay near the mat grey.
    assert np.abs(out.image[2, 2].astype(int) - out.image[2, 3].astype(int)).max() < 10


def test_a_die_whose_centre_is_off_the_frame_is_drawn_unlabelled_and_cut_by_frame() -> None:
    dice = (DieSpec(x_mm=0, y_mm=0, value=2, look=WHITE),
            DieSpec(x_mm=90, y_mm=0, value=5, look=WHITE))  # centre at u 336 of 320
    scene = Scene(dice=dice, camera=TOP, lighting=SOFT, mat=np.full((50, 50, 3), 150, np.uint8))
    out = render(scene)
    assert out.die_index.tolist() == [0]
    cut = cut_by_frame(scene)
    assert cut.shape == (1, 4)
    x0, y0, x1, y1 = cut[0]
    assert x1 == TOP.width and 300 < x0 < TOP.width and y0 < TOP.height / 2 < y1
    edge = out.image[int(y0) + 2:int(y1) - 2, int(x0) + 2:]
    assert (np.abs(edge.astype(int) - 150) > 15).any(axis=-1).mean() > 0.5, "the die shows"


def test_symbol_and_cocked_dice_get_their_classes() -> None:
    symbol = DieLook(body_bgr=(30.0, 30.0, 200.0), pip_bgr=(240.0, 240.0, 240.0),
                     symbol_face=1, symbol="star")
    dice = (DieSpec(x_mm=-20, y_mm=0, value=1, look=symbol),
            DieSpec(x_mm=20, y_mm=0, value=4, look=WHITE, cock_deg=35))
    out = render(Scene(dice=dice, camera=TOP, lighting=SOFT))
    classes = dict(zip(out.die_index.tolist(), out.face_class.tolist(), strict=True))
    assert classes == {0: FACE_SYMBOL, 1: FACE_UNREADABLE}


def test_rendering_is_deterministic_and_seeded() -> None:
    a = random_render(np.random.default_rng(7), width=200, height=160)[1]
    b = random_render(np.random.default_rng(7), width=200, height=160)[1]
    c = random_render(np.random.default_rng(8), width=200, height=160)[1]
    assert np.array_equal(a.image, b.image)
    np.testing.assert_array_equal(a.boxes, b.boxes)
    assert not np.array_equal(a.image, c.image)
    assert a.image.shape == (160, 200, 3) and a.image.dtype == np.uint8


def test_random_scenes_have_dice_in_view_with_valid_truth() -> None:
    rng = np.random.default_rng(3)
    total = 0
    for _ in range(5):
        scene, out = random_render(rng, width=320, height=240, n_dice=(3, 8))
        assert len(out.boxes) == len(out.values) == len(out.face_class)
        assert np.all(out.boxes[:, 2:] > out.boxes[:, :2])
        assert np.all((out.values >= 1) & (out.values <= 6))
        assert np.all(out.boxes >= 0) and np.all(out.boxes[:, 2] <= 320)
        assert set(out.die_index.tolist()) <= set(range(len(scene.dice)))
        total += len(out.boxes)
    assert total >= 10


@pytest.mark.parametrize("type_name",
                         ["icedice-colour-rainbow", "icedice-size", "quarriors-assistant"])
def test_typed_die_shows_its_catalogued_face(type_name: str) -> None:
    """A die of a catalogued type draws the type's face up (not pips): its top face in the
    image is closer (mean squared BGR) to vision.faces.draw's picture of that face than to any
    other."""
    from vision.faces.dietypes import get_type
    from vision.faces.draw import face_texture as type_face

    dtype = get_type(type_name)
    cam = CameraPose(width=240, height=240, fov_deg=40, distance_mm=120)
    for k in range(1, 7):
        die = DieSpec(x_mm=0, y_mm=0, value=k, die_type=dtype, size_mm=20)
        out = render(Scene(dice=(die,), camera=cam, lighting=SOFT, seed=k,
                           mat=np.full((60, 60, 3), 90, np.uint8)))
        assert out.labels == (dtype.faces[k - 1].label,)
        assert out.face_class.tolist() == [k - 1]
        # The top face, seen straight down: the central 60 % of the box.
        x0, y0, x1, y1 = out.boxes[0]
        cx, cy, h = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) * 0.3
        crop = out.image[int(cy - h):int(cy + h), int(cx - h):int(cx + h)].astype(np.float32)
        crop = cv2.resize(crop, (32, 32), interpolation=cv2.INTER_AREA)
        errs = []
        for face in dtype.faces:
            ref = type_face(dtype, face, size=64)[..., :3] * 255
            ref = cv2.resize(ref[13:51, 13:51], (32, 32), interpolation=cv2.INTER_AREA)
            # Each face sits on the cube at its own quarter turn: compare under all four.
            errs.append(min(float(np.mean((crop - np.rot90(ref, r)) ** 2)) for r in range(4)))
        best = dtype.faces[int(np.argmin(errs))].label
        assert best == dtype.faces[k - 1].label, (k, errs)


def test_pip_dice_keep_pip_labels() -> None:
    die = DieSpec(x_mm=0, y_mm=0, value=5, look=WHITE)
    out = render(Scene(dice=(die,), camera=TOP, lighting=SOFT))
    assert out.labels == ("5",) and die.label == "5"


def test_gloss_and_see_through_change_only_the_dice_that_ask_for_them() -> None:
    from dataclasses import replace

    from vision.synth.textures import add_gloss, face_texture

    rng = np.random.default_rng(0)
    clear = DieLook(body_bgr=(60.0, 50.0, 50.0), pip_bgr=(40.0, 40.0, 190.0),
                    style="translucent", pattern_seed=3)
    plain = face_texture(5, clear, rng, 64)
    ghost = face_texture(5, replace(clear, see_through=0.6), rng, 64)
    assert np.abs(ghost - plain).max() > 0.05, "the far face's pips show through"
    lit = plain.copy()
    add_gloss(lit, 0.9, seed=1)
    assert (lit[..., :3] - plain[..., :3]).min() >= 0, "a reflection only brightens"
    assert (lit[..., :3] - plain[..., :3]).max() > 0.3
    add_gloss(matte := plain.copy(), 0.0, seed=1)
    np.testing.assert_array_equal(matte, plain)
    # A die that asks for neither renders as it always did.
    die = DieSpec(x_mm=0, y_mm=0, value=4, yaw_deg=10, look=WHITE)
    a = render(Scene(dice=(die,), camera=TOP, lighting=SOFT, seed=2)).image
    b = render(Scene(dice=(replace(die, look=replace(WHITE, gloss=0.0, see_through=0.0)),),
                     camera=TOP, lighting=SOFT, seed=2)).image
    np.testing.assert_array_equal(a, b)
    shiny = render(Scene(dice=(replace(die, look=replace(WHITE, body_bgr=(40.0, 40.0, 40.0),
                                                          gloss=1.0)),),
                         camera=TOP, lighting=Lighting(elevation_deg=80), seed=2)).image
    dull = render(Scene(dice=(replace(die, look=replace(WHITE, body_bgr=(40.0, 40.0, 40.0))),),
                        camera=TOP, lighting=Lighting(elevation_deg=80), seed=2)).image
    assert (shiny.astype(int) - dull).max() > 60, "a glossy die under a high lamp shows a glint"
