"""The detector's faint small dice (vision.dice.detector.keep_faint_small)."""

from __future__ import annotations

import numpy as np

from models.training.dice import scale_table
from vision.dice.detections import Detections
from vision.dice.detector import Letterbox, keep_faint_small
from vision.dice.reader import DiceReader
from vision.measure.bench import bench_renders

SURE = 0.3


def _dice(sides: list[float], conf: list[float]) -> Detections:
    """Square boxes of these sides on a row, 100 px apart."""
    xy = np.array([[100.0 * i, 0.0, 100.0 * i + s, s] for i, s in enumerate(sides)])
    return Detections(xyxy=xy, confidence=np.array(conf, np.float32))


def _kept(det: Detections, scale: float = 1.0) -> list[int]:
    """Indices (by x) of the boxes kept, the network seeing the image at `scale`."""
    out = keep_faint_small(det, Letterbox(scale=scale, width=2000, height=2000), SURE)
    return sorted(int(round(x / 100)) for x in out.xyxy[:, 0])


def test_a_faint_die_the_size_of_small_sure_dice_is_kept() -> None:
    assert _kept(_dice([18, 19, 20, 18], [0.9, 0.8, 0.7, 0.25])) == [0, 1, 2, 3]


def test_a_faint_box_of_another_size_is_not_a_die() -> None:
    assert _kept(_dice([18, 19, 20, 8, 30], [0.9, 0.8, 0.7, 0.25, 0.25])) == [0, 1, 2]


def test_faint_boxes_count_only_where_the_dice_are_small() -> None:
    det = _dice([30, 31, 32, 31], [0.9, 0.8, 0.7, 0.25])
    assert _kept(det) == [0, 1, 2]
    # the same boxes in an image the network sees at half its size: dice of 15-16 px
    assert _kept(det, 0.5) == [0, 1, 2, 3]


def test_faint_boxes_wait_for_sure_dice_of_one_size() -> None:
    assert _kept(_dice([18, 19, 25, 19], [0.9, 0.8, 0.25, 0.25])) == [0, 1]  # too few sure
    # a close-up: sure boxes of pips beside the big dice (fewer than 3 in 4 alike)
    mixed = _dice([18, 19, 20, 60, 64, 19], [0.9, 0.8, 0.7, 0.9, 0.9, 0.25])
    assert _kept(mixed) == [0, 1, 2, 3, 4]


def test_the_bench_frames_small_dice_are_found() -> None:
    # Ten frames like the bench's (1280 x 960, 40 dice of about 20 px at the main pass), read
    # as the live table reads (main pass). Measured: 392 found, 367 right, 397 boxes; with
    # no faint peak 389, 364, 391 (before vision.dice.photometry's gains 395, 370, 399 and 385,
    # 361, 387: the gains find some of the same dice). The detector trained on every real
    # domain (2026-11-27): 398, 372, 402 with or without the faint peaks.
    renders = bench_renders(10, seed=7)
    photos = [(r.image, r.boxes, r.values, np.zeros((0, 4))) for r in renders]
    counts = {}
    for faint in (None, 0.2):
        reader = DiceReader(any_scale=False)
        reader.detector.faint = faint
        m = scale_table.score(reader.read, iter(photos))  # centre in the die's box, 1 to 1
        found = round(m["found"] * m["dice"])
        counts[faint] = (found, round(m["read"] * m["dice"]), found + m["extra"])
    found, right, boxes = counts[0.2]
    assert found >= 391 and right >= 363 and boxes - found <= 7, counts
    assert found >= counts[None][0], counts
