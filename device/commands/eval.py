"""`dicetable eval DIR [--split S] [--label-fixes CSV] [--json]`: accuracy of the reader on
labelled photos, against the folder's labels as published or with dice whose label is known
to be wrong relabelled (``models/real_dice_fixes.csv`` holds those of the real-dice set)."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from device.commands.read import make_reader
from device.errors import UserError
from device.progress import each
from vision.imageio import ImageError
from vision.measure.evaluate import (
    DatasetError,
    evaluate,
    fix_labels,
    list_dataset,
    read_label_fixes,
)

logger = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval", help="accuracy on YOLO-labelled photos",
        description="Read every photo of DIR (images/ + labels/, YOLO txt, pip = class + 1) "
                    "and score the reader; --split picks rows of DIR/manifest.csv by its "
                    "split_in_source column.")
    p.add_argument("dataset", metavar="DIR", type=Path)
    p.add_argument("--split", help="only images whose split_in_source is this (e.g. test)")
    p.add_argument("--label-fixes", metavar="CSV", type=Path,
                   help="score against the value seen for dice the source labels wrongly: "
                        "rows image,die_index,pip_value_in_source,pip_value_seen,what "
                        "(e.g. models/real_dice_fixes.csv); labels_fixed counts them")
    p.add_argument("--adapt", metavar="FILE", type=Path,
                   help="read with what `dicetable adapt` learnt of this table's dice")
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        items = list_dataset(args.dataset, args.split)
        fixed = 0
        if args.label_fixes is not None:
            items, fixed = fix_labels(items, read_label_fixes(args.label_fixes))
    except DatasetError as exc:
        raise UserError(str(exc)) from None
    if not items:
        raise UserError(f"no images in {args.dataset / 'images'}")
    reader = make_reader(args.adapt)
    try:
        metrics = evaluate(items, reader.read, progress=lambda images: each(
            images, "eval", "image", quiet=args.quiet))
    except ImageError as exc:
        raise UserError(f"a dataset image cannot be read: {exc}", exit_status=1) from None
    metrics["labels_fixed"] = fixed
    if args.json:
        print(json.dumps(metrics, indent=2))
    else:
        for key, value in metrics.items():
            print(f"{key:16s} {value:.4f}" if isinstance(value, float) else f"{key:16s} {value}")
    return 0
