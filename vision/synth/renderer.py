"""Synthetic dice scenes with exact ground truth.

A scene is a list of :class:`DieSpec` (position on the table in millimetres, face up, yaw,
look) seen by a pinhole :class:`CameraPose` above the table. :func:`render` projects each die
as a cube (textured faces, Lambert shading, a soft shadow cast on the table, translucency)
and returns the image with the truth: box, top value and face class of every die. The table
surface is either a random background or a given mat image laid on the table in mm, so the
same code draws training data and, later, whole game tables for the simulated camera.

A die is either an ordinary pip die drawn from its :class:`~vision.synth.textures.DieLook`, or a die
of a catalogued type (:mod:`vision.faces.dietypes`: IceDice colour and size dice, Quarriors dice,
enrolled custom dice): give ``DieSpec.die_type`` and ``value`` becomes the 1-based index of
the face up among the type's six faces, each face drawn by :func:`vision.faces.draw.face_texture`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from vision.dice.detections import FACE_SYMBOL, FACE_UNREADABLE
from vision.faces.dietypes import DieType
from vision.faces.draw import face_texture as type_face_texture
from vision.synth.polyhedra import PolySpec, draw_poly, poly_outline, poly_shadow
from vision.synth.textures import DieLook, add_gloss, background, face_texture

logger = logging.getLogger(__name__)

# Die-local face normals: opposite faces sum to 7. Each entry: (normal, in-face u axis).
_FACES: dict[int, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    1: ((0, 0, 1), (1, 0, 0)), 6: ((0, 0, -1), (1, 0, 0)),
    2: ((1, 0, 0), (0, 1, 0)), 5: ((-1, 0, 0), (0, 1, 0)),
    3: ((0, 1, 0), (0, 0, 1)), 4: ((0, -1, 0), (0, 0, 1)),
}


def _rot(axis: str, deg: float) -> np.ndarray:
    a = np.deg2rad(deg)
    c, s = np.cos(a), np.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    if axis == "y":
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


# Rotation that brings each face's normal to +z (the face up).
_TO_TOP = {1: np.eye(3), 6: _rot("x", 180), 2: _rot("y", -90), 5: _rot("y", 90),
           3: _rot("x", 90), 4: _rot("x", -90)}


@dataclass(frozen=True, slots=True)
class DieSpec:
    """One die on the table."""

    x_mm: float
    """Centre on the table, millimetres."""
    y_mm: float
    value: int
    """Face up, 1..6."""
    yaw_deg: float = 0.0
    """Rotation about the table normal."""
    look: DieLook = field(
        default_factory=lambda: DieLook((230.0, 230.0, 230.0), (20.0, 20.0, 20.0)))
    size_mm: float = 16.0
    """Edge length."""
    cock_deg: float = 0.0
    """Tilt off flat (a die leaning on something); beyond ~20 deg its face is unreadable."""
    die_type: DieType | None = None
    """A catalogued die type: its six faces replace the pips of `look` (body and ink colours
    come from the type), and `value` is the index (1..6) of the face up in
    ``die_type.faces``. None: an ordinary pip die drawn from `look`."""
    z_mm: float = 0.0
    """Height of what the die rests on above the table (a die of a stack's second layer
    rests on the first: 16 mm up)."""

    @property
    def label(self) -> str:
        """What the rules see on the face up: the type's face label, or the pip value."""
        if self.die_type is None:
            return str(self.value)
        return self.die_type.faces[self.value - 1].label


