"""Dice that lie in slots, read slot by slot (calibration.table.slot_dice): a rendered
Pyradice table, its quarry's three stacked layers and the players' boards."""

from __future__ import annotations

import random

import numpy as np
import pytest

from calibration.table.reader import TableReader
from device.simtable import SimParams, SimulatedTable
from device.simulate import object_diff
from engine import get_game
from engine.observation import View


@pytest.fixture(scope="module")
def table() -> tuple[SimulatedTable, TableReader]:
    t = SimulatedTable("pyradice", 2, 0, SimParams())
    reader = t.observer()
    assert isinstance(reader, TableReader)
    return t, reader


def _read(t: SimulatedTable, reader: TableReader, view: View, seed: int) -> dict:
    t.renderer.place(view, thrown=False)
    reader.expect(view)
    return object_diff(reader.observe(t.renderer.render_still(view, seed=seed), seed), view)


def test_the_quarry_reads_as_its_uncovered_dice(table: tuple) -> None:
    """As set up, only the top layer's 9 dice are uncovered; the dice round them show most
    of their top faces and are not reported (the rules list no covered die)."""
    t, reader = table
    view = t.truth.game.expected_view(t.truth.state)
    reader.expect(view)
    obs = reader.observe(t._image, 0)
    dice = sorted((o.slot, o.top("face"), o.top("colour")) for o in obs.objects)
    assert dice == sorted((e.slot, e.attr("face"), e.attr("colour")) for e in view)
    assert len(dice) == 9 and all(s.startswith("L3-") for s, _, _ in dice)


def test_moves_taking_dice_and_turning_them_read_as_the_table(table: tuple) -> None:
    """Twenty random turns (dice taken from every layer, skills turning dice on the boards):
    each table reads exactly as its state, nothing extra and nothing missing."""
    t, reader = table
    game, rng = get_game("pyradice"), random.Random(5)
    state = t.truth.state
    for k in range(20):
        state = game.apply(state, game.random_action(state, rng))[0]
        diff = _read(t, reader, game.expected_view(state), k + 1)
        assert diff == {"extra": [], "missing": []}, (k, diff)


def test_a_slot_believed_empty_is_not_read(table: tuple) -> None:
    """An empty slot of an upper layer shows the dice below it, which can look like one die
    (four of one colour); the quarry only loses dice, so a slot the match believes empty is
    not read even when the picture shows a die there."""
    t, reader = table
    game = get_game("pyradice")
    state = game.apply(t.truth.state, game.parse_action("take L3-1 to 1-1"))[0]
    before = game.expected_view(t.truth.state)
    after = game.expected_view(state)
    t.renderer.place(before, thrown=False)
    image = t.renderer.render_still(before, seed=40)  # L3-1 still there
    reader.gate.readings.clear()
    reader.expect(after)  # the match believes it taken
    obs = reader.observe(image, 40)
    assert "L3-1" not in {o.slot for o in obs.objects}
    reader.gate.readings.clear()
    reader.expect(before)
    assert "L3-1" in {o.slot for o in reader.observe(image, 41).objects}


def test_renderer_stacks_dice_on_the_dice_below() -> None:
    """A die of an upper layer is drawn on four dice (those the view leaves out as covered
    are drawn too), in its slot, one die higher per layer."""
    t = SimulatedTable("pyradice", 2, 1, SimParams())
    placed = {e.slot: (x, y) for e, x, y, _, _ in t.renderer.placement.dice}
    supports = {e.slot for e, *_ in t.renderer._supports()}
    layout = t.renderer.layout
    slots = {s.id: s for s in layout.zone("quarry").slots}
    assert all(k.startswith("L3-") for k in placed)
    assert supports == {s for s in slots if not s.startswith("L3-")}  # 25 + 16 under 9
    for sid, (x, y) in placed.items():
        assert np.hypot(x - slots[sid].centre[0], y - slots[sid].centre[1]) < 1.0


@pytest.mark.parametrize("m", [24, 25, 8])
def test_a_squares_quarter_medians_are_each_quarters_own(m: int) -> None:
    """The four quarters' medians taken at once are those of each quarter on its own."""
    from calibration.table.slot_dice import _quarter_medians

    rng = np.random.default_rng(m)
    for _ in range(20):
        grid = rng.normal(50, 30, (m, m, 3)).astype(np.float32)
        h = m // 2
        own = [np.median(grid[ys, xs].reshape(-1, 3), axis=0)
               for ys, xs in ((slice(0, h), slice(0, h)), (slice(0, h), slice(h, m)),
                              (slice(h, m), slice(0, h)), (slice(h, m), slice(h, m)))]
        assert np.array_equal(_quarter_medians(grid), np.array(own))
