"""The shipped die-face model: faces of known types, enrolment, profile storage, the CLI."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.faces.dietypes import get_type
from vision.faces.reading import DieFaceReader, EnrolledDie
from vision.measure.faces import ENROL, novel_dice
from vision.synth.facecrops import TRAIN, face_crops


@pytest.fixture(scope="module")
def reader() -> DieFaceReader:
    return DieFaceReader()


@pytest.mark.parametrize("name", ["icedice-colour-rainbow", "icedice-colour-suits",
                                  "icedice-size", "quarriors-quake-dragon", "d6-skull1"])
def test_faces_of_a_known_type(reader, name):
    dt = get_type(name)
    rng = np.random.default_rng(77)
    right = n = 0
    for face in dt.faces:
        for r in reader.read_type(face_crops(dt, face, 4, rng, TRAIN, reader.crop_px), dt):
            assert set(r.dist) == set(dt.labels)
            assert abs(sum(r.dist.values()) - 1) < 1e-6
            right += r.label == face.label
            n += 1
    assert right / n >= 0.95  # a floor; `dicetable pieces` measures the figure


def test_a_face_reads_the_same_at_every_quarter_turn(reader):
    # the logits are averaged over the crop's four turns (the temperature was fitted so)
    dt = get_type("quarriors-deathdealer")
    crops = face_crops(dt, dt.faces[5], 3, np.random.default_rng(5), TRAIN, reader.crop_px)
    a = reader.read_type(crops, dt)
    b = reader.read_type(np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2))), dt)
    assert reader.turns == 4
    for x, y in zip(a, b, strict=True):
        assert x.label == y.label and abs(x.probability - y.probability) < 1e-4


def test_an_expert_model_reads_its_types_and_only_them(reader):
    meta = json.loads((reader.path.with_name("die_faces_experts.json")).read_text())
    experts = {t for e in meta["experts"].values() for t in e["types"]}
    assert "icedice-size" in experts
    shared = DieFaceReader(experts=False)
    assert all(reader.has_expert(t) for t in experts)
    assert not reader.has_expert("icedice-colour-rainbow")
    assert not shared.has_expert("icedice-size")
    dt = get_type("icedice-size")
    crops = face_crops(dt, dt.faces[4], 6, np.random.default_rng(9), TRAIN, reader.crop_px)
    by_expert, by_shared = reader.read_type(crops, dt), shared.read_type(crops, dt)
    assert sum(r.label == "SL" for r in by_expert) >= 5
    assert [r.dist for r in by_expert] != [r.dist for r in by_shared]  # not the shared model
    rainbow = get_type("icedice-colour-rainbow")  # a type without an expert: the shared one
    c = face_crops(rainbow, rainbow.faces[0], 2, np.random.default_rng(9), TRAIN,
                   reader.crop_px)
    assert [r.dist for r in reader.read_type(c, rainbow)] == [
        r.dist for r in shared.read_type(c, rainbow)]


def test_the_last_listed_expert_takes_its_types_over(reader):
    # quarriors-fine2 lists five types the quarriors expert lists too: it reads them
    meta = json.loads((reader.path.with_name("die_faces_experts.json")).read_text())
    last = list(meta["experts"].values())[-1]
    assert "quarriors-victory" in last["types"]
    ex = reader._experts["quarriors-victory"]
    assert ex.path.name == last["file"] == "die_faces_quarriors-fine2_202611.onnx"
    dt = get_type("quarriors-victory")
    rng = np.random.default_rng(31)
    right = sum(r.label == face.label for face in dt.faces
                for r in reader.read_type(face_crops(dt, face, 5, rng, TRAIN, reader.crop_px),
                                          dt))
    assert right >= 29  # of 30; validation renders (models/die_faces.md): 1200 of 1200


def test_novel_dice_faces_differ_even_turned():
    from vision.faces.draw import glyph_key
    from vision.measure.faces import distinct_glyph_seeds

    seeds = distinct_glyph_seeds(900_000)
    assert len({glyph_key(s) for s in seeds}) == 6
    for dt in novel_dice(3, 0):
        assert len({glyph_key(f.look_dict()["seed"]) for f in dt.faces}) == 6


def test_a_blank_crop_is_not_read_as_a_confident_face(reader):
    blank = np.full((3, reader.crop_px, reader.crop_px, 3), 128, np.uint8)
    got = reader.read_type(blank, "quarriors-portal")
    assert all(r.label is None or r.probability < 0.99 for r in got)


def test_enrolment_learns_a_new_die_from_five_shots(reader):
    dt = novel_dice(1, seed=4242)[0]
    rng = np.random.default_rng(1)
    die = EnrolledDie(dt.name)
    for face in dt.faces:
        die.add(face.label, face_crops(dt, face, 5, rng, ENROL, reader.crop_px))
    right = n = 0
    for face in dt.faces:
        for r in reader.read_enrolled(face_crops(dt, face, 5, rng, TRAIN, reader.crop_px), die):
            assert set(r.dist) == {f.label for f in dt.faces}
            right += r.label == face.label
            n += 1
    assert right / n >= 0.9  # a floor; `dicetable pieces` measures the figure


def test_a_symbol_face_on_a_d6_keeps_the_other_faces(reader):
    skull = get_type("d6-skull1")
    rng = np.random.default_rng(2)
    die = EnrolledDie("my-skull-die", base="d6")
    die.add("1", face_crops(skull, skull.faces[0], 5, rng, ENROL, reader.crop_px))
    got = reader.read_enrolled(face_crops(skull, skull.faces[0], 6, rng, TRAIN,
                                          reader.crop_px), die)
    assert sorted(got[0].dist) == ["1", "2", "3", "4", "5", "6"]
    assert sum(r.label == "1" for r in got) >= 5
    pips = reader.read_enrolled(face_crops(skull, skull.faces[3], 6, rng, TRAIN,
                                           reader.crop_px), die)
    assert sum(r.label == "4" for r in pips) >= 5  # the kept faces still read


def test_enrol_command_stores_shots_in_the_profile(tmp_path, capsys):
    from calibration.enrolment import load_enrolled
    from device.cli import main

    dt = get_type("d6-emblem6")
    rng = np.random.default_rng(3)
    paths = []
    for i, crop in enumerate(face_crops(dt, dt.faces[5], 3, rng, ENROL, 48)):
        p = tmp_path / f"shot{i}.png"
        cv2.imwrite(str(p), cv2.resize(crop, (240, 240)))
        paths.append(str(p))
    profile = tmp_path / "p.toml"
    profile.write_text('format = "dicetable-profile/1"\ngame = "icedice"\n')
    assert main(["enrol", "--die", "promo", "--face", "6", "--base", "d6", "--profile",
                 str(profile), "--json", *paths]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["shots"] == {"6": 3} and out["base"] == "d6"
    dice = load_enrolled(profile)
    assert len(dice["promo"].shots["6"]) == 3
    assert 'game = "icedice"' in profile.read_text()  # the rest of the profile is kept
    assert main(["enrol", "--die", "promo", "--face", "6", "--profile", str(profile),
                 str(tmp_path / "missing.png")]) != 0
    assert "missing.png" in capsys.readouterr().err


def test_an_unreadable_stale_die_is_refused(reader):
    stale = EnrolledDie("old", {}, None, stale=True)
    crops = np.zeros((1, reader.crop_px, reader.crop_px, 3), np.uint8)
    with pytest.raises(ValueError, match="older version"):
        reader.read_enrolled(crops, stale)


def test_enrolment_measurement_reports_its_rejections(reader):
    from vision.measure.faces import eval_enrolment

    r = eval_enrolment(reader, 3, dice=1, tests=4, seed=123)
    assert 0.0 <= r["new_dice_rejected"] <= 1.0
    n = 6 * 4
    right = round(r["new_dice_accuracy"] * n)
    declined = round(r["new_dice_rejected"] * n)
    assert r["new_dice_accuracy_accepted"] == pytest.approx(right / max(n - declined, 1))
    assert r["new_dice_accuracy_accepted"] >= r["new_dice_accuracy"]
