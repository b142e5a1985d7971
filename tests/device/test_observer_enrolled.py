"""A die the players enrolled is read on the live table: a d6 with a symbol on its 1,
enrolled from five shots of that face, reads as the 1 (calibration.table.enrolled),
and an enrolment made while the observer runs (from the phone) is picked up."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from calibration.enrolment import enrol
from calibration.geometry.procedure import calibrate_image
from calibration.render.table import TableRenderer
from calibration.table.reader import TableReader
from calibration.table.readers import shared_readers
from engine import get_game
from engine.observation import Expected
from vision.faces.reading import DieFaceReader
from vision.measure.faces import ENROL, novel_dice, symbol_dice
from vision.synth.facecrops import face_crops

SKULL = symbol_dice(1, seed=7)[0]
"""An ordinary d6 whose 1 shows a bold symbol no model was trained on."""


@pytest.fixture(scope="module")
def table() -> tuple:
    game = get_game("pyramid_dice")
    state = game.apply(game.new_state(2, seed=3), game.parse_action("roll 1 4 5"))[0]
    view = tuple(Expected.make("die", e.zone, e.slot, face="1", type=SKULL.name)
                 if e.kind == "die" and e.attr("face") == "1" else e
                 for e in game.expected_view(state))
    tr = TableRenderer("pyramid_dice", 2, seed=5, die_types={SKULL.name: SKULL})
    tr.place(view, thrown=True)
    profile = calibrate_image(tr.calibration_shot(), tr.layout, colours=tr.dice_colours())
    return tr, view, profile


def _faces(observer: TableReader, tr: TableRenderer, view: tuple, seed: int) -> list:
    """The dice's face distributions, by position (dice thrown anew each time)."""
    tr.place(view, thrown=True)
    obs = observer.observe(tr.render_still(view, seed=seed), seed)
    return sorted((dict(o.dist("face")) for o in obs.objects if o.kind == "die"),
                  key=lambda d: max(d, key=d.get, default=""))


def _skull_shots(n: int) -> np.ndarray:
    return face_crops(SKULL, SKULL.faces[0], n, np.random.default_rng(1), ENROL,
                      DieFaceReader().crop_px)


def test_an_enrolled_symbol_face_reads_as_its_number(table: tuple, tmp_path: Path) -> None:
    tr, view, profile = table
    path = tmp_path / "profile.toml"
    observer = TableReader.build(profile, "pyramid_dice", *shared_readers(False),
                             enrolment=path)
    before = _faces(observer, tr, view, 1)
    assert len(before) == 3
    assert sum(d.get("1", 0.0) > 0.5 for d in before) == 0  # the symbol is no 1 yet
    enrol(path, "skull die", "1", _skull_shots(5), base="d6")  # while it runs
    after = _faces(observer, tr, view, 2)
    tops = sorted(max(d, key=d.get) for d in after)
    assert tops == ["1", "4", "5"]
    assert min(max(d.values()) for d in after) >= 0.9


def test_an_unreadable_enrolment_file_keeps_the_dice_read_before(
        table: tuple, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    tr, view, profile = table
    path = tmp_path / "profile.toml"
    enrol(path, "skull die", "1", _skull_shots(5), base="d6")
    observer = TableReader.build(profile, "pyramid_dice", *shared_readers(False),
                             enrolment=path)
    assert sorted(max(d, key=d.get) for d in _faces(observer, tr, view, 3)) == ["1", "4", "5"]
    path.write_text("[enrolment\nbroken", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        again = _faces(observer, tr, view, 4)
    assert sorted(max(d, key=d.get) for d in again) == ["1", "4", "5"]
    assert "cannot read" in caplog.text


def _novel_shots(n: int) -> dict[str, np.ndarray]:
    die = novel_dice(1, seed=3)[0]
    rng = np.random.default_rng(2)
    return {f.label: face_crops(die, f, n, rng, ENROL, DieFaceReader().crop_px)
            for f in die.faces}


def test_enrolled_dice_are_prepared_before_their_first_reading(table: tuple,
                                                               tmp_path: Path) -> None:
    """Preparing a wholly new die (its verifier) takes seconds: the observer does it on a
    thread of its own when it reads the file, at start and when a die is taught meanwhile,
    not at the die's first throw."""
    from calibration.enrolment import load_enrolled

    tr, view, profile = table
    path = tmp_path / "profile.toml"
    enrol(path, "skull die", "1", _skull_shots(3), base="d6")
    observer = TableReader.build(profile, "pyramid_dice", *shared_readers(False),
                             enrolment=path)
    assert observer.dice.enrolled.preparing is not None  # started by the constructor, no frame read
    observer.dice.enrolled.preparing.join(timeout=60)
    reader = observer.dice.enrolled.reader()
    assert all(reader.is_prepared(d) for d in load_enrolled(path).values())

    for label, shots in _novel_shots(3).items():  # taught from the phone during the match
        enrol(path, "new die", label, shots)
    new = load_enrolled(path)["new die"]
    assert not reader.is_prepared(new)
    _faces(observer, tr, view, 5)  # the next frame reads the file again
    observer.dice.enrolled.preparing.join(timeout=60)
    assert reader.is_prepared(new)
    assert reader.verify_weight <= 0 or reader._enrolled[new.key()].verifier is not None


def test_a_prepared_die_is_known_by_its_shots_not_their_count() -> None:
    """A profile replaced by another whose die has this one's name and counts of shots is
    prepared anew (the key holds the shots' bytes)."""
    from vision.faces.reading import EnrolledDie

    a, b = EnrolledDie("x", base="d6"), EnrolledDie("x", base="d6")
    shots = _skull_shots(4)
    a.add("1", shots[:2])
    b.add("1", shots[2:])
    assert a.key() != b.key()
    c = EnrolledDie("x", base="d6")
    c.add("1", shots[:2].copy())
    assert a.key() == c.key()
