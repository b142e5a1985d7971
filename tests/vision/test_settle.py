"""The settler: a reading only once the table is still and no hand is over it."""

from __future__ import annotations

import cv2
import numpy as np

from vision.settle import SceneState, Settler


def table(dice: list[tuple[int, int]], *, hand: int = 0, light: float = 1.0,
          jitter: int = 0, seed: int = 0) -> np.ndarray:
    """A 480x640 grey-green table with white dice; a hand reaching in from the right."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), (60, 110, 70), np.uint8)
    for x, y in dice:
        cv2.rectangle(img, (x, y), (x + 24, y + 24), (235, 235, 235), -1)
        cv2.circle(img, (x + 12, y + 12), 3, (20, 20, 20), -1)
    if hand:
        cv2.ellipse(img, (640, 240), (hand, 70), 0, 0, 360, (120, 150, 200), -1)
    img = np.clip(img.astype(np.float32) * light + rng.normal(0, 1.5, img.shape), 0, 255)
    if jitter:
        img = np.roll(img, jitter, axis=1)
    return img.astype(np.uint8)


def feed(settler: Settler, frames: list[np.ndarray]) -> list[bool]:
    out = []
    for f in frames:
        ready = settler.update(f)
        if ready:
            settler.accept(f)
        out.append(ready)
    return out


def test_still_scene_is_read_once() -> None:
    s = Settler()
    frames = [table([(100, 100)], seed=i) for i in range(10)]
    ready = feed(s, frames)
    assert ready.count(True) == 1 and ready.index(True) == 3
    assert s.state is SceneState.STILL


def test_rolling_dice_are_not_read_until_they_stop() -> None:
    s = Settler()
    feed(s, [table([(100, 100)], seed=i) for i in range(6)])
    rolling = [table([(100 + 30 * i, 200 + 10 * i)], seed=i) for i in range(8)]
    assert not any(feed(s, rolling))
    assert s.state is SceneState.MOVING
    landed = [table([(310, 270)], seed=100 + i) for i in range(6)]
    ready = feed(s, landed)
    assert ready.count(True) == 1


def test_a_hand_resting_over_the_table_blocks_the_reading() -> None:
    s = Settler()
    feed(s, [table([(100, 100)], seed=i) for i in range(6)])
    reaching = [table([(100, 100)], hand=40 * i, seed=i) for i in range(1, 6)]
    resting = [table([(100, 100), (300, 300)], hand=200, seed=50 + i) for i in range(10)]
    assert not any(feed(s, reaching + resting))
    assert s.hand_seen
    gone = [table([(100, 100), (300, 300)], seed=90 + i) for i in range(6)]
    assert feed(s, gone).count(True) == 1  # the hand left: the new die is read


def test_a_light_change_is_not_a_hand() -> None:
    s = Settler()
    feed(s, [table([(100, 100)], seed=i) for i in range(6)])
    dimmer = [table([(100, 100), (400, 120)], light=0.8, seed=20 + i) for i in range(6)]
    assert feed(s, dimmer).count(True) == 1


def test_empty_table() -> None:
    s = Settler()
    s.set_empty(table([]))
    feed(s, [table([], seed=i) for i in range(6)])
    assert s.state is SceneState.EMPTY
    feed(s, [table([(200, 200)], seed=10 + i) for i in range(6)])
    assert s.state is SceneState.STILL


def test_grey_and_resized_frames() -> None:
    s = Settler()
    grey = [cv2.cvtColor(table([(10, 10)], seed=i), cv2.COLOR_BGR2GRAY) for i in range(6)]
    assert feed(s, grey).count(True) == 1
    assert not s.update(np.zeros((100, 100, 3), np.uint8))  # new size: starts over


def floor_lit(frame: np.ndarray, light: float) -> np.ndarray:
    """The floor beyond the table's right edge (x >= 560) lit differently."""
    out = frame.copy()
    out[:, 560:] = np.clip(out[:, 560:].astype(np.float32) * light, 0, 255).astype(np.uint8)
    return out


TABLE = np.array([[0, 0], [540, 0], [540, 480], [0, 480]], np.float64)


def test_light_beyond_the_table_is_not_a_hand() -> None:
    """A lamp lights the floor beside the mat: with the table's outline known the reading
    goes on; without it the bright floor touching the frame's edge looks like an arm."""
    frames = [table([(100, 100)], seed=i) for i in range(6)]
    after = [floor_lit(table([(100, 100), (300, 300)], seed=20 + i), 1.8) for i in range(6)]
    blind = Settler()
    feed(blind, frames)
    assert not any(feed(blind, after)) and blind.hand_seen
    s = Settler()
    s.set_table(TABLE, (640, 480))
    feed(s, frames)
    assert feed(s, after).count(True) == 1


def test_a_hand_over_the_table_is_seen_within_its_outline() -> None:
    s = Settler()
    s.set_table(TABLE, (640, 480))
    feed(s, [table([(100, 100)], seed=i) for i in range(6)])
    resting = [table([(100, 100), (300, 300)], hand=260, seed=50 + i) for i in range(10)]
    assert not any(feed(s, resting)) and s.hand_seen
