"""Contact sheets of wild renders (vision.synth.wild_scenes) for checking them by eye.

Each tile is one render with its dice truth boxes in green, its look-alike boxes in red and
the surface kind written in its corner; sheets hold 16 tiles. Render i uses the seed
(seed, i), so a tile can be rendered again alone.

Usage:
    python -m models.training.dice.wild_sheet --out DIR [--n 48] [--seed 0] [--size 640]
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path

import cv2
import numpy as np

from vision.synth.wild_scenes import render_wild, wild_scene

logger = logging.getLogger(__name__)

TILE_PX = 400
PER_SHEET = 16


def tile(seed: tuple[int, int], size: int) -> tuple[np.ndarray, float, float]:
    """(annotated tile, wall seconds, CPU seconds the render took) of render ``seed``.

    Both times: on a machine shared with training jobs the wall time also counts the
    waits for a core; the CPU time is the render's own work."""
    rng = np.random.default_rng(seed)
    t0, c0 = time.perf_counter(), time.process_time()
    ws = wild_scene(rng, size, size)
    r, boxes, _ = render_wild(ws, rng)
    took, cpu = time.perf_counter() - t0, time.process_time() - c0
    img = r.image.copy()
    for colour, rows in (((0, 0, 255), boxes), ((0, 220, 0), r.boxes)):
        for b in np.round(rows).astype(int):
            cv2.rectangle(img, (b[0], b[1]), (b[2], b[3]), colour, 2)
    img = cv2.resize(img, (TILE_PX, TILE_PX), interpolation=cv2.INTER_AREA)
    label = f"{seed[1]} {ws.surface} {1000 * took:.0f}ms"
    cv2.putText(img, label, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, label, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1,
                cv2.LINE_AA)
    return img, took, cpu


def sheets(out: Path, n: int, seed: int, size: int) -> tuple[list[float], list[float]]:
    """Write ceil(n / 16) PNG sheets to ``out``; the renders' wall and CPU seconds."""
    out.mkdir(parents=True, exist_ok=True)
    times, cpus, tiles = [], [], []
    for i in range(n):
        img, took, cpu = tile((seed, i), size)
        tiles.append(img)
        times.append(took)
        cpus.append(cpu)
    for k in range(0, n, PER_SHEET):
        group = tiles[k:k + PER_SHEET]
        group += [np.zeros_like(group[0])] * (PER_SHEET - len(group))
        rows = [np.hstack(group[j:j + 4]) for j in range(0, PER_SHEET, 4)]
        path = out / f"wild_sheet_{seed}_{k // PER_SHEET:02d}.png"
        cv2.imwrite(str(path), np.vstack(rows))
        print(path)
    return times, cpus


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--n", type=int, default=48)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, default=640, help="render size in pixels (square)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    times, cpus = sheets(args.out, args.n, args.seed, args.size)
    print(f"median render {1000 * float(np.median(times)):.0f} ms wall "
          f"({1000 * float(np.median(cpus)):.0f} ms CPU), max {1000 * max(times):.0f} ms wall, "
          f"over {len(times)} renders of {args.size}x{args.size} (one OpenCV thread)")


if __name__ == "__main__":
    main()
