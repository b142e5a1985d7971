"""Rendered crops of one die seen from above, for the face classifier and its measurement.

A crop looks like what :func:`vision.dice.classifier.crop_dice` cuts around a detected die: the
die's top face (any catalogued or enrolled look) under a random yaw, a slight perspective,
the body's sides showing on the side away from the camera, a shadow, a table around it, a
light with a colour cast and a gradient, a highlight, blur, sensor noise and JPEG. The
condition ranges are parameters so an evaluation can use light and poses that the training
or the enrolment never saw.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from vision.faces.dietypes import DieType, Face, hex_bgr
from vision.faces.draw import face_texture

logger = logging.getLogger(__name__)

CROP_PX = 48
#: as vision.dice.classifier.CROP_MARGIN: the crop is this much larger than the die's box
CROP_MARGIN = 1.15
#: as calibration.dice_top.CROP_SIDE: a square-on crop is this much larger than the top face
TOP_MARGIN = 1.3


@dataclass(frozen=True, slots=True)
class Conditions:
    """Ranges the random crop conditions are drawn from."""

    gain: tuple[float, float] = (0.55, 1.3)
    cast: float = 0.15
    """Per-channel light colour cast (fraction)."""
    tilt: float = 0.35
    """How far the sides show (fraction of the face), the camera being off the die's axis."""
    persp: float = 0.06
    """Corner jitter of the top face (fraction of the face)."""
    box_jitter: float = 0.08
    """Error of the detector's box, position and size (fraction)."""
    blur: tuple[float, float] = (0.0, 1.0)
    noise: tuple[float, float] = (0.0, 6.0)
    jpeg: tuple[int, int] = (55, 95)
    square_on: bool = False
    """A crop of the top face's plane warped square-on (:func:`calibration.dice_top.top_crops`):
    the face is centred (up to the error of the die's place, ``box_jitter``) and
    ``TOP_MARGIN`` times smaller than the crop; the sides facing the camera show beside it."""
    printed_sides: bool = False
    """Print each visible side with another face of the same die (a random one, any turn),
    warped onto the side's quad and shaded as the plain side is: a real die's sides are its
    other faces, which a wide camera's photo shows beside the top face (``vision.synth.scenes``,
    up to 30 degrees off axis: sides 0.35-1 face wide). Off by default: the plain sides
    (body colour) are what the shipped models were trained and measured on."""
    foreshorten: bool = False
    """Squash the top face along the way the sides show, as a camera off the die's axis sees
    it: the sides show sin(a) of a face wide and the top face cos(a) of its depth, a being
    the angle off axis (sin(a) taken from the sides' width the draw gives). Without it the top
    face stays square however wide the sides (off by default, for the same reason as
    ``printed_sides``; no random draw depends on it)."""


TRAIN = Conditions()
#: Light and poses beyond the training ranges, for held-out measurement.
HARSH = Conditions(gain=(0.45, 1.45), cast=0.2, tilt=0.45, persp=0.08, box_jitter=0.1,
                   blur=(0.3, 1.2), noise=(2.0, 8.0), jpeg=(45, 80))
#: A die held still for the players' enrolment shots: the table's light, any rotation.
STEADY = Conditions(gain=(0.85, 1.1), cast=0.05, tilt=0.25, persp=0.04, box_jitter=0.05,
                    blur=(0.0, 0.5), noise=(1.0, 3.0), jpeg=(80, 95))
#: Square-on crops of the top face as the live observer reads them (calibration.dice_top):
#: the place of the die off by up to ~2 mm of 16-18 (its search steps), the camera's side
#: view of the die up to 0.45 of a face on a wide table.
TOP = Conditions(square_on=True, box_jitter=0.12, tilt=0.45, persp=0.03)
#: A detected die's box crop in a photo from a wide camera: the sides up to a whole face wide
#: and printed with the die's other faces (``pieces_read.read_dice_types``' photos).
WIDE = Conditions(tilt=1.0, printed_sides=True)
#: WIDE with the top face foreshortened as the sides' width says (``foreshorten``): a die
#: seen up to ~64 degrees off axis, as at the edge of a tilted phone's photo.
OBLIQUE = Conditions(tilt=1.0, printed_sides=True, foreshorten=True)

