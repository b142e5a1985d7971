"""Quarriors dice on the rendered table, read by the real pipeline: typed by their colours
(a Q1 face is on 15 of the 18 dice), the Used Pile's by type only, dice that did not move
kept from the reading before."""

from __future__ import annotations

import numpy as np

from device.simtable import SimParams, SimulatedTable


def _readings(n: int) -> tuple[SimulatedTable, list[tuple[object, list]]]:
    """The first ``n`` settled readings of simulated seed 0, each with the dice as placed."""
    table = SimulatedTable("quarriors", 2, 0, SimParams(max_moves=150))
    reader = table.observer()
    out: list[tuple[object, list]] = []
    last_still = -1
    while len(out) < n:
        frame = table.read()
        assert frame is not None
        still = table.still_from[frame.seq]
        if frame.seq - still != 3 or still == last_still:
            continue  # one reading per still table, as the settler hands them on
        last_still = still
        reader.expect(table.game.expected_view(table.truth.state))
        placed = [(e.zone, e.attr("type"), e.attr("face"), x, y)
                  for e, x, y, *_ in table.renderer.placement.dice]
        out.append((reader.read(frame), placed))
    return table, out


def test_quarriors_dice_typed_by_colour_and_the_used_pile_by_type_only() -> None:
    table, readings = _readings(10)
    right = total = used = 0
    for obs, placed in readings:
        for o in obs.objects:  # type: ignore[attr-defined]
            if o.kind != "die" or o.position_mm is None:
                continue
            d = [np.hypot(x - o.position_mm[0], y - o.position_mm[1]) for *_, x, y in placed]
            zone, typ, face, *_ = placed[int(np.argmin(d))]
            assert not zone.startswith("wilds")  # the Wilds are not read
            total += 1
            right += o.top("type") == typ
            if zone.startswith("used:"):
                used += 1
                assert o.dist("face") is None  # read by type only
    assert total >= 20 and right >= 0.9 * total, (right, total)
    assert used > 0


def test_a_used_pile_swept_together_is_read_die_by_die() -> None:
    """Fourteen dice pushed together in the Used Pile are one blob on the mat: it is split
    into dice (calibration.table.dice_top.find_on_mat, heap zones), and the rules are told
    a die there may go unseen (Observation.miss)."""
    from engine.observation import Expected
    from vision.frame import Frame

    table = SimulatedTable("quarriors", 2, 0, SimParams())
    reader = table.observer()
    types = ["assistant"] * 5 + ["basic-quiddity"] * 7 + ["ghostly-spirit"] * 2
    view = tuple(sorted(Expected.make("die", "used:0", type=f"quarriors-{t}") for t in types))
    renderer = table.renderer
    assert renderer is not None
    renderer.place(view, thrown=True)
    image = renderer.render_still(view)
    obs = reader.read(Frame(image, 1, 0.0, "test"))
    found = [o for o in obs.objects if o.kind == "die" and o.zone == "used:0"]
    assert len(found) >= 13, len(found)  # 12 of 14 without the heap split
    assert sum(o.top("type") == "quarriors-assistant" for o in found) >= 4
    assert dict(obs.miss)["used:0"] > 0.02


