"""The quarry: three layers of dice on a grid, each upper die resting on 4 dice below.

Geometry (INFERRED from the rulebook; the pictures are missing): a layer is a ROWS x COLS
grid of dice that touch side by side; an upper layer is centred on the one below, so its die
at (r, c) rests on the four dice (r+dr, c+dc), (r+dr+1, c+dc), (r+dr, c+dc+1),
(r+dr+1, c+dc+1) where dr, dc are half the size difference minus one. A die has five faces
that can count: the top and four sides (the bottom face never counts). A side is covered by
the die next to it in the same layer; the top is covered as soon as any die rests on it (a
partly covered face counts as covered). A die is *available* when at least 3 of these faces
are uncovered; the camera sees the dice whose top is uncovered.

A die that another die rests on is never available: of the four dice under an upper die,
each has two of the others as neighbours, so the first of them to go would have at most
two visible sides and a covered top.

Slots are named ``L{layer}-{index}``: layer 1 is the bottom, index counts from 1 along the
rows (row-major, the quarry board seen with its first row at the top).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engine.games.pyradice.errors import QuarryError

Dims = tuple[tuple[int, int], ...]
_LAYER = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


@lru_cache(maxsize=64)
def parse_dims(text: str) -> Dims:
    """``"5x5,4x4,3x3"`` → ((5, 5), (4, 4), (3, 3)), checked.

    Raises:
        QuarryError: not three layers, or an upper layer that cannot rest centred on the
            layer below (each upper die on 4 dice).
    """
    parts = str(text).split(",")
    dims = []
    for part in parts:
        m = _LAYER.match(part)
        if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
            raise QuarryError(f"quarry layer {part.strip()!r} is not ROWSxCOLS (e.g. 5x5)")
        dims.append((int(m.group(1)), int(m.group(2))))
    if len(dims) != 3:
        raise QuarryError(f"the quarry has 3 layers, not {len(dims)} ({text!r})")
    for (r0, c0), (r1, c1) in zip(dims, dims[1:], strict=False):
        for below, above, what in ((r0, r1, "rows"), (c0, c1, "columns")):
            if above > below - 1 or (below - 1 - above) % 2:
                raise QuarryError(
                    f"quarry {text!r}: a layer of {above} {what} cannot rest centred on one "
                    f"of {below} (each die rests on 4 dice: at most {below - 1}, and "
                    f"{below - 1} minus an even number)")
    return tuple(dims)


@dataclass(frozen=True, slots=True, eq=False)
class Geometry:
    """Precomputed neighbourhoods of one quarry shape (positions are (layer, index), 0-based).

    Attributes:
        dims: (rows, cols) per layer, bottom first.
        names: slot name per layer and index.
        sides: per position, the same-layer positions touching its 4 sides (-1: the edge).
        above: per position, the upper-layer positions resting on it.
        below: per position, the 4 lower positions it rests on (empty on the bottom layer).

    One value per shape (``geometry`` is cached), compared and hashed by identity: it keys
    the availability caches, and hashing its tables anew on every lookup was costly.
    """

    dims: Dims
    names: tuple[tuple[str, ...], ...]
    sides: tuple[tuple[tuple[int, ...], ...], ...]
    above: tuple[tuple[tuple[int, ...], ...], ...]
    below: tuple[tuple[tuple[int, ...], ...], ...]

    @property
    def size(self) -> int:
        return sum(r * c for r, c in self.dims)

    def index(self, slot: str) -> tuple[int, int] | None:
        """The position of a slot name, or None when the quarry has no such slot."""
        return _positions(self.dims).get(slot)


@lru_cache(maxsize=16)
def _positions(dims: Dims) -> dict[str, tuple[int, int]]:
    return {name: (k, i) for k, layer in enumerate(geometry(dims).names)
            for i, name in enumerate(layer)}


_PRESENT: dict[int, tuple[object, tuple[tuple[bool, ...], ...]]] = {}


def presence(quarry: tuple[tuple[object, ...], ...]) -> tuple[tuple[bool, ...], ...]:
    """Which slots still hold a die (cached by the quarry tuple's identity: every check
    of one state asks again)."""
    hit = _PRESENT.get(id(quarry))
    if hit is None or hit[0] is not quarry:
        if len(_PRESENT) > 512:
            _PRESENT.clear()
        hit = _PRESENT[id(quarry)] = (quarry, tuple(tuple(d is not None for d in layer)
                                                    for layer in quarry))
    return hit[1]


@lru_cache(maxsize=16)
def geometry(dims: Dims) -> Geometry:
    names, sides, above, below = [], [], [], []
    for k, (rows, cols) in enumerate(dims):
        names.append(tuple(f"L{k + 1}-{i + 1}" for i in range(rows * cols)))
        layer_sides = []
        for r in range(rows):
            for c in range(cols):
                layer_sides.append(tuple(
                    rr * cols + cc if 0 <= rr < rows and 0 <= cc < cols else -1
                    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))))
        sides.append(tuple(layer_sides))
        ups: list[list[int]] = [[] for _ in range(rows * cols)]
        downs: list[tuple[int, ...]] = [() for _ in range(rows * cols)]
        below.append(downs)
        above.append(ups)
    for k in range(1, len(dims)):
        (r0, c0), (r1, c1) = dims[k - 1], dims[k]
        dr, dc = (r0 - 1 - r1) // 2, (c0 - 1 - c1) // 2
        for r in range(r1):
            for c in range(c1):
                under = tuple((r + dr + a) * c0 + (c + dc + b) for a in (0, 1) for b in (0, 1))
                below[k][r * c1 + c] = under
                for u in under:
                    above[k - 1][u].append(r * c1 + c)
    return Geometry(dims, tuple(names), tuple(sides),
                    tuple(tuple(tuple(a) for a in layer) for layer in above),
                    tuple(tuple(layer) for layer in below))


def visible_faces(geo: Geometry, present: tuple[tuple[bool, ...], ...], layer: int,
                  i: int) -> int:
    """How many of a die's faces count as visible: the top (uncovered when no die rests on
    it) and each side with no die next to it. The bottom face never counts."""
    row = present[layer]
    top = 0 if layer + 1 < len(present) and any(
        present[layer + 1][a] for a in geo.above[layer][i]) else 1
    return top + sum(1 for s in geo.sides[layer][i] if s < 0 or not row[s])


def top_uncovered(geo: Geometry, present: tuple[tuple[bool, ...], ...], layer: int,
                  i: int) -> bool:
    return not (layer + 1 < len(present) and any(
        present[layer + 1][a] for a in geo.above[layer][i]))


def available(geo: Geometry, present: tuple[tuple[bool, ...], ...]) -> list[tuple[int, int]]:
    """Every present die with at least 3 visible faces, bottom layer first."""
    return list(_available(geo, present))


@lru_cache(maxsize=1024)
def available_set(geo: Geometry, present: tuple[tuple[bool, ...], ...]
                  ) -> frozenset[tuple[int, int]]:
    return frozenset(_available(geo, present))


@lru_cache(maxsize=1024)
def _available(geo: Geometry, present: tuple[tuple[bool, ...], ...]
               ) -> tuple[tuple[int, int], ...]:
    return tuple((k, i) for k, row in enumerate(present) for i, here in enumerate(row)
                 if here and visible_faces(geo, present, k, i) >= 3)


def supported(geo: Geometry, present: tuple[tuple[bool, ...], ...]) -> bool:
    """Every die above the bottom layer rests on 4 dice (RULES pyradice.rests_on_four)."""
    return all(all(present[k - 1][u] for u in geo.below[k][i])
               for k in range(1, len(present)) for i, here in enumerate(present[k]) if here)
