"""Wild table scenes for training: dice on the tables other people really play on.

:func:`wild_scene` builds a :class:`vision.synth.renderer.Scene` whose ``mat`` is a procedural
surface (:mod:`vision.synth.surfaces`: carpets, patterned cloth, wood, vinyl floor, paper, circuit
boards, trays, bowls...) with look-alikes drawn on it (:mod:`vision.synth.lookalikes`: keys,
buttons, coins, dominoes, RPG dice, numeral d6, cards, tokens, printed pips, dots, and hands,
feet and furniture legs at the frame's edge). The camera looks from straight down to 45
degrees off; a 16 mm die is 1 % to 30 % of the frame's longer side (log-uniform), and the
dice wear the looks of :mod:`vision.synth.wild_looks` (Catan pairs, pearl, translucent...).
:func:`wild_render` renders it, then adds the light's faults (:mod:`vision.synth.light_faults`)
and the camera's (blur, noise, JPEG, as :func:`vision.synth.scenes.random_render` draws them).

The surface is drawn at the camera's own sampling of the table (never coarser than the
finest image pixel's footprint, up to :data:`MAX_MAT_PX` surface pixels), so its texture
is as sharp as a real photo's and no time is spent on detail no pixel shows.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.light_faults import apply_light_faults
from vision.synth.lookalike_stamp import Stage
from vision.synth.lookalikes import EDGE_KINDS, LOOKALIKE_KINDS, LookalikeKind, pick_kind
from vision.synth.polyhedra import PolySpec
from vision.synth.renderer import CameraPose, DieSpec, Lighting, Rendered, Scene, render
from vision.synth.surfaces import SurfaceKind, draw_surface, pick_surface_kind
from vision.synth.wild_looks import scene_looks
from vision.synth.wild_solids import place_solids

logger = logging.getLogger(__name__)

WILD_SCENES_VERSION = 4
"""Bumped whenever a seed's wild scene or render changes (any module behind it): key caches
of rendered wild scenes on it."""
EDGE_NAMES = frozenset(k.name for k in EDGE_KINDS)
MAX_MAT_PX = 700_000
"""Most surface pixels drawn for one scene; wider views get a coarser surface."""
REF_DIE_MM = 16.0
"""The die whose pixel size ``die_frac`` sets."""
MAX_RAY_DEG = 74.0
"""No pixel's ray is flatter than this from the table's normal (the far edge of an oblique
view stays well short of the horizon)."""


@dataclass(frozen=True, slots=True)
class WildScene:
    """A wild scene and the look-alikes drawn on its table."""

    scene: Scene
    surface: str
    """Name of the surface kind (vision.synth.surfaces.SURFACE_KINDS)."""
    lookalike_boxes: np.ndarray
    """(N, 4) float64 x0, y0, x1, y1 of each look-alike in the mat's pixels."""
    lookalike_kinds: tuple[str, ...]
    """(N,) kind name of each box (vision.synth.lookalikes: LOOKALIKE_KINDS and EDGE_KINDS)."""


def _corner_ray_deg(cam: CameraPose) -> float:
    """Largest angle between a frame corner's ray and the table's downward normal."""
    rot, _ = cam.extrinsics()
    uv = np.array([[0, 0], [cam.width, 0], [0, cam.height], [cam.width, cam.height]], float)
    rays = np.column_stack([(uv - [cam.width / 2, cam.height / 2]) / cam.focal_px,
                            np.ones(4)]) @ rot
    return float(np.degrees(np.arccos(-rays[:, 2] / np.linalg.norm(rays, axis=1))).max())


