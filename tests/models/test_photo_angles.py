"""models.measure.photo_angles counts `read --game`'s typed dice by the camera's view angle."""

from __future__ import annotations

from models.measure.photo_angles import BINS, tally
from vision.dice.reader import DiceReader
from vision.faces.reading import DieFaceReader


def test_tally_puts_every_die_in_one_bin_and_reads_near_axis_dice() -> None:
    got, _, _ = tally(DieFaceReader(), "icedice", "grey", 6, seed=11)
    assert len(got) == len(BINS) - 1
    assert sum(b["dice"] for b in got) >= 18  # 3-8 dice a photo
    for b in got:
        # a die read right has its face right given its type too
        assert b["right"] <= b["face_given_type"] <= b["dice"]
    near = [b for b, lo in zip(got, BINS, strict=False) if lo < 25]
    assert sum(b["right"] for b in near) >= 0.8 * sum(b["dice"] for b in near)


def test_tally_at_the_readers_boxes_counts_dice_found_and_boxes_on_no_die() -> None:
    # Measured at seed 11: 27 of 28 dice found, 2 boxes on no labelled die, 1 of them on a
    # die the frame cuts. The pair trained on every real domain (2026-11-27) finds 20 of the
    # 28 IceDice dice, 1 box on no die (its detector with the pair before's classifier 25:
    # neither was fine-tuned on rendered custom dice as the pair before's detector was;
    # models/dice_reader.md, known weaknesses). The live table's IceDice reading is
    # unchanged (simulate --game icedice --matches 2 --seed 3: state_exact 1.0, auto 1.0).
    got, extra, on_cut = tally(DieFaceReader(), "icedice", "grey", 6, seed=11,
                               dice_reader=DiceReader())
    dice, found = sum(b["dice"] for b in got), sum(b["found"] for b in got)
    assert dice >= 18 and found >= 0.7 * dice
    assert extra <= 4
    assert on_cut >= 1
