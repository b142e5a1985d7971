"""Random scenes for training and tests: heavy variety in dice, camera, light and table.

``random_scene(rng, ...)`` picks a camera (straight down or tilted up to ~30 deg) whose scale
gives dice of the requested pixel size, scatters dice on the visible table (spread out,
clustered or touching), and gives each die a look drawn from the palette (opaque,
translucent or marbled; sometimes a symbol in place of the 1 or the 6).
``random_render`` adds the camera's faults: blur, noise, JPEG compression.
With ``typed_rate`` > 0 that share of the dice are catalogued custom dice (IceDice colour and
size dice, Quarriors dice, skull/emblem d6: ``vision.faces.dietypes``), so a detector trained on
these scenes finds them too.
"""

from __future__ import annotations

import dataclasses
import logging

import numpy as np

from vision.colours import PALETTE
from vision.faces.dietypes import DieType, catalogue
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Rendered, Scene, render
from vision.synth.textures import SYMBOLS, DieLook

logger = logging.getLogger(__name__)

_NAMES = tuple(PALETTE)


def _jitter(bgr: tuple[int, int, int], rng: np.random.Generator, amount: float = 25
            ) -> tuple[float, float, float]:
    out = np.clip(np.asarray(bgr, float) * rng.uniform(0.8, 1.15) + rng.normal(0, amount, 3),
                  0, 255)
    return tuple(float(v) for v in out)  # type: ignore[return-value]


def random_look(rng: np.random.Generator, body: str | None = None) -> DieLook:
    """A random die appearance with enough contrast between body and pips to be readable."""
    body = body or str(rng.choice(_NAMES))
    body_bgr = _jitter(PALETTE[body], rng)
    light = sum(body_bgr) / 3
    # Pips contrast with the body the way real dice do: dark bodies get light pips.
    # Real sets have many dark or smoky dice with red pips: low contrast, so weight them up.
    choices = ["white", "white", "yellow", "gold", "red", "red", "red"] if light < 110 else [
        "black", "black", "white", "red", "red", "blue"]
    pip = str(rng.choice(choices))
    pip_bgr = _jitter(PALETTE[pip], rng, 15)
    if abs(sum(pip_bgr) / 3 - light) < 60 and pip in ("white", "black"):
        pip_bgr = _jitter(PALETTE["black" if light > 128 else "white"], rng, 10)
    style = str(rng.choice(["opaque"] * 6 + ["translucent"] * 2 + ["marbled"] * 2
                           + ["smoky"] * 1))
    symbol_face = int(rng.choice([1, 6])) if rng.random() < 0.12 else 0
    second = _jitter(PALETTE[str(rng.choice(_NAMES))], rng)
    if style == "smoky":
        second = (second[0] * 0.3, second[1] * 0.3, second[2] * 0.3)  # dark veins, clear body
    clear = style in ("translucent", "smoky")
    return DieLook(
        body_bgr=body_bgr, pip_bgr=pip_bgr, style=style, second_bgr=second,
        pip_scale=float(rng.uniform(0.75, 1.5)), corner=float(rng.uniform(0.06, 0.3)),
        symbol_face=symbol_face, symbol=str(rng.choice(SYMBOLS)),
        pattern_seed=int(rng.integers(1 << 30)),
        # Most dice are glossy plastic, see-through ones always.
        gloss=float(rng.uniform(0.3, 1.0)) if clear or rng.random() < 0.5 else 0.0,
        see_through=float(rng.uniform(0.2, 0.6)) if clear else 0.0,
    )


def random_camera(rng: np.random.Generator, width: int, height: int, die_px: float,
                  size_mm: float = 16.0) -> CameraPose:
    """A camera that sees a 16 mm die about ``die_px`` pixels wide near the image centre."""
    fov = float(rng.uniform(45, 75))
    focal = width / 2 / np.tan(np.deg2rad(fov) / 2)
    tilt = float(rng.uniform(0, 30)) if rng.random() < 0.6 else float(rng.uniform(0, 6))
    return CameraPose(
        width=width, height=height, fov_deg=fov, target_mm=(0.0, 0.0),
        distance_mm=float(focal * size_mm / die_px), tilt_deg=tilt,
        azimuth_deg=float(rng.uniform(0, 360)), roll_deg=float(rng.uniform(0, 360)),
    )