@dataclass(frozen=True, slots=True)
class CameraPose:
    """A pinhole camera looking at a point of the table."""

    width: int = 640
    height: int = 640
    fov_deg: float = 60.0
    """Horizontal field of view."""
    target_mm: tuple[float, float] = (0.0, 0.0)
    """Table point on the optical axis."""
    distance_mm: float = 600.0
    """Camera to target."""
    tilt_deg: float = 0.0
    """Angle between the optical axis and the table normal (0 = straight down)."""
    azimuth_deg: float = -90.0
    """Direction, on the table, from the target towards the camera's foot."""
    roll_deg: float = 0.0
    """Rotation of the image about the optical axis."""

    @property
    def focal_px(self) -> float:
        return self.width / 2 / np.tan(np.deg2rad(self.fov_deg) / 2)

    def extrinsics(self) -> tuple[np.ndarray, np.ndarray]:
        """(R, C): world-to-camera rotation (rows are camera axes) and camera centre."""
        t, a = np.deg2rad(self.tilt_deg), np.deg2rad(self.azimuth_deg)
        target = np.array([*self.target_mm, 0.0])
        centre = target + self.distance_mm * np.array(
            [np.sin(t) * np.cos(a), np.sin(t) * np.sin(a), np.cos(t)])
        z = (target - centre) / np.linalg.norm(target - centre)
        g = np.array([np.cos(a), np.sin(a), 0.0])
        y = g - (g @ z) * z
        y /= np.linalg.norm(y)
        x = np.cross(y, z)
        rot = np.stack([x, y, z])
        return _rot("z", self.roll_deg) @ rot, centre

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates (N, 2) and depths (N,) of world points (N, 3) in mm."""
        rot, centre = self.extrinsics()
        cam = (np.asarray(pts, np.float64) - centre) @ rot.T
        f = self.focal_px
        uv = cam[:, :2] / cam[:, 2:3] * f + np.array([self.width / 2, self.height / 2])
        return uv, cam[:, 2]

    def view_angle_deg(self, pts: np.ndarray) -> np.ndarray:
        """(N,) angle between the table's normal and the ray from each world point (N, 3) to
        the camera: how far off square-on the camera sees a die's top face there."""
        _, centre = self.extrinsics()
        ray = centre - np.asarray(pts, np.float64).reshape(-1, 3)
        return np.degrees(np.arccos(ray[:, 2] / np.linalg.norm(ray, axis=1)))

    def pixel_to_table(self, uv: np.ndarray) -> np.ndarray:
        """Table points (N, 2) in mm seen at pixels (N, 2)."""
        rot, centre = self.extrinsics()
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        rays = np.column_stack([(uv - [self.width / 2, self.height / 2]) / self.focal_px,
                                np.ones(len(uv))]) @ rot
        t = -centre[2] / rays[:, 2]
        return (centre + rays * t[:, None])[:, :2]

    def table_homography(self) -> np.ndarray:
        """3x3 homography from table mm (x, y, 1) to pixels."""
        rot, centre = self.extrinsics()
        k = np.array([[self.focal_px, 0, self.width / 2], [0, self.focal_px, self.height / 2],
                      [0, 0, 1]])
        t = -rot @ centre
        return k @ np.column_stack([rot[:, 0], rot[:, 1], t])


@dataclass(frozen=True, slots=True)
class Lighting:
    """One directional light plus ambient."""

    azimuth_deg: float = 45.0
    elevation_deg: float = 60.0
    ambient: float = 0.55
    shadow: float = 0.35
    """Darkening under a die's shadow, 0..1."""

    @property
    def direction(self) -> np.ndarray:
        a, e = np.deg2rad(self.azimuth_deg), np.deg2rad(self.elevation_deg)
        return np.array([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)])


