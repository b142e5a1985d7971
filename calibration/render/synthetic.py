"""Rendered photos of a mat with dice on it, with their truth, for tests and the self-test.

The mat is rasterised and laid on the table of :mod:`vision.synth.renderer`, whose table origin is
the mat's centre. The renderer's table is right-handed seen from above (y points to the far
side) while image rows run down, so a raster laid as it is would be seen mirrored and its
markers never found: the raster is flipped upside down first, and mat (x, y) is table
(x - W/2, H/2 - y), less the half pixel of the raster's convention.

Camera poses are random within what a real setup gives: tilt up to 35 deg, any rotation, the
mat filling 65-95 % of the view. Hands are painted over
chosen markers after rendering (the renderer draws no hands).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layouts import Layout
from calibration.printing.mat import render_mat
from vision.colours import PALETTE
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Rendered, Scene, render
from vision.synth.textures import DieLook

logger = logging.getLogger(__name__)

DIE_MM = 16.0


@dataclass(frozen=True, slots=True)
class Placed:
    """A die placed on the mat (mat mm) with its colour name."""

    x: float
    y: float
    value: int
    colour: str
    yaw: float = 0.0


@dataclass(frozen=True, slots=True)
class Photo:
    """A rendered photo and what is true in it."""

    image: np.ndarray
    rendered: Rendered
    camera: CameraPose
    dice: tuple[Placed, ...]
    true_h: np.ndarray
    """3x3 mat mm -> pixels of the camera that took it."""
    covered: tuple[int, ...] = ()
    """Marker ids painted over."""


class MatRenderer:
    """Renders one layout's mat under many poses (the raster is made once)."""

    def __init__(self, layout: Layout, ppm: float = 3.0) -> None:
        self.layout = layout
        self.ppm = ppm
        self.mat = np.ascontiguousarray(render_mat(layout, ppm)[::-1])
        w, h = self.mat.shape[1] / ppm, self.mat.shape[0] / ppm
        # mat mm -> table mm (see the module docstring)
        self.to_table_h = np.array([[1, 0, -w / 2 - 0.5 / ppm], [0, -1, h / 2 - 0.5 / ppm],
                                    [0, 0, 1.0]])

    def to_table(self, mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(mm, np.float64).reshape(-1, 2)
        return pts @ self.to_table_h[:2, :2].T + self.to_table_h[:2, 2]

    def true_homography(self, cam: CameraPose) -> np.ndarray:
        h = cam.table_homography() @ self.to_table_h
        return h / h[2, 2]

    def random_pose(self, rng: np.random.Generator, size: tuple[int, int] = (1280, 960),
                    max_tilt: float = 35.0, fov_deg: float | None = None) -> CameraPose:
        """A camera that sees the whole mat: random tilt, azimuth, roll, fill (and field of
        view unless given: one camera moved keeps its lens)."""
        fill = rng.uniform(0.65, 0.95)
        centre = self.to_table(np.array(self.layout.size_mm) / 2)[0] + rng.normal(0, 15, 2)
        fov = fov_deg or float(rng.uniform(55, 70))
        base = {"width": size[0], "height": size[1], "fov_deg": fov,
                "target_mm": (float(centre[0]), float(centre[1])),
                "tilt_deg": float(rng.uniform(0, max_tilt)),
                "azimuth_deg": float(rng.uniform(0, 360)), "roll_deg": float(rng.uniform(0, 360))}
        w, h = self.layout.size_mm
        corners = self.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]]))
        corners = np.column_stack([corners, np.zeros(4)])
        lo, hi = 100.0, 5000.0
        for _ in range(40):  # the distance where the mat's extent is `fill` of the frame
            d = (lo + hi) / 2
            uv, _ = CameraPose(distance_mm=d, **base).project(corners)  # type: ignore[arg-type]
            span = max((uv[:, 0].max() - size[0] / 2) / (size[0] / 2),
                       (size[0] / 2 - uv[:, 0].min()) / (size[0] / 2),
                       (uv[:, 1].max() - size[1] / 2) / (size[1] / 2),
                       (size[1] / 2 - uv[:, 1].min()) / (size[1] / 2))
            lo, hi = (d, hi) if span > fill else (lo, d)
        return CameraPose(distance_mm=hi, **base)  # type: ignore[arg-type]

    def photo(self, cam: CameraPose, dice: tuple[Placed, ...] = (), *, seed: int = 0,
              lighting: Lighting | None = None, blur: float = 0.0, noise: float = 0.0,
              cover: tuple[int, ...] = (), cast: tuple[float, float, float] = (1, 1, 1),
              jpeg: int | None = None) -> Photo:
        """Render the mat with dice; optionally paint hands over markers, tint the light."""
        specs = []
        for d in dice:
            t = self.to_table(np.array([d.x, d.y]))[0]
            pip = pip_colour(d.colour)
            look = DieLook(tuple(float(v) for v in PALETTE[d.colour]),  # type: ignore[arg-type]
                           tuple(float(v) for v in PALETTE[pip]))  # type: ignore[arg-type]
            specs.append(DieSpec(float(t[0]), float(t[1]), d.value, d.yaw, look, DIE_MM))
        scene = Scene(tuple(specs), cam, lighting or Lighting(), seed, self.mat, 1 / self.ppm)
        rendered = render(scene, blur_sigma=blur, noise_sigma=noise)
        img = rendered.image.astype(np.float32) * np.array(cast, np.float32)
        true_h = self.true_homography(cam)
        rng = np.random.default_rng(seed + 1)
        by_id = {m.id: m for m in self.layout.markers}
        for mid in cover:
            m = by_id[mid]
            uv = cv2.perspectiveTransform(np.array([[m.centre]], np.float64), true_h)[0, 0]
            edge = cv2.perspectiveTransform(np.array([m.corners()], np.float64), true_h)[0]
            r = float(np.max(np.linalg.norm(edge - uv, axis=1))) * rng.uniform(1.1, 1.4)
            skin = np.array([110, 150, 205], np.float32) * rng.uniform(0.7, 1.1)
            cv2.ellipse(img, (int(uv[0]), int(uv[1])), (int(r), int(r * 0.8)),
                        float(rng.uniform(0, 180)), 0, 360, skin.tolist(), -1, cv2.LINE_AA)
        out: np.ndarray = np.clip(img, 0, 255).astype(np.uint8)
        if jpeg is not None:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
            decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
            out = decoded if decoded is not None else out
        return Photo(out, rendered, cam, tuple(dice), true_h, tuple(cover))

    def half_covered(self, rng: np.random.Generator) -> tuple[int, ...]:
        """Ids of half the markers, a contiguous run round the border (an arm lying along
        one side covers neighbours, the hardest case for the fit)."""
        ms = self.layout.markers  # listed round the border in order
        n = len(ms)
        start = int(rng.integers(n))
        return tuple(ms[(start + i) % n].id for i in range(n // 2))


def distort_image(image: np.ndarray, k1: float, focal: float) -> np.ndarray:
    """The image as a lens with radial distortion k1 (calibration.geometry.lens's model) would see
    it."""
    h, w = image.shape[:2]
    k = np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1.0]])
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pts = np.stack([xs.ravel(), ys.ravel()], -1)[:, None, :]
    # each distorted pixel shows what the undistorted image has where it came from
    src = cv2.undistortPoints(pts, k, np.array([k1, 0.0, 0.0, 0.0]), P=k).reshape(h, w, 2)
    return cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def enrolment_dice(layout: Layout, rng: np.random.Generator) -> tuple[Placed, ...]:
    """One die of each colour of the layout's palette, as `dicetable calibrate` asks the
    players to lay them: at places 32 mm apart, well inside zones and clear of slots (on
    bare paper)."""
    spots = []
    for zone in layout.zones:
        pts = np.array(zone.polygon)
        lo, hi = pts.min(axis=0) + 20, pts.max(axis=0) - 20
        for x in np.arange(lo[0], hi[0], 32.0):
            for y in np.arange(lo[1], hi[1], 32.0):
                around = [(x + dx, y + dy) for dx in (-14, 14) for dy in (-14, 14)]
                if all(layout.locate(q) == (zone.name, None) for q in around):
                    spots.append(Placed(float(x), float(y), 1, ""))
    colours = layout.palette
    if len(spots) < len(colours):
        raise ValueError(f"{layout.key}: not enough free places to enrol {len(colours)} colours")
    picks = rng.choice(len(spots), size=len(colours), replace=False)
    return tuple(Placed(spots[int(i)].x, spots[int(i)].y, int(rng.integers(1, 7)), c)
                 for i, c in zip(picks, colours, strict=True))


