"""`dicetable read IMAGE... [--json] [--annotate OUT_DIR] [--profile PROFILE]`: dice in photos.

No calibration is needed; with a table profile (`dicetable calibrate`) each die also gets its
zone, slot, position on the table in millimetres and its colour under this table's light.

Each image is read independently: a bad file gets its own error message and the others are
still read; the exit status is 1 when any image failed.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import cv2

from device.errors import UserError
from vision.dice.annotate import annotate
from vision.dice.detections import Detections
from vision.imageio import ImageError, load_image
from vision.onnx_models import ModelNotFoundError

if TYPE_CHECKING:  # onnxruntime loads only for commands that read dice
    from calibration.profile import Profile
    from vision.dice.reader import DiceReader

logger = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "read", help="dice in photos, no calibration needed",
        description="Find every die in each photo and read its face and colours.")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo file(s)")
    p.add_argument("--json", action="store_true", help="one JSON list on stdout")
    p.add_argument("--annotate", metavar="OUT_DIR", type=Path,
                   help="also write a copy of each photo with the dice drawn on it")
    p.add_argument("--profile", metavar="PROFILE", type=Path,
                   help="a table profile: add each die's zone, slot and mm position, and "
                        "read the dice enrolled in it (`dicetable enrol`)")
    p.add_argument("--game", metavar="G",
                   help="the game on the table: each die's type and face (IceDice, "
                        "Quarriors dice), and with --profile its pyramids or card slots")
    p.add_argument("--adapt", metavar="FILE", type=Path,
                   help="read with what `dicetable adapt` learnt of this table's dice")
    p.set_defaults(func=run)


def dice_json(det: Detections) -> list[dict]:
    """Detections -> the `read --json` dice objects (pixels of the original image)."""
    out = []
    for i in range(len(det)):
        x0, y0, x1, y1 = (round(float(v), 1) for v in det.xyxy[i])
        value = int(det.value[i])
        out.append({
            "box": [x0, y0, x1, y1],
            "center": [round((x0 + x1) / 2, 1), round((y0 + y1) / 2, 1)],
            "value": value if value else None,
            "probability": round(float(det.value_probability[i]), 4),
            "unsure": bool(det.unsure[i]),
            "symbol": bool(det.symbol[i]),
            "body_colour": det.body_colour[i],
            "pip_colour": det.pip_colour[i],
        })
    return out


def make_reader(adapt: Path | None = None) -> DiceReader:
    """The dice reader with the shipped models, adapted to the table of the adaptation file
    ``adapt`` (``dicetable adapt``) when given; a missing model or a bad file is a one-line
    error."""
    from vision.dice.reader import DiceReader

    try:
        reader = DiceReader()
    except ModelNotFoundError as exc:
        raise UserError(str(exc), exit_status=1) from None
    if adapt is not None:
        from vision.dice.adapt import AdaptationError, apply_adaptation, load_adaptation

        try:
            apply_adaptation(reader, load_adaptation(adapt))
        except AdaptationError as exc:
            raise UserError(str(exc)) from None
    return reader


def read_one(reader: DiceReader, path: str, annotate_dir: Path | None,
             profile: Profile | None = None, game: str | None = None,
             enrolled: dict | None = None) -> dict:
    """The `read --json` object of one image; a bad file fills in `error`."""
    result: dict = {"image": path, "width": None, "height": None, "error": None, "dice": []}
    try:
        img = load_image(path)
    except ImageError as exc:
        result["error"] = str(exc)
        return result
    result["height"], result["width"] = (int(v) for v in img.shape[:2])
    det = reader.read(img)
    result["dice"] = dice_json(det)
    if enrolled:
        _add_enrolled(result, img, det, enrolled)
    if game is not None:
        _add_game_objects(result, img, det, game, profile)
    if profile is not None:
        from calibration.profile import ProfileError
        from calibration.table.photo import annotate_detections

        try:
            extra = annotate_detections(profile, det, img)
        except ProfileError as exc:
            result["error"] = str(exc)
            return result
        # The mat's own markers can look like dice to the reader: the profile knows them.
        result["dice"] = [d | e for d, e in zip(result["dice"], extra, strict=True)
                          if e.get("marker") is None]
    if annotate_dir is not None:
        target = annotate_dir / (Path(path).stem + ".annotated.jpg")
        if not cv2.imwrite(str(target), annotate(img, det)):
            result["error"] = f"could not write {target}"
    return result


def _add_game_objects(result: dict, img, det: Detections, game: str,
                      profile: Profile | None) -> None:
    """Per die its kind, type and face for the game's die types; with a profile, the
    pyramids or card slots as `pieces` (kind, type, zone, slot, colour / size / present)."""
    from calibration.table.photo import read_table_pieces
    from calibration.table.typed import read_dice_types

    for d, t in zip(result["dice"], read_dice_types(_face_reader(), img, det, game),
                    strict=True):
        d["kind"] = "die"
        d.update(t if t is not None else {"type": "d6", "face": d["value"] and str(d["value"])})
    if profile is not None:
        result["pieces"] = read_table_pieces(profile, img)


def _add_enrolled(result: dict, img, det: Detections, enrolled: dict) -> None:
    """Dice read as symbols or unsure get the enrolled die and face that fit them; a face
    enrolled as a pip number (a skull enrolled as 1) gives the die that value."""
    from calibration.table.enrolled import read_enrolled_dice

    for d, e in zip(result["dice"], read_enrolled_dice(_face_reader(), img, det, enrolled),
                    strict=True):
        if e is None:
            continue
        d["enrolled"] = e
        if e["face"] in ("1", "2", "3", "4", "5", "6"):
            d["value"], d["probability"] = int(e["face"]), e["probability"]


_FACES: list = []


def _face_reader():
    """The die-face model, opened once per process (a missing file is a one-line error)."""
    if not _FACES:
        from vision.faces.reading import DieFaceReader

        try:
            _FACES.append(DieFaceReader())
        except ModelNotFoundError as exc:
            raise UserError(str(exc), exit_status=1) from None
    return _FACES[0]


def _adapt_from_profile(reader: DiceReader, profile: Path) -> None:
    """Read with the adaptation the profile keeps (`adapt --profile`, the live table), if
    it holds one made for this classifier."""
    from calibration.adaptation_store import load_from_profile
    from vision.dice.adapt import AdaptationError, apply_adaptation

    try:
        kept = load_from_profile(profile)
        if kept is not None:
            apply_adaptation(reader, kept)
    except AdaptationError as exc:
        logger.warning("%s: read as shipped", exc)


def _text(result: dict) -> str:
    if result["error"]:
        return f"{result['image']}: error: {result['error']}"
    dice = result["dice"]
    parts = [("?" if d["value"] is None else str(d["value"])) + ("*" if d["symbol"] else "")
             + ("?" if d["unsure"] and d["value"] is not None else "")
             + f" ({d['body_colour']}/{d['pip_colour']}, p={d['probability']:.2f})" for d in dice]
    unsure = sum(1 for d in dice if d["unsure"])
    total = sum(d["value"] or 0 for d in dice)
    return (f"{result['image']}: {len(dice)} dice, total {total}"
            + (f" ({unsure} unsure, marked ?)" if unsure else "")
            + (": " + ", ".join(parts) if parts else ""))


def _game(name: str | None) -> str | None:
    if name is None:
        return None
    from calibration.layouts import game_name

    try:
        return game_name(name)
    except ValueError as exc:
        raise UserError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    if args.annotate is not None:
        try:
            args.annotate.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot create {args.annotate}: {exc.strerror or exc}") from None
    profile, enrolled = None, {}
    if args.profile is not None:
        from calibration.enrolment import EnrolmentError, load_enrolled, refuse_stale
        from calibration.profile import ProfileError, load

        try:
            enrolled = load_enrolled(args.profile)
            refuse_stale(args.profile, enrolled)
        except EnrolmentError as exc:
            raise UserError(str(exc)) from None
        try:
            profile = load(args.profile)
        except ProfileError as exc:
            if not enrolled:
                raise UserError(str(exc)) from None
            # a file holding only enrolled dice (enrolled before calibrating): use those
            logger.info("%s holds enrolled dice but no calibration (%s)", args.profile, exc)
    reader = make_reader(args.adapt)
    if args.adapt is None and args.profile is not None:
        _adapt_from_profile(reader, args.profile)
    results = []
    for path in args.images:
        result = read_one(reader, path, args.annotate, profile, _game(args.game), enrolled)
        results.append(result)
        if result["error"]:
            print(f"dicetable: {path}: {result['error']}", file=sys.stderr)
        if not args.json:
            print(_text(result))
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return 1 if any(r["error"] for r in results) else 0
