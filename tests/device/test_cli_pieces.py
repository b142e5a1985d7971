"""`dicetable read --game` on custom dice, and `dicetable pieces` (quick)."""

from __future__ import annotations

import json

import cv2
import numpy as np

from device.cli import main
from vision.faces.dietypes import get_type
from vision.synth.facecrops import Conditions, face_crops


def _photo_of_dice(path, dice):
    """A photo with dice of catalogued types (rendered crops laid on a plain table)."""
    rng = np.random.default_rng(0)
    img = np.full((480, 640, 3), (150, 170, 160), np.uint8)
    calm = Conditions(gain=(1, 1), cast=0, tilt=0.2, persp=0.02, box_jitter=0,
                      blur=(0, 0.01), noise=(0, 1), jpeg=(90, 95))
    for i, (name, face) in enumerate(dice):
        dt = get_type(name)
        x0 = 100 + 180 * i
        img[200:264, x0:x0 + 64] = face_crops(dt, dt.faces[face], 1, rng, calm, 64)[0]
    cv2.imwrite(str(path), img)


def test_read_game_adds_type_and_face(tmp_path, capsys):
    path = tmp_path / "ice.png"
    _photo_of_dice(path, [("icedice-size", 2), ("icedice-colour-rainbow", 0),
                          ("icedice-size", 4)])
    assert main(["read", str(path), "--game", "icedice", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)[0]
    dice = sorted(result["dice"], key=lambda d: d["center"][0])
    assert [d["type"] for d in dice] == ["icedice-size", "icedice-colour-rainbow",
                                         "icedice-size"]
    for d in dice:
        assert d["kind"] == "die"
        assert d["type"].startswith("icedice-")
        assert d["face"] is None or d["face"] in get_type(d["type"]).labels
        assert abs(sum(d["faces"].values()) - 1) < 1e-3


def test_read_unknown_game_is_one_line(tmp_path, capsys):
    path = tmp_path / "x.png"
    cv2.imwrite(str(path), np.full((64, 64, 3), 200, np.uint8))
    assert main(["read", str(path), "--game", "chess"]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown game" in err[0]


def test_pieces_quick_json(capsys):
    assert main(["pieces", "--quick", "--only", "cards", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["card_slots"]["slots"] == 72 and out["card_slots"]["slot_accuracy"] == 1.0
    assert out["card_slots"]["side_slots"] == 16


def test_pieces_per_face_below_one_is_one_line(capsys):
    assert main(["pieces", "--only", "faces", "--per-face", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--per-face must be at least 1" in err[0]
