"""`dicetable calibrate (--image FILE | --camera SPEC | --selftest) --game G [--out PROFILE]`.

One photo of the mat, with one die of each of the game's colours lying in its zones, gives the
table's profile: where the mat lies in the view, the camera's position, the paper's white and
the colour palette. `--selftest` measures the calibration on rendered photos instead and
reports position error, zone and palette accuracy.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from device.errors import UserError

logger = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate", help="camera, table and colour calibration -> profile",
        description="Calibrate from one photo of the printed mat (made by `dicetable mat`) "
                    "with one die of each colour lying on it, apart; writes a TOML profile "
                    "for `dicetable read --profile`. --selftest measures the calibration on "
                    "rendered photos.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", metavar="FILE", help="a photo of the mat")
    src.add_argument("--camera", metavar="SPEC",
                     help="take the photo: picamera, usb:N, auto or file:PATH")
    src.add_argument("--selftest", action="store_true",
                     help="measure position error, zones and palette on rendered photos")
    p.add_argument("--game", help="icedice, pyramid_dice, pyradice, quarriors")
    p.add_argument("--players", type=int, help="players the mat was printed for")
    p.add_argument("--colours", metavar="LIST",
                   help="comma-separated die colours shown (default: the game's palette)")
    p.add_argument("--out", type=Path, default=Path("dicetable-profile.toml"), metavar="PROFILE",
                   help="profile file to write (default dicetable-profile.toml)")
    p.add_argument("--poses", type=int, default=8, help="--selftest: photos per game")
    p.add_argument("--seed", type=int, default=0, help="--selftest: random seed")
    p.add_argument("--reader", action="store_true",
                   help="--selftest: find the dice with the shipped dice reader (end to end) "
                        "instead of the renderer's truth")
    p.add_argument("--json", action="store_true", help="JSON on stdout")
    p.set_defaults(func=run)


def grab_frame(spec: str, *, picamera_module: Any = None) -> Any:
    """One frame from a camera spec (picamera, usb:N, auto, file:PATH)."""
    kind, _, rest = spec.partition(":")
    if kind == "file" and rest:
        return _load(rest)
    from device.camera import CameraUnavailableError, open_source

    try:
        # Markers need pixels: ask for a large frame.
        source = open_source(spec, size=(1920, 1080), picamera_module=picamera_module)
    except CameraUnavailableError as exc:
        raise UserError(str(exc)) from None
    try:
        frame = None
        for _ in range(5):  # the first frames of a camera are often dark while it adjusts
            frame = source.read() or frame
    except CameraUnavailableError as exc:
        raise UserError(str(exc)) from None
    finally:
        source.close()
    if frame is None:
        raise UserError(f"the camera at {spec} gave no picture")
    return frame.image


def _load(path: str) -> Any:
    from vision.imageio import ImageError, load_image

    try:
        return load_image(path)
    except ImageError as exc:
        msg = str(exc)
        raise UserError(msg if path in msg else f"{path}: {msg}") from None


def _colours(text: str) -> tuple[str, ...]:
    """--colours as names of the palette; a typo was silently dropped before."""
    from vision.colours import PALETTE

    names = tuple(c.strip() for c in text.split(","))
    if not all(names):
        raise UserError(f"--colours {text!r}: an empty name; list colours separated by commas "
                        "(e.g. red,blue)")
    unknown = [n for n in names if n not in PALETTE]
    if unknown:
        raise UserError(f"--colours: unknown colour {', '.join(map(repr, unknown))}; known: "
                        + ", ".join(PALETTE))
    return names


def _summary(profile: Any, out: Path) -> dict[str, Any]:
    g = profile.geometry
    return {
        "profile": str(out), "mat": profile.layout.key,
        "markers_seen": g.markers_seen, "markers_used": g.markers_used,
        "markers_total": g.markers_total,
        "reprojection_error_px": round(g.error_px, 3), "error_mm": round(g.error_mm, 3),
        "camera_height_mm": round(g.camera_mm[2], 1), "tilt_deg": round(g.tilt_deg, 1),
        "focal_px": round(g.focal_px, 1), "image_size": list(g.image_size),
        "white_bgr": [round(v, 1) for v in profile.white_bgr],
        "palette": {c.name: c.samples for c in profile.palette.classes},
    }


def run(args: argparse.Namespace) -> int:
    if args.selftest:
        return _selftest(args)
    if not args.game:
        raise UserError("--game is required (icedice, pyramid_dice, pyradice, quarriors)")
    from calibration.geometry.homography import GeometryError
    from calibration.geometry.procedure import CalibrationError, calibrate_image
    from calibration.layouts import LayoutError, load_layout
    from calibration.profile import save

    try:
        layout = load_layout(args.game, args.players)
    except LayoutError as exc:
        raise UserError(str(exc)) from None
    colours = _colours(args.colours) if args.colours is not None else None
    image = _load(args.image) if args.image else grab_frame(args.camera)
    try:
        profile = calibrate_image(image, layout, colours=colours,
                                  source=args.image or args.camera)
    except (GeometryError, CalibrationError) as exc:
        raise UserError(str(exc)) from None
    try:
        save(profile, args.out)
    except OSError as exc:
        raise UserError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    info = _summary(profile, args.out)
    if args.json:
        json.dump(info, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        colours_found = ", ".join(f"{k} x{v}" for k, v in info["palette"].items()) or "none"
        print(f"wrote {args.out}: {layout.title} mat, {info['markers_used']} of "
              f"{info['markers_total']} markers, {info['reprojection_error_px']} px "
              f"({info['error_mm']} mm) error, camera {info['camera_height_mm']:.0f} mm above "
              f"the table, tilted {info['tilt_deg']:.0f} deg; colours: {colours_found}")
        if info["markers_used"] < info["markers_total"]:
            print("note: not every marker was seen; the fit is still good, but a photo "
                  "with the whole mat in view is better", file=sys.stderr)
    return 0


def _selftest(args: argparse.Namespace) -> int:
    from calibration.layouts import LayoutError, game_name
    from calibration.measure.evaluate import GAMES, selftest

    if args.poses < 1:
        raise UserError("--poses must be at least 1")
    try:
        games = (game_name(args.game),) if args.game else GAMES
    except LayoutError as exc:
        raise UserError(str(exc)) from None
    reader = None
    if args.reader:
        from vision.dice.reader import DiceReader
        from vision.onnx_models import ModelNotFoundError

        try:
            reader = DiceReader()
        except ModelNotFoundError as exc:
            raise UserError(str(exc), exit_status=1) from None
    from calibration.geometry.homography import GeometryError
    from calibration.geometry.procedure import CalibrationError

    try:
        result = selftest(games, poses=args.poses, seed=args.seed, reader=reader)
    except (GeometryError, CalibrationError) as exc:
        raise UserError(f"self-test: {exc}", exit_status=1) from None
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    pos = result["position_error_mm"]
    if reader is not None:
        print(f"dice reader found {result['found']:.1%} of the dice, "
              f"{result['extra_objects']} extra objects")
    print(f"{result['photos']} photos, {result['dice']} dice: position error p50 {pos['p50']} "
          f"mm, p95 {pos['p95']} mm, max {pos['max']} mm; zones {result['zone_accuracy']:.1%}, "
          f"slots {result['slot_accuracy']:.1%}, palette {result['palette_accuracy']:.1%} "
          f"(rejected {result['palette_rejected']:.1%})")
    for g in result["games"]:
        p = g["position_error_mm"]
        print(f"  {g['game']}: p95 {p['p95']} mm, zones {g['zone_accuracy']:.1%}, palette "
              f"{g['palette_accuracy']:.1%}")
    return 0
