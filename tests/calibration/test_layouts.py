"""Shipped layouts: load, are consistent (zones inside the mat, slots inside their zone, no
marker in a zone), use the engine's zone and slot names, and never share a marker id."""

from __future__ import annotations

import json

import pytest

from calibration.layouts import (
    LayoutError,
    all_layouts,
    available,
    contains,
    game_name,
    layout_to_dict,
    load_layout,
    parse_layout,
)
from engine.games.pyradice import pyramid as pyradice_pyramid

LAYOUTS = all_layouts()


def _inside(poly, outer) -> bool:
    return all(contains(outer, p) or p in outer for p in poly) and all(
        min(q[0] for q in outer) - 1e-6 <= p[0] <= max(q[0] for q in outer) + 1e-6
        and min(q[1] for q in outer) - 1e-6 <= p[1] <= max(q[1] for q in outer) + 1e-6
        for p in poly)


def test_every_game_has_mats() -> None:
    got = available()
    assert set(got) == {"icedice", "pyramid_dice", "pyradice", "quarriors"}
    assert got["pyramid_dice"] == (1, 2, 3, 4, 5)
    # IceDice has no player limit (icedice.number_of_players: 'Number of Players: 2
    # (although more can play if you have extra pyramids)'); its mats seat up to 6
    assert got["icedice"] == (2, 3, 4, 5, 6)
    assert all(2 in counts for g, counts in got.items())


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda lay: lay.key)
def test_layout_is_consistent(layout) -> None:
    w, h = layout.size_mm
    mat = ((0, 0), (w, 0), (w, h), (0, h))
    names = [z.name for z in layout.zones]
    assert len(names) == len(set(names))
    for zone in layout.zones:
        assert _inside(zone.polygon, mat), zone.name
        ids = [s.id for s in zone.slots]
        assert len(ids) == len(set(ids))
        for slot in zone.slots:
            assert _inside(slot.polygon, zone.polygon), (zone.name, slot.id)
            assert layout.locate(slot.centre)[0] == zone.name
    for m in layout.markers:
        assert _inside(m.corners(), mat)
        # markers live in the border: no die in a zone ever hides one
        assert all(layout.locate(c) == (None, None) for c in m.corners())
    assert len(layout.markers) >= 8


def test_marker_ids_unique_across_mats() -> None:
    seen: dict[int, str] = {}
    for layout in LAYOUTS:
        for mid in layout.marker_ids():
            assert mid not in seen, f"{layout.key} and {seen[mid]} share marker {mid}"
            seen[mid] = layout.key
        assert len(layout.marker_ids()) == len(layout.markers)
    assert max(seen) < 1000  # DICT_4X4_1000


def test_zone_names_are_the_engines() -> None:
    ice = load_layout("icedice", 3)
    assert {z.name for z in ice.zones} == {"rolling", "bank", "counter", "vault:0", "vault:1",
                                           "vault:2"}
    pyr = load_layout("pyramid_dice", 4)
    assert {z.name for z in pyr.zones} == {"rolling", "pyramid", "side", "area:0", "area:1",
                                           "area:2", "area:3"}
    slots = [s.id for s in pyr.zone("pyramid").slots]
    assert len(slots) == 28 and {"r1c1", "r7c7", "r4c2"} <= set(slots)
    layout_json = json.loads(
        (__import__("pathlib").Path(__file__).parents[2] / "engine/games/pyramid_dice/data/"
         "default_layout.json").read_text(encoding="utf-8"))
    assert sorted(slots) == sorted(s["slot"] for s in layout_json["slots"])
    rad = load_layout("pyradice", 2)
    assert {z.name for z in rad.zones} == {"quarry", "board:0", "board:1"}
    assert sorted(s.id for s in rad.zone("board:1").slots) == sorted(pyradice_pyramid.NAMES)
    qua = load_layout("quarriors", 4)
    assert {z.name for z in qua.zones} == {"wilds"} | {
        f"{k}:{p}" for k in ("active", "ready", "spent", "used") for p in range(4)}


def test_pyramid_apex_is_far_and_slots_overlap_like_cards() -> None:
    pyr = load_layout("pyramid_dice").zone("pyramid")
    by = {s.id: s for s in pyr.slots}
    assert by["r1c1"].centre[1] < by["r7c1"].centre[1]
    # a point in the overlap of r6c1 and r7c1 belongs to the front card (r7c1)
    c6, c7 = by["r6c1"], by["r7c1"]
    top7 = min(p[1] for p in c7.polygon)
    x = (max(min(p[0] for p in c6.polygon), min(p[0] for p in c7.polygon)) + 3)
    assert pyr.slot_at((x, top7 + 2)) in ("r7c1", "r6c1")
    assert pyr.slot_at((c7.centre[0], top7 + 25)) == "r7c1"


def test_far_players_boards_face_them() -> None:
    rad = load_layout("pyradice", 4)
    near, far = rad.zone("board:0"), rad.zone("board:3")
    lv1 = {s.id: s.centre for s in near.slots}
    assert lv1["1-1"][1] > lv1["6-1"][1]  # level 1 nearest the near player (bottom)
    lv3 = {s.id: s.centre for s in far.slots}
    assert lv3["1-1"][1] < lv3["6-1"][1]  # turned round for the far player
    assert lv3["1-1"][0] > lv3["1-6"][0]  # and index 1 at their left


def test_json_round_trip_and_errors() -> None:
    lay = load_layout("quarriors", 3)
    assert parse_layout(layout_to_dict(lay)) == lay
    with pytest.raises(LayoutError, match="format"):
        parse_layout({"format": "x"})
    bad = layout_to_dict(lay)
    del bad["zones"][0]["polygon"]
    with pytest.raises(LayoutError, match="missing or malformed"):
        parse_layout(bad)
    with pytest.raises(LayoutError, match="unknown game 'chess'"):
        game_name("chess")
    with pytest.raises(LayoutError, match="mats exist for 2, 3, 4"):
        load_layout("icedice", 9)
    assert game_name("Pyramid-Dice") == "pyramid_dice"
    assert load_layout("ice-dice").players == 2


def test_later_mats_leave_the_earlier_marker_ids_alone() -> None:
    """The IceDice mats for 5 and 6 players came later: their marker blocks follow every earlier
    mat's, whose printed markers (and calibrated profiles) keep their ids."""
    first = {"icedice-2": 0, "icedice-3": 40, "icedice-4": 80, "pyramid_dice-1": 120,
             "pyradice-2": 320, "quarriors-4": 520}
    for key, low in first.items():
        game, _, n = key.rpartition("-")
        assert min(load_layout(game, int(n)).marker_ids()) == low
    for n in range(5, 7):
        ice = load_layout("icedice", n)
        assert min(ice.marker_ids()) == 560 + 40 * (n - 5)
        assert {z.name for z in ice.zones} == {"rolling", "bank", "counter"} | {
            f"vault:{p}" for p in range(n)}
        # each Vault has at least the room of the 4-player mat's (pyramids up to 25 mm)
        assert min(_area(z.polygon) for z in ice.zones if z.name.startswith("vault:")) \
            >= _area(load_layout("icedice", 4).zone("vault:0").polygon)


def _area(poly) -> float:  # type: ignore[no-untyped-def]
    xs, ys = [p[0] for p in poly], [p[1] for p in poly]
    return (max(xs) - min(xs)) * (max(ys) - min(ys))
