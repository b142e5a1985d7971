"""Procedural table surfaces for wild training scenes: one registry of kinds.

Every kind is a function ``draw(h, w, mm_per_px, rng) -> (h, w, 3) uint8 BGR`` whose
features are sized in millimetres, so the same kind is right at any resolution: 1 px/mm or
finer for a close view, coarser only when the camera itself sees less than that (a tiny die
in a wide view; the texture would be averaged away by the camera anyway). The kinds live in
:mod:`vision.synth.surfaces_cloth`, :mod:`vision.synth.surfaces_hard` and
:mod:`vision.synth.surfaces_trays`;
:data:`SURFACE_KINDS` lists them all with how often a wild scene picks each.

Why these: the reader, trained on plain rendered tables, boxed carpet tufts, the white
dashes of black-and-white upholstery and polka dots as dice, and missed dice in trays,
bowls and on a grey wood-look floor.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vision.synth import surfaces_cloth as cloth
from vision.synth import surfaces_hard as hard
from vision.synth import surfaces_trays as trays

logger = logging.getLogger(__name__)

Draw = Callable[[int, int, float, np.random.Generator], np.ndarray]


@dataclass(frozen=True, slots=True)
class SurfaceKind:
    """One kind of table surface."""

    name: str
    draw: Draw
    """``draw(h, w, mm_per_px, rng)`` -> (h, w, 3) uint8 BGR."""
    weight: float = 1.0
    """Relative frequency in wild scenes."""
    floor: float = 1.0
    """Half-extent of the part dice may lie on, as a share of the surface's half-extent
    (a tray's floor: :data:`vision.synth.surfaces_trays.TRAY_FLOOR`; 1: all of it)."""


SURFACE_KINDS: tuple[SurfaceKind, ...] = (
    SurfaceKind("carpet_loop", cloth.carpet_loop, 1.5),
    SurfaceKind("carpet_cut", cloth.carpet_cut, 1.5),
    SurfaceKind("rug_pattern", cloth.rug_pattern, 1.0),
    SurfaceKind("knit", cloth.knit, 1.0),
    SurfaceKind("woven", cloth.woven, 1.5),
    SurfaceKind("polka_dots", cloth.polka_dots, 1.0),
    SurfaceKind("checks", cloth.checks, 0.8),
    SurfaceKind("mesh_bag", cloth.mesh_bag, 0.8),
    SurfaceKind("felt", cloth.felt, 0.8),
    SurfaceKind("mouse_pad", cloth.mouse_pad, 0.6),
    SurfaceKind("wood", hard.wood, 1.5),
    SurfaceKind("planks", hard.planks, 1.0),
    SurfaceKind("vinyl_floor", hard.vinyl_floor, 1.2),
    SurfaceKind("paper", hard.paper, 0.8),
    SurfaceKind("graph_paper", hard.graph_paper, 0.8),
    SurfaceKind("printed_paper", hard.printed_paper, 0.6),
    SurfaceKind("paper_on_desk", hard.paper_on_desk, 0.8),
    SurfaceKind("circuit_board", hard.circuit_board, 0.7),
    SurfaceKind("tiles", hard.tiles, 0.6),
    SurfaceKind("stone", hard.stone, 0.6),
    SurfaceKind("tray", trays.tray, 1.2, trays.TRAY_FLOOR),
    SurfaceKind("bowl", trays.bowl, 1.0, trays.TRAY_FLOOR),
)
"""Every surface kind, in a fixed order (seeded draws depend on it: append, never reorder)."""

_BY_NAME = {k.name: k for k in SURFACE_KINDS}


def surface_kind(name: str) -> SurfaceKind:
    """The registered kind called ``name``.

    Raises:
        KeyError: no such kind (the message lists them).
    """
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown surface kind {name!r}; kinds: {', '.join(_BY_NAME)}") from None


def pick_surface_kind(rng: np.random.Generator, names: tuple[str, ...] | None = None
                      ) -> SurfaceKind:
    """A kind drawn by weight from ``names`` (default: all of :data:`SURFACE_KINDS`)."""
    kinds = SURFACE_KINDS if names is None else tuple(surface_kind(n) for n in names)
    p = np.array([k.weight for k in kinds], np.float64)
    return kinds[int(rng.choice(len(kinds), p=p / p.sum()))]


def draw_surface(name: str, h: int, w: int, mm_per_px: float, rng: np.random.Generator
                 ) -> np.ndarray:
    """(h, w, 3) uint8 BGR surface of kind ``name`` at ``mm_per_px`` millimetres a pixel."""
    img = surface_kind(name).draw(h, w, mm_per_px, rng)
    if img.shape != (h, w, 3) or img.dtype != np.uint8:
        raise ValueError(f"surface {name} drew {img.shape} {img.dtype}, not ({h}, {w}, 3) uint8")
    return img
