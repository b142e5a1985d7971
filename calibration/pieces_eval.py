"""Measured accuracy of the piece readers on rendered tables never used for tuning.

- pyramids: IceDice mats with all 30 Looney pyramids (two Rainbow Stashes) standing in the
  Bank, on the Counter and in the Vaults, side by side, under random camera poses, light and
  sensor noise; each piece is matched to the nearest reading.
- card slots: Pyramid Dice mats with a random subset of the pyramid's slots holding a card,
  under shadows of hands just gone (a soft dark blob) and light changes.
"""

from __future__ import annotations

import logging

import cv2
import numpy as np

from calibration.layouts import Layout, load_layout
from calibration.synthetic import MatRenderer
from vision.pyramids import BASE_MM, RAINBOW, SUITS_EDITION, Pyramid, draw_pyramids, read_pyramids
from vision.renderer import CameraPose, Lighting, Scene, render_table

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
    table = [Pyramid(*mr.to_table(np.array([p.x, p.y]))[0], p.colour, p.size, p.yaw)
             for p in pieces]

    def project(pts: np.ndarray) -> np.ndarray:
        return cam.project(pts)[0]

    draw_pyramids(img, table, project, centre, light.direction, rng)
    out = np.clip(img * 255 + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR), cam


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
            colour_ok += max(got[i].colour, key=got[i].colour.get) == p.colour
            size_ok += max(got[i].size, key=got[i].size.get) == p.size
        extra += len(got) - len(used)
    return {"tables": tables, "pieces": n, "found": found / n, "colour_accuracy": colour_ok / n,
            "size_accuracy": size_ok / n, "extra_readings": extra, "edition": edition}
