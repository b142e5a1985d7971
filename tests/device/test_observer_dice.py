"""A plain d6 whose face reads surely is a die (calibration.table.dice.SURE_PLAIN_DIE)."""

from __future__ import annotations

import numpy as np

from calibration.layouts import load_layout
from calibration.perception import perception
from calibration.table.dice import CONFIRMED_DIE, SURE_PLAIN_DIE, DiceStage
from engine import get_game
from engine.observation import Observation, Observed, observe_view
from engine.reconcile import explain

_IMAGE = np.zeros((4, 4, 3), np.uint8)  # (not looked at: plain dice are not re-read)


def _plain() -> DiceStage:
    """The dice stage of a Pyramid Dice table (plain d6 in a known dice zone); no reader is
    needed to judge dice already read."""
    return DiceStage(perception("pyramid_dice"), load_layout("pyramid_dice", 2),
                     None)  # type: ignore[arg-type]


def _die(face: dict[str, float], conf: float = 0.58) -> Observed:
    return Observed.make("die", "rolling", confidence=conf, position_mm=(100.0, 50.0),
                         face=face)


def test_a_plain_die_read_surely_is_a_die() -> None:
    sure, unsure, detected = _plain()._typed(None, _IMAGE, [
        _die({"2": 0.99, "3": 0.01}), _die({"4": 0.6, "6": 0.4}),
        _die({"5": 1.0}, conf=0.99)])
    assert sure.confidence == SURE_PLAIN_DIE
    assert sure.dists == _die({"2": 0.99, "3": 0.01}).dists  # only the existence changes
    # a face read unsurely is no second reading (a second box on one die read 0.73)
    assert unsure.confidence == 0.58
    assert detected.confidence == 0.99  # never lowered
    assert SURE_PLAIN_DIE < CONFIRMED_DIE


def test_a_roll_with_a_die_scored_low_is_then_recorded() -> None:
    """Simulated Pyramid Dice, seed 200 frame 1738: 'roll 2 2 4', one 2 scored 0.58 by the
    detector and read 2 at 0.9996, was asked ('roll 1 2 4' and the like: a false die and a
    missed one, 0.025 each against 0.885); with the face read as a second reading the roll
    is sure."""
    game = get_game("pyramid dice")
    state = game.play(game.new_state(2, seed=3), ["roll 1 1 1", "remove r7c3"])
    after = game.expected_view(game.play(state, ["roll 2 2 4"]))
    others = [o for o in observe_view(after).objects if o.kind != "die"]
    dice = [Observed.make("die", "rolling", confidence=c, position_mm=(x, 50.0), face=f,
                          colour={"white": 1.0})
            for c, x, f in ((0.583, 100.0, {"2": 0.9996}), (0.995, 140.0, {"2": 0.9994}),
                            (0.995, 180.0, {"4": 0.9998}))]
    assert sorted(str(e.attr("face")) for e in after if e.kind == "die") == ["2", "2", "4"]

    def best(objs: list[Observed]) -> tuple[str, float]:
        obs = Observation(tuple(objs + others), moved=True, frame=1, dice_moved=True)
        top = explain(game, state, obs)[0]
        return top.text(), top.posterior

    text, raw = best(dice)
    assert text == "roll 2 2 4" and raw < 0.9
    text, read = best(_plain()._typed(None, _IMAGE, dice))
    assert text == "roll 2 2 4" and read >= 0.9
