"""A phone-sized photo of many small dice read with the finest pass tiled and whole
(``vision.dice.scales.TILE``): dice found and read, seconds and peak RSS of each.

Usage::

    python -m models.training.dice.big_photo [--repeats 3]

The photo is 24 real-dice test photos, each scaled to 672 px, side by side 6 x 4
(4032 x 2688 px, 180 dice of 1.5 % of its width). Each reading runs in a fresh process, so
that its peak RSS is its own; the two ways alternate and the medians are printed.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

TILE_PX = 672
COLUMNS, ROWS = 6, 4


def photo() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(image, label boxes in its pixels, values) of the tiled test photos."""
    from models.training.dice.dataset import shared_dir
    from models.training.dice.scale_table import tiled
    from vision.measure.evaluate import list_dataset

    items = list_dataset(shared_dir() / "data" / "real-dice", "test")
    image, boxes, values, _ = next(tiled(items, COLUMNS, ROWS, TILE_PX))
    return image, boxes, values


def read_once(tiled: bool) -> dict:
    """One reading in this process (call in a fresh one)."""
    from vision.dice import reader as reader_module
    from vision.measure.evaluate import match

    image, boxes, values = photo()
    if not tiled:  # the reader's passes, each whole
        reader_module.TILE = None  # type: ignore[assignment]
    reader = reader_module.DiceReader()
    t0 = time.perf_counter()
    det = reader.read(image)
    seconds = time.perf_counter() - t0
    pairs = match(det.xyxy, boxes)
    return {"dice": len(boxes), "found": len(pairs), "boxes": len(det),
            "right": sum(int(det.value[p]) == int(values[j]) for p, j in pairs),
            "seconds": seconds,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--once", choices=("tiled", "whole"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.once:
        print(json.dumps(read_once(args.once == "tiled")))
        return 0
    runs: dict[str, list[dict]] = {"whole": [], "tiled": []}
    for _ in range(args.repeats):
        for way in runs:
            out = subprocess.run([sys.executable, "-m", "models.training.dice.big_photo", "--once",
                                  way], capture_output=True, text=True, check=True).stdout
            runs[way].append(json.loads(out.strip().splitlines()[-1]))
    report = {way: {**{k: r[0][k] for k in ("dice", "found", "right", "boxes")},
                    **{k: round(statistics.median(x[k] for x in r), 3)
                       for k in ("seconds", "peak_rss_mb")}}
              for way, r in runs.items()}
    report["seconds_ratio_tiled_over_whole"] = round(
        statistics.median(t["seconds"] / w["seconds"]
                          for t, w in zip(runs["tiled"], runs["whole"], strict=True)), 3)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
