"""Detector passes over a photo whose scale nobody knows (``dicetable read``, ``eval``).

The detector reads dice of about 14-90 px at its input (its home scale: the photo shrunk to a
longer side of 512 px). A photo's dice need not be that size there: a close-up of two dice
fills a third of the frame (150-250 px at 512), a phone's 4000-px photo of a whole table
shows dice of 1-2 % of its width (5-10 px at 512). Rather than guess the scale from what one
pass found (the rules this module held until 2026-11-27, tuned on one real set: on the
Catan webcam photos of ``real-dice-domains/skovy`` they found 0.34 of the dice), the photo is
read as an image pyramid:

- passes at 128, 256 and 512 px and at twice the resolution each above it, up to the photo's
  own size and :data:`FINEST` (:func:`pyramid_sides`); each keeps the boxes of the sides it
  sees best (:data:`BAND`, 16-64 px; the coarsest any bigger, the finest any smaller), so
  every die is taken from a pass that sees it near the sizes the detector knows;
- the reader (``vision.dice.reader``) reads each pass's boxes as they come and runs the finer
  passes only while its surely read dice do not yet show that the table's dice are big
  enough for the passes run: photos of dice the home scale sees pay for no finer pass;
- a table whose dice's size is known (an adaptation's ``die_side``) runs only the passes
  that see such dice (:func:`covering`);
- a pass longer than :data:`TILE` px runs in tiles on the detector's grid, which bounds its
  memory and reads as the whole pass does;
- the boxes are read, then merged by NMS on how surely each reads (:func:`merge_by_reading`);
  a die whose centre lies inside a die much larger than itself (:data:`INSIDE`) is dropped:
  a pip of that die, found by a pass too fine for it (unless those boxes cannot be its pips:
  then the big box, round several dice, goes); so is one a little smaller (:data:`PART`)
  centred near that die's centre, read less surely: a half or a corner of it; and a box far
  smaller than the photo's sure dice, read unsurely (:data:`SPECK`).

``models.training.dice.domains`` measures this on the four real domains, each held out of the
models' training in turn (the model card holds the table); ``models.training.dice.scale_table``
on the real photos zoomed, shrunk and tiled.

The live table does not use this: its scale is known from the mat's calibration, and it reads
at the home scale only.
"""

from __future__ import annotations

import math

import numpy as np

from vision.dice.detections import Detections
from vision.dice.detector import PAD_MULTIPLE, DiceDetector, nms, resize_long_side

#: The finest pass's longer side (a 4000-px photo is read at 2048 at most: 16 times the main
#: pass's pixels, a quarter of a second on one core).
FINEST = 2048
#: A pass longer than this is run in tiles of about this side at most, which bounds the
#: memory of the detector's feature maps (a 12-MP photo, its finest pass at 2048 px: peak
#: RSS 298 MB whole, 193 MB in tiles, the same dice read; ``models.training.dice.big_photo``).
TILE = 1024
#: Overlap of neighbouring tiles, px at the pass's scale. Each tile keeps the dice whose centre
#: lies in its share of the overlap, so a die up to this side lies wholly in the tile that
#: keeps it; a tiled pass keeps dice of at most BAND[1] px at its scale.
TILE_OVERLAP = 96
#: The detector's input grid (its padding multiple, a multiple of its stride).
GRID = PAD_MULTIPLE
#: A die whose centre lies inside a kept die at least this many times its side is a pip or a
#: part of that die.
INSIDE = 1.8
#: A box whose centre lies inside a kept die at least this many times its side (and less than
#: INSIDE) is a part of that die when that die is read surely and more surely than it.
PART = 1.3
#: ... and its centre lies this near that die's centre, as a share of that die's side: a
#: half or a corner of a die is centred within a quarter side of it; a neighbouring die,
#: whose centre may fall inside a loose box, lies about half a side or more away.
PART_DEPTH = 0.3
#: Two boxes under INSIDE times apart in size whose centres lie within this share of
#: each other's side, read as the same value, are one die seen twice; the surer stays
#: (before 2026-11-27 only boxes under PART times apart: the image pyramid's passes box a
#: die's top face at one scale and the whole die at the next). Such
#: pairs are two passes' boxes offset by a quarter to a half side, which NMS keeps: dropping
#: them took the zoomed train photos' extra boxes from 374 to 308 over the five zoom rows
#: (``scale_table --split train``), no die lost on those rows. Labelled real dice do not lie
#: so (no label box of the 250 photos holds another's centre: checked once, not by a command
#: kept here), but the detector's boxes of small touching dice can: on ``big_photo``'s 12-MP
#: photo it merged two read as a 1, one a misread 5 (178 -> 177 found, 175 right both ways).
TWIN_DEPTH = 0.45
#: A big box with dice inside it stands for one die only when its face is read this surely.
SURE_BIG = 0.9
#: IoU above which two passes' boxes are one die (the detector's own NMS threshold).
MERGE_IOU = 0.45
#: A box under this share of the median side of the photo's surely read dice (SURE_BIG), and
#: itself read less surely, is a speck of the table or a pip of a die the passes missed, not a
#: die: the dice of one photo lie on one table, and perspective does not make one four times
#: another. Zoomed photos (scale_table, 15-50 % rows), extra boxes: train 309 -> 275, test
#: 83 -> 73; 0.3 took 47 / 17 but also a rendered custom die cut by the frame (31 px beside
#: dice of about 100; validate.custom_dice_check). Both lose 1 train and 2 test dice "read"
#: only by a pip's box inside a die the passes missed (a 20-px box read 3 at 0.37 in a
#: 128-px die), which scale_table counts as found.
SPECK = 0.25