TextureFn = Callable[[int], np.ndarray]


def render_crop(texture: np.ndarray, body_bgr: tuple[float, float, float],
                rng: np.random.Generator, cond: Conditions = TRAIN,
                size: int = CROP_PX,
                side_textures: list[np.ndarray] | None = None) -> np.ndarray:
    """One (size, size, 3) uint8 BGR crop of a die whose top face is `texture` (BGRA).
    `side_textures`: the die's other faces (BGRA), printed on the visible sides when
    ``cond.printed_sides``."""
    s = size * 4  # draw at 4x, shrink at the end (anti-aliasing like a real sensor)
    if cond.square_on:  # the face's size is known (the die's edge); its place to a few mm
        face_side = s / TOP_MARGIN * (1 + rng.uniform(-0.04, 0.04))
        side = face_side * (1 + cond.tilt * rng.uniform(0.0, 1.0))
    else:
        side = s / CROP_MARGIN * (1 + rng.uniform(-cond.box_jitter, cond.box_jitter))
        face_side = side / (1 + cond.tilt * rng.uniform(0.0, 1.0))
    ang = rng.uniform(0, 2 * np.pi)
    c = np.array([s / 2, s / 2]) + rng.uniform(-cond.box_jitter, cond.box_jitter, 2) * (
        face_side if cond.square_on else side)
    ca, sa = np.cos(ang), np.sin(ang)
    rot = np.array([[ca, -sa], [sa, ca]])
    unit = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])
    top = c + (unit @ rot.T) * face_side
    top += rng.uniform(-cond.persp, cond.persp, (4, 2)) * face_side
    # The sides show towards the camera's foot: the top face is displaced away from it.
    shift_dir = rng.uniform(0, 2 * np.pi)
    shift = np.array([np.cos(shift_dir), np.sin(shift_dir)]) * (side - face_side) * 0.9
    if cond.foreshorten and not cond.square_on:
        d = np.array([np.cos(shift_dir), np.sin(shift_dir)])
        sin_a = min(float(np.hypot(*shift)) / face_side, 0.95)
        centre = top.mean(axis=0)
        along = (top - centre) @ d
        top = top - np.outer(along * (1 - np.sqrt(1 - sin_a ** 2)), d)
    top_c = top if cond.square_on else top + shift / 2
    bottom = top_c - shift
    img = _table(s, rng)
    # soft shadow on the table
    shadow: np.ndarray = np.zeros((s, s), np.float32)
    sh_off = rng.uniform(-0.25, 0.25, 2) * face_side
    cv2.fillPoly(shadow, [cv2.convexHull((np.vstack([bottom, top_c]) + sh_off).astype(
        np.int32))], 1.0)
    shadow = cv2.GaussianBlur(shadow, (0, 0), s / 25)
    img *= (1 - rng.uniform(0.2, 0.5) * shadow)[..., None]
    body = np.asarray(body_bgr, np.float32) / 255.0
    hull = cv2.convexHull(np.vstack([bottom, top_c]).astype(np.float32)).astype(np.int32)
    side_shade = rng.uniform(0.45, 0.8)
    cv2.fillPoly(img, [hull], (body * side_shade).tolist(), cv2.LINE_AA)
    if cond.printed_sides and side_textures:
        # drawn only under this option, so that the random draws (and every existing crop
        # of a seed) stay the same without it
        img = _print_sides(img, top_c, shift, side_textures, side_shade, rng)
    tex = texture.copy()
    tex[..., :3] *= rng.uniform(0.85, 1.05)
    t = tex.shape[0]
    src = np.array([[0, 0], [t, 0], [t, t], [0, t]], np.float32)
    hmat = cv2.getPerspectiveTransform(src, top_c.astype(np.float32))
    warped = cv2.warpPerspective(tex, hmat, (s, s), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    a = warped[..., 3:4]
    img = img * (1 - a) + warped[..., :3] * a
    # light: gain, colour cast, gradient, a specular spot
    y, x = np.mgrid[0:s, 0:s].astype(np.float32) / s
    g = rng.uniform(*cond.gain) * (1 + rng.uniform(-0.2, 0.2) * (x - 0.5)
                                   + rng.uniform(-0.2, 0.2) * (y - 0.5))
    img = img * g[..., None] * (1 + rng.uniform(-cond.cast, cond.cast, 3)).astype(np.float32)
    if rng.random() < 0.3:
        sx, sy = rng.uniform(0.3, 0.7, 2)
        spot = np.exp(-((x - sx) ** 2 + (y - sy) ** 2) / (2 * rng.uniform(0.03, 0.1) ** 2))
        img += (rng.uniform(0.1, 0.35) * spot * a[..., 0])[..., None]
    out = cv2.resize(np.clip(img, 0, 1), (size, size), interpolation=cv2.INTER_AREA)
    b = rng.uniform(*cond.blur)
    if b > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), b)
    out = out * 255 + rng.normal(0, rng.uniform(*cond.noise), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY,
                                         int(rng.integers(*cond.jpeg))])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return decoded if decoded is not None else out