def wild_camera(rng: np.random.Generator, width: int, height: int, die_px: float
                ) -> CameraPose:
    """A camera from straight down to 45 degrees off, seeing a 16 mm die ``die_px`` wide
    at the image centre; its field of view narrows until no corner nears the horizon."""
    tilt = float(rng.uniform(0, 8)) if rng.random() < 0.4 else float(rng.uniform(8, 45))
    fov = float(rng.uniform(45, 78))
    azimuth = float(rng.uniform(0, 360))
    # Seen from above any roll is natural; tilted, the horizon stays roughly level.
    roll = float(rng.uniform(0, 360)) if tilt < 10 else float(rng.normal(0, 6))
    while True:
        focal = width / 2 / np.tan(np.deg2rad(fov) / 2)
        cam = CameraPose(width=width, height=height, fov_deg=fov,
                         distance_mm=float(focal * REF_DIE_MM / die_px), tilt_deg=tilt,
                         azimuth_deg=azimuth, roll_deg=roll)
        if _corner_ray_deg(cam) <= MAX_RAY_DEG or fov <= 20:
            return cam
        fov -= 4.0


def _border_px(cam: CameraPose, per_side: int = 6) -> np.ndarray:
    """(4 * per_side, 2) pixels round the frame's border, clockwise from the top left."""
    t = np.linspace(0, 1, per_side, endpoint=False)
    w, h = cam.width, cam.height
    return np.concatenate([np.column_stack([t * w, 0 * t]), np.column_stack([w + 0 * t, t * h]),
                           np.column_stack([w - t * w, h + 0 * t]),
                           np.column_stack([0 * t, h - t * h])])


def _centred(cam: CameraPose) -> CameraPose:
    """The same view moved so the visible table's bounding box is centred on the origin
    (the renderer lays the mat centred there: no surface is drawn where no pixel looks)."""
    seen = cam.pixel_to_table(_border_px(cam))
    mid = (seen.min(axis=0) + seen.max(axis=0)) / 2
    return dataclasses.replace(cam, target_mm=(float(-mid[0]), float(-mid[1])))


def _finest_mm_per_px(cam: CameraPose) -> float:
    """Smallest table footprint (mm) of one image pixel anywhere in the frame."""
    pts = np.concatenate([_border_px(cam, 3), [[cam.width / 2, cam.height / 2]]])
    base = cam.pixel_to_table(pts)
    dx = np.linalg.norm(cam.pixel_to_table(pts + [1, 0]) - base, axis=1)
    dy = np.linalg.norm(cam.pixel_to_table(pts + [0, 1]) - base, axis=1)
    return float(np.minimum(dx, dy).min())


def mat_geometry(cam: CameraPose) -> tuple[int, int, float]:
    """(mat height px, mat width px, mm per mat px) covering all the camera sees, centred
    on the origin, as sharp as the finest pixel and at most MAX_MAT_PX pixels."""
    seen = cam.pixel_to_table(_border_px(cam))
    half = np.abs(seen).max(axis=0) * 1.04 + 10.0
    mm = float(np.clip(_finest_mm_per_px(cam), 0.08, 8.0))
    mm = max(mm, float(np.sqrt(4 * half[0] * half[1] / MAX_MAT_PX)))
    return int(np.ceil(2 * half[1] / mm)), int(np.ceil(2 * half[0] / mm)), mm


def _on_floor(p: np.ndarray, kind: SurfaceKind, half_mm: np.ndarray) -> bool:
    """Whether a table point lies on the part of the surface dice may lie on."""
    if kind.floor >= 1.0:
        return True
    lim = kind.floor * half_mm * 0.85
    if kind.name == "bowl":
        return bool(np.hypot(*p) < lim.min())
    return bool(np.all(np.abs(p) < lim))


