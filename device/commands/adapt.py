"""`dicetable adapt LABELLED_DIR --out FILE`: teach the reader one table's dice from a few
labelled photos of them.

LABELLED_DIR holds ``images/`` and ``labels/`` as ``dicetable eval`` reads them (YOLO: one
line ``class x y w h`` per die, normalised, pip value = class + 1; a die with a symbol for a
face is labelled with the value it stands for) and may list regions to ignore in
``unlabelled.csv``. The reader learns the dice's size in the photos and a correction of its
face classifier (``vision.dice.adapt``); ``dicetable read --adapt FILE`` and ``dicetable eval
--adapt FILE`` then read with it.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from device.commands.read import make_reader
from device.errors import UserError
from vision.imageio import ImageError, load_image
from vision.measure.evaluate import DatasetError, evaluate, list_dataset

logger = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "adapt", help="teach the reader a table's dice from a few labelled photos",
        description="Learn the dice of one table from labelled photos of them (DIR/images "
                    "and DIR/labels, YOLO txt, pip = class + 1; a symbol face is labelled "
                    "with the value it stands for) and write what was learnt to FILE, for "
                    "read --adapt FILE and eval --adapt FILE.")
    p.add_argument("dataset", metavar="LABELLED_DIR", type=Path)
    p.add_argument("--out", metavar="FILE", type=Path,
                   help="where to write the adaptation (JSON)")
    p.add_argument("--profile", metavar="PROFILE", type=Path,
                   help="also keep it in this table profile: the live table (`dicetable serve "
                        "--profile`) and `read --profile` read with it")
    p.add_argument("--any-size", action="store_true",
                   help="do not learn the dice's size: the photos to read will show them "
                        "nearer or farther than these do")
    p.add_argument("--json", action="store_true", help="print a summary as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from vision.dice.adapt import (
        AdaptationError,
        LabelledPhoto,
        apply_adaptation,
        learn_adaptation,
        save_adaptation,
    )

    if args.out is None and args.profile is None:
        raise UserError("say where to keep what is learnt: --out FILE, --profile PROFILE or "
                        "both")
    try:
        items = list_dataset(args.dataset)
    except DatasetError as exc:
        raise UserError(str(exc)) from None
    if not items:
        raise UserError(f"no images in {args.dataset / 'images'}")
    if len(items) < 2:
        # Leave-one-domain-out (models.training.dice.domains, 3 draws): adapted to one photo the
        # reader found fewer dice than unadapted on two of four tables (damiantab 0.939 vs
        # 0.963, kamil 0.749 vs 0.920); to two, more on all four.
        print("warning: one photo is little to learn a table from and can make the reader "
              "worse; label two or more", file=sys.stderr)
    if args.out is not None and args.out.is_dir():
        raise UserError(f"--out {args.out} is a folder; name the file to write")
    photos = []
    for item in items:
        try:
            img = load_image(item.image)
        except ImageError as exc:
            raise UserError(f"a labelled photo cannot be read: {exc}") from None
        h, w = img.shape[:2]
        photos.append(LabelledPhoto(img, item.xyxy(w, h), item.values, item.ignore_xyxy(w, h)))
    reader = make_reader()
    before = evaluate(items, reader.read)
    try:
        adaptation = learn_adaptation(reader, photos, learn_scale=not args.any_size)
        apply_adaptation(reader, adaptation)
    except AdaptationError as exc:
        raise UserError(str(exc)) from None
    after = evaluate(items, reader.read)
    try:
        if args.out is not None:
            save_adaptation(args.out, adaptation)
        if args.profile is not None:
            from calibration.adaptation_store import save_to_profile

            save_to_profile(args.profile, adaptation)
    except OSError as exc:
        raise UserError(f"cannot write {exc.filename or args.out}: {exc.strerror or exc}"
                        ) from None
    except AdaptationError as exc:
        raise UserError(str(exc)) from None
    kept = " and ".join(str(p) for p in (args.out, args.profile) if p is not None)
    summary = {"out": str(args.out) if args.out else None,
               "profile": str(args.profile) if args.profile else None,
               "photos": adaptation.photos, "dice": adaptation.dice,
               "faces": adaptation.faces, "boxes_on_no_die": adaptation.negatives,
               "die_side": adaptation.die_side,
               "on_these_photos": {"before": _short(before), "after": _short(after)}}
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    faces = ", ".join(f"{k}: {v}" for k, v in adaptation.faces.items())
    print(f"learnt from {adaptation.photos} photos: {adaptation.dice} dice ({faces}) and "
          f"{adaptation.negatives} boxes on no die")
    if adaptation.die_side is not None:
        lo, hi = adaptation.die_side
        print(f"dice looked for at {100 * lo:.1f}-{100 * hi:.1f} % of a photo's longer side")
    else:
        print("dice looked for at any size")
    b, a = _short(before), _short(after)
    print(f"on these photos (the ones learnt from, so no test): read {b['read']:.3f} -> "
          f"{a['read']:.3f}, boxes on no die {b['boxes_on_no_die']} -> {a['boxes_on_no_die']}")
    how = f"--adapt {args.out}" if args.out is not None else f"--profile {args.profile}"
    print(f"wrote {kept}; read with: dicetable read PHOTO {how}")
    return 0


def _short(metrics: dict) -> dict:
    return {"found": round(metrics["detected_recall"], 4),
            "read": round(metrics["read_accuracy"], 4), "boxes_on_no_die": metrics["extra"]}
