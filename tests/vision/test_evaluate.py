"""Matching and metrics of `eval`: centre inside the label's box, one to one."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detections import NUM_FACE_CLASSES, Detections
from vision.evaluate import DatasetError, evaluate, list_dataset, match


def test_match_is_one_to_one_and_needs_the_centre_inside() -> None:
    labels = np.array([[0, 0, 10, 10], [20, 0, 30, 10]], float)
    preds = np.array([[1, 1, 9, 9],        # centre (5, 5) in label 0
                      [2, 2, 10, 10],      # also in label 0, further: unmatched
                      [12, 0, 40, 10],     # centre (26, 5) in label 1
                      [50, 50, 60, 60]], float)
    assert sorted(match(preds, labels)) == [(0, 0), (2, 1)]
    assert match(np.zeros((0, 4)), labels) == []
    assert match(preds, np.zeros((0, 4))) == []


def make_dataset(root: Path, manifest: bool = True) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for name in ("a", "b"):
        cv2.imwrite(str(root / "images" / f"{name}.png"), np.zeros((100, 200, 3), np.uint8))
        (root / "labels" / f"{name}.txt").write_text("2 0.25 0.5 0.1 0.2\n4 0.75 0.5 0.1 0.2\n")
    if manifest:
        (root / "manifest.csv").write_text("image,split_in_source\na.png,train\nb.png,test\n")


def fake_reader(values: list[int], extra: bool = False):  # noqa: ANN201
    def read(img: np.ndarray) -> Detections:
        boxes = [[45, 40, 55, 60], [145, 40, 155, 60]] + ([[0, 0, 5, 5]] if extra else [])
        probs = np.zeros((len(boxes), NUM_FACE_CLASSES), np.float32)
        for i, v in enumerate(values + ([1] if extra else [])):
            probs[i, v - 1] = 1.0
        return Detections(xyxy=boxes, confidence=[0.9] * len(boxes), face_probs=probs)
    return read


def test_metrics(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    items = list_dataset(tmp_path)
    assert [i.values.tolist() for i in items] == [[3, 5], [3, 5]]
    perfect = evaluate(items, fake_reader([3, 5]))
    assert perfect["read_accuracy"] == perfect["image_exact"] == perfect["precision"] == 1.0
    half = evaluate(items, fake_reader([3, 6], extra=True))
    assert half["dice"] == 4 and half["images"] == 2
    assert half["detected_recall"] == 1.0
    assert half["precision"] == pytest.approx(4 / 6)
    assert half["value_accuracy"] == half["read_accuracy"] == 0.5
    assert half["image_exact"] == 0.0


def test_split_uses_the_manifest(tmp_path: Path) -> None:
    make_dataset(tmp_path)
    assert [i.image.name for i in list_dataset(tmp_path, "test")] == ["b.png"]
    with pytest.raises(DatasetError, match="splits are"):
        list_dataset(tmp_path, "valid")


def test_split_without_manifest_or_folders_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="images/ and labels/"):
        list_dataset(tmp_path)
    make_dataset(tmp_path, manifest=False)
    with pytest.raises(DatasetError, match="manifest"):
        list_dataset(tmp_path, "test")