def _place_dice(rng: np.random.Generator, cam: CameraPose, n: int, sizes: list[float],
                kind: SurfaceKind, half_mm: np.ndarray, unreadable_rate: float
                ) -> list[tuple[np.ndarray, float, float, float]]:
    """(centre mm, yaw, cock, size) of up to ``n`` dice, in view, spread out or touching."""
    clustered = rng.random() < 0.35
    placed: list[tuple[np.ndarray, float, float, float]] = []
    margin = 0.04
    for _ in range(n * 40):
        if len(placed) >= n:
            break
        size = sizes[len(placed)]
        if clustered and placed and rng.random() < 0.7:
            ang = rng.uniform(0, 2 * np.pi)
            p = placed[int(rng.integers(len(placed)))][0] + size * rng.uniform(1.05, 1.6) * \
                np.array([np.cos(ang), np.sin(ang)])
            uv, _ = cam.project(np.array([[p[0], p[1], 0.0]]))
            if not (0 <= uv[0, 0] < cam.width and 0 <= uv[0, 1] < cam.height):
                continue
        else:
            uv = rng.uniform(margin, 1 - margin, 2) * (cam.width, cam.height)
            p = cam.pixel_to_table(uv)[0]
        if not _on_floor(p, kind, half_mm):
            continue
        gaps = [np.linalg.norm(q - p) / ((s + size) / 2) for q, _, _, s in placed]
        if gaps and min(gaps) < (1.02 if clustered else 1.5):
            continue
        yaw = float(rng.uniform(0, 360))
        if gaps and min(gaps) < 1.5:
            yaw = float(rng.uniform(-5, 5))  # touching dice must be aligned not to intersect
        cock = float(rng.uniform(25, 45)) if rng.random() < unreadable_rate else 0.0
        placed.append((p, yaw, cock, size))
    return placed


def _stage(cam: CameraPose, light: Lighting, mm: float, mat_hw: tuple[int, int]) -> Stage:
    _, centre = cam.extrinsics()
    ldir = light.direction
    return Stage(mm_per_px=mm,
                 foot_px=(float(centre[0] / mm + mat_hw[1] / 2),
                          float(centre[1] / mm + mat_hw[0] / 2)),
                 eye_px=float(centre[2] / mm),
                 to_lamp=(float(-ldir[0] / max(ldir[2], 0.2)),
                          float(-ldir[1] / max(ldir[2], 0.2))),
                 shadow=light.shadow)


def _to_mat_px(p_mm: np.ndarray, mm: float, mat_hw: tuple[int, int]) -> np.ndarray:
    return np.asarray(p_mm, np.float64) / mm + (mat_hw[1] / 2, mat_hw[0] / 2)


def _dice_keep_out(dice: list[DieSpec], stage: Stage, hw: tuple[int, int]) -> np.ndarray:
    """(N, 4) mat-pixel boxes round each die, from its base to where its top is seen, with
    a margin: no look-alike may be drawn there."""
    out = []
    for d in dice:
        c = _to_mat_px(np.array((d.x_mm, d.y_mm)), stage.mm_per_px, hw)
        r = 0.9 * d.size_mm / stage.mm_per_px
        top = c + stage.top_shift(c, d.size_mm / stage.mm_per_px)
        lo, hi = np.minimum(c, top) - r, np.maximum(c, top) + r
        out.append([lo[0], lo[1], hi[0], hi[1]])
    return np.array(out, np.float64).reshape(-1, 4)