def _sides(xyxy: np.ndarray) -> np.ndarray:
    """(N,) the longer side of each box."""
    return np.max(xyxy[:, 2:] - xyxy[:, :2], axis=1) if len(xyxy) else np.zeros(0)


def _side(d: Detections) -> np.ndarray:
    return _sides(d.xyxy)


def _concat(parts: list[Detections]) -> Detections:
    """The passes' boxes together, unmerged."""
    parts = [p for p in parts if len(p)]
    if not parts:
        return Detections.empty()
    if len(parts) == 1:
        return parts[0]
    return Detections(xyxy=np.concatenate([p.xyxy for p in parts]),
                      confidence=np.concatenate([p.confidence for p in parts]))


def _merge(parts: list[Detections]) -> Detections:
    both = _concat(parts)
    if sum(len(p) > 0 for p in parts) < 2:  # nothing to merge
        return both
    xyxy, conf = both.xyxy, both.confidence
    order = np.argsort(-conf, kind="stable")
    xyxy, conf = xyxy[order], conf[order]
    keep = nms(xyxy, conf, MERGE_IOU)
    return Detections(xyxy=xyxy[keep], confidence=conf[keep])


def tile_spans(length: int, tile: int, overlap: int) -> list[tuple[int, int, int, int]]:
    """(start, end, keep_from, keep_to) of tiles of about ``tile`` px at most covering
    ``length``, neighbours overlapping by at least ``overlap``; the keep ranges partition
    ``length`` at the middles of the overlaps.

    Tiles start at multiples of :data:`GRID` px, so that the network's strided grid falls
    where it falls in the whole pass and a tile reads its dice as the whole pass does.
    """
    if length <= tile:
        return [(0, length, 0, length)]
    # a start rounded down to the grid may cut an overlap by up to GRID px
    n = math.ceil((length - overlap - GRID) / (tile - overlap - GRID))
    # As few tiles as fit, each no longer than they need be: the overlaps are what tiling
    # costs (a 2048-px side in three 768-px tiles reads 1.13 times its pixels, in 1024-px
    # ones 1.5 times).
    size = min(tile, math.ceil((length + (n - 1) * (overlap + GRID)) / n / GRID) * GRID)
    step = (length - size) / (n - 1)
    starts = [int(i * step) // GRID * GRID for i in range(n)]
    ends = [start + size for start in starts[:-1]] + [length]
    spans = []
    for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
        keep_from = 0 if i == 0 else (ends[i - 1] + start) // 2
        keep_to = length if i == n - 1 else (end + starts[i + 1]) // 2
        spans.append((start, end, keep_from, keep_to))
    return spans


def detect_pass(detector: DiceDetector, image: np.ndarray, side: int,
                tile: int | None = TILE) -> Detections:
    """The detector's pass over ``image`` seen at ``side`` px on its longer side, in tiles
    of ``tile`` px when it is longer (None: whole)."""
    if tile is None or side <= tile:
        return detector(image, long_side=side)
    small, scale = resize_long_side(image, side)  # the whole pass's resize, once for all tiles
    parts = []
    for y0, y1, ky0, ky1 in tile_spans(small.shape[0], tile, TILE_OVERLAP):
        for x0, x1, kx0, kx1 in tile_spans(small.shape[1], tile, TILE_OVERLAP):
            part = small[y0:y1, x0:x1]
            found = detector(part, long_side=max(part.shape[:2]))
            if not len(found):
                continue
            c = (found.xyxy[:, :2] + found.xyxy[:, 2:]) / 2
            keep = ((c[:, 0] >= kx0 - x0) & (c[:, 0] < kx1 - x0)
                    & (c[:, 1] >= ky0 - y0) & (c[:, 1] < ky1 - y0))
            xyxy = (found.xyxy[keep] + np.array([x0, y0, x0, y0], np.float32)) / scale
            parts.append(Detections(xyxy=xyxy.astype(np.float32),
                                    confidence=found.confidence[keep]))
    return _merge(parts)


#: The sides (px at a pass's scale) of the dice a pass of the image pyramid keeps, so that
#: each die is taken from the pass that sees it nearest the sizes the detector knows best
#: (the real photos' dice are 32 px at its home scale). Neighbouring passes differ by 2x:
#: the bands overlap a little (18-22 px), and a die is seen by one pass or two, whose boxes
#: the reader merges once read.
BAND = (16.0, 64.0)
#: The least side (px at a pass's scale) the detector finds dice of: the last pass that runs
#: keeps its boxes down to here and below.
SMALLEST = 14.0
#: The pyramid's coarsest pass, px: a die filling the frame is about 80 px there.
COARSEST = 128


def pyramid_sides(long: int, main: int) -> list[int]:
    """Longer sides of the pyramid's passes for a photo ``long`` px long: ``main`` times
    powers of two from :data:`COARSEST` up to the photo's own size (at most
    :data:`FINEST`), the finest at exactly that size when it lies between two powers. The
    ``main`` pass always runs, a smaller photo enlarged to it (the detector's home scale)."""
    top = min(long, FINEST)
    side = main
    while side * 2 <= top:
        side *= 2
    sides = {top} if top > side else set()
    while side >= COARSEST:
        sides.add(side)
        side //= 2
    return sorted(sides)


def band(i: int, n: int) -> tuple[float, float]:
    """The sides (px at its scale) pass ``i`` of ``n`` keeps: :data:`BAND`, the coarsest
    pass any bigger, the finest (the last that runs) any smaller."""
    return (0.0 if i == n - 1 else BAND[0]), (np.inf if i == 0 else BAND[1])


def pass_sides(found: Detections, side: int, long: int) -> np.ndarray:
    """(N,) the boxes' longer sides in px at a pass of longer side ``side``."""
    return _side(found) * side / long


#: A pass is counted on to find dice at least this far inside its band (a factor each way):
#: at the band's edges it finds fewer (damiantab adapted to two photos, passes chosen to
#: cover the dice's sizes at the band's very edges: found 0.969, with this margin 1.0).
COVER_MARGIN = 1.25


def covering(sides: list[int], die_side: tuple[float, float]) -> set[int]:
    """The fewest passes of ``sides`` whose bands (shrunk by COVER_MARGIN) together hold
    every die of ``die_side`` (shares of the photo's longer side), coarsest first: each pass
    run is another table's worth of texture to take for dice, so no more of them run than
    the dice need."""
    n = len(sides)

    def inner(i: int) -> tuple[float, float]:
        lo, hi = band(i, n)
        return lo * COVER_MARGIN, hi / COVER_MARGIN

    run: set[int] = set()
    need, hi = die_side
    while need <= hi:
        fits = [i for i in range(n) if inner(i)[0] <= need * sides[i] <= inner(i)[1]]
        if not fits:  # past the pyramid's ends: the finest or the coarsest pass
            fits = [n - 1] if need * sides[-1] < inner(n - 1)[0] else [0]
        i = min(fits, key=lambda k: sides[k])
        run.add(i)
        top = inner(i)[1] / sides[i]
        if not np.isfinite(top) or top <= need:
            break
        need = top * 1.0001
    return run


def detect_pyramid(detector: DiceDetector, image: np.ndarray,
                   die_side: tuple[float, float] | None = None,
                   tile: int | None = TILE) -> Detections:
    """Dice of any size in ``image``: one detector pass per level of an image pyramid
    (:func:`pyramid_sides`), each keeping the boxes of its :func:`band`, unmerged (the
    reader merges them once read: :func:`merge_by_reading`). The reader itself runs the
    finer passes only while its surely read dice ask for them (``vision.dice.reader``).

    ``die_side`` (lo, hi): the dice's longer side as a share of the photo's longer side,
    when known (a table's adaptation): only the passes that see such dice in their band
    run, and only such boxes are kept.
    """
    long = max(image.shape[:2])
    sides = pyramid_sides(long, detector.long_side)
    run = set(range(len(sides))) if die_side is None else covering(sides, die_side)
    parts = []
    for i, side in enumerate(sides):
        lo, hi = band(i, len(sides))
        if i not in run:
            continue
        found = detect_pass(detector, image, side, tile)
        if not len(found):
            continue
        px = pass_sides(found, side, long)
        keep = (px >= lo) & (px <= hi)
        if die_side is not None:
            keep &= (px >= die_side[0] * side) & (px <= die_side[1] * side)
        parts.append(found[keep])
    return _concat(parts)


def _within(points: np.ndarray, xyxy: np.ndarray) -> np.ndarray:
    """(P, B) bool: point p lies inside box b."""
    return ((points[:, None, 0] >= xyxy[None, :, 0]) & (points[:, None, 0] <= xyxy[None, :, 2])
            & (points[:, None, 1] >= xyxy[None, :, 1]) & (points[:, None, 1] <= xyxy[None, :, 3]))


def merge_by_reading(xyxy: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Indices of the boxes kept when those of different passes that are one die (IoU over
    :data:`MERGE_IOU`) are merged by how surely each is read (``faces`` as in
    :func:`inside_bigger`), not by the detector's confidence.

    A coarser pass's box on a die can be the detector's surer and the classifier's worse
    (the 96-px pass's box beside the 128-px pass's on the same die): merged by the
    detector's confidence, the 96-px pass cost a test die at 50 % that the
    128-px pass read right (scale_table: train 50 % +10 dice, test 50 % -1); merged by the
    reading, the test row kept it and the train row gained as much.
    """
    return nms(xyxy, np.asarray(faces).max(axis=1), MERGE_IOU)


def inside_bigger(xyxy: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """(N,) bool: dice to drop among boxes all read as dice, ``faces`` (N, classes) the
    probabilities of each one's face (classes 0-5 the pip values 1-6).

    A box whose centre lies inside a box at least :data:`INSIDE` times its side is a pip of
    that die when that die is read at :data:`SURE_BIG` or more and the boxes inside it could
    be its pips: no more of them than its value, or at most one of them read surely as
    anything but a 1 (a half or a corner of the die); a die read as a symbol when none of
    them is. Otherwise the big box is a coarse
    pass's box round several dice and is dropped itself (without these tests the seeded
    synthetic tables of ``tests/vision/test_reader.py`` lost 8 dice, 470 -> 462 found, to
    such boxes).

    A box :data:`PART` to :data:`INSIDE` times smaller than a surely read die, centred
    within :data:`PART_DEPTH` of its side from that die's centre and read less surely than
    it, is a part of it (a finer pass's box on a half or a corner). Of two boxes of about
    one size, each centred within :data:`TWIN_DEPTH` of the other's side and read as the
    same value, the less surely read is that die seen twice.
    """
    n = len(xyxy)
    if n < 2:
        return np.zeros(n, bool)
    faces = np.asarray(faces)
    sure = faces.max(axis=1)
    best = faces.argmax(axis=1)
    side = _sides(xyxy)
    c = (xyxy[:, :2] + xyxy[:, 2:]) / 2
    within = _within(c, xyxy) & (side[None, :] >= INSIDE * side[:, None])
    holds = within.any(axis=0)
    # A die of value v shows v pips. A pip alone reads as a 1 or unsurely; halves and
    # corners of the die can read surely as other values. Either test alone cost the zoomed
    # test dice (scale_table run on each variant): the count 1 die in 121 at 50 %, "at most
    # one sure die inside" 0.02-0.11 of those of 30-50 %. A face read as a symbol (classes
    # past the pips) holds only boxes that could be its marks (read as a 1 or unsurely): a
    # box round a cluster of dice reads as a symbol as easily as a symbol die does. Letting a
    # symbol hold any number of boxes (before 2026-11-26) dropped the dice of such clusters
    # (zoomed train photos, the 30 % row: 5 dice of 885, the 3x3 tiles 5 of 1445; scale_table
    # --split train); letting it hold one sure die, as a pip face may (a half of it), let the
    # 96-px pass's box round two rendered custom dice take one of them
    # (validate.custom_dice_check, 120 scenes: 512 -> 516 custom dice found without it).
    pip_like = (best == 0) | (sure < SURE_BIG)
    sure_inside = (within & ~pip_like[:, None]).sum(axis=0)
    fits = np.where(best < 6, (within.sum(axis=0) <= best + 1) | (sure_inside <= 1),
                    sure_inside == 0)
    die = holds & (sure >= SURE_BIG) & fits
    drop = (within & die[None, :]).any(axis=1) | (holds & ~die)
    # Near the centre, not merely inside: a touching neighbour's centre can fall inside a
    # loose box (the zoomed test photos lost 3 dice that way).
    # (i, j): how far box i's centre lies from box j's, on the farther axis
    offset = np.abs(c[:, None, :] - c[None, :, :]).max(axis=2)
    deep = offset <= PART_DEPTH * side[None, :]
    part = (deep & (side[None, :] >= PART * side[:, None])
            & (side[None, :] < INSIDE * side[:, None])
            & (sure[None, :] >= SURE_BIG) & (sure[None, :] > sure[:, None]))
    # Two boxes on one die (two passes' boxes: offset so that NMS kept both, or one round
    # the top face and one round the whole die, under INSIDE times apart): the same value
    # read, each centre well inside the other's box.
    near = offset <= TWIN_DEPTH * side[None, :]
    first = np.arange(n)[None, :] < np.arange(n)[:, None]  # ties: the earlier box stays
    twin = (near & near.T & (best[:, None] == best[None, :])
            & (side[None, :] < INSIDE * side[:, None]) & (side[:, None] < INSIDE * side[None, :])
            & ((sure[None, :] > sure[:, None]) | ((sure[None, :] == sure[:, None]) & first)))
    drop = drop | (part & ~drop[None, :]).any(axis=1)
    return drop | (twin & ~drop[None, :]).any(axis=1)


def specks(xyxy: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """(N,) bool: boxes under :data:`SPECK` of the median side of the boxes read at
    :data:`SURE_BIG` or more, themselves read less surely (``faces`` as in
    :func:`inside_bigger`)."""
    sure = np.asarray(faces).max(axis=1) >= SURE_BIG if len(xyxy) else np.zeros(0, bool)
    if not sure.any():
        return np.zeros(len(xyxy), bool)
    side = _sides(xyxy)
    return ~sure & (side < SPECK * float(np.median(side[sure])))


#: A box over this many times the median side of the photo's surely read dice, itself not
#: read surely as a die (P(a die) x P(its face) under SURE_BIG), is a thing of the table the
#: size of no die on it: the hole of a ruler read as a 1 at twice the dice's size in 15 of
#: real-dice's 50 test photos (the pair trained on every domain, 2026-11-27). Perspective
#: makes the near dice of an oblique photo up to about 1.5 times the far ones (1.6 lost a
#: die of skovy and two of damiantab to it, leave-one-domain-out; 1.8 the skovy one).
OUTSIZED = 1.8


def outsized(xyxy: np.ndarray, sure: np.ndarray) -> np.ndarray:
    """(N,) bool: boxes over :data:`OUTSIZED` times the median side of the boxes whose
    ``sure`` (P(a die) x P(its face), (N,)) is at least :data:`SURE_BIG`, themselves less
    sure than that."""
    confident = np.asarray(sure) >= SURE_BIG
    if not confident.any():
        return np.zeros(len(xyxy), bool)
    side = _sides(xyxy)
    return ~confident & (side > OUTSIZED * float(np.median(side[confident])))

