"""Enrolled dice in the profile: shots stored as small crops, old profiles refused clearly."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.enrolment import (
    EnrolmentError,
    decode_shot,
    encode_shot,
    enrol,
    load_enrolled,
    refuse_stale,
)

OLD = """format = "dicetable-profile/1"
game = "icedice"

[enrolment."skull d6"]
base = "d6"

[enrolment."skull d6".faces]
"1" = [[0.1, 0.2, 0.3], [0.1, 0.2, 0.3]]
"""


def _crops(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (n, 48, 48, 3)).astype(np.uint8)


def test_shots_round_trip_exactly(tmp_path: Path) -> None:
    crop = _crops(1)[0]
    assert np.array_equal(decode_shot(encode_shot(crop)), crop)
    path = tmp_path / "p.toml"
    enrol(path, "club die", "club", _crops(3), base="d6")
    enrol(path, "club die", "2", _crops(2, 1))
    die = load_enrolled(path)["club die"]
    assert die.base == "d6" and not die.stale
    assert [len(die.shots[k]) for k in ("club", "2")] == [3, 2]
    assert np.array_equal(die.shots["club"][0], _crops(3)[0])


def test_an_old_profile_is_refused_with_what_to_do_and_enrolling_replaces_it(
        tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(OLD)
    dice = load_enrolled(path)
    assert dice["skull d6"].stale and dice["skull d6"].base == "d6"
    with pytest.raises(EnrolmentError) as err:
        refuse_stale(path, dice)
    msg = str(err.value)
    assert "'skull d6'" in msg and "older dicetable" in msg and "dicetable enrol" in msg
    assert "\n" not in msg
    enrol(path, "other die", "x", _crops(1))  # another die: the old one is kept as it was
    assert load_enrolled(path)["skull d6"].stale
    assert 'game = "icedice"' in path.read_text()
    die = enrol(path, "skull d6", "1", _crops(3))  # enrolled again: replaced, base kept
    assert not die.stale and die.base == "d6" and list(die.shots) == ["1"]
    refuse_stale(path, load_enrolled(path))


@pytest.mark.parametrize("body", ['[enrolment]\ndie = 3\n',
                                  '[enrolment.d.shots]\n"1" = ["not base64!"]\n',
                                  '[enrolment.d.shots]\n"1" = ["aGVsbG8="]\n'])
def test_a_malformed_enrolment_is_one_clear_error(tmp_path: Path, body: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(body)
    with pytest.raises(EnrolmentError, match="malformed"):
        load_enrolled(path)


def test_enrolled_faces_replace_the_pip_reading_and_a_named_face_is_a_symbol() -> None:
    """calibration.table.enrolled.with_enrolled_faces: the live observer's dice take the
    enrolled reading; a label that is no pip face ("skull") is a symbol to the rules."""
    from calibration.table.enrolled import with_enrolled_faces
    from vision.dice.detections import FACE_NAMES, Detections

    pips = np.zeros((3, len(FACE_NAMES)), np.float32)
    pips[:, 2] = 1.0  # all read as a confident 3 (a skull's two eyes and mouth)
    det = Detections(np.tile(np.float32([0, 0, 10, 10]), (3, 1)), np.ones(3, np.float32),
                     pips, ("white",) * 3, ("black",) * 3)
    out = with_enrolled_faces(det, [None, {"face": "1", "faces": {"1": 0.97, "3": 0.03}},
                                    {"face": "skull", "faces": {"skull": 0.8, "1": 0.15}}])
    probs = dict(zip(FACE_NAMES, out.face_probs[1].tolist(), strict=True))
    assert probs["1"] == pytest.approx(0.97, abs=1e-6) and probs["3"] == pytest.approx(0.03)
    probs = dict(zip(FACE_NAMES, out.face_probs[2].tolist(), strict=True))
    assert probs["symbol"] == pytest.approx(0.8) and probs["1"] == pytest.approx(0.15)
    assert probs["unreadable"] == pytest.approx(0.05, abs=1e-6)
    assert out.face_probs[0].tolist() == pips[0].tolist()  # not an enrolled die: unchanged
    assert with_enrolled_faces(det, [None, None, None]) is det


# --- issue 29: names, limits and hostile shots ----------------------------------------------

@pytest.mark.parametrize("name", ["../../etc/x", 'a "quoted" die', "two\nlines", "", "x" * 41])
def test_enrol_refuses_the_names_the_api_refuses(tmp_path: Path, name: str) -> None:
    with pytest.raises(EnrolmentError, match="use 1-40 letters"):
        enrol(tmp_path / "p.toml", name, "1", _crops(1))
    with pytest.raises(EnrolmentError, match="use 1-40 letters"):
        enrol(tmp_path / "p.toml", "die", name or "x/y", _crops(1))
    assert not (tmp_path / "p.toml").exists()


def test_a_profile_has_room_for_so_many_dice_and_shots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from calibration import enrolment

    path = tmp_path / "p.toml"
    enrol(path, "d", "1", _crops(enrolment.MAX_SHOTS_PER_FACE))
    before = path.read_bytes()
    with pytest.raises(EnrolmentError, match="'d' face '1' has 10 shots; 10 is the most"):
        enrol(path, "d", "1", _crops(1))
    monkeypatch.setattr(enrolment, "MAX_DICE", 2)
    enrol(path, "e", "1", _crops(1))
    with pytest.raises(EnrolmentError, match="holds 2 enrolled dice"):
        enrol(path, "f", "1", _crops(1))
    monkeypatch.setattr(enrolment, "MAX_SHOTS", 12)
    with pytest.raises(EnrolmentError, match="holds 11 shots; 12 is the most"):
        enrol(path, "e", "2", _crops(2))
    assert len(load_enrolled(path)) == 2 and path.read_bytes() != before


def test_a_large_picture_in_a_profile_is_not_decoded() -> None:
    import base64

    import cv2

    big = cv2.imencode(".png", np.zeros((300, 300, 3), np.uint8))[1].tobytes()
    with pytest.raises(ValueError, match="not a small PNG"):
        decode_shot(base64.b64encode(big).decode())
    jpg = cv2.imencode(".jpg", _crops(1)[0])[1].tobytes()
    with pytest.raises(ValueError, match="not a small PNG"):
        decode_shot(base64.b64encode(jpg).decode())