def test_the_wilds_are_watched_for_a_die_taken() -> None:
    """The Wilds are not read but watched (calibration.table.watch): a die taken from its
    card shows as a change until the record follows it; the same table seen again does
    not."""
    from vision.frame import Frame

    table = SimulatedTable("quarriors", 2, 0, SimParams())
    reader = table.observer()
    renderer = table.renderer
    assert renderer is not None
    full = table.game.expected_view(table.truth.state)
    wilds = [e for e in full if e.zone == "wilds"]
    assert len(wilds) >= 50
    taken = list(full)
    taken.remove(next(e for e in wilds if e.attr("type") == "quarriors-portal"))
    taken_view = tuple(taken)

    def seen(view: tuple, record: tuple, seq: int, **look: object) -> dict[str, bool]:
        renderer.place(view, thrown=False)
        reader.expect(record)
        image = renderer.render_still(view, seed=seq, **look)  # type: ignore[arg-type]
        obs = reader.read(Frame(image, seq, 0.0, "test"))
        assert "wilds" not in obs.zones_seen and not any(o.zone == "wilds" for o in obs.objects)
        return dict(obs.changed)

    assert seen(full, full, 1) == {}  # the first look: nothing to compare with
    # seen again in other light, the camera knocked a little
    assert seen(full, full, 2, light=0.85, light_azimuth=70.0,
                camera=renderer.bumped(np.random.default_rng(2))) == {"wilds": False}
    assert seen(taken_view, full, 3) == {"wilds": True}
    assert seen(taken_view, full, 4) == {"wilds": True}  # still, until the record follows
    assert seen(taken_view, taken_view, 5) == {"wilds": False}


def test_a_white_die_taken_after_the_light_changed_is_seen() -> None:
    """The look kept follows the light (calibration.table.watch): after the light changed
    with nothing moved, a white die taken from the white paper is a change (kept from the
    record's last change, under the old light, every cell looked changed and the die's
    going like a shadow's: unseen)."""
    from vision.frame import Frame

    table = SimulatedTable("quarriors", 2, 0, SimParams())
    reader = table.observer()
    renderer = table.renderer
    assert renderer is not None
    full = table.game.expected_view(table.truth.state)
    white = ("quarriors-devotee-of-the-holy-query", "quarriors-ghostly-spirit")
    die = next(e for e in full if e.zone == "wilds" and e.attr("type") in white)
    taken = list(full)
    taken.remove(die)
    lit = {"light": 0.8, "light_azimuth": 60.0}

    def seen(view: tuple, seq: int, **look: object) -> dict[str, bool]:
        renderer.place(view, thrown=False)
        reader.expect(full)
        image = renderer.render_still(view, seed=seq, **look)  # type: ignore[arg-type]
        return dict(reader.read(Frame(image, seq, 0.0, "test")).changed)

    assert seen(full, 1) == {}
    assert seen(full, 2, **lit) == {"wilds": False}
    assert seen(full, 3, **lit) == {"wilds": False}
    assert seen(tuple(taken), 4, **lit) == {"wilds": True}
    assert seen(tuple(taken), 5, **lit) == {"wilds": True}  # until the record follows


def test_a_die_located_twice_is_one_die() -> None:
    """Two readings whose top faces were located closer than SAME_DIE x the edge are one die
    (the surer stays); two dice side by side, an edge apart, are two."""
    from calibration.table.dice import _one_per_die
    from engine.observation import Observed

    def die(x: float, conf: float) -> Observed:
        return Observed.make("die", "used:0", None, confidence=conf, position_mm=(x, 50.0),
                             type={"quarriors-assistant": 0.9})

    got = _one_per_die([die(100.0, 0.8), die(111.0, 0.97), die(127.0, 0.9)], 16.0)
    assert [o.position_mm[0] for o in got] == [111.0, 127.0]  # type: ignore[index]


