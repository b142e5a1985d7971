"""RPG dice drawn as solids: d4, d8, d10, d12, d20 and numeral d6, rendered in 3D.

Real photos of dice piles hold polyhedral dice a d6 reader must not report (148 of them among
the 238 d6 of ``real-dice-domains/kamil``). Drawn flat on the table
(:mod:`vision.synth.lookalikes_rpg`) they did not teach the reader that: a pair never shown a
real one boxed 139 of the 148 and read most of them as a 1 at over 0.9, a numeral in the
middle of a face being the one thing the stamps and a real die share. Here each is a convex
solid lying on one face, seen by the scene's camera like the cubes of
:mod:`vision.synth.renderer`: every visible face lit by its own normal (Lambert with a
Blinn-Phong highlight), its numeral printed on it in perspective, translucent bodies showing
their far faces and the table through the near ones, metal ones mirroring the lamp, a
shadow cast on the table.

:class:`Solid` holds a kind's geometry (unit size, faces found as the convex hull's planes of
its vertices); :class:`PolySpec` one die on the table; :func:`draw_poly` draws it into a
float image and :func:`poly_outline` gives its silhouette in pixels.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

logger = logging.getLogger(__name__)

PHI = (1 + 5 ** 0.5) / 2
KINDS = ("d4", "d6n", "d8", "d10", "d12", "d20")
"""d6n: a cube with numerals instead of pips (the numeral d6 and doubling cubes of real piles)."""
#: Styles a solid's body is drawn in.
STYLES = ("opaque", "translucent", "metal", "pearl")
#: Numeral fonts (cv2's Hershey faces: real dice use plain sans and serif numerals).
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
          cv2.FONT_HERSHEY_COMPLEX)


def _d10_vertices() -> np.ndarray:
    """A pentagonal trapezohedron: two apexes over a zig-zag ring of ten vertices, its apex
    height set so that each kite is planar (the line from an apex through the midpoint of
    two ring vertices at one height meets the ring vertex between them at the other)."""
    z0 = 0.12
    c36 = np.cos(np.deg2rad(36))
    h = z0 * (1 + c36) / (1 - c36)
    ring = [(np.cos(np.deg2rad(36 * k)), np.sin(np.deg2rad(36 * k)), z0 if k % 2 == 0 else -z0)
            for k in range(10)]
    return np.array([(0.0, 0.0, h), (0.0, 0.0, -h), *ring])


_VERTICES = {
    "d4": np.array([(1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)], float),
    "d6n": np.array(list(itertools.product((-1, 1), repeat=3)), float),
    "d8": np.array([(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)], float),
    "d10": _d10_vertices(),
    "d12": np.array([*itertools.product((-1, 1), repeat=3),
                     *[(0, a / PHI, b * PHI) for a in (-1, 1) for b in (-1, 1)],
                     *[(a / PHI, b * PHI, 0) for a in (-1, 1) for b in (-1, 1)],
                     *[(a * PHI, 0, b / PHI) for a in (-1, 1) for b in (-1, 1)]], float),
    "d20": np.array([*[(0, a, b * PHI) for a in (-1, 1) for b in (-1, 1)],
                     *[(a, b * PHI, 0) for a in (-1, 1) for b in (-1, 1)],
                     *[(a * PHI, 0, b) for a in (-1, 1) for b in (-1, 1)]], float),
}


@dataclass(frozen=True)
class Solid:
    """A convex die's geometry at unit size: the longest distance across it is 1."""

    kind: str
    vertices: np.ndarray
    """(V, 3) centred on the origin."""
    faces: tuple[np.ndarray, ...]
    """Per face, its vertex indices in order round the face (counter-clockwise seen from
    outside)."""
    normals: np.ndarray
    """(F, 3) outward unit normals."""

    @property
    def numbers(self) -> int:
        """The highest numeral on the die (d10: 0-9 printed, 10 faces)."""
        return {"d4": 4, "d6n": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}[self.kind]