def pip_colour(body: str) -> str:
    """The pips' colour name on a die of body colour ``body`` (a palette name): black on a
    light body, white on a dark one."""
    return "black" if sum(PALETTE[body]) > 330 else "white"


def dice_in_zones(layout: Layout, rng: np.random.Generator, per_zone: int = 1,
                  colours: tuple[str, ...] | None = None) -> tuple[Placed, ...]:
    """Dice placed well inside zones (and on slots' visible parts), not touching."""
    colours = colours or tuple(c for c in layout.palette if c in PALETTE) or ("white",)
    out: list[Placed] = []
    for zone in layout.zones:
        flat = [s for s in zone.slots if not s.height]  # the renderer stacks no dice
        if flat:
            picks = rng.choice(len(flat), size=min(per_zone, len(flat)), replace=False)
            for i in picks:
                pts = np.array(flat[int(i)].polygon)
                x = float(pts[:, 0].mean())
                y = float(pts[:, 1].mean())
                if np.ptp(pts[:, 1]) > 2.5 * DIE_MM:  # a card: its top strip is never covered
                    y = float(pts[:, 1].min() + DIE_MM * 0.8)
                out.append(Placed(x, y, int(rng.integers(1, 7)), str(rng.choice(colours)),
                                  float(rng.uniform(0, 90))))
            continue
        pts = np.array(zone.polygon)
        lo, hi = pts.min(axis=0) + DIE_MM * 1.2, pts.max(axis=0) - DIE_MM * 1.2
        for _ in range(per_zone * 50):
            if sum(1 for d in out if lo[0] <= d.x <= hi[0] and lo[1] <= d.y <= hi[1]) >= per_zone:
                break
            p = rng.uniform(lo, hi)
            if any(np.hypot(d.x - p[0], d.y - p[1]) < DIE_MM * 1.8 for d in out):
                continue
            out.append(Placed(float(p[0]), float(p[1]), int(rng.integers(1, 7)),
                              str(rng.choice(colours)), float(rng.uniform(0, 90))))
    return tuple(out)
