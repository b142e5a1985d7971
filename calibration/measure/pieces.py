"""Measured accuracy of the piece readers on rendered tables never used for tuning.

- pyramids: IceDice mats with all 30 Looney pyramids (two Rainbow Stashes) standing in the
  Bank, on the Counter and in the Vaults, side by side, under random camera poses, light and
  sensor noise; each piece is matched to the nearest reading.
- card slots: Pyramid Dice mats with a random subset of the pyramid's slots holding a card
  (as play leaves it) and of the side area's places holding a removed card (placed more
  loosely), under shadows of hands just gone (a soft dark blob) and light changes.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from calibration.layouts import Layout, load_layout
from calibration.render.synthetic import MatRenderer
from vision.pieces.pyramids import (
    BASE_MM,
    RAINBOW,
    SUITS_EDITION,
    Pyramid,
    draw_pyramids,
    read_pyramids,
)
from vision.synth.renderer import CameraPose, Lighting, Scene, render_table

logger = logging.getLogger(__name__)

PPM = 2.0


def place_stash(layout: Layout, rng: np.random.Generator, colours: tuple[str, ...],
                stashes: int = 2) -> list[Pyramid]:
    """Every piece of `stashes` stashes on a jittered grid over the Bank, Counter and Vaults
    (neighbours 1-8 mm apart: side by side)."""
    pieces = [(c, s) for c in colours for s in BASE_MM for _ in range(stashes)]
    rng.shuffle(pieces)
    spots = []
    for name in ("bank", "counter", "vault:0", "vault:1"):
        poly = np.array(layout.zone(name).polygon)
        (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
        step = BASE_MM["L"] + 4.5
        for y in np.arange(y0 + step / 2, y1 - step / 2 + 1, step):
            for x in np.arange(x0 + step / 2, x1 - step / 2 + 1, step):
                spots.append((x, y))
    order = rng.permutation(len(spots))[: len(pieces)]
    return [Pyramid(float(spots[i][0] + rng.uniform(-2, 2)), float(spots[i][1]
                    + rng.uniform(-2, 2)), c, s, float(rng.uniform(0, 90)))
            for i, (c, s) in zip(order, pieces, strict=True)]


def pyramid_photo(mr: MatRenderer, pieces: list[Pyramid], rng: np.random.Generator
                  ) -> tuple[np.ndarray, CameraPose]:
    """A rendered photo of the mat with the pieces (mat mm), from a camera above the table."""
    cam = mr.random_pose(rng, size=(1280, 960), max_tilt=12.0, fov_deg=float(rng.uniform(45, 60)))
    light = Lighting(azimuth_deg=float(rng.uniform(0, 360)),
                     elevation_deg=float(rng.uniform(45, 80)),
                     ambient=float(rng.uniform(0.5, 0.7)))
    img = render_table(Scene((), cam, light, 0, mr.mat, 1 / mr.ppm), rng)
    img *= np.float32(rng.uniform(0.75, 1.1)) * (1 + rng.uniform(-0.06, 0.06, 3)).astype(
        np.float32)
    _, centre = cam.extrinsics()
    table = []
    for p in pieces:
        tx, ty = mr.to_table(np.array([p.x, p.y]))[0]
        table.append(Pyramid(float(tx), float(ty), p.colour, p.size, p.yaw))

    def project(pts: np.ndarray) -> np.ndarray:
        return cam.project(pts)[0]

    draw_pyramids(img, table, project, centre, light.direction, rng)
    out = np.clip(img * 255 + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 85])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return (decoded if decoded is not None else out), cam


def eval_pyramids(tables: int = 6, seed: int = 0, edition: str = "rainbow") -> dict:
    """Colour and size accuracy over `tables` rendered IceDice tables of 30 pieces each."""
    layout = load_layout("icedice", 2)
    mr = MatRenderer(layout, ppm=PPM)
    mat = np.ascontiguousarray(mr.mat[::-1])  # back to the mat's own orientation
    colours = RAINBOW if edition == "rainbow" else SUITS_EDITION
    rng = np.random.default_rng(seed)
    n = colour_ok = size_ok = found = extra = 0
    for _ in range(tables):
        pieces = place_stash(layout, rng, colours)
        img, cam = pyramid_photo(mr, pieces, rng)
        _, centre = cam.extrinsics()
        nadir = np.linalg.solve(mr.to_table_h, [centre[0], centre[1], 1.0])[:2]
        region = (0.0, 0.0, *layout.size_mm)
        got = read_pyramids(img, mr.true_homography(cam), region, reference=mat,
                            nadir=(float(nadir[0]), float(nadir[1])), palette=colours, ppm=PPM)
        used = set()
        for p in pieces:
            n += 1
            d = [np.hypot(g.x - p.x, g.y - p.y) if i not in used else 1e9
                 for i, g in enumerate(got)]
            if not d or min(d) > BASE_MM["L"]:
                continue
            i = int(np.argmin(d))
            used.add(i)
            found += 1
            colour_ok += max(got[i].colour, key=got[i].colour.__getitem__) == p.colour
            size_ok += max(got[i].size, key=got[i].size.__getitem__) == p.size
        extra += len(got) - len(used)
    return {"tables": tables, "pieces": n, "found": found / n, "colour_accuracy": colour_ok / n,
            "size_accuracy": size_ok / n, "extra_readings": extra, "edition": edition}


def draw_cards(mat: np.ndarray, layout: Layout, filled: set[str], ppm: float,
               rng: np.random.Generator) -> np.ndarray:
    """The mat raster (mat orientation) with cards in the `filled` slots (pyramid and side
    area), far rows first so the nearer rows lie on them; each card a little off its slot,
    as a hand places it (a side-area card more so: up to 4 mm and 4 degrees)."""
    out = mat.copy()
    slots = sorted(layout.zone("pyramid").slots, key=lambda s: s.id)
    side = [s.id for s in layout.zone("side").slots] if "side" in {
        z.name for z in layout.zones} else []
    if side:
        slots += list(layout.zone("side").slots)
    for s in slots:
        if s.id not in filled:
            continue
        off, turn = (4.0, 4.0) if s.id in side else (2.0, 2.0)
        poly = np.asarray(s.polygon)
        c = poly.mean(axis=0) + rng.uniform(-off, off, 2)
        wh = poly.max(axis=0) - poly.min(axis=0)
        box = cv2.boxPoints(((c[0] * ppm, c[1] * ppm), (wh[0] * ppm, wh[1] * ppm),
                             float(rng.uniform(-turn, turn))))
        cv2.fillPoly(out, [np.round(box * 16).astype(np.int32)], (225, 235, 240),
                     cv2.LINE_AA, 4)
        inner = cv2.boxPoints(((c[0] * ppm, c[1] * ppm), ((wh[0] - 3) * ppm, (wh[1] - 3) * ppm),
                               float(rng.uniform(-2, 2))))
        # Pyramid Dice cards are coloured art (god pictures), never a blank white
        hsv = np.array([[[rng.integers(0, 180), rng.integers(90, 256), rng.integers(70, 240)]]],
                       np.uint8)
        base = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
        cv2.fillPoly(out, [np.round(inner * 16).astype(np.int32)], base, cv2.LINE_AA, 4)
        for _ in range(6):  # the card's picture
            p = (c + rng.uniform(-0.4, 0.4, 2) * wh) * ppm
            cv2.circle(out, (int(p[0]), int(p[1])), int(rng.uniform(2, 8) * ppm),
                       tuple(int(v) for v in rng.integers(0, 256, 3)), -1, cv2.LINE_AA)
    return out


def _played(slots: list, rng: np.random.Generator) -> set[str]:
    """The slots still holding a card after some cards were taken, only ever a card with no
    card in front of it (as the game allows)."""
    filled = {s.id for s in slots}
    for _ in range(int(rng.integers(0, len(slots) + 1))):
        free = [s.id for s in slots if s.id in filled and not set(s.in_front) & filled]
        if not free:
            break
        filled.discard(str(rng.choice(free)))
    return filled


def eval_card_slots(tables: int = 20, seed: int = 0, players: int = 2) -> dict:
    """Slot occupancy over rendered Pyramid Dice tables with random slots filled, shadows of
    hands that just left and light changes."""
    from calibration.printing.card_layout import card_slots
    from vision.pieces.card_slots import read_slots

    layout = load_layout("pyramid_dice", players)
    mr = MatRenderer(layout, ppm=PPM)
    empty = np.ascontiguousarray(mr.mat[::-1])
    pyramid = card_slots(layout)
    side = card_slots(layout, "side")
    slots = pyramid + side
    ids = [s.id for s in slots]
    side_ids = {s.id for s in side}
    rng = np.random.default_rng(seed)
    poly = np.array(layout.zone("pyramid").polygon + layout.zone("side").polygon)
    region = (*poly.min(axis=0), *poly.max(axis=0))
    x0, y0 = int(region[0] * PPM), int(region[1] * PPM)
    x1, y1 = int(round(region[2] * PPM)), int(round(region[3] * PPM))
    ok = n = exact = side_ok = side_n = 0
    for _ in range(tables):
        filled = _played(pyramid, rng)
        filled |= {s.id for s in side if rng.random() < 0.4}
        mr.mat = np.ascontiguousarray(draw_cards(empty, layout, filled, PPM, rng)[::-1])
        cam = mr.random_pose(rng, size=(1280, 960), max_tilt=30.0)
        light = Lighting(azimuth_deg=float(rng.uniform(0, 360)),
                         elevation_deg=float(rng.uniform(40, 80)))
        img = render_table(Scene((), cam, light, 0, mr.mat, 1 / mr.ppm), rng)
        img *= np.float32(rng.uniform(0.6, 1.2))
        for _ in range(int(rng.integers(0, 3))):  # the shadow of a hand that just left
            m = np.zeros(img.shape[:2], np.float32)
            cv2.ellipse(m, (int(rng.uniform(0, 1280)), int(rng.uniform(0, 960))),
                        (int(rng.uniform(80, 250)), int(rng.uniform(60, 150))),
                        float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
            img *= (1 - rng.uniform(0.25, 0.5) * cv2.GaussianBlur(m, (0, 0), 25))[..., None]
        out = np.clip(img * 255 + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
        got = read_slots(out, mr.true_homography(cam), slots, empty[y0:y1, x0:x1], region, PPM)
        right = [(got[i] >= 0.5) == (i in filled) for i in ids]
        ok += sum(right)
        n += len(ids)
        exact += all(right)
        side_ok += sum(r for i, r in zip(ids, right, strict=True) if i in side_ids)
        side_n += len(side_ids)
    mr.mat = np.ascontiguousarray(empty[::-1])
    return {"tables": tables, "slots": n, "slot_accuracy": ok / n, "tables_exact": exact / tables,
            "pyramid_slot_accuracy": (ok - side_ok) / (n - side_n),
            "side_slots": side_n, "side_slot_accuracy": side_ok / max(side_n, 1)}
