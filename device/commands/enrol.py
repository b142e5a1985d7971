"""`dicetable enrol --die NAME --face LABEL IMAGE... [--profile FILE] [--base TYPE]`.

Teaches the reader a die it does not know, or a symbol face of an ordinary die: each photo
shows the die with `LABEL` up (the largest-scoring die found in it is used; a close-up with
no die found is used whole). Shots are stored as embeddings in the profile's ``[enrolment]``
table. ``--base d6`` keeps an ordinary die's other faces (enrol only the skull on the 1).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import numpy as np

from device.errors import UserError
from vision.imageio import ImageError, load_image
from vision.onnx_models import ModelNotFoundError

logger = logging.getLogger(__name__)

DEFAULT_PROFILE = Path("dicetable-profile.toml")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "enrol", help="teach the reader the faces of a new die (or a symbol face)",
        description="Store shots of one face of a die in the profile; show each face 3-5 "
                    "times, in the table's light, at any rotation.")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photos showing that face up")
    p.add_argument("--die", required=True, help="the die's name (yours to choose)")
    p.add_argument("--face", required=True, help="what the rules see on that face (1, skull)")
    p.add_argument("--base", help="a catalogued type whose other faces the die keeps (d6)")
    p.add_argument("--profile", type=Path, default=DEFAULT_PROFILE,
                   help=f"profile file to add to (default {DEFAULT_PROFILE})")
    p.add_argument("--json", action="store_true", help="print the die's shots per face as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration.enrolment import EnrolmentError, check_name, enrol
    from device.enrolment import shot_crop
    from vision.dice.detector import DiceDetector
    from vision.faces.reading import DieFaceReader

    try:  # the names the phone's API takes, checked before any photo is read
        check_name("--die", args.die)
        check_name("--face", args.face)
    except EnrolmentError as exc:
        raise UserError(str(exc)) from None
    if args.profile.is_dir():
        raise UserError(f"--profile {args.profile} is a folder; give a profile file")
    try:
        reader = DieFaceReader()
        detector = DiceDetector()
    except ModelNotFoundError as exc:
        raise UserError(str(exc), exit_status=1) from None
    crops = []
    for path in args.images:
        try:
            crops.append(shot_crop(load_image(path), reader, detector))
        except ImageError as exc:
            raise UserError(f"{path}: {exc}") from None
    try:
        die = enrol(args.profile, args.die, args.face, np.concatenate(crops), args.base)
    except EnrolmentError as exc:
        raise UserError(str(exc)) from None
    counts = {label: len(shots) for label, shots in die.shots.items()}
    if args.json:
        print(json.dumps({"die": die.name, "base": die.base, "shots": counts,
                          "profile": str(args.profile)}))
    else:
        print(f"{die.name}: " + ", ".join(f"{k} x{v}" for k, v in counts.items())
              + f" (saved in {args.profile})")
    if sum(counts.values()) < 3 * len(counts):
        print("dicetable: 3-5 shots per face read best", file=sys.stderr)
    return 0
