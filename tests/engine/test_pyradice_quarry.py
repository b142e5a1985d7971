"""The Pyradice quarry's geometry: which dice rest on which, which faces are visible, which
dice are available, for the default shapes and for shapes the players configure."""

from __future__ import annotations

import random

import pytest

from engine.games.pyradice import quarry as qy

DEFAULT_2P = "5x5,4x4,3x3"
DEFAULT_34P = "7x6,6x5,5x4"


def full(geo: qy.Geometry) -> list[list[bool]]:
    return [[True] * len(layer) for layer in geo.names]


def frozen(present: list[list[bool]]) -> tuple[tuple[bool, ...], ...]:
    return tuple(tuple(row) for row in present)


def names(geo: qy.Geometry, positions: list[tuple[int, int]]) -> set[str]:
    return {geo.names[k][i] for k, i in positions}


@pytest.mark.parametrize("dims, size, start", [
    (DEFAULT_2P, 50, {"L3-1", "L3-3", "L3-7", "L3-9"}),
    (DEFAULT_34P, 92, {"L3-1", "L3-4", "L3-17", "L3-20"}),
    ("4x4,3x3,2x2", 29, {"L3-1", "L3-2", "L3-3", "L3-4"}),
    ("6x4,5x3,4x2", 47, {"L3-1", "L3-2", "L3-7", "L3-8"}),
    # a layer inset by more than half a die leaves the corners below it uncovered
    ("7x7,4x4,1x1", 66, {"L3-1", "L2-1", "L2-4", "L2-13", "L2-16", "L1-1", "L1-7", "L1-43",
                         "L1-49"}),
])
def test_sizes_and_first_choices(dims: str, size: int, start: set[str]) -> None:
    geo = qy.geometry(qy.parse_dims(dims))
    assert geo.size == size
    assert names(geo, qy.available(geo, frozen(full(geo)))) == start


def test_centred_layers_rest_on_the_middle() -> None:
    # 7x7 under 4x4: offset (7 - 1 - 4) / 2 = 1 row and 1 column
    geo = qy.geometry(qy.parse_dims("7x7,4x4,1x1"))
    assert [geo.names[0][u] for u in geo.below[1][0]] == ["L1-9", "L1-10", "L1-16", "L1-17"]
    assert [geo.names[1][u] for u in geo.below[2][0]] == ["L2-6", "L2-7", "L2-10", "L2-11"]
    # bottom dice outside the upper layer's footprint carry nothing
    assert geo.above[0][0] == () and len(geo.above[0][8]) == 1 and len(geo.above[0][16]) == 4


def test_neighbours_cover_sides() -> None:
    geo = qy.geometry(qy.parse_dims(DEFAULT_2P))
    present = full(geo)
    present[2][0] = False  # L3-1 taken: L3-2 and L3-4 lose a neighbour, L2-1 its cover
    p = frozen(present)
    assert qy.visible_faces(geo, p, 2, 1) == 3 and qy.visible_faces(geo, p, 2, 3) == 3
    assert qy.visible_faces(geo, p, 1, 0) == 3  # top and two outer sides
    assert qy.visible_faces(geo, p, 1, 1) == 1  # still under L3-2: one outer side only
    assert names(geo, qy.available(geo, p)) == {"L3-2", "L3-3", "L3-4", "L3-7", "L3-9",
                                                "L2-1"}


def test_a_lone_row_is_all_available() -> None:
    geo = qy.geometry(qy.parse_dims(DEFAULT_2P))
    present = [[False] * len(layer) for layer in geo.names]
    for i in range(5):
        present[0][i] = True  # the first row of the bottom layer
    assert len(qy.available(geo, frozen(present))) == 5  # top, front, back (+ an end)


@pytest.mark.parametrize("dims", [DEFAULT_2P, DEFAULT_34P, "6x4,5x3,4x2"])
def test_random_emptying_keeps_the_quarry_standing(dims: str) -> None:
    """Taking available dice in any order: there is always one while dice remain, and a die
    that carries another is never available (so no die is left unsupported)."""
    geo = qy.geometry(qy.parse_dims(dims))
    rng = random.Random(dims)
    for _ in range(20):
        present = full(geo)
        for _ in range(geo.size):
            p = frozen(present)
            assert qy.supported(geo, p)
            options = qy.available(geo, p)
            assert options
            for k, i in options:
                assert not any(k + 1 < 3 and p[k + 1][a] for a in geo.above[k][i])
            k, i = rng.choice(options)
            present[k][i] = False
        assert not any(any(row) for row in present)


@pytest.mark.parametrize("text, message", [
    ("5x5,4x4", "3 layers"),
    ("5x5,4x4,3x3,2x2", "3 layers"),
    ("5x5,four,3x3", "ROWSxCOLS"),
    ("0x5,4x4,3x3", "ROWSxCOLS"),
    ("5x5,4x4,4x4", "cannot rest centred"),
    ("5x5,4x3,3x2", "cannot rest centred"),
    ("5x5,4x4,2x2", "cannot rest centred"),
])
def test_bad_shapes(text: str, message: str) -> None:
    with pytest.raises(qy.QuarryError, match=message):
        qy.parse_dims(text)


def test_slot_names() -> None:
    geo = qy.geometry(qy.parse_dims(DEFAULT_2P))
    assert geo.index("L1-1") == (0, 0) and geo.index("L3-9") == (2, 8)
    assert geo.index("L3-10") is None and geo.index("L4-1") is None and geo.index("x") is None