def random_scene(rng: np.random.Generator, width: int = 640, height: int = 640,
                 n_dice: tuple[int, int] = (1, 25), die_px: tuple[float, float] = (18, 80),
                 unreadable_rate: float = 0.03, typed_rate: float = 0.0) -> Scene:
    """A random scene; see the module docstring."""
    types = _custom_types() if typed_rate > 0 else ()
    size_mm = 16.0
    cam = random_camera(rng, width, height, float(rng.uniform(*die_px)), size_mm)
    n = int(rng.integers(n_dice[0], n_dice[1] + 1))
    family = str(rng.choice(_NAMES)) if rng.random() < 0.3 else None
    margin = 0.03
    corners = np.array([[margin * width, margin * height], [(1 - margin) * width, margin * height],
                        [(1 - margin) * width, (1 - margin) * height],
                        [margin * width, (1 - margin) * height]])
    table = cam.pixel_to_table(corners)
    lo, hi = table.min(axis=0), table.max(axis=0)
    clustered = rng.random() < 0.4
    placed: list[np.ndarray] = []
    dice: list[DieSpec] = []
    for _ in range(n * 30):
        if len(dice) >= n:
            break
        if clustered and placed and rng.random() < 0.7:
            # Next to an earlier die: touching or nearly so.
            ang = rng.uniform(0, 2 * np.pi)
            p = placed[int(rng.integers(len(placed)))] + size_mm * rng.uniform(1.02, 1.6) * \
                np.array([np.cos(ang), np.sin(ang)])
        else:
            p = rng.uniform(lo, hi)
        uv, _ = cam.project(np.array([[p[0], p[1], 0.0]]))
        if not (0 <= uv[0, 0] < width and 0 <= uv[0, 1] < height):
            continue
        # A die's footprint is at most its diagonal; closer than ~1 edge they would overlap.
        min_gap = size_mm * 1.02
        if placed and np.min(np.linalg.norm(np.array(placed) - p, axis=1)) < min_gap * (
                1.45 if not clustered else 1.0):
            continue
        aligned = clustered and rng.random() < 0.5
        yaw = float(rng.uniform(-8, 8)) if aligned else float(rng.uniform(0, 360))
        if placed and clustered and np.min(np.linalg.norm(np.array(placed) - p, axis=1)) < \
                size_mm * 1.45:
            yaw = float(rng.uniform(-5, 5))  # touching dice must be aligned not to intersect
        cock = float(rng.uniform(25, 45)) if rng.random() < unreadable_rate else 0.0
        placed.append(p)
        # No draw at all when typed_rate is 0: the pip-only scenes of a seed stay as they were.
        dtype = types[int(rng.integers(len(types)))] if types and rng.random() < typed_rate \
            else None
        dice.append(DieSpec(x_mm=float(p[0]), y_mm=float(p[1]), value=int(rng.integers(1, 7)),
                            yaw_deg=yaw, look=random_look(rng, family), size_mm=size_mm,
                            cock_deg=cock, die_type=dtype))
    light = Lighting(azimuth_deg=float(rng.uniform(0, 360)),
                     elevation_deg=float(rng.uniform(35, 88)),
                     ambient=float(rng.uniform(0.4, 0.8)), shadow=float(rng.uniform(0.1, 0.5)))
    return Scene(dice=tuple(dice), camera=cam, lighting=light, seed=int(rng.integers(1 << 30)))


def _custom_types() -> tuple[DieType, ...]:
    """The catalogued types that are not plain pip d6 (those are drawn from random looks)."""
    return tuple(t for n, t in sorted(catalogue().items()) if n != "d6")


def random_render(rng: np.random.Generator, **scene_kwargs: object) -> tuple[Scene, Rendered]:
    """A random scene rendered with random blur, noise and JPEG quality."""
    scene = random_scene(rng, **scene_kwargs)  # type: ignore[arg-type]
    blur = float(rng.choice([0.0, rng.uniform(0.3, 1.6)]))
    noise = float(rng.uniform(0, 6))
    quality = int(rng.integers(20, 95)) if rng.random() < 0.85 else None
    return scene, render(scene, jpeg_quality=quality, blur_sigma=blur, noise_sigma=noise)


TABLE_PX = 800
"""Side of a table image of :func:`table_of_kind` (1 mm a pixel): wider than any view of a
scene of 36-64 px dice."""
TABLES = ("grey", "random", "green felt", "red cloth", "wood")
"""Table kinds the light measurements render (``models.measure.light_faces``,
``models.training.dice.light_tables``): a grey world that holds, and coloured tables where it does
not."""


def table_of_kind(kind: str, rng: np.random.Generator) -> np.ndarray | None:
    """A (TABLE_PX, TABLE_PX, 3) uint8 BGR table of a kind of :data:`TABLES`, for a scene's
    ``mat``; None: the renderer's own random table (vision.synth.textures.background: 60 % of them
    a random colour)."""
    if kind == "random":
        return None
    base = {"grey": (200, 200, 200), "green felt": (60, 125, 35), "red cloth": (45, 40, 150),
            "wood": (55, 105, 160)}[kind]
    img = np.empty((TABLE_PX, TABLE_PX, 3), np.float32)
    img[:] = base
    if kind == "wood":
        x = np.arange(TABLE_PX, dtype=np.float32)
        img *= (1 + 0.12 * np.sin(x / 7.0 + 3 * np.sin(x / 90.0)))[None, :, None]
    img *= 1 + 0.05 * rng.standard_normal((TABLE_PX, TABLE_PX, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def typed_scene(rng: np.random.Generator, types: list[DieType], table: str) -> Scene:
    """A random scene whose dice are all of `types` (each die a random type and face)."""
    scene = random_scene(rng, n_dice=(3, 8), die_px=(36, 64), unreadable_rate=0.0)
    dice = tuple(dataclasses.replace(d, die_type=types[int(rng.integers(len(types)))],
                                     value=int(rng.integers(1, 7))) for d in scene.dice)
    return dataclasses.replace(scene, dice=dice, mat=table_of_kind(table, rng), mat_mm_per_px=1.0)