def _edge_point(rng: np.random.Generator, cam: CameraPose, mm: float,
                mat_hw: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(a point on the frame's edge, unit vector into the frame) in mat pixels."""
    side = int(rng.integers(4))
    t = rng.uniform(0.15, 0.85)
    w, h = cam.width, cam.height
    uv, inward = [((t * w, 0.5), (0, 1)), ((w - 0.5, t * h), (-1, 0)),
                  ((t * w, h - 0.5), (0, -1)), ((0.5, t * h), (1, 0))][side]
    pts = cam.pixel_to_table(np.array([uv, np.add(uv, np.multiply(inward, 20))]))
    at, inner = _to_mat_px(pts[0], mm, mat_hw), _to_mat_px(pts[1], mm, mat_hw)
    d = inner - at
    return at, d / max(float(np.linalg.norm(d)), 1e-9)


def _draw_lookalikes(rng: np.random.Generator, mat: np.ndarray, cam: CameraPose,
                     stage: Stage, dice: list[DieSpec], n_table: int, n_edge: int,
                     kinds: tuple[LookalikeKind, ...], edge_kinds: tuple[LookalikeKind, ...]
                     ) -> tuple[np.ndarray, tuple[str, ...]]:
    """Draw look-alikes on ``mat`` (in place); their boxes (mat px) and kinds.

    Hands, feet and legs at the frame's edge come first, then groups on the table. Every
    object keeps out of the dice (base to seen top, with a margin) and out of the groups
    drawn before it, so none covers a die and no box is left on a thing drawn over; an
    object of a pile may still lie on its neighbour, as real ones do, and next to a die."""
    hw = mat.shape[:2]
    keep_out = _dice_keep_out(dice, stage, hw)
    boxes: list[np.ndarray] = []
    names: list[str] = []
    for at_edge in [True] * n_edge + [False] * n_table:
        kind = pick_kind(rng, edge_kinds if at_edge else kinds)
        here = dataclasses.replace(stage, keep_out=np.concatenate(
            [keep_out, np.array(boxes).reshape(-1, 4)]))
        if at_edge:
            at, inward = _edge_point(rng, cam, stage.mm_per_px, hw)
            found = kind.draw(mat, tuple(at), inward, here, rng)
        else:
            uv = rng.uniform(0.0, 1.0, 2) * (cam.width, cam.height)
            at = _to_mat_px(cam.pixel_to_table(uv)[0], stage.mm_per_px, hw)
            found = kind.draw(mat, (float(at[0]), float(at[1])), here, rng)
        boxes += list(found)
        names += [kind.name] * len(found)
    return np.array(boxes, np.float64).reshape(-1, 4), tuple(names)


def _kinds(kinds: tuple[LookalikeKind, ...], names: tuple[str, ...] | None, eye_mm: float
           ) -> tuple[LookalikeKind, ...]:
    """The kinds asked for that a camera ``eye_mm`` above the table can see."""
    return tuple(k for k in kinds if (names is None or k.name in names)
                 and eye_mm >= k.min_eye_mm)


def wild_scene(rng: np.random.Generator, width: int = 640, height: int = 640, *,
               die_frac: tuple[float, float] = (0.01, 0.30), n_dice: tuple[int, int] = (1, 12),
               n_lookalikes: tuple[int, int] = (0, 8), edge_rate: float = 0.35,
               unreadable_rate: float = 0.03, surfaces: tuple[str, ...] | None = None,
               lookalikes: tuple[str, ...] | None = None,
               solids: tuple[int, int] = (0, 0), hard_looks: float = 0.0) -> WildScene:
    """A random wild scene (see the module docstring).

    Args:
        rng: every random draw comes from it (same seed, same scene).
        width, height: image size in pixels.
        die_frac: range of a 16 mm die's size as a share of the longer image side, drawn
            log-uniformly.
        n_dice: range of the number of dice (fewer when big dice would not fit).
        n_lookalikes: range of the number of look-alike groups laid on the table.
        edge_rate: chance of one or two hands, feet or furniture legs at the frame's edge.
        unreadable_rate: share of dice cocked against something (face unreadable).
        surfaces: surface kind names to pick from (default: all).
        lookalikes: look-alike kind names to pick from (default: all, edge kinds included).
        solids: range of the number of polyhedral dice (:mod:`vision.synth.wild_solids`)
            among the d6; (0, 0), the default, draws nothing for them (a seed's scene is
            the same as before they existed).
        hard_looks: chance that the dice are of the glossy sets hardest to tell from the
            table (:func:`vision.synth.wild_looks.hard_look`); 0, the default, draws nothing.
    """
    lo, hi = np.log(np.array(die_frac) * max(width, height))
    die_px = float(np.exp(rng.uniform(lo, hi)))
    cam = _centred(wild_camera(rng, width, height, die_px))
    kind = pick_surface_kind(rng, surfaces)
    mh, mw, mm = mat_geometry(cam)
    mat = draw_surface(kind.name, mh, mw, mm, rng)
    room = width * height / (die_px * 3) ** 2
    n = int(min(int(rng.integers(n_dice[0], n_dice[1] + 1)), max(1, room)))
    looks, sizes = scene_looks(rng, n, hard_looks)
    half_mm = np.array([mw, mh]) * mm / 2
    spots = _place_dice(rng, cam, n, sizes, kind, half_mm, unreadable_rate)
    dice = [DieSpec(x_mm=float(p[0]), y_mm=float(p[1]), value=int(rng.integers(1, 7)),
                    yaw_deg=yaw, look=looks[i], size_mm=size, cock_deg=cock)
            for i, (p, yaw, cock, size) in enumerate(spots)]
    light = Lighting(azimuth_deg=float(rng.uniform(0, 360)),
                     elevation_deg=float(rng.uniform(15, 35) if rng.random() < 0.3
                                         else rng.uniform(35, 88)),
                     ambient=float(rng.uniform(0.35, 0.8)), shadow=float(rng.uniform(0.2, 0.6)))
    eye_mm = float(cam.extrinsics()[1][2])
    table = _kinds(LOOKALIKE_KINDS, lookalikes, eye_mm)
    edge = _kinds(EDGE_KINDS, lookalikes, eye_mm)
    # A third of real tables hold nothing but the dice: no look-alikes then.
    n_table = int(rng.integers(n_lookalikes[0], n_lookalikes[1] + 1)) \
        if table and rng.random() > 0.3 else n_lookalikes[0]
    n_edge = int(rng.integers(1, 3)) if edge and rng.random() < edge_rate else 0
    boxes, names = _draw_lookalikes(rng, mat, cam, _stage(cam, light, mm, (mh, mw)), dice,
                                    n_table, n_edge, table, edge)
    others = _solids(rng, solids, cam, dice, kind, half_mm) if solids[1] > 0 else ()
    scene = Scene(dice=tuple(dice), camera=cam, lighting=light,
                  seed=int(rng.integers(1 << 30)), mat=mat, mat_mm_per_px=mm, others=others)
    return WildScene(scene, kind.name, boxes, names)


def _solids(rng: np.random.Generator, count: tuple[int, int], cam: CameraPose,
            dice: list[DieSpec], kind: SurfaceKind, half_mm: np.ndarray
            ) -> tuple[PolySpec, ...]:
    """Polyhedral dice among the scene's d6, on the surface's floor and in view."""
    margin = 0.03

    def random_point() -> np.ndarray:
        uv = rng.uniform(margin, 1 - margin, 2) * (cam.width, cam.height)
        return cam.pixel_to_table(uv)[0]

    def fits(p: np.ndarray) -> bool:
        uv, depth = cam.project(np.array([[p[0], p[1], 0.0]]))
        return bool(depth[0] > 0 and 0 <= uv[0, 0] < cam.width and 0 <= uv[0, 1] < cam.height
                    and _on_floor(p, kind, half_mm))

    n = int(rng.integers(count[0], count[1] + 1))
    return place_solids(rng, n, np.array([(d.x_mm, d.y_mm) for d in dice]).reshape(-1, 2),
                        np.array([d.size_mm for d in dice]), random_point, fits)


def mat_homography(scene: Scene) -> np.ndarray:
    """3x3 homography from the scene's mat pixels to image pixels (as render_table lays it)."""
    assert scene.mat is not None
    mh, mw = scene.mat.shape[:2]
    s = scene.mat_mm_per_px
    mat_to_table = np.array([[s, 0, -mw * s / 2], [0, s, -mh * s / 2], [0, 0, 1]])
    return scene.camera.table_homography() @ mat_to_table


def _area(boxes: np.ndarray) -> np.ndarray:
    return np.clip(boxes[:, 2] - boxes[:, 0], 0, None) * np.clip(boxes[:, 3] - boxes[:, 1],
                                                                 0, None)


def _holds(boxes: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """(M,) bool: box m holds the centre of a ``truth`` box."""
    if not len(truth) or not len(boxes):
        return np.zeros(len(boxes), bool)
    c = (truth[:, :2] + truth[:, 2:]) / 2
    return ((c[None, :, 0] >= boxes[:, None, 0]) & (c[None, :, 0] <= boxes[:, None, 2]) &
            (c[None, :, 1] >= boxes[:, None, 1]) & (c[None, :, 1] <= boxes[:, None, 3])).any(1)


def boxes_in_image(ws: WildScene, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(image boxes (M, 4) float32, index into ws.lookalike_boxes (M,)) of the look-alikes
    seen in the frame: projected through the mat's homography, clipped to the frame; those
    mostly outside it, tiny, or holding a die's centre (``truth`` boxes) are dropped."""
    cam = ws.scene.camera
    if len(ws.lookalike_boxes) == 0:
        return np.zeros((0, 4), np.float32), np.zeros(0, np.int64)
    b = ws.lookalike_boxes
    corners = np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [2, 3]], b[:, [0, 3]]], 1)
    uv = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), mat_homography(ws.scene))
    uv = uv.reshape(-1, 4, 2)
    raw = np.concatenate([uv.min(axis=1), uv.max(axis=1)], axis=1)
    clip = np.clip(raw, 0, [cam.width, cam.height, cam.width, cam.height])
    # Things at the frame's edge (a hand, a foot) are mostly out of it by nature: keep
    # them when a fair piece shows; anything else only when most of it is in view.
    at_edge = np.array([k in EDGE_NAMES for k in ws.lookalike_kinds])
    share = np.where(at_edge, 0.05, 0.3)
    side = np.where(at_edge, 12, 3)
    keep = (_area(clip) >= share * np.maximum(_area(raw), 1e-9)) & \
        (clip[:, 2] - clip[:, 0] >= side) & (clip[:, 3] - clip[:, 1] >= side)
    keep &= ~_holds(clip, truth)
    index = np.nonzero(keep)[0]
    return clip[index].astype(np.float32), index


