"""`dicetable mat --game G [--players N] [--paper A4|A3|letter] --out FILE.pdf|FILE.png`.

A printable play mat at true scale: ArUco markers round the border (ids unique to this mat),
the game's zones and slots with their labels. A PDF is cut into sheets of the paper with glue
strips and registration crosses; a PNG is the whole mat in one image with its resolution
recorded, for a print shop or a screen.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from device.errors import UserError

logger = logging.getLogger(__name__)

PAPERS = ("A4", "A3", "letter")


def paper(value: str) -> str:
    for name in PAPERS:
        if name.lower() == value.strip().lower():
            return name
    raise argparse.ArgumentTypeError(f"unknown paper {value!r} (choose {', '.join(PAPERS)})")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "mat", help="printable play mat with markers and zones",
        description="Write a game's play mat at true scale: a PDF of printable sheets (print "
                    "at 100 %%, no 'fit to page') or one PNG image.")
    p.add_argument("--game", required=True, help="icedice, pyramid_dice, pyradice, quarriors")
    p.add_argument("--players", type=int, help="number of players (default: the game's usual)")
    p.add_argument("--paper", type=paper, default="A4", help="A4 (default), A3 or letter")
    p.add_argument("--dpi", type=float, default=150.0, help="PNG resolution (default 150)")
    p.add_argument("--out", required=True, type=Path, metavar="FILE",
                   help="FILE.pdf (sheets) or FILE.png (one image)")
    p.add_argument("--json", action="store_true", help="describe the mat as JSON on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration.layouts import LayoutError, load_layout
    from calibration.printing.mat import png_bytes, render_mat
    from calibration.printing.tiles import mat_pdf, tiles

    suffix = args.out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise UserError(f"--out must end in .pdf or .png, not {args.out.name!r}")
    if args.players is not None and args.players < 1:
        raise UserError("--players must be at least 1")
    if not 30 <= args.dpi <= 1200:
        raise UserError("--dpi must be between 30 and 1200")
    try:
        layout = load_layout(args.game, args.players)
    except LayoutError as exc:
        raise UserError(str(exc)) from None
    sheets = 1
    if suffix == ".pdf":
        data = mat_pdf(layout, args.paper)
        sheets = len(tiles(layout, args.paper)[1])
    else:
        data = png_bytes(render_mat(layout, args.dpi / 25.4), args.dpi)
    from calibration.atomicfile import write_atomic

    try:
        write_atomic(args.out, data)
    except OSError as exc:
        raise UserError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    ids = sorted(layout.marker_ids())
    info = {"file": str(args.out), "mat": layout.key, "game": layout.game,
            "players": layout.players, "size_mm": list(layout.size_mm),
            "format": suffix[1:], "paper": args.paper if suffix == ".pdf" else None,
            "sheets": sheets, "dpi": args.dpi if suffix == ".png" else None,
            "markers": {"dictionary": layout.marker_dictionary, "first": ids[0],
                        "last": ids[-1], "count": len(ids)},
            "zones": [z.name for z in layout.zones]}
    if args.json:
        json.dump(info, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        w, h = layout.size_mm
        where = f"{sheets} {args.paper} sheet{'s' if sheets > 1 else ''}" if suffix == ".pdf" \
            else f"one {args.dpi:g} dpi image"
        print(f"wrote {args.out}: {layout.title} mat, {w:g} x {h:g} mm on {where} "
              f"(markers {ids[0]}-{ids[-1]}); print at 100 %, then check the 100 mm bar")
    return 0