@dataclass(frozen=True, slots=True)
class Scene:
    """Everything needed to draw one image."""

    dice: tuple[DieSpec, ...]
    camera: CameraPose = CameraPose()
    lighting: Lighting = Lighting()
    seed: int = 0
    """Seed of the random background and of texture details."""
    mat: np.ndarray | None = None
    """Optional BGR uint8 table image, laid on the table with its centre at the origin."""
    mat_mm_per_px: float = 1.0
    others: tuple[PolySpec, ...] = ()
    """Polyhedral dice on the table that are no d6 (:mod:`vision.synth.polyhedra`): drawn
    with the dice, near over far, and left out of the dice's truth."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """An image and its truth, one row per die that is in view."""

    image: np.ndarray
    """(H, W, 3) uint8 BGR."""
    boxes: np.ndarray
    """(N, 4) float32 x0, y0, x1, y1 of the whole visible die."""
    values: np.ndarray
    """(N,) int64 face up, 1..6."""
    face_class: np.ndarray
    """(N,) int64 class for the classifier: value-1, FACE_SYMBOL or FACE_UNREADABLE. For a
    typed die (DieSpec.die_type) value-1 is the index of the face up in the type's faces; its
    label is in `labels`."""
    die_index: np.ndarray
    """(N,) index into Scene.dice."""
    labels: tuple[str, ...] = ()
    """(N,) the face label up (DieSpec.label): the type's label for a typed die, else the pip
    value as text."""
    other_boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    """(M, 4) float32 boxes, clipped to the frame, of the Scene.others whose centre is in
    view: things a d6 reader must not report."""
    other_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    """(M,) index into Scene.others."""


def _die_geometry(die: DieSpec) -> tuple[np.ndarray, np.ndarray, list]:
    """World corners (8, 3), rotation, and per face (value, normal, centre, corner quad)."""
    rot = _rot("z", die.yaw_deg) @ _rot("x", die.cock_deg) @ _TO_TOP[die.value]
    h = die.size_mm / 2
    lift = h * (1 + 0.4 * np.sin(np.deg2rad(abs(die.cock_deg))))
    centre = np.array([die.x_mm, die.y_mm, die.z_mm + lift])
    corners = np.array([[sx, sy, sz] for sx in (-h, h) for sy in (-h, h) for sz in (-h, h)])
    faces = []
    for value, (n, u) in _FACES.items():
        n_w, u_w = rot @ np.array(n, float), rot @ np.array(u, float)
        v_w = np.cross(n_w, u_w)
        c = centre + n_w * h
        quad = np.array([c + h * (-u_w - v_w), c + h * (u_w - v_w), c + h * (u_w + v_w),
                         c + h * (-u_w + v_w)])
        faces.append((value, n_w, c, quad))
    return corners @ rot.T + centre, rot, faces


@lru_cache(maxsize=512)
def _type_texture(dtype: DieType, index: int, size: int) -> np.ndarray:
    """Cached texture of face `index` (0-based) of a die type; callers get a copy."""
    tex = type_face_texture(dtype, dtype.faces[index], size=size)
    tex.setflags(write=False)
    return tex


def _composite(dst: np.ndarray, src_rgba: np.ndarray) -> None:
    a = src_rgba[..., 3:4]
    dst *= 1 - a
    dst += src_rgba[..., :3] * a


def _draw_die(img: np.ndarray, die: DieSpec, cam: CameraPose, light: Lighting,
              rng: np.random.Generator) -> None:
    _, _, faces = _die_geometry(die)
    _, cam_centre = cam.extrinsics()
    h_img, w_img = img.shape[:2]
    quads_px = [cam.project(q)[0] for _, _, _, q in faces]
    allpts = np.concatenate(quads_px)
    x0, y0 = np.floor(allpts.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(allpts.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w_img), min(y1, h_img)
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    # Texture resolution from the largest face edge in the image (not face 1's, which is
    # foreshortened to a sliver whenever another face is up).
    side_px = max(8.0, max(float(np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1).max())
                           for q in quads_px))
    tex_px = int(np.clip(2 ** np.ceil(np.log2(side_px * 1.5)), 16, 128))
    ldir = light.direction
    for (value, n_w, c, _), quad in zip(faces, quads_px, strict=True):
        if n_w @ (cam_centre - c) <= 0:
            continue
        if die.die_type is None:
            tex = face_texture(value, die.look, rng, size=tex_px)
        else:
            # `value` is the die-local face slot (1..6); the type's faces fill the slots in
            # order, so the face up is die_type.faces[die.value - 1].
            # The face frame (u, n x u) is left-handed seen from outside, which mirrors a
            # texture; harmless for pips (a mirrored pip face is a rotated one) but not for
            # pictograms and digits, so typed faces are flipped back here. (Pip dice keep the
            # old drawing so their images, and the data sets made from them, do not change.)
            tex = np.ascontiguousarray(_type_texture(die.die_type, value - 1, tex_px)[::-1])
        shade = light.ambient + (1 - light.ambient) * max(0.0, float(n_w @ ldir))
        tex[..., :3] *= shade
        if die.look.gloss > 0:
            # Blinn-Phong: how nearly the face's normal halves light and view directions.
            view = (cam_centre - c) / np.linalg.norm(cam_centre - c)
            half = (ldir + view) / np.linalg.norm(ldir + view)
            spec = max(0.0, float(n_w @ half)) ** 8
            add_gloss(tex, die.look.gloss * spec, die.look.pattern_seed * 17 + value)
        src = np.array([[0, 0], [tex_px, 0], [tex_px, tex_px], [0, tex_px]], np.float32)
        hmat = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
        warped = cv2.warpPerspective(tex, hmat, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        _composite(roi, warped)


def _draw_shadows(img: np.ndarray, dice: tuple[DieSpec, ...], cam: CameraPose,
                  light: Lighting, others: tuple[PolySpec, ...] = ()) -> None:
    mask: np.ndarray = np.zeros(img.shape[:2], np.float32)
    ldir = light.direction
    cast = []
    for die in dice:
        corners, _, _ = _die_geometry(die)
        flat = corners[:, :2] - corners[:, 2:3] * ldir[:2] / max(ldir[2], 0.2)
        cast.append(np.column_stack([flat, np.zeros(8)]))
    cast += [poly_shadow(o, light) for o in others]
    for pts in cast:
        uv, depth = cam.project(pts)
        if np.any(depth <= 0):
            continue
        hull = cv2.convexHull(uv.astype(np.float32)).astype(np.int32)
        cv2.fillPoly(mask, [hull], 1.0, cv2.LINE_AA)
    k = max(3, int(img.shape[1] / 200) | 1)
    mask = cv2.GaussianBlur(mask, (k, k), 0)
    img *= (1 - light.shadow * mask)[..., None]


def render_table(scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """The bare table of a scene, (H, W, 3) float32 BGR in [0, 1]."""
    cam = scene.camera
    if scene.mat is None:
        return background(cam.height, cam.width, rng)
    mh, mw = scene.mat.shape[:2]
    s = scene.mat_mm_per_px
    mat_to_table = np.array([[s, 0, -mw * s / 2], [0, s, -mh * s / 2], [0, 0, 1]])
    hmat = cam.table_homography() @ mat_to_table
    out = cv2.warpPerspective(scene.mat, hmat, (cam.width, cam.height), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_REPLICATE)
    return out.astype(np.float32) / 255.0


def _corners_in_image(die: DieSpec, cam) -> np.ndarray | None:
    """The die's 8 corners in pixels (8, 2), None when any lies behind the camera."""
    uv, depth = cam.project(_die_geometry(die)[0])
    return None if np.any(depth <= 0) else uv