def _print_sides(img: np.ndarray, top: np.ndarray, shift: np.ndarray,
                 textures: list[np.ndarray], shade: float,
                 rng: np.random.Generator) -> np.ndarray:
    """`img` with the sides facing the camera printed: each top edge whose outward normal
    points along -`shift` (towards the camera's foot, where the body shows) gets the
    parallelogram edge -> edge - `shift` (a cube's side under a near-parallel projection,
    foreshortened by how far the camera is off axis), textured by a random other face at a
    random quarter turn, in the side's shade."""
    s = img.shape[0]
    if float(np.hypot(*shift)) < 1.0:  # seen square-on: no side shows
        return img
    centre = top.mean(0)
    t = textures[0].shape[0]
    src = np.array([[0, 0], [t, 0], [t, t], [0, t]], np.float32)
    for i in range(4):
        a, b = top[i], top[(i + 1) % 4]
        mid = (a + b) / 2
        if float(np.dot(mid - centre, -shift)) <= 0:  # this side faces away from the camera
            continue
        tex = textures[int(rng.integers(len(textures)))]
        quad = np.array([a, b, b - shift, a - shift], np.float32)
        quad = np.roll(quad, int(rng.integers(4)), axis=0)  # a face lies any way round
        hmat = cv2.getPerspectiveTransform(src, quad)
        warped = cv2.warpPerspective(tex, hmat, (s, s), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        a_s = warped[..., 3:4]
        img = img * (1 - a_s) + warped[..., :3] * shade * a_s
    return img


def _table(s: int, rng: np.random.Generator) -> np.ndarray:
    img = np.empty((s, s, 3), np.float32)
    img[:] = rng.uniform(0.1, 0.9, 3) if rng.random() < 0.6 else rng.uniform(0.6, 0.95)
    if rng.random() < 0.5:  # texture (felt, wood grain)
        small = rng.standard_normal((8, 8)).astype(np.float32)
        img *= (1 + 0.12 * cv2.resize(small, (s, s), interpolation=cv2.INTER_CUBIC))[..., None]
    return img


def face_crops(dtype: DieType, face: Face, n: int, rng: np.random.Generator,
               cond: Conditions = TRAIN, size: int = CROP_PX,
               body_jitter: float = 12.0) -> np.ndarray:
    """(n, size, size, 3) uint8 crops of one face of a die type."""
    tex = face_texture(dtype, face, 64)
    sides = ([face_texture(dtype, f, 64) for f in dtype.faces if f.label != face.label]
             if cond.printed_sides else None)
    body = np.asarray(hex_bgr(dtype.body))
    out = np.empty((n, size, size, 3), np.uint8)
    for i in range(n):
        b = np.clip(body + rng.normal(0, body_jitter, 3), 0, 255)
        out[i] = render_crop(tex, tuple(b), rng, cond, size, sides)
    return out
