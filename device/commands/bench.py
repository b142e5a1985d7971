"""`dicetable bench [--json]`: speed of the reading pipeline on one thread, with its floor.

``peak_rss_mb`` is the peak resident memory of a separate ``dicetable read`` of one photo,
measured with ``getrusage(RUSAGE_CHILDREN)`` so this process's own frames do not count.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2

from device.commands.read import make_reader
from vision.measure.bench import bench_frames, run_bench

logger = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench", help="speed of the reading pipeline, with its floor",
        description="Time detect+classify on synthetic 1280x960 frames with 40 dice on one "
                    "thread, the classifier alone, and the peak memory of one `read`.")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--frames", type=int, default=3, help="distinct frames (default 3)")
    p.add_argument("--repeat", type=int, default=15, help="timed passes per frame")
    p.set_defaults(func=run)


def peak_rss_of_read(photo: Path) -> float:
    """Peak RSS in MB of `python -m device read PHOTO --json` in a child process."""
    proc = subprocess.run([sys.executable, "-m", "device", "-q", "read", str(photo), "--json"],
                          capture_output=True, check=False)
    if proc.returncode != 0:
        logger.warning("read for the memory check failed: %s", proc.stderr.decode()[-300:])
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def run(args: argparse.Namespace) -> int:
    reader = make_reader()
    print("rendering frames...", file=sys.stderr)
    frames = bench_frames(n=max(1, args.frames))
    result = run_bench(reader, frames, repeat=max(1, args.repeat))
    with tempfile.TemporaryDirectory() as tmp:
        photo = Path(tmp) / "bench.jpg"
        cv2.imwrite(str(photo), frames[0])
        result["peak_rss_mb"] = round(peak_rss_of_read(photo), 1)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:16s} {value:.2f}" if isinstance(value, float) else f"{key:16s} {value}")
    return 0