def _hull_faces(v: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Faces of the convex hull of points ``v`` (all of them hull vertices): every plane
    through three of them with every point on one side, its coplanar points ordered."""
    eps = 1e-6 * float(np.abs(v).max())
    seen: set[frozenset[int]] = set()
    faces, normals = [], []
    centre = v.mean(axis=0)
    for i, j, k in itertools.combinations(range(len(v)), 3):
        n = np.cross(v[j] - v[i], v[k] - v[i])
        if np.linalg.norm(n) < eps:
            continue
        n = n / np.linalg.norm(n)
        d = (v - v[i]) @ n
        if d.max() > eps and d.min() < -eps:
            continue
        if (v[i] - centre) @ n < 0:
            n = -n
        on = frozenset(np.nonzero(np.abs(d) <= eps)[0].tolist())
        if on in seen:
            continue
        seen.add(on)
        idx = np.array(sorted(on))
        c = v[idx].mean(axis=0)
        u = v[idx[0]] - c
        u /= np.linalg.norm(u)
        w = np.cross(n, u)
        ang = np.arctan2((v[idx] - c) @ w, (v[idx] - c) @ u)
        faces.append(idx[np.argsort(ang)])
        normals.append(n)
    return faces, np.array(normals)


@cache
def solid(kind: str) -> Solid:
    """The geometry of ``kind`` (one of :data:`KINDS`), cached."""
    if kind not in _VERTICES:
        raise ValueError(f"unknown solid {kind!r}; the kinds are {', '.join(KINDS)}")
    v = _VERTICES[kind] - _VERTICES[kind].mean(axis=0)
    span = max(float(np.linalg.norm(a - b)) for a, b in itertools.combinations(v, 2))
    v = v / span
    faces, normals = _hull_faces(v)
    return Solid(kind, v, tuple(faces), normals)


def _rot_to(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The rotation taking unit vector ``a`` to unit vector ``b``."""
    v = np.cross(a, b)
    c = float(a @ b)
    if np.linalg.norm(v) < 1e-9:
        if c > 0:
            return np.eye(3)
        axis = np.array([1.0, 0, 0]) if abs(a[0]) < 0.9 else np.array([0, 1.0, 0])
        axis = axis - (axis @ a) * a
        axis /= np.linalg.norm(axis)
        return 2 * np.outer(axis, axis) - np.eye(3)
    k = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + k + k @ k / (1 + c)


@dataclass(frozen=True, slots=True)
class PolySpec:
    """One polyhedral die on the table."""

    kind: str
    x_mm: float
    y_mm: float
    size_mm: float = 20.0
    """Longest distance across the die."""
    yaw_deg: float = 0.0
    down: int = 0
    """Index of the face it rests on (modulo its faces)."""
    body_bgr: tuple[float, float, float] = (40.0, 40.0, 190.0)
    ink_bgr: tuple[float, float, float] = (235.0, 235.0, 235.0)
    style: str = "opaque"
    """One of :data:`STYLES`."""
    alpha: float = 1.0
    """Opacity of the body (translucent dice 0.45-0.8)."""
    font: int = 0
    """Index into the numeral fonts."""
    seed: int = 0
    """Which numeral each face carries."""
    z_mm: float = 0.0


def _posed(spec: PolySpec) -> tuple[np.ndarray, np.ndarray, Solid]:
    """World vertices (V, 3) and face normals (F, 3) of the die lying on face ``down``."""
    s = solid(spec.kind)
    down = spec.down % len(s.faces)
    rot = _rot_to(s.normals[down], np.array([0.0, 0.0, -1.0]))
    a = np.deg2rad(spec.yaw_deg)
    yaw = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    rot = yaw @ rot
    v = s.vertices @ rot.T * spec.size_mm
    v = v + np.array([spec.x_mm, spec.y_mm, spec.z_mm - v[:, 2].min()])
    return v, s.normals @ rot.T, s


def poly_outline(spec: PolySpec, cam) -> np.ndarray | None:
    """(K, 2) the die's silhouette in pixels (the convex hull of its projected vertices),
    None when any vertex lies behind the camera."""
    v, _, _ = _posed(spec)
    uv, depth = cam.project(v)
    if np.any(depth <= 0):
        return None
    return cv2.convexHull(uv.astype(np.float32)).reshape(-1, 2)


def poly_shadow(spec: PolySpec, light) -> np.ndarray:
    """(V, 3) the die's vertices cast on the table along the light (its shadow's hull)."""
    v, _, _ = _posed(spec)
    ldir = light.direction
    flat = v[:, :2] - v[:, 2:3] * ldir[:2] / max(ldir[2], 0.2)
    return np.column_stack([flat, np.zeros(len(v))])


def _numerals(spec: PolySpec, s: Solid) -> list[str]:
    """The numeral on each face: the die's numbers shuffled by its seed (a d10's 0-9 twice
    where it has more faces than numbers; a d4 carries three at its corners, handled by
    the caller)."""
    rng = np.random.default_rng(spec.seed)
    n = len(s.faces)
    if s.kind == "d10":
        nums = [str(k) for k in range(10)] if rng.random() < 0.7 else \
            [f"{k}0" if k else "00" for k in range(10)]
    elif s.kind == "d6n" and rng.random() < 0.4:  # a doubling cube
        nums = ["2", "4", "8", "16", "32", "64"]
    else:
        nums = [str(k + 1) for k in range(s.numbers)]
    nums = (nums * (n // len(nums) + 1))[:n]
    return [nums[i] for i in rng.permutation(n)]


def _face_texture(poly2d: np.ndarray, text: str, spec: PolySpec, tex: int,
                  corners: bool) -> tuple[np.ndarray, np.ndarray]:
    """(BGR float32 (tex, tex, 3), alpha (tex, tex)) of one face drawn in its own plane:
    ``poly2d`` (K, 2) the face in texture pixels; the numeral centred (a d4 face: one near
    each corner, pointing at it)."""
    body = np.asarray(spec.body_bgr, np.float32) / 255
    ink = np.asarray(spec.ink_bgr, np.float32) / 255
    img = np.empty((tex, tex, 3), np.float32)
    img[:] = body
    mask = np.zeros((tex, tex), np.uint8)
    cv2.fillPoly(mask, [np.round(poly2d * 8).astype(np.int32)], 255, cv2.LINE_AA, shift=3)
    ink_mask = np.zeros((tex, tex), np.uint8)
    font = _FONTS[spec.font % len(_FONTS)]
    c = poly2d.mean(axis=0)
    inner = float(np.min(np.linalg.norm(poly2d - c, axis=1)))
    if corners:
        labels = text.split(",")
        for k, p in enumerate(poly2d):
            at = c + (p - c) * 0.55
            _put(ink_mask, labels[k % len(labels)], at, inner * 0.45, font, p - c)
    else:
        height = inner * (0.75 if len(text) == 1 else 0.6)
        _put(ink_mask, text, c, height, font, None)
        if text in ("6", "9"):  # the underline that tells them apart
            w = height * 0.45
            y = c[1] + height * 0.62
            cv2.line(ink_mask, (int(c[0] - w / 2), int(y)), (int(c[0] + w / 2), int(y)), 255,
                     max(1, int(height / 9)), cv2.LINE_AA)
    a = ink_mask.astype(np.float32)[..., None] / 255
    out: np.ndarray = img * (1 - a) + ink * a
    return out, mask.astype(np.float32) / 255


def _put(mask: np.ndarray, text: str, at: np.ndarray, height: float, font: int,
         up: np.ndarray | None) -> None:
    """Print ``text`` centred at ``at``, its caps ``height`` px tall, its top towards ``up``
    (None: upright in the texture)."""
    scale = max(0.2, height / 22.0)
    thick = max(1, int(round(height / 7)))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    size = mask.shape[0]
    layer = np.zeros_like(mask)
    cv2.putText(layer, text, (int(at[0] - tw / 2), int(at[1] + th / 2)), font, scale, 255,
                thick, cv2.LINE_AA)
    if up is not None:
        angle = float(np.degrees(np.arctan2(up[0], -up[1])))
        m = cv2.getRotationMatrix2D((float(at[0]), float(at[1])), -angle, 1.0)
        layer = cv2.warpAffine(layer, m, (size, size))
    np.maximum(mask, layer, out=mask)


def draw_poly(img: np.ndarray, spec: PolySpec, cam, light) -> None:
    """Draw the die into ``img`` ((H, W, 3) float32 BGR in [0, 1], in place): far faces
    first, each textured, lit and composited with the body's opacity."""
    v, normals, s = _posed(spec)
    uv, depth = cam.project(v)
    if np.any(depth <= 0):
        return
    h_img, w_img = img.shape[:2]
    x0, y0 = np.floor(uv.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(uv.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w_img), min(y1, h_img)
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    _, eye = cam.extrinsics()
    ldir = light.direction
    texts = _numerals(spec, s)
    span = float(np.ptp(uv, axis=0).max())
    tex = int(np.clip(2 ** np.ceil(np.log2(max(span, 8) * 1.2)), 32, 128))
    order = sorted(range(len(s.faces)),
                   key=lambda f: -float(np.linalg.norm(v[s.faces[f]].mean(axis=0) - eye)))
    see_through = spec.style == "translucent"
    for f in order:
        idx = s.faces[f]
        n = normals[f]
        c = v[idx].mean(axis=0)
        view = eye - c
        front = float(n @ view) > 0
        if not front and not see_through:
            continue
        # The face's own plane: texture pixels from a frame on it.
        u_ax = v[idx[0]] - c
        u_ax /= np.linalg.norm(u_ax)
        w_ax = np.cross(u_ax, n)  # (u, w) as the face is seen from outside: unmirrored
        local = np.column_stack([(v[idx] - c) @ u_ax, (v[idx] - c) @ w_ax])
        r = float(np.abs(local).max()) * 1.05
        poly2d = (local / r * 0.5 + 0.5) * tex
        corners = s.kind == "d4"
        text = ",".join(texts[(f + k) % len(texts)] for k in range(3)) if corners \
            else texts[f]
        face, mask = _face_texture(poly2d, text, spec, tex, corners)
        lam = max(0.0, float(n @ ldir))
        if spec.style == "metal":
            shade = 0.35 + 0.45 * lam
        else:
            shade = light.ambient + (1 - light.ambient) * lam
        if not front:
            shade *= 0.55  # a far face seen through the body: dimmed by it
        face *= shade
        vn = view / np.linalg.norm(view)
        half = (ldir + vn) / np.linalg.norm(ldir + vn)
        gloss = {"metal": (0.9, 24), "pearl": (0.35, 6), "translucent": (0.6, 16)}.get(
            spec.style, (0.4, 10))
        spec_k = gloss[0] * max(0.0, float(n @ half)) ** gloss[1] if front else 0.0
        face = face + spec_k * (1 - face)
        # texture (u, w) -> image: the plane's homography from four points on it
        sq = np.array([[0, 0], [tex, 0], [tex, tex], [0, tex]], np.float32)
        world = c + ((sq[:, :1] / tex - 0.5) * 2 * r) * u_ax + ((sq[:, 1:] / tex - 0.5) * 2 * r) \
            * w_ax
        dst = (cam.project(world)[0] - [x0, y0]).astype(np.float32)
        hmat = cv2.getPerspectiveTransform(sq, dst)
        size = (x1 - x0, y1 - y0)
        warped = cv2.warpPerspective(face, hmat, size, flags=cv2.INTER_LINEAR)
        a = cv2.warpPerspective(mask, hmat, size, flags=cv2.INTER_LINEAR)[..., None]
        if see_through:
            # what lies behind shows through the body, filtered by its colour
            a = a * spec.alpha
            tint = 0.35 + 0.65 * np.asarray(spec.body_bgr, np.float32) / 255
            roi *= 1 - a * (1 - tint)
            roi *= 1 - a
            roi += warped * a
        else:
            roi *= 1 - a
            roi += warped * a
