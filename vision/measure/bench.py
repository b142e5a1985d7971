"""Speed of the reading pipeline on synthetic frames, with its floor measured in the same run.

Frames are 1280x960 renders with 40 dice. The machine is shared and noisy, so besides
absolute rates the result gives ``floor_ratio``: the pipeline's median time per frame over
the median of a floor made of one colour conversion of the frame plus the classifier alone on
that frame's crops (the least any reader of these dice must spend).
"""

from __future__ import annotations

import logging
import platform
import time
from collections.abc import Callable
from functools import partial

import cv2
import numpy as np

from vision.dice.reader import DiceReader
from vision.synth.renderer import CameraPose, DieSpec, Rendered, Scene, render
from vision.synth.scenes import random_look

logger = logging.getLogger(__name__)


def bench_frames(n: int = 3, width: int = 1280, height: int = 960, dice: int = 40,
                 seed: int = 0) -> list[np.ndarray]:
    """``n`` seeded frames, each with ``dice`` dice on a grid with random jitter and yaw."""
    return [r.image for r in bench_renders(n, width, height, dice, seed)]


def bench_renders(n: int = 3, width: int = 1280, height: int = 960, dice: int = 40,
                  seed: int = 0) -> list[Rendered]:
    """The renders of :func:`bench_frames`, with their dice's boxes and values."""
    rng = np.random.default_rng(seed)
    renders = []
    cam = CameraPose(width=width, height=height, fov_deg=60, distance_mm=600)
    half = cam.pixel_to_table(np.array([[width * 0.06, height * 0.08],
                                        [width * 0.94, height * 0.92]]))
    cols, rows = 8, int(np.ceil(dice / 8))
    xs = np.linspace(half[0, 0], half[1, 0], cols)
    ys = np.linspace(half[0, 1], half[1, 1], rows)
    for _ in range(n):
        specs = []
        for k in range(dice):
            x, y = xs[k % cols], ys[k // cols]
            specs.append(DieSpec(x_mm=float(x + rng.uniform(-8, 8)),
                                 y_mm=float(y + rng.uniform(-8, 8)),
                                 value=int(rng.integers(1, 7)), yaw_deg=float(rng.uniform(0, 90)),
                                 look=random_look(rng)))
        renders.append(render(Scene(dice=tuple(specs), camera=cam,
                                    seed=int(rng.integers(1 << 30))), jpeg_quality=85))
    return renders


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times) * 1000)


def run_bench(reader: DiceReader, frames: list[np.ndarray], repeat: int = 15) -> dict:
    """Median timings over ``repeat`` passes of each frame (after one warm-up pass)."""
    pipe: list[float] = []
    clf: list[float] = []
    floor: list[float] = []
    found: list[int] = []

    def both(f: np.ndarray, c: np.ndarray) -> None:
        cv2.cvtColor(f, cv2.COLOR_BGR2RGB)
        reader.classifier.infer(c)

    for frame in frames:
        det = reader.read(frame)  # warm-up, and the boxes the floor classifies
        found.append(len(det))
        crops = reader.classifier.preprocess(frame, det.xyxy)
        pipe.append(_median_ms(partial(reader.read, frame), repeat))
        clf.append(_median_ms(partial(reader.classifier.infer, crops), repeat))
        floor.append(_median_ms(partial(both, frame, crops), repeat))
    pipe_ms, clf_ms, floor_ms = float(np.median(pipe)), float(np.median(clf)), float(
        np.median(floor))
    n_crops = float(np.median(found))
    return {
        "frames_per_s": 1000.0 / pipe_ms,
        "crops_per_s": n_crops * 1000.0 / clf_ms if clf_ms > 0 else 0.0,
        "floor_ratio": pipe_ms / floor_ms if floor_ms > 0 else 0.0,
        "ms_per_frame": pipe_ms,
        "floor_ms": floor_ms,
        "dice_per_frame": n_crops,
        "frame_size": [int(frames[0].shape[1]), int(frames[0].shape[0])],
        "threads": 1,
        "machine": f"{platform.machine()} {platform.processor() or platform.system()}".strip(),
    }