def test_a_die_taken_from_the_wilds_or_put_back_is_read_by_type() -> None:
    """A capture takes one die from its card and a cull puts one back; the Wilds' other dice
    stand where they stood (the renderer: calibration.render.table, watched zones are not
    swept). The watch tells each die-sized change as a die that left, read on the look
    before, or one that came, read now (Observation.shifts); the Death spell's die, whose
    face is about as light as the paper, is seen taken too (its cells' holes filled)."""
    from engine.observation import Expected, make_view
    from vision.frame import Frame

    table = SimulatedTable("quarriors", 2, 0, SimParams())
    reader = table.observer()
    renderer = table.renderer
    assert renderer is not None
    seq = [0]

    def seen(view: tuple, record: tuple) -> tuple[dict[str, bool], list]:
        renderer.place(view, thrown=False)
        reader.expect(record)
        seq[0] += 1
        obs = reader.read(Frame(renderer.render_still(view, seed=seq[0]), seq[0], 0.0, "t"))
        return dict(obs.changed), [(s.added, s.types[0][0]) for s in obs.shifts]

    full = table.game.expected_view(table.truth.state)
    seen(full, full)
    standing = {(round(x, 1), round(y, 1)) for e, x, y, *_ in renderer.placement.dice
                if e.zone == "wilds"}
    now = full
    for die in ("portal", "death"):
        taken = list(now)
        taken.remove(next(e for e in now if e.zone == "wilds"
                          and e.attr("type") == f"quarriors-{die}"))
        changed, shifts = seen(make_view(taken), now)
        assert changed == {"wilds": True} and shifts == [(False, f"quarriors-{die}")]
        now = make_view(taken)
        assert seen(now, now) == ({"wilds": False}, [])
    left = {(round(x, 1), round(y, 1)) for e, x, y, *_ in renderer.placement.dice
            if e.zone == "wilds"}
    assert len(standing - left) == 2 and left < standing  # the others did not move
    culled = make_view([*now, Expected.make("die", "wilds", type="quarriors-basic-quiddity")])
    changed, shifts = seen(culled, now)
    assert changed == {"wilds": True}
    assert shifts == [(True, "quarriors-basic-quiddity")]


def test_a_die_that_did_not_change_is_not_read_again() -> None:
    """The dice zones are read again round each change (the light's too: a pip is too small
    for the gate's light test); each die there that lies where it was read and looks as it
    looked but for the light keeps its reading (calibration.table.dice_top.TopCache, its
    look taken where it was read). The light turned reads every die again from the cache;
    a die turned to another face in place as the light changes again is read anew."""
    import random

    from engine import get_game
    from engine.observation import Expected
    from vision.frame import Frame

    table = SimulatedTable("quarriors", 2, 0, SimParams())
    reader = table.observer()
    renderer = table.renderer
    assert renderer is not None
    game, state, rng = get_game("quarriors"), table.truth.state, random.Random(0)
    for _ in range(12):  # (seed 0: six dice drawn into the Active Pool)
        state, _ = game.apply(state, game.random_action(state, rng))
    view = game.expected_view(state)
    pool = [e for e in view if e.kind == "die" and e.zone == "active:0"]
    assert len(pool) == 6

    def faces(v: tuple, seq: int, **look: object) -> list[tuple[str, str]]:
        reader.expect(view)  # (the record has not followed the turn)
        image = renderer.render_still(v, seed=seq, **look)  # type: ignore[arg-type]
        obs = reader.read(Frame(image, seq, 0.0, "test"))
        return sorted((o.top("type"), o.top("face")) for o in obs.objects
                      if o.kind == "die" and o.zone == "active:0")

    renderer.place(view, thrown=True)
    truth = sorted((e.attr("type"), e.attr("face")) for e in pool)
    assert faces(view, 1) == truth
    cache = reader.dice._tops
    hits = cache.hits
    assert faces(view, 2, light=0.85, light_azimuth=70.0) == truth
    # (one die of the six may read again: the light moved a neighbour's shadow onto it)
    assert cache.hits - hits >= 5, "the dice that did not change were read again"

    # one Basic Quiddity turned from Q1 to Q2 (at a 24 px look it changed 1 pixel)
    at = next(i for i, e in enumerate(view) if e.zone == "active:0"
              and e.attr("type") == "quarriors-basic-quiddity" and e.attr("face") == "Q1")
    turned = (*view[:at], Expected.make("die", "active:0", type="quarriors-basic-quiddity",
                                        face="Q2"), *view[at + 1:])
    renderer.place(turned, thrown=False)
    hits = cache.hits
    want = sorted((e.attr("type"), e.attr("face")) for e in turned
                  if e.kind == "die" and e.zone == "active:0")
    assert faces(turned, 3, light=1.1, light_azimuth=200.0) == want
    assert cache.hits - hits >= 4  # and never the turned die: it reads its new face
