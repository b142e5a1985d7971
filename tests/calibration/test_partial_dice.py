"""Dice read again only round what changed (Perception.partial_dice; Quarriors): the changed
parts of the dice zones, each group of changes apart on its own (calibration.table.gate.
cores), read on their part of the frame at the frame's scale; the dice elsewhere kept."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np

from calibration.table.gate import cores
from device.simtable import SimParams, SimulatedTable


def test_changes_apart_are_boxed_each_on_its_own() -> None:
    cells = np.zeros((20, 40), bool)
    cells[2:5, 3:6] = True  # one die's change
    cells[3:6, 7:9] = True  # another beside it: one box
    cells[14:17, 30:33] = True  # far off: its own
    region = (100.0, 50.0, 220.0, 110.0)
    assert cores(cells, region, 3.0, float("inf")) == [(109.0, 56.0, 199.0, 101.0)]
    assert sorted(cores(cells, region, 3.0, 12.0)) == [(109.0, 56.0, 127.0, 68.0),
                                                       (190.0, 92.0, 199.0, 101.0)]


def _dice(obs: Any) -> Counter:
    return Counter((o.zone, o.top("type"), o.top("face")) for o in obs.objects
                   if o.kind == "die")


def test_a_quarriors_reading_reads_only_the_changed_parts_again() -> None:
    """Simulated seed 0, its first 12 still tables, read by two readers: whole at each
    reading, and in parts. The same dice; the parts' detector saw less of the frame."""
    from vision.frame import Frame

    table = SimulatedTable("quarriors", 2, 0, SimParams(max_moves=60))
    whole, parts = table.observer(), table.observer()
    whole.dice.spec = replace(whole.dice.spec, partial_dice=False)
    assert parts.dice.spec.partial_dice
    seen: list[tuple[int, int]] = []
    reader = parts.dice.reader
    read = reader.read

    def spy(image: np.ndarray, *a: Any, **k: Any) -> Any:
        seen.append(image.shape[:2])
        return read(image, *a, **k)

    last, n, same, total = -1, 0, 0, 0
    while n < 12:
        frame = table.read()
        assert frame is not None
        still = table.still_from[frame.seq]
        if frame.seq - still != 3 or still == last:
            continue
        last, n = still, n + 1
        view = table.game.expected_view(table.truth.state)
        for r in (whole, parts):
            r.expect(view)
        a = _dice(whole.read(Frame(frame.image, frame.seq, 0.0, "w")))
        reader.read = spy  # type: ignore[method-assign]
        try:
            b = _dice(parts.read(Frame(frame.image, frame.seq, 0.0, "p")))
        finally:
            reader.read = read  # type: ignore[method-assign]
        total += sum(a.values())
        same += sum((a & b).values())
    assert same >= total - 2, (same, total)
    full = table.renderer.camera.width * table.renderer.camera.height  # type: ignore[union-attr]
    assert seen and min(h * w for h, w in seen) < full / 4
