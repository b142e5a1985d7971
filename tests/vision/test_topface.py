"""vision.faces.topface: the candidate crops of a typed die in a photo and the choice among them."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from vision.faces.reading import FaceReading
from vision.faces.topface import (
    CHOICE_FILE,
    FEATURES,
    SCALE_CODED_FRACTION,
    TOP_FRACTIONS,
    Candidates,
    TopFaceChooser,
    _layout,
    features,
    nearest,
    scale_coded,
    top_candidates,
)

K = 1 + 9 * len(TOP_FRACTIONS)


def test_top_candidates_are_the_box_and_squares_inside_it() -> None:
    boxes = np.array([[10, 20, 90, 70], [0, 0, 40, 60]], np.float32)
    c = top_candidates(boxes)
    assert c.shape == (2, K, 4)
    assert np.array_equal(c[:, 0], boxes)
    assert np.all(c[..., :2] >= boxes[:, None, :2] - 1e-4)
    assert np.all(c[..., 2:] <= boxes[:, None, 2:] + 1e-4)
    side = c[:, 1:, 2] - c[:, 1:, 0]
    assert np.allclose(side, c[:, 1:, 3] - c[:, 1:, 1])  # squares, the box aside
    assert np.isclose(side[0, 1:].max(), 50 * max(TOP_FRACTIONS))


def test_the_layout_names_each_candidates_size_and_place() -> None:
    boxes = np.array([[0, 0, 100, 100]], np.float32)
    c = top_candidates(boxes)[0]
    fraction, place, ox, oy = _layout()
    side = c[:, 2] - c[:, 0]
    assert np.allclose(side, 100 * fraction)
    centre = (c[:, :2] + c[:, 2:]) / 2
    assert np.allclose(centre[:, 0], 50 + 100 * ox)
    assert np.allclose(centre[:, 1], 50 + 100 * oy)
    assert place[0] == -1 and sorted(set(place[1:].tolist())) == list(range(9))


def _candidates(types: list[str], nearness: np.ndarray) -> Candidates:
    return Candidates(types, nearness, np.full(K, 0.1),
                      [FaceReading({str(i): 1.0}, str(i), 0.9) for i in range(K)],
                      np.zeros((K, 48, 48, 3), np.uint8))


def test_a_scale_coded_face_is_never_read_from_a_square_inside_it() -> None:
    """IceDice's size die tells its faces by the pyramids' size: a square inside the face
    zooms them, so the nearest candidate is taken among squares of at least
    SCALE_CODED_FRACTION of the box even when a smaller one lies nearer; other types keep the
    nearest."""
    assert scale_coded("icedice-size")
    assert not scale_coded("icedice-colour-rainbow")
    assert not scale_coded("quarriors-growth")
    fraction = _layout()[0]
    small = int(np.flatnonzero(fraction < SCALE_CODED_FRACTION)[4])
    nearness = 0.5 - 0.01 * np.arange(K)
    nearness[small] = 0.9
    c = nearest(_candidates(["icedice-size"] * K, nearness))
    assert fraction[c] >= SCALE_CODED_FRACTION
    assert c == 0  # the nearest of those: the box
    assert nearest(_candidates(["icedice-colour-rainbow"] * K, nearness)) == small


def test_features_have_a_column_each() -> None:
    x = features(_candidates(["quarriors-growth"] * K, np.linspace(0.2, 0.8, K)),
                 np.array([10, 10, 60, 60], np.float32), (480, 640))
    assert x.shape == (K, len(FEATURES))
    assert np.all(np.isfinite(x))


def _write_chooser(path: Path, weights: np.ndarray, sha: str) -> None:
    path.write_text(json.dumps({
        "features": list(FEATURES), "mean": [0.0] * len(FEATURES),
        "scale": [1.0] * len(FEATURES), "weights": weights.tolist(), "bias": 0.0,
        "face_model_sha256": sha}))


def test_the_chooser_takes_the_candidate_of_the_highest_score(tmp_path: Path) -> None:
    w = np.zeros(len(FEATURES))
    w[FEATURES.index("nearness")] = 1.0
    _write_chooser(tmp_path / CHOICE_FILE, w, "x")
    chooser = TopFaceChooser(tmp_path / CHOICE_FILE)
    nearness = np.full(K, 0.3)
    nearness[7] = 0.8
    assert chooser.choose(_candidates(["quarriors-growth"] * K, nearness),
                          np.array([0, 0, 50, 50], np.float32), (100, 100)) == 7
    meta = json.loads((tmp_path / CHOICE_FILE).read_text())
    meta["features"] = meta["features"][:-1]
    (tmp_path / CHOICE_FILE).write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="other features"):
        TopFaceChooser(tmp_path / CHOICE_FILE)


def test_a_chooser_learnt_on_another_face_model_is_not_used(tmp_path: Path) -> None:
    from vision.faces.reading import DieFaceReader
    from vision.onnx_models import model_path

    shipped = model_path("die_faces_202611.onnx")
    sha = hashlib.sha256(shipped.read_bytes()).hexdigest()

    def reader_in(name: str, chooser_sha: str | None) -> DieFaceReader:
        folder = tmp_path / name
        folder.mkdir()
        shutil.copy(shipped, folder)
        shutil.copy(shipped.with_name("die_faces.json"), folder)
        if chooser_sha is not None:
            _write_chooser(folder / CHOICE_FILE, np.zeros(len(FEATURES)), chooser_sha)
        return DieFaceReader(path=folder / shipped.name, experts=False)

    assert TopFaceChooser.beside(reader_in("none", None)) is None
    broken = reader_in("broken", None)
    broken.path.with_name(CHOICE_FILE).write_text("{not json")
    assert TopFaceChooser.beside(broken) is None  # read without it, not a crash
    assert TopFaceChooser.beside(reader_in("other", "0" * 64)) is None
    assert TopFaceChooser.beside(reader_in("made_for_it", sha)) is not None
