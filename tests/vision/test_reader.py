"""The shipped ONNX models through onnxruntime, and the whole reader on seeded renders."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort

from vision.dice.classifier import CROP_PX
from vision.dice.detections import Detections
from vision.onnx_models import CLASSIFIER_FILE, DETECTOR_FILE, model_path, open_session
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Scene, render
from vision.synth.scenes import random_look


def test_shipped_models_load_with_onnxruntime() -> None:
    det = open_session(model_path(DETECTOR_FILE))
    assert [i.name for i in det.get_inputs()] == ["image"]
    assert [o.name for o in det.get_outputs()] == ["heat", "peak", "geom"]
    heat, peak, geom = det.run(None, {"image": np.zeros((1, 3, 64, 96), np.float32)})
    assert heat.shape == peak.shape == (1, 1, 16, 24) and geom.shape == (1, 4, 16, 24)
    cls = open_session(model_path(CLASSIFIER_FILE))
    assert cls.get_inputs()[0].shape[1:] == [3, CROP_PX, CROP_PX]
    assert [o.name for o in cls.get_outputs()] == ["logits", "features"]
    logits, features = cls.run(None, {"crops": np.zeros((3, 3, CROP_PX, CROP_PX), np.float32)})
    assert logits.shape == (3, 9) and features.shape[0] == 3
    assert isinstance(det, ort.InferenceSession)
    assert det.get_session_options().intra_op_num_threads == 1


def seeded_scenes(n: int) -> list:
    """Straight-down or mildly tilted tables with well-separated readable dice."""
    rng = np.random.default_rng(123)
    out = []
    for k in range(n):
        cam = CameraPose(width=640, height=480, fov_deg=55, distance_mm=450,
                         tilt_deg=float(rng.uniform(0, 20)), azimuth_deg=float(rng.uniform(0, 360)))
        dice = []
        for i in range(8):
            x, y = -105 + 70 * (i % 4), -35 + 70 * (i // 4)
            dice.append(DieSpec(x_mm=x + float(rng.uniform(-10, 10)),
                                y_mm=y + float(rng.uniform(-10, 10)),
                                value=int(rng.integers(1, 7)), yaw_deg=float(rng.uniform(0, 90)),
                                look=_plain_look(rng)))
        out.append(render(Scene(dice=tuple(dice), camera=cam, seed=k,
                                lighting=Lighting(elevation_deg=float(rng.uniform(50, 85)))),
                          jpeg_quality=80))
    return out


def _plain_look(rng: np.random.Generator):  # noqa: ANN202
    from dataclasses import replace

    return replace(random_look(rng), symbol_face=0)


def test_reader_reads_seeded_synthetic_tables(reader) -> None:  # noqa: ANN001
    # 60 tables (480 dice; 4 s): on 6 the floor moved with one die. Measured with the shipped
    # models: 470 found, 443 right, 493 boxes (before vision.dice.photometry's gains 470, 441, 490;
    # classifier F3: 470, 444, 495; the one before it: 469, 441, 488). The pair trained on
    # every real domain, read by the image pyramid (2026-11-27): 478, 450, 513.
    right = total = found = predicted = 0
    for r in seeded_scenes(60):
        det = reader.read(r.image)
        assert isinstance(det, Detections)
        predicted += len(det)
        for box, value in zip(r.boxes, r.values, strict=True):
            total += 1
            c = det.center
            inside = np.nonzero((c[:, 0] >= box[0]) & (c[:, 0] <= box[2]) & (c[:, 1] >= box[1])
                                & (c[:, 1] <= box[3]))[0]
            if len(inside):
                found += 1
                right += int(det.value[inside[0]] == value)
    assert total == 480
    assert found / total >= 0.97
    assert right / total >= 0.91
    assert predicted <= total + 45


def test_a_balanced_photo_is_read_as_the_photo_it_was_balanced_from(reader) -> None:  # noqa: ANN001
    """``read(photo)`` balances the photo itself; ``read(normalise_light(photo), balanced=
    True)`` (a caller that cuts crops of its own from the balanced photo) reads the same
    dice, and ``balanced=True`` does not balance again (a cast photo passed so is read
    cast)."""
    from vision.dice.photometry import normalise_light

    cool = np.clip(seeded_scenes(1)[0].image * np.array([1.25, 1.0, 0.75]), 0, 255
                   ).astype(np.uint8)
    lit = normalise_light(cool)
    assert lit is not cool  # the cast is beyond the balance's dead zone
    once, twice = reader.read(cool), reader.read(lit, balanced=True)
    np.testing.assert_array_equal(once.xyxy, twice.xyxy)
    np.testing.assert_array_equal(once.face_probs, twice.face_probs)
    assert not np.array_equal(reader.read(cool, balanced=True).face_probs, once.face_probs)


def test_empty_table_has_no_dice(reader) -> None:  # noqa: ANN001
    rng = np.random.default_rng(5)
    img = np.full((480, 640, 3), 200, np.uint8)
    img += rng.integers(0, 8, img.shape, dtype=np.uint8)
    det = reader.read(img)
    assert len(det) == 0


def test_probabilities_are_distributions(reader) -> None:  # noqa: ANN001
    det = reader.read(seeded_scenes(1)[0].image)
    assert len(det) > 0
    np.testing.assert_allclose(det.face_probs.sum(axis=1), 1, atol=1e-4)
    assert np.all((det.value_probability > 0) & (det.value_probability <= 1))
    assert all(isinstance(n, str) and n for n in det.body_colour + det.pip_colour)


def test_four_turns_make_the_reading_rotation_invariant() -> None:
    import pytest

    from vision.dice.classifier import FaceClassifier

    crops = np.random.default_rng(3).integers(0, 255, (4, CROP_PX, CROP_PX, 3)).astype(np.uint8)
    turned = np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2)))
    cls = FaceClassifier(turns=4)
    np.testing.assert_allclose(cls.infer(crops), cls.infer(turned), atol=1e-4)
    once = FaceClassifier(turns=1)
    np.testing.assert_allclose(once.infer(crops), once.infer_once(crops))
    with pytest.raises(ValueError, match="turns"):
        FaceClassifier(turns=3)


def test_no_second_look_leaves_the_unsure_as_first_read(reader) -> None:  # noqa: ANN001
    # (a caller that reads faces its own way, a game's catalogued dice, asks no second look)
    rng = np.random.default_rng(5)
    crops = rng.integers(0, 256, (6, CROP_PX, CROP_PX, 3), dtype=np.uint8)
    first, first_nd = reader.classifier.postprocess(reader.classifier.infer(crops))
    assert (first.max(axis=1) < 0.9).any()  # noise is read unsure
    faces, not_die = reader._classify(crops, second_look=False)
    assert np.array_equal(faces, first) and np.array_equal(not_die, first_nd)
    looked, _ = reader._classify(crops)
    assert not np.allclose(looked, first)