def _centre_in_frame(uv: np.ndarray, cam) -> bool:
    centre = uv.mean(axis=0)
    return bool(0 <= centre[0] < cam.width and 0 <= centre[1] < cam.height)


def _frame_box(uv: np.ndarray, cam) -> np.ndarray:
    box = np.concatenate([uv.min(axis=0), uv.max(axis=0)])
    return np.clip(box, 0, [cam.width, cam.height, cam.width, cam.height])


def cut_by_frame(scene: Scene) -> np.ndarray:
    """(M, 4) float32 boxes, clipped to the frame, of the dice :func:`render` draws but leaves
    out of its truth because their centre lies outside the frame. The part of such a die at
    the frame's edge is a die all the same: a reader that boxes it has not boxed nothing."""
    cam = scene.camera
    boxes = []
    for die in scene.dice:
        uv = _corners_in_image(die, cam)
        if uv is None or _centre_in_frame(uv, cam):
            continue
        box = _frame_box(uv, cam)
        if box[2] > box[0] and box[3] > box[1]:
            boxes.append(box)
    return np.array(boxes, np.float32).reshape(-1, 4)


def render(scene: Scene, *, jpeg_quality: int | None = None, blur_sigma: float = 0.0,
           noise_sigma: float = 0.0) -> Rendered:
    """Draw a scene and return the image with the truth of every die in view.

    Args:
        scene: dice, camera, light and table.
        jpeg_quality: re-encode the result as JPEG at this quality (None: no compression).
        blur_sigma: Gaussian blur of the whole image, in pixels (focus, motion).
        noise_sigma: sensor noise, in 0..255 grey levels.
    """
    rng = np.random.default_rng(scene.seed)
    cam = scene.camera
    img = render_table(scene, rng)
    _draw_shadows(img, scene.dice, cam, scene.lighting, scene.others)
    _, cam_centre = cam.extrinsics()
    # lowest first (a camera above sees a stack's upper layer over the dice it rests on),
    # then far to near; the others (index past the dice) among them
    things: list[DieSpec | PolySpec] = [*scene.dice, *scene.others]
    order = sorted(range(len(things)), key=lambda i: (things[i].z_mm, -np.linalg.norm(
        np.array([things[i].x_mm, things[i].y_mm, 0]) - cam_centre)))
    boxes, values, classes, index, labels = [], [], [], [], []
    other_boxes, other_index = [], []
    for i in order:
        if i >= len(scene.dice):
            other = scene.others[i - len(scene.dice)]
            draw_poly(img, other, cam, scene.lighting)
            hull = poly_outline(other, cam)
            if hull is not None and _centre_in_frame(hull, cam):
                other_boxes.append(_frame_box(hull, cam))
                other_index.append(i - len(scene.dice))
            continue
        die = scene.dice[i]
        uv = _corners_in_image(die, cam)
        if uv is None:
            continue
        _draw_die(img, die, cam, scene.lighting, rng)
        if not _centre_in_frame(uv, cam):
            continue
        box = _frame_box(uv, cam)
        inside = (box[2] - box[0]) * (box[3] - box[1]) / max(
            1e-6, float(np.ptp(uv[:, 0]) * np.ptp(uv[:, 1])))
        boxes.append(box)
        values.append(die.value)
        if abs(die.cock_deg) > 20 or inside < 0.6:
            classes.append(FACE_UNREADABLE)
        elif die.die_type is None and die.value == die.look.symbol_face:
            classes.append(FACE_SYMBOL)
        else:
            classes.append(die.value - 1)
        index.append(i)
        labels.append(die.label)
    if blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur_sigma)
    out: np.ndarray = np.clip(img * 255 + 0.5, 0, 255)
    if noise_sigma > 0:
        out = np.clip(out + rng.normal(0, noise_sigma, out.shape), 0, 255)
    out = out.astype(np.uint8)
    if jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        out = decoded if decoded is not None else out
    return Rendered(
        image=out,
        boxes=np.array(boxes, np.float32).reshape(-1, 4),
        values=np.array(values, np.int64),
        face_class=np.array(classes, np.int64),
        die_index=np.array(index, np.int64),
        labels=tuple(labels),
        other_boxes=np.array(other_boxes, np.float32).reshape(-1, 4),
        other_index=np.array(other_index, np.int64),
    )
