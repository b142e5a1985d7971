"""The arm's side (device.observer_hands) found from pixels: rendered tables with an arm
from a known edge, and the simulated table's seats (each arm from its player's edge)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from device.observer_hands import HandSide
from device.simtable import RENDER_SIDE, SimParams, SimulatedTable
from vision.settle import Settler


@pytest.fixture(scope="module")
def rendered() -> tuple[object, np.ndarray]:
    table = SimulatedTable("pyramid_dice", 2, 5, SimParams(max_moves=1))
    assert table.renderer is not None
    return table.renderer, table._render(table._scene.view)


def _side(frames: list[np.ndarray], still: np.ndarray) -> tuple[str | None, float]:
    small = Settler().small
    hands = HandSide()
    hands.settled(small(still))
    for frame in frames:
        hands.feed(small(frame))
    return hands.side()


@pytest.mark.parametrize("edge", ["bottom", "left", "top", "right"])
def test_an_arm_is_found_at_the_edge_it_comes_from(rendered, edge: str) -> None:  # type: ignore[no-untyped-def]
    renderer, still = rendered
    for seed in range(3):
        film = [renderer.with_hand(still, min(i, 9 - i) / 5, RENDER_SIDE[edge], seed + i % 3)
                for i in range(10)]
        found, sure = _side(film, still)
        assert found == edge and sure >= 0.9, (seed, found, sure)


def test_no_arm_or_arms_from_two_sides_tell_no_side(rendered) -> None:  # type: ignore[no-untyped-def]
    renderer, still = rendered
    lit = [cv2.convertScaleAbs(still, alpha=a) for a in (0.85, 0.9, 1.1)]
    assert _side(lit, still) == (None, 0.0)  # only the light changed
    two = [renderer.with_hand(still, 0.6, RENDER_SIDE[e], 7) for e in ("bottom", "top") * 3]
    assert _side(two, still)[1] < 0.7  # below Params.side_confidence: not used


def test_the_simulated_players_arms_come_from_their_seats() -> None:
    """The simulated table (rendered frames) draws each move's arm from the seat of the
    player who makes it; the settler and the hand's side, fed its frames as the runtime
    does, find that seat at nearly every reading."""
    table = SimulatedTable("pyramid_dice", 2, 1, SimParams(max_moves=25))
    assert table.seats == ("bottom", "top")
    settler, hands = Settler(), HandSide()
    told = readings = 0
    while (frame := table.read()) is not None:
        ready = settler.update(frame.image)
        if settler.state.value == "moving":
            hands.feed(settler.last_small)  # type: ignore[arg-type]
        if not ready:
            continue
        seat = table.scenes_at[frame.seq].seat
        assert seat is None or seat in table.seats  # (left and right are nobody's)
        if hands.reference is not None and seat is not None:
            edge, sure = hands.side()
            readings += 1
            told += edge == seat and sure >= 0.7
            assert edge == seat or sure < 0.7, (frame.seq, edge, sure, seat)  # never sure and wrong
        settler.accept(frame.image)
        hands.settled(settler.last_small)  # type: ignore[arg-type]
    assert readings >= 20 and told >= 0.9 * readings, (told, readings)


def test_the_runtime_gives_the_side_and_the_seats_to_the_reconciler() -> None:
    """Through the live loop (noise observer: abstract frames, the arm an ellipse from the
    seat's edge): each reading's observation carries the edge the arm came from, and the
    match's seats are the record's."""
    from device.matches.service import MatchService
    from device.runtime import Runtime
    from device.store import SQLiteStore

    table = SimulatedTable("pyramid_dice", 2, 2, SimParams(observer="noise", max_moves=20))
    service = MatchService(SQLiteStore(":memory:"))
    mid = service.create("pyramid_dice", 2, {}, None, 2, "t", seats=table.seats)
    runtime = Runtime(table, table.observer(), service, mid, live_view=False)
    assert service.match(mid).seats == ("bottom", "top")  # (the service reconciles with them)
    told = readings = 0
    while runtime.status != "source ended":
        step = runtime.step()
        if step is None or step.observation is None or not step.observation.moved:
            continue
        readings += 1
        told += step.observation.hand_edge == table.scenes_at[step.frame].seat
    assert readings >= 15 and told >= 0.9 * readings, (told, readings)
