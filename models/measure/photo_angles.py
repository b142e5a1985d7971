"""`read --game`'s typed dice, right by how far off square-on the camera sees each one.

Usage::

    python -m models.measure.photo_angles [--scenes N] [--seed S] [--models DIR [--face-file F]]
                                  [--no-experts] [--detector] [--nearest] [--json]

A phone's photo of a table sees the dice near its centre from above and the others obliquely:
the wider the lens and the more it is tilted, the more of a die's printed sides it shows and
the more its top face is foreshortened. This reads rendered photos of each game's catalogued
dice (``models.measure.light_faces.photos``' scenes: ``vision.synth.scenes`` cameras, up to 30
degrees of
tilt, 45-75 degree lenses; every table kind of :data:`vision.synth.scenes.TABLES`; unshifted, as
taken) as ``dicetable read --game`` reads them (``calibration.table.typed.read_dice_types``) at
each die's true box, and counts them by the angle between the table's normal and the ray from
the die to the camera (:meth:`vision.synth.renderer.CameraPose.view_angle_deg`). A die counts right
when its type (either colour die's edition) and face are both right; when only its face would
be, given the type, is in ``face_given_type``.

Photo seed 1 + S: ``vision.faces.topface.top_candidates``' squares were chosen on seed 0.

Measured with the shipped models, every die read from the candidate nearest a face mean
(``--nearest``; right / dice per bin, 0-15 / 15-25 / 25-35 / 35-45 / 45+ degrees; the
scale-coded rule of ``vision.faces.topface`` in):

- seed 1 (``--seed 0``): IceDice 115/122, 206/225, 267/323, 114/173, 35/82 (737 of 925);
  Quarriors 116/122, 182/225, 260/323, 90/173, 28/82 (676 of 925).
- seed 0 (``--seed -1``): IceDice 157/159, 244/263, 209/243, 124/177, 71/173 (805);
  Quarriors 148/159, 228/263, 204/243, 129/177, 67/173 (776).
- seed 2 (``--seed 1``): IceDice 228/230, 344/358, 257/326, 75/152, 24/65 (928 of 1131);
  Quarriors 214/230, 328/358, 247/326, 78/152, 27/65 (894).

Within 15 degrees of square-on 93-99 % of the dice are read right, within 25 degrees
86-97 %; at 35-45 degrees 49-73 %, past 45 degrees 34-43 %. Given the true type the
faces are hardly better (Quarriors seed 1: 119 / 190 / 274 / 98 / 34): the loss is the face
of an oblique die, not its type. A face model trained with obliquely seen crops
(``facecrops.OBLIQUE``) did not change that (``models/die_faces.md``).

The shipped chooser (``vision.faces.topface.TopFaceChooser``, IceDice only) reads more of the
oblique dice: seed 3 (``--seed 2``, read once) IceDice 843 -> 908 of 1 061, 45+ degrees
70 -> 97 of 138; at the dice reader's boxes (``--detector``, seed 1) 546 -> 590 of 925, of
which the reader found 751 (``found``). With the detector fine-tuned on custom dice
(2026-11-26, ``models.training.dice.tune_detector``) it finds 862 and reads 734 right (Quarriors:
found 886 -> 901, right 620 -> 688); ``boxes_on_no_die`` IceDice 71 -> 81, Quarriors
153 -> 115. Of the tuned detector's 81 and 115, 39 and 57 lie on dice the frame cuts, which
the renderer draws but leaves unlabelled (``of_them_on_dice_the_frame_cuts``, 2026-11-26): a
box there is on a die after all.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

BINS = (0, 15, 25, 35, 45, 90)
"""Edges of the view-angle bins, degrees."""


def tally(reader, game: str, table: str, scenes: int, seed: int, dice_reader=None,
          chooser: object = "shipped") -> tuple[list[dict[str, int]], int, int]:
    """Per bin of :data:`BINS`: dice, right (type and face), right face given the true type;
    with `dice_reader` (a ``vision.dice.reader.DiceReader``) the dice are read at its boxes, as
    ``dicetable read --game`` does, each die at the box whose centre lies inside it
    (``vision.measure.evaluate.match``), and ``found`` counts the dice that have one (a die with
    none
    is wrong). `chooser` as ``read_dice_types``' (None: the nearest candidate). Also the
    number of the reader's boxes on no labelled die (``read --game`` would report them as
    dice; 0 at the true boxes), and how many of those lie on a die the frame cuts, which the
    renderer draws but leaves unlabelled (``vision.synth.renderer.cut_by_frame``)."""
    from calibration.table.typed import read_dice_types
    from models.measure.light_faces import true_boxes
    from vision.faces.dietypes import die_of, game_types, get_type
    from vision.measure.evaluate import match
    from vision.synth.renderer import cut_by_frame, render
    from vision.synth.scenes import typed_scene

    types = [get_type(t) for t in game_types(game)]
    rng = np.random.default_rng(seed)
    out = [{"dice": 0, "found": 0, "right": 0, "face_given_type": 0} for _ in BINS[:-1]]
    extra = on_cut = 0
    for _ in range(scenes):
        scene = typed_scene(rng, types, table)
        r = render(scene)
        if len(r.boxes) == 0:
            continue
        if dice_reader is None:
            at = dict(enumerate(r.boxes))
        else:  # die -> the reader's box whose centre lies inside it
            det = dice_reader.read(r.image)
            pairs = match(det.xyxy, r.boxes)
            at = {lab: det.xyxy[p] for p, lab in pairs}
            extra += len(det) - len(at)
            unmatched = np.setdiff1d(np.arange(len(det)), [p for p, _ in pairs])
            on_cut += len(match(det.xyxy[unmatched], cut_by_frame(scene)))
        keep = sorted(at)
        boxes = np.array([at[i] for i in keep], np.float32).reshape(-1, 4)
        got = dict(zip(keep, read_dice_types(reader, r.image, true_boxes(boxes), game,
                                             chooser=chooser), strict=True))
        dice = [scene.dice[int(k)] for k in r.die_index]
        angles = scene.camera.view_angle_deg(
            np.array([[d.x_mm, d.y_mm, d.size_mm] for d in dice]))
        for i, (d, lb, a) in enumerate(zip(dice, r.labels, angles, strict=True)):
            b = out[min(int(np.searchsorted(BINS, a, side="right")) - 1, len(out) - 1)]
            b["dice"] += 1
            g = got.get(i)
            if g is None:  # no box of the reader's on it
                continue
            b["found"] += 1
            assert d.die_type is not None  # (typed scenes: every die has its type)
            type_right = die_of(g["type"]) == die_of(d.die_type.name)
            b["right"] += type_right and g["face"] == lb
            if not type_right:  # read again, told the type
                g = read_dice_types(reader, r.image, true_boxes(at[i][None]), game,
                                    types=[d.die_type.name], chooser=chooser)[0]
            b["face_given_type"] += g is not None and g["face"] == lb
    return out, extra, on_cut


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenes", type=int, default=40, help="photos per game and table")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--models", type=Path, help="folder of the face model (and experts) to "
                    "read with instead of the shipped ones")
    ap.add_argument("--face-file", default="die_faces_202611.onnx",
                    help="the face model's file name in --models")
    ap.add_argument("--no-experts", action="store_true", help="the shared model alone")
    ap.add_argument("--detector", action="store_true",
                    help="read at the dice reader's boxes, as read --game, not the true ones")
    ap.add_argument("--nearest", action="store_true",
                    help="choose the candidate nearest a face mean, not by the shipped "
                         "chooser (vision.faces.topface)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from vision.faces.reading import DieFaceReader
    from vision.synth.scenes import TABLES

    reader = DieFaceReader(path=args.models / args.face_file if args.models else None,
                           experts=not args.no_experts)
    dice_reader = None
    if args.detector:
        from vision.dice.reader import DiceReader

        dice_reader = DiceReader()
    names = [f"{lo}-{hi}" for lo, hi in zip(BINS, BINS[1:], strict=False)]
    results, boxes_on_no_die, on_cut_dice = {}, {}, {}
    for game in ("icedice", "quarriors"):
        tallies = [tally(reader, game, t, args.scenes, 1 + args.seed, dice_reader,
                         None if args.nearest else "shipped") for t in TABLES]
        per_table = [bins for bins, _, _ in tallies]
        total = {n: {k: sum(pt[i][k] for pt in per_table) for k in per_table[0][i]}
                 for i, n in enumerate(names)}
        results[game] = total
        boxes_on_no_die[game] = sum(extra for _, extra, _ in tallies)
        on_cut_dice[game] = sum(cut for _, _, cut in tallies)
        if not args.json:
            print(game, "  ".join(f"{n} deg: {v['right']}/{v['dice']} (found {v['found']}) "
                                  f"(face given type {v['face_given_type']})"
                                  for n, v in total.items()),
                  f"boxes on no die: {boxes_on_no_die[game]} ({on_cut_dice[game]} of them on "
                  "dice the frame cuts)", flush=True)
    if args.json:
        json.dump({"seed": 1 + args.seed, "scenes_per_table": args.scenes, "bins_deg": BINS,
                   "models": str(args.models or "shipped"), "experts": not args.no_experts,
                   "boxes": "detector" if args.detector else "true",
                   "choice": "nearest" if args.nearest else "shipped chooser",
                   "results": results, "boxes_on_no_die": boxes_on_no_die,
                   "of_them_on_dice_the_frame_cuts": on_cut_dice}, sys.stdout,
                  indent=1)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
