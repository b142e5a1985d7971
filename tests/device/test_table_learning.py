"""The live table learning its dice from confirmed moves (calibration.table.learning)."""

from __future__ import annotations

import numpy as np

from calibration.table.learning import (
    CONFIRM,
    SeenDie,
    TableLearner,
    assign,
)
from engine.observation import Expected, make_view


def _die(zone: str, face_probs: dict[str, float], features: np.ndarray,
         read_as: int = 6) -> SeenDie:
    logits = np.zeros(9, np.float32)
    logits[read_as] = 3.0  # the class the shipped classifier reads (6: a symbol)
    return SeenDie(zone, features.astype(np.float32), logits, face_probs)


def _view(*faces: str, zone: str = "rolling"):  # noqa: ANN202
    return make_view(Expected.make("die", zone, face=f) for f in faces)


def test_assignment_follows_the_reader_s_probabilities() -> None:
    seen = [{"5": 0.9, "6": 0.1}, {"2": 0.6, "3": 0.4}, {"6": 0.7, "5": 0.3}]
    assert assign(seen, ["2", "6", "5"]) == ["5", "2", "6"]
    many = [{str(i % 6 + 1): 0.9} for i in range(8)]
    assert assign(many, [str(i % 6 + 1) for i in range(8)]) == [str(i % 6 + 1)
                                                                 for i in range(8)]


def test_confirmed_readings_teach_and_a_taken_back_move_untaught() -> None:
    rng = np.random.default_rng(0)
    skull = np.array([4.0, 0, 0, 0])  # a skull's features, read as a symbol
    learner = TableLearner()
    keys = []
    for key in range(8):  # eight confirmed readings of three dice, one a skull
        learner.seen([_die("rolling", {"1": 0.05}, skull + rng.normal(0, 0.3, 4)),
                      _die("rolling", {"3": 0.95}, rng.normal(0, 1, 4), read_as=2),
                      _die("rolling", {"4": 0.95}, rng.normal(0, 1, 4), read_as=3)])
        assert learner.confirm(key, _view("1", "3", "4"), CONFIRM) == 3
        keys.append(key)
        learner.refit(set(keys))
    # fitted at MIN_DICE (9) confirmed dice, again at 15 and 21 (REFIT_EVERY 6); the last
    # three are too few to fit again
    assert learner.residual is not None and learner.fitted_on == 21 and learner.fits == 3
    probe = skull[None] + rng.normal(0, 0.3, (20, 4))
    logits = np.tile(_die("x", {}, skull).logits, (20, 1))
    # the shipped logits call these skulls symbols by a margin of 3; after 7 confirmed
    # skulls against a pull worth 4 dice, most read 1 (seen 15 of 20)
    assert (logits.argmax(axis=1) == 6).all()
    assert (learner.residual.apply(logits, probe).argmax(axis=1) == 0).mean() >= 0.7
    # the players corrected all but two of the moves: what those taught goes, and with
    # under MIN_DICE dice left there is no correction at all
    assert learner.refit({0, 1}) and learner.residual is None


def test_unsure_or_miscounted_readings_teach_nothing() -> None:
    learner = TableLearner()
    learner.seen([_die("rolling", {"2": 0.9}, np.ones(4)), _die("rolling", {"5": 0.9},
                                                                 np.ones(4))])
    assert learner.confirm(0, _view("2", "5"), CONFIRM - 0.01) == 0  # the rules were unsure
    assert learner.confirm(0, _view("2", "5", "6"), CONFIRM) == 0  # a die missed
    assert learner.confirm(0, _view("2", "5", zone="side"), CONFIRM) == 0  # another zone
    assert learner.labelled == {}


def test_an_earlier_session_s_correction_stands_until_this_one_has_its_own() -> None:
    from vision.dice.residual import FaceResidual

    prior = FaceResidual(np.zeros(4), np.ones(4), np.zeros((9, 4)), np.zeros(9))
    learner = TableLearner(residual=prior, prior=prior)
    assert not learner.refit(set())  # nothing of its own yet: the prior stands
    assert learner.residual is prior
    for key in range(3):
        learner.seen([_die("rolling", {"2": 0.9}, np.full(4, key), read_as=1)] * 3)
        learner.confirm(key, _view("2", "2", "2"), CONFIRM)
    assert learner.refit({0, 1, 2}) and learner.residual is not prior
    assert learner.refit(set()) and learner.residual is prior  # taken back: the prior again
