"""label_audit: a tile for every labelled die, the disagreements listed, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from models.training.dice.label_audit import COLUMNS, TILE, audit, main, sheets
from vision.dice.detections import NUM_FACE_CLASSES, Detections
from vision.measure.evaluate import list_dataset


def make_set(root: Path, photos: int = 3) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    for n in range(photos):
        cv2.imwrite(str(root / "images" / f"p{n}.png"), np.full((100, 200, 3), 90, np.uint8))
        (root / "labels" / f"p{n}.txt").write_text("2 0.25 0.5 0.1 0.2\n4 0.75 0.5 0.1 0.2\n")


def reads(values: list[int]):  # noqa: ANN201 - finds the right die only, reads it `values[0]`
    def read(img: np.ndarray) -> Detections:
        probs = np.zeros((1, NUM_FACE_CLASSES), np.float32)
        probs[0, values[0] - 1] = 0.8
        probs[0, -1] = 0.2
        return Detections(xyxy=[[140, 40, 160, 60]], confidence=[0.9], face_probs=probs)
    return read


def test_every_die_gets_a_tile_and_each_disagreement_a_line(tmp_path: Path) -> None:
    make_set(tmp_path)
    tiles, differ = audit(list_dataset(tmp_path), reads([4]))
    assert len(tiles) == 6 and {t.shape for t in tiles} == {(TILE + 26, TILE + 4, 3)}
    # Die 0 (label 3) has no box; die 1 (label 5) is read 4 at 0.8.
    assert differ[:2] == [
        {"image": "p0.png", "die_index": 0, "label": 3, "read": None, "probability": None},
        {"image": "p0.png", "die_index": 1, "label": 5, "read": 4, "probability": 0.8}]
    assert len(differ) == 6
    _, differ = audit(list_dataset(tmp_path), reads([5]))
    assert [d["die_index"] for d in differ] == [0, 0, 0]
    pages = sheets(tiles, per_sheet=COLUMNS)
    assert len(pages) == 1 and pages[0].shape == (TILE + 26, COLUMNS * (TILE + 4), 3)


def test_main_writes_sheets_and_refuses_a_bad_folder(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "none"), "--out", str(tmp_path / "out")]) == 2
    assert "images/ and labels/" in capsys.readouterr().err
    make_set(tmp_path / "set", photos=5)
    assert main([str(tmp_path / "set"), "--out", str(tmp_path / "out"), "--per-sheet", "8",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["dice"], summary["sheets"]) == (10, 2)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["sheet_00.png",
                                                                   "sheet_01.png"]
