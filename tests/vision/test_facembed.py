"""The enrolment embedding (models/die_enrol_202611_int8.onnx) and the reading it joins."""

from __future__ import annotations

import numpy as np
import pytest

from vision.faces.embed import ENROL_FILE, FaceEmbedder
from vision.faces.reading import DieFaceReader, EnrolledDie
from vision.measure.faces import ENROL, novel_dice
from vision.onnx_models import model_path
from vision.synth.facecrops import HARSH, face_crops


@pytest.fixture(scope="module")
def embedder() -> FaceEmbedder:
    return FaceEmbedder(model_path(ENROL_FILE))


@pytest.fixture(scope="module")
def reader() -> DieFaceReader:
    return DieFaceReader()


def test_the_model_loads_and_gives_unit_embeddings(embedder):
    crops = face_crops(*_die_face(0), 3, np.random.default_rng(0), ENROL, embedder.crop_px)
    e = embedder.embed(crops)
    assert e.shape == (3, embedder.dim)
    assert np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-6)
    assert embedder.embed(crops[:0]).shape == (0, embedder.dim)


def _die_face(k: int):
    dt = novel_dice(1, seed=4343)[0]
    return dt, dt.faces[k]


def test_a_face_turned_a_quarter_embeds_alike(embedder):
    crops = face_crops(*_die_face(2), 4, np.random.default_rng(1), ENROL, embedder.crop_px)
    e = embedder.embed(crops)
    turned = embedder.embed(np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2))))
    assert np.min(np.sum(e * turned, axis=1)) > 0.95


def test_an_enrolled_shot_is_recognised_by_its_nearest_prototype(embedder):
    dt = novel_dice(1, seed=4343)[0]
    rng = np.random.default_rng(2)
    protos = np.stack([embedder.embed(face_crops(dt, f, 5, rng, ENROL, embedder.crop_px))
                       .mean(axis=0) for f in dt.faces])
    right = n = 0
    for k, f in enumerate(dt.faces):
        got = np.argmax(embedder.embed(face_crops(dt, f, 10, rng, HARSH, embedder.crop_px))
                        @ protos.T, axis=1)
        right += int((got == k).sum())
        n += len(got)
    assert right / n >= 0.85  # the embedding alone; the fused reading is tested below


def test_the_reader_uses_the_enrolment_embedding(reader):
    assert reader.enroller is not None and reader.enrol_weight > 0


def test_enrolled_new_dice_read_under_harsh_conditions(reader):
    right = n = 0
    rng = np.random.default_rng(3)
    for dt in novel_dice(2, seed=4344):
        die = EnrolledDie(dt.name)
        for f in dt.faces:
            die.add(f.label, face_crops(dt, f, 5, rng, ENROL, reader.crop_px))
        for f in dt.faces:
            got = reader.read_enrolled(face_crops(dt, f, 10, rng, HARSH, reader.crop_px), die)
            right += sum(r.label == f.label for r in got)
            n += len(got)
    assert right / n >= 0.97  # a floor near the measured figure (`dicetable pieces`)