def camera_faults(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Blur, sensor noise and JPEG compression drawn as random_render draws them."""
    blur = float(rng.choice([0.0, rng.uniform(0.3, 1.6)]))
    noise = float(rng.uniform(0, 6))
    quality = int(rng.integers(20, 95)) if rng.random() < 0.85 else None
    out = cv2.GaussianBlur(image, (0, 0), blur) if blur > 0 else image
    if noise > 0:
        # Uniform noise of the same spread: a fifth of the cost of normal draws.
        grain = (rng.random(out.shape, dtype=np.float32) - 0.5) * (noise * 12 ** 0.5)
        out = np.clip(out.astype(np.float32) + grain + 0.5, 0, 255).astype(np.uint8)
    if quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        out = decoded if decoded is not None else out
    return out


def render_wild(ws: WildScene, rng: np.random.Generator
                ) -> tuple[Rendered, np.ndarray, tuple[str, ...]]:
    """Render a wild scene with the light's and the camera's faults.

    Returns:
        (rendered: the renderer's truth unchanged with the faulted image, look-alike boxes
        in image pixels (M, 4) float32, their kind names (M,)).
    """
    r = render(ws.scene)
    image = camera_faults(apply_light_faults(r.image, rng), rng)
    boxes, index = boxes_in_image(ws, r.boxes)
    kinds = tuple(ws.lookalike_kinds[i] for i in index)
    if len(r.other_boxes):  # the polyhedral dice: look-alikes too, but for those a die's
        # centre is seen in (an oblique view's box of a solid in front of a die)
        keep = ~_holds(r.other_boxes, r.boxes)
        boxes = np.concatenate([boxes, r.other_boxes[keep]])
        kinds += tuple("solid_" + ws.scene.others[i].kind for i in r.other_index[keep])
    return dataclasses.replace(r, image=image), boxes, kinds


def wild_render(rng: np.random.Generator, width: int = 640, height: int = 640,
                **scene_kwargs: object) -> tuple[Scene, Rendered, np.ndarray]:
    """A wild scene rendered with light and camera faults.

    This signature is stable (models.training consumes it): new options come only as
    keyword arguments with defaults, passed on to :func:`wild_scene`.

    Args:
        rng: every random draw comes from it (same seed, same output).
        width, height: image size in pixels.
        **scene_kwargs: options of :func:`wild_scene` (die_frac, n_dice, n_lookalikes,
            edge_rate, unreadable_rate, surfaces, lookalikes).

    Returns:
        (scene, rendered, lookalike_boxes): the scene (its ``mat`` holds the surface and the
        look-alikes), the image with the renderer's truth of every die, and (M, 4) float32
        x0, y0, x1, y1 boxes in image pixels of look-alikes in view, none holding a die's
        centre: "not a die" regions for training.
    """
    ws = wild_scene(rng, width, height, **scene_kwargs)  # type: ignore[arg-type]
    r, boxes, _ = render_wild(ws, rng)
    return ws.scene, r, boxes
